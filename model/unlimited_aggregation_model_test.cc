// Tests of the unlimited-window aggregation's reference model
// (model/unlimited_aggregation_model.h), worked by hand.
#include "model/unlimited_aggregation_model.h"

#include <gtest/gtest.h>

namespace statecheck::model {
namespace {

using Out = std::vector<std::string>;

// One window per key from the start on; records before it are ignored, not dropped; null keys
// are dropped; nothing closes, so a late timestamp still updates.
TEST(UnlimitedAggregationModelTest, OneWindowPerKeyFromTheStartThatNeverCloses) {
  UnlimitedModelConfig c;
  c.start_ms = 10;
  UnlimitedAggregationModel m(c);
  m.AppendInput("a", 10, "v");
  m.AppendInput("a", 9, "v");  // Before the start.
  m.AppendInput("a", 1000, "v");
  m.AppendInput("a", 11, "v");  // Out of order: the max timestamp stays.
  m.AppendInput("", 12, "v");   // Null key.
  m.Process(5, 0);
  m.Commit();
  constexpr char kW[] = "10:9223372036854775807:a";
  EXPECT_EQ(
      DescribeOutputs(m.committed_output()),
      (Out{std::string(kW) + "=1@10", std::string(kW) + "=2@1000", std::string(kW) + "=3@1000"}));
  EXPECT_EQ(m.dropped_records(), 1);
  EXPECT_EQ(m.CommittedWindows(), (std::map<std::string, std::string>{{kW, "3@1000"}}));
  EXPECT_TRUE(m.HasWindow(kW));
  EXPECT_FALSE(m.HasWindow("0:9223372036854775807:a"));
}

TEST(UnlimitedAggregationModelTest, ReduceSkipsNullValues) {
  UnlimitedModelConfig c;
  c.aggregator = AggregatorKind::kReduce;
  UnlimitedAggregationModel m(c);
  m.AppendInput("a", 1, "x");
  m.AppendInput("a", 2, std::nullopt);
  m.AppendInput("a", 3, "y");
  m.Process(3, 0);
  m.Commit();
  EXPECT_EQ(DescribeOutputs(m.committed_output()),
            (Out{"0:9223372036854775807:a=x@1", "0:9223372036854775807:a=x+y@3"}));
}

}  // namespace
}  // namespace statecheck::model
