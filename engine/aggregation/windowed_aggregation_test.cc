#include "statecheck/windowed_aggregation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace statecheck {
namespace {

namespace fs = std::filesystem;

class WindowedAggregationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("statecheck_wagg_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    ReopenLog();
  }
  void TearDown() override {
    task_.reset();
    log_.reset();
    fs::remove_all(dir_.parent_path());
  }

  void ReopenLog() {
    task_.reset();
    log_.reset();
    LogOptions o;
    o.directory = (dir_ / "log").string();
    o.logger = NullLogger();
    ASSERT_OK(OpenLog(o, &log_));
  }

  // Opens the task with a windowed aggregation over `windows` (the fixture's aggregator).
  Status Open(const TimeWindows& windows, EmitStrategy emit, bool eos = false,
              bool suppressed = false) {
    TimeWindowedAggregationOptions a;
    a.windows = windows;
    a.emit = emit;
    a.aggregator = aggregator_;
    return OpenWith(a, eos, suppressed);
  }

  // Opens the task with `a` (its emit interval, stats and logger the fixture's).
  Status OpenWith(TimeWindowedAggregationOptions a, bool eos, bool suppressed = false) {
    task_.reset();
    a.emit_interval_ms = emit_interval_ms_;
    a.stats = stats_;
    a.logger = logger_;
    std::unique_ptr<Processor> processor;
    STATECHECK_RETURN_IF_ERROR(suppressed ? NewSuppressedTimeWindowedAggregation(a, &processor)
                                          : NewTimeWindowedAggregation(a, &processor));
    TaskOptions o;
    o.application_id = "app";
    o.input_partition = "input";
    o.output_partition = "output";
    o.state_directory = (dir_ / "state").string();
    o.log = log_.get();
    std::map<std::string, std::string> props;
    if (eos) props["processing.guarantee"] = "exactly_once_v2";
    EXPECT_OK(ResolveStateConfig(props, &o.config));
    o.clock = clock_;
    o.logger = logger_;
    return OpenTask(o, std::move(processor), &task_);
  }

  // Runs `inputs` through a fresh log and task with `a`; its output, as Run gives it.
  std::vector<std::string> RunFresh(const TimeWindowedAggregationOptions& a,
                                    const std::vector<std::pair<std::string, int64_t>>& inputs,
                                    bool suppressed = false) {
    task_.reset();
    log_.reset();
    fs::remove_all(dir_);
    ReopenLog();
    seen_ = 0;
    *stats_ = AggregationStats();
    EXPECT_OK(OpenWith(a, /*eos=*/false, suppressed));
    for (const auto& [key, ts] : inputs) Input(key, ts);
    return Run();
  }

  // Query `q` of the persistent store of the aggregation `a` the task runs, as
  // "<start>:<key>=<aggregate>@<timestamp>", in the order it returned them.
  std::vector<std::string> Query(const TimeWindowedAggregationOptions& a,
                                 const WindowAggregateQuery& q) {
    std::vector<WindowedAggregate> got;
    EXPECT_OK(FetchTimeWindowAggregates(*task_->Store(a.store)->NewQueryView(), a, q, &got));
    std::vector<std::string> out;
    for (const WindowedAggregate& w : got) {
      out.push_back(std::to_string(w.window.start) + ":" + w.key + "=" + w.aggregate + "@" +
                    std::to_string(w.timestamp));
    }
    return out;
  }

  void Input(std::string_view key, int64_t timestamp, std::optional<std::string_view> value = "v") {
    int64_t offset = 0;
    ASSERT_OK(log_->Append("input", key, value, timestamp, &offset));
    ASSERT_OK(log_->Sync());
  }

  // Processes everything, commits, and returns the output committed since the last call, as
  // "<windowed key>=<value>@<timestamp>".
  std::vector<std::string> Run() {
    int64_t n = 0;
    EXPECT_OK(task_->Process(1000, &n));
    EXPECT_OK(task_->Commit());
    std::vector<LogRecord> records;
    std::vector<std::string> out;
    const Status s = log_->Read("output", seen_, 100000, IsolationLevel::kReadCommitted, &records);
    if (s.code() == Status::Code::kOutOfRange) return out;
    EXPECT_OK(s);
    for (const LogRecord& r : records) {
      out.push_back(r.key + "=" + r.value.value_or("null") + "@" + std::to_string(r.timestamp));
      seen_ = r.offset + 1;
    }
    return out;
  }

