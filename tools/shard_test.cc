// ParseShard (tools/shard.h): regressions of what config_fuzz found.
#include "tools/shard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace statecheck::tools {
namespace {

TEST(ParseShard, ReadsIOfN) {
  int i = -1, n = -1;
  ASSERT_TRUE(ParseShard("2/5", &i, &n).ok());
  EXPECT_EQ(i, 2);
  EXPECT_EQ(n, 5);
}

// Regression (config_fuzz): sscanf's %d took spaces and signs (" 1/2", "+0/1", "1/ 2"), read
// past an embedded NUL ("0/1\0x" was 0/1), and overflowed (undefined) on "1/99999999999".
TEST(ParseShard, TakesPlainDigitsOnlyAndLeavesTheOutputOnError) {
  const std::vector<std::string> texts = {" 1/2",
                                          "+0/1",
                                          "1/ 2",
                                          "1/2 ",
                                          std::string("0/1\0x", 5),
                                          "1/99999999999",
                                          "99999999999/1",
                                          "2/2",
                                          "0/0",
                                          "-1/2",
                                          "1",
                                          ""};
  for (const std::string& text : texts) {
    int i = -7, n = -7;
    const Status s = ParseShard(text, &i, &n);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << text;
    EXPECT_NE(s.message().find("--shard takes i/n with 0 <= i < n"), std::string::npos) << s;
    EXPECT_EQ(i, -7) << text;
    EXPECT_EQ(n, -7) << text;
  }
}

}  // namespace
}  // namespace statecheck::tools
