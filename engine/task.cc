#include "statecheck/task.h"

#include <rocksdb/env.h>

#include <set>
#include <utility>

#include "engine/env_util.h"
#include "engine/fail_point.h"
#include "engine/legacy_files.h"
#include "engine/planted.h"
#include "engine/restore_plan.h"
#include "engine/rocksdb_status.h"
#include "statecheck/in_memory_window_store.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck {

std::string_view CommitReasonName(CommitReason reason) {
  switch (reason) {
    case CommitReason::kInterval:
      return "interval";
    case CommitReason::kUncommittedBytes:
      return "uncommitted_bytes";
    case CommitReason::kExplicit:
      return "explicit";
    case CommitReason::kClose:
      return "close";
  }
  return "unknown";
}

namespace {

constexpr int64_t kAtLeastOnceCommitIntervalMs = 30000;  // Kafka's commit.interval.ms defaults.
constexpr int64_t kExactlyOnceCommitIntervalMs = 100;
constexpr int kInputBatch = 500;  // Input records fetched from the log at a time.

// Positive, stable for a task: the log transaction id the task's transactions use. A new task
// object of the same task aborts a transaction an older one left open (Kafka's fencing).
int64_t TransactionId(const std::string& group) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : group) h = (h ^ c) * 1099511628211ULL;
  return static_cast<int64_t>(h >> 2) + 1;
}

// The changelog key of a window store's write at `window_start` (task.h): the start's 8 bytes,
// most significant first, then the key.
std::string WindowChangelogKey(int64_t window_start, std::string_view key) {
  std::string out(8, '\0');
  const uint64_t v = static_cast<uint64_t>(window_start);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (56 - 8 * i));
  out.append(key);
  return out;
}

// The window start of a changelog key WindowChangelogKey wrote (which holds at least 8 bytes).
int64_t WindowStartOf(std::string_view changelog_key) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(changelog_key[i]);
  return static_cast<int64_t>(v);
}

// An in-memory window store of the task (task.h): nothing but the store and its changelog.
struct TaskWindowStore {
  WindowStoreSpec spec;
  std::string changelog;
  std::unique_ptr<WindowStore> store;
};

struct TaskStore {
  std::string name;
  std::string changelog;
  std::unique_ptr<RocksDBStore> store;
  // The offset of the store's last changelog record: stored in the store at open (after the
  // restore), then the last one appended.
  std::optional<int64_t> last_changelog_offset;
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

