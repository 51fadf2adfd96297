// The concurrency check of the transactional key-value store (SPEC T2, T3, T4, T8): a writer and
// interactive-query readers on real threads against the RocksDB store, the history judged by
// CheckHistory; a store with a planted dirty read that the checker must reject; and the
// checker itself on hand-made histories.
//
// Settings, overridable: STATECHECK_SEED, STATECHECK_KV_EPOCHS. Run under ThreadSanitizer too
// (-DSTATECHECK_TSAN=ON, with ci/tsan.supp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "properties/kit/outcome.h"
#include "properties/kit/trace.h"
#include "properties/kv_concurrency/history.h"
#include "properties/kv_concurrency/history_file.h"
#include "properties/rapidcheck_runner.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"
#include "testing/forwarding_key_value_store.h"

namespace statecheck::properties::kv_concurrency {
namespace {

WorkloadOptions OptionsFromEnvironment() {
  WorkloadOptions o;
  o.seed = 20261130;
  if (const char* seed = std::getenv("STATECHECK_SEED")) o.seed = std::strtoull(seed, nullptr, 10);
  if (const char* epochs = std::getenv("STATECHECK_KV_EPOCHS")) o.epochs = std::atoi(epochs);
  return o;
}

std::string Reproduce(const WorkloadOptions& o) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return "reproduce=STATECHECK_SEED=" + std::to_string(o.seed) +
         " STATECHECK_KV_EPOCHS=" + std::to_string(o.epochs) +
         " kv_concurrency_test --gtest_filter=" + info->test_suite_name() + "." + info->name();
}

// A fresh directory under the system's temp directory, removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("statecheck-kv-concurrency-" + std::to_string(::getpid()) + "-" + name)) {
    std::filesystem::remove_all(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

std::unique_ptr<RocksDBStore> OpenStore(IsolationLevel isolation, const ScratchDir& dir) {
  RocksDBStoreOptions options;
  options.name = "kv-concurrency";
  options.directory = dir.path();
  options.isolation = isolation;
  options.use_wal = false;
  options.logger = NullLogger();
  std::unique_ptr<RocksDBStore> store;
  const Status s = OpenRocksDBStore(options, &store);
  EXPECT_TRUE(s.ok()) << s;
  return store;
}

int64_t CountReads(const History& h) {
  int64_t n = 0;
  for (const Event& ev : h.events) n += IsWriterEvent(ev.kind) ? 0 : 1;
  return n;
}

void RunOnRocksDB(IsolationLevel isolation, const std::string& dir_name) {
  const WorkloadOptions o = OptionsFromEnvironment();
  ScratchDir dir(dir_name);
  std::unique_ptr<RocksDBStore> store = OpenStore(isolation, dir);
  ASSERT_NE(store, nullptr);
  History history;
  const auto start = std::chrono::steady_clock::now();
  const Status run = RunWorkload(*store, o, &history);
  const auto ran = std::chrono::steady_clock::now();
  store->Close();
  ASSERT_TRUE(run.ok()) << run << "\n" << Reproduce(o);
  std::string report;
  const Status check = CheckHistory(history, isolation, &report);
  const auto checked = std::chrono::steady_clock::now();
  EXPECT_TRUE(check.ok()) << check << "\n" << report << Reproduce(o);
  EXPECT_GT(CountReads(history), 0) << "the readers never ran: the check judged nothing";
  auto ms = [](auto d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); };
  std::cout << report << "workload " << ms(ran - start) << " ms, check " << ms(checked - ran)
            << " ms\n";
  ::testing::Test::RecordProperty("events", std::to_string(history.events.size()));
  ::testing::Test::RecordProperty("seed", std::to_string(o.seed));
}

TEST(KvConcurrency, ReadCommittedHistoryIsClean) {
  RunOnRocksDB(IsolationLevel::kReadCommitted, "rc");
}

TEST(KvConcurrency, ReadUncommittedHistoryIsClean) {
  RunOnRocksDB(IsolationLevel::kReadUncommitted, "ru");
}

// ---------------------------------------------------------------------------------------------
// A planted bug: query views that read the writer's uncommitted state.

class VectorIterator final : public KeyValueIterator {
 public:
  explicit VectorIterator(std::vector<KeyValue> records) : records_(std::move(records)) {}
  bool HasNext() override { return next_ < records_.size(); }
  Status Next(KeyValue* kv) override {
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    *kv = records_[next_++];
    return Status::Ok();
  }
  Status PeekNextKey(std::string* key) override {
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    *key = records_[next_].key;
    return Status::Ok();
  }
  void Close() override { next_ = records_.size(); }

