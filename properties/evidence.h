// Evidence: which of its rules' situations a property's cases reached, and which rule a failure
// is credited to.
//
// The rule catalogue (reports/rules.json) declares, per rule, the situations it is about
// ("W3.at_boundary": a put exactly at streamTime - retention). A rule passes a campaign only when
// its checks all held *and* its properties reached every one of its situations; a situation
// counts only when a case reached it and the check that depends on it ran afterwards and held.
// So a property does two things in each case:
//
//   Reached("W3.at_boundary");   // this step is such a put: the situation is pending
//   ... compare the engine's and the model's results ...
//   Held("W3");                  // the check enforcing W3 ran and held: its pending
//                                // situations count for this case
//
// HeldAll() confirms every pending situation (a comparison that covers every rule of the step).
// A check that fails calls Fail(Finding{rule, message}): it records the finding and throws
// rapidcheck's failure, so the report credits the rule of the check, not the property's family.
// Situations still pending when the case ends (no check ran after them) do not count.
//
// Counts are per case: a case that reaches a situation five times counts it once, and a rule's
// case count is the number of cases that reached any of its situations. Names are checked
// against the catalogue by the campaign (an undeclared name is a harness bug, reported as an
// error), so a typo cannot turn into evidence.
//
// Thread safety: the evidence is process-wide, like the fault tally (fault_tally.h): one
// property runs at a time, and only the thread running it may call these functions (the
// concurrency check records its threads' histories and judges them afterwards, on its own
// thread).
#ifndef STATECHECK_PROPERTIES_EVIDENCE_H_
#define STATECHECK_PROPERTIES_EVIDENCE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "model/finding.h"

namespace statecheck::properties {

using model::CheckResult;
using model::Finding;

struct Evidence {
  std::map<std::string, int64_t> situations;  // "W3.at_boundary" -> cases that reached it.
  std::map<std::string, int64_t> rule_cases;  // "W3" -> cases that reached any W3 situation.
  Evidence& operator+=(const Evidence& o);
  friend bool operator==(const Evidence&, const Evidence&) = default;
};

// The current case reached `situation` ("<rule>.<name>"); it counts once a check of its rule
// holds afterwards in the same case.
void Reached(std::string_view situation);
// Reached(situation) when `cond` holds; returns `cond` (for use inside conditions).
bool ReachedIf(bool cond, std::string_view situation);
// A check of `rule` ran and held: the case's pending situations of `rule` count.
void Held(std::string_view rule);
// Every pending situation of the case counts (a check that covers all of them held).
void HeldAll();

// Records `finding` as the current case's failure and throws rapidcheck's failure with
// finding.ToString() as its message. For the rapidcheck properties (RunProperty).
[[noreturn]] void Fail(Finding finding);
// Fail(*result) when a check did not hold; Held(rule) when it did.
void Require(const CheckResult& result, std::string_view rule);

// The last finding Fail recorded since ResetLastFinding (the shrunk case's, when rapidcheck is
// done: the final failing run is the counterexample's).
std::optional<Finding> LastFinding();
void ResetLastFinding();

// Case boundaries: called by CaseScope (fault_tally.h).
void BeginCaseEvidence();
void EndCaseEvidence();

// What the cases counted since the last take, and a fresh start (RunProperty takes it into
// PropertyOutcome::evidence).
Evidence TakeEvidence();

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_EVIDENCE_H_