  Status Open() {
    Log* log = options_.log;
    // Keeps: C3 — fence an older task object: its open transaction can never commit now
    if (eos_) {
      // Fence an older task object of this task: its transaction can never commit now.
      Status s = log->AbortTransaction(txn_id_);
      if (!s.ok() && s.code() != Status::Code::kNotFound) return s;
    }
    // Keeps: F8 — what an at-least-once restore reads is durable first
    if (!eos_ && !STATECHECK_PLANTED(TaskRestoresUnsyncedRecords)) {
      // An at-least-once restore reads every record written, to the end of the changelog. A log
      // opened after a crash made what it holds durable (log.h), but one that lived through a
      // failure may hold records a failed task wrote and never synced: sync them before the
      // stores take them (and store their offsets) as durable.
      STATECHECK_RETURN_IF_ERROR(log->Sync());
    }
    STATECHECK_RETURN_IF_ERROR(legacy_files_.Load(LegacyStores()));
    if ((legacy_ && eos_ && legacy_files_.found()) ||
        (STATECHECK_PLANTED(UpgradeDeletesFilesBeforeImport) && !legacy_ &&
         legacy_files_.found())) {
      // Legacy exactly-once: the files are good for one start only; once this task has
      // written anything they no longer describe the stores (SPEC U).
      STATECHECK_RETURN_IF_ERROR(legacy_files_.Delete(LegacyStores()));
    }
    for (const std::string& name : processor_->StoreNames()) {
      TaskStore ts;
      ts.name = name;
      ts.changelog = ChangelogPartition(name);
      StoreRestore restore;
      if (Status s = OpenAndRestore(&ts, &restore); !s.ok()) {
        // A half-done restore is not a clean state: keep the open-status marker set (T7).
        if (ts.store) ts.store->Abandon();
        return s;
      }
      stores_.push_back(std::move(ts));
      restores_.push_back(std::move(restore));
    }
    for (const WindowStoreSpec& spec : processor_->WindowStores()) {
      TaskWindowStore ws;
      ws.spec = spec;
      ws.changelog = ChangelogPartition(spec.name);
      StoreRestore restore;
      STATECHECK_RETURN_IF_ERROR(OpenAndRestoreWindowStore(&ws, &restore));
      window_stores_.push_back(std::move(ws));
      restores_.push_back(std::move(restore));
    }
    // Keeps: U4, T10 — legacy at-least-once records the restore in its files; legacy EOS never does
    if (legacy_ && (!eos_ || STATECHECK_PLANTED(LegacyEosCheckpointAfterRestore))) {
      // Legacy at-least-once: the files say what the restore applied, as after a commit, so
      // that the next start does not apply it again.
      STATECHECK_RETURN_IF_ERROR(WriteLegacyFiles());
    }
    if (!legacy_ && legacy_files_.found()) {
      // U1: every store holds its imported offsets durably; only now may the files go (U2).
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskUpgradeBeforeDelete));
      // Keeps: U1, U2 — the legacy files go only once every store holds their offsets
      STATECHECK_RETURN_IF_ERROR(legacy_files_.Delete(LegacyStores()));
      logger_->Log(LogLevel::kInfo, "Task " + options_.task_id +
                                        " upgraded from the legacy state format: offsets "
                                        "imported into the stores, .checkpoint and .position "
                                        "files deleted");
    }
    CommittedOffsets committed;
    Status s = log->GetCommittedOffsets(group_, &committed);
    if (s.ok()) {
      // Keeps: C3, C4 — processing resumes at the committed input offset
      auto it = committed.offsets.find(options_.input_partition);
      if (it != committed.offsets.end()) next_offset_ = it->second;
    } else if (s.code() != Status::Code::kNotFound) {
      return s;
    }
    // Keeps: E10 — the processor starts from the metadata committed with the task's input offset
    STATECHECK_RETURN_IF_ERROR(processor_->Init(committed.metadata));
    last_commit_ms_ = clock_->NowMs();
    open_ = true;
    return Status::Ok();
  }

  // Task ---------------------------------------------------------------------------------------
  // Every error of Process and Commit stops the task (C6): Fail marks it, at these entries.
  Status Process(int64_t max_records, int64_t* processed) override {
    *processed = 0;
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    return Fail(ProcessRecords(max_records, processed));
  }

  Status Commit() override {
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    // Keeps: C5 — an explicit commit request
    return Fail(DoCommit(CommitReason::kExplicit));
  }

  Status ProcessRecords(int64_t max_records, int64_t* processed) {
    while (*processed < max_records) {
      if (fetched_pos_ == fetched_.size()) {
        fetched_.clear();
        fetched_pos_ = 0;
        int64_t end = 0;
        STATECHECK_RETURN_IF_ERROR(
            options_.log->CommittedEndOffset(options_.input_partition, &end));
        if (next_offset_ >= end) break;
        STATECHECK_RETURN_IF_ERROR(options_.log->Read(options_.input_partition, next_offset_,
                                                      kInputBatch, IsolationLevel::kReadCommitted,
                                                      &fetched_));
        if (fetched_.empty()) break;
      }
      // Keeps: T6, T11, C5 — commit before the next record when the buffers hold too much
      if (options_.config.uncommitted_max_bytes >= 0 && records_since_commit_ > 0 &&
          UncommittedBytes() > options_.config.uncommitted_max_bytes) {
        STATECHECK_RETURN_IF_ERROR(DoCommit(CommitReason::kUncommittedBytes));
      }
      const LogRecord& record = fetched_[fetched_pos_++];
      current_ = &record;
      Status s = processor_->Process(record, this);
      current_ = nullptr;
      STATECHECK_RETURN_IF_ERROR(s);
      next_offset_ = record.offset + 1;
      ++records_since_commit_;
      ++*processed;
      ++stats_.processed;
      // Keeps: C5 — commit when the interval, in records or in ms of the clock, has elapsed
      if ((options_.commit_interval_records > 0 &&
           (STATECHECK_PLANTED(TaskCommitIntervalOffByOne)
                ? records_since_commit_ > options_.commit_interval_records
                : records_since_commit_ >= options_.commit_interval_records)) ||
          clock_->NowMs() - last_commit_ms_ >= commit_interval_ms_) {
        STATECHECK_RETURN_IF_ERROR(DoCommit(CommitReason::kInterval));
      }
    }
    return Status::Ok();
  }

  Status Close() override {
    if (!open_) return Status::Ok();
    if (failed_) {
      Abandon();
      return Status::FailedPrecondition("task " + options_.task_id +
                                        " had stopped on an error: abandoned, not closed");
    }
    Status s = DoCommit(CommitReason::kClose);
    // Legacy: the clean close writes the files, under either guarantee (SPEC U).
    if (s.ok() && legacy_) s = WriteLegacyFiles();
    if (!s.ok()) {
      Abandon();
      return s;
    }
    for (TaskStore& ts : stores_) ts.store->Close();
    stores_.clear();
    for (TaskWindowStore& ws : window_stores_) ws.store->Close();
    window_stores_.clear();
    open_ = false;
    return Status::Ok();
  }

  void Abandon() override {
    for (TaskStore& ts : stores_) ts.store->Abandon();
    stores_.clear();
    window_stores_.clear();  // In memory only: lost, as in a crash.
    open_ = false;
  }

  int64_t next_input_offset() const override { return next_offset_; }

  KeyValueStore* Store(std::string_view name) override {
    TaskStore* ts = Find(name);
    return ts ? ts->store.get() : nullptr;
  }

  WindowStore* GetWindowStore(std::string_view name) override {
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
             std::optional<std::string>* value) override {
    TaskStore* ts = Find(store);
    if (!ts) return UnknownStore(store);
    return ts->store->Get(key, value);
  }

  Status Put(std::string_view store, std::string_view key,
             std::optional<std::string_view> value) override {
    TaskStore* ts = Find(store);
    if (!ts) return UnknownStore(store);
    RecordContext context{options_.input_partition, current_ ? current_->offset : 0};
    STATECHECK_RETURN_IF_ERROR(ts->store->Put(key, value, current_ ? &context : nullptr));
    int64_t offset = 0;
    STATECHECK_RETURN_IF_ERROR(Append(ts->changelog, key, value, RecordTimestamp(), &offset));
    ts->last_changelog_offset = offset;
    return Status::Ok();
  }

  Status Range(std::string_view store, std::optional<std::string_view> from,
               std::optional<std::string_view> to, std::unique_ptr<KeyValueIterator>* it) override {
    TaskStore* ts = Find(store);
    if (!ts) return UnknownStore(store);
    return ts->store->Range(from, to, it);
  }

  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override {
    int64_t offset = 0;
    return Append(options_.output_partition, key, value, timestamp, &offset);
  }

  int64_t RecordTimestamp() const override { return current_ ? current_->timestamp : kNoTimestamp; }
  int64_t WallClockMs() const override { return clock_->NowMs(); }

  Status WindowPut(std::string_view store, std::string_view key,
                   std::optional<std::string_view> value, int64_t window_start) override {
    TaskWindowStore* ws = FindWindowStore(store);
    if (!ws) return UnknownWindowStore(store);
    STATECHECK_RETURN_IF_ERROR(ws->store->Put(key, value, window_start));
    // Logged even when the store dropped it (W3): the put still moved the store's stream time
    // (W2), and a restore must repeat that.
    int64_t offset = 0;
    // Keeps: W2 — dropped puts are logged too, so that a restore moves stream time as they did
    return Append(ws->changelog, WindowChangelogKey(window_start, key), value, RecordTimestamp(),
                  &offset);
  }

  Status WindowFetch(std::string_view store, std::string_view key, int64_t window_start,
                     std::optional<std::string>* value) override {
    TaskWindowStore* ws = FindWindowStore(store);
    if (!ws) return UnknownWindowStore(store);
    return ws->store->Fetch(key, window_start, value);
  }

  Status WindowFetchAll(std::string_view store, int64_t time_from, int64_t time_to,
                        std::unique_ptr<WindowStoreIterator>* it) override {
    TaskWindowStore* ws = FindWindowStore(store);
    if (!ws) return UnknownWindowStore(store);
    return ws->store->FetchAll(time_from, time_to, it);
  }

  // ----------------------------------------------------------------------------------------------
  Status Append(std::string_view partition, std::string_view key,
                std::optional<std::string_view> value, int64_t timestamp, int64_t* offset) {
    Log* log = options_.log;
    if (!eos_) return log->Append(partition, key, value, timestamp, offset);
    if (!txn_open_) {
      STATECHECK_RETURN_IF_ERROR(log->BeginTransaction(txn_id_));
      txn_open_ = true;
    }
    return log->AppendTransactional(txn_id_, partition, key, value, timestamp, offset);
  }

  // The commit protocol (task.h, C1).
  Status DoCommit(CommitReason reason) {
    if (records_since_commit_ == 0) return Status::Ok();
    committing_ = true;
    Log* log = options_.log;
    CommittedOffsets offsets;
    offsets.offsets[options_.input_partition] = next_offset_;
    // Keeps: E6, E10 — the processor's metadata is committed with the input offset
    offsets.metadata = processor_->CommitMetadata();
    // Keeps: C1 — EOS: changelog, output and input offset in one log transaction, then the stores
    if (eos_) {
      if (!txn_open_) {
        STATECHECK_RETURN_IF_ERROR(log->BeginTransaction(txn_id_));
        txn_open_ = true;
      }
      // The stores flushed (with their changelog offsets) before the transaction commits.
      if (STATECHECK_PLANTED(TaskEosStoresBeforeTxnCommit)) {
        STATECHECK_RETURN_IF_ERROR(CommitStores());
      }
      STATECHECK_RETURN_IF_ERROR(log->AppendOffsetsTransactional(txn_id_, group_, offsets));
      STATECHECK_RETURN_IF_ERROR(log->CommitTransaction(txn_id_));
      txn_open_ = false;
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskAfterLog));
      if (!STATECHECK_PLANTED(TaskEosStoresBeforeTxnCommit)) {
        STATECHECK_RETURN_IF_ERROR(CommitStores());
      }
    } else if (STATECHECK_PLANTED(TaskAlosOffsetsBeforeStores)) {
      // The input offset first, then the changelog and the stores.
      STATECHECK_RETURN_IF_ERROR(log->CommitOffsets(group_, offsets));
      STATECHECK_RETURN_IF_ERROR(log->Sync());
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskAfterLog));
      STATECHECK_RETURN_IF_ERROR(CommitStores());
      if (legacy_) STATECHECK_RETURN_IF_ERROR(WriteLegacyFiles());
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskBeforeOffsets));
    } else {
      // Keeps: C1, C4 — ALOS: changelog and output synced, then the stores, then the input offset
      STATECHECK_RETURN_IF_ERROR(log->Sync());
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskAfterLog));
      STATECHECK_RETURN_IF_ERROR(CommitStores());
      // Legacy at-least-once: the files follow every commit, before the input offset, so
      // that they never name offsets older than the input offset's commit.
      if (legacy_) STATECHECK_RETURN_IF_ERROR(WriteLegacyFiles());
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskBeforeOffsets));
      STATECHECK_RETURN_IF_ERROR(log->CommitOffsets(group_, offsets));
    }
    committing_ = false;
    records_since_commit_ = 0;
    last_commit_ms_ = clock_->NowMs();
    ++stats_.commits;
    ++stats_.commits_by_reason[static_cast<int>(reason)];
    return Status::Ok();
  }

  Status CommitStores() {
    for (TaskStore& ts : stores_) {
      // Empty when the changelog was never written (nothing to keep), and always in the legacy
      // format, where .checkpoint keeps the offsets.
      ChangelogOffsets offsets;
      if (ts.last_changelog_offset && !legacy_) offsets[ts.changelog] = *ts.last_changelog_offset;
      STATECHECK_RETURN_IF_ERROR(ts.store->Commit(offsets));
    }
    return Status::Ok();
  }

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
  Status WriteLegacyFiles() {
    std::vector<internal::LegacyStoreState> states;
    for (const TaskStore& ts : stores_) {
      states.push_back(
          {ts.name, ts.changelog, ts.last_changelog_offset, ts.store->CommittedPosition()});
    }
    return legacy_files_.Write(states);
  }

  // Opens the store of `ts`, wipes it where T10 says, and restores it from its changelog (C2).
  Status OpenAndRestore(TaskStore* ts, StoreRestore* restore) {
    restore->store = ts->name;
    restore->changelog = ts->changelog;
    const std::string directory = options_.state_directory + "/" + ts->name;
    // Keeps: F2 — a wipe that a crash interrupted (its marker left behind) is finished first
    if (Env()->FileExists(WipeMarkerPath(ts->name)).ok()) {
      // A wipe that a crash interrupted may have left half a store: finish it first.
      logger_->Log(LogLevel::kWarn, "Store " + ts->name + " of task " + options_.task_id +
                                        ": an earlier wipe did not finish; wiping it again and "
                                        "restoring it from changelog " +
                                        ts->changelog + ".");
      STATECHECK_RETURN_IF_ERROR(Wipe(ts, directory));
      restore->wiped = true;
    } else {
      STATECHECK_RETURN_IF_ERROR(OpenStore(ts->name, directory, &ts->store));
    }
    internal::StoreOpenFacts facts;
    facts.legacy_configured = legacy_;
    facts.eos = eos_;
    facts.wipe_on_unclean_shutdown = options_.config.wipe_on_unclean_shutdown;
    facts.found_format = ts->store->found_format();
    facts.was_closed_cleanly = ts->store->was_closed_cleanly();
    facts.legacy = legacy_files_.EntryOf({ts->name, ts->changelog}, &facts.legacy_offset);
    const internal::StoreOpenPlan plan = internal::PlanStoreOpen(facts);
    restore->found_format = facts.found_format;
    restore->was_closed_cleanly = plan.was_closed_cleanly;
    // The offset to restore after, when it comes from the legacy files rather than the store.
    std::optional<int64_t> legacy_offset = plan.legacy_offset;
    switch (plan.action) {
      case internal::StoreOpenAction::kKeep:
        break;
      case internal::StoreOpenAction::kImport: {
        ChangelogOffsets offsets;
        if (legacy_offset) offsets[ts->changelog] = *legacy_offset;
        // Keeps: U1 — an upgrade imports .checkpoint and .position into the store in one commit
        STATECHECK_RETURN_IF_ERROR(
            ts->store->ImportLegacy(offsets, legacy_files_.PositionOf(ts->name)));
        logger_->Log(LogLevel::kInfo,
                     "Store " + ts->name + " of task " + options_.task_id +
                         " upgraded to the current format: changelog offset " +
                         (legacy_offset ? std::to_string(*legacy_offset) : "none") +
                         " imported from .checkpoint");
        legacy_offset.reset();  // The store has it now.
        break;
      }
      case internal::StoreOpenAction::kWipe:
        if (plan.wipe_why.empty()) {
          logger_->Log(LogLevel::kWarn,
                       "Store " + ts->name + " of task " + options_.task_id +
                           " was not closed cleanly: wiping it and restoring it from changelog " +
                           ts->changelog +
                           ". Didn't find a valid state, since under EOS it has the "
                           "risk of getting uncommitted data in stores.");
        } else {
          logger_->Log(LogLevel::kWarn, "Store " + ts->name + " of task " + options_.task_id +
                                            ": wiping it and restoring it from changelog " +
                                            ts->changelog + ", because " + plan.wipe_why + ".");
        }
        STATECHECK_RETURN_IF_ERROR(Wipe(ts, directory));
        restore->wiped = true;
        break;
    }
    Log* log = options_.log;
    // Keeps: C2 — to the changelog's end: committed records to the last stable offset (EOS), or all
    const IsolationLevel isolation = eos_ && !STATECHECK_PLANTED(TaskRestoreReadUncommitted)
                                         ? IsolationLevel::kReadCommitted
                                         : IsolationLevel::kReadUncommitted;
    int64_t end = 0;
    STATECHECK_RETURN_IF_ERROR(eos_ ? log->CommittedEndOffset(ts->changelog, &end)
                                    : log->EndOffset(ts->changelog, &end));
    restore->stored_offset = legacy_ ? legacy_offset : ts->store->CommittedOffset(ts->changelog);
    if (restore->stored_offset && *restore->stored_offset >= end) {
      logger_->Log(LogLevel::kWarn, "Store " + ts->name + " has changelog offset " +
                                        std::to_string(*restore->stored_offset) +
                                        " but changelog " + ts->changelog + " ends at " +
                                        std::to_string(end) +
                                        ": wiping the store and restoring it from the beginning.");
      STATECHECK_RETURN_IF_ERROR(Wipe(ts, directory));
      restore->wiped = true;
      legacy_offset.reset();
    }
    std::optional<int64_t> stored =
        legacy_ ? legacy_offset : ts->store->CommittedOffset(ts->changelog);
    // Keeps: C2 — restore from the stored offset + 1, or from 0 without one (after a wipe)
    int64_t from = stored ? *stored + 1 : 0;
    restore->start_offset = from;
    restore->end_offset = end;
    std::vector<LogRecord> records;
    while (from < end) {
      records.clear();
      STATECHECK_RETURN_IF_ERROR(
          log->Read(ts->changelog, from, options_.restore_batch_records, isolation, &records));
      std::optional<int64_t> applied;  // The last data record of the batch below `end`.
      for (const LogRecord& r : records) {
        if (r.offset >= end) break;
        STATECHECK_RETURN_IF_ERROR(ts->store->Put(r.key, r.value));
        ++restore->records_restored;
        applied = r.offset;
      }
      // A read that finds no data record left below the end (only the markers that close
      // transactions) ends the restore; reading again would find the same nothing.
      // Keeps: L1 — a restore ends when no data record is left below the changelog's end
      if (!applied) {
        if (STATECHECK_PLANTED(TaskRestoreSpinsOnMarkers)) continue;
        break;
      }
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskRestoreBatch));
      // Each batch is committed with the offset of its last record (T7), bounding the buffer.
      ChangelogOffsets offsets;
      if (!legacy_) offsets[ts->changelog] = *applied;
      STATECHECK_RETURN_IF_ERROR(ts->store->Commit(offsets));
      stored = *applied;
      from = *applied + 1;
    }
    ts->last_changelog_offset = stored;
    return Status::Ok();
  }

  // Creates the in-memory window store of `ws` and replays its changelog into it from offset 0
  // (task.h, "In-memory window stores"): the store's retention drops what has expired.
  Status OpenAndRestoreWindowStore(TaskWindowStore* ws, StoreRestore* restore) {
    restore->store = ws->spec.name;
    restore->changelog = ws->changelog;
    restore->in_memory = true;
    WindowStoreOptions wo;
    wo.name = ws->spec.name;
    wo.retention_ms = ws->spec.retention_ms;
    wo.window_size_ms = ws->spec.window_size_ms;
    wo.logger = logger_;
    STATECHECK_RETURN_IF_ERROR(NewInMemoryWindowStore(wo, &ws->store));
    Log* log = options_.log;
    // As for the key-value stores: committed records only under EOS (an aborted or open
    // transaction's writes never happened), every record written under at-least-once.
    const IsolationLevel isolation =
        eos_ ? IsolationLevel::kReadCommitted : IsolationLevel::kReadUncommitted;
    int64_t end = 0;
    STATECHECK_RETURN_IF_ERROR(eos_ ? log->CommittedEndOffset(ws->changelog, &end)
                                    : log->EndOffset(ws->changelog, &end));
    restore->start_offset = 0;
    restore->end_offset = end;
    std::vector<LogRecord> records;
    // Keeps: C2 — an in-memory window store restores from offset 0 every time
    int64_t from = 0;
    while (from < end) {
      records.clear();
      STATECHECK_RETURN_IF_ERROR(
          log->Read(ws->changelog, from, options_.restore_batch_records, isolation, &records));
      std::optional<int64_t> applied;
      for (const LogRecord& r : records) {
        if (r.offset >= end) break;
        if (r.key.size() < 8) {
          return Status::Corruption(
              "changelog " + ws->changelog + " of window store " + ws->spec.name +
              ": the record at offset " + std::to_string(r.offset) + " has a key of " +
              std::to_string(r.key.size()) + " bytes, too short for a window start");
        }
        const std::string_view key = std::string_view(r.key).substr(8);
        STATECHECK_RETURN_IF_ERROR(
            ws->store->Put(key, r.value ? std::optional<std::string_view>(*r.value) : std::nullopt,
                           WindowStartOf(r.key)));
        ++restore->records_restored;
        applied = r.offset;
      }
      if (!applied) break;
      from = *applied + 1;
    }
    return Status::Ok();
  }

  Status OpenStore(const std::string& name, const std::string& directory,
                   std::unique_ptr<RocksDBStore>* store, bool wiped = false) {
    RocksDBStoreOptions so;
    so.name = name;
    so.directory = directory;
    so.isolation = options_.config.isolation;
    so.env = options_.env;
    so.use_wal = options_.store_use_wal;
    so.write_buffer_size = options_.store_write_buffer_size;
    so.disable_auto_compactions = options_.store_disable_auto_compactions;
    so.config_setter = options_.store_config_setter;
    so.logger = logger_;
    so.format = options_.config.format;
    if (legacy_ && !wiped) so.legacy_position = legacy_files_.PositionOf(name);
    return OpenRocksDBStore(so, store);
  }

  // Wipes the store of `ts` and opens it again, empty. Crash-safe: a marker file, durable
  // before the first file goes and deleted once the new store is, makes the next start finish
  // a wipe a crash interrupted (a half-deleted store may not even open).
  Status Wipe(TaskStore* ts, const std::string& directory) {
    // Abandoned, not closed: a clean close would clear its open-status marker, and a crash
    // before the wipe marker is durable would then leave a store that looks clean.
    if (ts->store) ts->store->Abandon();
    ts->store.reset();
    rocksdb::Env* env = Env();
    const std::string marker = WipeMarkerPath(ts->name);
    rocksdb::Status s = rocksdb::WriteStringToFile(env, "", marker, /*should_sync=*/true);
    if (s.ok()) s = internal::SyncParentDirectory(env, marker);
    if (!s.ok()) return internal::FromRocksDB(s);
    STATECHECK_RETURN_IF_ERROR(DestroyRocksDBStore(directory, options_.env));
    STATECHECK_RETURN_IF_ERROR(OpenStore(ts->name, directory, &ts->store, /*wiped=*/true));
    s = env->DeleteFile(marker);
    if (s.ok()) s = internal::SyncParentDirectory(env, marker);
    return internal::FromRocksDB(s);
  }
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
  Status Fail(Status s) {
    // Keeps: C6 — an error stops the task: reported, then every call but Abandon refuses
    if (!s.ok() && !failed_) {
      failed_ = true;
      stats_.failed_in_commit = committing_;
    }
    return s;
  }

  const TaskOptions options_;
  const std::unique_ptr<Processor> processor_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const std::string group_;
  const int64_t txn_id_;
  const bool eos_;
  const bool legacy_;  // state.format=legacy.
  int64_t commit_interval_ms_ = 0;

  internal::LegacyFiles legacy_files_;  // As Open found them.

  std::vector<TaskStore> stores_;
  std::vector<TaskWindowStore> window_stores_;
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