 private:
  std::vector<KeyValue> records_;
  size_t next_ = 0;
};

// Decorates a READ_COMMITTED store so that its query views read through the writer's own
// methods, which see the uncommitted buffer (T5) — a dirty read. Every call on either side
// takes one mutex, so the bug is an isolation violation and not a data race (TSan stays quiet).
class DirtyReadStore final : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  Status Put(std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context) override {
    const Status s = ForwardingStore::Put(key, value, context);
    // Holds the epoch open, unlocked, so that readers get to see the uncommitted write.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    return s;
  }
  std::shared_ptr<QueryView> NewQueryView() override { return std::make_shared<View>(this); }

 private:
  std::unique_lock<std::mutex> Lock() const override { return std::unique_lock<std::mutex>(mu_); }

  // Reads the writer's view and reports the committed position, as an honest view would.
  class View final : public QueryView {
   public:
    explicit View(DirtyReadStore* store) : store_(store) {}
    Status Get(std::string_view key, std::optional<std::string>* value) override {
      std::lock_guard<std::mutex> lock(store_->mu_);
      position_ = store_->inner_->CommittedPosition();
      return store_->inner_->Get(key, value);
    }
    Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
                 std::unique_ptr<KeyValueIterator>* it) override {
      return Drain([&](auto* inner) { return store_->inner_->Range(from, to, inner); }, it);
    }
    Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                        std::unique_ptr<KeyValueIterator>* it) override {
      return Drain([&](auto* inner) { return store_->inner_->ReverseRange(from, to, inner); }, it);
    }
    Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override {
      return Drain([&](auto* inner) { return store_->inner_->PrefixScan(prefix, inner); }, it);
    }
    Status All(std::unique_ptr<KeyValueIterator>* it) override {
      return Drain([&](auto* inner) { return store_->inner_->All(inner); }, it);
    }
    Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
      return Drain([&](auto* inner) { return store_->inner_->ReverseAll(inner); }, it);
    }
    Position LastReadPosition() const override {
      std::lock_guard<std::mutex> lock(store_->mu_);
      return position_;
    }

   private:
    // Opens and drains the writer's iterator under the lock.
    template <typename Open>
    Status Drain(Open open, std::unique_ptr<KeyValueIterator>* it) {
      std::lock_guard<std::mutex> lock(store_->mu_);
      position_ = store_->inner_->CommittedPosition();
      std::unique_ptr<KeyValueIterator> inner;
      STATECHECK_RETURN_IF_ERROR(open(&inner));
      std::vector<KeyValue> records;
      while (inner->HasNext()) {
        KeyValue kv;
        STATECHECK_RETURN_IF_ERROR(inner->Next(&kv));
        records.push_back(std::move(kv));
      }
      *it = std::make_unique<VectorIterator>(std::move(records));
      return Status::Ok();
    }

    DirtyReadStore* store_;
    Position position_;  // Guarded by store_->mu_.
  };

  mutable std::mutex mu_;
};

TEST(KvConcurrency, CheckerCatchesPlantedDirtyRead) {
  WorkloadOptions o = OptionsFromEnvironment();
  o.epochs = std::min(o.epochs, 60);
  ScratchDir dir("dirty");
  std::unique_ptr<RocksDBStore> inner = OpenStore(IsolationLevel::kReadCommitted, dir);
  ASSERT_NE(inner, nullptr);
  DirtyReadStore store(std::move(inner));
  History history;
  const Status run = RunWorkload(store, o, &history);
  store.Close();
  ASSERT_TRUE(run.ok()) << run << "\n" << Reproduce(o);
  std::string report;
  const Status check = CheckHistory(history, IsolationLevel::kReadCommitted, &report);
  EXPECT_EQ(check.code(), Status::Code::kAborted) << report << Reproduce(o);
  EXPECT_NE(report.find("dirty read: #"), std::string::npos) << report << Reproduce(o);
  EXPECT_NE(check.message().find("dirty read"), std::string::npos) << check;
  std::cout << report.substr(0, report.find("\n2. ")) << "\n";
}

// ---------------------------------------------------------------------------------------------
// The property (Check): its failures are credited to the rule the bug breaks.

PropertyParams ConcurrencyParams() {
  PropertyParams p;
  p.seed = OptionsFromEnvironment().seed;
  p.max_success = 100;  // Five workloads.
  return p;
}

