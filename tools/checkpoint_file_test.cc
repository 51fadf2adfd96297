#include "tools/checkpoint_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "testing/test_util.h"

namespace statecheck::tools {
namespace {

namespace fs = std::filesystem;

class CheckpointFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("statecheck_checkpoint_file_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / kCheckpointFileName).string();
  }
  void TearDown() override { fs::remove_all(dir_.parent_path()); }

  void WriteText(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }

  fs::path dir_;
  std::string path_;
};

TEST_F(CheckpointFileTest, ReadsEntriesAndWarnings) {
  WriteText("0\n3\napp-kv-changelog-0_0 0 17\ninput 0 -4\nother 1 -2\n");
  CheckpointFile file;
  ASSERT_OK(ReadCheckpointFile(path_, &file));
  EXPECT_EQ(file.path, path_);
  EXPECT_EQ(file.entries,
            (CheckpointOffsets{{{"app-kv-changelog-0_0", 0}, 17}, {{"input", 0}, kOffsetUnknown}}));
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_NE(file.warnings[0].find("skipping invalid offset -2 for other-1"), std::string::npos)
      << file.warnings[0];
}

TEST_F(CheckpointFileTest, MissingFileIsNoSuchFile) {
  CheckpointFile file;
  const Status s = ReadCheckpointFile(path_, &file);
  EXPECT_EQ(s.code(), Status::Code::kNotFound) << s;
  EXPECT_EQ(s.message(), path_ + ": no such file");
}

TEST_F(CheckpointFileTest, DamagedFileGivesTheReadersError) {
  WriteText("1\n0\n");
  CheckpointFile file;
  const Status s = ReadCheckpointFile(path_, &file);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
  EXPECT_EQ(s.message(), path_ + ": Unknown offset checkpoint version: 1");
  EXPECT_TRUE(file.entries.empty());
  CheckpointOffsets offsets;
  EXPECT_EQ(s, ReadOffsetCheckpoint(nullptr, path_, &offsets, nullptr));
}

TEST_F(CheckpointFileTest, TextShowsOneEntryPerLineAndTheUnknownOffset) {
  EXPECT_EQ(FormatCheckpointEntries({{{"b", 0}, 0}, {{"a", 2}, kOffsetUnknown}, {{"a", 1}, 7}}),
            "a 1 7\na 2 -4 (unknown)\nb 0 0\n");
  EXPECT_EQ(FormatCheckpointEntries({}), "");
}

TEST_F(CheckpointFileTest, JsonHasTheFileEntriesAndWarnings) {
  WriteText("0\n2\na 0 -4\nb 3 -1\n");
  CheckpointFile file;
  ASSERT_OK(ReadCheckpointFile(path_, &file));
  const auto json = CheckpointFileJson(file);
  EXPECT_EQ(json["file"], path_);
  ASSERT_EQ(json["entries"].size(), 1u);
  EXPECT_EQ(json["entries"][0]["topic"], "a");
  EXPECT_EQ(json["entries"][0]["partition"], 0);
  EXPECT_EQ(json["entries"][0]["offset"], -4);
  EXPECT_EQ(json["entries"][0]["unknown"], true);
  ASSERT_EQ(json["warnings"].size(), 1u);
  EXPECT_NE(json["warnings"][0].get<std::string>().find("-1"), std::string::npos);
}

// The command-line form of an entry, TOPIC:PARTITION=OFFSET (a topic may hold colons; the last
// one before the '=' ends it), and what it refuses.
TEST(CheckpointEntry, ParsesTopicPartitionAndOffset) {
  CheckpointOffsets entries;
  ASSERT_OK(ParseCheckpointEntry("app-kv-changelog-0_0:0=17", &entries));
  ASSERT_OK(ParseCheckpointEntry("odd:name:3=-4", &entries));
  EXPECT_EQ(entries, (CheckpointOffsets{{{"app-kv-changelog-0_0", 0}, 17},
                                        {{"odd:name", 3}, kOffsetUnknown}}));
  for (const char* bad : {"topic=1", ":0=1", "t:x=1", "t:0=", "t:0=1.5", "t:99999999999=1",
                          "t:0=99999999999999999999"}) {
    const Status s = ParseCheckpointEntry(bad, &entries);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find(std::string("\"") + bad + "\""), std::string::npos) << s;
  }
  const Status twice = ParseCheckpointEntry("odd:name:3=5", &entries);
  EXPECT_NE(twice.message().find("given twice"), std::string::npos) << twice;
}

// Kafka's OffsetCheckpoint rules, through the engine's writer: entries written read back; an
// empty map deletes the file; a negative offset other than -4 is refused and the old file kept;
// a missing directory is named.
TEST_F(CheckpointFileTest, WriteKeepsKafkasWriterRules) {
  const CheckpointOffsets offsets{{{"input", 0}, 12}, {{"kv-changelog", 0}, kOffsetUnknown}};
  ASSERT_OK(WriteCheckpointFile(path_, offsets));
  CheckpointFile file;
  ASSERT_OK(ReadCheckpointFile(path_, &file));
  EXPECT_EQ(file.entries, offsets);
  const Status negative = WriteCheckpointFile(path_, {{{"input", 0}, -2}});
  EXPECT_EQ(negative.code(), Status::Code::kInvalidArgument) << negative;
  ASSERT_OK(ReadCheckpointFile(path_, &file));
  EXPECT_EQ(file.entries, offsets);
  ASSERT_OK(WriteCheckpointFile(path_, {}));
  EXPECT_FALSE(fs::exists(path_));
  ASSERT_OK(WriteCheckpointFile(path_, {}));  // Deleting a missing file is fine.
  const std::string missing = (dir_ / "no-such-dir" / kCheckpointFileName).string();
  const Status s = WriteCheckpointFile(missing, offsets);
  EXPECT_EQ(s.code(), Status::Code::kNotFound) << s;
  EXPECT_NE(s.message().find((dir_ / "no-such-dir").string() + ": no such directory"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace statecheck::tools
