// libFuzzer target: any bytes as a task trace (task/ops.h, read by the kit's parser,
// kit/trace.h). Built only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// properties/task/fuzz_corpus/. Its invariants are the kit's (kit::FuzzTraceText): an error names
// a line of the text and leaves the caller's trace alone; an accepted trace formats to one that
// reads back and formats the same.
#include <cstddef>
#include <cstdint>

#include "properties/kit/trace.h"
#include "properties/task/ops.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return statecheck::properties::kit::FuzzTraceText<statecheck::properties::task::Vocabulary>(
      "task_trace_fuzz", data, size);
}
