// The log's record checksum (engine/log/crc32c.h) per record size: the CPU's instruction (what the
// log uses where there is one), the software fallback (slicing by 8), and the byte-at-a-time
// table the log used before both. A program to run by hand, not a test:
//   build/release/engine/crc32c_bench
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/log/crc32c.h"

namespace statecheck::internal {
namespace {

// The previous implementation, kept here as the baseline.
uint32_t ByteAtATime(std::string_view data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ 0x82F63B78 : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = ~0u;
  for (unsigned char byte : data) c = table[(c ^ byte) & 0xff] ^ (c >> 8);
  return ~c;
}

enum Way { kHardware, kSoftware, kByteAtATime };

void BM_Crc32c(benchmark::State& state) {
  const Way way = static_cast<Way>(state.range(0));
  const std::string data(static_cast<size_t>(state.range(1)), 'x');
  if (way == kHardware && !Crc32cUsesHardware()) {
    state.SkipWithError("no CRC32 instruction on this machine");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(way == kHardware   ? Crc32c(data)
                             : way == kSoftware ? Crc32cSoftware(data)
                                                : ByteAtATime(data));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(1));
  state.SetLabel(way == kHardware   ? "instruction"
                 : way == kSoftware ? "slicing by 8"
                                    : "byte table");
}
// 40 bytes: a small log record; 120: a changelog record of a short key and value; 4 KiB: a batch.
BENCHMARK(BM_Crc32c)->ArgsProduct({{kHardware, kSoftware, kByteAtATime}, {40, 120, 4096}});

}  // namespace
}  // namespace statecheck::internal

BENCHMARK_MAIN();
