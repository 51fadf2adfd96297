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

// One partition in memory: every record, by offset, the transactions open in it, what of it is
// durable, and the file the log appends to.
//
// Offsets increase by one from 0, except where a compaction removed records: a compacted file has
// gaps. A compaction never removes a partition's last record, so the partition ends where its
// last record does, compacted or not.
struct LogPartition {
  std::string name;
  std::string path;
  std::vector<LogEntry> entries;                // By offset.
  uint64_t file_size = 0;                       // Bytes of valid records in the file.
  uint64_t last_record_at = 0;                  // Byte offset of the last valid record.
  int64_t durable_end = 0;                      // Entries below this are fsynced.
  std::map<int64_t, int64_t> open_txns;         // Transaction id → offset of its begin marker.
  std::unique_ptr<rocksdb::WritableFile> file;  // Opened on the first write.
  bool needs_dir_sync = false;  // A create or rename in the directory is not durable yet.
  std::string broken;           // Why the partition refuses writes until reopen ("" = it does not).
  // The file's size when this Log object last compacted it (or found nothing to remove); 0 if it
  // has not. What was written since is the file's "dirty" part (LogCompaction).
  uint64_t compacted_size = 0;

  int64_t end() const { return entries.empty() ? 0 : entries.back().offset + 1; }
  // The index of the first entry at or after `offset` (entries.size() if none).
  size_t IndexOf(int64_t offset) const {
    return static_cast<size_t>(
        std::lower_bound(entries.begin(), entries.end(), offset,
                         [](const LogEntry& e, int64_t o) { return e.offset < o; }) -
        entries.begin());
  }
  // The entry at `offset`, or null if there is none (past the end, or compacted away).
  const LogEntry* At(int64_t offset) const {
    const size_t i = IndexOf(offset);
    return i < entries.size() && entries[i].offset == offset ? &entries[i] : nullptr;
  }
  int64_t StableEnd() const {
    int64_t lso = end();
    for (const auto& [txn, begin] : open_txns) lso = std::min(lso, begin);
    return std::min(lso, durable_end);
  }
};

// Updates `p`'s transactional state for `e`, about to be appended to `p` at `e->offset`. Returns
// a description of the inconsistency, or "" if there is none.
std::string ApplyLogEntry(LogPartition* p, LogEntry* e);

// Lists the partition files of log directory `dir`, sorted: `*names` gets the partition names
// (internal ones included), `*ignored` the `.log` files whose name is not a partition name, and
// `*compacting` (unless null) the `.log.compacting` files an interrupted compaction left.
Status ListPartitionFiles(rocksdb::Env* env, const std::string& dir,
                          std::vector<std::string>* names, std::vector<std::string>* ignored,
                          std::vector<std::string>* compacting = nullptr);

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