  static TimeWindows Tumbling(int64_t size, int64_t grace) {
    TimeWindows w;
    EXPECT_OK(TimeWindows::OfSizeAndGrace(size, grace, &w));
    return w;
  }

  fs::path dir_;
  std::shared_ptr<testing::CapturingLogger> logger_ = std::make_shared<testing::CapturingLogger>();
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::shared_ptr<AggregationStats> stats_ = std::make_shared<AggregationStats>();
  int64_t emit_interval_ms_ = 0;
  Aggregator aggregator_ = CountAggregator();
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
  int64_t seen_ = 0;
};

// E2, E1: one output per update, with the window's largest record timestamp; a late record
// skips its expired window, counted and logged.
TEST_F(WindowedAggregationTest, EmitEagerOutputsEveryUpdateAndDropsLateRecords) {
  ASSERT_OK(Open(Tumbling(10, 0), EmitStrategy::kOnWindowUpdate));
  Input("a", 5);
  Input("a", 1);
  Input("b", 12);
  Input("a", 3);  // Stream time 12: [0,10) ended at 10 <= 12 - 0.
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=1@5", "0:10:a=2@5", "10:20:b=1@12"}));
  EXPECT_EQ(stats_->dropped_records, 1);
  EXPECT_NE(logger_->All().find("Skipping record for expired window. offset=[3] timestamp=[3] "
                                "window=[0,10) expiration=[10] streamTime=[12]"),
            std::string::npos)
      << logger_->All();
}

TEST_F(WindowedAggregationTest, HoppingWindowsUpdateEveryWindowByAscendingStart) {
  TimeWindows hopping;
  ASSERT_OK(Tumbling(10, 0).AdvanceBy(5, &hopping));
  ASSERT_OK(Open(hopping, EmitStrategy::kOnWindowUpdate));
  Input("k", 7);
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:k=1@7", "5:15:k=1@7"}));
}

// E1 at the boundary: a window takes records while end > stream time - grace.
TEST_F(WindowedAggregationTest, GraceAdmitsLateRecordsUpToItsEnd) {
  ASSERT_OK(Open(Tumbling(10, 5), EmitStrategy::kOnWindowUpdate));
  Input("k", 14);
  Input("k", 9);  // 10 > 14 - 5: taken.
  Input("k", 15);
  Input("k", 9);  // 10 > 15 - 5 fails: dropped.
  EXPECT_EQ(Run(), (std::vector<std::string>{"10:20:k=1@14", "0:10:k=1@9", "10:20:k=2@15"}));
  EXPECT_EQ(stats_->dropped_records, 1);
}

TEST_F(WindowedAggregationTest, NullKeysAndMissingTimestampsAreDropped) {
  ASSERT_OK(Open(Tumbling(10, 0), EmitStrategy::kOnWindowUpdate));
  Input("", 1);
  int64_t offset = 0;
  ASSERT_OK(log_->Append("input", "k", "v", &offset));  // No timestamp.
  ASSERT_OK(log_->Sync());
  EXPECT_TRUE(Run().empty());
  EXPECT_EQ(stats_->dropped_records, 2);
}

// E3, E4: each window once, after it closes (end + grace <= stream time), with its final
// aggregate, windows closing together by start then key.
TEST_F(WindowedAggregationTest, EmitFinalEmitsEachWindowOnceWhenItCloses) {
  TimeWindows hopping;
  ASSERT_OK(Tumbling(10, 2).AdvanceBy(5, &hopping));
  ASSERT_OK(Open(hopping, EmitStrategy::kOnWindowClose));
  Input("b", 6);
  Input("a", 7);
  Input("b", 8);
  Input("c", 11);  // Close time 9: nothing has ended by 9.
  EXPECT_TRUE(Run().empty());
  Input("c", 12);  // Close time 10: [0,10) closed.
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=1@7", "0:10:b=2@8"}));
  Input("c", 12);  // Nothing new.
  Input("d", 30);  // Close time 28: [5,15), [10,20), [15,25) closed.
  EXPECT_EQ(Run(),
            (std::vector<std::string>{"5:15:a=1@7", "5:15:b=2@8", "5:15:c=3@12", "10:20:c=3@12"}));
  EXPECT_EQ(stats_->emitted, 6);
}

