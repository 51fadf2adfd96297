// Tests of the sliding-window aggregation (statecheck/sliding_aggregation.h): worked examples of
// SPEC E1–E6, E10 for sliding windows. The windowed property
// (properties/windowed/property.h) runs it against its reference model.
#include "statecheck/sliding_aggregation.h"

#include <gtest/gtest.h>
// gtest first: rapidcheck/gtest.h needs it.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>

#include "testing/test_util.h"

namespace statecheck {
namespace {

namespace fs = std::filesystem;

SlidingWindows Sliding(int64_t d, int64_t grace) {
  SlidingWindows w;
  EXPECT_OK(SlidingWindows::OfTimeDifferenceAndGrace(d, grace, &w));
  return w;
}

struct Output {
  std::string key;  // "<start>:<end>:<key>"
  std::string value;
  int64_t timestamp = 0;
};

// A log and an aggregation task on it under `dir`.
class Harness {
 public:
  Harness(fs::path dir, std::shared_ptr<Logger> logger) : dir_(std::move(dir)), logger_(logger) {
    fs::remove_all(dir_);
    ReopenLog();
  }
  ~Harness() {
    task_.reset();
    log_.reset();
    fs::remove_all(dir_);
  }

  void ReopenLog() {
    task_.reset();
    log_.reset();
    LogOptions o;
    o.directory = (dir_ / "log").string();
    o.logger = NullLogger();
    const Status s = OpenLog(o, &log_);
    EXPECT_TRUE(s.ok()) << s;
  }

  Status Open(const SlidingWindows& windows, EmitStrategy emit, bool eos) {
    task_.reset();
    SlidingWindowedAggregationOptions a;
    a.windows = windows;
    a.emit = emit;
    a.emit_interval_ms = emit_interval_ms;
    stats = std::make_shared<AggregationStats>();
    a.stats = stats;
    a.logger = logger_;
    std::unique_ptr<Processor> processor;
    STATECHECK_RETURN_IF_ERROR(NewSlidingWindowedAggregation(a, &processor));
    return OpenWith(std::move(processor), eos);
  }

  // A task running `processor` in the aggregation's place, on the same stores and log.
  Status OpenWith(std::unique_ptr<Processor> processor, bool eos) {
    task_.reset();
    TaskOptions o;
    o.application_id = "app";
    o.input_partition = "input";
    o.output_partition = "output";
    o.state_directory = (dir_ / "state").string();
    o.log = log_.get();
    std::map<std::string, std::string> props;
    if (eos) props["processing.guarantee"] = "exactly_once_v2";
    STATECHECK_RETURN_IF_ERROR(ResolveStateConfig(props, &o.config));
    o.commit_interval_ms = int64_t{1} << 40;  // Commits only when told.
    o.clock = clock;
    o.logger = logger_;
    return OpenTask(o, std::move(processor), &task_);
  }

  Status Input(std::string_view key, int64_t timestamp) {
    int64_t offset = 0;
    STATECHECK_RETURN_IF_ERROR(log_->Append("input", key, "v", timestamp, &offset));
    return log_->Sync();
  }

  // The committed output, as "<windowed key>=<value>@<timestamp>".
  Status Output(std::vector<Output>* out) {
    out->clear();
    std::vector<LogRecord> records;
    const Status s = log_->Read("output", 0, 1 << 30, IsolationLevel::kReadCommitted, &records);
    if (s.code() == Status::Code::kOutOfRange) return Status::Ok();
    STATECHECK_RETURN_IF_ERROR(s);
    for (const LogRecord& r : records) {
      out->push_back({r.key, r.value.value_or("null"), r.timestamp});
    }
    return Status::Ok();
  }

