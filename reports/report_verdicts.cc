// The report model's derivations: the rule verdicts (RuleVerdicts) and the counts, scores and
// coverage the writers show. Its JSON form and writing: run_report.cc.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/run_report.h"

namespace statecheck::reports {

int64_t SelftestSection::Caught() const {
  return std::count_if(bugs.begin(), bugs.end(),
                       [](const PlantedBugResult& b) { return b.caught; });
}

std::vector<std::string> PlantedBugResult::ExpectedRules() const {
  std::vector<std::string> out;
  std::string_view rest = rules;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view id = rest.substr(0, comma);
    while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
    while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
    if (!id.empty()) out.emplace_back(id);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

bool PlantedBugResult::CitesExpectedRule() const {
  const std::vector<std::string> expected = ExpectedRules();
  return std::any_of(cited_rules.begin(), cited_rules.end(), [&](const std::string& r) {
    return std::find(expected.begin(), expected.end(), r) != expected.end();
  });
}

int64_t SelftestSection::CitingExpected() const {
  return std::count_if(bugs.begin(), bugs.end(),
                       [](const PlantedBugResult& b) { return b.caught && b.CitesExpectedRule(); });
}

double SelftestSection::Score() const {
  return bugs.empty() ? 0
                      : 100.0 * static_cast<double>(Caught()) / static_cast<double>(bugs.size());
}

FaultCounts& FaultCounts::operator+=(const FaultCounts& o) {
  crashes += o.crashes;
  power_losses += o.power_losses;
  io_errors += o.io_errors;
  engine_faults += o.engine_faults;
  return *this;
}

const std::vector<std::string>& FaultClassNames() {
  static const std::vector<std::string> names = {"no fault", "process crash", "power loss",
                                                 "I/O error", "engine fail point"};
  return names;
}

std::string FailPointCoverage(const std::vector<FailPointRow>& rows) {
  int reachable = 0, reached = 0, fired = 0;
  for (const FailPointRow& f : rows) {
    reachable += f.reachable;
    reached += f.reachable && f.reached > 0;
    fired += f.reachable && f.fired > 0;
  }
  return std::to_string(fired) + " of " + std::to_string(reachable) +
         " reachable fail points fired (" + std::to_string(reached) + " reached; " +
         std::to_string(rows.size() - reachable) + " more are unreachable by construction)";
}

std::vector<std::string> RuleVerdict::MissingSituations() const {
  std::vector<std::string> missing;
  for (const auto& [name, count] : evidence) {
    if (count == 0) missing.push_back(name);
  }
  return missing;
}

std::string RuleVerdict::EvidenceFraction() const {
  return std::to_string(evidence.size() - MissingSituations().size()) + "/" +
         std::to_string(evidence.size());
}

int64_t RegressionSection::Diverged() const {
  return std::count_if(traces.begin(), traces.end(),
                       [](const PropertyResult& t) { return !t.passed; });
}

std::vector<PropertyResult> FailedResults(const RunReport& report) {
  std::vector<PropertyResult> out;
  for (const PropertyResult& p : report.properties) {
    if (!p.passed) out.push_back(p);
  }
  if (report.regressions) {
    for (const PropertyResult& p : report.regressions->traces) {
      if (!p.passed) out.push_back(p);
    }
  }
  return out;
}

bool VerdictsFail(const std::vector<RuleVerdict>& verdicts, bool require_evidence) {
  return std::any_of(verdicts.begin(), verdicts.end(), [&](const RuleVerdict& v) {
    return v.verdict == "fail" || (require_evidence && v.verdict == "not exercised");
  });
}

std::vector<RuleVerdict> RuleVerdicts(const std::vector<const Rule*>& rules,
                                      const RunReport& report) {
  static const std::vector<PropertyResult> kNoTraces;
  const std::vector<PropertyResult>& traces =
      report.regressions ? report.regressions->traces : kNoTraces;
  std::vector<RuleVerdict> out;
  for (const Rule* rule : rules) {
    RuleVerdict v;
    v.rule = rule;
    const auto& fams = rule->property_families;
    auto of_family = [&](const PropertyResult& p) {
      return std::find(fams.begin(), fams.end(), p.family) != fams.end();
    };
    // A failure fails the rule its check cites, or (none cited) its family's rules, unattributed.
    auto credit = [&](const PropertyResult& p) {
      if (!p.passed && (p.failing_rule == rule->id || (of_family(p) && p.failing_rule.empty()))) {
        v.failing_properties.push_back(p.id);
        v.unattributed = v.unattributed || p.failing_rule.empty();
      }
    };
    for (const PropertyResult& p : report.properties) {
      if (p.batches.empty()) continue;  // Not run here (another shard, no time left).
      if (auto it = p.rule_cases.find(rule->id); it != p.rule_cases.end()) v.cases += it->second;
      credit(p);
      if (!of_family(p)) continue;
      v.properties.push_back(p.id);
      v.operations += p.operations;
      v.seconds += p.seconds;
      v.no_fault_cases += p.no_fault_cases;
      v.faults += p.faults;
    }
    // A diverged regression trace counts as a failure; its one case is no evidence.
    for (const PropertyResult& p : traces) credit(p);
    for (const Situation& s : rule->situations) {
      int64_t count = 0;
      for (const PropertyResult& p : report.properties) {
        if (auto it = p.evidence.find(s.name); it != p.evidence.end()) count += it->second;
      }
      v.evidence.emplace_back(s.name, count);
    }
    if (!v.failing_properties.empty()) {
      v.verdict = "fail";
    } else if (fams.empty()) {
      // Checked by the test suite alone (a cost bound, say), or not yet at all.
      v.verdict = rule->checks.empty() ? "not checked" : "tests only";
    } else if (v.properties.empty()) {
      v.verdict = "not run";
    } else {
      v.verdict = v.MissingSituations().empty() ? "pass" : "not exercised";
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace statecheck::reports
