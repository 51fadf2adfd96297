// The report of one `statecheck run` (or of several shards merged): what ran, with which seed,
// configuration and commit, and each SPEC rule's verdict with what it was checked under.
//
// The model: a run is a list of property results (one per property of the option matrix that
// ran: its batches, cases, operations, time, the faults its cases went through, and for a
// failure the shrunk counterexample and the commands that replay it), the fail-point coverage of
// the whole run, and samples of its progress. Rule verdicts are derived from it
// (RuleVerdicts): a rule is checked by the properties of its families
// (Rule::property_families), and every verdict is earned by the rule's own checks:
//   "fail"          a property's failing check enforces this rule (PropertyResult::failing_rule,
//                   in whatever family the property is), or a property of its families failed
//                   with no check to credit (a crash, an unexpected exception: "unattributed");
//   "pass"          its properties ran, none of its checks failed, and their cases reached every
//                   situation the rule declares (Rule::situations; properties/evidence.h);
//   "not exercised" its properties ran and held, but some situation was never reached (named in
//                   RuleVerdict::evidence with a count of 0): a short run is no pass;
//   "not run"       none of its properties ran (not selected, not in this shard, no time left);
//   "tests only"    the test suite checks it but no campaign property does (W10's cost bound);
//   "not checked"   nothing does.
//
// Writers (WriteReport writes all four into a directory):
//   report.json   the model, versioned ("statecheck_report": 3; docs/report-schema.json);
//                 ReadReportJson reads it back (report merge).
//   junit.xml     one test case per rule (CI systems show rules as tests): a failure for "fail"
//                 (and for "not exercised" under --require-evidence), skipped for "not
//                 exercised" (naming the situations never reached), "not run", "not checked" and
//                 "tests only".
//   summary.md    a Markdown summary for CI job summaries.
//   report.html   one self-contained page (no network): the rule × fault-class matrix,
//                 operations per second over the run, fail-point coverage, findings with their
//                 replay commands.
#ifndef STATECHECK_REPORTS_RUN_REPORT_H_
#define STATECHECK_REPORTS_RUN_REPORT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/rule_catalogue.h"
#include "statecheck/status.h"

