// The windowed aggregation property over tumbling and hopping windows × emit strategies (SPEC
// E1–E6, E10).
#include "properties/windowed_aggregation_property.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "properties/rapidcheck_runner.h"

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
    if (!IsE7WindowShape(config)) continue;
    const PropertyOutcome out = CheckEmitFinalEqualsSuppressedEager(config, p);
    EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases:\n"
                            << out.message << "\nshrunk:\n  "
                            << ::testing::PrintToString(out.counterexample);
    EXPECT_EQ(out.cases, p.max_success);
  }
}

// Every configuration survives the trip through a trace header.
TEST(WindowedTrace, ConfigRoundTrips) {
  for (const WindowedAggregationConfig& config : WindowedAggregationMatrix()) {
    WindowedAggregationConfig back;
    ASSERT_TRUE(ConfigFromJson(ConfigToJson(config), &back).ok()) << config.label;
    EXPECT_EQ(ConfigToJson(back), ConfigToJson(config));
  }
}

// A malformed trace is refused with the line and what is wrong, before anything runs.
TEST(WindowedTrace, MalformedTracesNameTheLineAndTheProblem) {
  const std::string header =
      R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"time",)"
      R"("size_ms":10,"advance_ms":10,"grace_ms":0},"emit":"ON_WINDOW_CLOSE"}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"kind\":\"task\"}\n", "line 1: not a windowed trace header"},
      {R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"tumbling"}}})"
       "\n",
       R"(line 1: config: window "kind" must be "time", "sliding" or "session")"},
      {R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"time",)"
       R"("size_ms":10,"grace_ms":0},"emit":"ON_WINDOW_CLOSE"}})"
       "\n",
       R"(line 1: config: window needs an integer "advance_ms")"},
      {header + "\n{\"op\":\"flush\"}\n", "line 2: unknown op \"flush\""},
      {header + "\n\n{\"op\":\"append\",\"records\":[[\"a\",-2]]}\n",
       "line 3: op append: each record is [key"},
      {header + "\n{\"op\":\"process\"}\n", "line 2: op process needs an integer \"max_records\""},
      {header + "\n{\"op\":\"commit\",\"expect\":{\"emitted\":3}}\n",
       "line 2: \"expect\" is {\"emitted\": [...], \"dropped_records\": N}"},
      {header + "\nnot json\n", "line 2: not valid JSON"},
  };
  const std::string path = ScratchDirectory("windowed-trace") + ".jsonl";
  for (const auto& [text, message] : cases) {
    std::ofstream(path) << text;
    WindowedTrace trace;
    const Status s = ReadWindowedTrace(path, &trace);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << text;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace statecheck::properties
