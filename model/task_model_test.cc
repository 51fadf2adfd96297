#include "model/task_model.h"

#include <gtest/gtest.h>

namespace statecheck::model {
namespace {

TaskModelConfig Config(ProcessingGuarantee g, IsolationLevel l) {
  TaskModelConfig c;
  c.guarantee = g;
  c.isolation = l;
  c.wipe_on_unclean_shutdown =
      g == ProcessingGuarantee::kExactlyOnceV2 && l == IsolationLevel::kReadUncommitted;
  c.commit_interval_ms = 1000000;
  return c;
}

// The rule a check's finding cites, or "held".
std::string RuleOf(const CheckResult& r) { return r ? r->rule : "held"; }

RestartObservation Observe(const TaskModel& m, std::map<std::string, StoreState> stores) {
  RestartObservation o;
  o.committed_input = m.committed_input_offset();
  o.committed_output = m.committed_output();
  o.stores = std::move(stores);
  return o;
}

// F6: damage ending before the last record starts has a valid record after it (Corruption);
// damage reaching into the last record is a torn tail; unchanged bytes change nothing. In a closed
// segment, any damage is Corruption.
TEST(TaskModel, LogDamageIsCorruptionOnlyWithAValidRecordAfterIt) {
  EXPECT_EQ(ExpectedLogDamageOutcome(0, 1, 40, true, false), LogDamageOutcome::kCorruption);
  EXPECT_EQ(ExpectedLogDamageOutcome(30, 10, 40, true, false), LogDamageOutcome::kCorruption);
  EXPECT_EQ(ExpectedLogDamageOutcome(30, 11, 40, true, false), LogDamageOutcome::kTornTail);
  EXPECT_EQ(ExpectedLogDamageOutcome(45, 1, 40, true, false), LogDamageOutcome::kTornTail);
  EXPECT_EQ(ExpectedLogDamageOutcome(0, 1, 40, false, false), LogDamageOutcome::kUnchanged);
  EXPECT_EQ(ExpectedLogDamageOutcome(45, 1, 40, true, true), LogDamageOutcome::kCorruption);
  EXPECT_EQ(ExpectedLogDamageOutcome(45, 1, 40, false, true), LogDamageOutcome::kUnchanged);
}

TEST(TaskModel, ProcessesTheKeyValueProcessor) {
  TaskModel m(Config(ProcessingGuarantee::kAtLeastOnce, IsolationLevel::kReadCommitted), 0);
  m.AppendInput("a", "1");
  m.AppendInput("a", std::nullopt);
  EXPECT_EQ(m.Process(10, 0), 2);
  EXPECT_EQ(m.Current("counts"), (StoreState{{"a", "2"}}));
  EXPECT_TRUE(m.Current("kv").empty());
  EXPECT_TRUE(m.QueryView("counts").empty());  // Not committed yet (T4).
  EXPECT_EQ(m.UncommittedBytes(), 2 + 1);      // counts: a=2; kv: a deleted.
  m.Commit(0);
  EXPECT_EQ(m.committed_output(), (std::vector<OutputRecord>{{"a", "1#1"}, {"a", std::nullopt}}));
  EXPECT_EQ(m.committed_input_offset(), 2);
  EXPECT_EQ(m.commits_by_reason()[2], 1);
}

TEST(TaskModel, ExactlyOnceAllowsOnlyTheLastCommit) {
  TaskModel m(Config(ProcessingGuarantee::kExactlyOnceV2, IsolationLevel::kReadCommitted), 0);
  m.AppendInput("a", "1");
  m.Process(1, 0);
  m.Commit(0);
  m.AppendInput("a", "2");
  m.Process(1, 0);
  RestartObservation bad = Observe(m, {{"kv", {{"a", "2"}}}, {"counts", {{"a", "2"}}}});
  EXPECT_EQ(RuleOf(m.Restart(false, bad, 0)), "C3");
  RestartObservation good = Observe(m, {{"kv", {{"a", "1"}}}, {"counts", {{"a", "1"}}}});
  EXPECT_EQ(RuleOf(m.Restart(false, good, 0)), "held");
  EXPECT_EQ(m.next_input_offset(), 1);
}

TEST(TaskModel, ExactlyOnceReadUncommittedMustWipe) {
  TaskModel m(Config(ProcessingGuarantee::kExactlyOnceV2, IsolationLevel::kReadUncommitted), 0);
  RestartObservation o = Observe(m, {});
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "T10");
  o.wiped = {{"kv", true}, {"counts", true}};
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "held");
}

