// The report of one `statecheck run`: what ran, with which seed, and each rule's verdict.
//
// A first version: JSON (report.json, "statecheck_report": 1) and a Markdown summary
// (summary.md). Rules get their verdict from the properties of their families
// (Rule::property_families): "fail" if any of them failed, "pass" if all that ran passed,
// "not run" if none ran (not selected, or no time left), "tests only" if the rule is checked by
// the test suite but no campaign property (W10's cost bound), "not checked" if nothing checks
// it yet.
#ifndef STATECHECK_REPORTS_RUN_REPORT_H_
#define STATECHECK_REPORTS_RUN_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "reports/rule_catalogue.h"
#include "statecheck/status.h"

namespace statecheck::reports {

struct PropertyResult {
  std::string id;
  std::string family;
  bool passed = true;
  int64_t cases = 0;
  int64_t operations = 0;
  double seconds = 0;
  std::string message;     // Failure description.
  std::string trace_path;  // The shrunk counterexample's trace.
  std::string reproduce;   // rapidcheck's reproduce string.
  std::vector<std::string> counterexample;
};

// One fail point's coverage in a run: how often the code reached it and how often it fired.
struct FailPointRow {
  std::string name;  // "statecheck/fs/sync/wal", "statecheck/task/commit/after_log", ...
  uint64_t reached = 0;
  uint64_t fired = 0;
  bool reachable = true;  // False: the engine never performs the operation (list faults: why).
};

// "F of R reachable fail points fired (N more are unreachable by construction)".
std::string FailPointCoverage(const std::vector<FailPointRow>& rows);

struct RunReport {
  uint64_t seed = 0;
  double budget_seconds = 0;
  double elapsed_seconds = 0;
  std::string started_at;  // ISO 8601, UTC.
  std::string commit;      // The build's git commit.
  std::string command;     // The command line that ran.
  std::vector<PropertyResult> properties;
  std::vector<FailPointRow> fail_points;  // The whole catalogue, in its order.
};

struct RuleVerdict {
  const Rule* rule = nullptr;
  std::string verdict;  // "pass", "fail", "not run", "tests only", "not checked"
  int64_t cases = 0;
  int64_t operations = 0;
  std::vector<std::string> failing_properties;
};

std::vector<RuleVerdict> RuleVerdicts(const std::vector<const Rule*>& rules,
                                      const RunReport& report);

std::string ReportJson(const RunReport& report, const std::vector<RuleVerdict>& verdicts);
std::string ReportMarkdown(const RunReport& report, const std::vector<RuleVerdict>& verdicts);

// Writes report.json and summary.md into `dir` (created if missing).
Status WriteReport(const std::string& dir, const RunReport& report,
                   const std::vector<RuleVerdict>& verdicts);

}  // namespace statecheck::reports

#endif  // STATECHECK_REPORTS_RUN_REPORT_H_