// E6, E10: the last emitted close time is committed with the input offset; after a crash,
// nothing is emitted twice.
TEST_F(WindowedAggregationTest, EmitFinalNeverEmitsTwiceAcrossACrash) {
  ASSERT_OK(Open(Tumbling(10, 0), EmitStrategy::kOnWindowClose, /*eos=*/true));
  Input("a", 1);
  Input("a", 10);
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=1@1"}));
  task_->Abandon();
  ReopenLog();
  ASSERT_OK(Open(Tumbling(10, 0), EmitStrategy::kOnWindowClose, /*eos=*/true));
  Input("b", 10);  // Stream time starts afresh at 10: [0,10) closes again — emitted already.
  EXPECT_TRUE(Run().empty());
  Input("b", 20);
  EXPECT_EQ(Run(), (std::vector<std::string>{"10:20:a=1@10", "10:20:b=1@10"}));
}

// E5: at most one emission attempt per emit interval of wall-clock time.
TEST_F(WindowedAggregationTest, EmitFinalWaitsForTheEmitInterval) {
  emit_interval_ms_ = 1000;
  ASSERT_OK(Open(Tumbling(10, 0), EmitStrategy::kOnWindowClose));
  Input("a", 1);  // The close time advances to 1: an attempt, which closes nothing.
  EXPECT_TRUE(Run().empty());
  Input("a", 10);  // Closes [0,10), but the last attempt was 0 ms ago.
  EXPECT_TRUE(Run().empty());
  clock_->Advance(1000);
  Input("a", 11);
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=1@1"}));
  Input("a", 20);  // Closes [10,20), within the interval again.
  EXPECT_TRUE(Run().empty());
  clock_->Advance(999);
  Input("a", 21);
  EXPECT_TRUE(Run().empty());
  clock_->Advance(1);
  Input("a", 22);
  EXPECT_EQ(Run(), (std::vector<std::string>{"10:20:a=2@11"}));
}

// E7: suppress(untilWindowCloses) over emit-eager gives emit-final's windows, values and order —
// here, where every record reaches the suppress (none is late for all its windows).
TEST_F(WindowedAggregationTest, SuppressedEmitEagerEqualsEmitFinal) {
  TimeWindows hopping;
  ASSERT_OK(Tumbling(10, 2).AdvanceBy(5, &hopping));
  ASSERT_OK(Open(hopping, EmitStrategy::kOnWindowUpdate, /*eos=*/true, /*suppressed=*/true));
  Input("b", 6);
  Input("a", 7);
  Input("b", 8);
  Input("c", 11);
  EXPECT_TRUE(Run().empty());
  Input("c", 12);  // The suppress's stream time 12: [0,10) closed (10 + 2 <= 12).
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=1@7", "0:10:b=2@8"}));
  Input("c", 12);
  Input("d", 30);
  EXPECT_EQ(Run(),
            (std::vector<std::string>{"5:15:a=1@7", "5:15:b=2@8", "5:15:c=3@12", "10:20:c=3@12"}));
  // The buffer survives a crash: what was buffered and committed is emitted later, once.
  Input("e", 31);
  EXPECT_TRUE(Run().empty());
  task_->Abandon();
  ReopenLog();
  ASSERT_OK(Open(hopping, EmitStrategy::kOnWindowUpdate, /*eos=*/true, /*suppressed=*/true));
  Input("f", 60);
  EXPECT_EQ(Run(), (std::vector<std::string>{"25:35:d=1@30", "25:35:e=1@31", "30:40:d=1@30",
                                             "30:40:e=1@31"}));
  std::unique_ptr<Processor> p;
  TimeWindowedAggregationOptions final_options;
  final_options.emit = EmitStrategy::kOnWindowClose;
  EXPECT_EQ(NewSuppressedTimeWindowedAggregation(final_options, &p).code(),
            Status::Code::kInvalidArgument);
}

// E7: suppress scans its buffer only from the earliest end it may hold; an out-of-order update to
// a window that ends before everything buffered (still open in its grace) moves that bound back,
// so the window is evicted when it closes, not stranded below the scan.
TEST_F(WindowedAggregationTest, SuppressEvictsAWindowUpdatedBelowItsBufferedEnds) {
  ASSERT_OK(Open(Tumbling(10, 5), EmitStrategy::kOnWindowUpdate, /*eos=*/false,
                 /*suppressed=*/true));
  Input("a", 12);  // [10,20): the buffer's earliest end is 20.
  Input("b", 13);
  EXPECT_TRUE(Run().empty());
  Input("c", 5);  // [0,10) is open until stream time 15: buffered below the rest.
  EXPECT_TRUE(Run().empty());
  Input("a", 15);  // Closes [0,10).
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:c=1@5"}));
  Input("d", 25);  // Closes [10,20).
  EXPECT_EQ(Run(), (std::vector<std::string>{"10:20:a=2@15", "10:20:b=1@13"}));
  Input("e", 40);
  EXPECT_EQ(Run(), (std::vector<std::string>{"20:30:d=1@25"}));
}

