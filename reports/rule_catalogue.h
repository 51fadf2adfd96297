// RuleCatalogue: the rules of docs/spec.md as data, with the checks that verify each.
//
// The catalogue is reports/rules.json, embedded into the library when it is built (so the binary
// and the catalogue it reports on never disagree). One Rule per rule of docs/spec.md, in its order.
// A rule's `checks` name CTest tests ("Suite.Test"; a parameterized instance such as
// "Prefix/Suite.Test/0" counts too, see cmake/CheckCatalogue.cmake); an empty list means the
// rule is not yet checked.
//
// Thread safety: a RuleCatalogue is immutable once built; Builtin() is safe from any thread.
#ifndef STATECHECK_REPORTS_RULE_CATALOGUE_H_
#define STATECHECK_REPORTS_RULE_CATALOGUE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/status.h"

namespace statecheck::reports {

// The longest statement the catalogue accepts.
inline constexpr std::size_t kMaxStatementLength = 200;

// A situation a rule is about ("W3.at_boundary": a put exactly at streamTime - retention): a
// rule's campaign verdict is "pass" only when its properties reached every one of its
// situations and ran the check that depends on it afterwards (properties/evidence.h).
struct Situation {
  std::string name;  // "<rule id>.<snake_case>", unique in the catalogue.
  std::string text;  // What the case does, in one line of at most kMaxStatementLength chars.
  friend bool operator==(const Situation&, const Situation&) = default;
};

// How many situations a rule with campaign properties declares.
inline constexpr std::size_t kMinSituations = 3;
inline constexpr std::size_t kMaxSituations = 8;

struct Rule {
  std::string id;         // "W3": the family letter(s) followed by a number.
  std::string family;     // "W", "T", "C", "U", "E", "F" or "L".
  std::string title;      // The bold name in docs/spec.md: "drop rule".
  std::string statement;  // What must hold, in one line of at most kMaxStatementLength chars.
  std::vector<std::string> checks;             // CTest test names; empty = not yet checked.
  std::vector<std::string> property_families;  // e.g. "window_store"; may be empty.
  // kMinSituations..kMaxSituations when property_families is not empty; else none.
  std::vector<Situation> situations;

  friend bool operator==(const Rule&, const Rule&) = default;
};

class RuleCatalogue {
 public:
  // An empty catalogue.
  RuleCatalogue() = default;

  // The catalogue built from reports/rules.json. The embedded JSON is checked by
  // rule_catalogue_test; should it ever fail to parse, Builtin() prints the error and aborts.
  static const RuleCatalogue& Builtin();

  // Parses a catalogue: a JSON array of objects with exactly the fields of Rule (checks and
  // property_families are arrays of strings; situations an array of {"name", "text"}). On
  // success fills `*out` and returns OK. On failure returns InvalidArgument naming the problem
  // and the rule it is in (malformed JSON, a missing or mistyped field, an unknown field, a
  // duplicate id, an id that does not start with its family, an empty, multi-line or too long
  // statement, a duplicate check; a situation whose name does not start with "<id>.", is not
  // unique or has no text; fewer than kMinSituations or more than kMaxSituations situations on
  // a rule with property families, any on one without), and leaves `*out` unchanged.
  // REQUIRES: out != nullptr.
  static Status Parse(std::string_view json, RuleCatalogue* out);

  // Every rule, in catalogue (docs/spec.md) order.
  const std::vector<Rule>& rules() const { return rules_; }

  // Adds `family` to the property families of rule `id` (once): a family that declares in its
  // own code the rules it checks (properties/kit/outcome.h, FamilyEntry::rules). NotFound for
  // no such rule; InvalidArgument for a rule that declares no situations (a family of a rule
  // must be able to reach them).
  Status AddPropertyFamily(std::string_view id, const std::string& family);

  // The rule with this exact id, or nullptr. The pointer lives as long as the catalogue.
  const Rule* Find(std::string_view id) const;

  // The situation with this exact name ("W3.at_boundary"), or nullptr.
  const Situation* FindSituation(std::string_view name) const;

  // The rules a selector names, in catalogue order, each once. A selector is "" (every rule)
  // or a comma-separated list of terms, each a family ("W": all its rules) or a rule id ("W3");
  // spaces around a term are ignored and terms are case-sensitive. Returns an empty vector when
  // any term names nothing (or is empty); use the overload below to learn which.
  std::vector<const Rule*> Select(std::string_view selector) const;

  // As above, but on a term that names nothing returns InvalidArgument naming that term and
  // leaves `*out` unchanged. REQUIRES: out != nullptr.
  Status Select(std::string_view selector, std::vector<const Rule*>* out) const;

 private:
  std::vector<Rule> rules_;
};

}  // namespace statecheck::reports

#endif  // STATECHECK_REPORTS_RULE_CATALOGUE_H_
