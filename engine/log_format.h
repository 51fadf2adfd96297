// The embedded log's on-disk record format (statecheck/log.h describes it), exposed for the
// log_fuzz target and tests. Internal to the engine: the log itself (engine/log.cc) is the only
// writer and reader of partition files.
#ifndef STATECHECK_ENGINE_LOG_FORMAT_H_
#define STATECHECK_ENGINE_LOG_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace statecheck::internal {

// One record of a partition file, as written.
struct LogFileRecord {
  uint8_t type = 1;  // 1 data, 2 txn-begin, 3 txn-commit, 4 txn-abort.
  int64_t txn_id = 0;
  int64_t offset = 0;
  std::string key;
  std::optional<std::string> value;  // nullopt: a tombstone.
  int64_t timestamp = -1;            // kNoTimestamp (-1) when it has none.
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