TEST_F(WindowedAggregationTest, BadOptionsAreClearErrors) {
  TimeWindowedAggregationOptions a;
  a.windows = Tumbling(10, 5);
  a.retention_ms = 14;
  std::unique_ptr<Processor> p;
  Status s = NewTimeWindowedAggregation(a, &p);
  EXPECT_EQ(s.message(),
            "The retention period of the window store agg must be no smaller than its window size "
            "plus the grace period. Got size=[10], grace=[5], retention=[14]");
  a.retention_ms = -1;
  a.emit_interval_ms = -1;
  s = NewTimeWindowedAggregation(a, &p);
  EXPECT_NE(s.message().find("emit_interval_ms must be >= 0"), std::string::npos) << s;
}

// E9: emit-final's lookup reads the windows that close and nothing else. The store fills with
// 500 keys a window over 20 tumbling windows — the emitted ones stay (a retention longer than
// the run), the next window is open with all 500 keys when one closes (grace = size) — and
// every emission reads exactly the 500 windows it emits, however large the store is: the cost
// is per window emitted, not per store size.
TEST_F(WindowedAggregationTest, EmitFinalReadsOnlyTheClosingWindows) {
  constexpr int64_t kKeys = 500;
  constexpr int64_t kWindows = 20;
  TimeWindowedAggregationOptions a;
  a.windows = Tumbling(10, 10);
  a.emit = EmitStrategy::kOnWindowClose;
  a.emit_interval_ms = 0;
  a.retention_ms = 1'000'000;  // Nothing expires: the store keeps every window.
  a.stats = stats_;
  a.logger = logger_;
  std::unique_ptr<Processor> processor;
  ASSERT_OK(NewTimeWindowedAggregation(a, &processor));
  TaskOptions o;
  o.application_id = "app";
  o.input_partition = "input";
  o.output_partition = "output";
  o.state_directory = (dir_ / "state").string();
  o.log = log_.get();
  ASSERT_OK(ResolveStateConfig({}, &o.config));
  o.clock = clock_;
  o.logger = logger_;
  ASSERT_OK(OpenTask(o, std::move(processor), &task_));
  // Window w gets ts 10w + k % 10 for key k, key 0 first: its first record (ts 10w) closes
  // window w - 2 (end 10w - 10, + grace 10 <= 10w), while window w - 1 is full and open.
  int64_t offset = 0;
  for (int64_t w = 0; w < kWindows; ++w) {
    for (int64_t k = 0; k < kKeys; ++k) {
      const std::string key = std::to_string(k);  // Not "k" + ...: GCC 12's false -Wrestrict.
      ASSERT_OK(log_->Append("input", key, "v", 10 * w + k % 10, &offset));
    }
  }
  ASSERT_OK(log_->Sync());
  int64_t emissions = 0;
  int64_t read_at_last_emission = 0;
  for (int64_t i = 0; i < kWindows * kKeys; ++i) {
    const int64_t read_before = stats_->windows_read;
    const int64_t emitted_before = stats_->emitted;
    int64_t n = 0;
    ASSERT_OK(task_->Process(1, &n));
    ASSERT_EQ(n, 1);
    const int64_t read = stats_->windows_read - read_before;
    const int64_t emitted = stats_->emitted - emitted_before;
    const bool closes_a_window = i % kKeys == 0 && i / kKeys >= 2;
    ASSERT_EQ(emitted, closes_a_window ? kKeys : 0) << "record " << i;
    ASSERT_EQ(read, emitted) << "record " << i << ": the lookup read " << read
                             << " store records to emit " << emitted << " windows";
    if (closes_a_window) {
      ++emissions;
      read_at_last_emission = read;
    }
  }
  EXPECT_EQ(emissions, kWindows - 2);
  EXPECT_EQ(read_at_last_emission, kKeys);
  // The last emission happened with every window in the store: 20 x 500, less the 499 records
  // of the last window still to come.
  std::unique_ptr<KeyValueIterator> it;
  ASSERT_OK(task_->Store("agg")->All(&it));
  int64_t stored = 0;
  KeyValue kv;
  while (it->HasNext()) {
    ASSERT_OK(it->Next(&kv));
    ++stored;
  }
  EXPECT_EQ(stored, kWindows * kKeys);
  EXPECT_EQ(stats_->windows_read, (kWindows - 2) * kKeys);
}

