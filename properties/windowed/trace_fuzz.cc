// libFuzzer target: any bytes as a windowed trace (windowed/ops.h, read by the kit's parser,
// kit/trace.h). Built only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// properties/windowed/fuzz_corpus/. Its invariants are the kit's (kit::FuzzTraceText): an error
// names a line of the text and leaves the caller's trace alone; an accepted trace formats to one
// that reads back and formats the same.
#include <cstddef>
#include <cstdint>

#include "properties/kit/trace.h"
#include "properties/windowed/ops.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return statecheck::properties::kit::FuzzTraceText<statecheck::properties::windowed::Vocabulary>(
      "windowed_trace_fuzz", data, size);
}
