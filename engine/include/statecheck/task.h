// Task: a stream task of the embedded runtime (SPEC C1–C6, T6, T7, T9, T10). It reads its input
// partition from the Log, runs a Processor over each record, and keeps the Processor's state in
// persistent transactional stores (RocksDBStore) — and in-memory window stores, see below — whose
// writes are also appended to a changelog partition per store; the Processor's output goes to
// an output partition.
//
// The commit protocol (C1). A commit makes durable:
// First, the changelog and output records still buffered (TaskOptions::log_batch_bytes) are
// written to the log. Then:
//   at_least_once:    (1) the changelog and output records (Log::Sync), (2) each store's data
//                     with its changelog offset (KeyValueStore::Commit, T7), (3) the next input
//                     offset with the processor's metadata (Log::CommitOffsets) — in this order,
//                     so a crash anywhere leaves the input offset at or behind the data.
//   exactly_once_v2:  (1) one log transaction holding the changelog records, the output records
//                     and the next input offset commits (Log::CommitTransaction): all become
//                     visible to committed readers together, or none do; (2) each store's data
//                     with its changelog offset. A crash between (1) and (2) leaves a store
//                     behind its changelog, which the next restore (C2) makes up.
// A commit happens when the commit interval has passed (in processed records, or in ms of the
// Clock the task is handed), before a record when the stores' uncommitted bytes exceed
// statestore.uncommitted.max.bytes (T6), on an explicit Commit(), and on Close() — and only if a
// record was processed since the last one (Kafka's "commit needed").
//
// Restore (C2). Opening a task opens each store; a store that was not closed cleanly is wiped
// first where the T1 table says so (exactly_once_v2 with READ_UNCOMMITTED, T10). Each store is
// then restored from its changelog, from its stored offset + 1 (from 0 after a wipe) to the
// changelog's end: under exactly_once_v2 the last stable offset, reading committed records only
// (aborted and open transactions skipped); under at_least_once every record written. A stored
// offset past the changelog's end (the changelog lost records the store has) is logged and the
// store wiped and restored from 0, as Kafka does for an out-of-range changelog offset. Then
// processing resumes at the committed input offset.
//
// Formats (SPEC U; config.format). In the legacy format the stores keep no offsets (see
// rocksdb_store.h): the task keeps its changelog offsets in `<state_directory>/.checkpoint` and
// each store's committed position in `<state_directory>/<store>.position`
// (statecheck/offset_checkpoint.h; log partition P is the entry "P 0 <offset>", -4 for a store
// with no changelog record yet). At-least-once writes them after every commit, between the
// stores' commit and the input offset's, and once its stores are restored; both guarantees
// write them at a clean close; an exactly-once task deletes them when it starts. Opening:
//   * legacy, store legacy:   restore after its .checkpoint offset; wipe it when there is none.
//   * legacy, store current:  wipe (U3, a downgrade): the legacy format cannot use its offsets.
//   * current, store legacy:  import (U1, an upgrade): the .checkpoint offset and the .position
//                             entries go into the store with its current-format mark, in one
//                             atomic commit; wipe it instead when there is no offset. Once
//                             every store is open, the legacy files are deleted — never
//                             before (U2): a crash in between leaves each store legacy with its
//                             files, or current with what they said.
//   * current, store current: as above (T10).
// A legacy file that cannot be trusted — any error reading its content, or an entry skipped as
// invalid — is logged, and every store it covers wiped and restored in full (U5). An I/O error
// reading it fails the open (F1).
//
// Wipes are crash-safe: a `<store>.wiping` marker in the state directory is durable before the
// first file of the store goes and deleted once the new, empty store is; a start that finds
// one (a crash interrupted the wipe, which may have left half a store) wipes the store again.
//
// Failure (C6). When a write, a commit or a restore step fails, the task reports the error and
// stops: every later call returns FailedPrecondition, and the caller Abandon()s it and opens a
// new task on the same directories (Kafka's "task corrupted"). Nothing committed is lost — the
// stores keep their last commit (T9), an unfinished transaction is aborted when the next task
// fences it or the log recovers, and the next task restores and resumes from the committed
// input offset.
//
// Keeping going (F8). The process need not restart after an error. A stopped task refuses
// Process, Commit and Close (FailedPrecondition; Close abandons it) and writes nothing; the
// caller abandons it and opens the task again in the same process, with the same Log object if
// Log::CheckWritable() is OK, else after reopening the log (the failure left the log's durable
// contents for its recovery to decide). A failed commit then shows one of its two outcomes,
// never a mix, exactly as after a crash; what the new task reads, processes and commits keeps
// every rule. The stores are restored as after a crash (their open-status markers are set).
//
// Crash. Abandon() drops the task as a crash would: no commit, stores abandoned with their
// open-status markers set (T7), an open transaction left open.
//
// In-memory window stores (SPEC W, statecheck/in_memory_window_store.h). A Processor may also
// declare window stores (Processor::WindowStores) that live only in memory. Each has a changelog
// partition named like a key-value store's (ChangelogPartitionName), and every write through
// ProcessorContext::WindowPut is appended to it — puts the store drops by retention (W3) and
// deletes included, so that replaying the changelog repeats the store's history exactly — inside
// the commit protocol above, as the key-value stores' changelog records are: under
// exactly_once_v2 in the commit's log transaction, under at_least_once synced at commit. The
// store has no offsets and nothing on disk: every open restores it from offset 0 of its
// changelog to the changelog's end as above (exactly_once_v2: the committed records only, up
// to the last stable offset; at_least_once: every record written), replaying each put, so that
// the store's own retention drops the windows that have expired by the restored stream time
// (W2, W3). Restoring costs the whole changelog, which the log never compacts: fine at harness
// sizes. A crash (Abandon) loses the store; Close() closes it after the final commit. The
// changelog record of a write:
//   key:       [window start, 8 bytes big-endian two's complement][the key's bytes]
//   value:     the value, or null (a tombstone) for a delete (W4)
//   timestamp: the input record's, as for key-value stores.
// Window stores are not transactional: the writer's reads and GetWindowStore readers see each
// write at once, also under READ_COMMITTED (T4 is about the key-value stores); what a commit
// makes durable is the changelog. Their uncommitted bytes are 0 (T6). Store names are one
// namespace: a window store may not share a key-value store's name.
//
// Thread safety: one thread drives a task; Store(name)->NewQueryView() readers may run on other
// threads (T2). A window store serialises its own calls, so GetWindowStore readers may too.
#ifndef STATECHECK_TASK_H_
#define STATECHECK_TASK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/clock.h"
#include "statecheck/key_value_store.h"
#include "statecheck/log.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"
#include "statecheck/window_store.h"