// Opens the engine's store in `dir` wrapped by `wrap`.
template <typename Wrap>
StoreFactory Wrapped(Wrap wrap) {
  return [wrap](const std::string& dir, IsolationLevel isolation,
                std::unique_ptr<KeyValueStore>* store) {
    std::unique_ptr<KeyValueStore> inner;
    STATECHECK_RETURN_IF_ERROR(EngineKvConcurrencyStoreFactory()(dir, isolation, &inner));
    *store = wrap(std::move(inner));
    return Status::Ok();
  };
}

void ExpectCredited(const PropertyOutcome& out, const std::string& rule) {
  ASSERT_FALSE(out.passed) << out.property << ": the planted bug was not caught";
  EXPECT_EQ(out.rule, rule) << out.message;
  EXPECT_TRUE(out.message.starts_with(rule + ": ")) << out.message;
  EXPECT_NE(out.message.find("workload seed "), std::string::npos) << out.message;
}

// The failing workload's history is saved, and judged again from the file it is T4 again.
TEST(KvConcurrencyAttribution, PlantedDirtyReadIsT4AndItsSavedHistoryReplaysSo) {
  PropertyParams p = ConcurrencyParams();
  p.trace_dir = ScratchDirectory("kv-histories");
  const PropertyOutcome out =
      Check(IsolationLevel::kReadCommitted, p, Wrapped([](std::unique_ptr<KeyValueStore> inner) {
              return std::make_unique<DirtyReadStore>(std::move(inner));
            }));
  ExpectCredited(out, "T4");
  ASSERT_FALSE(out.trace_path.empty()) << out.message;
  std::string text;
  ASSERT_TRUE(kit::ReadTextFile(out.trace_path, &text).ok());
  TraceReplay replay;
  ASSERT_TRUE(kv_concurrency::HistoryKind()
                  .replay(text, out.trace_path, ReplayTarget::kBoth, &replay)
                  .ok());
  EXPECT_TRUE(replay.diverged) << replay.verdict;
  EXPECT_EQ(replay.rule, "T4") << replay.verdict;
  EXPECT_EQ(replay.recorded_failure, out.message);
  std::filesystem::remove_all(p.trace_dir);
}

TEST(KvConcurrencyAttribution, EngineStorePassesWithEvidence) {
  for (IsolationLevel level : {IsolationLevel::kReadCommitted, IsolationLevel::kReadUncommitted}) {
    PropertyParams p = ConcurrencyParams();
    p.max_success = 40;
    const PropertyOutcome out = Check(level, p);
    EXPECT_TRUE(out.passed) << out.message;
    EXPECT_EQ(out.rule, "");
    EXPECT_EQ(out.cases, 2);
    // Counted per workload: at most once per case.
    EXPECT_EQ(out.evidence.situations.at("T2.writer_view_intact"), 2);
    for (const auto& [name, cases] : out.evidence.situations) EXPECT_LE(cases, 2) << name;
  }
}

// A view whose reads lag: it serves the state as of the last commit (under READ_UNCOMMITTED a
// write that returned must be visible at once), or reports the uncommitted position, or now and
// then returns a value nobody wrote, or a store whose writer loses a key once readers have read.
class LaggingStore final : public testing::ForwardingStore {
 public:
  enum class Bug { kStaleView, kUncommittedPosition, kGarbage, kWriterLosesAKey };
  LaggingStore(std::unique_ptr<KeyValueStore> inner, Bug bug)
      : ForwardingStore(std::move(inner)), bug_(bug) {}

  Status All(std::unique_ptr<KeyValueIterator>* it) override {
    STATECHECK_RETURN_IF_ERROR(inner_->All(it));
    if (bug_ == Bug::kWriterLosesAKey && reads_.load() > 0) {
      std::vector<KeyValue> records;
      KeyValue kv;
      while ((*it)->HasNext() && (*it)->Next(&kv).ok()) records.push_back(kv);
      if (!records.empty()) records.erase(records.begin());
      *it = std::make_unique<VectorIterator>(std::move(records));
    }
    return Status::Ok();
  }
  Status Commit(const ChangelogOffsets& offsets) override {
    STATECHECK_RETURN_IF_ERROR(inner_->Commit(offsets));
    // The state as of this commit, for the stale view: read on the writer's thread.
    std::unique_ptr<KeyValueIterator> it;
    STATECHECK_RETURN_IF_ERROR(inner_->All(&it));
    std::map<std::string, std::string> state;
    KeyValue kv;
    while (it->HasNext() && it->Next(&kv).ok()) state[kv.key] = kv.value;
    std::lock_guard<std::mutex> lock(mu_);
    as_of_commit_ = std::move(state);
    return Status::Ok();
  }
  std::shared_ptr<QueryView> NewQueryView() override {
    return std::make_shared<View>(this, inner_->NewQueryView());
  }