  // The store's windows: "<start>:<start + d>:<key>" → "<aggregate>@<largest timestamp>".
  // Corruption unless its key index (E9) holds exactly one record per window.
  Status StoreContents(int64_t d, std::map<std::string, std::string>* out) {
    out->clear();
    std::set<std::string> windows, index;  // "<start>:<key>".
    std::unique_ptr<KeyValueIterator> it;
    STATECHECK_RETURN_IF_ERROR(task_->Store("sliding")->NewQueryView()->All(&it));
    KeyValue kv;
    auto be = [](std::string_view b) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
      return static_cast<int64_t>(v);
    };
    while (it->HasNext()) {
      STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
      if (!kv.key.empty() && kv.key[0] == '\xff') {  // [0xFF][length, 4][key][start, 8].
        const size_t n = kv.key.size() < 5 ? 0 : be(std::string(4, '\0') + kv.key.substr(1, 4));
        if (kv.key.size() != 13 + n || !kv.value.empty()) return Status::Corruption("bad index");
        index.insert(std::to_string(be(kv.key.substr(5 + n))) + ":" + kv.key.substr(5, n));
        continue;
      }
      if (kv.key.size() < 8 || kv.value.size() < 8) return Status::Corruption("not a window");
      const int64_t start = be(kv.key);
      windows.insert(std::to_string(start) + ":" + kv.key.substr(8));
      (*out)[std::to_string(start) + ":" + std::to_string(start + d) + ":" + kv.key.substr(8)] =
          kv.value.substr(8) + "@" + std::to_string(be(kv.value));
    }
    if (index != windows) {
      return Status::Corruption("the key index has " + std::to_string(index.size()) +
                                " records for " + std::to_string(windows.size()) + " windows");
    }
    return Status::Ok();
  }

  // The metadata committed with the input offset.
  std::string CommittedMetadata() {
    CommittedOffsets c;
    EXPECT_OK(log_->GetCommittedOffsets(task_->OffsetsGroup(), &c));
    return c.metadata;
  }

  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>();
  std::shared_ptr<AggregationStats> stats = std::make_shared<AggregationStats>();
  int64_t emit_interval_ms = 0;
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;

 private:
  const fs::path dir_;
  const std::shared_ptr<Logger> logger_;
};

class SlidingAggregationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h_ = std::make_unique<Harness>(
        fs::path(::testing::TempDir()) / ("statecheck_sagg_" + std::to_string(::getpid())) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name(),
        logger_);
  }
  void TearDown() override { h_.reset(); }

  Status Open(const SlidingWindows& windows, EmitStrategy emit, bool eos = false) {
    return h_->Open(windows, emit, eos);
  }
  // The emit-eager aggregation over `windows` with suppress(untilWindowCloses) after it.
  Status OpenSuppressed(const SlidingWindows& windows) {
    SlidingWindowedAggregationOptions a;
    a.windows = windows;
    a.logger = NullLogger();
    std::unique_ptr<Processor> p;
    STATECHECK_RETURN_IF_ERROR(NewSuppressedSlidingWindowedAggregation(a, &p));
    return h_->OpenWith(std::move(p), /*eos=*/false);
  }
  void Input(std::string_view key, int64_t ts) { ASSERT_OK(h_->Input(key, ts)); }

  // Processes everything, commits, and returns the output committed since the last call.
  std::vector<std::string> Run() {
    int64_t n = 0;
    EXPECT_OK(h_->task_->Process(1000, &n));
    EXPECT_OK(h_->task_->Commit());
    std::vector<Output> all;
    EXPECT_OK(h_->Output(&all));
    std::vector<std::string> out;
    for (size_t i = seen_; i < all.size(); ++i) {
      out.push_back(all[i].key + "=" + all[i].value + "@" + std::to_string(all[i].timestamp));
    }
    seen_ = all.size();
    return out;
  }
  std::map<std::string, std::string> Store(int64_t d) {
    std::map<std::string, std::string> out;
    EXPECT_OK(h_->StoreContents(d, &out));
    return out;
  }

  using Out = std::vector<std::string>;
  std::shared_ptr<testing::CapturingLogger> logger_ = std::make_shared<testing::CapturingLogger>();
  std::unique_ptr<Harness> h_;
  size_t seen_ = 0;
};