namespace statecheck::reports {

inline constexpr int kReportVersion = 3;

// What a property's cases went through, by fault class (the columns of the rule × fault-class
// matrix; FaultClassNames gives them in order).
struct FaultCounts {
  int64_t crashes = 0;        // Process crashes: a store or task abandoned and opened again.
  int64_t power_losses = 0;   // Crashes that also lost what was not synced (the fault fs).
  int64_t io_errors = 0;      // File-system fail points that fired (an injected I/O error).
  int64_t engine_faults = 0;  // Engine fail points (statecheck/...) that fired.
  FaultCounts& operator+=(const FaultCounts& o);
  friend bool operator==(const FaultCounts&, const FaultCounts&) = default;
};
// "no fault", "process crash", "power loss", "I/O error", "engine fail point": the first counts
// the cases that ran with none of the others.
const std::vector<std::string>& FaultClassNames();

// One fail point's coverage: how often the code reached it and how often it fired.
struct FailPointRow {
  std::string name;  // "statecheck/fs/sync/wal", "statecheck/task/commit/after_log", ...
  uint64_t reached = 0;
  uint64_t fired = 0;
  bool reachable = true;  // False: the engine never performs the operation (list faults: why).
};

// One batch of a property: a rapidcheck run of `cases` cases from `seed`. Its number and seed
// derive from the run's seed and the property alone, so shards and reruns agree on them.
struct BatchResult {
  uint64_t number = 0;
  uint64_t seed = 0;
  int64_t cases = 0;
  int64_t operations = 0;
  double seconds = 0;
  bool passed = true;
  friend bool operator==(const BatchResult&, const BatchResult&) = default;
};

struct PropertyResult {
  std::string id;      // "task/MatchesModel/eos_rc_powerloss"
  std::string family;  // "task"
  std::string config;  // Its row of the option matrix, in words (PropertySpec::config).
  bool passed = true;
  int64_t cases = 0;       // Cases run to the end, over all batches.
  int64_t operations = 0;  // Operations executed, shrinking included.
  double seconds = 0;
  int64_t no_fault_cases = 0;  // Cases whose batch injected nothing (FaultCounts all 0).
  FaultCounts faults;
  std::vector<BatchResult> batches;
  // A failure: what the check said, the shrunk counterexample (one operation per line), its
  // trace file, rapidcheck's reproduce string, and the commands that replay it.
  std::string message;
  std::string trace_path;
  std::string reproduce;
  std::vector<std::string> counterexample;
  std::vector<std::string> replay_commands;  // Shell commands, each reproducing the failure.
  // The rule the failing check enforces (the finding's, model/finding.h); "" for a failure no
  // check made (a crash, an unexpected exception): it is then unattributed, and fails every rule
  // of the property's family.
  std::string failing_rule;
  // What its cases reached and checked: situation ("W3.at_boundary") -> cases, and rule ("W3")
  // -> cases that reached any of its situations (properties/evidence.h).
  std::map<std::string, int64_t> evidence;
  std::map<std::string, int64_t> rule_cases;
};

// The run's progress, sampled about once a second: totals since it started.
struct ProgressSample {
  double seconds = 0;
  int64_t cases = 0;
  int64_t operations = 0;
  int64_t findings = 0;
};

// How the run was asked for.
struct RunConfiguration {
  double budget_seconds = 0;          // 0 when batches_per_property is set.
  int64_t batches_per_property = 0;   // > 0: exactly this many batches of each property.
  std::string select;                 // Rules: "" (all), a family ("W") or ids ("W1,T4").
  std::vector<std::string> families;  // Property families asked for ("" = all).
  int cases_per_batch = 0;
  int max_size = 0;
  int shard_index = 0;  // This run covers the batches of shard shard_index of shard_count.
  int shard_count = 1;
  // --require-evidence: a rule "not exercised" fails the run (and its junit test case).
  bool require_evidence = false;
  int jobs = 1;             // Worker processes that ran the batches (--jobs).
  int workers_started = 0;  // Worker processes forked, replacements of dead ones included.
};

// `statecheck selftest`: how one planted bug (statecheck/hooks/planted_bugs.h) fared in its
// campaign.
struct PlantedBugResult {
  std::string name;         // "window_store/drop_rule_off_by_one"
  std::string rules;        // The rules it breaks, "W3,W6".
  std::string description;  // What the planted engine does wrong.
  std::string modelled_on;  // The real bug it is modelled on.
  std::string file;         // Where it is planted.
  bool caught = false;
  // Until the campaign stopped at its first finding, shrinking included (or the whole budget).
  double seconds = 0;
  int64_t cases = 0;
  int64_t operations = 0;
  std::string property;                    // The property that caught it ("" if none).
  std::vector<std::string> failing_rules;  // Rules with a "fail" verdict in its campaign.
  int64_t counterexample_steps = 0;        // The shrunk counterexample's length.
  std::string message;                     // What the check said.
  std::vector<std::string> replay_commands;
  std::string report_dir;  // Its campaign's own report.
  // The rules the failing checks enforce (their findings' rules, PropertyResult::failing_rule):
  // what the bug was caught by. Empty when not caught, or caught by no check (unattributed).
  std::vector<std::string> cited_rules;
  // The trace the property that caught it saved ("" if it saves none); not in the report, whose
  // replay_commands name it.
  std::string trace_path;

