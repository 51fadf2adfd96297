// The log's record format (engine/log/log_format.h) and the regressions log_fuzz found in it.
#include "engine/log/log_format.h"

#include <gtest/gtest.h>
#include <rocksdb/env.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/aggregation/aggregation_internal.h"
#include "engine/log/crc32c.h"
#include "statecheck/log.h"
#include "testing/test_util.h"

namespace statecheck {
namespace {

using internal::DecodeLogFileRecords;
using internal::DecodeLogNamedOffsets;
using internal::EncodeLogFileRecord;
using internal::EncodeLogNamedOffsets;
using internal::LogFileRecord;
using internal::LogFileTail;

TEST(LogFormat, RecordsRoundTripAndATornTailIsFound) {
  const std::vector<LogFileRecord> records = {
      {1, 0, 0, "a", "1", 10, {}},
      {1, 0, 1, "b", std::nullopt, -1, LogSource{"input-0", 7}},
      {1, 0, 2, "c", "3", 12, LogSource{"i", 0}},
      {2, 3, 3, "", "", -1, {}}};
  std::string bytes;
  for (const auto& r : records) bytes += EncodeLogFileRecord(r);
  std::vector<LogFileRecord> decoded;
  size_t valid = 0;
  EXPECT_EQ(DecodeLogFileRecords(bytes, &decoded, &valid), LogFileTail::kClean);
  EXPECT_EQ(decoded, records);
  EXPECT_EQ(valid, bytes.size());
  EXPECT_EQ(
      DecodeLogFileRecords(bytes + EncodeLogFileRecord(records[0]).substr(0, 20), &decoded, &valid),
      LogFileTail::kTorn);
  EXPECT_EQ(valid, bytes.size());
  std::string damaged = bytes;
  damaged[EncodeLogFileRecord(records[0]).size() + 32] ^= 1;  // The second record's key.
  EXPECT_EQ(DecodeLogFileRecords(damaged, &decoded, &valid), LogFileTail::kDamaged);
  EXPECT_EQ(decoded.size(), 1u);
}

// Regression (log_fuzz): a record with the timestamp flag and a negative timestamp was accepted,
// though the writer never writes one (it re-encoded without the timestamp, and readers got a
// timestamp below kNoTimestamp).
// A source is a data record's: on a marker, with a negative offset or a bad partition name, the
// bytes are no record (the writer never makes them).
// A compaction sizes its file from LogRecordSize and writes settled records with txn id 0.
TEST(LogFormat, RecordSizeIsTheEncodingsAndATxnIdCanBeReplaced) {
  internal::LogEntry e;
  e.offset = 5;
  e.txn_id = 9;
  e.key = "a-key";
  for (const bool timestamped : {false, true}) {
    for (const bool sourced : {false, true}) {
      for (const bool tombstone : {false, true}) {
        e.timestamp = timestamped ? 12 : kNoTimestamp;
        e.source = sourced ? std::optional<LogSource>(LogSource{"input-0", 3}) : std::nullopt;
        e.value = tombstone ? std::nullopt : std::optional<std::string>("value");
        const std::string bytes = internal::EncodeLogRecord(e, e.offset);
        EXPECT_EQ(internal::LogRecordSize(e), bytes.size());
        std::string settled;
        internal::AppendLogRecord(e, e.offset, 0, &settled);
        internal::LogEntry decoded;
        int64_t offset = -1;
        size_t length = 0;
        ASSERT_TRUE(internal::DecodeLogRecord(settled, 0, &decoded, &offset, &length));
        EXPECT_EQ(decoded.txn_id, 0);
        EXPECT_EQ(offset, 5);
        EXPECT_EQ(decoded.key, e.key);
        EXPECT_EQ(decoded.value, e.value);
        EXPECT_EQ(length, bytes.size());
      }
    }
  }
}

TEST(LogFormat, ABadSourceIsNotARecord) {
  std::vector<LogFileRecord> decoded;
  size_t valid = 0;
  for (const LogFileRecord& r : {LogFileRecord{2, 3, 0, "", "", -1, LogSource{"input-0", 1}},
                                 LogFileRecord{1, 0, 0, "k", "v", 5, LogSource{"input-0", -1}},
                                 LogFileRecord{1, 0, 0, "k", "v", 5, LogSource{"__offsets", 1}},
                                 LogFileRecord{1, 0, 0, "k", "v", 5, LogSource{"", 1}}}) {
    EXPECT_EQ(DecodeLogFileRecords(EncodeLogFileRecord(r), &decoded, &valid), LogFileTail::kTorn);
    EXPECT_EQ(valid, 0u);
  }
  // A source length past the record's end.
  std::string cut = EncodeLogFileRecord({1, 0, 0, "k", "v", 5, LogSource{"input-0", 1}});
  cut.resize(32 + 8 + 2);
  EXPECT_EQ(DecodeLogFileRecords(cut, &decoded, &valid), LogFileTail::kTorn);
}

TEST(LogFormat, TimestampFlagWithANegativeTimestampIsNotARecord) {
  const std::string good = EncodeLogFileRecord({1, 0, 0, "k", "v", 5, {}});
  // A record with the flag and timestamp -2: the one above with its timestamp and CRC redone.
  LogFileRecord r{1, 0, 0, "k", "v", 5, {}};
  std::string bad = EncodeLogFileRecord(r);
  for (int i = 0; i < 8; ++i) bad[32 + i] = static_cast<char>(0xff);
  bad[32] = static_cast<char>(0xfe);
  const uint32_t crc = internal::Crc32c(std::string_view(bad).substr(32),
                                        internal::Crc32c(std::string_view(bad).substr(0, 28)));
  for (int i = 0; i < 4; ++i) bad[28 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  std::vector<LogFileRecord> decoded;
  size_t valid = 0;
  EXPECT_EQ(DecodeLogFileRecords(good, &decoded, &valid), LogFileTail::kClean);
  EXPECT_NE(DecodeLogFileRecords(bad, &decoded, &valid), LogFileTail::kClean);
  EXPECT_TRUE(decoded.empty());
}

// Regression (log_fuzz): named offsets out of order or named twice decoded (the later one won),
// though the writer writes a map; now they are not a value.
TEST(LogFormat, NamedOffsetsMustBeInIncreasingOrder) {
  const std::string ok = EncodeLogNamedOffsets({{"a", 1}, {"b", 2}}, "meta");
  std::map<std::string, int64_t> m;
  std::string tail;
  ASSERT_TRUE(DecodeLogNamedOffsets(ok, &m, &tail));
  EXPECT_EQ(m, (std::map<std::string, int64_t>{{"a", 1}, {"b", 2}}));
  EXPECT_EQ(tail, "meta");
  std::string swapped = ok;  // "a" and "b" exchanged: 4 (count), then 4 + 1 + 8 per entry.
  std::swap(swapped[8], swapped[21]);
  EXPECT_FALSE(DecodeLogNamedOffsets(swapped, &m, &tail));
  std::string twice = ok;
  twice[21] = 'a';
  EXPECT_FALSE(DecodeLogNamedOffsets(twice, &m, &tail));
}

// Regression (log_fuzz): GetCommittedOffsets of a value that does not decode cleared and half
// filled the caller's offsets before reporting the Corruption.
TEST(LogFormat, UndecodableCommittedOffsetsLeaveTheOutputUntouched) {
  std::unique_ptr<rocksdb::Env> env(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  ASSERT_TRUE(env->CreateDirIfMissing("/log").ok());
  // A count of 2 and one whole entry, then nothing: decoding fails half-way.
  std::string value = EncodeLogNamedOffsets({{"input", 3}}, "");
  value[0] = 2;
  const std::string file = EncodeLogFileRecord({1, 0, 0, "app", value, -1, {}});
  ASSERT_TRUE(rocksdb::WriteStringToFile(env.get(), file, "/log/__offsets.log", true).ok());
  LogOptions options;
  options.directory = "/log";
  options.env = env.get();
  options.logger = NullLogger();
  std::unique_ptr<Log> log;
  ASSERT_OK(OpenLog(options, &log));
  CommittedOffsets out{{{"mine", 7}}, "kept"};
  const Status s = log->GetCommittedOffsets("app", &out);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
  EXPECT_NE(s.message().find("/log/__offsets.log"), std::string::npos) << s;
  EXPECT_EQ(out, (CommittedOffsets{{{"mine", 7}}, "kept"}));
}

// A gap in offsets is what a compaction leaves: it may precede only a non-transactional record
// or a begin marker, with no transaction open; anywhere else, as an offset that does not
// increase, it is Corruption naming the file and byte offset.
TEST(LogFormat, AnOffsetGapIsCorruptionUnlessACompactionCouldHaveLeftIt) {
  std::unique_ptr<rocksdb::Env> env(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  LogOptions options;
  options.directory = "/log";
  options.env = env.get();
  options.logger = NullLogger();
  auto open = [&](const std::vector<LogFileRecord>& records) {
    std::string file;
    for (const LogFileRecord& r : records) file += EncodeLogFileRecord(r);
    EXPECT_TRUE(env->CreateDirIfMissing("/log").ok());
    EXPECT_TRUE(rocksdb::WriteStringToFile(env.get(), file, "/log/p.log", true).ok());
    std::unique_ptr<Log> log;
    return OpenLog(options, &log);
  };
  const std::string empty;
  // Compacted: data at 1 and 4, then a transaction from 6.
  EXPECT_OK(open({{1, 0, 1, "a", "1", -1, {}},
                  {1, 0, 4, "b", "2", -1, {}},
                  {2, 7, 6, empty, empty, -1, {}},
                  {1, 7, 7, "c", "3", -1, {}},
                  {3, 7, 8, empty, empty, -1, {}}}));
  // A gap inside a transaction, before its data or its end marker.
  for (uint8_t type : {uint8_t{1}, uint8_t{3}}) {
    const Status s = open({{2, 7, 0, empty, empty, -1, {}}, {type, 7, 2, "c", "3", -1, {}}});
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
    EXPECT_NE(s.message().find("/log/p.log at byte offset 32"), std::string::npos) << s;
    EXPECT_NE(s.message().find("expected 1"), std::string::npos) << s;
  }
  // An offset that does not increase.
  const Status s = open({{1, 0, 3, "a", "1", -1, {}}, {1, 0, 3, "b", "2", -1, {}}});
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
  EXPECT_NE(s.message().find("expected 4 or more"), std::string::npos) << s;
}

// Regression (config_fuzz): ParseLastEmitClose reset the caller's close time before finding the
// metadata malformed.
TEST(LastEmitClose, MalformedMetadataLeavesTheCloseTimeUntouched) {
  int64_t close = 42;
  const Status s = ParseLastEmitClose("counts=5;counts=x", "counts", &close);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
  EXPECT_EQ(close, 42);
  EXPECT_OK(ParseLastEmitClose("counts=5;other=9;counts=7", "counts", &close));
  EXPECT_EQ(close, 7);
}

}  // namespace
}  // namespace statecheck