TEST(TaskModel, AtLeastOnceAllowsAPrefixButNoHole) {
  TaskModel m(Config(ProcessingGuarantee::kAtLeastOnce, IsolationLevel::kReadCommitted), 0);
  m.AppendInput("a", "1");
  m.AppendInput("b", "2");
  m.Process(2, 0);
  // Output: only the second record survived: a hole.
  RestartObservation o = Observe(m, {});
  o.committed_output = {{"b", "2#1"}};
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "C4");
  // Store: restored one changelog record, but holds the second write without the first.
  o = Observe(m, {{"kv", {{"b", "2"}}}, {"counts", {}}});
  o.restored = {{"kv", 1}, {"counts", 0}};
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "C4");
  // A prefix everywhere is allowed, and adopted.
  o = Observe(m, {{"kv", {{"a", "1"}}}, {"counts", {{"a", "1"}}}});
  o.committed_output = {{"a", "1#1"}};
  o.restored = {{"kv", 1}, {"counts", 1}};
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "held");
  EXPECT_EQ(m.next_input_offset(), 0);
  EXPECT_EQ(m.Process(2, 0), 2);  // Reprocessed on top of what was restored.
  EXPECT_EQ(m.Current("counts"), (StoreState{{"a", "2"}, {"b", "1"}}));
}

TEST(TaskModel, CommitTriggers) {
  TaskModelConfig c = Config(ProcessingGuarantee::kAtLeastOnce, IsolationLevel::kReadCommitted);
  c.commit_interval_records = 2;
  c.uncommitted_max_bytes = 3;
  TaskModel m(c, 0);
  for (int i = 0; i < 3; ++i) m.AppendInput("k", "v");
  m.Process(3, 0);
  // Record 1 leaves 4 bytes (kv k=v, counts k=1) > 3: a commit before record 2 (reason 1);
  // record 3 too (reason 1); the record interval never reaches 2.
  EXPECT_EQ(m.commits_by_reason()[1], 2);
  EXPECT_EQ(m.commits_by_reason()[0], 0);
  EXPECT_EQ(m.committed_input_offset(), 2);
}

// SPEC U: which restarts wipe, across upgrades and downgrades.
TEST(TaskModel, FormatSwitchesWipeWhereSpecUSays) {
  TaskModelConfig legacy =
      Config(ProcessingGuarantee::kExactlyOnceV2, IsolationLevel::kReadUncommitted);
  legacy.format = StateFormat::kLegacy;
  TaskModelConfig current =
      Config(ProcessingGuarantee::kExactlyOnceV2, IsolationLevel::kReadCommitted);
  TaskModel m(legacy, 0);
  m.AppendInput("a", "1");
  m.Process(1, 0);
  m.Close(0);  // Writes the legacy files.
  const StoreState committed = m.Current("kv");
  auto observe = [&](bool wiped, std::optional<StateFormat> found) {
    RestartObservation o = Observe(m, {{"kv", committed}, {"counts", m.Current("counts")}});
    for (const std::string& store : TaskModel::StoreNames()) {
      o.wiped[store] = wiped;
      o.found_format[store] = found;
      o.restored[store] = wiped ? 1 : 0;
    }
    return o;
  };
  // U1: the upgrade imports the files: no wipe.
  m.SwitchConfig(current);
  EXPECT_EQ(RuleOf(m.Restart(true, observe(true, StateFormat::kLegacy), 0)), "U1");
  EXPECT_EQ(RuleOf(m.Restart(true, observe(false, StateFormat::kLegacy), 0)), "held");
  // The stores are current now: a store found legacy cannot be (U4).
  m.Close(0);
  EXPECT_EQ(RuleOf(m.Restart(true, observe(false, StateFormat::kLegacy), 0)), "U4");
  // U3: the downgrade must wipe.
  m.SwitchConfig(legacy);
  EXPECT_EQ(RuleOf(m.Restart(true, observe(false, StateFormat::kCurrent), 0)), "U3");
  EXPECT_EQ(RuleOf(m.Restart(true, observe(true, StateFormat::kCurrent), 0)), "held");
  // Legacy exactly-once: the start deleted the files, so a crash now wipes; a damaged file
  // (U5) wipes even after a clean close.
  EXPECT_EQ(RuleOf(m.Restart(false, observe(false, StateFormat::kLegacy), 0)), "U4");
  EXPECT_EQ(RuleOf(m.Restart(false, observe(true, StateFormat::kLegacy), 0)), "held");
  m.Close(0);
  m.DamageLegacyFile("kv");
  RestartObservation o = observe(false, StateFormat::kLegacy);
  EXPECT_EQ(RuleOf(m.Restart(true, o, 0)), "U5");
  o.wiped["kv"] = true;
  o.restored["kv"] = 1;
  EXPECT_EQ(RuleOf(m.Restart(true, o, 0)), "held");
  // U2: after an interrupted upgrade each store may be either format, and nothing else.
  m.Close(0);
  m.SwitchConfig(current);
  m.UpgradeInterrupted();
  o = observe(false, StateFormat::kLegacy);
  o.found_format["counts"] = StateFormat::kCurrent;
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "held");
}

