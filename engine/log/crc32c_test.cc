#include "engine/log/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace statecheck::internal {
namespace {

TEST(Crc32c, KnownVectors) {
  for (auto crc : {Crc32c, Crc32cSoftware}) {
    EXPECT_EQ(crc("", 0), 0u);
    EXPECT_EQ(crc("123456789", 0), 0xE3069283u);
    // RFC 3720 (iSCSI), B.4: 32 bytes of zeros, of ones, ascending and descending bytes.
    EXPECT_EQ(crc(std::string(32, '\0'), 0), 0x8A9136AAu);
    EXPECT_EQ(crc(std::string(32, '\xff'), 0), 0x62A8AB43u);
    std::string ascending, descending;
    for (int i = 0; i < 32; ++i) {
      ascending.push_back(static_cast<char>(i));
      descending.push_back(static_cast<char>(31 - i));
    }
    EXPECT_EQ(crc(ascending, 0), 0x46DD794Eu);
    EXPECT_EQ(crc(descending, 0), 0x113FDB5Cu);
  }
}

TEST(Crc32c, ExtendsAcrossPieces) {
  EXPECT_EQ(Crc32c("6789", Crc32c("12345")), Crc32c("123456789"));
  EXPECT_EQ(Crc32cSoftware("6789", Crc32cSoftware("12345")), Crc32c("123456789"));
}

// The CPU's instruction (where this machine has it) and the software version agree on every
// length from 0 to 300 bytes, at every alignment of the first byte, and across pieces split
// anywhere: a log written with one reads back with the other.
TEST(Crc32c, HardwareAndSoftwareAgreeOnEveryLengthAndAlignment) {
  std::mt19937_64 rng(20261202);
  std::string buffer(300 + 8, '\0');
  for (char& c : buffer) c = static_cast<char>(rng());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t length = 0; offset + length <= buffer.size() && length <= 300; ++length) {
      const std::string_view data(buffer.data() + offset, length);
      const uint32_t seed = static_cast<uint32_t>(rng());
      ASSERT_EQ(Crc32c(data, seed), Crc32cSoftware(data, seed))
          << "length " << length << ", offset " << offset;
      const size_t split = length / 3;
      ASSERT_EQ(Crc32c(data.substr(split), Crc32cSoftware(data.substr(0, split))), Crc32c(data));
    }
  }
  RecordProperty("hardware", Crc32cUsesHardware() ? "yes" : "no");
}

TEST(Crc32c, DetectsOneBitFlip) {
  std::string s = "statecheck log record";
  const uint32_t before = Crc32c(s);
  s[3] ^= 0x10;
  EXPECT_NE(Crc32c(s), before);
}

}  // namespace
}  // namespace statecheck::internal
