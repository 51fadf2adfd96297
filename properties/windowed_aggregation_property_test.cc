// The windowed aggregation property over tumbling and hopping windows × emit strategies (SPEC
// E1–E6, E10).
#include "properties/windowed_aggregation_property.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace statecheck::properties {

void PrintTo(const WindowedAggregationConfig& config, std::ostream* os) { *os << config.label; }

namespace {

class WindowedAggregationProperty : public ::testing::TestWithParam<WindowedAggregationConfig> {};

TEST_P(WindowedAggregationProperty, MatchesModel) {
  PropertyParams p;
  p.seed = 20261130;
  p.max_success = 60;
  p.max_size = 60;
  if (const char* seed = std::getenv("STATECHECK_SEED")) p.seed = std::strtoull(seed, nullptr, 10);
  if (const char* cases = std::getenv("STATECHECK_WINDOWED_PROPERTY_CASES")) {
    p.max_success = std::atoi(cases);
  }
  const PropertyOutcome out = CheckWindowedAggregationMatchesModel(GetParam(), p);
  EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases (seed "
                          << p.seed << "):\n"
                          << out.message << "\nshrunk:\n  "
                          << ::testing::PrintToString(out.counterexample)
                          << "\nreproduce: statecheck run --reproduce '" << out.reproduce << "'";
  EXPECT_EQ(out.cases, p.max_success);
}

INSTANTIATE_TEST_SUITE_P(Matrix, WindowedAggregationProperty,
                         ::testing::ValuesIn(WindowedAggregationMatrix()),
                         [](const auto& info) { return info.param.label; });

// E7, for each window shape of the matrix (tumbling, hopping with grace).
TEST(WindowedAggregationDifferential, EmitFinalEqualsSuppressedEager) {
  PropertyParams p;
  p.seed = 20261130;
  p.max_success = 40;
  p.max_size = 40;
  if (const char* seed = std::getenv("STATECHECK_SEED")) p.seed = std::strtoull(seed, nullptr, 10);
  for (const WindowedAggregationConfig& config : WindowedAggregationMatrix()) {
    if (config.emit_final) continue;  // One run per window shape.
    const PropertyOutcome out = CheckEmitFinalEqualsSuppressedEager(config, p);
    EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases:\n"
                            << out.message << "\nshrunk:\n  "
                            << ::testing::PrintToString(out.counterexample);
    EXPECT_EQ(out.cases, p.max_success);
  }
}

}  // namespace
}  // namespace statecheck::properties