 private:
  class View final : public testing::ForwardingView {
   public:
    View(LaggingStore* store, std::shared_ptr<QueryView> inner)
        : ForwardingView(std::move(inner)), store_(store) {}
    Status Get(std::string_view key, std::optional<std::string>* value) override {
      const int64_t read = ++store_->reads_;
      STATECHECK_RETURN_IF_ERROR(inner_->Get(key, value));
      switch (store_->bug_) {
        case Bug::kStaleView: {
          std::lock_guard<std::mutex> lock(store_->mu_);
          auto it = store_->as_of_commit_.find(std::string(key));
          if (it == store_->as_of_commit_.end()) {
            value->reset();
          } else {
            *value = it->second;
          }
          break;
        }
        case Bug::kUncommittedPosition:
          position_ = store_->inner_->UncommittedPosition();
          break;
        case Bug::kGarbage:
          // The first get of the workload's views, then every 7th: a workload whose writer
          // finishes fast leaves its readers few gets (one view's 50th read was too rare once
          // commits stopped flushing; the 7th of all views' gets was, once in a CI run at
          // b0b80e2, never reached in any of the five workloads).
          if (read % 7 == 1) *value = "garbage";
          break;
        case Bug::kWriterLosesAKey:
          break;
      }
      return Status::Ok();
    }
    Position LastReadPosition() const override {
      return store_->bug_ == Bug::kUncommittedPosition ? position_ : inner_->LastReadPosition();
    }

   private:
    LaggingStore* store_;
    Position position_;  // This view's thread only, as the interface's LastReadPosition.
  };

  const Bug bug_;
  std::atomic<int64_t> reads_{0};
  std::mutex mu_;
  std::map<std::string, std::string> as_of_commit_;  // Guarded by mu_.
};

PropertyOutcome RunLagging(IsolationLevel level, LaggingStore::Bug bug) {
  return Check(level, ConcurrencyParams(), Wrapped([bug](std::unique_ptr<KeyValueStore> inner) {
                 return std::make_unique<LaggingStore>(std::move(inner), bug);
               }));
}

TEST(KvConcurrencyAttribution, StaleReadUncommittedViewIsT3) {
  ExpectCredited(RunLagging(IsolationLevel::kReadUncommitted, LaggingStore::Bug::kStaleView), "T3");
}

TEST(KvConcurrencyAttribution, ViewReportingTheUncommittedPositionIsT8) {
  ExpectCredited(
      RunLagging(IsolationLevel::kReadCommitted, LaggingStore::Bug::kUncommittedPosition), "T8");
}

TEST(KvConcurrencyAttribution, ValueNobodyWroteIsT2) {
  ExpectCredited(RunLagging(IsolationLevel::kReadUncommitted, LaggingStore::Bug::kGarbage), "T2");
}

TEST(KvConcurrencyAttribution, WriterViewCorruptedAfterReadersIsT2) {
  const PropertyOutcome out =
      RunLagging(IsolationLevel::kReadCommitted, LaggingStore::Bug::kWriterLosesAKey);
  ExpectCredited(out, "T2");
  EXPECT_NE(out.message.find("the writer's All()"), std::string::npos) << out.message;
}

// ---------------------------------------------------------------------------------------------
// The checker on hand-made histories. Timestamps are explicit, to make the overlaps exact.

class HistoryBuilder {
 public:
  HistoryBuilder() { h_.readers = 2; }

  HistoryBuilder& Put(int64_t t0, int64_t t1, int64_t epoch, std::string key, std::string value) {
    Event& ev = Add(0, EventKind::kPut, t0, t1);
    ev.epoch = epoch;
    ev.key = std::move(key);
    ev.value = std::move(value);
    ev.position = {{"input-0", epoch}};
    return *this;
  }
  HistoryBuilder& Delete(int64_t t0, int64_t t1, int64_t epoch, std::string key) {
    Event& ev = Add(0, EventKind::kDelete, t0, t1);
    ev.epoch = epoch;
    ev.key = std::move(key);
    ev.position = {{"input-0", epoch}};
    return *this;
  }
  HistoryBuilder& Commit(int64_t t0, int64_t t1, int64_t epoch, Position position) {
    Event& ev = Add(0, EventKind::kCommit, t0, t1);
    ev.epoch = epoch;
    ev.position = std::move(position);
    return *this;
  }
  HistoryBuilder& Rollback(int64_t t0, int64_t t1, int64_t epoch) {
    Add(0, EventKind::kRollback, t0, t1).epoch = epoch;
    return *this;
  }
  HistoryBuilder& Get(int thread, int64_t t0, int64_t t1, std::string key,
                      std::optional<std::string> value, Position position) {
    Event& ev = Add(thread, EventKind::kGet, t0, t1);
    ev.key = std::move(key);
    ev.value = std::move(value);
    ev.position = std::move(position);
    return *this;
  }
  HistoryBuilder& All(int thread, int64_t t0, int64_t t1, std::vector<KeyValue> records,
                      Position position) {
    Event& ev = Add(thread, EventKind::kRange, t0, t1);
    ev.records = std::move(records);
    ev.position = std::move(position);
    return *this;
  }
  const History& history() const { return h_; }

