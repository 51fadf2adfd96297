// The task property over the T1 matrix (SPEC C1–C6, T6, T7, T9, T10).
#include "properties/task_property.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "faults/fault_fs.h"
#include "statecheck/fail_points.h"

namespace statecheck::properties {

void PrintTo(const TaskConfig& config, std::ostream* os) { *os << config.label; }

namespace {

class TaskProperty : public ::testing::TestWithParam<TaskConfig> {};

TEST_P(TaskProperty, MatchesModel) {
  PropertyParams p;
  p.seed = 20261130;
  p.max_success = 40;
  p.max_size = 60;
  if (const char* seed = std::getenv("STATECHECK_SEED")) p.seed = std::strtoull(seed, nullptr, 10);
  if (const char* cases = std::getenv("STATECHECK_TASK_PROPERTY_CASES")) {
    p.max_success = std::atoi(cases);
  }
  if (std::getenv("STATECHECK_NO_SHRINK")) p.shrink = false;
  const PropertyOutcome out = CheckTaskMatchesModel(GetParam(), p);
  EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases (seed "
                          << p.seed << "):\n"
                          << out.message << "\nshrunk:\n  "
                          << ::testing::PrintToString(out.counterexample)
                          << "\nreproduce: statecheck run --reproduce '" << out.reproduce << "'";
  EXPECT_EQ(out.cases, p.max_success);
}

// Coverage: the power-loss configurations, run as in CI, make every engine fail point fire and
// reach the file system's sync, append and open points of the log, the SSTs, the MANIFEST and
// the legacy files.
TEST(TaskPropertyCoverage, EveryEngineFailPointFires) {
  ResetEngineFailPointCounts();
  faults::ResetFsFailPointCounts();
  PropertyParams p;
  p.seed = 20261130;
  p.max_success = 40;
  p.max_size = 60;
  for (const TaskConfig& config : TaskOptionMatrix()) {
    if (!config.power_loss) continue;
    const PropertyOutcome out = CheckTaskMatchesModel(config, p);
    ASSERT_TRUE(out.passed) << out.property << ": " << out.message;
  }
  for (const FailPointCount& c : EngineFailPointCounts()) {
    EXPECT_GT(c.fired, 0u) << c.name << " never fired (reached " << c.reached << ")";
  }
  std::map<std::string, faults::FailPointCounts> fs;
  for (const auto& [name, c] : faults::FsFailPointCounts()) fs[name] = c;
  for (const char* name :
       {"statecheck/fs/sync/log", "statecheck/fs/append/log", "statecheck/fs/open/log",
        "statecheck/fs/sync/sst", "statecheck/fs/sync/manifest", "statecheck/fs/dir_fsync/log",
        // The legacy format's .checkpoint and .position files (the _formats configurations).
        "statecheck/fs/open/checkpoint", "statecheck/fs/append/checkpoint",
        "statecheck/fs/sync/checkpoint", "statecheck/fs/rename/checkpoint",
        "statecheck/fs/delete/checkpoint", "statecheck/fs/read/checkpoint"}) {
    EXPECT_GT(fs[name].reached, 0u) << name << " never reached";
  }
  EXPECT_GT(fs["statecheck/fs/sync/log"].fired + fs["statecheck/fs/sync/sst"].fired, 0u);
}

// F1–F5 coverage: every fail point the engine can reach fires in the fault sweep — at its first
// reach in a commit, a start and an upgrade, in each configuration — and every firing keeps
// the rules (F1: the injected error, said clearly; then C3/C4, T7, U2 after power loss). The
// points the catalogue calls unreachable are not even reached: if the engine starts using one,
// this fails and the catalogue must say so.
TEST(TaskPropertyCoverage, EveryReachableFailPointFiresAndKeepsTheRules) {
  ResetEngineFailPointCounts();
  faults::ResetFsFailPointCounts();
  std::vector<std::string> points;
  for (const EngineFailPoint& p : EngineFailPoints()) points.emplace_back(p.name);
  const std::vector<faults::FailPointInfo> catalogue = faults::FsFailPointCatalogue();
  for (const faults::FailPointInfo& p : catalogue) points.push_back(p.name);
  const FaultSweepOutcome out = RunFaultSweep(points);
  EXPECT_EQ(out.runs, 5 * static_cast<int>(points.size()));
  for (const std::string& failure : out.failures) ADD_FAILURE() << failure;
  for (const FailPointCount& c : EngineFailPointCounts()) {
    EXPECT_GT(c.fired, 0u) << c.name << " never fired (reached " << c.reached << ")";
  }
  int reachable = 0;
  for (const auto& [name, c] : faults::FsFailPointCounts()) {
    std::string unreachable_because;
    for (const faults::FailPointInfo& p : catalogue) {
      if (p.name == name) unreachable_because = p.unreachable_because;
    }
    if (unreachable_because.empty()) {
      ++reachable;
      EXPECT_GT(c.fired, 0u) << name << " never fired (reached " << c.reached << ")";
    } else {
      EXPECT_EQ(c.reached, 0u) << name << " is reached, but the catalogue says it cannot be: "
                               << unreachable_because;
    }
  }
  EXPECT_EQ(reachable, 47);  // Of 80; with the 6 engine points, 53 fail points fire.
}

// F5: one seed drives the operations and the fault schedule. The same run twice does the same
// operations; a failure found with power loss and faults re-runs from its reproduce string with
// the same message.
TEST(TaskPropertyReproducibility, ASeedReplaysOperationsFaultsAndFailures) {
  TaskConfig config = TaskOptionMatrix()[7];  // alos_ru_powerloss: WAL, READ_UNCOMMITTED.
  ASSERT_TRUE(config.power_loss);
  PropertyParams p;
  p.seed = 77;
  p.max_success = 15;
  p.max_size = 60;
  const PropertyOutcome first = CheckTaskMatchesModel(config, p);
  const PropertyOutcome second = CheckTaskMatchesModel(config, p);
  ASSERT_TRUE(first.passed) << first.message;
  EXPECT_EQ(first.operations, second.operations);
  EXPECT_EQ(first.cases, second.cases);

  // A processor that counts a deleted key's records twice: the model disagrees after a while.
  class DoubleCountingDeletes : public Processor {
   public:
    std::vector<std::string> StoreNames() const override { return inner_->StoreNames(); }
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      if (!record.value) STATECHECK_RETURN_IF_ERROR(inner_->Process(record, context));
      return inner_->Process(record, context);
    }

   private:
    std::unique_ptr<Processor> inner_ = NewKeyValueProcessor();
  };
  config.processor = [] { return std::make_unique<DoubleCountingDeletes>(); };
  p.max_success = 100;
  p.trace_dir = (std::filesystem::temp_directory_path() /
                 ("statecheck-task-trace-" + std::to_string(::getpid())))
                    .string();
  const PropertyOutcome failed = CheckTaskMatchesModel(config, p);
  ASSERT_FALSE(failed.passed);
  ASSERT_FALSE(failed.reproduce.empty());
  EXPECT_LE(failed.counterexample.size(), 3u + 4u)
      << ::testing::PrintToString(failed.counterexample);
  PropertyParams again = p;
  again.reproduce = failed.reproduce;
  const PropertyOutcome replayed = CheckTaskMatchesModel(config, again);
  EXPECT_FALSE(replayed.passed);
  EXPECT_EQ(replayed.message, failed.message);

  // And from the saved trace (statecheck replay): the same step fails with the same message.
  ASSERT_FALSE(failed.trace_path.empty());
  TaskTrace trace;
  ASSERT_TRUE(ReadTaskTrace(failed.trace_path, &trace).ok());
  EXPECT_EQ(trace.config, config.label);
  TaskReplayOutcome replay;
  ASSERT_TRUE(ReplayTaskTrace(trace, &replay, config.processor).ok());
  EXPECT_TRUE(replay.diverged);
  EXPECT_EQ(replay.message, failed.message);
  ASSERT_TRUE(ReplayTaskTrace(trace, &replay).ok());  // The real processor passes it.
  EXPECT_FALSE(replay.diverged) << replay.message;
  std::filesystem::remove_all(p.trace_dir);
}

INSTANTIATE_TEST_SUITE_P(Matrix, TaskProperty, ::testing::ValuesIn(TaskOptionMatrix()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace statecheck::properties
