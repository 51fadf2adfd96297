// ReportMarkdown: summary.md, the report as Markdown for CI job summaries (GitHub's
// $GITHUB_STEP_SUMMARY, GitLab's Markdown artifacts).
//
// Read in a narrow pane: the header is a short list, the rule table has the rule, its verdict and
// numbers only (statements are in report.html and junit.xml), long lists (reached fail points,
// properties) are folded into <details>, which GitHub renders collapsed. Text from the run
// (messages, counterexamples, commands) goes into code spans and fenced blocks whose fences are
// longer than any backtick run inside, so no input can break out of them.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "reports/report_text.h"
#include "reports/run_report.h"

namespace statecheck::reports {
namespace {

using report_text::Fixed;
using report_text::Grouped;

// The longest run of backticks in `s`.
size_t LongestBacktickRun(const std::string& s) {
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// `s` as an inline code span on one line.
std::string Code(const std::string& raw) {
  std::string s = report_text::SanitizeText(raw);
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  if (s.empty()) return "` `";
  const std::string fence(LongestBacktickRun(s) + 1, '`');
  // A space pads a span that starts or ends with a backtick (CommonMark strips one each side).
  const bool pad = s.front() == '`' || s.back() == '`';
  return fence + (pad ? " " : "") + s + (pad ? " " : "") + fence;
}

// `lines` as a fenced code block (with an info string such as "sh").
std::string Block(const std::vector<std::string>& lines, const std::string& info = "") {
  std::string body;
  for (const std::string& l : lines) body += report_text::SanitizeText(l) + "\n";
  const std::string fence(std::max<size_t>(3, LongestBacktickRun(body) + 1), '`');
  return fence + info + "\n" + body + fence + "\n";
}

// Plain text on one line (a list item or a table cell): characters that Markdown would read
// as markup (HTML tags, links, emphasis, table pipes) are backslash-escaped.
std::string Cell(const std::string& raw) {
  std::string out;
  for (char c : report_text::SanitizeText(raw)) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (std::string_view("\\`*_[]<>|").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// A code span in a table cell: GitHub splits cells at a pipe even inside a code span, unless
// it is escaped (the escape is removed before the span is read).
std::string CodeCell(const std::string& raw) {
  std::string out;
  for (char c : Code(raw)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string VerdictMark(const std::string& verdict) {
  if (verdict == "pass") return "✅ pass";
  if (verdict == "fail") return "❌ **fail**";
  if (verdict == "not exercised") return "🟡 not exercised";
  if (verdict == "not run") return "⏭️ not run";
  if (verdict == "tests only") return "🧪 tests only";
  if (verdict == "not checked") return "⚪ not checked";
  return Cell(verdict);
}

// The short column heads for FaultClassNames() (the full names would double the table's width).
std::string FaultColumn(const std::string& name) {
  if (name == "no fault") return "no fault";
  if (name == "process crash") return "crash";
  if (name == "power loss") return "power loss";
  if (name == "I/O error") return "I/O err";
  if (name == "engine fail point") return "engine fp";
  return name;
}

std::string Header(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  const report_text::Totals t = report_text::RunTotals(report);
  const bool failed =
      VerdictsFail(verdicts, report.configuration.require_evidence) || t.failed_properties > 0;

  std::string md =
      std::string("# statecheck conformance report: ") + (failed ? "❌ FAIL" : "✅ PASS") + "\n\n";
  md += "- seed: " + Code(std::to_string(report.seed)) + "\n";
  md += "- commit: " + Code(report.commit) + "\n";
  if (!report.started_at.empty()) md += "- started: " + Cell(report.started_at) + "\n";
  md += "- configuration: " + Cell(report_text::ConfigurationSummary(report.configuration)) + "\n";
  if (!report.merged_shards.empty()) {
    std::string shards;
    for (const std::string& s : report.merged_shards) shards += (shards.empty() ? "" : ", ") + s;
    md += "- merged shards: " + Cell(shards) + "\n";
  }
  md += "- totals: " + Grouped(t.properties) + " properties (" + Grouped(t.failed_properties) +
        " failed), " + Grouped(t.cases) + " cases, " + Grouped(t.operations) + " operations in " +
        Fixed(report.elapsed_seconds, 1) + " s";
  if (t.ops_per_second > 0) {
    md += " (" + Grouped(std::llround(t.ops_per_second)) + " ops/s)";
  }
  md += "\n- command: " + Code(report.command) + "\n\n";

  std::string counts;
  for (const auto& [verdict, n] : report_text::VerdictCounts(verdicts)) {
    if (n == 0) continue;
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + VerdictMark(verdict);
  }
  md += std::to_string(verdicts.size()) + " rules: " + counts + "\n\n";
  if (t.failed_properties > 0) {
    md += "**" + std::to_string(t.failed_properties) + " propert" +
          (t.failed_properties == 1 ? "y" : "ies") + " failed.** See [Findings](#findings).\n\n";
  }
  return md;
}

// The rules whose checks held but whose situations were not all reached, with those situations.
std::string Unexercised(const std::vector<RuleVerdict>& verdicts) {
  std::string md;
  for (const RuleVerdict& v : verdicts) {
    if (v.verdict != "not exercised") continue;
    if (md.empty()) md = "\n### Not exercised\n\n";
    md += "- " + Cell(v.rule->id + " " + v.rule->title) + ": no case reached";
    for (const Situation& s : v.rule->situations) {
      const auto missing = v.MissingSituations();
      if (std::find(missing.begin(), missing.end(), s.name) == missing.end()) continue;
      // Appended piece by piece: " " + std::string&& trips gcc 12's -Wrestrict at -O3 (a false
      // positive, GCC bug 105329).
      md += ' ';
      md += Code(s.name);
      md += " (";
      md += Cell(s.text);
      md += ");";
    }
    md.back() = '\n';
  }
  return md;
}

std::string RuleTable(const std::vector<RuleVerdict>& verdicts) {
  std::string md = "## Rules\n\n| rule | verdict | situations | cases | operations |";
  std::string rule_line = "|---|---|--:|--:|--:|";
  for (const std::string& name : FaultClassNames()) {
    md += " ";
    md += FaultColumn(name);
    md += " |";
    rule_line += "--:|";
  }
  md += "\n";
  md += rule_line;
  md += "\n";
  for (const RuleVerdict& v : verdicts) {
    const bool checked = !v.properties.empty();
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    md += "| ";
    md += Cell(v.rule->id + " " + v.rule->title);
    md += " | ";
    md += VerdictMark(v.verdict);
    md += " | ";
    md += v.evidence.empty() ? "" : v.EvidenceFraction();
    md += " | ";
    md += checked ? Grouped(v.cases) : "";
    md += " | ";
    md += checked ? report_text::Compact(static_cast<double>(v.operations)) : "";
    md += " |";
    for (int64_t n : report_text::FaultClassCounts(v)) {
      md += " ";
      md += checked ? Grouped(n) : "";
      md += " |";
    }
    md += "\n";
  }
  md +=
      "\n*situations*: the situations the rule declares that the cases reached (and ran the "
      "check that depends on them); *cases*: the cases that reached any of them; operations "
      "and fault columns: those of the properties that check the rule.\n";
  return md + Unexercised(verdicts);
}

std::string FailPoints(const RunReport& report) {
  if (report.fail_points.empty()) return "";
  std::string md = "\n## Fail points\n\n" + Cell(FailPointCoverage(report.fail_points)) + ".\n";
  std::vector<const FailPointRow*> reached;
  std::string never;  // Reachable but not reached: what the campaign's coverage is missing.
  for (const FailPointRow& f : report.fail_points) {
    if (f.reached > 0) reached.push_back(&f);
    if (f.reachable && f.reached == 0) never += (never.empty() ? "" : ", ") + Code(f.name);
  }
  if (!never.empty()) md += "\nNever reached: " + never + ".\n";
  if (reached.empty()) return md;
  md += "\n<details><summary>" + std::to_string(reached.size()) +
        " reached fail points</summary>\n\n| fail point | reached | fired |\n|---|--:|--:|\n";
  for (const FailPointRow* f : reached) {
    md += "| " + CodeCell(f->name) + " | " + Grouped(static_cast<int64_t>(f->reached)) + " | " +
          Grouped(static_cast<int64_t>(f->fired)) + " |\n";
  }
  return md + "\n</details>\n";
}

std::string Properties(const RunReport& report) {
  if (report.properties.empty()) return "";
  std::string md = "\n<details><summary>" + std::to_string(report.properties.size()) +
                   " properties</summary>\n\n| property | cases | operations | seconds | verdict "
                   "|\n|---|--:|--:|--:|---|\n";
  for (const PropertyResult& p : report.properties) {
    md += "| " + CodeCell(p.id) + " | " + Grouped(p.cases) + " | " +
          report_text::Compact(static_cast<double>(p.operations)) + " | " + Fixed(p.seconds, 1) +
          " | " +
          VerdictMark(!p.passed           ? "fail"
                      : p.batches.empty() ? "not run"
                                          : "pass") +
          " |\n";
  }
  return md + "\n</details>\n";
}

// The regression corpus the run replayed first: a line, and the traces in a folded table.
std::string Regressions(const RunReport& report) {
  if (!report.regressions) return "";
  const RegressionSection& r = *report.regressions;
  std::string md =
      "\n## Regression corpus\n\n" + std::to_string(r.traces.size()) + " traces from " +
      Code(r.directory) +
      ", one per fixed bug, replayed on the engine and the model before the batches: " +
      (r.Diverged() == 0
           ? std::string("every one replayed.")
           : "**" + std::to_string(r.Diverged()) + " diverged.** See [Findings](#findings).") +
      "\n";
  if (r.traces.empty()) return md;
  md += "\n<details><summary>" + std::to_string(r.traces.size()) +
        " traces</summary>\n\n| trace | family | steps | verdict |\n|---|---|--:|---|\n";
  for (const PropertyResult& p : r.traces) {
    md += "| " + CodeCell(p.id) + " | " + Cell(p.family) + " | " + Grouped(p.operations) + " | " +
          VerdictMark(p.passed ? "pass" : "fail") + " |\n";
  }
  return md + "\n</details>\n";
}

std::string Findings(const RunReport& report) {
  std::string md;
  for (const PropertyResult& p : FailedResults(report)) {
    if (md.empty()) md = "\n## Findings\n";
    md += "\n### " + Code(p.id) + "\n\n";
    if (!p.config.empty()) md += "Configuration: " + Code(p.config) + "\n\n";
    md += (p.failing_rule.empty()
               ? std::string("Unattributed: no check failed (a crash or an unexpected error), so "
                             "every rule of its family fails.")
               : "Credited to " + Cell(p.failing_rule) + ", the rule of the check that failed.") +
          "\n\n";
    md += Block({p.message});
    if (!p.counterexample.empty()) {
      md += "\nShrunk counterexample (" + std::to_string(p.counterexample.size()) + " steps):\n\n" +
            Block(p.counterexample);
    }
    if (!p.trace_path.empty()) md += "\nTrace: " + Code(p.trace_path) + "\n";
    // rapidcheck's reproduce string is in the replay commands when there are any.
    if (p.replay_commands.empty() && !p.reproduce.empty()) {
      md += "\nReproduce: " + Code(p.reproduce) + "\n";
    }
    if (!p.replay_commands.empty()) {
      md += "\nReplay:\n";
      for (const std::string& c : p.replay_commands) {
        md += "\n";
        md += Block({c}, "sh");
      }
    }
  }
  return md;
}

// A selftest's mutation score: a table of the planted bugs, then each one not caught.
std::string MutationScore(const RunReport& report) {
  if (!report.selftest) return "";
  const SelftestSection& t = *report.selftest;
  std::string md =
      "## Mutation score\n\n**" + std::to_string(t.Caught()) + " of " +
      std::to_string(t.bugs.size()) + " planted bugs caught (" + Fixed(t.Score(), 1) + "%)**, " +
      Fixed(t.budget_seconds, 0) + " s budget per bug, " +
      (t.scope == "all" ? "the whole campaign each" : "each checking the rules it breaks") +
      ". Of the caught bugs, " + std::to_string(t.CitingExpected()) + " of " +
      std::to_string(t.Caught()) +
      " were caught by a check of a rule they are expected to break. The rule table below is "
      "the control run, with no bug planted.\n\n";
  md +=
      "| planted bug | expected rules | caught | seconds | steps | by |\n"
      "|---|---|---|---|---|---|\n";
  for (const PlantedBugResult& b : t.bugs) {
    md += "| " + Code(b.name) + " | " + Cell(b.rules) + " | " +
          (b.caught ? "✅ " + Cell(report_text::CaughtBy(b)) : "❌ not caught") + " | " +
          Fixed(b.seconds, 1) + " | " +
          (!b.caught                     ? ""
           : b.counterexample_steps == 0 ? "—"
                                         : std::to_string(b.counterexample_steps)) +
          " | " + (b.property.empty() ? "" : Code(b.property)) + " |\n";
  }
  for (const PlantedBugResult& b : t.bugs) {
    if (b.caught) continue;
    md += "\n### Not caught: " + Code(b.name) + "\n\n" + Cell(b.description) +
          "\n\nModelled on: " + Cell(b.modelled_on) + ". Planted in " + Code(b.file) + ".\n";
  }
  return md + "\n";
}

}  // namespace

std::string ReportMarkdown(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  return Header(report, verdicts) + MutationScore(report) + RuleTable(verdicts) +
         FailPoints(report) + Properties(report) + Regressions(report) + Findings(report);
}

}  // namespace statecheck::reports