// F1, F2: a start that failed part-way may have wiped a store (it is then missing: restored
// from scratch) or restored part of its changelog (committed with its offset); nothing else.
TEST(TaskModel, AFailedStartMayLeaveAStoreMissingOrPartlyRestored) {
  TaskModel m(Config(ProcessingGuarantee::kAtLeastOnce, IsolationLevel::kReadCommitted), 0);
  m.AppendInput("a", "1");
  m.AppendInput("b", "2");
  m.Process(2, 0);
  // Under READ_COMMITTED the store holds none of the two uncommitted writes after a crash: one
  // kept is the aborted task's buffered write (T9) ...
  RestartObservation o = Observe(m, {{"kv", {{"a", "1"}}}, {"counts", {}}});
  o.restored = {{"kv", 0}, {"counts", 0}};
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "T9");
  // ... unless a failed start restored the first one.
  m.StartInterrupted();
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "held");
  // Missing only after a failed start; then restored from scratch: every committed record.
  TaskModel e(Config(ProcessingGuarantee::kExactlyOnceV2, IsolationLevel::kReadCommitted), 0);
  e.AppendInput("a", "1");
  e.Process(1, 0);
  e.Commit(0);
  o = Observe(e, {{"kv", {{"a", "1"}}}, {"counts", {{"a", "1"}}}});
  o.found_format["kv"] = std::nullopt;
  o.restored = {{"kv", 1}, {"counts", 0}};
  EXPECT_EQ(RuleOf(e.Restart(false, o, 0)), "U4");
  e.StartInterrupted();
  EXPECT_EQ(RuleOf(e.Restart(false, o, 0)), "held");
}

// After a failed commit the observed committed input offset tells the outcome the commit had,
// and a restart in neither outcome is credited to that outcome's check.
TEST(TaskModel, AFailedCommitIsJudgedByTheOutcomeItsInputOffsetShows) {
  TaskModel m(Config(ProcessingGuarantee::kExactlyOnceV2, IsolationLevel::kReadCommitted), 0);
  m.AppendInput("a", "1");
  m.Process(1, 0);
  m.CommitFailed();
  // The input offset says it committed, but its output is missing: exactly-once output (C3).
  RestartObservation o = Observe(m, {{"kv", {{"a", "1"}}}, {"counts", {{"a", "1"}}}});
  o.committed_input = 1;
  o.committed_output = {};
  const CheckResult took_effect = m.Restart(false, o, 0);
  ASSERT_TRUE(took_effect.has_value());
  EXPECT_EQ(took_effect->rule, "C3") << took_effect->message;
  // An offset of neither outcome: the "not committed" outcome's check, C1's offset.
  o.committed_input = 7;
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "C1");
  // Both outcomes are allowed, and say which it was.
  o.committed_input = 1;
  o.committed_output = {{"a", "1#1"}};
  EXPECT_EQ(RuleOf(m.Restart(false, o, 0)), "held");
  EXPECT_EQ(m.last_failed_commit(), FailedCommitOutcome::kTookEffect);
}

}  // namespace
}  // namespace statecheck::model