// The aggregation over an in-memory window store of the task (AggregationStoreType::kInMemory).
class InMemoryAggregationTest : public WindowedAggregationTest {
 protected:
  static int64_t BigEndianAt(std::string_view b) {
    uint64_t v = 0;
    for (int i = 0; i < 8 && i < static_cast<int>(b.size()); ++i) {
      v = (v << 8) | static_cast<unsigned char>(b[i]);
    }
    return static_cast<int64_t>(v);
  }

  // The aggregates of store "agg", persistent or in memory, as "<start>:<key>=<aggregate>@<max
  // timestamp>".
  std::vector<std::string> Aggregates() {
    std::vector<std::string> out;
    if (ReadOnlyWindowStore* ws = task_->GetWindowStore("agg")) {
      std::unique_ptr<WindowStoreIterator> it;
      EXPECT_OK(ws->All(&it));
      WindowedRecord r;
      while (it->HasNext() && it->Next(&r).ok()) {
        out.push_back(std::to_string(r.window.start) + ":" + r.key + "=" + r.value.substr(8) + "@" +
                      std::to_string(BigEndianAt(r.value)));
      }
    } else if (KeyValueStore* kv = task_->Store("agg")) {
      std::unique_ptr<KeyValueIterator> it;
      EXPECT_OK(kv->All(&it));
      KeyValue r;
      while (it->HasNext() && it->Next(&r).ok()) {
        out.push_back(std::to_string(BigEndianAt(r.key)) + ":" + r.key.substr(8) + "=" +
                      r.value.substr(8) + "@" + std::to_string(BigEndianAt(r.value)));
      }
    }
    return out;
  }
};

// The in-memory store gives the persistent store's output and aggregates: emit-eager with the
// default retention (within one task's life the store never expires a window the aggregation
// still accepts), emit-final and suppressed emit-eager with a retention above the input's time
// span (see the header for why emit-final needs it); emit-final's lookup reads the same windows.
TEST_F(InMemoryAggregationTest, GivesTheSameOutputAsThePersistentStore) {
  TimeWindows hopping;
  ASSERT_OK(Tumbling(10, 2).AdvanceBy(5, &hopping));
  const std::vector<std::pair<std::string, int64_t>> inputs = {
      {"b", 6},  {"a", 7},  {"b", 8},  {"c", 11}, {"c", 12}, {"a", 3},  {"ab", 9},
      {"d", 30}, {"a", 26}, {"e", 31}, {"a", 29}, {"b", 45}, {"a", 44}, {"ab", 60}};
  struct Case {
    EmitStrategy emit;
    int64_t retention_ms;
    bool suppressed;
  };
  for (const Case& c : {Case{EmitStrategy::kOnWindowUpdate, -1, false},
                        Case{EmitStrategy::kOnWindowClose, 1000, false},
                        Case{EmitStrategy::kOnWindowUpdate, 1000, true}}) {
    SCOPED_TRACE(c.suppressed                             ? "suppressed"
                 : c.emit == EmitStrategy::kOnWindowClose ? "final"
                                                          : "eager");
    TimeWindowedAggregationOptions a;
    a.windows = hopping;
    a.emit = c.emit;
    a.retention_ms = c.retention_ms;
    const std::vector<std::string> persistent = RunFresh(a, inputs, c.suppressed);
    const std::vector<std::string> persistent_aggregates = Aggregates();
    const AggregationStats persistent_stats = *stats_;
    EXPECT_FALSE(persistent.empty());
    a.store_type = AggregationStoreType::kInMemory;
    EXPECT_EQ(RunFresh(a, inputs, c.suppressed), persistent);
    ASSERT_NE(task_->GetWindowStore("agg"), nullptr);
    EXPECT_EQ(task_->Store("agg"), nullptr);
    if (c.retention_ms > 0) {
      EXPECT_EQ(Aggregates(), persistent_aggregates);
    }
    EXPECT_EQ(stats_->emitted, persistent_stats.emitted);
    EXPECT_EQ(stats_->dropped_records, persistent_stats.dropped_records);
    EXPECT_EQ(stats_->windows_read, persistent_stats.windows_read);
  }
}

