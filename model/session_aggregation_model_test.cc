// Unit tests of the session-window model (model/session_aggregation_model.h). The windowed
// property (properties/windowed/property.h) runs it against the engine.
#include "model/session_aggregation_model.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace statecheck::model {
namespace {

// Appends `records`, processes them all at `now`, commits, and returns the new committed output.
std::vector<std::string> RunAll(SessionAggregationModel& m,
                                const std::vector<std::pair<std::string, int64_t>>& records,
                                int64_t now = 0) {
  const size_t seen = m.committed_output().size();
  for (const auto& [k, t] : records) m.AppendInput(k, t, "v");
  m.Process(1000, now);
  m.Commit();
  return DescribeOutputs(m.committed_output(), seen);
}

// The engine's EmitEagerMergesSessionsAndTombstonesTheMergedOnes, on the model.
TEST(SessionAggregationModelTest, EmitEagerMergesAndTombstonesMergedSessions) {
  SessionAggregationModel m({.gap_ms = 10, .grace_ms = 100});
  EXPECT_EQ(RunAll(m, {{"a", 0}, {"ab", 6}, {"a", 30}, {"a", 5}}),
            (std::vector<std::string>{"0:0:a=1@0", "6:6:ab=1@6", "30:30:a=1@30", "0:0:a=null@0",
                                      "0:5:a=2@5"}));
  EXPECT_EQ(RunAll(m, {{"a", 20}}), (std::vector<std::string>{"30:30:a=null@30", "20:30:a=2@30"}));
  EXPECT_EQ(RunAll(m, {{"a", 12}}),
            (std::vector<std::string>{"0:5:a=null@5", "20:30:a=null@30", "0:30:a=5@30"}));
  EXPECT_EQ(RunAll(m, {{"a", 25}}), (std::vector<std::string>{"0:30:a=null@30", "0:30:a=6@30"}));
  EXPECT_EQ(RunAll(m, {{"a", 100}, {"a", 100}}),
            (std::vector<std::string>{"100:100:a=1@100", "100:100:a=2@100"}));
  EXPECT_EQ(m.CommittedWindows(),
            (std::map<std::string, std::string>{
                {"0:30:a", "6@30"}, {"100:100:a", "2@100"}, {"6:6:ab", "1@6"}}));
  EXPECT_EQ(m.dropped_records(), 0);
}

// E1 at the boundary: dropped iff the merged session ends before stream time - grace - gap.
TEST(SessionAggregationModelTest, LateRecordsAreDroppedExactlyAtTheBoundary) {
  SessionAggregationModel m({.gap_ms = 10, .grace_ms = 5});
  EXPECT_EQ(
      RunAll(
          m,
          {{"k", 100}, {"x", 85}, {"y", 84}, {"z", 86}, {"k", 80}, {"x", 76}, {"", 1}, {"n", -1}}),
      (std::vector<std::string>{"100:100:k=1@100", "85:85:x=1@85", "86:86:z=1@86",
                                "85:85:x=null@85", "76:85:x=2@85"}));
  EXPECT_EQ(m.dropped_records(), 4);
}

// E3, E4: once each, after closing, by end, key, start; E5: the emit interval.
TEST(SessionAggregationModelTest, EmitFinalOncePerSessionInOrderAndOnInterval) {
  SessionAggregationModel m({.gap_ms = 5, .grace_ms = 1, .emit_final = true});
  EXPECT_TRUE(RunAll(m, {{"b", 6}, {"a", 3}, {"a", 6}, {"c", 1}, {"c", 2}, {"ab", 6}}).empty());
  EXPECT_EQ(RunAll(m, {{"z", 13}}),
            (std::vector<std::string>{"1:2:c=2@2", "3:6:a=2@6", "6:6:ab=1@6", "6:6:b=1@6"}));
  EXPECT_TRUE(RunAll(m, {{"z", 13}, {"y", 19}}).empty());
  EXPECT_EQ(RunAll(m, {{"y", 20}}), (std::vector<std::string>{"13:13:z=2@13"}));

  SessionAggregationModel w({.gap_ms = 5, .emit_final = true, .emit_interval_ms = 1000});
  EXPECT_EQ(RunAll(w, {{"a", 0}, {"b", 6}}, 0), (std::vector<std::string>{"0:0:a=1@0"}));
  EXPECT_TRUE(RunAll(w, {{"b", 20}}, 0).empty());
  EXPECT_TRUE(RunAll(w, {{"b", 21}}, 999).empty());
  EXPECT_EQ(RunAll(w, {{"b", 22}}, 1000), (std::vector<std::string>{"6:6:b=1@6"}));
}

// E6: a crash goes back to the last commit, keeping its last emitted close time.
TEST(SessionAggregationModelTest, CrashReturnsToTheLastCommit) {
  SessionAggregationModel m({.gap_ms = 5, .emit_final = true});
  EXPECT_EQ(RunAll(m, {{"a", 0}, {"a", 10}}), (std::vector<std::string>{"0:0:a=1@0"}));
  m.Crash();
  EXPECT_TRUE(RunAll(m, {{"b", 10}}).empty());
  m.AppendInput("b", 30, "v");
  m.Process(1, 0);
  EXPECT_EQ(m.written_output().size(), 3u);
  m.Crash();  // The uncommitted emission is gone, and redone.
  EXPECT_EQ(m.next_input_offset(), 3);
  EXPECT_EQ(RunAll(m, {}), (std::vector<std::string>{"10:10:a=1@10", "10:10:b=1@10"}));
  EXPECT_EQ(m.CommittedWindows(),
            (std::map<std::string, std::string>{
                {"0:0:a", "1@0"}, {"10:10:a", "1@10"}, {"10:10:b", "1@10"}, {"30:30:b", "1@30"}}));
}

// Under at_least_once a crash keeps what was processed, and the records since the last commit are
// processed again.
TEST(SessionAggregationModelTest, AtLeastOnceCrashCountsAgain) {
  SessionAggregationModel m({.gap_ms = 5, .at_least_once = true});
  EXPECT_EQ(RunAll(m, {{"a", 0}}), (std::vector<std::string>{"0:0:a=1@0"}));
  m.AppendInput("a", 1, "v");
  m.Process(1, 0);
  m.Crash();
  m.Process(1, 0);
  m.Commit();
  EXPECT_EQ(DescribeOutputs(m.committed_output()),
            (std::vector<std::string>{"0:0:a=1@0", "0:0:a=null@0", "0:1:a=2@1", "0:1:a=null@1",
                                      "0:1:a=3@1"}));
}

// SessionWindowedKStreamImplTest.shouldAggregateSessionWindowed and shouldReduceWindowed, on
// the model: a merge starts from the initializer (reduce: the first session's aggregate), merges
// each joined session by ascending end through the merger, then adds the record's value.
TEST(SessionAggregationModelTest, MergesAggregatesAsKafkaDoes) {
  const std::vector<std::tuple<std::string, int64_t, std::string>> input = {
      {"1", 10, "1"}, {"1", 15, "2"}, {"1", 600, "3"}, {"2", 600, "1"}, {"2", 599, "2"}};
  const auto run = [&](AggregatorKind kind) {
    SessionAggregationModel m({.gap_ms = 500, .grace_ms = 0, .aggregator = kind});
    for (const auto& [k, t, v] : input) m.AppendInput(k, t, v);
    m.Process(1000, 0);
    m.Commit();
    return DescribeOutputs(m.committed_output());
  };
  EXPECT_EQ(run(AggregatorKind::kAggregate),
            (std::vector<std::string>{"10:10:1=0+1@10", "10:10:1=null@10", "10:15:1=0+0+1+2@15",
                                      "600:600:1=0+3@600", "600:600:2=0+1@600",
                                      "600:600:2=null@600", "599:600:2=0+0+1+2@600"}));
  EXPECT_EQ(run(AggregatorKind::kReduce),
            (std::vector<std::string>{"10:10:1=1@10", "10:10:1=null@10", "10:15:1=1+2@15",
                                      "600:600:1=3@600", "600:600:2=1@600", "600:600:2=null@600",
                                      "599:600:2=1+2@600"}));
  // Three sessions bridged by one record: merged by ascending end, each through the merger.
  SessionAggregationModel m(
      {.gap_ms = 5, .grace_ms = 100, .aggregator = AggregatorKind::kAggregate});
  for (const auto& [t, v] : std::vector<std::pair<int64_t, std::string>>{
           {0, "a"}, {20, "c"}, {10, "b"}, {15, "d"}, {5, "e"}}) {
    m.AppendInput("k", t, v);
  }
  m.Process(1000, 0);
  m.Commit();
  EXPECT_EQ(m.CommittedWindows(),
            (std::map<std::string, std::string>{{"0:20:k", "0+0+a+0+0+b+0+c+d+e@20"}}));
}

}  // namespace
}  // namespace statecheck::model
