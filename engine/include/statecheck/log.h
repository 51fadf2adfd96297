// Log: the embedded, durable, append-only log that stands in for Kafka's topics ("the broker",
// SPEC C). It holds each task's input partition, each store's changelog partition, the output
// partition and the committed input offsets, in its own directory apart from the state
// directory, so wiping state never touches it.
//
// How it differs from a Kafka broker:
//   * One process, one writer: every call is made under one mutex; there is no replication. The
//     whole log is also held in memory (loaded on open): its size is what compaction leaves.
//   * Compaction is the caller's call (Compact, below), not a background cleaner's: a task
//     compacts its changelogs after its commits.
//   * A partition is a named sequence of segment files, created on the first append to it: the
//     first is `<name>.log`; when a write would take the active (last) segment past
//     LogOptions::segment_bytes, that segment is fsynced and closed, and the write begins
//     `<name>.log.<base>` (base: its first offset, 20 decimal digits). Offsets are assigned
//     consecutively per partition from 0; markers (below) take offsets too, as Kafka's control
//     records do, so a transactional partition's data offsets have gaps; so has a compacted
//     partition's (see "Compaction").
//   * A non-transactional Append is visible to READ_COMMITTED readers once it is durable: after
//     the next Sync() (Kafka: the high watermark). READ_UNCOMMITTED readers see it at once.
//   * Committed input offsets are records in an internal partition ("__offsets", key = group),
//     like Kafka's __consumer_offsets, so they can be part of a transaction (SPEC C1).
//
// Record format (little-endian), one record after another in each segment file:
//   offset  size  field
//        0     1  magic/version: 0xC1
//        1     1  type: 1 data, 2 txn-begin, 3 txn-commit, 4 txn-abort
//        2     1  flags: bit 0 = the value is null (a tombstone); bit 1 = the record has a
//                 timestamp (8 bytes, int64, open the payload); bit 2 = the record has a source
//                 (after the timestamp: partition name length, uint32; the name; the offset,
//                 int64); other bits 0
//        3     1  reserved, 0
//        4     8  transaction id (int64; 0 = not transactional)
//       12     8  offset (int64)
//       20     4  key length (uint32)
//       24     4  value length (uint32; 0 when null)
//       28     4  CRC-32C of bytes [0, 28) followed by the payload
//       32     -  the payload: the timestamp (with flag bit 1), the source (with flag bit 2), the
//                 key bytes, the value bytes
// A log written with sources must not be opened by an engine from before them: their flag bit is
// unknown to it, so it reads such records as damage, and truncates a run of them that ends a
// partition as a torn tail (docs/formats.md).
// (docs/formats.md has every on-disk format of the project.)
//
// Transactions (exactly-once-v2, SPEC C1). A transaction id names at most one open transaction
// at a time; it may be reused once that one is committed or aborted. The first transactional
// append to a partition writes a txn-begin marker there; a commit or abort writes a txn-commit
// or txn-abort marker to every partition the transaction touched. A READ_COMMITTED reader sees
// a transaction's data only below its commit marker, never an aborted transaction's data, and
// nothing at or after the begin marker of a still-open transaction (the last stable offset).
//
// Commit atomicity. CommitTransaction (1) fsyncs every partition the transaction touched,
// (2) appends a commit *decision* to the internal partition "__txn_state" naming each touched
// partition and the offset its commit marker will take, and fsyncs it — this is the commit
// point, (3) appends the commit markers and fsyncs each partition. Readers in this process see
// the markers only when all are written (the mutex is held throughout); a crash between (2) and
// the end of (3) is completed on the next open by writing the missing markers (roll forward),
// so readers see all of a committed transaction in every partition, or nothing of it. An abort
// needs no decision: every transaction without a durable commit decision is aborted.
//
// Recovery on open. A compaction a crash interrupted after its swap file was durable is
// completed (see "Compaction"). Each partition's segments are scanned in order. A record of the
// active segment that is cut short or fails its checksum is a *torn tail* if no valid record
// follows it anywhere in the file (SPEC F4): the file is truncated at its byte offset (through the
// Env's WritableFile::Truncate) and a warning naming the partition and byte offset is logged.
// Damage followed by a valid record, any damage in a closed segment (fsynced whole before the
// next began), or a record whose offset or transaction state is out of sequence, is Corruption
// naming the file and the byte offset. Then the last commit decision is completed (above), and
// every transaction still open in any partition is aborted (abort markers written and fsynced, a
// warning logged).
//
// Failures. A failed write is undone by truncating the file back; if that fails, or an fsync
// fails (the file's durable contents are then unknown), the partition refuses further writes
// with FailedPrecondition until the log is reopened. A failure during a commit from step (2) on
// leaves the outcome to recovery: every later call returns FailedPrecondition until reopen.
//
// Compaction (Kafka's cleanup.policy=compact, and compact,delete with a predicate for
// retention). Compact rewrites a partition's closed segments — its only segment, if it has one —
// as one file without the records no reader needs: markers,
// aborted transactions' records, records a later visible record of the same key supersedes,
// tombstones the caller says no restore needs any more, and records the caller's predicate says
// have expired. It works below a *cut*: the largest offset below the last stable offset and the
// partition's last record at which no transaction is open, and within the segments rewritten.
// Everything from the cut on is kept as it is, so the partition's end offset, its open
// transactions and its unsynced records stay, and the active segment of several is not touched.
// Below the cut, the records kept are rewritten outside any transaction (their txn_id reads 0:
// their transaction's markers are gone) at their own offsets. Of each source partition, the record
// with the largest source offset is always kept (a restore rebuilds its store's position from
// it). Steps: the kept records are written to `<name>.log.compacting` and fsynced. If they
// replace one file (`<name>.log`), it is renamed over it and the directory fsynced; a crash at
// any step leaves the old file or the new one, which READ_COMMITTED readers read alike. If they
// replace several closed segments, it is renamed to `<name>.log.swap.<end>` (end: the active
// segment's base) and the directory fsynced — from then on recovery completes the compaction —
// then the segments are deleted, the directory fsynced, the swap file renamed to `<name>.log` and
// the directory fsynced. A `.compacting` file a crash left is overwritten by the partition's next
// compaction (open logs it).
//
// Thread safety: a Log may be called from any number of threads; calls are serialized.
// All file I/O goes through the rocksdb::Env the log was opened with.
#ifndef STATECHECK_LOG_H_
#define STATECHECK_LOG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/logger.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace rocksdb {
class Env;
}  // namespace rocksdb

