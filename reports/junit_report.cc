// ReportJUnit: junit.xml, the report as JUnit XML so that CI systems (Jenkins, GitLab, GitHub
// test reporters) show each SPEC rule as a test.
//
// Shape: one <testsuites name="statecheck">; one <testsuite name="statecheck.<family>"> per SPEC
// rule family (W, T, C, U, E, F, L), in catalogue order, each with the run's <properties> (a CI
// system shows a suite's properties next to its tests, and a suite may be looked at alone); one
// <testcase name="<id> <title>" classname="statecheck.<family>"> per rule, so a rule is found by
// its id in any test-report view. "fail" gives a <failure> whose body lists each failing
// property with its message, counterexample and replay commands; "not exercised" gives
// <skipped message="..."> naming the situations never reached, or a <failure> when the run
// required evidence (--require-evidence); "not run", "tests only" and "not checked" give
// <skipped message="...">. Every testcase has a <system-out> with what checked it: its figures,
// each declared situation with the cases that reached it, its properties and tests.
//
// The output is valid against reports/schemas/junit.xsd (the Jenkins xUnit plugin's JUnit
// schema); report_writers_test validates it with xmllint.
#include <algorithm>
#include <string>
#include <vector>

#include "reports/report_text.h"
#include "reports/run_report.h"