  // The rules it is expected to break (`rules`, "W3,W6"), one id each.
  std::vector<std::string> ExpectedRules() const;
  // Whether a cited rule is one of the expected ones.
  bool CitesExpectedRule() const;
};

// The mutation-score section of a selftest's report.
struct SelftestSection {
  double budget_seconds = 0;  // Per planted bug.
  // "rules": each bug's campaign checks the rules it is tied to (statecheck run --select); "all":
  // the whole campaign.
  std::string scope;
  std::vector<PlantedBugResult> bugs;
  int64_t Caught() const;
  double Score() const;            // Caught / planted, in percent (0 when none ran).
  int64_t CitingExpected() const;  // Bugs whose cited rules include an expected one.
};

// The regression corpus a run replayed before its batches (regressions/: one trace per fixed
// bug, docs/traces.md): each trace as a PropertyResult — id "regressions/<file name>", the
// family of its kind, one case, the steps that passed as its operations, and on a divergence
// the message, the rule its check cites ("" for none: the family's rules fail unattributed),
// the trace's path and the command that replays it.
struct RegressionSection {
  std::string directory;
  std::vector<PropertyResult> traces;
  int64_t Diverged() const;
};

struct RunReport {
  uint64_t seed = 0;
  RunConfiguration configuration;
  double elapsed_seconds = 0;
  std::string started_at;                  // ISO 8601, UTC.
  std::string commit;                      // The build's git commit.
  std::string command;                     // The command line that ran (with the seed).
  std::vector<PropertyResult> properties;  // The option matrix's properties, in registry order.
  std::vector<FailPointRow> fail_points;   // The whole catalogue, in its order.
  std::vector<ProgressSample> progress;
  // A merged report: the shards it combines ("<index>/<count>"); empty for a single run.
  std::vector<std::string> merged_shards;
  // A selftest's report: the control run (no bug active) is the rest of the report.
  std::optional<SelftestSection> selftest;
  // Absent when the run replayed no corpus (none given, another shard, a reproduction).
  std::optional<RegressionSection> regressions;
};

struct RuleVerdict {
  const Rule* rule = nullptr;
  // "pass", "fail", "not exercised", "not run", "tests only", "not checked" (see above).
  std::string verdict;
  // Each situation the rule declares, in catalogue order, with the cases that reached it (and ran
  // the check that depends on it) over every property of the run.
  std::vector<std::pair<std::string, int64_t>> evidence;
  // Cases that reached any of its situations (not every case its properties ran).
  int64_t cases = 0;
  int64_t operations = 0;
  double seconds = 0;
  int64_t no_fault_cases = 0;
  FaultCounts faults;
  std::vector<std::string> properties;  // Of its families, that ran in this run.
  // Properties whose failing check enforces it (any family), or of its families that failed
  // unattributed.
  std::vector<std::string> failing_properties;
  bool unattributed = false;  // Some failing property had no check to credit.

  // The declared situations no case reached ("not exercised" names them).
  std::vector<std::string> MissingSituations() const;
  // Situations reached, of those declared: "3/4".
  std::string EvidenceFraction() const;
};

// The failed properties, then the diverged regression traces: the run's findings, in order.
std::vector<PropertyResult> FailedResults(const RunReport& report);

// Whether the verdicts fail a run: any "fail", and with require_evidence any "not exercised".
bool VerdictsFail(const std::vector<RuleVerdict>& verdicts, bool require_evidence);

std::vector<RuleVerdict> RuleVerdicts(const std::vector<const Rule*>& rules,
                                      const RunReport& report);

// "F of R reachable fail points fired (N reached; M more are unreachable by construction)".
std::string FailPointCoverage(const std::vector<FailPointRow>& rows);

std::string ReportJson(const RunReport& report, const std::vector<RuleVerdict>& verdicts);
// Reads a report.json back (the rules are derived again from the catalogue). InvalidArgument
// naming the field for a malformed one or another version.
Status ReadReportJson(const std::string& text, RunReport* report);
std::string ReportJUnit(const RunReport& report, const std::vector<RuleVerdict>& verdicts);
std::string ReportMarkdown(const RunReport& report, const std::vector<RuleVerdict>& verdicts);
std::string ReportHtml(const RunReport& report, const std::vector<RuleVerdict>& verdicts);

// Writes report.json, junit.xml, summary.md and report.html into `dir` (created if missing).
Status WriteReport(const std::string& dir, const RunReport& report,
                   const std::vector<RuleVerdict>& verdicts);

// Combines shard reports of one campaign (the same seed, commit and configuration but for the
// shard) into one: each property's batches, cases, operations, time and faults summed, a failure
// kept, fail-point counts summed, progress added up second by second. InvalidArgument naming
// the difference when the reports are not shards of one campaign, or a shard is missing or
// repeated.
Status MergeReports(const std::vector<RunReport>& shards, RunReport* merged);

}  // namespace statecheck::reports

#endif  // STATECHECK_REPORTS_RUN_REPORT_H_
