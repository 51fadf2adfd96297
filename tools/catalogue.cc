#include "tools/catalogue.h"

#include <cstdio>
#include <cstdlib>

#include "properties/property_registry.h"

namespace statecheck::tools {

const reports::RuleCatalogue& Catalogue() {
  static const reports::RuleCatalogue* const catalogue = [] {
    auto* merged = new reports::RuleCatalogue(reports::RuleCatalogue::Builtin());
    for (const auto& [family, rules] : properties::DeclaredFamilyRules()) {
      for (const std::string& rule : rules) {
        if (const Status s = merged->AddPropertyFamily(rule, family); !s.ok()) {
          std::fprintf(stderr, "statecheck: %s\n", s.ToString().c_str());
          std::abort();
        }
      }
    }
    return merged;
  }();
  return *catalogue;
}

}  // namespace statecheck::tools
