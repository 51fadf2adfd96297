// Kill-and-recover cycles (SPEC C1, C3, C4) for each row of the T1 matrix.
#include "properties/crash_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "properties/task_property.h"

namespace statecheck::properties {

void PrintTo(const TaskConfig& config, std::ostream* os) { *os << config.label; }

namespace {

class CrashRunner : public ::testing::TestWithParam<TaskConfig> {};

TEST_P(CrashRunner, SurvivesKillsWithNothingLost) {
  CrashRunOptions o;
  o.seed = 20261130;
  o.cycles = 30;
  if (const char* seed = std::getenv("STATECHECK_SEED")) o.seed = std::strtoull(seed, nullptr, 10);
  if (const char* cycles = std::getenv("STATECHECK_CRASH_CYCLES")) o.cycles = std::atoi(cycles);
  o.label = GetParam().label;
  o.streams_config = GetParam().streams_config;
  o.directory = (std::filesystem::temp_directory_path() /
                 ("statecheck-crash-test-" + std::to_string(::getpid()) + "-" + o.label))
                    .string();
  std::filesystem::remove_all(o.directory);
  CrashRunResult r;
  const Status s = RunCrashCycles(o, nullptr, &r);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(r.passed) << "cycle " << r.failed_cycle << ": " << r.failure
                        << "\nreplay: statecheck crash --config " << o.label << " --seed " << o.seed
                        << " --cycles " << r.failed_cycle + 1 << " (directory kept: " << o.directory
                        << ")";
  EXPECT_EQ(r.cycles, o.cycles);
  EXPECT_GT(r.kills, o.cycles / 4);  // Most cycles die at their kill point.
  EXPECT_GT(r.final_committed_input, 0);
}

TEST(CrashRunnerOptions, RejectsANonEmptyDirectory) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("statecheck-crash-busy-" + std::to_string(::getpid())))
                              .string();
  std::filesystem::create_directories(dir + "/something");
  CrashRunOptions o;
  o.directory = dir;
  CrashRunResult r;
  const Status s = RunCrashCycles(o, nullptr, &r);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("is not empty"), std::string::npos) << s;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Matrix, CrashRunner, ::testing::ValuesIn(TaskT1Rows()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace statecheck::properties
