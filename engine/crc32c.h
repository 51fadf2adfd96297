// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven. Internal to the engine:
// the log's record checksum. RocksDB has one too, but it is not part of RocksDB's public API.
#ifndef STATECHECK_ENGINE_CRC32C_H_
#define STATECHECK_ENGINE_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace statecheck::internal {

// Returns the CRC-32C of `data` continued from `crc`, the CRC of the bytes before it (0 for
// none): Crc32c(b, Crc32c(a)) == Crc32c(a + b). Crc32c("123456789") == 0xE3069283.
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_CRC32C_H_
