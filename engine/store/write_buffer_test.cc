#include "engine/store/write_buffer.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace statecheck::internal {
namespace {

using Entries = std::vector<std::pair<std::string, std::optional<std::string>>>;

Entries Contents(const WriteBuffer& buffer) {
  Entries out;
  for (const auto& [key, slot] : buffer) {
    const std::optional<std::string_view> v = slot.value();
    out.emplace_back(std::string(key), v ? std::optional<std::string>(*v) : std::nullopt);
  }
  return out;
}

TEST(WriteBufferTest, KeepsTheLastWriteOfEachKeyInKeyOrder) {
  WriteBuffer buffer;
  EXPECT_EQ(buffer.Put("b", "1"), std::nullopt);
  EXPECT_EQ(buffer.Put("a", std::nullopt), std::nullopt);
  EXPECT_EQ(buffer.Put("c", ""), std::nullopt);
  EXPECT_EQ(buffer.Put("b", "22"), 2);  // Replaces "b" = "1": 1 + 1 bytes.
  EXPECT_EQ(buffer.Put("a", "x"), 1);   // Replaces a delete: the key's byte.
  EXPECT_EQ(buffer.Put("b", std::nullopt), 3);
  EXPECT_EQ(Contents(buffer), (Entries{{"a", "x"}, {"b", std::nullopt}, {"c", ""}}));
  ASSERT_NE(buffer.Find("c"), nullptr);
  EXPECT_EQ(buffer.Find("c")->value(), std::optional<std::string_view>(""));
  EXPECT_EQ(buffer.Find("b")->value(), std::nullopt);
  EXPECT_EQ(buffer.Find("d"), nullptr);
  EXPECT_EQ(buffer.lower_bound("bb")->first, "c");
  buffer.Clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.arena_bytes(), 0u);
  EXPECT_EQ(buffer.Find("a"), nullptr);
}

// An aggregation updates one key many times between commits: a value that fits reuses its
// bytes, so the arena does not grow with the updates.
TEST(WriteBufferTest, AnOverwriteThatFitsReusesItsBytes) {
  WriteBuffer buffer;
  buffer.Put("window", "0000000001");
  const size_t after_first = buffer.arena_bytes();
  for (int i = 0; i < 10'000; ++i) buffer.Put("window", std::to_string(1'000'000'000 + i));
  buffer.Put("window", "short");
  EXPECT_EQ(buffer.arena_bytes(), after_first);
  EXPECT_EQ(buffer.Find("window")->value(), std::optional<std::string_view>("short"));
  buffer.Put("window", "a value longer than the first");  // Does not fit: new bytes.
  EXPECT_EQ(buffer.arena_bytes(), after_first + 29);
  EXPECT_EQ(buffer.Find("window")->value(),
            std::optional<std::string_view>("a value longer than the first"));
}

// Against std::map, the buffer it replaced: random keys and values across block boundaries,
// values larger than a block, deletes, overwrites, clears.
TEST(WriteBufferTest, AgreesWithAMapOverRandomWrites) {
  std::mt19937_64 rng(7);
  WriteBuffer buffer;
  std::map<std::string, std::optional<std::string>> model;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 20'000; ++i) {
      const std::string key = "k" + std::to_string(rng() % 3'000);
      std::optional<std::string> value;
      if (rng() % 5 != 0) {
        const size_t size = rng() % 50 == 0 ? 100'000 + rng() % 100'000 : rng() % 300;
        value = std::string(size, static_cast<char>('a' + rng() % 26));
      }
      auto it = model.find(key);
      std::optional<int64_t> want;
      if (it != model.end()) {
        want = static_cast<int64_t>(key.size() + (it->second ? it->second->size() : 0));
      }
      ASSERT_EQ(buffer.Put(key, value), want) << key;
      model[key] = value;
    }
    ASSERT_EQ(buffer.size(), model.size());
    EXPECT_EQ(Contents(buffer), Entries(model.begin(), model.end()));
    buffer.Clear();
    model.clear();
  }
}

}  // namespace
}  // namespace statecheck::internal
