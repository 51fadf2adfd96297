// `statecheck replay TRACE --emit-gtest`: a window-store trace as a GoogleTest that runs its
// steps on the engine through the public API alone (statecheck/in_memory_window_store.h), each
// recorded expectation an EXPECT — ready to paste into a user's own test file.
#ifndef STATECHECK_PROPERTIES_GTEST_EMITTER_H_
#define STATECHECK_PROPERTIES_GTEST_EMITTER_H_

#include <string>
#include <string_view>

#include "properties/window_store_trace.h"
#include "statecheck/status.h"

namespace statecheck::properties {

// The test source for `trace`, read from `source` (named in the file's first comment and in each
// EXPECT's message with the step's line). The test is TEST(ReplayedTrace, <test_name>); an empty
// `test_name` is made from the source's file name. Expectations are partial, as in a replay:
// only the fields a step's "expect" names are checked. InvalidArgument for a test name that is
// not a C++ identifier. REQUIRES: out != nullptr.
Status EmitGTest(const Trace& trace, const std::string& source, std::string test_name,
                 std::string* out);

// The test source for a trace of a kind on the state-machine kit (kv_store, ...), whose steps run
// through the harness, not the engine's public API alone: TEST(ReplayedTrace, <test_name>) holds
// the trace's `text` and replays it through the registry (ReplayTraceText), engine and model
// together, and expects no divergence. `kind` is the header's. InvalidArgument as EmitGTest's.
Status EmitReplayGTest(std::string_view text, const std::string& kind, const std::string& source,
                       std::string test_name, std::string* out);

// `*test_name`, or (empty) one made of the source's file name ("drop-rule.jsonl" → "DropRule");
// InvalidArgument for a name that is not a C++ identifier of letters and digits.
Status GTestName(const std::string& source, std::string* test_name);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_GTEST_EMITTER_H_
