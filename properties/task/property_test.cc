// The task property over the T1 matrix (SPEC C1–C6, T6, T7, T9, T10).
#include "properties/task/property.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "faults/fault_fs.h"
#include "properties/fault_tally.h"
#include "properties/kit/test_support.h"
#include "reports/rule_catalogue.h"
#include "reports/run_report.h"
#include "statecheck/hooks/fail_points.h"
#include "testing/forwarding_processor_context.h"

namespace statecheck::properties::task {

void PrintTo(const Config& config, std::ostream* os) { *os << config.label; }

namespace {

// The rules whose situations the task family declares (T1, T6, T7 and T9 are the kv_store
// family's to declare).
constexpr const char* kTaskRules[] = {"T10", "T11", "C1", "C2", "C3", "C4", "C5", "C6", "U1",
                                      "U2",  "U3",  "U4", "U5", "F1", "F2", "F3", "F4"};
// And the situations it declares of other families' rules.
constexpr const char* kTaskSituationsOfOtherRules[] = {"T8.position_restored_after_wipe"};

class TaskProperty : public ::testing::TestWithParam<Config> {};

TEST_P(TaskProperty, MatchesModel) {
  PropertyParams p = kit::TestParams(20261130, 40, 60, "STATECHECK_TASK_PROPERTY_CASES");
  if (std::getenv("STATECHECK_NO_SHRINK")) p.shrink = false;
  kit::ExpectPassed(CheckMatchesModel(GetParam(), p), p);
}

// Coverage: the power-loss configurations, 60 cases each, make every engine fail point fire and
// reach the file system's sync, append and open points of the log, the SSTs, the MANIFEST and
// the legacy files. (At 40 cases, with the compaction points, some points fired 0 to 3 times
// at this seed; at 60, with the log's segments, the rarest fires 6 times.)
TEST(TaskPropertyCoverage, EveryEngineFailPointFires) {
  ResetEngineFailPointCounts();
  faults::ResetFsFailPointCounts();
  PropertyParams p;
  p.seed = 20261130;
  p.max_success = 60;
  p.max_size = 60;
  for (const Config& config : OptionMatrix()) {
    if (!config.power_loss) continue;
    const PropertyOutcome out = CheckMatchesModel(config, p);
    ASSERT_TRUE(out.passed) << out.property << ": " << out.message;
  }
  for (const FailPointCount& c : EngineFailPointCounts()) {
    EXPECT_GT(c.fired, 0u) << c.name << " never fired (reached " << c.reached << ")";
  }
  std::map<std::string, faults::FailPointCounts> fs;
  for (const auto& [name, c] : faults::FsFailPointCounts()) fs[name] = c;
  for (const char* name :
       {"statecheck/fs/sync/log", "statecheck/fs/append/log", "statecheck/fs/open/log",
        "statecheck/fs/sync/sst", "statecheck/fs/sync/manifest", "statecheck/fs/dir_fsync/log",
        // The legacy format's .checkpoint and .position files (the _formats configurations).
        "statecheck/fs/open/checkpoint", "statecheck/fs/append/checkpoint",
        "statecheck/fs/sync/checkpoint", "statecheck/fs/rename/checkpoint",
        "statecheck/fs/delete/checkpoint", "statecheck/fs/read/checkpoint"}) {
    EXPECT_GT(fs[name].reached, 0u) << name << " never reached";
  }
  EXPECT_GT(fs["statecheck/fs/sync/log"].fired + fs["statecheck/fs/sync/sst"].fired, 0u);
}

// F1–F5 coverage: every fail point the engine can reach fires in the fault sweep — at its first
// reach in a commit, a start and an upgrade, in each configuration — and every firing keeps
// the rules (F1: the injected error, said clearly; then C3/C4, T7, U2 after power loss). The
// points the catalogue calls unreachable are not even reached: if the engine starts using one,
// this fails and the catalogue must say so. STATECHECK_FAULT_SWEEP_CONFIGS=a,b sweeps those
// configurations alone (the sanitizer run takes four between which every reachable point still
// fires: the background flush's needs a store without the WAL, eos_ru_powerloss).
TEST(TaskPropertyCoverage, EveryReachableFailPointFiresAndKeepsTheRules) {
  ResetEngineFailPointCounts();
  faults::ResetFsFailPointCounts();
  std::vector<std::string> points;
  for (const EngineFailPoint& p : EngineFailPoints()) points.emplace_back(p.name);
  const std::vector<faults::FailPointInfo> catalogue = faults::FsFailPointCatalogue();
  for (const faults::FailPointInfo& p : catalogue) points.push_back(p.name);
  std::vector<std::string> configs = FaultSweepConfigs();
  if (const char* chosen = std::getenv("STATECHECK_FAULT_SWEEP_CONFIGS"); chosen && *chosen) {
    configs.clear();
    std::stringstream list(chosen);
    for (std::string name; std::getline(list, name, ',');) configs.push_back(name);
  }
  const FaultSweepOutcome out = RunFaultSweep(points, configs);
  EXPECT_EQ(out.runs, static_cast<int>(configs.size() * points.size()));
  EXPECT_EQ(out.keep_going_steps, out.runs);  // F8, after every point.
  // F6: 2 kinds x 2 places in the log, and 2 kinds x 2 of a store's files; in a format-switching
  // configuration one more, after a legacy commit (a .position file).
  const auto formats = std::count_if(configs.begin(), configs.end(),
                                     [](const std::string& c) { return c.ends_with("_formats"); });
  EXPECT_EQ(out.damage_steps, static_cast<int>(configs.size() * 8 + formats));
  for (const std::string& failure : out.failures) ADD_FAILURE() << failure;
  for (const FailPointCount& c : EngineFailPointCounts()) {
    EXPECT_GT(c.fired, 0u) << c.name << " never fired (reached " << c.reached << ")";
  }
  int reachable = 0;
  for (const auto& [name, c] : faults::FsFailPointCounts()) {
    std::string unreachable_because;
    for (const faults::FailPointInfo& p : catalogue) {
      if (p.name == name) unreachable_because = p.unreachable_because;
    }
    if (unreachable_because.empty()) {
      ++reachable;
      EXPECT_GT(c.fired, 0u) << name << " never fired (reached " << c.reached << ")";
    } else {
      EXPECT_EQ(c.reached, 0u) << name << " is reached, but the catalogue says it cannot be: "
                               << unreachable_because;
    }
  }
  EXPECT_EQ(reachable, 49);  // Of 80; with the 15 engine points, 64 fail points fire.
  uint64_t firings = 0;
  for (const FailPointCount& c : EngineFailPointCounts()) firings += c.fired;
  for (const auto& [name, c] : faults::FsFailPointCounts()) firings += c.fired;
  // Every kind of file with durable data the engine reads back is damaged: log partitions,
  // table files, MANIFESTs and (in the legacy format) the .checkpoint and .position files.
  const std::map<std::string, uint64_t> damaged = faults::DurableDamageCounts();
  std::string kinds;
  for (const auto& [kind, n] : damaged)
    kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(n);
  if (configs == FaultSweepConfigs()) {  // A chosen few may hold no legacy or current one.
    for (const char* kind : {"log", "sst", "manifest", "checkpoint", "position"}) {
      EXPECT_GT(damaged.count(kind), 0u)
          << "no " << kind << " file damaged (damaged: " << kinds << ")";
    }
  }
  // The figures a note quotes (ctest -V shows them).
  std::printf(
      "fault sweep: %d scenarios (%zu configurations x %zu points), %llu firings, %d "
      "keep-going commits, %d damage steps (files damaged by kind: %s); every step checked "
      "against the model\n",
      out.runs, configs.size(), points.size(), static_cast<unsigned long long>(firings),
      out.keep_going_steps, out.damage_steps, kinds.c_str());
}

// F5: one seed drives the operations and the fault schedule. The same run twice does the same
// operations; a failure found with power loss and faults re-runs from its reproduce string with
// the same message.
TEST(TaskPropertyReproducibility, ASeedReplaysOperationsFaultsAndFailures) {
  Config config;
  for (const Config& c : OptionMatrix()) {
    if (c.label == "alos_ru_powerloss") config = c;  // WAL, READ_UNCOMMITTED.
  }
  ASSERT_TRUE(config.power_loss);
  PropertyParams p;
  p.seed = 77;
  p.max_success = 15;
  p.max_size = 60;
  const PropertyOutcome first = CheckMatchesModel(config, p);
  const PropertyOutcome second = CheckMatchesModel(config, p);
  ASSERT_TRUE(first.passed) << first.message;
  EXPECT_EQ(first.operations, second.operations);
  EXPECT_EQ(first.cases, second.cases);

  // A processor that counts a deleted key's records twice: the model disagrees after a while.
  class DoubleCountingDeletes : public Processor {
   public:
    std::vector<std::string> StoreNames() const override { return inner_->StoreNames(); }
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      if (!record.value) STATECHECK_RETURN_IF_ERROR(inner_->Process(record, context));
      return inner_->Process(record, context);
    }

   private:
    std::unique_ptr<Processor> inner_ = NewKeyValueProcessor();
  };
  config.processor = [] { return std::make_unique<DoubleCountingDeletes>(); };
  p.max_success = 100;
  p.trace_dir = (std::filesystem::temp_directory_path() /
                 ("statecheck-task-trace-" + std::to_string(::getpid())))
                    .string();
  const PropertyOutcome failed = CheckMatchesModel(config, p);
  ASSERT_FALSE(failed.passed);
  ASSERT_FALSE(failed.reproduce.empty());
  EXPECT_LE(failed.counterexample.size(), 3u + 4u)
      << ::testing::PrintToString(failed.counterexample);
  PropertyParams again = p;
  again.reproduce = failed.reproduce;
  const PropertyOutcome replayed = CheckMatchesModel(config, again);
  EXPECT_FALSE(replayed.passed);
  EXPECT_EQ(replayed.message, failed.message);