// E2 for early records (t < D): their left windows fold into [0, D]; a later early record creates
// the right window of the previous one.
TEST_F(SlidingAggregationTest, EarlyRecordsShareTheWindowFromZero) {
  ASSERT_OK(Open(Sliding(10, 100), EmitStrategy::kOnWindowUpdate));
  Input("a", 5);
  EXPECT_EQ(Run(), (Out{"0:10:a=1@5"}));
  Input("a", 8);  // [0,10] takes it; 5's right window [6,16] appears.
  EXPECT_EQ(Run(), (Out{"0:10:a=2@8", "6:16:a=1@8"}));
  Input("a", 3);  // [0,10] takes it; 3's right window [4,14] holds the later 5 and 8.
  EXPECT_EQ(Run(), (Out{"0:10:a=3@8", "4:14:a=2@8"}));
  EXPECT_EQ(Store(10), (std::map<std::string, std::string>{
                           {"0:10:a", "3@8"}, {"4:14:a", "2@8"}, {"6:16:a", "1@8"}}));
}

// E2 in order and out of order, keys that are byte prefixes of each other kept apart: one output
// per window updated or created, by ascending start, with the window's largest timestamp.
TEST_F(SlidingAggregationTest, InOrderAndOutOfOrderRecordsUpdateEveryWindowHoldingThem) {
  ASSERT_OK(Open(Sliding(10, 100), EmitStrategy::kOnWindowUpdate));
  Input("a", 5);
  Input("a", 12);  // Left window [2,12] holds 5 too; 5's right window [6,16] appears.
  EXPECT_EQ(Run(), (Out{"0:10:a=1@5", "2:12:a=2@12", "6:16:a=1@12"}));
  Input("ab", 12);
  Input("b", 2);
  EXPECT_EQ(Run(), (Out{"2:12:ab=1@12", "0:10:b=1@2"}));
  Input("a", 8);  // Out of order: [0,10], [2,12], [6,16] take it; its right window [9,19] holds 12.
  EXPECT_EQ(Run(), (Out{"0:10:a=2@8", "2:12:a=3@12", "6:16:a=2@12", "9:19:a=1@12"}));
  Input("a", 30);  // [20,30]; 12's right window [13,23] would not hold 30.
  EXPECT_EQ(Run(), (Out{"20:30:a=1@30"}));
  Input("a", 19);  // [9,19] (19's left window) takes it; 12's right window [13,23] appears.
  EXPECT_EQ(Run(), (Out{"9:19:a=2@19", "13:23:a=1@19"}));
  EXPECT_EQ(h_->stats->dropped_records, 0);
  EXPECT_EQ(Store(10), (std::map<std::string, std::string>{{"0:10:a", "2@8"},
                                                           {"0:10:b", "1@2"},
                                                           {"2:12:a", "3@12"},
                                                           {"2:12:ab", "1@12"},
                                                           {"6:16:a", "2@12"},
                                                           {"9:19:a", "2@19"},
                                                           {"13:23:a", "1@19"},
                                                           {"20:30:a", "1@30"}}));
}

// E1 at the boundaries: with D = 10 and grace 5, at stream time 40 (close time 35) a window
// takes records while its end >= 35; a record whose latest window [t, t + D] ended before 35 is
// dropped whole, counted once, and logged.
TEST_F(SlidingAggregationTest, GraceBoundariesDropLateWindowsAndRecords) {
  ASSERT_OK(Open(Sliding(10, 5), EmitStrategy::kOnWindowUpdate));
  Input("k", 40);
  EXPECT_EQ(Run(), (Out{"30:40:k=1@40"}));
  Input("k", 24);  // [24,34] ended before 35: dropped whole.
  EXPECT_TRUE(Run().empty());
  EXPECT_EQ(h_->stats->dropped_records, 1);
  EXPECT_NE(logger_->All().find("Skipping record for expired window. offset=[1] timestamp=[24] "
                                "window=[14,24] expiration=[35] streamTime=[40]"),
            std::string::npos)
      << logger_->All();
  Input("k", 25);  // Its one window [15,25] ended before 35: skipped, counted; nothing else.
  EXPECT_TRUE(Run().empty());
  EXPECT_EQ(h_->stats->dropped_records, 2);
  Input("k", 34);  // Left window [24,34]: end one before 35, skipped; [30,40] takes it.
  EXPECT_EQ(Run(), (Out{"30:40:k=2@40", "35:45:k=1@40"}));
  EXPECT_EQ(h_->stats->dropped_records, 3);
  // Left window [25,35]: end exactly 35, taken. It does not hold 34, as in Kafka: a new left
  // window finds the earlier records through the window ending last before it, and 34's own
  // left window was never made. 35's right window [36,46] holds 40.
  Input("k", 35);
  EXPECT_EQ(Run(), (Out{"25:35:k=1@35", "30:40:k=3@40", "35:45:k=2@40", "36:46:k=1@40"}));
  EXPECT_EQ(h_->stats->dropped_records, 3);
  Input("k", 36);  // [26,36], one after: taken, a copy of [25,35] plus 36.
  EXPECT_EQ(Run(),
            (Out{"26:36:k=2@36", "30:40:k=4@40", "35:45:k=3@40", "36:46:k=2@40", "37:47:k=1@40"}));
  EXPECT_EQ(h_->stats->dropped_records, 3);
}

