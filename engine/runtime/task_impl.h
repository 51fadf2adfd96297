// The task runtime's implementation (statecheck/task.h): the TaskImpl class, whose run loop —
// processing, the processor's context, the commit protocol — is in task.cc and whose start —
// the restore of every store, wipes included — is in task_restore.cc. Internal to the engine.
#ifndef STATECHECK_ENGINE_RUNTIME_TASK_IMPL_H_
#define STATECHECK_ENGINE_RUNTIME_TASK_IMPL_H_

#include <rocksdb/env.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/runtime/legacy_files.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/task.h"
#include "statecheck/window_store.h"

namespace statecheck::internal {

inline constexpr int64_t kAtLeastOnceCommitIntervalMs =
    30000;  // Kafka's commit.interval.ms defaults.
inline constexpr int64_t kExactlyOnceCommitIntervalMs = 100;
inline constexpr int kInputBatch = 500;  // Input records fetched from the log at a time.

// What a record waiting to be written counts towards TaskOptions::log_batch_bytes: the bytes
// the log writes for it (its header, timestamp, source, key and value).
inline int64_t PendingBytes(const LogAppendRecord& r) {
  constexpr size_t kHeaderAndTimestamp = 32 + 8;
  constexpr size_t kSourceFields = 4 + 8;
  return static_cast<int64_t>(kHeaderAndTimestamp + r.key.size() + (r.value ? r.value->size() : 0) +
                              (r.source ? kSourceFields + r.source->partition.size() : 0));
}

// Positive, stable for a task: the log transaction id the task's transactions use. A new task
// object of the same task aborts a transaction an older one left open (Kafka's fencing).
int64_t TransactionId(const std::string& group);

// The changelog key of a window store's write at `window_start` (task.h): the start's 8 bytes,
// most significant first, then the key.
std::string WindowChangelogKey(int64_t window_start, std::string_view key);

// The window start of a changelog key WindowChangelogKey wrote (which holds at least 8 bytes).
int64_t WindowStartOf(std::string_view changelog_key);

// An in-memory window store of the task (task.h): nothing but the store and its changelog.
struct TaskWindowStore {
  WindowStoreSpec spec;
  std::string changelog;
  std::unique_ptr<WindowStore> store;
  std::vector<LogAppendRecord> pending;  // Changelog records not yet written to the log.
};

struct TaskStore {
  std::string name;
  std::string changelog;
  std::unique_ptr<RocksDBStore> store;
  // The offset of the store's last changelog record: stored in the store at open (after the
  // restore), then the last one written to the log.
  std::optional<int64_t> last_changelog_offset;
  std::vector<LogAppendRecord> pending;  // Changelog records not yet written to the log.
};

class TaskImpl final : public Task, private ProcessorContext {
 public:
  TaskImpl(const TaskOptions& options, std::unique_ptr<Processor> processor)
      : options_(options),
        processor_(std::move(processor)),
        clock_(options.clock ? options.clock : SystemClock()),
        logger_(options.logger ? options.logger : StderrLogger()),
        group_(options.application_id + "-" + options.task_id),
        txn_id_(TransactionId(group_)),
        eos_(options.config.guarantee == ProcessingGuarantee::kExactlyOnceV2),
        legacy_(options.config.format == StateFormat::kLegacy),
        legacy_files_(options.env, options.state_directory, options.task_id, logger_) {
    commit_interval_ms_ = options.commit_interval_ms >= 0 ? options.commit_interval_ms
                          : eos_                          ? kExactlyOnceCommitIntervalMs
                                                          : kAtLeastOnceCommitIntervalMs;
  }

  ~TaskImpl() override { Abandon(); }

  Status Open();

  // Task ---------------------------------------------------------------------------------------
  // Every error of Process and Commit stops the task (C6): Fail marks it, at these entries.
  Status Process(int64_t max_records, int64_t* processed) override;

  Status Commit() override;

  Status ProcessRecords(int64_t max_records, int64_t* processed);

  Status Close() override;

  void Abandon() override {
    for (TaskStore& ts : stores_) ts.store->Abandon();
    stores_.clear();
    window_stores_.clear();   // In memory only: lost, as in a crash.
    pending_output_.clear();  // Never written, as in a crash: the input is processed again.
    pending_bytes_ = 0;
    open_ = false;
  }

  int64_t next_input_offset() const override { return next_offset_; }

  KeyValueStore* Store(std::string_view name) override {
    TaskStore* ts = Find(name);
    return ts ? ts->store.get() : nullptr;
  }

  ReadOnlyWindowStore* GetWindowStore(std::string_view name) override {
    TaskWindowStore* ws = FindWindowStore(name);
    return ws ? ws->store.get() : nullptr;
  }

  std::string ChangelogPartition(std::string_view name) const override {
    return ChangelogPartitionName(options_, name);
  }
  std::string OffsetsGroup() const override { return group_; }
  const std::vector<StoreRestore>& restores() const override { return restores_; }
  const TaskStats& stats() const override { return stats_; }
  bool failed() const override { return failed_; }

 private:
  // ProcessorContext -----------------------------------------------------------------------------
  Status Get(std::string_view store, std::string_view key,
             std::optional<std::string>* value) override;

  Status Put(std::string_view store, std::string_view key,
             std::optional<std::string_view> value) override;

  Status Range(std::string_view store, std::optional<std::string_view> from,
               std::optional<std::string_view> to, std::unique_ptr<KeyValueIterator>* it) override;

  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override;