namespace statecheck {

struct LogOptions {
  std::string directory;  // Created (with missing parents) if missing.
  // The Env the log does all file I/O through (the faults layer wraps one). Null = the default.
  // Not owned; must outlive the log.
  rocksdb::Env* env = nullptr;
  std::shared_ptr<Logger> logger;  // Null = StderrLogger().
  // A partition's active segment is closed, and the next one begun, when a write would take it
  // past this many bytes (a segment holds at least one write, however large). >= 1. Kafka's
  // segment.bytes; smaller, as this log holds its records in memory as well.
  int64_t segment_bytes = int64_t{64} << 20;
};

// One data record as a reader sees it.
// A record's timestamp when it has none (Kafka's RecordBatch.NO_TIMESTAMP).
inline constexpr int64_t kNoTimestamp = -1;

// Where a record came from: the input partition and offset of the record whose processing wrote
// it. A task's changelog records carry theirs, so that a restore rebuilds its store's position
// (T8), as Kafka keeps a write's position in its changelog record's headers.
struct LogSource {
  std::string partition;  // A partition name (CheckPartitionName).
  int64_t offset = 0;     // >= 0.
  friend bool operator==(const LogSource&, const LogSource&) = default;
};

struct LogRecord {
  int64_t offset = 0;
  std::string key;
  std::optional<std::string> value;  // nullopt = a tombstone.
  int64_t txn_id = 0;                // 0 = appended outside a transaction.
  int64_t timestamp = kNoTimestamp;  // Milliseconds, >= 0; or kNoTimestamp.
  std::optional<LogSource> source;   // None: appended without one.
  friend bool operator==(const LogRecord&, const LogRecord&) = default;
};

// A data record for Log::AppendBatch: what Append takes, owned.
struct LogAppendRecord {
  std::string key;
  std::optional<std::string> value;  // nullopt = a tombstone.
  int64_t timestamp = kNoTimestamp;
  std::optional<LogSource> source;
};

// The committed input offsets of a consumer group, with the processor's metadata (SPEC E10).
struct CommittedOffsets {
  std::map<std::string, int64_t> offsets;  // Partition → next offset to consume.
  std::string metadata;
  friend bool operator==(const CommittedOffsets&, const CommittedOffsets&) = default;
};

// The log's own partitions (see above). Compact takes them as well as user partitions: of
// "__offsets" each group's last committed offsets stay, of "__txn_state" the last commit
// decision (the only one recovery reads).
inline constexpr std::string_view kLogOffsetsPartition = "__offsets";
inline constexpr std::string_view kLogTxnStatePartition = "__txn_state";

// What Log::Compact removes, and when it runs (see "Compaction").
struct LogCompaction {
  // Tombstones at offsets below this are removed; 0 keeps every tombstone. A caller whose store
  // restores from a stored offset passes that offset + 1: a restore starting there never needs
  // an earlier tombstone, and one starting from 0 (after a wipe) needs none.
  int64_t tombstones_removable_below = 0;
  // A visible record this returns true for is removed too (a windowed changelog's records past
  // the store's retention). Null: none.
  std::function<bool(const LogRecord&)> expired;
  // Run only when the file holds at least `min_bytes`, and at least `min_dirty_ratio` of it
  // (0 to 1) was written since this Log object last compacted it; 0 and 0: always.
  uint64_t min_bytes = 0;
  double min_dirty_ratio = 0;
};

// What a Compact call did.
struct LogCompactionResult {
  bool compacted = false;  // The file was rewritten.
  // The segment files the rewrite replaced: 1 (the partition's only segment, or its one closed
  // segment) or more (its closed segments, through the swap file).
  int64_t segments_replaced = 0;
  int64_t cut = 0;  // Records below this offset were candidates (see "Compaction").
  int64_t records_before = 0, records_after = 0;  // Records of all kinds, markers included.
  uint64_t bytes_before = 0, bytes_after = 0;
};

// Partition names: 1 to 200 bytes of [A-Za-z0-9._-], not "." or "..", and not starting with
// "__" (reserved for the log's own partitions). Anything else is InvalidArgument naming it.
class Log {
 public:
  virtual ~Log() = default;

