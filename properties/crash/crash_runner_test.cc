// Kill-and-recover cycles (SPEC C1, C3, C4) for each row of the T1 matrix.
#include "properties/crash/crash_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "model/state_config_model.h"

namespace statecheck::model {

void PrintTo(const T1Configuration& config, std::ostream* os) { *os << config.label; }

}  // namespace statecheck::model

namespace statecheck::properties {
namespace {

class CrashRunner : public ::testing::TestWithParam<model::T1Configuration> {};

TEST_P(CrashRunner, SurvivesKillsWithNothingLost) {
  CrashRunOptions o;
  o.seed = 20261130;
  o.cycles = 30;
  if (const char* seed = std::getenv("STATECHECK_SEED")) o.seed = std::strtoull(seed, nullptr, 10);
  if (const char* cycles = std::getenv("STATECHECK_CRASH_CYCLES")) o.cycles = std::atoi(cycles);
  o.label = GetParam().label;
  o.streams_config = GetParam().props;
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

// A failing check is credited to its rule: a processor that forgets every third record's write
// to store kv leaves, under exactly_once_v2, a store that processing the input once does not
// give (C3); the message is the finding's.
TEST(CrashRunnerAttribution, AWrongStoreUnderExactlyOnceIsC3) {
  class ForgetsEveryThirdPut : public Processor {
   public:
    std::vector<std::string> StoreNames() const override { return inner_->StoreNames(); }
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      if (++records_ % 3 != 0) return inner_->Process(record, context);
      // Only the count: the kv write and the output are lost.
      std::optional<std::string> count;
      STATECHECK_RETURN_IF_ERROR(context->Get("counts", record.key, &count));
      const std::string next = std::to_string(count ? std::stoll(*count) + 1 : 1);
      return context->Put("counts", record.key, next);
    }

   private:
    std::unique_ptr<Processor> inner_ = NewKeyValueProcessor();
    int64_t records_ = 0;
  };
  CrashRunOptions o;
  o.seed = 7;
  o.cycles = 3;
  o.label = "eos_unset";
  o.streams_config = {{"processing.guarantee", "exactly_once_v2"}};
  o.processor = [] { return std::make_unique<ForgetsEveryThirdPut>(); };
  o.directory = (std::filesystem::temp_directory_path() /
                 ("statecheck-crash-attribution-" + std::to_string(::getpid())))
                    .string();
  std::filesystem::remove_all(o.directory);
  CrashRunResult r;
  ASSERT_TRUE(RunCrashCycles(o, nullptr, &r).ok());
  ASSERT_FALSE(r.passed);
  ASSERT_TRUE(r.finding.has_value());
  EXPECT_EQ(r.finding->rule, "C3") << r.failure;
  EXPECT_EQ(r.failure, r.finding->ToString());
  std::filesystem::remove_all(o.directory);
}

INSTANTIATE_TEST_SUITE_P(Matrix, CrashRunner, ::testing::ValuesIn(model::T1Configurations()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace statecheck::properties
