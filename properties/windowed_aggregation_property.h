// The windowed aggregation property (SPEC E1–E6, E10): random sequences of timestamped input
// records (keys that are byte-prefixes of others, an empty "null" key, records with no
// timestamp, late and out-of-order timestamps around window ends and end + grace), processing,
// wall-clock advances, commits, crashes and clean restarts run a task with a windowed count —
// time windows (statecheck/windowed_aggregation.h, over the persistent or the in-memory window
// store), sliding windows (sliding_aggregation.h) or session windows (session_aggregation.h) —
// in lockstep with the window kind's reference model (model/aggregation_model.h).
//
// After every step: the committed output equals the model's — under exactly_once_v2 no window is
// emitted twice or lost across a crash (E6); under at_least_once the model says what is emitted
// again —, the committed input offset too, and the task's dropped-records count (E1). After
// every restart: the store, read by the property's own decoder (aggregation_stores.h), holds
// exactly the model's committed aggregates.
//
// A failure's shrunk case is written as a windowed trace (docs/traces.md): the configuration,
// then each step with what the model expects it to emit and drop, so `statecheck replay` runs it
// again against the engine and the model.
#ifndef STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_PROPERTY_H_
#define STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_PROPERTY_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "properties/window_store_ops.h"
#include "properties/window_store_property.h"

namespace statecheck::properties {

enum class WindowKind { kTime, kSliding, kSession };

struct WindowedAggregationConfig {
  std::string label;  // e.g. "hopping_final": test and report ids.
  WindowKind kind = WindowKind::kTime;
  // Time windows: the size; sliding windows: the time difference D; sessions: the gap G.
  int64_t size_ms = 10;
  int64_t advance_ms = 10;  // Time windows only.
  int64_t grace_ms = 0;
  bool emit_final = false;
  bool in_memory_store = false;   // Time windows only: the in-memory window store (KIP-428).
  int64_t emit_interval_ms = 50;  // Emit-final's emit interval (E5).
  // processing.guarantee (exactly_once_v2 or at_least_once) and an isolation level.
  std::map<std::string, std::string> streams_config;
};

// {"window": {"kind": "time", "size_ms", "advance_ms", "grace_ms"} (sliding: "time_difference_ms",
// session: "gap_ms"), "emit": "ON_WINDOW_UPDATE"|"ON_WINDOW_CLOSE", "emit_interval_ms" (optional,
// default 50), "store":
// "persistent"|"in_memory", "streams_config": {...}}, and back. ConfigFromJson: InvalidArgument
// naming the field for anything missing or of the wrong type.
Json ConfigToJson(const WindowedAggregationConfig& config);
Status ConfigFromJson(const Json& json, WindowedAggregationConfig* config);

// Time windows (tumbling, hopping, over both stores), sliding and session windows × emit-eager
// and emit-final, under exactly_once_v2 (READ_COMMITTED; READ_UNCOMMITTED, which wipes after a
// crash) and at_least_once.
std::vector<WindowedAggregationConfig> WindowedAggregationMatrix();

// Runs the property. A failure's shrunk case is also written to `params.trace_dir` (if set) as a
// windowed trace, and `trace_path` names it.
PropertyOutcome CheckWindowedAggregationMatchesModel(const WindowedAggregationConfig& config,
                                                     const PropertyParams& params);

// E7, differentially: for random timestamped input (then one record late enough to close every
// window), emit-final's output equals suppress(untilWindowCloses) over emit-eager's — the same
// windows, values and timestamps, in the same order, per key. `config`'s time windows; its emit
// strategy is ignored.
PropertyOutcome CheckEmitFinalEqualsSuppressedEager(const WindowedAggregationConfig& config,
                                                    const PropertyParams& params);
// The configurations E7's differential runs for: one per time-window shape (the eager,
// persistent, exactly-once ones of the matrix; the differential sets the rest itself).
bool IsE7WindowShape(const WindowedAggregationConfig& config);

// A windowed trace (JSON Lines): a header {"statecheck_trace": 1, "kind": "windowed", "config":
// ConfigToJson, and carried along: property, seed, reproduce, failure}, then one operation per
// line: {"op":"append","records":[["a",10],["",-1]]}, {"op":"process","max_records":3},
// {"op":"advanceClock","ms":50}, {"op":"commit"}, {"op":"crash"}, {"op":"restart"}, each with an
// optional "expect": {"emitted": [{"window":[start,end],"key":K,"value":V,"timestamp":T}, ...]
// (the output this step made visible: committed; written under at_least_once), "dropped_records": N
// (the task's count after it)}.
struct WindowedTrace {
  WindowedAggregationConfig config;
  Json info;                                // The header.
  std::vector<std::pair<int, Json>> steps;  // (line, operation).
};

// Reads a windowed trace. InvalidArgument "line N: <what is wrong>" for a malformed one.
Status ReadWindowedTrace(const std::string& path, WindowedTrace* trace);

struct WindowedReplayOutcome {
  int steps_run = 0;  // Steps that passed every check.
  bool diverged = false;
  int step = 0;  // 1-based, of the failing step (0: opening the task failed).
  int line = 0;
  std::string op;
  std::string message;  // What the checks said.
};

// Runs the trace's operations on the engine and the model, checking as the property does and
// checking each step's "expect".
Status ReplayWindowedTrace(const WindowedTrace& trace, WindowedReplayOutcome* out);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_PROPERTY_H_