// E6 over the in-memory store: a crash loses it, the next task restores it from its changelog
// (the committed writes only, EOS), and no window is emitted twice or lost. (Retention above
// the input's time span: see the next test for the default's.)
TEST_F(InMemoryAggregationTest, SurvivesACrashWithoutDuplicateEmitFinalOutputs) {
  TimeWindowedAggregationOptions a;
  a.windows = Tumbling(10, 0);
  a.emit = EmitStrategy::kOnWindowClose;
  a.retention_ms = 1000;
  a.store_type = AggregationStoreType::kInMemory;
  ASSERT_OK(OpenWith(a, /*eos=*/true));
  Input("a", 1);
  Input("a", 10);
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=1@1"}));
  Input("b", 15);
  int64_t n = 0;
  ASSERT_OK(task_->Process(10, &n));  // Processed, never committed.
  EXPECT_EQ(Aggregates(), (std::vector<std::string>{"0:a=1@1", "10:a=1@10", "10:b=1@15"}));
  task_->Abandon();
  EXPECT_EQ(task_->GetWindowStore("agg"), nullptr);
  ReopenLog();
  ASSERT_OK(OpenWith(a, /*eos=*/true));
  // Restored: the committed aggregates; b's uncommitted one is gone.
  EXPECT_EQ(Aggregates(), (std::vector<std::string>{"0:a=1@1", "10:a=1@10"}));
  // b@15 is processed again (stream time starts afresh: [0,10) does not close again — it was
  // emitted), then c@10.
  Input("c", 10);
  EXPECT_EQ(Run(), (std::vector<std::string>{}));
  Input("c", 20);  // [10,20) closes: each of its windows once.
  EXPECT_EQ(Run(), (std::vector<std::string>{"10:20:a=1@10", "10:20:b=1@15", "10:20:c=1@10"}));
  task_->Abandon();
  ReopenLog();
  ASSERT_OK(OpenWith(a, /*eos=*/true));
  Input("d", 30);
  EXPECT_EQ(Run(), (std::vector<std::string>{"20:30:c=1@20"}));
  std::vector<LogRecord> all;
  ASSERT_OK(log_->Read("output", 0, 100, IsolationLevel::kReadCommitted, &all));
  EXPECT_EQ(all.size(), 5u);  // Every window once.
}

// The caveat of the header, pinned: over an in-memory store with retention size + grace,
// emit-final loses a closed window that the store expires before the emission runs — here
// [0,10), expired (start 0 <= 20 - 10) when the record at 20 puts [20,30), just before the
// emission that would have emitted it. The persistent store never expires anything.
TEST_F(InMemoryAggregationTest, EmitFinalLosesAWindowTheStoreExpiresBeforeItsEmission) {
  TimeWindowedAggregationOptions a;
  a.windows = Tumbling(10, 0);
  a.emit = EmitStrategy::kOnWindowClose;
  EXPECT_EQ(RunFresh(a, {{"a", 5}, {"b", 20}}), (std::vector<std::string>{"0:10:a=1@5"}));
  a.store_type = AggregationStoreType::kInMemory;
  EXPECT_EQ(RunFresh(a, {{"a", 5}, {"b", 20}}), (std::vector<std::string>{}));
  a.retention_ms = 21;  // Start 0 > 20 - 21: kept until emitted.
  EXPECT_EQ(RunFresh(a, {{"a", 5}, {"b", 20}}), (std::vector<std::string>{"0:10:a=1@5"}));
}

