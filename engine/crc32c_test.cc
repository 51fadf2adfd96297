#include "engine/crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace statecheck::internal {
namespace {

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  // RFC 3720 (iSCSI), B.4: 32 bytes of zeros.
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
}

TEST(Crc32c, ExtendsAcrossPieces) {
  EXPECT_EQ(Crc32c("6789", Crc32c("12345")), Crc32c("123456789"));
}

TEST(Crc32c, DetectsOneBitFlip) {
  std::string s = "statecheck log record";
  const uint32_t before = Crc32c(s);
  s[3] ^= 0x10;
  EXPECT_NE(Crc32c(s), before);
}

}  // namespace
}  // namespace statecheck::internal
