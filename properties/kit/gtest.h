// `statecheck replay TRACE --emit-gtest` for a family on the kit: a GoogleTest holding the trace,
// replayed through the harness's registry. A family with a test form of its own (the window
// store's, on the engine's public API) sets its TraceKindSpec::emit_gtest instead.
#ifndef STATECHECK_PROPERTIES_KIT_GTEST_H_
#define STATECHECK_PROPERTIES_KIT_GTEST_H_

#include <string>
#include <string_view>

#include "statecheck/status.h"

namespace statecheck::properties::kit {

// The test source for a trace of `kind` whose steps run through the harness, not the engine's
// public API alone: TEST(ReplayedTrace, <test_name>) holds the trace's `text` and replays it
// through the registry (ReplayTraceText), engine and model together, and expects no divergence.
// InvalidArgument as GTestName's.
Status EmitReplayGTest(std::string_view text, const std::string& kind, const std::string& source,
                       std::string test_name, std::string* out);

// `*test_name`, or (empty) one made of the source's file name ("drop-rule.jsonl" → "DropRule");
// InvalidArgument for a name that is not a C++ identifier of letters and digits.
Status GTestName(const std::string& source, std::string* test_name);

}  // namespace statecheck::properties::kit

#endif  // STATECHECK_PROPERTIES_KIT_GTEST_H_
