// Tests of the sliding-window aggregation's reference model (model/sliding_aggregation_model.h):
// worked examples of SPEC E1–E6 for sliding windows, computed by hand from the window definition.
#include "model/sliding_aggregation_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace statecheck::model {
namespace {

SlidingAggregationModel Model(int64_t d, int64_t grace, bool emit_final) {
  SlidingModelConfig c;
  c.time_difference_ms = d;
  c.grace_ms = grace;
  c.emit_final = emit_final;
  return SlidingAggregationModel(c);
}

using Out = std::vector<std::string>;

// E2: left windows, right windows once a record falls in them, early records in [0, D], updates
// by ascending start.
TEST(SlidingAggregationModelTest, EagerOutputsEveryWindowARecordUpdatesOrCreates) {
  SlidingAggregationModel m = Model(10, 100, false);
  m.AppendInput("a", 5, "v");
  m.AppendInput("a", 12, "v");
  m.AppendInput("a", 8, "v");
  m.Process(3, 0);
  m.Commit();
  EXPECT_EQ(DescribeOutputs(m.committed_output()),
            (Out{"0:10:a=1@5", "2:12:a=2@12", "6:16:a=1@12",  // 12: left [2,12], 5's right.
                 "0:10:a=2@8", "2:12:a=3@12", "6:16:a=2@12", "9:19:a=1@12"}));  // 8's right.
  EXPECT_EQ(m.CommittedWindows(),
            (std::map<std::string, std::string>{
                {"0:10:a", "2@8"}, {"2:12:a", "3@12"}, {"6:16:a", "2@12"}, {"9:19:a", "1@12"}}));
}

// E1: a window takes a record iff end >= stream time - grace; a record whose windows have all
// closed is dropped whole (once), and leaves no trace in windows created later.
TEST(SlidingAggregationModelTest, LateRecordsSkipClosedWindows) {
  SlidingAggregationModel m = Model(10, 5, false);
  for (int64_t t : {40, 24, 25, 35}) m.AppendInput("k", t, "v");
  m.AppendInput("", 1, "v");
  m.AppendInput("k", -1, "v");
  m.Process(10, 0);
  m.Commit();
  // 24: dropped whole; 25: its window [15,25] closed (25 < 35); 35: [25,35] does not hold 25,
  // and 35's right window [36,46] holds 40.
  EXPECT_EQ(m.dropped_records(), 4);
  EXPECT_EQ(DescribeOutputs(m.committed_output()),
            (Out{"30:40:k=1@40", "25:35:k=1@35", "30:40:k=2@40", "36:46:k=1@40"}));
}

// E3, E4, E5, E6: each window once, after end < stream time - grace, by start then key; a crash
// goes back to the last commit, the last emitted close time included.
TEST(SlidingAggregationModelTest, EmitFinalEmitsClosedWindowsOnceAcrossCrashes) {
  SlidingAggregationModel m = Model(10, 0, true);
  m.AppendInput("b", 3, "v");
  m.AppendInput("a", 10, "v");
  m.AppendInput("a", 21, "v");  // Close time 21: [0,10] closed.
  m.Process(3, 0);
  m.Commit();
  EXPECT_EQ(DescribeOutputs(m.committed_output()), (Out{"0:10:a=1@10", "0:10:b=1@3"}));
  m.AppendInput("a", 32, "v");  // Close time 32: [11,21] (10's right, 21's left) closed.
  m.Process(1, 0);
  EXPECT_EQ(DescribeOutputs(m.committed_output()).size(), 2u);  // Not committed yet.
  m.Crash();
  EXPECT_EQ(m.next_input_offset(), 3);
  m.Process(1, 0);
  m.Commit();
  EXPECT_EQ(DescribeOutputs(m.committed_output(), 2), (Out{"11:21:a=1@21"}));
  m.Restart();
  m.AppendInput("a", 21, "v");  // Stream time 21 after the restart: nothing closes anew.
  m.Process(1, 0);
  m.Commit();
  EXPECT_EQ(m.committed_output().size(), 3u);
  EXPECT_EQ(m.CommittedWindows().at("11:21:a"), "2@21");
}

TEST(SlidingAggregationModelTest, EmitIntervalThrottlesAttempts) {
  SlidingModelConfig c;
  c.time_difference_ms = 10;
  c.emit_final = true;
  c.emit_interval_ms = 100;
  SlidingAggregationModel m(c);
  m.AppendInput("a", 1, "v");
  m.AppendInput("a", 20, "v");
  m.AppendInput("a", 30, "v");
  m.Process(1, 0);   // An attempt at 0.
  m.Process(1, 50);  // Too soon.
  m.Commit();
  EXPECT_TRUE(m.committed_output().empty());
  m.Process(1, 100);  // Close time 30: [0,10] and [10,20] (20's left window) closed.
  m.Commit();
  EXPECT_EQ(DescribeOutputs(m.committed_output()), (Out{"0:10:a=1@1", "10:20:a=1@20"}));
}

// What the model tells the attribution of its output (EmitInfo) and the situations it notes:
// an attempt exactly one interval after the last, a window closed before a restart and emitted
// after it, and the held-back attempt.
TEST(SlidingAggregationModelTest, EmitInfoSaysWhichAttemptAndWhetherTheWindowClosedBeforeARestart) {
  SlidingModelConfig c;
  c.time_difference_ms = 10;
  c.emit_final = true;
  c.emit_interval_ms = 100;
  SlidingAggregationModel m(c);
  m.AppendInput("a", 1, "v");
  m.AppendInput("a", 20, "v");
  m.AppendInput("a", 30, "v");
  m.Process(1, 0);   // An attempt at 0: nothing closed.
  m.Process(1, 50);  // Close time 20: [0,10] closed, held back.
  std::vector<std::string> notes = m.TakeNotes();
  EXPECT_NE(std::find(notes.begin(), notes.end(), "E5.held_back"), notes.end());
  EXPECT_TRUE(m.HeldBackAtLastRecord());
  EXPECT_TRUE(m.ClosedAtLastRecord(0, 10));
  EXPECT_FALSE(m.ClosedAtLastRecord(10, 20));
  m.Restart();        // Stream time starts afresh; [0,10] closed before the restart, not emitted.
  m.Process(1, 100);  // Close time 30, the first attempt of this task instance.
  m.Commit();
  ASSERT_EQ(DescribeOutputs(m.committed_output()), (Out{"0:10:a=1@1", "10:20:a=1@20"}));
  const std::vector<EmitInfo>& info = m.committed_emits();
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info[0].attempt, info[1].attempt);  // Closed together.
  EXPECT_EQ(info[0].incarnation, 1);
  EXPECT_TRUE(info[0].closed_before_restart);
  EXPECT_FALSE(info[1].closed_before_restart);  // [10,20] closes only at 31 (stream time 30).
  EXPECT_FALSE(info[0].at_interval);            // The first attempt of the instance.
  notes = m.TakeNotes();
  for (const char* s : {"E3.after_restart", "E6.closed_before_restart", "E4.several_starts"}) {
    EXPECT_NE(std::find(notes.begin(), notes.end(), s), notes.end()) << s;
  }
  EXPECT_TRUE(m.HasWindow("20:30:a"));
  EXPECT_FALSE(m.HasWindow("19:29:a"));
  EXPECT_FALSE(m.DroppedLateFrom("0:10:a"));
}

