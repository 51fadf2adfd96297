// The rule catalogue a campaign judges by: reports/rules.json's, with each property family that
// declares its rules in its own code (properties/kit/outcome.h, FamilyEntry::rules) added to
// those rules' property families — so that a family in a folder of its own needs no line in
// rules.json.
#ifndef STATECHECK_TOOLS_CATALOGUE_H_
#define STATECHECK_TOOLS_CATALOGUE_H_

#include "reports/rule_catalogue.h"

namespace statecheck::tools {

// Built once. A family that declares a rule the catalogue does not have, or one without
// situations, is a harness bug: it is printed and the process aborts (CatalogueTest checks it
// cannot happen in this build).
const reports::RuleCatalogue& Catalogue();

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_CATALOGUE_H_
