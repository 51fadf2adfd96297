// Tests of the time-window aggregation's reference model (model/windowed_aggregation_model.h):
// its aggregators, worked by hand as Kafka's own tests write them (MockReducer.STRING_ADDER,
// MockInitializer.STRING_INIT with MockAggregator.TOSTRING_ADDER).
#include "model/windowed_aggregation_model.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

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

// E11, after KStreamWindowAggregateTest.shouldLogAndMeterWhenSkippingExpiredWindow (size 10,
// advance 5, grace 90, retention 100): at store time 105, emit-final's time-first store keeps
// and returns [5,15) (5 >= 105 - 100); emit-eager's key-first store has deleted it.
TEST(WindowedAggregationModelTest, QueriesSeeKafkasReadBound) {
  for (const bool emit_final : {true, false}) {
    SCOPED_TRACE(emit_final ? "emit-final" : "emit-eager");
    WindowedModelConfig c;
    c.size_ms = 10;
    c.advance_ms = 5;
    c.grace_ms = 90;
    c.retention_ms = 100;
    c.emit_final = emit_final;
    WindowedAggregationModel m(c);
    for (const int64_t ts : {100, 0, 1, 2, 3, 4, 5, 6, 105, 106}) m.AppendInput("k", ts, "v");
    m.Process(10, 0);
    m.Commit();
    EXPECT_EQ(m.dropped_records(), 7);
    std::map<std::string, std::string> expected = {
        {"95:105:k", "1@100"}, {"100:110:k", "3@106"}, {"105:115:k", "2@106"}};
    if (emit_final) {
      EXPECT_EQ(DescribeOutputs(m.committed_output()), (Out{"5:15:k=2@6"}));
      expected["5:15:k"] = "2@6";
    }
    EXPECT_EQ(m.CommittedWindows(), expected);
    EXPECT_EQ(m.Queryable(m.CommittedWindows()), expected);
    EXPECT_EQ(WindowedAggregationModel::StoreTimeOf(expected), 105);
    EXPECT_EQ(m.FirstVisibleStart(105), emit_final ? 5 : 6);
    // A held window past the bound (emit-final: not yet emitted) is hidden from queries.
    std::map<std::string, std::string> held = expected;
    held["0:10:k"] = "1@1";
    EXPECT_EQ(m.Queryable(held), expected);
  }
  // The in-memory store reads as W6 under either strategy.
  WindowedModelConfig c;
  c.emit_final = true;
  c.in_memory_store = true;
  c.retention_ms = 10;
  EXPECT_EQ(WindowedAggregationModel(c).FirstVisibleStart(20), 11);
}

TEST(WindowedAggregationModelTest, FoldValuesOfNoValues) {
  EXPECT_EQ(FoldValues(AggregatorKind::kCount, {}), "0");
  EXPECT_EQ(FoldValues(AggregatorKind::kAggregate, {}), "0");
  EXPECT_EQ(FoldValues(AggregatorKind::kReduce, {std::nullopt, "x"}), "x");
}

}  // namespace
}  // namespace statecheck::model