// OK if `partition`, which option `option` names or is part of, is a valid partition name.
Status CheckPartition(std::string_view option, const std::string& partition) {
  const Status s = CheckPartitionName(partition);
  if (s.ok()) return s;
  return Status::InvalidArgument("task option " + std::string(option) + ": " + s.message());
}

}  // namespace

std::string ChangelogPartitionName(const TaskOptions& options, std::string_view store) {
  return options.application_id + "-" + std::string(store) + "-changelog-" + options.task_id;
}

Status OpenTask(const TaskOptions& options, std::unique_ptr<Processor> processor,
                std::unique_ptr<Task>* task) {
  task->reset();
  if (!options.log) return Status::InvalidArgument("task option log cannot be null");
  if (!processor) return Status::InvalidArgument("OpenTask needs a processor");
  if (options.application_id.empty() || options.task_id.empty()) {
    return Status::InvalidArgument("task options application_id and task_id cannot be empty");
  }
  STATECHECK_RETURN_IF_ERROR(CheckPartition("input_partition", options.input_partition));
  STATECHECK_RETURN_IF_ERROR(CheckPartition("output_partition", options.output_partition));
  if (options.state_directory.empty()) {
    return Status::InvalidArgument("task option state_directory cannot be empty");
  }
  if (options.restore_batch_records < 1) {
    return Status::InvalidArgument("task option restore_batch_records must be at least 1, got " +
                                   std::to_string(options.restore_batch_records));
  }
  // One namespace for every store: a second store of a name would share its changelog.
  std::set<std::string> names;
  auto check_name = [&](const std::string& name) -> Status {
    if (!names.insert(name).second) {
      return Status::InvalidArgument("the processor declares store \"" + name +
                                     "\" twice (key-value and window stores share one namespace)");
    }
    return CheckPartition("application_id, task_id or store name \"" + name + "\" (a changelog)",
                          ChangelogPartitionName(options, name));
  };
  for (const std::string& name : processor->StoreNames()) {
    STATECHECK_RETURN_IF_ERROR(check_name(name));
  }
  for (const WindowStoreSpec& spec : processor->WindowStores()) {
    WindowStoreOptions wo;
    wo.name = spec.name;
    wo.retention_ms = spec.retention_ms;
    wo.window_size_ms = spec.window_size_ms;
    STATECHECK_RETURN_IF_ERROR(ValidateWindowStoreOptions(wo));
    STATECHECK_RETURN_IF_ERROR(check_name(spec.name));
  }
  auto impl = std::make_unique<TaskImpl>(options, std::move(processor));
  Status s = impl->Open();
  if (!s.ok()) {
    impl->Abandon();
    return s;
  }
  *task = std::move(impl);
  return Status::Ok();
}

}  // namespace statecheck