 private:
  Event& Add(int thread, EventKind kind, int64_t t0, int64_t t1) {
    Event& ev = h_.events.emplace_back();
    ev.thread = thread;
    ev.kind = kind;
    ev.invoke = t0;
    ev.response = t1;
    return ev;
  }
  History h_;
};

Position At(int64_t offset) { return {{"input-0", offset}}; }

// Two commits, reads before, during and after them, and a rolled-back epoch in between.
HistoryBuilder CleanHistory() {
  HistoryBuilder b;
  b.Get(1, 1, 2, "a", std::nullopt, {})
      .Put(3, 4, 1, "a", "e1:a")
      .Put(5, 6, 1, "b", "e1:b")
      .Get(1, 7, 8, "a", std::nullopt, {})  // Epoch 1 is open: the committed state is empty.
      .Commit(9, 14, 1, At(1))
      .All(2, 10, 11, {}, {})                                 // Overlaps the commit: before it...
      .All(1, 12, 13, {{"a", "e1:a"}, {"b", "e1:b"}}, At(1))  // ...or after it, all at once.
      .Put(15, 16, 2, "a", "e2:a")
      .Rollback(17, 18, 2)
      .Get(2, 19, 20, "a", "e1:a", At(1))
      .Delete(21, 22, 3, "b")
      .Put(23, 24, 3, "c", "e3:c")
      .Commit(25, 26, 3, At(3))
      .All(2, 27, 28, {{"c", "e3:c"}, {"a", "e1:a"}}, At(3));
  return b;
}

// ---------------------------------------------------------------------------------------------
// History files (history_file.h): what a concurrency finding is saved as, judged again offline.

// `text` whose header expects a violation of `rule`.
std::string Expecting(const std::string& text, const std::string& rule) {
  const size_t eol = text.find('\n');
  Json header = Json::parse(text.substr(0, eol));
  header["expect"] = Json{{"rule", rule}};
  return header.dump() + text.substr(eol);
}

TraceReplay ReplayHistoryText(const std::string& text, Status* status) {
  TraceReplay replay;
  *status = kv_concurrency::HistoryKind().replay(text, "h.jsonl", ReplayTarget::kBoth, &replay);
  return replay;
}

TEST(KvConcurrencyHistoryFile, AHistoryRoundTripsAndIsJudgedAgain) {
  History h = CleanHistory().history();
  h.events.back().reverse = true;  // The last read is a ReverseAll, as in the checker's test.
  h.isolation = IsolationLevel::kReadCommitted;
  h.readers = 2;
  h.seed = 99;
  const std::string text = kv_concurrency::FormatHistory(h, Json{{"note", "n"}});
  kv_concurrency::HistoryFile file;
  ASSERT_TRUE(kv_concurrency::ParseHistory(text, "h.jsonl", &file).ok());
  EXPECT_EQ(kv_concurrency::FormatHistory(file.history, file.info), text);
  ASSERT_EQ(file.lines.size(), h.events.size());
  EXPECT_EQ(file.lines.front(), 2);
  Status s;
  const TraceReplay replay = ReplayHistoryText(text, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FALSE(replay.diverged) << replay.verdict;

  History bytes = h;
  bytes.events[0].key = std::string("a\0\xff\\", 4);  // Bytes that need escapes.
  ASSERT_TRUE(
      kv_concurrency::ParseHistory(kv_concurrency::FormatHistory(bytes, {}), "h.jsonl", &file)
          .ok());
  EXPECT_EQ(file.history.events[0].key, bytes.events[0].key);
}

TEST(KvConcurrencyHistoryFile, AViolationDivergesWithItsRuleUnlessTheHeaderExpectsIt) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a").Get(1, 3, 4, "a", "e1:a", {}).Commit(5, 6, 1, At(1));
  History h = b.history();
  h.isolation = IsolationLevel::kReadCommitted;
  h.readers = 1;
  std::string text = kv_concurrency::FormatHistory(h, {});
  Status s;
  TraceReplay replay = ReplayHistoryText(text, &s);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(replay.diverged);
  EXPECT_EQ(replay.rule, "T4");
  EXPECT_NE(replay.verdict.find("dirty read: #1 (line 3) reader-1"), std::string::npos)
      << replay.verdict;
  const std::string expecting = Expecting(text, "T4");
  replay = ReplayHistoryText(expecting, &s);
  ASSERT_TRUE(s.ok()) << s << "\n" << expecting;
  EXPECT_FALSE(replay.diverged) << replay.verdict;
  // A clean history that expects a violation diverges: the checker missed it.
  HistoryBuilder clean;
  clean.Put(1, 2, 1, "a", "e1:a").Commit(3, 4, 1, At(1)).Get(1, 5, 6, "a", "e1:a", At(1));
  History ch = clean.history();
  ch.readers = 1;
  text = Expecting(kv_concurrency::FormatHistory(ch, {}), "T4");
  replay = ReplayHistoryText(text, &s);
  ASSERT_TRUE(s.ok()) << s << "\n" << text;
  EXPECT_TRUE(replay.diverged);
  EXPECT_EQ(replay.rule, "T4");
  EXPECT_NE(replay.message.find("the checker found every read explained"), std::string::npos);
}

