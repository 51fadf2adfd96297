// A trace of any kind (docs/traces.md) replayed on the engine and the model together: what
// `statecheck replay` prints and what the campaign's regression corpus (regressions/) checks.
#ifndef STATECHECK_PROPERTIES_TRACE_REPLAY_H_
#define STATECHECK_PROPERTIES_TRACE_REPLAY_H_

#include <string>
#include <string_view>

#include "properties/kit/outcome.h"
#include "statecheck/status.h"

namespace statecheck::properties {

// Reads and replays the trace at `path`. `target` chooses what a trace runs on, where its kind
// takes more than the engine and the model together (kBoth). Returns
// InvalidArgument — bad input, not a divergence — when the file is unreadable or malformed (the
// message names the line and says where the format is described), when its config cannot run,
// or for a `target` its kind does not take. REQUIRES: out != nullptr.
Status ReplayTraceFile(const std::string& path, ReplayTarget target, TraceReplay* out);

// ReplayTraceFile of a trace's text (`path` names it in messages).
Status ReplayTraceText(std::string_view text, const std::string& path, ReplayTarget target,
                       TraceReplay* out);

// `statecheck replay --emit-gtest`: the trace at `path` as a GoogleTest named `test_name` (empty:
// from the file's name), in the test form of its kind (TraceKindSpec::emit_gtest).
// InvalidArgument naming the file for bad input, or for a kind with no test form.
Status EmitGTestFile(const std::string& path, std::string test_name, std::string* out);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_TRACE_REPLAY_H_