namespace rocksdb {
class Env;
}  // namespace rocksdb

namespace statecheck {

// What a Processor may do while processing one record.
class ProcessorContext {
 public:
  virtual ~ProcessorContext() = default;
  // The writer's read of `store` (read-your-writes, T5). InvalidArgument for an unknown store.
  virtual Status Get(std::string_view store, std::string_view key,
                     std::optional<std::string>* value) = 0;
  // Writes `key` = `value` (std::nullopt deletes) to `store` and to its changelog, with the
  // current input record as the write's context (T8) and its timestamp on the changelog record.
  virtual Status Put(std::string_view store, std::string_view key,
                     std::optional<std::string_view> value) = 0;
  // The writer's iterator over the keys of `store` from `from` to `to`, both included
  // (std::nullopt: unbounded; KeyValueStore::Range), ascending, its own writes included (T5).
  // InvalidArgument for an unknown store.
  virtual Status Range(std::string_view store, std::optional<std::string_view> from,
                       std::optional<std::string_view> to,
                       std::unique_ptr<KeyValueIterator>* it) = 0;
  // Appends an output record with `timestamp` (kNoTimestamp or >= 0).
  virtual Status Forward(std::string_view key, std::optional<std::string_view> value,
                         int64_t timestamp) = 0;
  // Appends an output record with the input record's timestamp, as Kafka forwards by default.
  Status Forward(std::string_view key, std::optional<std::string_view> value) {
    return Forward(key, value, RecordTimestamp());
  }
  // The timestamp of the input record being processed (kNoTimestamp if it has none).
  virtual int64_t RecordTimestamp() const = 0;
  // Wall-clock time: the task's Clock (SPEC E5's emit interval).
  virtual int64_t WallClockMs() const = 0;

