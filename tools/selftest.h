// `statecheck selftest`: who tests the tester. For each bug of the planted-bug catalogue
// (statecheck/hooks/planted_bugs.h; the planted build only) it activates the bug, runs the campaign
// (tools/campaign.h) for a time budget until its first finding, and records whether the bug was
// caught, how long that took, what caught it and how short the shrunk counterexample is. A
// control run with no bug active goes first: a harness that fails the correct engine would
// "catch" everything, so its findings void the score.
//
// The report (reports/run_report.h) is the control run's, with the mutation-score section
// (RunReport::selftest); each bug's campaign writes its own report under bugs/<name>/, with the
// counterexamples its replay commands (which set STATECHECK_PLANTED_BUG) replay.
#ifndef STATECHECK_TOOLS_SELFTEST_H_
#define STATECHECK_TOOLS_SELFTEST_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reports/run_report.h"
#include "statecheck/status.h"

namespace statecheck::tools {

struct SelftestOptions {
  double budget_seconds = 60;     // Each planted bug's campaign.
  double control_seconds = -1;    // The control run (< 0: the same as one bug's budget).
  std::optional<uint64_t> seed;   // Unset: a new one, printed. Every campaign uses it.
  std::vector<std::string> bugs;  // Planted bugs by name; empty: the whole catalogue.
  std::string select;             // Only the bugs tied to these rules ("E", "W3,T4"); "": all.
  // false: each bug's campaign checks the rules the bug is tied to (run --select <its rules>),
  // so it gets the time a nightly spends on those rules; true: the whole campaign.
  bool whole_campaign = false;
  double min_score = 95;  // The score (percent) below which the selftest fails.
  // Each campaign's hang bound (CampaignOptions::hang_seconds): shorter than a run's default, so
  // that a planted hang (L1) is caught well inside a bug's budget. The planted build's batches
  // take under 2 s.
  double hang_seconds = 10;
  std::string report_dir;  // Empty: statecheck-reports/selftest-<time>-seed<seed>.
  std::string command;
  std::string commit = "unknown";
  std::string executable = "statecheck";
  std::ostream* out = nullptr;       // One line per bug and the summary (null: none).
  std::ostream* progress = nullptr;  // Each campaign's progress bar (null: none).
  bool progress_is_tty = false;
};

struct SelftestResult {
  reports::RunReport report;  // The control run, with report.selftest.
  std::vector<reports::RuleVerdict> verdicts;
  std::string report_dir;
  bool control_passed = false;
  bool passed = false;  // The control run passed and the score reached min_score.
};

// InvalidArgument naming the problem: a build without planted bugs, an unknown bug, a selection
// that leaves none, a bad budget. A bug that is not caught is not an error: see the result.
Status RunSelftest(const SelftestOptions& options, SelftestResult* result);

// `selftest --list`: the catalogue, one bug per paragraph.
void PrintCatalogue(std::ostream& out);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_SELFTEST_H_