TEST(KvConcurrencyHistoryFile, AMalformedHistoryIsAnErrorNamingTheLine) {
  const std::string header =
      R"({"statecheck_trace":1,"kind":"kv_concurrency","config":{"isolation":"READ_COMMITTED","readers":1}})"
      "\n";
  const std::string put =
      R"({"thread":0,"event":"put","invoke":1,"response":2,"status":"OK","epoch":1,"key":"a","value":"e1:a","position":{"input-0":1}})"
      "\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {header, "h.jsonl has no events: a history that checks nothing"},
      {header +
           R"({"thread":1,"event":"put","invoke":1,"response":2,"status":"OK","epoch":1,"key":"a","value":"v","position":{}})"
           "\n",
       "line 2: a put is the writer's (thread 0)"},
      {header + put +
           R"({"thread":2,"event":"get","invoke":3,"response":4,"status":"OK","key":"a","value":null,"position":{}})",
       "line 3: \"thread\" is 0 (the writer) or a reader from 1 to 1, not 2"},
      {header + put +
           R"({"thread":1,"event":"get","invoke":0,"response":4,"status":"OK","key":"a","value":null,"position":{}})",
       "line 3: events are in invocation order"},
      {header + put +
           R"({"thread":1,"event":"get","invoke":5,"response":4,"status":"OK","key":"a","value":null,"position":{}})",
       "line 3: \"response\" comes before \"invoke\""},
      {header + put +
           R"({"thread":1,"event":"get","invoke":5,"response":6,"status":"OK","key":"a","value":null,"positon":{}})",
       "line 3: \"position\" must be an object"},
      {header + put +
           R"({"thread":1,"event":"get","invoke":5,"response":6,"status":"OK","key":"a","value":null,"position":{},"extra":1})",
       "line 3: unknown key \"extra\" in a get event"},
      {header + put +
           R"({"thread":0,"event":"commit","invoke":2,"response":6,"status":"OK","epoch":1,"position":{"input-0":1}})",
       "the checker cannot judge this history: writer events overlap: #0 (line 2) writer Put"},
      {R"({"statecheck_trace":1,"kind":"kv_concurrency","config":{"isolation":"SERIALIZABLE","readers":1}})",
       "line 1: config: \"isolation\" must be READ_COMMITTED or READ_UNCOMMITTED"},
  };
  for (const auto& [text, message] : cases) {
    Status s;
    ReplayHistoryText(text, &s);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << text;
    EXPECT_NE(s.message().find(message), std::string::npos) << s << "\nwanted: " << message;
  }
}

TEST(KvConcurrency, CheckerAcceptsCleanHistory) {
  History h = CleanHistory().history();
  h.events.back().reverse = true;  // The last read is a ReverseAll: "c" then "a".
  std::string report;
  const Status s = CheckHistory(h, IsolationLevel::kReadCommitted, &report);
  EXPECT_TRUE(s.ok()) << s << "\n" << report;
  EXPECT_NE(report.find("No violation"), std::string::npos) << report;
}