  // In-memory window stores (see "In-memory window stores" above). Each call is the store's
  // own (statecheck/window_store.h), so retention applies (W3, W6). InvalidArgument for a name
  // that is no window store of the task. They are not pure virtual so that contexts written
  // before them (wrappers of a task's context) still compile; the defaults return
  // Unimplemented, and a wrapper that may run a processor with window stores must forward them.
  //
  // Writes `key` = `value` (std::nullopt deletes) at `window_start` to `store` and appends it
  // to its changelog, with the input record's timestamp.
  virtual Status WindowPut(std::string_view store, std::string_view key,
                           std::optional<std::string_view> value, int64_t window_start);
  // WindowStore::Fetch(key, window_start): the value of `key` at exactly `window_start`.
  virtual Status WindowFetch(std::string_view store, std::string_view key, int64_t window_start,
                             std::optional<std::string>* value);
  // WindowStore::FetchAll: every record with start in [time_from, time_to], by start, then key
  // bytes (W7).
  virtual Status WindowFetchAll(std::string_view store, int64_t time_from, int64_t time_to,
                                std::unique_ptr<WindowStoreIterator>* it);
};

// An in-memory window store a Processor declares (statecheck/in_memory_window_store.h). The
// options must pass ValidateWindowStoreOptions (W1); no duplicates are retained.
struct WindowStoreSpec {
  std::string name;  // As store names: [A-Za-z0-9._-], unique among all the task's stores.
  int64_t retention_ms = 0;
  int64_t window_size_ms = 0;
};

class Processor {
 public:
  virtual ~Processor() = default;
  // The stores the processor uses: store names as Log partition names allow ([A-Za-z0-9._-]).
  virtual std::vector<std::string> StoreNames() const = 0;
  // The in-memory window stores the processor uses, besides those; none by default.
  virtual std::vector<WindowStoreSpec> WindowStores() const { return {}; }
  // Processes one input record. An error stops the task (C6).
  virtual Status Process(const LogRecord& record, ProcessorContext* context) = 0;
  // Metadata committed with the input offset (SPEC E10); empty by default.
  virtual std::string CommitMetadata() const { return {}; }
  // Called once when the task has restored its stores, before the first record, with the
  // metadata last committed with the input offset ("" if none). An error fails OpenTask.
  virtual Status Init(std::string_view committed_metadata) {
    (void)committed_metadata;
    return Status::Ok();
  }
};

// The key-value processor. Stores "kv" and "counts". For an input record (k, v):
//   counts[k] := counts[k] + 1 (decimal; absent = 0);
//   v present: kv[k] := v, output (k, v + "#" + counts[k]);
//   v null:    kv[k] deleted, output (k, null).
std::unique_ptr<Processor> NewKeyValueProcessor();

struct TaskOptions {
  std::string application_id;  // Names the changelogs and the offsets group; [A-Za-z0-9._-].
  std::string task_id = "0_0";
  std::string input_partition;
  std::string output_partition;
  // The task's stores live in `state_directory`/<store name>. Created if missing.
  std::string state_directory;
  Log* log = nullptr;  // Not owned; must outlive the task.
  StateConfig config;  // From ResolveStateConfig (T1).
  // Commit after this many processed records; 0 = no record-count trigger.
  int64_t commit_interval_records = 0;
  // Commit when this many ms of `clock` have passed since the last commit; -1 = Kafka's default
  // commit.interval.ms for the guarantee (30000 at_least_once, 100 exactly_once_v2).
  int64_t commit_interval_ms = -1;
  std::shared_ptr<Clock> clock;                 // Null = SystemClock().
  rocksdb::Env* env = nullptr;                  // For the stores; null = the default. Not owned.
  bool store_use_wal = false;                   // RocksDBStoreOptions::use_wal.
  int64_t store_write_buffer_size = 0;          // RocksDBStoreOptions::write_buffer_size.
  int64_t store_max_unflushed_bytes = 1 << 20;  // RocksDBStoreOptions::max_unflushed_bytes.
  bool store_disable_auto_compactions = false;  // RocksDBStoreOptions::disable_auto_compactions.
  RocksDBConfigSetter store_config_setter;      // RocksDBStoreOptions::config_setter.
  int restore_batch_records = 1000;             // Restored records per store commit.
  // The changelog and output records a task writes are buffered, and written to the log in
  // batches (Log::AppendBatch: one write per partition), as Kafka's producer batches its sends:
  // once they add up to this many bytes (as the log writes them), and at every commit, before
  // anything else (C1). 0 = each record is written as it is produced. Records not yet written
  // are not committed either: a crash loses them, and the restarted task processes their input
  // again (C3, C4).
  int64_t log_batch_bytes = 1 << 20;
  // Changelog compaction (statecheck/log.h, "Compaction"), after each commit: a changelog of at
  // least `changelog_compaction_min_bytes`, at least `changelog_compaction_min_dirty_ratio` of it
  // written since it was last compacted, is compacted; -1 = never. A key-value store's changelog
  // loses superseded records and the tombstones before the store's stored offset; a window
  // store's also the records whose window start is below its stream time minus its retention
  // (they would be dropped on restore). The log's own "__offsets" and "__txn_state" are
  // compacted by the same rule. A failed compaction is logged and counted (TaskStats); the
  // commit stands, and a later one compacts again.
  int64_t changelog_compaction_min_bytes = 1 << 20;
  double changelog_compaction_min_dirty_ratio = 0.5;
  std::shared_ptr<Logger> logger;  // Null = StderrLogger().
};

// How one store was restored when the task opened (C2, T10), as a restore listener sees it.
struct StoreRestore {
  std::string store;
  std::string changelog;
  // The store's format on disk when the task opened it (std::nullopt: a new store), SPEC U.
  std::optional<StateFormat> found_format;
  // The store's open-status marker was clear (T7); always true for a legacy store, which has
  // none (its .checkpoint tells a clean close).
  bool was_closed_cleanly = true;
  bool wiped = false;  // Wiped before restoring (T10, or an out-of-range offset).
  // An in-memory window store: nothing on disk, no stored offset; restored from 0 every time.
  bool in_memory = false;
  std::optional<int64_t> stored_offset;  // The store's changelog offset before restoring.
  int64_t start_offset = 0;              // Restore read from here ...
  int64_t end_offset = 0;                // ... up to here (exclusive).
  int64_t records_restored = 0;          // Data records applied.
};

enum class CommitReason { kInterval, kUncommittedBytes, kExplicit, kClose };
std::string_view CommitReasonName(CommitReason reason);  // "interval", "uncommitted_bytes", ...

struct TaskStats {
  int64_t processed = 0;                        // Records processed by this task object.
  int64_t commits = 0;                          // Commits that completed.
  int64_t commits_by_reason[4] = {0, 0, 0, 0};  // Indexed by CommitReason.
  // When the task stopped on an error (failed()): whether a commit failed (its outcome is then
  // known only after a restart) rather than the processing of a record.
  bool failed_in_commit = false;
  int64_t compactions = 0;  // Changelog compactions that rewrote a changelog.
  // Of which replaced several closed segments of it with one (LogCompactionResult).
  int64_t segment_compactions = 0;
  int64_t compactions_failed = 0;  // Changelog compactions that failed (logged).
};

class Task {
 public:
  // Destroying a task that was not closed abandons it (a crash).
  virtual ~Task() = default;

