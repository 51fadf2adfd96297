#include "statecheck/offset_checkpoint.h"

#include <gtest/gtest.h>
#include <rocksdb/env.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "testing/test_util.h"

namespace statecheck {
namespace {

namespace fs = std::filesystem;

// "<topic> <partition> <offset>" of each entry, joined by "; ": readable in a failure message.
std::string Entries(const CheckpointOffsets& offsets) {
  std::string out;
  for (const auto& [tp, offset] : offsets) {
    if (!out.empty()) out += "; ";
    out += tp.topic + " " + std::to_string(tp.partition) + " " + std::to_string(offset);
  }
  return out;
}

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Each test writes a checkpoint file's text to disk and reads it with ReadOffsetCheckpoint, so
// that every error is checked to name the file.
class OffsetCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("statecheck_offset_checkpoint_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / kCheckpointFileName).string();
  }
  void TearDown() override { fs::remove_all(dir_.parent_path()); }

  // Writes `text` as the checkpoint file and reads it back into offsets_ and warnings_.
  Status ReadText(std::string_view text) {
    {
      std::ofstream out(path_, std::ios::binary | std::ios::trunc);
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    offsets_ = {{{"stale", 0}, 1}};  // Must be cleared, even on error.
    warnings_.clear();
    return ReadOffsetCheckpoint(nullptr, path_, &offsets_, &warnings_);
  }

  // Reads `text` and expects a Corruption whose message names the file and holds every part.
  void ExpectCorruption(std::string_view text, std::initializer_list<std::string_view> parts) {
    SCOPED_TRACE("text: \"" + std::string(text) + "\"");
    const Status s = ReadText(text);
    ASSERT_EQ(s.code(), Status::Code::kCorruption) << s;
    EXPECT_TRUE(Contains(s.message(), path_)) << s;
    for (std::string_view part : parts) EXPECT_TRUE(Contains(s.message(), part)) << part << s;
    EXPECT_TRUE(offsets_.empty()) << Entries(offsets_);
  }

  std::string FileText() {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path dir_;
  std::string path_;
  CheckpointOffsets offsets_;
  std::vector<std::string> warnings_;
};

// --- Reading: what Kafka's OffsetCheckpoint.read accepts, and each of its errors.

TEST_F(OffsetCheckpointTest, MissingFileReadsAsAnEmptyMap) {
  offsets_ = {{{"stale", 0}, 1}};
  ASSERT_OK(ReadOffsetCheckpoint(nullptr, path_, &offsets_, &warnings_));
  EXPECT_TRUE(offsets_.empty()) << Entries(offsets_);
  EXPECT_TRUE(warnings_.empty());
  EXPECT_FALSE(fs::exists(path_));  // Reading creates nothing.
}

TEST_F(OffsetCheckpointTest, ReadsEntriesOfAValidFile) {
  ASSERT_OK(ReadText("0\n3\napp-kv-changelog-0_0 0 17\ninput 3 0\nb\t1  \t9 \n"));
  EXPECT_EQ(Entries(offsets_), "app-kv-changelog-0_0 0 17; b 1 9; input 3 0");
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(OffsetCheckpointTest, UnknownVersionIsCorruption) {
  ExpectCorruption("1\n1\nt 0 5\n", {"Unknown offset checkpoint version: 1"});
  ExpectCorruption("-1\n0\n", {"Unknown offset checkpoint version: -1"});
}

TEST_F(OffsetCheckpointTest, EmptyFileEndedPrematurely) {
  ExpectCorruption("", {"File ended prematurely"});
}

TEST_F(OffsetCheckpointTest, VersionLineOnlyEndedPrematurely) {
  ExpectCorruption("0\n", {"File ended prematurely"});
  ExpectCorruption("0", {"File ended prematurely"});
}

TEST_F(OffsetCheckpointTest, NonNumericVersionIsCorruption) {
  ExpectCorruption("zero\n0\n", {"line 1", "version is not a number", "'zero'"});
  ExpectCorruption(" 0\n0\n", {"line 1", "' 0'"});
  ExpectCorruption("\n0\n", {"line 1", "''"});
  ExpectCorruption("99999999999\n0\n", {"line 1", "'99999999999'"});
}

TEST_F(OffsetCheckpointTest, NonNumericCountIsCorruption) {
  ExpectCorruption("0\ntwo\n", {"line 2", "entry count is not a count", "'two'"});
  ExpectCorruption("0\n-1\n", {"line 2", "'-1'"});
  ExpectCorruption("0\n1 \nt 0 5\n", {"line 2", "'1 '"});
}

TEST_F(OffsetCheckpointTest, LineWithTwoFieldsIsMalformed) {
  ExpectCorruption("0\n2\nt 0 5\nt 1\n", {"Malformed line 4 (byte 10)", "'t 1'"});
}

TEST_F(OffsetCheckpointTest, LineWithFourFieldsIsMalformed) {
  ExpectCorruption("0\n1\nt 0 5 6\n", {"Malformed line 3", "'t 0 5 6'"});
}

TEST_F(OffsetCheckpointTest, NonNumericPartitionIsMalformed) {
  ExpectCorruption("0\n1\nt p 5\n", {"Malformed line 3", "'t p 5'"});
  ExpectCorruption("0\n1\nt 0x1 5\n", {"Malformed line 3", "'t 0x1 5'"});
}

TEST_F(OffsetCheckpointTest, NegativeOrOverflowingPartitionIsMalformed) {
  ExpectCorruption("0\n1\nt -1 5\n", {"Malformed line 3", "'t -1 5'"});
  ExpectCorruption("0\n1\nt 2147483648 5\n", {"Malformed line 3", "'t 2147483648 5'"});
}

TEST_F(OffsetCheckpointTest, NonNumericOffsetIsMalformed) {
  ExpectCorruption("0\n1\nt 0 five\n", {"Malformed line 3", "'t 0 five'"});
  ExpectCorruption("0\n1\nt 0 5x\n", {"Malformed line 3", "'t 0 5x'"});
  ExpectCorruption("0\n1\nt 0 1.5\n", {"Malformed line 3", "'t 0 1.5'"});
}

TEST_F(OffsetCheckpointTest, OverflowingOffsetIsMalformed) {
  ExpectCorruption("0\n1\nt 0 9223372036854775808\n",
                   {"Malformed line 3", "'t 0 9223372036854775808'"});
  ExpectCorruption("0\n1\nt 0 -9223372036854775809\n", {"Malformed line 3"});
  ASSERT_OK(ReadText("0\n1\nt 0 9223372036854775807\n"));
  EXPECT_EQ(Entries(offsets_), "t 0 9223372036854775807");
}

// Regression: "+-4" was read as -4 (unknown) and "+-1" skipped; Java's parseLong rejects both.
TEST_F(OffsetCheckpointTest, DoubleSignIsMalformed) {
  ExpectCorruption("0\n1\nt 0 +-4\n", {"Malformed line 3", "'t 0 +-4'"});
  ExpectCorruption("0\n1\nt +-0 4\n", {"Malformed line 3", "'t +-0 4'"});
  ExpectCorruption("0\n1\nt 0 ++4\n", {"Malformed line 3"});
  ExpectCorruption("0\n1\nt 0 +\n", {"Malformed line 3"});
  ASSERT_OK(ReadText("+0\n+1\nt +2 +4\n"));  // One '+' is Java's too.
  EXPECT_EQ(Entries(offsets_), "t 2 4");
}

TEST_F(OffsetCheckpointTest, LeadingWhitespaceIsMalformed) {
  ExpectCorruption("0\n1\n t 0 5\n", {"Malformed line 3", "' t 0 5'"});
  ExpectCorruption("0\n1\n\tt 0 5\n", {"Malformed line 3"});
}

TEST_F(OffsetCheckpointTest, EmptyLineIsMalformed) {
  ExpectCorruption("0\n1\n\nt 0 5\n", {"Malformed line 3", "''"});
  ExpectCorruption("0\n1\nt 0 5\n\n", {"Malformed line 4", "''"});
  ExpectCorruption("0\n1\nt 0 5\n   \n", {"Malformed line 4", "'   '"});
}

// Java's line.split("\\s+") drops trailing whitespace and splits on runs of it.
TEST_F(OffsetCheckpointTest, TrailingAndRepeatedWhitespaceIsAccepted) {
  ASSERT_OK(ReadText("0\n2\nt  0\t\t5 \na\f1\v2\t\n"));
  EXPECT_EQ(Entries(offsets_), "a 1 2; t 0 5");
}

TEST_F(OffsetCheckpointTest, HugeMalformedLineIsQuotedShortened) {
  const std::string huge(100000, 'x');
  ExpectCorruption("0\n1\n" + huge + "\n",
                   {"Malformed line 3", "'" + huge.substr(0, 200) + "...' (100000 bytes)"});
  const Status s = ReadText("0\n1\n" + huge + "\n");
  EXPECT_LT(s.message().size(), 1000u);
}

TEST_F(OffsetCheckpointTest, NegativeOffsetIsSkippedWithAWarning) {
  ASSERT_OK(ReadText("0\n3\na 0 5\nb 1 -1\nc 2 7\n"));
  EXPECT_EQ(Entries(offsets_), "a 0 5; c 2 7");
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_TRUE(Contains(warnings_[0], path_)) << warnings_[0];
  EXPECT_TRUE(Contains(warnings_[0], "line 4")) << warnings_[0];
  EXPECT_TRUE(Contains(warnings_[0], "skipping invalid offset -1 for b-1")) << warnings_[0];

  // Without a warnings vector the entry is skipped all the same.
  CheckpointOffsets offsets;
  ASSERT_OK(ReadOffsetCheckpoint(nullptr, path_, &offsets, nullptr));
  EXPECT_EQ(Entries(offsets), "a 0 5; c 2 7");

  // -5, and the smallest long, are no better.
  ASSERT_OK(ReadText("0\n2\na 0 -5\nb 0 -9223372036854775808\n"));
  EXPECT_TRUE(offsets_.empty()) << Entries(offsets_);
  EXPECT_EQ(warnings_.size(), 2u);
}

TEST_F(OffsetCheckpointTest, UnknownOffsetIsKept) {
  ASSERT_OK(ReadText("0\n2\na 0 -4\nb 0 0\n"));
  EXPECT_EQ(offsets_.at({"a", 0}), kOffsetUnknown);
  EXPECT_EQ(offsets_.at({"b", 0}), 0);
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(OffsetCheckpointTest, FewerEntriesThanTheCountIsCorruption) {
  ExpectCorruption("0\n3\na 0 5\nb 0 6\n", {"Expected 3 entries but found only 2"});
  ExpectCorruption("0\n1\n", {"Expected 1 entries but found only 0"});
}

TEST_F(OffsetCheckpointTest, MoreEntriesThanTheCountIsCorruption) {
  ExpectCorruption("0\n1\na 0 5\nb 0 6\n", {"Expected 1 entries but found 2"});
  ExpectCorruption("0\n0\na 0 5\n", {"Expected 0 entries but found 1"});
}

// A skipped entry still counts as one of the file's entries (Kafka decrements its expectation).
TEST_F(OffsetCheckpointTest, SkippedEntryCountsTowardsTheCount) {
  ExpectCorruption("0\n1\na 0 5\nb 0 -1\n", {"Expected 1 entries but found 2"});
  ASSERT_OK(ReadText("0\n1\nb 0 -1\n"));
  EXPECT_TRUE(offsets_.empty());
}

TEST_F(OffsetCheckpointTest, DuplicateEntryIsCorruption) {
  ExpectCorruption("0\n3\na 0 5\nb 0 6\na 0 7\n", {"line 5", "a second entry for a-0"});
  ExpectCorruption("0\n2\na 0 5\na 0 5\n", {"line 4", "a second entry for a-0"});
}

TEST_F(OffsetCheckpointTest, CrLfLineEndingsAreRead) {
  ASSERT_OK(ReadText("0\r\n2\r\na 0 5\r\nb 1 -4\r\n"));
  EXPECT_EQ(Entries(offsets_), "a 0 5; b 1 -4");
  ExpectCorruption("0\r\n1\r\n\r\na 0 5\r\n", {"Malformed line 3", "''"});
}

// Regression: a lone "\r" ends a line for Java's readLine; it was kept inside the line, so the
// reader accepted a topic "a\rb" that FormatOffsetCheckpoint then refused to write.
TEST_F(OffsetCheckpointTest, LoneCarriageReturnEndsALine) {
  ASSERT_OK(ReadText("0\r1\ra 0 5\r"));
  EXPECT_EQ(Entries(offsets_), "a 0 5");
  ExpectCorruption("0\n1\na\rb 0 5\n", {"Malformed line 3", "'a'"});
}

TEST_F(OffsetCheckpointTest, UnreadableFileIsAnIOError) {
  fs::create_directories(path_);  // A directory where the file should be.
  const Status s = ReadOffsetCheckpoint(nullptr, path_, &offsets_, &warnings_);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_TRUE(Contains(s.message(), path_)) << s;
}

// --- Writing.

TEST_F(OffsetCheckpointTest, FormatThenParseRoundTrips) {
  const CheckpointOffsets offsets = {{{"b", 0}, 0},
                                     {{"a", 1}, kOffsetUnknown},
                                     {{"a", 0}, 9223372036854775807},
                                     {{"app-kv-changelog-0_0", 12}, 17}};
  std::string text;
  ASSERT_OK(FormatOffsetCheckpoint(offsets, &text));
  EXPECT_EQ(text, "0\n4\na 0 9223372036854775807\na 1 -4\napp-kv-changelog-0_0 12 17\nb 0 0\n");
  CheckpointOffsets parsed;
  std::vector<std::string> warnings;
  ASSERT_OK(ParseOffsetCheckpoint(text, "formatted", &parsed, &warnings));
  EXPECT_EQ(parsed, offsets);
  EXPECT_TRUE(warnings.empty());

  ASSERT_OK(FormatOffsetCheckpoint({}, &text));
  EXPECT_EQ(text, "0\n0\n");
  ASSERT_OK(ParseOffsetCheckpoint(text, "formatted", &parsed, &warnings));
  EXPECT_TRUE(parsed.empty());
}

TEST_F(OffsetCheckpointTest, ParseErrorsNameTheSource) {
  CheckpointOffsets parsed;
  const Status s = ParseOffsetCheckpoint("0\n1\n", "state/0_0/.checkpoint", &parsed, nullptr);
  EXPECT_EQ(s.code(), Status::Code::kCorruption);
  EXPECT_EQ(s.message(), "state/0_0/.checkpoint: Expected 1 entries but found only 0");
}

TEST_F(OffsetCheckpointTest, WriteThenReadRoundTrips) {
  rocksdb::Env* env = rocksdb::Env::Default();
  const CheckpointOffsets first = {{{"a", 0}, 5}, {{"b", 3}, kOffsetUnknown}};
  ASSERT_OK(WriteOffsetCheckpoint(env, path_, first));
  EXPECT_EQ(FileText(), "0\n2\na 0 5\nb 3 -4\n");
  CheckpointOffsets read;
  ASSERT_OK(ReadOffsetCheckpoint(env, path_, &read, &warnings_));
  EXPECT_EQ(read, first);
  EXPECT_TRUE(warnings_.empty());

  // A second write replaces the file.
  const CheckpointOffsets second = {{{"a", 0}, 6}};
  ASSERT_OK(WriteOffsetCheckpoint(env, path_, second));
  ASSERT_OK(ReadOffsetCheckpoint(env, path_, &read, &warnings_));
  EXPECT_EQ(read, second);

  // A position file is the same format.
  const std::string position = (dir_ / (std::string("counts") + kPositionFileSuffix)).string();
  ASSERT_OK(WriteOffsetCheckpoint(env, position, first));
  ASSERT_OK(ReadOffsetCheckpoint(env, position, &read, nullptr));
  EXPECT_EQ(read, first);
}

TEST_F(OffsetCheckpointTest, WritingAnEmptyMapDeletesTheFile) {
  ASSERT_OK(WriteOffsetCheckpoint(nullptr, path_, {{{"a", 0}, 5}}));
  ASSERT_TRUE(fs::exists(path_));
  ASSERT_OK(WriteOffsetCheckpoint(nullptr, path_, {}));
  EXPECT_FALSE(fs::exists(path_));
  ASSERT_OK(ReadOffsetCheckpoint(nullptr, path_, &offsets_, &warnings_));
  EXPECT_TRUE(offsets_.empty());
  // Deleting a missing file is no error, nor is writing an empty map with no file.
  ASSERT_OK(WriteOffsetCheckpoint(nullptr, path_, {}));
  ASSERT_OK(DeleteOffsetCheckpoint(nullptr, path_));
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(OffsetCheckpointTest, WriteLeavesNoTmpFileBehind) {
  ASSERT_OK(WriteOffsetCheckpoint(nullptr, path_, {{{"a", 0}, 5}}));
  ASSERT_OK(WriteOffsetCheckpoint(nullptr, path_, {{{"a", 0}, 6}}));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{kCheckpointFileName});
  EXPECT_FALSE(fs::exists(path_ + ".tmp"));
}

TEST_F(OffsetCheckpointTest, FormatRefusesEntriesKafkaCannotReadBack) {
  // A negative offset is refused with the text of Kafka's OffsetCheckpoint.write (its
  // OffsetCheckpointTest.shouldThrowOnInvalidOffsetInWrite); the other refusals are this
  // project's (Kafka writes such entries and then cannot read them back).
  constexpr char kKafkaNegative[] = "Attempted to write a negative offset to the checkpoint file";
  const std::vector<std::pair<CheckpointOffsets, std::string>> bad = {
      {{{{"", 0}, 5}}, "cannot be written"},               // Empty topic.
      {{{{"a b", 0}, 5}}, "cannot be written"},            // A space would split the line.
      {{{{"a\tb", 0}, 5}}, "cannot be written"},           // So would any of Java's \s:
      {{{{"a\fb", 0}, 5}}, "cannot be written"},           //   a form feed (was written),
      {{{{"a\rb", 0}, 5}}, "cannot be written"},           //   a carriage return,
      {{{{"a\nb", 0}, 5}}, "cannot be written"},           //   a newline.
      {{{{"a", -1}, 5}}, "cannot be written"},             // Negative partition.
      {{{{"a", 0}, -1}}, kKafkaNegative},                  // Negative offset other than -4.
      {{{{"a", 0}, -5}}, kKafkaNegative},                  // Likewise.
      {{{{"ok", 0}, 1}, {{"a", 0}, -2}}, kKafkaNegative},  // One bad entry spoils the file.
  };
  for (const auto& [offsets, text_expected] : bad) {
    SCOPED_TRACE(Entries(offsets));
    std::string text = "untouched";
    const Status s = FormatOffsetCheckpoint(offsets, &text);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
    EXPECT_TRUE(Contains(s.message(), text_expected)) << s;
    EXPECT_EQ(text, "untouched");
    // Nor is such a map written to disk.
    const Status written = WriteOffsetCheckpoint(nullptr, path_, offsets);
    EXPECT_EQ(written.code(), Status::Code::kInvalidArgument);
    EXPECT_TRUE(Contains(written.message(), text_expected)) << written;
    EXPECT_FALSE(fs::exists(path_));
    EXPECT_FALSE(fs::exists(path_ + ".tmp"));
  }
}

// Kafka's OffsetCheckpointTest.shouldThrowIOExceptionWhenWritingToNotExistedFile looks for the
// operating system's text; the error also names the file.
TEST_F(OffsetCheckpointTest, WritingIntoAMissingDirectoryNamesTheFileAndTheOsError) {
  const std::string path = (dir_ / "no-such-dir" / kCheckpointFileName).string();
  const Status s = WriteOffsetCheckpoint(nullptr, path, {{{"a", 0}, 5}});
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_TRUE(Contains(s.message(), "No such file or directory")) << s;
  EXPECT_TRUE(Contains(s.message(), path)) << s;
  EXPECT_FALSE(fs::exists(dir_ / "no-such-dir"));
}

}  // namespace
}  // namespace statecheck