// Retention (persistent store): a window is deleted once stream time is past start + retention —
// with the default retention (size + grace) when it closes —; under emit-final only once it has
// been emitted, so the emit interval cannot make a closed window be lost (E3, E6).
TEST_F(WindowedAggregationTest, ClosedWindowsAreDeletedOncePastRetention) {
  auto stored = [&] {
    std::vector<std::string> keys;
    std::unique_ptr<KeyValueIterator> it;
    EXPECT_OK(task_->Store("agg")->NewQueryView()->All(&it));
    KeyValue kv;
    while (it->HasNext()) {
      EXPECT_OK(it->Next(&kv));
      uint64_t start = 0;
      for (int i = 0; i < 8; ++i) start = (start << 8) | static_cast<unsigned char>(kv.key[i]);
      keys.push_back(std::to_string(start) + ":" + kv.key.substr(8));
    }
    return keys;
  };
  // E11: the store's stream time is the largest window start put, and emit-eager deletes a
  // window starting at or below it minus the retention (12).
  ASSERT_OK(Open(Tumbling(10, 2), EmitStrategy::kOnWindowUpdate));
  Input("a", 5);
  Input("a", 11);  // Stream time 11: [0,10) closes at 12.
  Run();
  EXPECT_EQ(stored(), (std::vector<std::string>{"0:a", "10:a"}));
  Input("b", 12);  // [0,10) closed, but the store's stream time is 10: 0 > 10 - 12.
  Run();
  EXPECT_EQ(stored(), (std::vector<std::string>{"0:a", "10:a", "10:b"}));
  Input("b", 20);  // Store time 20: 0 <= 8.
  Run();
  EXPECT_EQ(stored(), (std::vector<std::string>{"10:a", "10:b", "20:b"}));

  // Emit-final, with emission held back by the interval: [10,20) closes at 22 but stays until
  // the emission that outputs it.
  task_->Abandon();
  fs::remove_all(dir_);
  ReopenLog();
  seen_ = 0;
  emit_interval_ms_ = 1000;
  ASSERT_OK(Open(Tumbling(10, 2), EmitStrategy::kOnWindowClose));
  Input("a", 15);  // An attempt (close time 13): nothing closed.
  Input("a", 25);  // [10,20) closed, but within the interval: no attempt.
  EXPECT_TRUE(Run().empty());
  EXPECT_EQ(stored(), (std::vector<std::string>{"10:a", "20:a"}));
  clock_->Advance(1000);
  Input("a", 26);
  EXPECT_EQ(Run(), (std::vector<std::string>{"10:20:a=1@15"}));
  // Emitted, but still readable (E11: the time-first store reads from 20 - 12 = 8).
  EXPECT_EQ(stored(), (std::vector<std::string>{"10:a", "20:a"}));
  clock_->Advance(1000);
  Input("a", 33);  // Store time 30: reads from 18.
  EXPECT_EQ(Run(), (std::vector<std::string>{"20:30:a=2@26"}));
  EXPECT_EQ(stored(), (std::vector<std::string>{"20:a", "30:a"}));

  // A longer retention keeps closed windows until stream time passes start + retention.
  task_->Abandon();
  fs::remove_all(dir_);
  ReopenLog();
  TimeWindowedAggregationOptions a;
  a.windows = Tumbling(10, 0);
  a.retention_ms = 30;
  ASSERT_OK(OpenWith(a, /*eos=*/false));
  Input("a", 5);
  Input("a", 29);
  Run();
  EXPECT_EQ(stored(), (std::vector<std::string>{"0:a", "20:a"}));
  Input("a", 30);  // 0 <= 30 - 30.
  Run();
  EXPECT_EQ(stored(), (std::vector<std::string>{"20:a", "30:a"}));
}

// E11, after KStreamWindowAggregateTest.shouldLogAndMeterWhenSkippingExpiredWindow (size 10,
// advance 5, grace 90, retention 100): a query of emit-final's store (Kafka's time-first store)
// returns the window starting exactly at the store's stream time (105) minus the retention;
// emit-eager's (key-first) does not, and has deleted it.
TEST_F(WindowedAggregationTest, AQueryKeepsKafkasReadBoundOfEachStore) {
  TimeWindowedAggregationOptions a;
  ASSERT_OK(Tumbling(10, 90).AdvanceBy(5, &a.windows));
  a.retention_ms = 100;
  for (const EmitStrategy emit : {EmitStrategy::kOnWindowClose, EmitStrategy::kOnWindowUpdate}) {
    SCOPED_TRACE(std::string(EmitStrategyName(emit)));
    a.emit = emit;
    const bool time_first = emit == EmitStrategy::kOnWindowClose;
    std::vector<std::pair<std::string, int64_t>> inputs;
    for (const int64_t ts : {100, 0, 1, 2, 3, 4, 5, 6, 105, 106}) inputs.emplace_back("k", ts);
    const std::vector<std::string> out = RunFresh(a, inputs);
    if (time_first) {
      EXPECT_EQ(out, std::vector<std::string>{"5:15:k=2@6"});  // Close time 15 at 105.
    }
    auto query = [&](std::optional<std::string> key, int64_t from, int64_t to) {
      return Query(a, {key, key, from, to, /*backward=*/false});
    };
    std::vector<std::string> all = {"95:k=1@100", "100:k=3@106", "105:k=2@106"};
    if (time_first) all.insert(all.begin(), "5:k=2@6");
    EXPECT_EQ(query(std::nullopt, 0, 200), all);
    EXPECT_EQ(query("k", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()),
              all);
    EXPECT_EQ(query("other", 0, 200), std::vector<std::string>{});
    EXPECT_EQ(query("k", 100, 104), std::vector<std::string>{"100:k=3@106"});
    EXPECT_EQ(query("k", 5, 5),
              time_first ? std::vector<std::string>{"5:k=2@6"} : std::vector<std::string>{});
  }
  // The in-memory store is queried through the task's window store, not here.
  TimeWindowedAggregationOptions in_memory;
  in_memory.store_type = AggregationStoreType::kInMemory;
  std::vector<WindowedAggregate> got;
  EXPECT_EQ(
      FetchTimeWindowAggregates(*task_->Store("agg")->NewQueryView(), in_memory, {}, &got).code(),
      Status::Code::kInvalidArgument);
}

