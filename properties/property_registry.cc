#include "properties/property_registry.h"

#include <rapidcheck.h>

#include <unordered_map>

#include "properties/kv_store_property.h"

namespace rc::detail {
std::unordered_map<std::string, Reproduce> stringToReproduceMap(const std::string& str);
}  // namespace rc::detail

namespace statecheck::properties {

std::vector<PropertySpec> AllProperties() {
  std::vector<PropertySpec> out;
  out.push_back({"window_store/ConstructionMatchesModel", "window_store",
                 "WindowStoreProperty.ConstructionMatchesModel", [](const PropertyParams& p) {
                   return CheckWindowStoreConstruction(EngineWindowStoreFactory(), p);
                 }});
  for (const WindowStoreConfig& config : WindowStoreOptionMatrix()) {
    out.push_back({"window_store/MatchesModel/" + config.label, "window_store",
                   "WindowStoreProperty.MatchesModel", [config](const PropertyParams& p) {
                     return CheckWindowStoreMatchesModel(EngineWindowStoreFactory(), config, p);
                   }});
  }
  for (const KvStoreConfig& config : KvStoreOptionMatrix()) {
    out.push_back({"kv_store/MatchesModel/" + config.label, "kv_store",
                   "KvStoreProperty.MatchesModel", [config](const PropertyParams& p) {
                     return CheckKvStoreMatchesModel(EngineKvStoreFactory(), config, p);
                   }});
  }
  return out;
}

Status PropertyIdOfReproduce(const std::string& reproduce, std::string* id) {
  std::unordered_map<std::string, rc::detail::Reproduce> map;
  try {
    map = rc::detail::stringToReproduceMap(reproduce);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("not a reproduce string: ") + e.what() +
                                   ". Copy it whole from the failure's output or report.");
  }
  if (map.size() != 1) {
    return Status::InvalidArgument("the reproduce string names " + std::to_string(map.size()) +
                                   " properties; statecheck replays one at a time");
  }
  *id = map.begin()->first;
  return Status::Ok();
}

}  // namespace statecheck::properties
