#include "model/legacy_file_model.h"

#include <gtest/gtest.h>

#include "statecheck/offset_checkpoint.h"

namespace statecheck::model {
namespace {

TEST(ReadKafkaCheckpoint, ReadsWhatKafkaWritesAndWhatItsReaderAccepts) {
  const KafkaCheckpoint one = {{{"input", 0}, 12}};
  EXPECT_EQ(ReadKafkaCheckpoint("0\n1\ninput 0 12\n"), one);
  EXPECT_EQ(ReadKafkaCheckpoint("0\n1\ninput 0 12"), one);          // No last newline.
  EXPECT_EQ(ReadKafkaCheckpoint("0\r\n1\rinput\t0  +12 \n"), one);  // Java's terminators, \s+.
  EXPECT_EQ(ReadKafkaCheckpoint("+0\n01\ninput 0 012\n"), one);     // parseInt's sign and zeros.
  EXPECT_EQ(ReadKafkaCheckpoint("0\n0\n"), KafkaCheckpoint{});
  EXPECT_EQ(ReadKafkaCheckpoint("0\n1\nkv 0 -4\n"), (KafkaCheckpoint{{{"kv", 0}, -4}}));
}

TEST(ReadKafkaCheckpoint, RefusesWhatKafkaRefusesOrSkips) {
  for (const char* text :
       {"", "0\n", "1\n1\ninput 0 1\n", "0\n2\ninput 0 1\n", "0\n1\ninput 0 1\n\n",
        "0\n1\n input 0 1\n", "0\n1\ninput 0\n", "0\n1\ninput 0 1 2\n", "0\n1\ninput -1 1\n",
        "0\n1\ninput 0 1x\n", "0\n1\ninput 0 -2\n", "0\n2\ninput 0 1\ninput 0 2\n", "0\n-1\n",
        "0\n1\ninput 0 99999999999999999999\n", "0\n1\ninput 0 +\n"}) {
    EXPECT_EQ(ReadKafkaCheckpoint(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(ExpectedLegacyFileDamage, TellsTheThreeOutcomesApart) {
  const std::string file = "0\n1\ninput 0 12\n";
  EXPECT_EQ(ExpectedLegacyFileDamage(file, file), LegacyFileDamage::kUnchanged);
  // '\n' with bit 0 flipped is '\v', whitespace at the end of the last line.
  EXPECT_EQ(ExpectedLegacyFileDamage(file, "0\n1\ninput 0 12\v"), LegacyFileDamage::kUnchanged);
  EXPECT_EQ(ExpectedLegacyFileDamage(file, "0\n1\ninput 0 13\n"), LegacyFileDamage::kUndetectable);
  EXPECT_EQ(ExpectedLegacyFileDamage(file, "0\n1\ninpuu 0 12\n"), LegacyFileDamage::kUndetectable);
  EXPECT_EQ(ExpectedLegacyFileDamage(file, std::string("0\n1\ninput 0 12\0", 15)),
            LegacyFileDamage::kUntrusted);
  EXPECT_EQ(ExpectedLegacyFileDamage(file, std::string("0\n1\ninput\0000 12\n", 15)),
            LegacyFileDamage::kUntrusted);
  EXPECT_EQ(ExpectedLegacyFileDamage(file, "0\n3\ninput 0 12\n"), LegacyFileDamage::kUntrusted);
}

// The model and the engine's reader agree on every damage of one byte: each bit flipped, and the
// byte zeroed.
TEST(ReadKafkaCheckpoint, AgreesWithTheEnginesReaderOnEveryDamagedByte) {
  const std::string file = "0\n2\napp-kv-changelog-0_0 0 15\ninput 0 -4\n";
  for (size_t at = 0; at < file.size(); ++at) {
    for (int bit = -1; bit < 8; ++bit) {
      std::string damaged = file;
      damaged[at] = bit < 0 ? '\0' : static_cast<char>(damaged[at] ^ (1 << bit));
      CheckpointOffsets engine;
      std::vector<std::string> warnings;
      const bool engine_trusts =
          ParseOffsetCheckpoint(damaged, "f", &engine, &warnings).ok() && warnings.empty();
      const std::optional<KafkaCheckpoint> model = ReadKafkaCheckpoint(damaged);
      ASSERT_EQ(engine_trusts, model.has_value()) << "byte " << at << " bit " << bit;
      if (!model) continue;
      KafkaCheckpoint as_model;
      for (const auto& [tp, offset] : engine) as_model[{tp.topic, tp.partition}] = offset;
      EXPECT_EQ(as_model, *model) << "byte " << at << " bit " << bit;
    }
  }
}

}  // namespace
}  // namespace statecheck::model