  // And from the saved trace (statecheck replay): the same step fails with the same message.
  ASSERT_FALSE(failed.trace_path.empty());
  kit::Trace<Vocabulary> trace;
  std::string text;
  ASSERT_TRUE(kit::ReadTextFile(failed.trace_path, &text).ok());
  ASSERT_TRUE(kit::ParseTrace(text, failed.trace_path, &trace).ok());
  EXPECT_EQ(trace.config.label, config.label);
  TraceReplay replay;
  ASSERT_TRUE(Replay(trace, &replay, config.processor).ok());
  EXPECT_TRUE(replay.diverged);
  EXPECT_EQ(replay.message, failed.message);
  replay = TraceReplay();
  ASSERT_TRUE(Replay(trace, &replay).ok());  // The real processor passes it.
  EXPECT_FALSE(replay.diverged) << replay.message;
  std::filesystem::remove_all(p.trace_dir);
}

// Evidence: a few cases of each configuration of the matrix — about what a short campaign
// gives the family — count every situation the task family's rules declare, and count no name
// the catalogue does not declare.
TEST(TaskPropertyEvidence, EverySituationOfTheFamilysRulesIsCounted) {
  PropertyParams p = kit::TestParams(42, 5, 80, "STATECHECK_TASK_EVIDENCE_CASES");
  // The first N configurations only (what a campaign on a busy machine may get to).
  size_t configs = OptionMatrix().size();
  if (const char* n = std::getenv("STATECHECK_TASK_EVIDENCE_CONFIGS")) configs = std::atoi(n);
  Evidence evidence;
  for (const Config& config : OptionMatrix()) {
    if (configs-- == 0) break;
    p.seed = p.seed * 6364136223846793005ULL + 1442695040888963407ULL;
    const PropertyOutcome out = CheckMatchesModel(config, p);
    ASSERT_TRUE(out.passed) << out.property << ": " << out.message;
    evidence += out.evidence;
  }
  const reports::RuleCatalogue& catalogue = reports::RuleCatalogue::Builtin();
  for (const auto& [name, cases] : evidence.situations) {
    EXPECT_NE(catalogue.FindSituation(name), nullptr) << name << " is not in the catalogue";
    if (std::getenv("STATECHECK_PRINT_EVIDENCE")) std::cout << name << " " << cases << "\n";
  }
  for (const char* rule : kTaskRules) {
    const reports::Rule* r = catalogue.Find(rule);
    ASSERT_NE(r, nullptr) << rule;
    EXPECT_GE(r->situations.size(), reports::kMinSituations) << rule;
    for (const reports::Situation& s : r->situations) {
      EXPECT_GT(evidence.situations[s.name], 0) << s.name << " (" << s.text << ") never counted";
    }
  }
  for (const char* name : kTaskSituationsOfOtherRules) {
    EXPECT_NE(catalogue.FindSituation(name), nullptr) << name;
    EXPECT_GT(evidence.situations[name], 0) << name << " never counted";
  }
}

// The generator knob: with Config::crashes off no step crashes or loses power, so no
// situation that needs a crash is counted, while those of clean runs still are.
// The task family's situations that only a crash (or power loss, or a fault that ends in one)
// can reach.
bool NeedsCrash(const std::string& name) {
  const std::string rule = name.substr(0, name.find('.'));
  // A failed read is survived without a restart (F8): the one F situation a clean run reaches.
  if (name == "F8.read_error_fails_the_read_only") return false;
  return rule == "C3" || rule == "C4" || rule == "C6" || rule == "U2" || rule[0] == 'F' ||
         name == "C1.failed_commit_all_or_none" || name == "C1.restart_resumes_at_commit" ||
         name == "C1.crash_loses_unwritten_batch" ||
         // After a clean close a store's stored offset is its changelog's end, and only a crash
         // leaves an aborted transaction behind.
         name == "C2.restore_from_stored_offset" || name == "C2.skips_aborted" ||
         name == "T10.eos_ru_crash_wiped" || name == "T10.eos_rc_crash_kept" ||
         name == "T8.position_restored_after_wipe" || name == "T10.alos_crash_kept" ||
         name == "U1.upgrade_after_crash" || name == "U3.after_crash" ||
         name == "U4.crash_in_legacy" || name == "U4.legacy_eos_crash_wipes" ||
         // A faultyClose (generated with crashes only) restarts a store as after a crash.
         name == "L1.lost_marker_wiped_once" || name == "L1.lost_marker_restored_once";
}

// The in-memory configurations of the matrix (the fast ones), `cases` each, each from its own
// seed, with or without crashes: their outcomes and seeds.
std::vector<std::pair<PropertyOutcome, uint64_t>> RunInMemory(bool crashes, int cases) {
  PropertyParams p = kit::TestParams(42, cases, 80);
  std::vector<std::pair<PropertyOutcome, uint64_t>> out;
  for (Config config : OptionMatrix()) {
    if (!config.power_loss) continue;
    config.crashes = crashes;
    p.seed = p.seed * 6364136223846793005ULL + 1442695040888963407ULL;
    out.emplace_back(CheckMatchesModel(config, p), p.seed);
    EXPECT_TRUE(out.back().first.passed)
        << out.back().first.property << ": " << out.back().first.message;
  }
  return out;
}

reports::RunReport RunInMemoryConfigurations(bool crashes, int cases) {
  reports::RunReport report;
  for (const auto& [out, seed] : RunInMemory(crashes, cases)) {
    reports::PropertyResult r;
    r.id = out.property;
    r.family = "task";
    r.passed = out.passed;
    r.failing_rule = out.rule;
    r.cases = out.cases;
    r.evidence = out.evidence.situations;
    r.rule_cases = out.evidence.rule_cases;
    r.batches.push_back({0, seed, out.cases, out.operations, 0, out.passed});
    report.properties.push_back(std::move(r));
  }
  return report;
}

// The evidence is not a constant: with crashes taken out of the generator, exactly the rules
// that declare a situation only a crash reaches turn "not exercised" (and are named so), while
// the rules whose situations all happen without one keep their pass.
TEST(TaskPropertyEvidence, WithoutCrashesExactlyTheRulesThatNeedOneAreNotExercised) {
  std::vector<const reports::Rule*> rules;
  for (const reports::Rule& rule : reports::RuleCatalogue::Builtin().rules()) {
    // The rules the task family alone checks (T1, T6, T7 and T9 are the kv families' too).
    if (rule.property_families == std::vector<std::string>{"task"}) rules.push_back(&rule);
  }
  ASSERT_GE(rules.size(), 10u);
  const auto with = reports::RuleVerdicts(rules, RunInMemoryConfigurations(true, 8));
  const auto without = reports::RuleVerdicts(rules, RunInMemoryConfigurations(false, 8));
  int turned = 0, kept = 0;
  for (size_t i = 0; i < rules.size(); ++i) {
    const reports::Rule& rule = *rules[i];
    bool needs = false;
    for (const reports::Situation& s : rule.situations) needs = needs || NeedsCrash(s.name);
    if (with[i].verdict != "pass") continue;  // Not reached in this short run either way.
    if (needs) {
      EXPECT_EQ(without[i].verdict, "not exercised") << rule.id;
      for (const std::string& missing : without[i].MissingSituations()) {
        EXPECT_TRUE(NeedsCrash(missing)) << rule.id << ": " << missing << " went missing";
      }
      ++turned;
    } else {
      std::string missing;
      for (const std::string& m : without[i].MissingSituations()) missing += " " + m;
      EXPECT_EQ(without[i].verdict, "pass") << rule.id << " needs no crash; missing:" << missing;
      ++kept;
    }
  }
  EXPECT_GE(turned, 5) << "too few crash rules passed with crashes to show anything";
  EXPECT_GE(kept, 1) << "no rule without crash situations passed";
}

TEST(TaskPropertyEvidence, WithoutCrashesOnlyTheCleanSituationsAreCounted) {
  Evidence evidence;
  const FaultTally before = CurrentFaultTally();
  for (const auto& [out, seed] : RunInMemory(/*crashes=*/false, 8)) evidence += out.evidence;
  EXPECT_EQ(CurrentFaultTally().crashes, before.crashes);
  if (std::getenv("STATECHECK_PRINT_EVIDENCE")) {
    for (const auto& [name, cases] : evidence.situations) std::cout << name << " " << cases << "\n";
  }
  for (const auto& [name, cases] : evidence.situations) {
    EXPECT_FALSE(NeedsCrash(name)) << name << " counted in " << cases << " cases without a crash";
  }
  for (const char* name :
       {"C1.commit_with_output", "C1.eos_open_txn_invisible", "C2.clean_restart_restores_nothing",
        "C5.explicit_commit", "C5.close_commit", "C5.records_interval_commit",
        "T10.eos_ru_clean_kept", "T11.direct_writes_unbuffered", "T11.commit_empties_buffer",
        "U1.deletes_legacy_files", "U1.imports_checkpoint", "U3.after_clean_close", "U4.round_trip",
        "U5.damaged_position"}) {
    EXPECT_GT(evidence.situations[name], 0) << name << " not counted without crashes";
  }
}

// A failing check is credited to the rule it enforces: a processor that forwards every output
// record twice breaks exactly-once output (C3) under exactly_once_v2 and the prefix rule of
// at-least-once output (C4) under at_least_once — never the family as a whole.
TEST(TaskPropertyAttribution, DuplicatedOutputIsC3OrC4ByTheGuarantee) {
  class ForwardsTwice : public Processor {
   public:
    class Twice : public testing::ForwardingContext {
     public:
      using ForwardingContext::ForwardingContext;
      Status Forward(std::string_view key, std::optional<std::string_view> value,
                     int64_t timestamp) override {
        STATECHECK_RETURN_IF_ERROR(inner_->Forward(key, value, timestamp));
        return inner_->Forward(key, value, timestamp);
      }
    };
    std::vector<std::string> StoreNames() const override { return inner_->StoreNames(); }
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      Twice twice(context);
      return inner_->Process(record, &twice);
    }

   private:
    std::unique_ptr<Processor> inner_ = NewKeyValueProcessor();
  };
  PropertyParams p;
  p.seed = 5;
  p.max_success = 30;
  p.max_size = 40;
  for (const char* label : {"eos_rc_powerloss", "alos_ru_powerloss"}) {
    Config config;
    for (const Config& c : OptionMatrix()) {
      if (c.label == label) config = c;
    }
    config.processor = [] { return std::make_unique<ForwardsTwice>(); };
    const PropertyOutcome out = CheckMatchesModel(config, p);
    ASSERT_FALSE(out.passed) << label;
    const std::string rule = std::string(label).starts_with("eos") ? "C3" : "C4";
    EXPECT_EQ(out.rule, rule) << label << ": " << out.message;
    EXPECT_EQ(out.message.rfind(rule + ": ", 0), 0u) << out.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, TaskProperty, ::testing::ValuesIn(OptionMatrix()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace statecheck::properties::task
