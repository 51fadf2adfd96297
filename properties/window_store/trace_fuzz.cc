// libFuzzer target: any bytes as a window_store trace (window_store/ops.h, read by the kit's
// parser, kit/trace.h). Built only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// properties/window_store/fuzz_corpus/. Its invariants are the kit's (kit::FuzzTraceText): an
// error names a line of the text and leaves the caller's trace alone; an accepted trace formats
// to one that reads back and formats the same.
#include <cstddef>
#include <cstdint>

#include "properties/kit/trace.h"
#include "properties/window_store/ops.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return statecheck::properties::kit::FuzzTraceText<
      statecheck::properties::window_store::Vocabulary>("window_store_trace_fuzz", data, size);
}
