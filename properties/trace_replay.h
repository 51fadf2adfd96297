// A trace of any kind (docs/traces.md) replayed on the engine and the model together: what
// `statecheck replay` prints and what the campaign's regression corpus (regressions/) checks.
#ifndef STATECHECK_PROPERTIES_TRACE_REPLAY_H_
#define STATECHECK_PROPERTIES_TRACE_REPLAY_H_

#include <string>

#include "properties/window_store_trace.h"
#include "statecheck/status.h"

namespace statecheck::properties {

struct TraceReplay {
  std::string kind;              // The header's: "window_store", "task" or "windowed".
  std::string family;            // The property family it belongs to (the same three names).
  std::string description;       // "9 steps against both", "6 steps of task configuration ...".
  std::string recorded_failure;  // The header's "failure", if any.
  int steps = 0;                 // In the trace.
  int steps_run = 0;             // That passed every check.
  bool diverged = false;
  // On divergence: the step's 1-based index and line, its operation, what the check said and
  // the rule it cites ("" when its check cites none: a window-store expectation).
  int step = 0;
  int line = 0;
  std::string op;
  std::string message;
  std::string rule;
  // What `statecheck replay` prints after its header: "OK: all N steps ..." or "DIVERGED at
  // step N (line L)..." and the details, ending with a newline.
  std::string verdict;
};

// Reads and replays the trace at `path`. `target` chooses what a window-store trace runs on;
// the other kinds run on the engine and the model together (kBoth) only. Returns
// InvalidArgument — bad input, not a divergence — when the file is unreadable or malformed (the
// message names the line and says where the format is described), when its config cannot run,
// or for a `target` its kind does not take. REQUIRES: out != nullptr.
Status ReplayTraceFile(const std::string& path, ReplayTarget target, TraceReplay* out);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_TRACE_REPLAY_H_