// Judges `b`'s history under READ_COMMITTED, EXPECTs a violation whose report holds `text`, and
// returns the report.
std::string ExpectViolation(const HistoryBuilder& b, const std::string& text) {
  std::string report;
  const Status s = CheckHistory(b.history(), IsolationLevel::kReadCommitted, &report);
  EXPECT_EQ(s.code(), Status::Code::kAborted);
  EXPECT_NE(report.find(text), std::string::npos) << report;
  return report;
}

TEST(KvConcurrency, CheckerCatchesDirtyRead) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a").Get(1, 3, 4, "a", "e1:a", {}).Commit(5, 6, 1, At(1));
  const std::string report = ExpectViolation(b, "dirty read: #1 reader-1 Get(\"a\") -> \"e1:a\"");
  EXPECT_NE(report.find("committed only later, by #2 writer Commit"), std::string::npos) << report;
}

TEST(KvConcurrency, CheckerCatchesRolledBackRead) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a").Rollback(3, 4, 1).Get(1, 5, 6, "a", "e1:a", {});
  ExpectViolation(b, "rolled-back read: #2 reader-1");
}

TEST(KvConcurrency, CheckerCatchesTornCommit) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a")
      .Put(3, 4, 1, "b", "e1:b")
      .Commit(5, 6, 1, At(1))
      .All(1, 7, 8, {{"a", "e1:a"}}, At(1));  // Half of the commit.
  ExpectViolation(b, "torn read: #3 reader-1 All()");
}

TEST(KvConcurrency, CheckerCatchesBackwardsPosition) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a")
      .Commit(3, 4, 1, At(1))
      .Put(5, 6, 2, "a", "e2:a")
      .Commit(7, 20, 2, At(2))
      // Both reads overlap commit 2, so each alone is fine; in this order they are not.
      .Get(1, 8, 9, "a", "e2:a", At(2))
      .Get(1, 10, 11, "a", "e1:a", At(1));
  const std::string report =
      ExpectViolation(b, "position went backwards: #5 reader-1 Get(\"a\") -> \"e1:a\"");
  EXPECT_EQ(report.find("stale read"), std::string::npos) << report;
}

TEST(KvConcurrency, CheckerCatchesStaleRead) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a")
      .Commit(3, 4, 1, At(1))
      .Put(5, 6, 2, "a", "e2:a")
      .Commit(7, 8, 2, At(2))
      .Get(1, 9, 10, "a", "e1:a", At(1));  // Commit 2 had returned.
  ExpectViolation(b, "stale read: #4 reader-1");
}

TEST(KvConcurrency, CheckerCatchesPositionMismatchAndWrongCommitPosition) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a")
      .Commit(3, 4, 1, At(1))
      .Put(5, 6, 2, "a", "e2:a")
      .Commit(7, 8, 2, {})                 // Forgot to advance its position (T8).
      .Get(1, 9, 10, "a", "e2:a", At(1));  // The value of commit 2 at commit 1's position.
  std::string report;
  const Status s = CheckHistory(b.history(), IsolationLevel::kReadCommitted, &report);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << report;  // {} is also the initial one.

  HistoryBuilder c;
  c.Put(1, 2, 1, "a", "e1:a")
      .Commit(3, 4, 1, At(1))
      .Put(5, 6, 2, "a", "e2:a")
      .Commit(7, 8, 2, At(7))
      .Get(1, 9, 10, "a", "e2:a", At(1));
  const Status t = CheckHistory(c.history(), IsolationLevel::kReadCommitted, &report);
  EXPECT_EQ(t.code(), Status::Code::kAborted);
  EXPECT_NE(report.find("commit position: #3 writer Commit -> {input-0=7}"), std::string::npos)
      << report;
  EXPECT_NE(report.find("position mismatch: #4 reader-1"), std::string::npos) << report;
}

