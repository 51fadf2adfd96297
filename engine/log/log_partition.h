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

// A segment of a partition: one file, holding the partition's records from `base` on.
struct LogSegment {
  int64_t base = 0;  // Its first offset ("<partition>.log": 0, whatever its first record's is).
  std::string path;
  uint64_t bytes = 0;  // Bytes of valid records in the file.
};

// One partition in memory: every record, by offset, the transactions open in it, what of it is
// durable, its closed segments and the active segment the log appends to.
//
// Offsets increase by one from 0, except where a compaction removed records: a compacted file has
// gaps. A compaction never removes a partition's last record, so the partition ends where its
// last record does, compacted or not.
struct LogPartition {
  std::string name;
  std::vector<LogSegment> closed;  // Complete and fsynced, by base; "<name>.log" first.
  // The active segment: its first offset, its file, the bytes of valid records in it, and the byte
  // offset of its last valid record.
  int64_t base = 0;
  std::string path;
  uint64_t file_size = 0;
  uint64_t last_record_at = 0;
  std::vector<LogEntry> entries;                // By offset.
  int64_t durable_end = 0;                      // Entries below this are fsynced.
  std::map<int64_t, int64_t> open_txns;         // Transaction id → offset of its begin marker.
  std::unique_ptr<rocksdb::WritableFile> file;  // Opened on the first write.
  bool needs_dir_sync = false;  // A create or rename in the directory is not durable yet.
  std::string broken;           // Why the partition refuses writes until reopen ("" = it does not).
  // The partition's bytes when this Log object last compacted it (or found nothing to remove); 0
  // if it has not. What was written since is the partition's "dirty" part (LogCompaction).
  uint64_t compacted_size = 0;

  int64_t end() const { return entries.empty() ? 0 : entries.back().offset + 1; }
  // The bytes of valid records in all of its segments.
  uint64_t bytes() const {
    uint64_t total = file_size;
    for (const LogSegment& s : closed) total += s.bytes;
    return total;
  }
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

// A partition's files in a log directory (engine/log/log_format.h names them).
struct LogPartitionFiles {
  bool first = false;               // "<name>.log" is there.
  std::vector<int64_t> segments;    // The bases of its "<name>.log.<base>" files, ascending.
  std::optional<int64_t> swap_end;  // "<name>.log.swap.<end>": a compaction to complete.
};

// The path of partition `name`'s segment from `base` in `dir` (base 0: "<name>.log"), and of
// its swap file replacing the segments below `end`.
std::string SegmentPath(const std::string& dir, std::string_view name, int64_t base);
std::string SwapPath(const std::string& dir, std::string_view name, int64_t end);

// Lists the partition files of log directory `dir`: `*partitions` gets each partition's files
// (internal partitions included), `*ignored` the `.log` files whose name is not a partition
// name, and `*compacting` (unless null) the `.log.compacting` files an interrupted compaction
// left. Corruption if a partition has two swap files.
Status ListPartitionFiles(rocksdb::Env* env, const std::string& dir,
                          std::map<std::string, LogPartitionFiles>* partitions,
                          std::vector<std::string>* ignored,
                          std::vector<std::string>* compacting = nullptr);

// The segments partition `name` holds, in the order to read them, as recovery sees them: a swap
// file stands for the segments below its end. Corruption if later segments are there without a
// first one (nor a swap file for it).
Status SegmentsToRead(const std::string& dir, const std::string& name,
                      const LogPartitionFiles& files, std::vector<LogSegment>* segments);

// Where the active segment's torn tail starts, if it has one, and its length.
struct LogTornTail {
  std::optional<uint64_t> at;
  uint64_t bytes = 0;
};

// Reads `segments` (read-only), in order, and parses their records into `p->entries`, tracking
// transactional state: the last is `p`'s active segment (`p->base`, `p->path`, `p->file_size`,
// `p->last_record_at`), the others go to `p->closed`. Sets `*torn` if a torn tail follows the
// active segment's valid records. Corruption naming the file and byte offset for any other
// damage — in a closed segment, any damage at all. Changes no file.
Status ScanPartition(rocksdb::Env* env, const rocksdb::EnvOptions& env_options,
                     const std::vector<LogSegment>& segments, LogPartition* p, LogTornTail* torn);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_LOG_PARTITION_H_
