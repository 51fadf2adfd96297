#include "engine/log/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define STATECHECK_CRC32C_X86 1
#endif

namespace statecheck::internal {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78;  // Castagnoli, bit-reversed.

// kTables[0] is the classic byte table; kTables[k][i] is the CRC of byte i followed by k zero
// bytes, so that eight bytes are folded with eight lookups (slicing by 8).
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (size_t k = 1; k < t.size(); ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

uint32_t Load32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;  // Little-endian hosts only: the x86-64 and aarch64 machines the engine builds on.
}

uint32_t Software(const unsigned char* p, size_t n, uint32_t c) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "slicing by 8 assumes little-endian");
  for (; n >= 8; p += 8, n -= 8) {
    const uint32_t lo = Load32(p) ^ c;
    const uint32_t hi = Load32(p + 4);
    c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
        kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; ++p, --n) c = kTables[0][(c ^ *p) & 0xff] ^ (c >> 8);
  return c;
}

#ifdef STATECHECK_CRC32C_X86
__attribute__((target("sse4.2"))) uint32_t Hardware(const unsigned char* p, size_t n, uint32_t c) {
  uint64_t c64 = c;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    c64 = _mm_crc32_u64(c64, v);
  }
  c = static_cast<uint32_t>(c64);
  for (; n > 0; ++p, --n) c = _mm_crc32_u8(c, *p);
  return c;
}

// Detected once, at load. __builtin_cpu_init first: a static initializer may run before the
// compiler runtime's own CPU detection.
bool DetectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
const bool kHasHardware = DetectHardware();
#else
const bool kHasHardware = false;
#endif

const unsigned char* Bytes(std::string_view data) {
  return reinterpret_cast<const unsigned char*>(data.data());
}

}  // namespace

uint32_t Crc32cSoftware(std::string_view data, uint32_t crc) {
  return ~Software(Bytes(data), data.size(), ~crc);
}

uint32_t Crc32c(std::string_view data, uint32_t crc) {
#ifdef STATECHECK_CRC32C_X86
  if (kHasHardware) return ~Hardware(Bytes(data), data.size(), ~crc);
#endif
  return Crc32cSoftware(data, crc);
}

bool Crc32cUsesHardware() { return kHasHardware; }

}  // namespace statecheck::internal
