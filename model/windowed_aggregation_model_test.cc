// Tests of the time-window aggregation's reference model (model/windowed_aggregation_model.h):
// its aggregators, worked by hand as Kafka's own tests write them (MockReducer.STRING_ADDER,
// MockInitializer.STRING_INIT with MockAggregator.TOSTRING_ADDER).
#include "model/windowed_aggregation_model.h"

#include <gtest/gtest.h>

namespace statecheck::model {
namespace {

using Out = std::vector<std::string>;

WindowedAggregationModel Model(AggregatorKind aggregator, bool emit_final) {
  WindowedModelConfig c;
  c.size_ms = 10;
  c.advance_ms = 10;
  c.aggregator = aggregator;
  c.emit_final = emit_final;
  return WindowedAggregationModel(c);
}

void Feed(WindowedAggregationModel& m) {
  m.AppendInput("a", 1, "1");
  m.AppendInput("a", 2, std::nullopt);
  m.AppendInput("a", 3, "3");
  m.AppendInput("b", 12, "4");  // Closes [0,10) under emit-final.
  m.Process(4, 0);
  m.Commit();
}

TEST(WindowedAggregationModelTest, CountCountsEveryRecordNullValuesIncluded) {
  WindowedAggregationModel m = Model(AggregatorKind::kCount, false);
  Feed(m);
  EXPECT_EQ(DescribeOutputs(m.committed_output()),
            (Out{"0:10:a=1@1", "0:10:a=2@2", "0:10:a=3@3", "10:20:b=1@12"}));
}

// A null value under reduce is skipped: no update, no output, no stream time, not dropped.
TEST(WindowedAggregationModelTest, ReduceJoinsValuesAndSkipsNullValues) {
  WindowedAggregationModel m = Model(AggregatorKind::kReduce, false);
  Feed(m);
  EXPECT_EQ(DescribeOutputs(m.committed_output()),
            (Out{"0:10:a=1@1", "0:10:a=1+3@3", "10:20:b=4@12"}));
  EXPECT_EQ(m.dropped_records(), 0);
  // [0,10) is past the retention (size + grace) at stream time 12: deleted.
  EXPECT_EQ(m.CommittedWindows(), (std::map<std::string, std::string>{{"10:20:b", "4@12"}}));
}

TEST(WindowedAggregationModelTest, AggregateStartsFromTheInitializerAndAddsNullAsNull) {
  WindowedAggregationModel m = Model(AggregatorKind::kAggregate, true);
  Feed(m);
  EXPECT_EQ(DescribeOutputs(m.committed_output()), (Out{"0:10:a=0+1+null+3@3"}));
}

TEST(WindowedAggregationModelTest, FoldValuesOfNoValues) {
  EXPECT_EQ(FoldValues(AggregatorKind::kCount, {}), "0");
  EXPECT_EQ(FoldValues(AggregatorKind::kAggregate, {}), "0");
  EXPECT_EQ(FoldValues(AggregatorKind::kReduce, {std::nullopt, "x"}), "x");
}

}  // namespace
}  // namespace statecheck::model
