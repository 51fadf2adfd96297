#include "model/state_config_model.h"

#include <gtest/gtest.h>

namespace statecheck::model {
namespace {

constexpr auto RU = IsolationLevel::kReadUncommitted;
constexpr auto RC = IsolationLevel::kReadCommitted;

// SPEC T1's six rows, and the legacy format's override (SPEC U).
TEST(StateConfigModel, RowsAreTheSpecTable) {
  struct Case {
    const char* guarantee;
    const char* isolation;  // "" = unset.
    IsolationLevel effective;
    bool buffered, wipe;
  };
  const Case cases[] = {
      {"at_least_once", "", RU, false, false},
      {"at_least_once", "READ_UNCOMMITTED", RU, false, false},
      {"at_least_once", "READ_COMMITTED", RC, true, false},
      {"exactly_once_v2", "", RC, true, false},
      {"exactly_once_v2", "READ_UNCOMMITTED", RU, false, true},
      {"exactly_once_v2", "READ_COMMITTED", RC, true, false},
      {"exactly_once_beta", "", RC, true, false},
  };
  for (const Case& c : cases) {
    std::map<std::string, std::string> props = {{"processing.guarantee", c.guarantee}};
    if (*c.isolation) props["default.state.isolation.level"] = c.isolation;
    SCOPED_TRACE(std::string(c.guarantee) + " " + c.isolation);
    T1Row row;
    std::string problem;
    ASSERT_TRUE(ExpectedT1Row(props, &row, &problem)) << problem;
    EXPECT_EQ(row.isolation, c.effective);
    EXPECT_EQ(row.buffer_writes, c.buffered);
    EXPECT_EQ(row.wipe_on_unclean_shutdown, c.wipe);
    // Legacy: stores write directly; exactly-once wipes.
    props["state.format"] = "legacy";
    ASSERT_TRUE(ExpectedT1Row(props, &row, &problem)) << problem;
    EXPECT_EQ(row.isolation, RU);
    EXPECT_FALSE(row.buffer_writes);
    EXPECT_EQ(row.wipe_on_unclean_shutdown, std::string(c.guarantee) != "at_least_once");
  }
}

TEST(StateConfigModel, ComparesWithTheEngineAndNamesTheDifference) {
  const std::map<std::string, std::string> props = {{"processing.guarantee", "exactly_once_v2"}};
  T1Row row;
  std::string problem;
  ASSERT_TRUE(ExpectedT1Row(props, &row, &problem));
  StateConfig engine;
  ASSERT_TRUE(ResolveStateConfig(props, &engine).ok());
  EXPECT_EQ(CompareT1Row(props, engine, row), std::nullopt);
  engine.wipe_on_unclean_shutdown = true;
  const CheckResult diff = CompareT1Row(props, engine, row);
  ASSERT_TRUE(diff.has_value());
  EXPECT_EQ(diff->rule, "T1");
  EXPECT_EQ(diff->ToString(),
            "T1: the engine resolves {processing.guarantee=exactly_once_v2} to (exactly_once_v2, "
            "READ_COMMITTED, buffered, wipe, current, max 67108864 bytes); T1's table says "
            "(exactly_once_v2, READ_COMMITTED, buffered, no wipe, current, max 67108864 bytes)");
  EXPECT_FALSE(ExpectedT1Row({{"processing.guarantee", "twice"}}, &row, &problem));
  EXPECT_EQ(problem, "processing.guarantee=twice");
}

}  // namespace
}  // namespace statecheck::model