namespace statecheck::reports {
namespace {

using report_text::Fixed;
using report_text::Grouped;
using report_text::XmlAttr;
using report_text::XmlText;

// A JUnit time: seconds with three decimals, never negative (the schema's pattern has no sign).
std::string Seconds(double s) { return Fixed(s > 0 ? s : 0, 3); }

std::string Property(const std::string& name, const std::string& value) {
  return "      <property name=\"" + XmlAttr(name) + "\" value=\"" + XmlAttr(value) + "\"/>\n";
}

std::string RunProperties(const RunReport& report, const std::string& family) {
  const RunConfiguration& c = report.configuration;
  std::string out = "    <properties>\n";
  out += Property("family", family + " \xE2\x80\x94 " + report_text::FamilyTitle(family));
  out += Property("seed", std::to_string(report.seed));
  out += Property("commit", report.commit);
  out += Property("command", report.command);
  out += Property("started_at", report.started_at);
  out += Property("configuration", report_text::ConfigurationSummary(c));
  out += Property("shard", std::to_string(c.shard_index) + "/" + std::to_string(c.shard_count));
  if (!report.merged_shards.empty()) {
    std::string shards;
    for (const std::string& s : report.merged_shards) shards += (shards.empty() ? "" : ",") + s;
    out += Property("merged_shards", shards);
  }
  out += Property("require_evidence", c.require_evidence ? "true" : "false");
  out += Property("report_version", std::to_string(kReportVersion));
  return out + "    </properties>\n";
}

// "W3.at_boundary, W3.just_above": the situations no case reached.
std::string MissingText(const RuleVerdict& v) {
  std::string out;
  for (const std::string& s : v.MissingSituations()) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Why a rule that is not "pass" or "fail" was skipped.
std::string SkipMessage(const RuleVerdict& v) {
  if (v.verdict == "not exercised") {
    return "not exercised: the checks held, but no case reached " + MissingText(v) + " (" +
           v.EvidenceFraction() +
           " situations reached; a longer run, or a generator that reaches "
           "them, earns the pass)";
  }
  if (v.verdict == "not run") {
    std::string families;
    for (const std::string& f : v.rule->property_families) {
      families += (families.empty() ? "" : ", ") + f;
    }
    return "not run: no property of its families (" + families +
           ") ran in this run (not selected, not in this shard, or no time left)";
  }
  if (v.verdict == "tests only") {
    return "tests only: checked by the test suite, not by a campaign property";
  }
  if (v.verdict == "not checked") return "not checked: no test or property checks this rule yet";
  return v.verdict;
}

// What checked the rule: its figures and properties (for every testcase's <system-out>).
std::string Evidence(const RuleVerdict& v) {
  std::string out = v.rule->id + " " + v.rule->title + ": " + v.rule->statement + "\n";
  out += "verdict: " + v.verdict + "\n";
  if (!v.properties.empty()) {
    out += Grouped(v.cases) + " cases, " + Grouped(v.operations) + " operations, " +
           Fixed(v.seconds, 1) + " s\n";
    const auto counts = report_text::FaultClassCounts(v);
    const auto& names = FaultClassNames();
    for (size_t i = 0; i < counts.size() && i < names.size(); ++i) {
      out += names[i] + ": " + Grouped(counts[i]) + "\n";
    }
  }
  if (!v.evidence.empty()) {
    out += "situations (" + v.EvidenceFraction() + " reached; cases):\n";
    for (const auto& [name, count] : v.evidence) {
      out += "  " + name + ": " + Grouped(count) + "\n";
    }
  }
  if (!v.properties.empty()) {
    out += "properties:\n";
    for (const std::string& p : v.properties) out += "  " + p + "\n";
  }
  if (!v.rule->checks.empty()) {
    out += "tests:\n";
    for (const std::string& c : v.rule->checks) out += "  " + c + "\n";
  }
  return out;
}

// The failure's body: each failing property with everything needed to reproduce it.
std::string FailureBody(const RunReport& report, const RuleVerdict& v) {
  std::string out;
  for (const std::string& id : v.failing_properties) {
    const PropertyResult* p = report_text::FindProperty(report, id);
    out += "property " + id + " failed" +
           (p && p->failing_rule.empty() ? " (unattributed: no check to credit)" : "") + "\n";
    if (p == nullptr) continue;
    if (!p->config.empty()) out += "config: " + p->config + "\n";
    out += "message: " + p->message + "\n";
    if (!p->counterexample.empty()) {
      out += "counterexample (" + std::to_string(p->counterexample.size()) + " steps):\n";
      for (const std::string& line : p->counterexample) out += "  " + line + "\n";
    }
    if (!p->trace_path.empty()) out += "trace: " + p->trace_path + "\n";
    if (!p->reproduce.empty()) out += "reproduce: " + p->reproduce + "\n";
    if (!p->replay_commands.empty()) {
      out += "replay:\n";
      for (const std::string& c : p->replay_commands) out += "  " + c + "\n";
    }
    out += "\n";
  }
  return out;
}

// The failure's one-line message: the first failing property and its message's first line.
std::string FailureMessage(const RunReport& report, const RuleVerdict& v) {
  if (v.failing_properties.empty()) return "failed";
  const std::string& first = v.failing_properties.front();
  std::string msg = first;
  if (const PropertyResult* p = report_text::FindProperty(report, first)) {
    msg += ": " + p->message.substr(0, p->message.find('\n'));
  }
  if (v.failing_properties.size() > 1) {
    msg += " (and " + std::to_string(v.failing_properties.size() - 1) + " more failing properties)";
  }
  return msg;
}

// Whether the rule's testcase fails: "fail", and "not exercised" when evidence was required.
bool Fails(const RunReport& report, const RuleVerdict& v) {
  return v.verdict == "fail" ||
         (v.verdict == "not exercised" && report.configuration.require_evidence);
}

std::string TestCase(const RunReport& report, const RuleVerdict& v) {
  std::string out = "    <testcase name=\"" + XmlAttr(v.rule->id + " " + v.rule->title) +
                    "\" classname=\"" + XmlAttr("statecheck." + v.rule->family) + "\" time=\"" +
                    Seconds(v.seconds) + "\">\n";
  if (v.verdict == "fail") {
    out += "      <failure message=\"" + XmlAttr(FailureMessage(report, v)) +
           "\" type=\"property failed\">" + XmlText(FailureBody(report, v)) + "</failure>\n";
  } else if (Fails(report, v)) {
    out += "      <failure message=\"" + XmlAttr(SkipMessage(v)) +
           "\" type=\"evidence required\">" + XmlText(SkipMessage(v)) + "</failure>\n";
  } else if (v.verdict != "pass") {
    out += "      <skipped message=\"" + XmlAttr(SkipMessage(v)) + "\"/>\n";
  }
  out += "      <system-out>" + XmlText(Evidence(v)) + "</system-out>\n";
  return out + "    </testcase>\n";
}

// A selftest's planted bugs: one suite, statecheck.selftest, with a testcase per bug that fails
// when the bug was not caught.
// The regression corpus: one testcase per trace, a <failure> for one that diverged.
std::string RegressionSuite(const RunReport& report) {
  const RegressionSection& r = *report.regressions;
  double seconds = 0;
  for (const PropertyResult& p : r.traces) seconds += p.seconds;
  std::string out = "  <testsuite name=\"statecheck.regressions\" tests=\"" +
                    std::to_string(r.traces.size()) + "\" failures=\"" +
                    std::to_string(r.Diverged()) + "\" errors=\"0\" skipped=\"0\" time=\"" +
                    Seconds(seconds) + "\"";
  if (!report.started_at.empty()) out += " timestamp=\"" + XmlAttr(report.started_at) + "\"";
  out += ">\n    <properties>\n      <property name=\"directory\" value=\"" + XmlAttr(r.directory) +
         "\"/>\n    </properties>\n";
  for (const PropertyResult& p : r.traces) {
    out += "    <testcase name=\"" + XmlAttr(p.id) +
           "\" classname=\"statecheck.regressions\" time=\"" + Seconds(p.seconds) + "\">\n";
    std::string body = p.family + " trace, " + std::to_string(p.operations) + " steps replayed\n";
    if (!p.passed) {
      body += (p.failing_rule.empty() ? "unattributed" : "credited to " + p.failing_rule) + ": " +
              p.message + "\n";
      for (const std::string& c : p.replay_commands) body += "replay: " + c + "\n";
      out += "      <failure message=\"" + XmlAttr("diverged: " + p.id) +
             "\" type=\"regression trace diverged\">" + XmlText(body) + "</failure>\n";
    }
    out += "      <system-out>" + XmlText(body) + "</system-out>\n    </testcase>\n";
  }
  return out + "  </testsuite>\n";
}

std::string SelftestSuite(const RunReport& report) {
  const SelftestSection& t = *report.selftest;
  double seconds = 0;
  for (const PlantedBugResult& b : t.bugs) seconds += b.seconds;
  std::string out = "  <testsuite name=\"statecheck.selftest\" tests=\"" +
                    std::to_string(t.bugs.size()) + "\" failures=\"" +
                    std::to_string(static_cast<int64_t>(t.bugs.size()) - t.Caught()) +
                    "\" errors=\"0\" skipped=\"0\" time=\"" + Seconds(seconds) + "\"";
  if (!report.started_at.empty()) out += " timestamp=\"" + XmlAttr(report.started_at) + "\"";
  out += ">\n    <properties>\n      <property name=\"mutation_score\" value=\"" +
         Fixed(t.Score(), 1) + "\"/>\n      <property name=\"budget_seconds\" value=\"" +
         Fixed(t.budget_seconds, 0) + "\"/>\n      <property name=\"scope\" value=\"" +
         XmlAttr(t.scope) + "\"/>\n    </properties>\n";
  for (const PlantedBugResult& b : t.bugs) {
    out += "    <testcase name=\"" + XmlAttr(b.name + " (" + b.rules + ")") +
           "\" classname=\"statecheck.selftest\" time=\"" + Seconds(b.seconds) + "\">\n";
    std::string body =
        b.description + "\nmodelled on: " + b.modelled_on + "\nplanted in: " + b.file + "\n";
    if (b.caught) {
      body += "caught by " + b.property + " (" + report_text::CaughtBy(b) + ") in " +
              Fixed(b.seconds, 1) + " s, " + report_text::StepsText(b.counterexample_steps) + ": " +
              b.message + "\n";
      for (const std::string& c : b.replay_commands) body += "replay: " + c + "\n";
    } else {
      out += "      <failure message=\"" +
             XmlAttr("not caught in " + Fixed(t.budget_seconds, 0) + " s: " + b.name) +
             "\" type=\"planted bug not caught\">" + XmlText(body) + "</failure>\n";
    }
    out += "      <system-out>" + XmlText(body) + "</system-out>\n    </testcase>\n";
  }
  return out + "  </testsuite>\n";
}

}  // namespace

std::string ReportJUnit(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  // Families in order of first appearance, which is SPEC order for the catalogue's rules.
  std::vector<std::string> families;
  for (const RuleVerdict& v : verdicts) {
    if (std::find(families.begin(), families.end(), v.rule->family) == families.end()) {
      families.push_back(v.rule->family);
    }
  }
  int64_t failures = 0, total_tests = static_cast<int64_t>(verdicts.size());
  for (const RuleVerdict& v : verdicts) failures += Fails(report, v);
  if (report.regressions) {
    total_tests += static_cast<int64_t>(report.regressions->traces.size());
    failures += report.regressions->Diverged();
  }
  if (report.selftest) {
    total_tests += static_cast<int64_t>(report.selftest->bugs.size());
    failures += static_cast<int64_t>(report.selftest->bugs.size()) - report.selftest->Caught();
  }

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"statecheck\" tests=\"" + std::to_string(total_tests) +
         "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" time=\"" +
         Seconds(report.elapsed_seconds) + "\">\n";
  for (const std::string& family : families) {
    int64_t tests = 0, failed = 0, skipped = 0;
    std::vector<std::string> suite_properties;
    std::string cases;
    for (const RuleVerdict& v : verdicts) {
      if (v.rule->family != family) continue;
      ++tests;
      failed += Fails(report, v);
      skipped += !Fails(report, v) && v.verdict != "pass";
      cases += TestCase(report, v);
      for (const std::string& id : v.properties) {
        if (std::find(suite_properties.begin(), suite_properties.end(), id) ==
            suite_properties.end()) {
          suite_properties.push_back(id);
        }
      }
    }
    // The suite's time: the properties that checked its rules, each counted once (rules share
    // properties, so the testcases' times add up to more than the campaign spent).
    double seconds = 0;
    for (const std::string& id : suite_properties) {
      const PropertyResult* p = report_text::FindProperty(report, id);
      if (p != nullptr && p->seconds > 0) seconds += p->seconds;
    }
    out += "  <testsuite name=\"" + XmlAttr("statecheck." + family) + "\" tests=\"" +
           std::to_string(tests) + "\" failures=\"" + std::to_string(failed) +
           "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
           Seconds(seconds) + "\"";
    if (!report.started_at.empty()) out += " timestamp=\"" + XmlAttr(report.started_at) + "\"";
    out += ">\n" + RunProperties(report, family) + cases + "  </testsuite>\n";
  }
  if (report.regressions) out += RegressionSuite(report);
  if (report.selftest) out += SelftestSuite(report);
  return out + "</testsuites>\n";
}

}  // namespace statecheck::reports
