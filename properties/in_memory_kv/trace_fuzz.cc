// libFuzzer target: any bytes as an in_memory_kv trace (in_memory_kv/ops.h, read by the kit's
// parser, kit/trace.h). Built only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// properties/in_memory_kv/fuzz_corpus/. Its invariants are the kit's (kit::FuzzTraceText).
#include <cstddef>
#include <cstdint>

#include "properties/in_memory_kv/ops.h"
#include "properties/kit/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return statecheck::properties::kit::FuzzTraceText<
      statecheck::properties::in_memory_kv::Vocabulary>("in_memory_kv_trace_fuzz", data, size);
}
