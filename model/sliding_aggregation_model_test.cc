// Tests of the sliding-window aggregation's reference model (model/sliding_aggregation_model.h):
// worked examples of SPEC E1–E6 for sliding windows, computed by hand from the window definition.
#include "model/sliding_aggregation_model.h"

#include <gtest/gtest.h>

namespace statecheck::model {
namespace {

std::vector<std::string> Show(const std::vector<WindowedOutput>& out, size_t from = 0) {
  std::vector<std::string> s;
  for (size_t i = from; i < out.size(); ++i) {
    s.push_back(out[i].key + "=" + out[i].value + "@" + std::to_string(out[i].timestamp));
  }
  return s;
}

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
  m.AppendInput("a", 5);
  m.AppendInput("a", 12);
  m.AppendInput("a", 8);
  m.Process(3, 0);
  m.Commit();
  EXPECT_EQ(Show(m.committed_output()),
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
  for (int64_t t : {40, 24, 25, 35}) m.AppendInput("k", t);
  m.AppendInput("", 1);
  m.AppendInput("k", -1);
  m.Process(10, 0);
  m.Commit();
  // 24: dropped whole; 25: its window [15,25] closed (25 < 35); 35: [25,35] does not hold 25,
  // and 35's right window [36,46] holds 40.
  EXPECT_EQ(m.dropped_records(), 4);
  EXPECT_EQ(Show(m.committed_output()),
            (Out{"30:40:k=1@40", "25:35:k=1@35", "30:40:k=2@40", "36:46:k=1@40"}));
}

// E3, E4, E5, E6: each window once, after end < stream time - grace, by start then key; a crash
// goes back to the last commit, the last emitted close time included.
TEST(SlidingAggregationModelTest, EmitFinalEmitsClosedWindowsOnceAcrossCrashes) {
  SlidingAggregationModel m = Model(10, 0, true);
  m.AppendInput("b", 3);
  m.AppendInput("a", 10);
  m.AppendInput("a", 21);  // Close time 21: [0,10] closed.
  m.Process(3, 0);
  m.Commit();
  EXPECT_EQ(Show(m.committed_output()), (Out{"0:10:a=1@10", "0:10:b=1@3"}));
  m.AppendInput("a", 32);  // Close time 32: [11,21] (10's right, 21's left) closed.
  m.Process(1, 0);
  EXPECT_EQ(Show(m.committed_output()).size(), 2u);  // Not committed yet.
  m.Crash();
  EXPECT_EQ(m.next_input_offset(), 3);
  m.Process(1, 0);
  m.Commit();
  EXPECT_EQ(Show(m.committed_output(), 2), (Out{"11:21:a=1@21"}));
  m.Restart();
  m.AppendInput("a", 21);  // Stream time 21 after the restart: nothing closes anew.
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
  m.AppendInput("a", 1);
  m.AppendInput("a", 20);
  m.AppendInput("a", 30);
  m.Process(1, 0);   // An attempt at 0.
  m.Process(1, 50);  // Too soon.
  m.Commit();
  EXPECT_TRUE(m.committed_output().empty());
  m.Process(1, 100);  // Close time 30: [0,10] and [10,20] (20's left window) closed.
  m.Commit();
  EXPECT_EQ(Show(m.committed_output()), (Out{"0:10:a=1@1", "10:20:a=1@20"}));
}

}  // namespace
}  // namespace statecheck::model