  // Appends a data record outside any transaction and sets `*offset` to its offset. It is
  // written to the file (it survives a process crash) but durable only after Sync().
  // InvalidArgument for a bad partition name, a timestamp below kNoTimestamp or a bad `source`
  // (a bad partition name or a negative offset); IOError if the write failed (nothing appended);
  // FailedPrecondition if the partition or the log must be reopened (see "Failures").
  virtual Status Append(std::string_view partition, std::string_view key,
                        std::optional<std::string_view> value, int64_t timestamp,
                        const std::optional<LogSource>& source, int64_t* offset) = 0;
  Status Append(std::string_view partition, std::string_view key,
                std::optional<std::string_view> value, int64_t timestamp, int64_t* offset) {
    return Append(partition, key, value, timestamp, std::nullopt, offset);
  }
  Status Append(std::string_view partition, std::string_view key,
                std::optional<std::string_view> value, int64_t* offset) {
    return Append(partition, key, value, kNoTimestamp, offset);
  }

  // Fsyncs every partition with unsynced records; they become visible to READ_COMMITTED
  // readers. IOError if an fsync failed.
  virtual Status Sync() = 0;

  // Starts transaction `txn_id`. InvalidArgument if `txn_id` <= 0; FailedPrecondition if a
  // transaction with that id is already open. Writes nothing.
  virtual Status BeginTransaction(int64_t txn_id) = 0;

  // Appends a data record to open transaction `txn_id` (after a txn-begin marker on its first
  // append to `partition`). NotFound if no such transaction is open; otherwise as Append.
  virtual Status AppendTransactional(int64_t txn_id, std::string_view partition,
                                     std::string_view key, std::optional<std::string_view> value,
                                     int64_t timestamp, const std::optional<LogSource>& source,
                                     int64_t* offset) = 0;
  Status AppendTransactional(int64_t txn_id, std::string_view partition, std::string_view key,
                             std::optional<std::string_view> value, int64_t timestamp,
                             int64_t* offset) {
    return AppendTransactional(txn_id, partition, key, value, timestamp, std::nullopt, offset);
  }
  Status AppendTransactional(int64_t txn_id, std::string_view partition, std::string_view key,
                             std::optional<std::string_view> value, int64_t* offset) {
    return AppendTransactional(txn_id, partition, key, value, kNoTimestamp, offset);
  }

