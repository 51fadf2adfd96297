// `statecheck replay TRACE --emit-gtest`: a window-store trace as a GoogleTest that runs its
// steps on the engine through the public API alone (statecheck/in_memory_window_store.h), each
// recorded expectation an EXPECT — ready to paste into a user's own test file.
#ifndef STATECHECK_PROPERTIES_WINDOW_STORE_GTEST_EMITTER_H_
#define STATECHECK_PROPERTIES_WINDOW_STORE_GTEST_EMITTER_H_

#include <string>

#include "properties/kit/trace.h"
#include "properties/window_store/ops.h"
#include "statecheck/status.h"

namespace statecheck::properties::window_store {

// The test source for `trace`, read from `source` (named in the file's first comment and in each
// EXPECT's message with the step's line). The test is TEST(ReplayedTrace, <test_name>); an empty
// `test_name` is made from the source's file name. Expectations are partial, as in a replay:
// only the fields a step's "expect" names are checked. InvalidArgument for a test name that is
// not a C++ identifier. REQUIRES: out != nullptr.
Status EmitGTest(const kit::Trace<Vocabulary>& trace, const std::string& source,
                 std::string test_name, std::string* out);

}  // namespace statecheck::properties::window_store

#endif  // STATECHECK_PROPERTIES_WINDOW_STORE_GTEST_EMITTER_H_