  // Processes up to `max_records` committed input records (fewer when the input has no more),
  // committing whenever a trigger says so; `*processed` = records processed. On an error the
  // task stops (see "Failure"); `*processed` counts the records processed before it.
  virtual Status Process(int64_t max_records, int64_t* processed) = 0;
  // Commits now if any record was processed since the last commit; OK without writing anything
  // otherwise.
  virtual Status Commit() = 0;
  // Commits (reason kClose) and closes the stores cleanly. On a failed commit the task is
  // abandoned instead and the commit's error returned; a task that had already stopped on an
  // error is abandoned and FailedPrecondition returned. Idempotent. A store that cannot record
  // its clean close (KeyValueStore::Close) does not fail the close: it is logged, and the next
  // start restores that store as after a crash.
  virtual Status Close() = 0;
  // A crash: see "Crash". Idempotent.
  virtual void Abandon() = 0;

  // The offset of the next input record to process.
  virtual int64_t next_input_offset() const = 0;
  // The store named `name`, for IQ views (NewQueryView) and metadata; null if unknown or the
  // task is closed. Writing to it directly bypasses the changelog: don't.
  virtual KeyValueStore* Store(std::string_view name) = 0;
  // The in-memory window store named `name` for interactive queries (Kafka's
  // ReadOnlyWindowStore), as the writer sees it — every write, committed or not: it is not
  // transactional (see "Window stores" above); null if unknown or the task is closed or
  // abandoned.
  virtual ReadOnlyWindowStore* GetWindowStore(std::string_view name) = 0;
  // The changelog partition of store `name` (ChangelogPartitionName).
  virtual std::string ChangelogPartition(std::string_view name) const = 0;
  // The offsets group of this task in the log: "<application_id>-<task_id>".
  virtual std::string OffsetsGroup() const = 0;
  virtual const std::vector<StoreRestore>& restores() const = 0;
  virtual const TaskStats& stats() const = 0;
  // Whether the task stopped on an error (every call but Abandon then fails).
  virtual bool failed() const = 0;
};

// The changelog partition of store `store` of the task `options` describe:
// "<application_id>-<store>-changelog-<task_id>".
std::string ChangelogPartitionName(const TaskOptions& options, std::string_view store);

// Opens the task: opens, wipes and restores its stores and finds its committed input offset
// (see "Restore"). InvalidArgument naming the option for a missing log, empty ids or partitions,
// names the log rejects, or a non-positive restore batch; InvalidArgument for a store name
// declared twice (key-value and window stores together) and for window store options W1
// rejects (Kafka's text); errors from the stores and the log
// otherwise (every store already opened is abandoned again: a half-done restore is not a clean
// state).
Status OpenTask(const TaskOptions& options, std::unique_ptr<Processor> processor,
                std::unique_ptr<Task>* task);

}  // namespace statecheck

#endif  // STATECHECK_TASK_H_
