// The aggregation over unlimited windows: eager counts that never close, and the builder's E8
// rejection of emit-final.
#include "statecheck/unlimited_aggregation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "testing/test_util.h"

namespace statecheck {
namespace {

namespace fs = std::filesystem;

TEST(UnlimitedWindowedAggregation, EmitFinalIsRejected) {
  UnlimitedWindowedAggregationOptions o;
  o.emit = EmitStrategy::kOnWindowClose;
  std::unique_ptr<Processor> p;
  const Status s = NewUnlimitedWindowedAggregation(o, &p);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find(kEmitFinalUnlimitedDsl), std::string::npos) << s;
  EXPECT_NE(s.message().find(kEmitFinalUnlimitedProcessor), std::string::npos) << s;
  EXPECT_EQ(p, nullptr);
  o.emit = EmitStrategy::kOnWindowUpdate;
  o.store = "";
  EXPECT_EQ(NewUnlimitedWindowedAggregation(o, &p).message(),
            "unlimited windowed aggregation option store cannot be empty");
}

// Counts per key from the start on, one output per record, never late; before the start and
// without a key or timestamp nothing is counted. The counts survive a crash (exactly-once).
TEST(UnlimitedWindowedAggregation, CountsEagerlyFromTheStartAndNeverCloses) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("statecheck_unlimited_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  LogOptions lo;
  lo.directory = (dir / "log").string();
  lo.logger = NullLogger();
  std::unique_ptr<Log> log;
  ASSERT_OK(OpenLog(lo, &log));
  auto stats = std::make_shared<AggregationStats>();
  auto open = [&](std::unique_ptr<Task>* task) {
    UnlimitedWindowedAggregationOptions a;
    ASSERT_OK(UnlimitedWindows::StartOn(100, &a.windows));
    a.stats = stats;
    a.logger = NullLogger();
    std::unique_ptr<Processor> p;
    ASSERT_OK(NewUnlimitedWindowedAggregation(a, &p));
    TaskOptions o;
    o.application_id = "app";
    o.input_partition = "input";
    o.output_partition = "output";
    o.state_directory = (dir / "state").string();
    o.log = log.get();
    o.logger = NullLogger();
    ASSERT_OK(ResolveStateConfig({{"processing.guarantee", "exactly_once_v2"}}, &o.config));
    ASSERT_OK(OpenTask(o, std::move(p), task));
  };
  int64_t offset = 0;
  for (const auto& [key, ts] : std::vector<std::pair<std::string, int64_t>>{
           {"a", 100}, {"a", 5000}, {"b", 99}, {"", 200}, {"a", kNoTimestamp}, {"a", 150}}) {
    ASSERT_OK(log->Append("input", key, "v", ts, &offset));
  }
  ASSERT_OK(log->Sync());
  std::unique_ptr<Task> task;
  open(&task);
  int64_t processed = 0;
  ASSERT_OK(task->Process(6, &processed));
  ASSERT_OK(task->Commit());
  EXPECT_EQ(stats->dropped_records, 2);  // The null key and the record with no timestamp.
  task->Abandon();
  task.reset();
  ASSERT_OK(log->Append("input", "a", "v", 101, &offset));
  ASSERT_OK(log->Sync());
  open(&task);
  ASSERT_OK(task->Process(10, &processed));
  EXPECT_EQ(processed, 1);
  ASSERT_OK(task->Close());
  std::vector<LogRecord> out;
  ASSERT_OK(log->Read("output", 0, 100, IsolationLevel::kReadCommitted, &out));
  std::vector<std::string> got;
  for (const LogRecord& r : out) {
    got.push_back(r.key + "=" + r.value.value_or("null") + "@" + std::to_string(r.timestamp));
  }
  const std::string end = std::to_string(kUnlimitedEnd);
  EXPECT_EQ(got,
            (std::vector<std::string>{"100:" + end + ":a=1@100", "100:" + end + ":a=2@5000",
                                      "100:" + end + ":a=3@5000", "100:" + end + ":a=4@5000"}));
  task.reset();
  log.reset();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace statecheck