  // Appends `records` to `partition` with one write to its file, as one Append (`txn_id` 0) or
  // AppendTransactional(txn_id) per record would, in order (a producer's batch): they take
  // consecutive offsets, `*first_offset` the first's (after the transaction's txn-begin marker,
  // which a first append to the partition writes before them). All or nothing: every record is
  // checked before anything is written, with Append's and AppendTransactional's errors
  // (InvalidArgument for a negative `txn_id`), and on an error none of them is appended. An
  // empty batch writes nothing and sets `*first_offset` to the end offset.
  virtual Status AppendBatch(int64_t txn_id, std::string_view partition,
                             std::vector<LogAppendRecord> records, int64_t* first_offset) = 0;

  // Writes `group`'s committed offsets inside transaction `txn_id`: they become visible with the
  // transaction's other records, or never. NotFound if no such transaction is open;
  // InvalidArgument for an empty group, a bad partition name or a negative offset.
  virtual Status AppendOffsetsTransactional(int64_t txn_id, std::string_view group,
                                            const CommittedOffsets& offsets) = 0;

  // Commits transaction `txn_id` durably and atomically (see "Commit atomicity"); on OK every
  // record of it is durable and visible to READ_COMMITTED readers. NotFound if no such
  // transaction is open. IOError on a failed write or fsync: before the commit point the
  // transaction stays open (the caller may abort it); after it, the log must be reopened and
  // recovery decides (the message says which).
  virtual Status CommitTransaction(int64_t txn_id) = 0;

  // Aborts transaction `txn_id`: abort markers are written and fsynced; its records are never
  // visible to READ_COMMITTED readers. NotFound if no such transaction is open. On IOError the
  // transaction stays open; a reopen aborts it.
  virtual Status AbortTransaction(int64_t txn_id) = 0;

  // Writes `group`'s committed offsets outside any transaction and syncs them: on OK they are
  // durable. InvalidArgument as AppendOffsetsTransactional.
  virtual Status CommitOffsets(std::string_view group, const CommittedOffsets& offsets) = 0;

  // Sets `*out` to `group`'s last committed offsets visible to READ_COMMITTED readers.
  // NotFound if the group has none; InvalidArgument for an empty group.
  virtual Status GetCommittedOffsets(std::string_view group, CommittedOffsets* out) = 0;

  // Sets `*offset` to the offset the next record appended to `partition` will take (0 for a
  // partition never written). InvalidArgument for a bad partition name.
  virtual Status EndOffset(std::string_view partition, int64_t* offset) = 0;

  // Sets `*offset` to the last stable offset: READ_COMMITTED readers see records below it and
  // none at or above it. It is the smallest of the durable end (after Sync) and the begin marker
  // of any open transaction in the partition. InvalidArgument for a bad partition name.
  virtual Status CommittedEndOffset(std::string_view partition, int64_t* offset) = 0;

  // Appends to `*records` up to `max_records` data records of `partition` with offsets from
  // `from_offset`, in offset order. kReadCommitted reads below CommittedEndOffset and skips
  // markers and aborted transactions' records; kReadUncommitted returns every data record up to
  // EndOffset (aborted ones too). InvalidArgument for a bad name, a negative `from_offset` or
  // `max_records` < 1; OutOfRange if `from_offset` > EndOffset.
  virtual Status Read(std::string_view partition, int64_t from_offset, int max_records,
                      IsolationLevel isolation, std::vector<LogRecord>* records) = 0;

  // The user partitions that exist (have a file), sorted.
  virtual std::vector<std::string> Partitions() = 0;