TEST_F(SlidingAggregationTest, NullKeysAndMissingTimestampsAreDropped) {
  ASSERT_OK(Open(Sliding(10, 0), EmitStrategy::kOnWindowUpdate));
  Input("", 1);
  int64_t offset = 0;
  ASSERT_OK(h_->log_->Append("input", "k", "v", &offset));  // No timestamp.
  ASSERT_OK(h_->log_->Sync());
  EXPECT_TRUE(Run().empty());
  EXPECT_EQ(h_->stats->dropped_records, 2);
}

// E3, E4: each window once, after it closes (end < stream time - grace), with its final
// aggregate and largest timestamp, windows closing together by start, then key bytes.
TEST_F(SlidingAggregationTest, EmitFinalEmitsEachWindowOnceWhenItCloses) {
  ASSERT_OK(Open(Sliding(10, 2), EmitStrategy::kOnWindowClose));
  Input("b", 10);
  Input("a", 3);
  Input("ab", 10);
  Input("a", 12);  // Close time 10: [0,10] ends at 10, not before: open.
  EXPECT_TRUE(Run().empty());
  Input("c", 13);  // Close time 11: [0,10] closed.
  EXPECT_EQ(Run(), (Out{"0:10:a=1@3", "0:10:ab=1@10", "0:10:b=1@10"}));
  Input("c", 13);  // Close time unchanged: nothing.
  EXPECT_TRUE(Run().empty());
  Input("d", 40);  // Close time 38: every window so far.
  EXPECT_EQ(Run(), (Out{"2:12:a=2@12", "3:13:c=2@13", "4:14:a=1@12"}));
  EXPECT_EQ(h_->stats->emitted, 6);
}

// E6, E10: the last emitted close time is committed with the input offset; after a crash and
// after a clean restart, nothing is emitted twice and the store holds the committed windows.
TEST_F(SlidingAggregationTest, EmitFinalNeverEmitsTwiceAcrossRestarts) {
  ASSERT_OK(Open(Sliding(10, 0), EmitStrategy::kOnWindowClose, /*eos=*/true));
  Input("a", 1);
  Input("a", 12);  // Close time 12: [0,10] closed.
  EXPECT_EQ(Run(), (Out{"0:10:a=1@1"}));
  Input("a", 30);  // Processed, not committed: lost in the crash, processed again after.
  int64_t n = 0;
  ASSERT_OK(h_->task_->Process(10, &n));
  h_->task_->Abandon();
  h_->ReopenLog();
  ASSERT_OK(Open(Sliding(10, 0), EmitStrategy::kOnWindowClose, /*eos=*/true));
  EXPECT_EQ(Store(10), (std::map<std::string, std::string>{{"0:10:a", "1@1"}, {"2:12:a", "1@12"}}));
  // Stream time starts afresh at 30: [0,10] closes again — emitted already.
  EXPECT_EQ(Run(), (Out{"2:12:a=1@12"}));
  ASSERT_OK(h_->task_->Close());
  h_->ReopenLog();
  ASSERT_OK(Open(Sliding(10, 0), EmitStrategy::kOnWindowClose, /*eos=*/true));
  Input("a", 31);  // Close time 31: [20,30] closed.
  EXPECT_EQ(Run(), (Out{"20:30:a=1@30"}));
  Input("a", 45);
  EXPECT_EQ(Run(), (Out{"21:31:a=2@31", "31:41:a=1@31"}));
}

