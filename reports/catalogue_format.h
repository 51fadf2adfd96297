// Views of the rule catalogue for people and for programs: what `statecheck list rules`,
// `statecheck list rules --json` and `statecheck list rules --checks` print.
#ifndef STATECHECK_REPORTS_CATALOGUE_FORMAT_H_
#define STATECHECK_REPORTS_CATALOGUE_FORMAT_H_

#include <string>
#include <vector>

#include "reports/rule_catalogue.h"

namespace statecheck::reports {

// A table no wider than 100 columns (bar single words longer than the statement column): a
// header line, then per rule its id, title, number of checks ("not yet checked" when it has
// none) and its statement wrapped at word boundaries into the last column, followed there by
// one "- <name>: <text>" item per situation it declares; then a summary line.
// Ends with a newline. REQUIRES: no null pointers in `rules`.
std::string FormatRulesText(const std::vector<const Rule*>& rules);

// A JSON array with one object per rule, in the given order, with the fields of Rule: id,
// family, title, statement, checks, property_families, situations. RuleCatalogue::Parse reads
// it back.
// Indented by two spaces; ends with a newline. REQUIRES: no null pointers in `rules`.
std::string FormatRulesJson(const std::vector<const Rule*>& rules);

// Every check name of the given rules, one per line, each once, in order of first mention.
// cmake/CheckCatalogue.cmake reads this to verify each names a registered CTest test.
std::string FormatCheckNames(const std::vector<const Rule*>& rules);

}  // namespace statecheck::reports

#endif  // STATECHECK_REPORTS_CATALOGUE_FORMAT_H_
