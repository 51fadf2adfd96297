#include "properties/evidence.h"

#include <rapidcheck.h>

#include <set>
#include <utility>

namespace statecheck::properties {
namespace {

std::string RuleOf(std::string_view situation) {
  return std::string(situation.substr(0, situation.find('.')));
}

struct CaseState {
  bool open = false;
  std::set<std::string> pending;    // Reached, no check of its rule has held since.
  std::set<std::string> confirmed;  // Reached and checked: counts when the case ends.
};

Evidence evidence;
CaseState current;
std::optional<Finding> last_finding;

void Confirm(const std::string& situation) { current.confirmed.insert(situation); }

}  // namespace

Evidence& Evidence::operator+=(const Evidence& o) {
  for (const auto& [k, v] : o.situations) situations[k] += v;
  for (const auto& [k, v] : o.rule_cases) rule_cases[k] += v;
  return *this;
}

void Reached(std::string_view situation) { current.pending.insert(std::string(situation)); }

bool ReachedIf(bool cond, std::string_view situation) {
  if (cond) Reached(situation);
  return cond;
}

void Held(std::string_view rule) {
  for (auto it = current.pending.begin(); it != current.pending.end();) {
    if (RuleOf(*it) == rule) {
      Confirm(*it);
      it = current.pending.erase(it);
    } else {
      ++it;
    }
  }
}

void HeldAll() {
  for (const std::string& s : current.pending) Confirm(s);
  current.pending.clear();
}

void Fail(Finding finding) {
  std::string message = finding.ToString();
  last_finding = std::move(finding);
  current.pending.clear();
  // Thrown as RC_FAIL would, without the macro's echo of its own source text.
  throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, std::move(message));
}

void Require(const CheckResult& result, std::string_view rule) {
  if (result) Fail(*result);
  Held(rule);
}

std::optional<Finding> LastFinding() { return last_finding; }
void ResetLastFinding() { last_finding.reset(); }

void BeginCaseEvidence() { current = CaseState{true, {}, {}}; }

void EndCaseEvidence() {
  std::set<std::string> rules;
  for (const std::string& s : current.confirmed) {
    ++evidence.situations[s];
    rules.insert(RuleOf(s));
  }
  for (const std::string& r : rules) ++evidence.rule_cases[r];
  current = CaseState{};
}

Evidence TakeEvidence() { return std::exchange(evidence, Evidence{}); }

}  // namespace statecheck::properties