// E5: at most one emission attempt per emit interval of wall-clock time, and only when the
// close time advanced.
TEST_F(SlidingAggregationTest, EmitFinalWaitsForTheEmitInterval) {
  h_->emit_interval_ms = 1000;
  ASSERT_OK(Open(Sliding(10, 0), EmitStrategy::kOnWindowClose));
  Input("a", 1);  // The close time advances to 1: an attempt, which closes nothing.
  EXPECT_TRUE(Run().empty());
  Input("a", 11);  // Closes [0,10], but the last attempt was 0 ms ago.
  EXPECT_TRUE(Run().empty());
  h_->clock->Advance(1000);
  Input("a", 11);
  EXPECT_EQ(Run(), (Out{"0:10:a=1@1"}));
  Input("a", 30);  // Closes [1,11] and [2,12], within the interval again.
  EXPECT_TRUE(Run().empty());
  h_->clock->Advance(999);
  Input("a", 30);
  EXPECT_TRUE(Run().empty());
  h_->clock->Advance(1);
  Input("a", 30);
  EXPECT_EQ(Run(), (Out{"1:11:a=3@11", "2:12:a=2@11"}));
}

TEST_F(SlidingAggregationTest, BadOptionsAreClearErrors) {
  SlidingWindowedAggregationOptions a;
  a.windows = Sliding(10, 5);
  a.retention_ms = 24;
  std::unique_ptr<Processor> p;
  Status s = NewSlidingWindowedAggregation(a, &p);
  EXPECT_EQ(s.message(),
            "The retention period of the window store sliding must be no smaller than 2 * time "
            "difference plus the grace period. Got time difference=[10], grace=[5], "
            "retention=[24]");
  a.retention_ms = 25;
  EXPECT_OK(NewSlidingWindowedAggregation(a, &p));
  a.emit_interval_ms = -1;
  s = NewSlidingWindowedAggregation(a, &p);
  EXPECT_NE(s.message().find("emit_interval_ms must be >= 0"), std::string::npos) << s;
  a.emit_interval_ms = 0;
  a.store = "";
  s = NewSlidingWindowedAggregation(a, &p);
  EXPECT_NE(s.message().find("store cannot be empty"), std::string::npos) << s;
  a.store = "sliding";
  a.aggregator = Aggregator{};
  s = NewSlidingWindowedAggregation(a, &p);
  EXPECT_NE(s.message().find("aggregator"), std::string::npos) << s;
}

}  // namespace
}  // namespace statecheck

