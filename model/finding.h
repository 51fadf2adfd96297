// Finding: what a failed check says. Every check in model/ and properties/ that can fail
// returns one (or throws it, through properties::Fail) carrying the one rule it enforces, so
// that the conformance report credits a failure to the rule whose check failed — never to the
// whole family the property covers — without reading the message.
//
// A check returns CheckResult: std::nullopt when it held, a Finding when it did not.
#ifndef STATECHECK_MODEL_FINDING_H_
#define STATECHECK_MODEL_FINDING_H_

#include <optional>
#include <string>
#include <utility>

namespace statecheck::model {

struct Finding {
  std::string rule;     // The rule the failing check enforces: "W3", "C4". Never empty.
  std::string message;  // What it saw, without the rule id: "store kv holds a=1, ...".

  Finding() = default;
  Finding(std::string r, std::string m) : rule(std::move(r)), message(std::move(m)) {}

  // "W3: <message>": how a finding is printed.
  std::string ToString() const { return rule + ": " + message; }
  friend bool operator==(const Finding&, const Finding&) = default;
};

// A check's verdict: nullopt = the check held.
using CheckResult = std::optional<Finding>;

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_FINDING_H_
