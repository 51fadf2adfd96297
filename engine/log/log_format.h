// The embedded log's on-disk record format (statecheck/log.h describes it; docs/formats.md has
// it byte by byte). Internal to the engine: the log (engine/log/log.cc,
// engine/log/log_partition.cc, engine/log/log_inspect.cc) is the only writer and reader of
// partition files; the LogFileRecord view below is for the log_fuzz target and tests.
#ifndef STATECHECK_ENGINE_LOG_FORMAT_H_
#define STATECHECK_ENGINE_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/log.h"

namespace statecheck::internal {

// A partition's files in the log directory are its segments: the first is "<partition>.log";
// each later one, rolled at LogOptions::segment_bytes, is "<partition>.log.<base>", `base` (its
// first offset) in kSegmentBaseDigits decimal digits. The log's own partitions: the commit
// decisions of transactions, and consumer groups' committed offsets.
inline constexpr char kLogSuffix[] = ".log";
inline constexpr char kSegmentInfix[] = ".log.";
inline constexpr size_t kSegmentBaseDigits = 20;
// A compaction writes "<partition>.log.compacting", then renames it over "<partition>.log" when it
// replaces that one file; when it replaces several segments, it renames it to
// "<partition>.log.swap.<end>" first (`end`: the base of the first segment it leaves), deletes
// the segments, then renames the swap file to "<partition>.log" (statecheck/log.h).
inline constexpr char kCompactingSuffix[] = ".log.compacting";
inline constexpr char kSwapInfix[] = ".log.swap.";
inline constexpr char kTxnStatePartition[] = "__txn_state";
inline constexpr char kOffsetsPartition[] = "__offsets";
inline constexpr size_t kMaxPartitionName = 200;  // Bytes.

enum class LogRecordType : uint8_t { kData = 1, kTxnBegin = 2, kTxnCommit = 3, kTxnAbort = 4 };

// A record's transactional state as readers see it (set by recovery, not stored).
enum class LogTxnState : uint8_t { kNone, kOpen, kCommitted, kAborted };

// A record as the log holds it.
struct LogEntry {
  int64_t offset = 0;  // Its place in its partition (offsets increase; compaction leaves gaps).
  LogRecordType type = LogRecordType::kData;
  LogTxnState state = LogTxnState::kNone;
  int64_t txn_id = 0;
  std::string key;
  std::optional<std::string> value;
  int64_t timestamp = kNoTimestamp;
  std::optional<LogSource> source;
};

// The bytes of record `e` at `offset`: a 32-byte header (magic, type, flags, 0, txn id, offset,
// key size, value size, CRC32C of the header's first 28 bytes and the payload), then the
// payload: the timestamp (8 bytes, when it has one), the source (when it has one: name length,
// 4 bytes; the name; the offset, 8 bytes), the key, the value.
std::string EncodeLogRecord(const LogEntry& e, int64_t offset);
// The same bytes, appended to `*out` (a batch of records written at once); with `txn_id`, that
// transaction id in place of `e.txn_id` (a compaction rewrites settled records with 0).
void AppendLogRecord(const LogEntry& e, int64_t offset, std::string* out);
void AppendLogRecord(const LogEntry& e, int64_t offset, int64_t txn_id, std::string* out);
// The size in bytes of record `e`'s encoding.
size_t LogRecordSize(const LogEntry& e);
// Decodes the record at `pos` of `data` into `*e` (state kNone), its `*offset` and `*length` in
// bytes. False if it is cut short or invalid (bad magic, type or flags, a length past the end,
// a CRC mismatch).
bool DecodeLogRecord(std::string_view data, size_t pos, LogEntry* e, int64_t* offset,
                     size_t* length);
// Whether any valid record starts in `data` at or after `from`.
bool ValidLogRecordFrom(std::string_view data, size_t from);

// One record of a partition file, as written.
struct LogFileRecord {
  uint8_t type = 1;  // 1 data, 2 txn-begin, 3 txn-commit, 4 txn-abort.
  int64_t txn_id = 0;
  int64_t offset = 0;
  std::string key;
  std::optional<std::string> value;  // nullopt: a tombstone.
  int64_t timestamp = -1;            // kNoTimestamp (-1) when it has none.
  std::optional<LogSource> source;
  friend bool operator==(const LogFileRecord&, const LogFileRecord&) = default;
};

// How a partition file's bytes end after its valid records.
enum class LogFileTail {
  kClean,    // Every byte belongs to a valid record.
  kTorn,     // A torn tail: bytes that hold no valid record (recovery truncates them).
  kDamaged,  // A damaged record followed by valid records: corruption, never truncated.
};

// Decodes the records that open `data`, in order, up to the first that is cut short or invalid
// (bad magic, type or flags, a length past the end, a CRC mismatch). `*valid_bytes` is the
// length of those records. Checks only the framing: offsets and transactional state are the
// log's recovery's to check.
LogFileTail DecodeLogFileRecords(std::string_view data, std::vector<LogFileRecord>* records,
                                 size_t* valid_bytes);
// The bytes of one record (DecodeLogFileRecords reads them back to an equal record).
std::string EncodeLogFileRecord(const LogFileRecord& record);

// The value of a commit decision or of a committed-offsets record: (name, int64) pairs in
// strictly increasing name order, then a trailing string. Decode returns false for anything
// else, leaving `*m` and `*tail` unchanged.
std::string EncodeLogNamedOffsets(const std::map<std::string, int64_t>& m, std::string_view tail);
bool DecodeLogNamedOffsets(std::string_view in, std::map<std::string, int64_t>* m,
                           std::string* tail);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_LOG_FORMAT_H_
