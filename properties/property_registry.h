// Every property the harness can run, by id and family, for `statecheck run` and the tests.
#ifndef STATECHECK_PROPERTIES_PROPERTY_REGISTRY_H_
#define STATECHECK_PROPERTIES_PROPERTY_REGISTRY_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "properties/kit/outcome.h"
#include "statecheck/status.h"

namespace statecheck::properties {

// The trace kinds `statecheck replay` reads, one per family with traces.
std::vector<TraceKindSpec> AllTraceKinds();

// All properties, in a fixed order (shards and reports rely on it), checking the engine.
std::vector<PropertySpec> AllProperties();

// The rules each family declares in its own code (FamilyEntry::rules), by family: what
// reports/rules.json's property_families does not list it under.
std::vector<std::pair<std::string, std::vector<std::string>>> DeclaredFamilyRules();

// The property id a rapidcheck reproduce string (PropertyOutcome::reproduce) belongs to.
Status PropertyIdOfReproduce(const std::string& reproduce, std::string* id);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_PROPERTY_REGISTRY_H_