TEST(KvConcurrency, CheckerCatchesUncommittedStaleRead) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a")
      .Get(1, 3, 4, "a", "e1:a", {})  // Visible as soon as the put returns (T3).
      .Put(3, 6, 1, "b", "e1:b")      // Overlaps the next read: either answer is fine.
      .All(2, 5, 7, {{"a", "e1:a"}}, {})
      .Delete(8, 9, 1, "a")
      .Get(1, 10, 11, "a", "e1:a", {});  // Stale: the delete had returned.
  std::string report;
  const Status s = CheckHistory(b.history(), IsolationLevel::kReadUncommitted, &report);
  EXPECT_EQ(s.code(), Status::Code::kAborted) << report;
  EXPECT_NE(report.find("1 violation(s) of READ_UNCOMMITTED (stale read: 1)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("stale read: #5 reader-1 Get(\"a\")"), std::string::npos) << report;
}

TEST(KvConcurrency, CheckerCatchesNeverWrittenValue) {
  HistoryBuilder b;
  b.Put(1, 2, 1, "a", "e1:a").Get(1, 3, 4, "a", "e1:b", {});
  std::string report;
  EXPECT_EQ(CheckHistory(b.history(), IsolationLevel::kReadUncommitted, &report).code(),
            Status::Code::kAborted);
  EXPECT_NE(report.find("never written: #1 reader-1"), std::string::npos) << report;
}

// The checker's verdicts carry the rule of the first violation.
TEST(KvConcurrency, JudgementCreditsEachViolationKindToItsRule) {
  struct Case {
    HistoryBuilder history;
    IsolationLevel level;
    const char* rule;
  };
  HistoryBuilder dirty;
  dirty.Put(1, 2, 1, "a", "e1:a").Get(1, 3, 4, "a", "e1:a", {}).Commit(5, 6, 1, At(1));
  HistoryBuilder rolled_back;
  rolled_back.Put(1, 2, 1, "a", "e1:a").Rollback(3, 4, 1).Get(1, 5, 6, "a", "e1:a", {});
  HistoryBuilder torn;
  torn.Put(1, 2, 1, "a", "e1:a")
      .Put(3, 4, 1, "b", "e1:b")
      .Commit(5, 6, 1, At(1))
      .All(1, 7, 8, {{"a", "e1:a"}}, At(1));
  HistoryBuilder stale;
  stale.Put(1, 2, 1, "a", "e1:a")
      .Commit(3, 4, 1, At(1))
      .Put(5, 6, 2, "a", "e2:a")
      .Commit(7, 8, 2, At(2))
      .Get(1, 9, 10, "a", "e1:a", At(1));
  HistoryBuilder unknown_position;
  unknown_position.Put(1, 2, 1, "a", "e1:a")
      .Commit(3, 4, 1, At(1))
      .Get(1, 5, 6, "a", "e1:a", At(9));
  HistoryBuilder ru_stale;
  ru_stale.Put(1, 2, 1, "a", "e1:a").Get(1, 3, 4, "a", std::nullopt, {});
  HistoryBuilder never_written;
  never_written.Put(1, 2, 1, "a", "e1:a").Get(1, 3, 4, "a", "e1:b", {});
  HistoryBuilder same_position;  // Two commits report {} with different states.
  same_position.Put(1, 2, 1, "a", "e1:a").Commit(3, 4, 1, {});
  const std::vector<Case> cases = {
      {dirty, IsolationLevel::kReadCommitted, "T4"},
      {rolled_back, IsolationLevel::kReadCommitted, "T4"},
      {torn, IsolationLevel::kReadCommitted, "T4"},
      {stale, IsolationLevel::kReadCommitted, "T8"},
      {unknown_position, IsolationLevel::kReadCommitted, "T8"},
      {ru_stale, IsolationLevel::kReadUncommitted, "T3"},
      {never_written, IsolationLevel::kReadUncommitted, "T2"},
      {same_position, IsolationLevel::kReadCommitted, "T8"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const HistoryVerdict v = JudgeKvHistory(cases[i].history.history(), cases[i].level);
    EXPECT_FALSE(v.status.ok()) << i;
    ASSERT_TRUE(v.finding.has_value()) << i << ": " << v.report;
    EXPECT_EQ(v.finding->rule, cases[i].rule) << i << ": " << v.report;
    EXPECT_TRUE(v.situations.empty()) << i;
  }
  History clean_history = CleanHistory().history();
  clean_history.events.back().reverse = true;  // As in CheckerAcceptsCleanHistory.
  const HistoryVerdict clean = JudgeKvHistory(clean_history, IsolationLevel::kReadCommitted);
  EXPECT_TRUE(clean.status.ok()) << clean.report;
  EXPECT_FALSE(clean.finding.has_value());
  // The hand-made clean history: a read during the open epoch 1 (t=7..8), reads overlapping
  // commit 1, a read of "a" after epoch 2's write to it was rolled back.
  for (const char* s :
       {"T4.read_while_epoch_open", "T8.read_at_reported_position", "T4.range_overlaps_commit",
        "T4.read_after_rollback", "T8.reader_position_advances"}) {
    EXPECT_TRUE(clean.situations.contains(s)) << s;
  }
}

}  // namespace
}  // namespace statecheck::properties::kv_concurrency
