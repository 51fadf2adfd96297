// Window-store traces: a replayable record of one run, as JSON Lines (docs/traces.md).
//
// Line 1 is the header: the store configuration, and optionally the construction outcome it
// expects, the seed and reproduce string of the run that wrote it. Every further line is one Op
// (window_store_ops.h), optionally with "expect": the result it must produce. Expectations are
// partial: only the fields they name are compared, so a hand-written trace may check just a
// value, and "after" (the store's counters and stream time after the step) may be left out.
#ifndef STATECHECK_PROPERTIES_WINDOW_STORE_TRACE_H_
#define STATECHECK_PROPERTIES_WINDOW_STORE_TRACE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/kit/outcome.h"
#include "properties/window_store_ops.h"
#include "statecheck/status.h"

namespace statecheck::properties {

struct TraceStep {
  Op op;
  std::optional<Json> expect;
  int line = 0;  // 1-based line in the file it was read from.
};

struct Trace {
  WindowStoreOptions config;
  // {"status": "OK"} or {"status": "InvalidArgument", "message": "..."} (W1); absent = any.
  std::optional<Json> construction;
  // seed, reproduce, property, failure (written by the harness), note (free text for a
  // hand-written trace): carried, not checked.
  Json info = Json::object();
  std::vector<TraceStep> steps;
};

// Parses a trace. InvalidArgument "line N: <what is wrong>" for malformed JSON, an unknown op,
// an unknown key (in the header, the config, construction or a step), a missing field, an
// iterator used before it was opened or after it was closed, or a reused iterator id. Blank
// lines are ignored anywhere.
Status ParseTrace(std::string_view text, Trace* trace);
Status ReadTraceFile(const std::string& path, Trace* trace);
// The JSON Lines text of a trace (ParseTrace reads it back to an equal trace).
std::string FormatTrace(const Trace& trace);
Status WriteTraceFile(const std::string& path, const Trace& trace);

// A step's full result: OpRunner::Apply's, plus "after": the counters and stream time.
Json StepResult(OpRunner& runner, const Op& op);
struct ReplayOutcome {
  // Not OK when the trace cannot be replayed to check anything (its config builds no store and
  // the header does not expect that): bad input, not a divergence.
  Status error;
  bool diverged = false;
  int steps_run = 0;
  // On divergence: where, and what was expected against what happened.
  int step = 0;  // 0 = construction, else the step's 1-based index.
  int line = 0;
  std::string what;  // "engine vs trace", "engine vs model", ...
  std::string op;
  Json expected;
  Json actual;
  // The rule the difference breaks, as the property credits it (window_store_attribution.h):
  // the engine's result against the model's, which runs beside the engine even when the trace
  // replays against the engine alone (a `model` that is not the window-store model credits
  // nothing). "" for a difference the engine is not to blame for: the model or both against
  // the trace.
  std::string rule;
};

// Runs the trace step by step against the engine, the model, or both in lockstep (then the
// two must also agree with each other), stopping at the first divergence (window_store_replay.cc).
ReplayOutcome ReplayTrace(const Trace& trace, ReplayTarget target, const WindowStoreFactory& engine,
                          const WindowStoreFactory& model);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_WINDOW_STORE_TRACE_H_
