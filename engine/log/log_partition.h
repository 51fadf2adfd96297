// A partition of the embedded log as recovery and inspection read it back from its file: the
// records with their transactional state, the open transactions, the durable end. Internal to
// the engine (engine/log/log.cc writes partitions; engine/log/log_inspect.cc only reads them).
#ifndef STATECHECK_ENGINE_LOG_PARTITION_H_
#define STATECHECK_ENGINE_LOG_PARTITION_H_

#include <rocksdb/env.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/log/log_format.h"
#include "statecheck/status.h"

namespace statecheck::internal {

// InvalidArgument naming the problem unless `name` is a partition name: 1 to kMaxPartitionName
// bytes of [A-Za-z0-9._-], not "." or "..", and — unless `allow_internal` — not starting with
// "__" (the log's own partitions).
Status ValidatePartitionName(std::string_view name, bool allow_internal);

// One partition in memory: every record (its offset is its index), the transactions open in it,
// what of it is durable, and the file the log appends to.
struct LogPartition {
  std::string name;
  std::string path;
  std::vector<LogEntry> entries;                // entries[i] has offset i.
  uint64_t file_size = 0;                       // Bytes of valid records in the file.
  uint64_t last_record_at = 0;                  // Byte offset of the last valid record.
  int64_t durable_end = 0;                      // Entries below this are fsynced.
  std::map<int64_t, int64_t> open_txns;         // Transaction id → offset of its begin marker.
  std::unique_ptr<rocksdb::WritableFile> file;  // Opened on the first write.
  bool needs_dir_sync = false;                  // The file was created; its name is not durable.
  std::string broken;  // Why the partition refuses writes until reopen ("" = it does not).

  int64_t end() const { return static_cast<int64_t>(entries.size()); }
  int64_t StableEnd() const {
    int64_t lso = end();
    for (const auto& [txn, begin] : open_txns) lso = std::min(lso, begin);
    return std::min(lso, durable_end);
  }
};

// Updates `p`'s transactional state for `e`, about to take offset p->end(). Returns a
// description of the inconsistency, or "" if there is none.
std::string ApplyLogEntry(LogPartition* p, LogEntry* e);

// Lists the partition files of log directory `dir`, sorted: `*names` gets the partition names
// (internal ones included), `*ignored` the `.log` files whose name is not a partition name.
Status ListPartitionFiles(rocksdb::Env* env, const std::string& dir,
                          std::vector<std::string>* names, std::vector<std::string>* ignored);

// Where a partition file's torn tail starts, if it has one, and its length.
struct LogTornTail {
  std::optional<uint64_t> at;
  uint64_t bytes = 0;
};

// Reads `p->path` (read-only) and parses its records into `p->entries`, tracking transactional
// state; sets `p->file_size` to the bytes of valid records and `*torn` if a torn tail follows
// them. Corruption naming the file and byte offset for any other damage. Changes no file.
Status ScanPartitionFile(rocksdb::Env* env, const rocksdb::EnvOptions& env_options, LogPartition* p,
                         LogTornTail* torn);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_LOG_PARTITION_H_
