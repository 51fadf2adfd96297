// Every property the harness can run, by id and family, for `statecheck run` and the tests.
#ifndef STATECHECK_PROPERTIES_PROPERTY_REGISTRY_H_
#define STATECHECK_PROPERTIES_PROPERTY_REGISTRY_H_

#include <functional>
#include <string>
#include <vector>

#include "properties/window_store_property.h"
#include "statecheck/status.h"

namespace statecheck::properties {

struct PropertySpec {
  std::string id;      // "window_store/MatchesModel/ret10_size3"
  std::string family;  // "window_store": the rule catalogue's property_families name it.
  std::string
      check;  // The CTest name the catalogue lists, e.g. "WindowStoreProperty.MatchesModel".
  std::function<PropertyOutcome(const PropertyParams&)> run;
  // A batch runs cases_per_batch / batch_divisor cases: the slow families (a real log and
  // RocksDB per case) take smaller batches so that a time budget is kept to within a batch.
  int batch_divisor = 1;
  // Its row of the option matrix, in words: the configuration it runs ("" for none).
  std::string config = "";
  // Its cases run threads of their own that must run in parallel (kv_concurrency's writer and
  // readers): a pinned campaign worker (tools::WorkerPool::Pinned) runs its batches on every
  // CPU, not on the worker's own.
  bool threads = false;
};

// All properties, in a fixed order (shards and reports rely on it), checking the engine.
std::vector<PropertySpec> AllProperties();

// The property id a rapidcheck reproduce string (PropertyOutcome::reproduce) belongs to.
Status PropertyIdOfReproduce(const std::string& reproduce, std::string* id);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_PROPERTY_REGISTRY_H_
