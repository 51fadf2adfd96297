// The windowed aggregation property (SPEC E1–E6, E10): random sequences of timestamped input
// records (keys that are byte-prefixes of others, an empty "null" key, records with no
// timestamp, late and out-of-order timestamps around window ends and end + grace), processing,
// wall-clock advances, commits, crashes and clean restarts run a task with a windowed aggregation
// — time windows (statecheck/windowed_aggregation.h, over the persistent or the in-memory window
// store), sliding windows (sliding_aggregation.h), session windows (session_aggregation.h) or
// unlimited windows (unlimited_aggregation.h); a count, or over time and unlimited windows
// Kafka's test reduce or aggregate of the records' values (model::AggregatorKind) — in lockstep
// with the window kind's reference model (model/aggregation_model.h).
//
// After every step: the task's dropped-records count (E1), the committed output equals the
// model's — under exactly_once_v2 no window is emitted twice or lost across a crash (E6); under
// at_least_once the model says what is emitted again —, the committed input offset (C1), and the
// last emitted close time in the committed metadata, read by the property's own parser (E10).
// After every restart: the store, read by the property's own decoder (aggregation_stores.h),
// holds exactly the model's committed aggregates (E6). At a clean restart under emit-final the
// property adds to the committed metadata a lower entry of the task's store and a higher one of
// another store, so that the task starts from metadata it must merge by max (E10).
//
// The family is declared to the state-machine kit (kit/family.h). A failure's shrunk case is
// written as a windowed trace (docs/traces.md): the configuration, then each step with what the
// model emitted and dropped in it, recorded as the case ran, so `statecheck replay` runs it again
// against the engine and the model.
#ifndef STATECHECK_PROPERTIES_WINDOWED_PROPERTY_H_
#define STATECHECK_PROPERTIES_WINDOWED_PROPERTY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "properties/kit/json_lines.h"
#include "properties/kit/outcome.h"
#include "properties/kit/trace.h"
#include "properties/windowed/ops.h"
#include "statecheck/task.h"

namespace statecheck::properties::windowed {

// WindowKind, Config and their JSON (ConfigToJson, ConfigFromJson): in ops.h.

// Time windows (tumbling, hopping, over both stores), sliding and session windows × emit-eager
// and emit-final, unlimited windows (emit-eager), under exactly_once_v2 (READ_COMMITTED;
// READ_UNCOMMITTED, which wipes after a crash) and at_least_once.
std::vector<Config> Matrix();

// Runs the property. A failure's shrunk case is also written to `params.trace_dir` (if set) as a
// windowed trace, and `trace_path` names it.
//
// A failing check is credited to the one rule the difference breaks (PropertyOutcome::rule),
// decided from what differs and what the model knows: the dropped-records count → E1; in the
// output (emit-eager) an update of a window the model dropped a late record from, or a missing
// one accepted exactly at the grace bound → E1, an update emitted again after a restart → E6,
// any other → E2; (emit-final) windows that closed together in another order → E4, a window
// emitted again after a restart → E6, a closed window not emitted that had closed before a
// restart → E6, a window emitted while the emit interval held emission back or an attempt
// exactly one interval after the last that emitted nothing → E5, any other (emitted before it
// closed, twice, never, with a wrong aggregate) → E3; the store after a restart → E6; the
// committed input offset → C1; the last emitted close time in the committed metadata → E10.
// The situations of E1–E6 and E10 (reports/rules.json) count when a case reached them and the
// step's checks held afterwards (after the commit that made their output visible, under
// exactly_once_v2).
PropertyOutcome CheckMatchesModel(const Config& config, const PropertyParams& params);
// The same against a deliberately wrong system, for tests: `wrap` wraps each aggregation
// processor the property makes.
using ProcessorWrapper = std::function<std::unique_ptr<Processor>(std::unique_ptr<Processor>)>;
PropertyOutcome CheckMatchesModel(const Config& config, const PropertyParams& params,
                                  const ProcessorWrapper& wrap);

// E7, differentially: for random timestamped input (then one record late enough to close every
// window), emit-final's output equals suppress(untilWindowCloses) over emit-eager's — the same
// windows, values and timestamps, in the same order, per key. `config`'s time windows; its emit
// strategy is ignored.
PropertyOutcome CheckEmitFinalEqualsSuppressedEager(const Config& config,
                                                    const PropertyParams& params);
// The configurations E7's differential runs for: one per time-window shape (the eager,
// persistent, exactly-once ones of the matrix; the differential sets the rest itself).
bool IsE7WindowShape(const Config& config);

// Replays `trace` on the engine and the model, checking as the property does and checking each
// step's "expect" (the kit's replay, kit/family.h). InvalidArgument when the configuration cannot
// run (bad input); a start that fails otherwise is a divergence at step 0, credited to the rule
// of the output the configuration makes.
Status Replay(const kit::Trace<Vocabulary>& trace, TraceReplay* out);

// The registry's entry: the matrix's properties, E7's differential, and the traces.
FamilyEntry Entry();

}  // namespace statecheck::properties::windowed

#endif  // STATECHECK_PROPERTIES_WINDOWED_PROPERTY_H_