  // Compacts `partition`, a user partition or one of the log's own (kLogOffsetsPartition,
  // kLogTxnStatePartition), if `policy` says it is due (see "Compaction"); `*result` says what it
  // did. OK without writing anything for a partition that does not exist or has nothing to
  // remove. InvalidArgument for a bad name or a min_dirty_ratio outside [0, 1];
  // FailedPrecondition if the partition or the log must be reopened. IOError if a step failed:
  // before the rename the partition is as it was (a `.compacting` file may be left); after it,
  // the compacted file is in place and its name becomes durable with the partition's next sync.
  // Either way the partition takes writes and reads as before.
  virtual Status Compact(std::string_view partition, const LogCompaction& policy,
                         LogCompactionResult* result) = 0;

  // What a caller may do after an error (see "Failures"): OK if writes may go on with this
  // object (a failed append that was undone, a transaction still open that may be retried or
  // aborted); FailedPrecondition, saying why, if a partition or the whole log refuses writes
  // until the log is reopened (drop this object and OpenLog again — recovery decides what a
  // failure left). Writes nothing.
  virtual Status CheckWritable() = 0;
};

// OK if `name` is a valid user partition name (above); else InvalidArgument saying why.
Status CheckPartitionName(std::string_view name);

// Opens (creating if needed) the log in `options.directory` and recovers it (see "Recovery on
// open"). InvalidArgument for an empty directory; Corruption naming the file and byte offset of
// damage that is not a torn tail; IOError from the Env (including when the directory's lock is
// held by another open Log).
Status OpenLog(const LogOptions& options, std::unique_ptr<Log>* log);

// One segment file of a partition, as InspectLog reads it.
struct LogSegmentSummary {
  std::string file;    // Its name in the log directory.
  int64_t base = 0;    // Its first offset (the first segment: 0).
  uint64_t bytes = 0;  // Bytes of valid records in it.
};

// What a log directory holds, as InspectLog reads it without changing it.
struct LogPartitionSummary {
  std::string name;          // Internal partitions ("__txn_state", "__offsets") included.
  int64_t end_offset = 0;    // The offset the next record would take (markers count).
  int64_t data_records = 0;  // Data records (markers not counted).
  int64_t markers = 0;       // Transaction begin, commit and abort markers (or decisions).
  uint64_t valid_bytes = 0;  // Bytes of valid records in all of its segments.
  // Its segments in offset order, the active one last. Damage anywhere in a closed segment is
  // Corruption on open.
  std::vector<LogSegmentSummary> segments;
  // In the active (last) segment, the byte offset where the last valid record starts (0 with
  // fewer than two records there): damage below it has a valid record after it, which recovery
  // reports as Corruption.
  uint64_t last_record_at = 0;
  // A compaction a crash interrupted after its swap file was durable: read here as recovery will
  // complete it (the swap file is the first segment).
  bool swap_pending = false;
  // A torn tail (a record cut short or failing its checksum, with no valid record after it):
  // noted, not repaired. Recovery on open would truncate the file at `torn_tail_at`.
  std::optional<uint64_t> torn_tail_at;
  uint64_t torn_tail_bytes = 0;
};

// A transaction with a begin marker and no end marker in some partition.
struct LogOpenTransaction {
  int64_t txn_id = 0;
  std::map<std::string, int64_t> begin_offsets;  // Partition → offset of its begin marker.
  // True if the last commit decision names it (a crash between the decision and the markers):
  // recovery would complete the commit. False = no decision: recovery would abort it.
  bool commit_decided = false;
};

struct LogSummary {
  std::string directory;
  std::vector<LogPartitionSummary> partitions;  // Sorted by name.
  // Each group's last committed offsets, as READ_COMMITTED readers would see them after
  // recovery (open transactions without a decision counted as aborted).
  std::map<std::string, CommittedOffsets> committed_offsets;
  std::vector<LogOpenTransaction> open_transactions;  // Sorted by id.
  std::vector<std::string> ignored_files;  // `.log` files whose name is not a partition name.
};

// Reads the log in `directory` without opening it: nothing is written, locked, truncated or
// recovered. `env` null = the default. NotFound if the directory does not exist; Corruption (as
// OpenLog) for damage that is not a torn tail; IOError from the Env.
Status InspectLog(const std::string& directory, rocksdb::Env* env, LogSummary* out);

}  // namespace statecheck

#endif  // STATECHECK_LOG_H_