namespace statecheck {
namespace {

// What an engine from before the key index (or one a store went back to) leaves: the windows
// without their index records, and committed metadata without the index mark.
class DropTheIndex final : public Processor {
 public:
  std::vector<std::string> StoreNames() const override { return {"sliding"}; }
  Status Process(const LogRecord& record, ProcessorContext* context) override {
    std::unique_ptr<KeyValueIterator> it;
    STATECHECK_RETURN_IF_ERROR(
        context->Range("sliding", std::string(1, '\xff'), std::nullopt, &it));
    std::vector<std::string> index;
    KeyValue kv;
    while (it->HasNext()) {
      STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
      index.push_back(kv.key);
    }
    for (const std::string& k : index) STATECHECK_RETURN_IF_ERROR(context->Put("sliding", k, {}));
    return Status::Ok();
  }
};

// E9: the per-record lookup reads the record's key's windows through the key index, and a store
// without the index (no index mark in the committed metadata) is indexed at its first record, so
// that its windows are found. Under both guarantees.
TEST_F(SlidingAggregationTest, AStoreWithoutTheKeyIndexIsIndexedAtItsFirstRecord) {
  for (const bool eos : {false, true}) {
    SCOPED_TRACE(eos ? "exactly_once_v2" : "at_least_once");
    TearDown();
    logger_ = std::make_shared<testing::CapturingLogger>();
    SetUp();
    seen_ = 0;
    ASSERT_OK(Open(Sliding(10, 100), EmitStrategy::kOnWindowUpdate, eos));
    Input("a", 5);
    Input("a", 12);
    Input("b", 2);
    EXPECT_EQ(Run(), (Out{"0:10:a=1@5", "2:12:a=2@12", "6:16:a=1@12", "0:10:b=1@2"}));
    EXPECT_EQ(h_->CommittedMetadata(), "sliding+index=1");
    ASSERT_OK(h_->OpenWith(std::make_unique<DropTheIndex>(), eos));
    Input("x", 1);  // Drops the index; the metadata it commits has no mark.
    EXPECT_EQ(Run(), Out{});
    EXPECT_EQ(h_->CommittedMetadata(), "");

    ASSERT_OK(Open(Sliding(10, 100), EmitStrategy::kOnWindowUpdate, eos));
    Input("a", 8);  // Out of order: [0,10], [2,12], [6,16] take it; its right window [9,19].
    EXPECT_EQ(Run(), (Out{"0:10:a=2@8", "2:12:a=3@12", "6:16:a=2@12", "9:19:a=1@12"}));
    EXPECT_NE(logger_->All().find("INFO sliding windowed aggregation: indexed the 4 windows of "
                                  "store sliding by key"),
              std::string::npos)
        << logger_->All();
    EXPECT_EQ(h_->CommittedMetadata(), "sliding+index=1");
    EXPECT_EQ(Store(10), (std::map<std::string, std::string>{{"0:10:a", "2@8"},
                                                             {"0:10:b", "1@2"},
                                                             {"2:12:a", "3@12"},
                                                             {"6:16:a", "2@12"},
                                                             {"9:19:a", "1@12"}}));
  }
}

// SPEC E7 for sliding windows, Kafka's SuppressScenarioTest.shouldSupportFinalResultsForSliding-
// Windows: each window goes out once end + grace <= the suppress's stream time, with its last
// update, by end.
TEST_F(SlidingAggregationTest, SuppressEmitsEachWindowOnceEndPlusGraceIsStreamTime) {
  ASSERT_OK(OpenSuppressed(Sliding(5, 15)));
  for (int64_t ts : {10, 11, 10, 13, 10, 24, 5, 7}) Input("k1", ts);
  EXPECT_EQ(Run(), Out{});
  Input("k1", 90);
  EXPECT_EQ(Run(), (Out{"5:10:k1=5@10", "6:11:k1=5@11", "8:13:k1=5@13", "11:16:k1=2@13",
                        "12:17:k1=1@13", "19:24:k1=1@24"}));
  SlidingWindowedAggregationOptions final_options;
  final_options.emit = EmitStrategy::kOnWindowClose;
  std::unique_ptr<Processor> p;
  EXPECT_EQ(NewSuppressedSlidingWindowedAggregation(final_options, &p).code(),
            Status::Code::kInvalidArgument);
}

// Suppress lets a window out at end = stream time - grace, where the window still takes records
// (it closes once end < stream time - grace): a later update goes out again, at once.
TEST_F(SlidingAggregationTest, ASuppressedWindowAtItsBoundGoesOutAgainWhenUpdated) {
  ASSERT_OK(OpenSuppressed(Sliding(5, 0)));
  Input("k", 10);  // [5, 10] ends at stream time: out at once.
  EXPECT_EQ(Run(), Out{"5:10:k=1@10"});
  Input("k", 8);  // Still in [5, 10] (open: 10 >= 10 - 0): updated, out again.
  const Out out = Run();
  EXPECT_NE(std::find(out.begin(), out.end(), "5:10:k=2@10"), out.end())
      << ::testing::PrintToString(out);
}

}  // namespace
}  // namespace statecheck
