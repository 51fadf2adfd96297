// The windowed aggregation property (SPEC E1–E6, E10): random sequences of timestamped input
// records (keys that are byte-prefixes of others, an empty "null" key, records with no
// timestamp, late and out-of-order timestamps around window ends and end + grace), processing,
// wall-clock advances, commits, crashes and clean restarts run an exactly-once task with a
// windowed count (statecheck/windowed_aggregation.h) in lockstep with
// model/windowed_aggregation_model.h.
//
// After every step: the committed output equals the model's — so no window is emitted twice or
// lost across a crash (E6) —, the committed input offset too, and the task's dropped-records
// count (E1). After every restart: the store, as an interactive query reads it, holds exactly
// the model's committed aggregates.
#ifndef STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_PROPERTY_H_
#define STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_PROPERTY_H_

#include <map>
#include <string>
#include <vector>

#include "properties/window_store_property.h"

namespace statecheck::properties {

struct WindowedAggregationConfig {
  std::string label;  // e.g. "hopping_final": test and report ids.
  int64_t size_ms = 10;
  int64_t advance_ms = 10;
  int64_t grace_ms = 0;
  bool emit_final = false;
  std::map<std::string, std::string> streams_config;  // exactly_once_v2, an isolation level.
};

// Tumbling and hopping windows × emit-eager and emit-final, under exactly_once_v2 (READ_COMMITTED,
// and READ_UNCOMMITTED, which wipes after a crash).
std::vector<WindowedAggregationConfig> WindowedAggregationMatrix();

PropertyOutcome CheckWindowedAggregationMatchesModel(const WindowedAggregationConfig& config,
                                                     const PropertyParams& params);

// E7, differentially: for random timestamped input (then one record late enough to close every
// window), emit-final's output equals suppress(untilWindowCloses) over emit-eager's — the same
// windows, values and timestamps, in the same order, per key. `config`'s windows; its emit
// strategy is ignored.
PropertyOutcome CheckEmitFinalEqualsSuppressedEager(const WindowedAggregationConfig& config,
                                                    const PropertyParams& params);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_PROPERTY_H_
