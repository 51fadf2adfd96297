// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78). Internal to the engine: the log's
// record checksum. RocksDB has one too, but it is not part of RocksDB's public API.
//
// Crc32c uses the CPU's CRC32 instruction where there is one (x86-64 with SSE4.2, checked once
// at run time) and otherwise a table-driven software version (slicing by 8); the two agree on
// every input (crc32c_test.cc checks it), so a log written by either reads back with the other.
#ifndef STATECHECK_ENGINE_CRC32C_H_
#define STATECHECK_ENGINE_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace statecheck::internal {

// Returns the CRC-32C of `data` continued from `crc`, the CRC of the bytes before it (0 for
// none): Crc32c(b, Crc32c(a)) == Crc32c(a + b). Crc32c("123456789") == 0xE3069283.
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);

// The software version alone (what Crc32c falls back to), for tests and benchmarks.
uint32_t Crc32cSoftware(std::string_view data, uint32_t crc = 0);

// Whether Crc32c uses the CPU's instruction on this machine.
bool Crc32cUsesHardware();

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_CRC32C_H_