  int64_t RecordTimestamp() const override { return current_ ? current_->timestamp : kNoTimestamp; }
  int64_t WallClockMs() const override { return clock_->NowMs(); }

  Status WindowPut(std::string_view store, std::string_view key,
                   std::optional<std::string_view> value, int64_t window_start) override;

  Status WindowFetch(std::string_view store, std::string_view key, int64_t window_start,
                     std::optional<std::string>* value) override;

  Status WindowFetchAll(std::string_view store, int64_t time_from, int64_t time_to,
                        std::unique_ptr<WindowStoreIterator>* it) override;

  // ----------------------------------------------------------------------------------------------
  // Adds a record to `pending` (a store's changelog records or the output's), with `source` on
  // it (a changelog record's input position, T8), and writes every pending record once they
  // reach TaskOptions::log_batch_bytes.
  Status Append(std::vector<LogAppendRecord>* pending, std::string_view key,
                std::optional<std::string_view> value, int64_t timestamp,
                const std::optional<LogSource>& source = std::nullopt);
  // Writes the pending records to the log under the task's guarantee (in its transaction under
  // EOS), a partition's with one write (Log::AppendBatch).
  Status WritePending();

  // The commit protocol (task.h, C1).
  Status DoCommit(CommitReason reason);

  Status CommitStores();
  // Compacts the changelogs that are due (TaskOptions::changelog_compaction_min_bytes) after a
  // commit; a failure is logged and counted, never the commit's.
  void CompactChangelogs();

  // The legacy files (SPEC U) --------------------------------------------------------------------
  // The task's key-value stores as its legacy files name them.
  std::vector<internal::LegacyStore> LegacyStores() const {
    std::vector<internal::LegacyStore> out;
    for (const std::string& name : processor_->StoreNames()) {
      out.push_back({name, ChangelogPartition(name)});
    }
    return out;
  }

  // .checkpoint with every store's last changelog offset (-4: none yet), then each store's
  // committed position in its .position file.
  Status WriteLegacyFiles();

  // Opens the store of `ts`, wipes it where T10 says, and restores it from its changelog (C2).
  Status OpenAndRestore(TaskStore* ts, StoreRestore* restore);

  // Creates the in-memory window store of `ws` and replays its changelog into it from offset 0
  // (task.h, "In-memory window stores"): the store's retention drops what has expired.
  Status OpenAndRestoreWindowStore(TaskWindowStore* ws, StoreRestore* restore);

  Status OpenStore(const std::string& name, const std::string& directory,
                   std::unique_ptr<RocksDBStore>* store, bool wiped = false);

  // Wipes the store of `ts` and opens it again, empty. Crash-safe: a marker file, durable
  // before the first file goes and deleted once the new store is, makes the next start finish
  // a wipe a crash interrupted (a half-deleted store may not even open).
  Status Wipe(TaskStore* ts, const std::string& directory);
  rocksdb::Env* Env() const { return options_.env ? options_.env : rocksdb::Env::Default(); }
  std::string WipeMarkerPath(const std::string& store) const {
    return options_.state_directory + "/" + store + ".wiping";
  }

  int64_t UncommittedBytes() const {
    int64_t sum = 0;
    for (const TaskStore& ts : stores_) sum += ts.store->ApproximateNumUncommittedBytes();
    return sum;
  }

  TaskStore* Find(std::string_view name) {
    for (TaskStore& ts : stores_) {
      if (ts.name == name) return &ts;
    }
    return nullptr;
  }

  TaskWindowStore* FindWindowStore(std::string_view name) {
    for (TaskWindowStore& ws : window_stores_) {
      if (ws.spec.name == name) return &ws;
    }
    return nullptr;
  }

  Status UnknownWindowStore(std::string_view name) const {
    return Status::InvalidArgument("task " + options_.task_id + " has no window store named \"" +
                                   std::string(name) + "\"");
  }

  Status UnknownStore(std::string_view name) const {
    return Status::InvalidArgument("task " + options_.task_id + " has no store named \"" +
                                   std::string(name) + "\"");
  }

  Status CheckUsable() const {
    if (failed_) {
      return Status::FailedPrecondition("task " + options_.task_id +
                                        " stopped on an error: abandon it and open it again");
    }
    if (!open_) return Status::FailedPrecondition("task " + options_.task_id + " is closed");
    return Status::Ok();
  }

  // Marks the task failed when `s` is an error (C6) and returns `s`.
  Status Fail(Status s);

  const TaskOptions options_;
  const std::unique_ptr<Processor> processor_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const std::string group_;
  const int64_t txn_id_;
  const bool eos_;
  const bool legacy_;  // state.format=legacy.
  int64_t commit_interval_ms_ = 0;

  LegacyFiles legacy_files_;  // As Open found them.

  std::vector<TaskStore> stores_;
  std::vector<TaskWindowStore> window_stores_;
  std::vector<LogAppendRecord> pending_output_;  // Output records not yet written to the log.
  int64_t pending_bytes_ = 0;                    // Of every pending record (PendingBytes).
  std::vector<StoreRestore> restores_;
  TaskStats stats_;
  bool open_ = false;
  bool failed_ = false;
  bool committing_ = false;  // Inside DoCommit.
  bool txn_open_ = false;
  int64_t next_offset_ = 0;
  int64_t records_since_commit_ = 0;
  int64_t last_commit_ms_ = 0;
  std::vector<LogRecord> fetched_;
  size_t fetched_pos_ = 0;
  const LogRecord* current_ = nullptr;
};

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_RUNTIME_TASK_IMPL_H_