// E11's order: a query of emit-final's store (Kafka's time-first store) comes by start, then
// key; of emit-eager's (the key-first store, 60 s segments here) by segment, then key, then
// start; a backward query is the exact reverse; a key range keeps its bounds, and an inverted
// range returns nothing.
TEST_F(WindowedAggregationTest, AQueryComesInTheOrderOfKafkasStore) {
  TimeWindowedAggregationOptions a;
  a.windows = Tumbling(10, 0);
  a.retention_ms = 100'000;  // Segments of 60 s (key-first: max(retention / 2, 60000)).
  for (const EmitStrategy emit : {EmitStrategy::kOnWindowClose, EmitStrategy::kOnWindowUpdate}) {
    SCOPED_TRACE(std::string(EmitStrategyName(emit)));
    a.emit = emit;
    RunFresh(a, {{"b", 1}, {"ab", 2}, {"c", 3}, {"a", 11}, {"b", 60'001}, {"a", 60'002}});
    auto query = [&](const WindowAggregateQuery& q) {
      std::vector<std::string> names = Query(a, q);
      for (std::string& name : names) name.erase(name.find('='));  // "<start>:<key>".
      return names;
    };
    using Names = std::vector<std::string>;
    const bool time_first = emit == EmitStrategy::kOnWindowClose;
    const Names all = time_first ? Names{"0:ab", "0:b", "0:c", "10:a", "60000:a", "60000:b"}
                                 : Names{"10:a", "0:ab", "0:b", "0:c", "60000:a", "60000:b"};
    EXPECT_EQ(query({}), all);
    WindowAggregateQuery backward;
    backward.backward = true;
    EXPECT_EQ(query(backward), Names(all.rbegin(), all.rend()));
    WindowAggregateQuery range;
    range.key_from = "a";
    range.key_to = "b";
    range.time_to = 59'999;
    EXPECT_EQ(query(range),
              time_first ? (Names{"0:ab", "0:b", "10:a"}) : (Names{"10:a", "0:ab", "0:b"}));
    range.key_from = "b";
    range.key_to = "a";
    EXPECT_EQ(query(range), Names{});
    WindowAggregateQuery from_b;  // The same in both orders: "c" and 60000's "b" follow "b".
    from_b.key_from = "b";
    from_b.backward = true;
    EXPECT_EQ(query(from_b), (Names{"60000:b", "0:c", "0:b"}));
  }
}

// reduce(): a window's first value is its aggregate, each later one folds in; a record with a
// null value is skipped (not a dropped record); emit-final emits the reduced value.
TEST_F(WindowedAggregationTest, ReduceFoldsTheValuesAndSkipsNullOnes) {
  aggregator_ = ReduceAggregator([](std::string_view agg, std::string_view v) {
    return std::string(agg) + "+" + std::string(v);
  });
  ASSERT_OK(Open(Tumbling(10, 0), EmitStrategy::kOnWindowUpdate));
  Input("a", 1, "x");
  Input("a", 2, std::nullopt);
  Input("a", 3, "y");
  Input("b", 4, "z");
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=x@1", "0:10:a=x+y@3", "0:10:b=z@4"}));
  EXPECT_EQ(stats_->dropped_records, 0);

  task_->Abandon();
  fs::remove_all(dir_);
  ReopenLog();
  seen_ = 0;
  ASSERT_OK(Open(Tumbling(10, 0), EmitStrategy::kOnWindowClose));
  Input("a", 1, "x");
  Input("a", 5, "y");
  Input("a", 10, "w");  // Closes [0,10).
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:10:a=x+y@5"}));

  Aggregator none;
  TimeWindowedAggregationOptions o;
  o.windows = Tumbling(10, 0);
  o.aggregator = none;
  std::unique_ptr<Processor> p;
  EXPECT_EQ(NewTimeWindowedAggregation(o, &p).message(),
            "windowed aggregation option aggregator needs an initializer and an aggregate "
            "function, or a reducer");
}

}  // namespace
}  // namespace statecheck
