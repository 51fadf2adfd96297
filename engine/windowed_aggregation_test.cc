#include "statecheck/windowed_aggregation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "engine/test_util.h"

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

  // Opens the task with a windowed count over `windows`.
  Status Open(const TimeWindows& windows, EmitStrategy emit, bool eos = false,
              bool suppressed = false) {
    task_.reset();
    TimeWindowedAggregationOptions a;
    a.windows = windows;
    a.emit = emit;
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

  void Input(std::string_view key, int64_t timestamp) {
    int64_t offset = 0;
    ASSERT_OK(log_->Append("input", key, "v", timestamp, &offset));
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

}  // namespace
}  // namespace statecheck