// An attempt exactly emit.interval.ms after the last one is made, and says so (E5's boundary).
TEST(SlidingAggregationModelTest, AnAttemptExactlyOneIntervalLaterIsMarked) {
  SlidingModelConfig c;
  c.time_difference_ms = 10;
  c.emit_final = true;
  c.emit_interval_ms = 100;
  SlidingAggregationModel m(c);
  m.AppendInput("a", 1, "v");
  m.AppendInput("a", 30, "v");
  m.Process(1, 0);
  m.Process(1, 100);
  m.Commit();
  ASSERT_EQ(DescribeOutputs(m.committed_output()), (Out{"0:10:a=1@1"}));
  EXPECT_TRUE(m.committed_emits()[0].at_interval);
  const std::vector<std::string> notes = m.TakeNotes();
  EXPECT_NE(std::find(notes.begin(), notes.end(), "E5.at_interval"), notes.end());
}

// A record late for every window it falls in is dropped from its left window (E1).
TEST(SlidingAggregationModelTest, LateRecordsAreRememberedByWindow) {
  SlidingAggregationModel m = Model(5, 0, false);
  m.AppendInput("a", 20, "v");
  m.AppendInput("a", 2, "v");  // [0, 5] ends before 20 - 0.
  m.Process(2, 0);
  EXPECT_EQ(m.dropped_records(), 1);
  EXPECT_TRUE(m.DroppedLateFrom("0:5:a"));
}

// KStreamSlidingWindowAggregateTest.testAggregateSmallInput's emit-eager updates of the windows
// it copies, on the model: a window made as a copy of another folds on from that window's values.
TEST(SlidingAggregationModelTest, ACopiedWindowFoldsOnFromItsSourcesAggregate) {
  SlidingModelConfig c;
  c.time_difference_ms = 10;
  c.grace_ms = 5;
  c.aggregator = AggregatorKind::kAggregate;
  SlidingAggregationModel m(c);
  for (const auto& [t, v] : std::vector<std::pair<int64_t, std::string>>{
           {10, "1"}, {10, "2"}, {14, "3"}, {15, "4"}, {20, "5"}, {22, "6"}, {30, "7"}}) {
    m.AppendInput("A", t, v);
  }
  m.Process(1000, 0);
  m.Commit();
  // Kafka's expected aggregates per start (an order-free set there).
  const std::map<std::string, std::string> windows = m.CommittedWindows();
  EXPECT_EQ(windows.at("0:10:A"), "0+1+2@10");
  EXPECT_EQ(windows.at("11:21:A"), "0+3+4+5@20");
  EXPECT_EQ(windows.at("12:22:A"), "0+3+4+5+6@22");  // A copy of [11, 21], then 6.
  EXPECT_EQ(windows.at("15:25:A"), "0+4+5+6@22");
  EXPECT_EQ(windows.at("16:26:A"), "0+5+6@22");
  EXPECT_EQ(windows.at("20:30:A"), "0+5+6+7@30");
  EXPECT_EQ(windows.at("21:31:A"), "0+6+7@30");
  EXPECT_EQ(windows.at("23:33:A"), "0+7@30");
}

}  // namespace
}  // namespace statecheck::model
