#include "statecheck/task.h"

#include <rocksdb/env.h>

#include <functional>
#include <set>
#include <utility>

#include "engine/base/env_util.h"
#include "engine/base/fail_point.h"
#include "engine/base/planted.h"
#include "engine/base/rocksdb_status.h"
#include "engine/runtime/legacy_files.h"
#include "engine/runtime/restore_plan.h"
#include "engine/runtime/task_impl.h"
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

namespace internal {

int64_t TransactionId(const std::string& group) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : group) h = (h ^ c) * 1099511628211ULL;
  return static_cast<int64_t>(h >> 2) + 1;
}

std::string WindowChangelogKey(int64_t window_start, std::string_view key) {
  std::string out(8, '\0');
  const uint64_t v = static_cast<uint64_t>(window_start);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (56 - 8 * i));
  out.append(key);
  return out;
}

int64_t WindowStartOf(std::string_view changelog_key) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(changelog_key[i]);
  return static_cast<int64_t>(v);
}

Status TaskImpl::Process(int64_t max_records, int64_t* processed) {
  *processed = 0;
  STATECHECK_RETURN_IF_ERROR(CheckUsable());
  return Fail(ProcessRecords(max_records, processed));
}

Status TaskImpl::Commit() {
  STATECHECK_RETURN_IF_ERROR(CheckUsable());
  // Keeps: C5 — an explicit commit request
  return Fail(DoCommit(CommitReason::kExplicit));
}

Status TaskImpl::ProcessRecords(int64_t max_records, int64_t* processed) {
  while (*processed < max_records) {
    if (fetched_pos_ == fetched_.size()) {
      fetched_.clear();
      fetched_pos_ = 0;
      int64_t end = 0;
      STATECHECK_RETURN_IF_ERROR(options_.log->CommittedEndOffset(options_.input_partition, &end));
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

Status TaskImpl::Close() {
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

Status TaskImpl::Get(std::string_view store, std::string_view key,
                     std::optional<std::string>* value) {
  TaskStore* ts = Find(store);
  if (!ts) return UnknownStore(store);
  return ts->store->Get(key, value);
}

Status TaskImpl::Put(std::string_view store, std::string_view key,
                     std::optional<std::string_view> value) {
  TaskStore* ts = Find(store);
  if (!ts) return UnknownStore(store);
  RecordContext context{options_.input_partition, current_ ? current_->offset : 0};
  STATECHECK_RETURN_IF_ERROR(ts->store->Put(key, value, current_ ? &context : nullptr));
  // Keeps: T8 — a changelog record carries its input position, from which a restore rebuilds it
  std::optional<LogSource> source;
  if (current_) source = LogSource{context.partition, context.offset};
  return Append(&ts->pending, key, value, RecordTimestamp(), source);
}

Status TaskImpl::Range(std::string_view store, std::optional<std::string_view> from,
                       std::optional<std::string_view> to, std::unique_ptr<KeyValueIterator>* it) {
  TaskStore* ts = Find(store);
  if (!ts) return UnknownStore(store);
  return ts->store->Range(from, to, it);
}

Status TaskImpl::Forward(std::string_view key, std::optional<std::string_view> value,
                         int64_t timestamp) {
  return Append(&pending_output_, key, value, timestamp);
}

Status TaskImpl::WindowPut(std::string_view store, std::string_view key,
                           std::optional<std::string_view> value, int64_t window_start) {
  TaskWindowStore* ws = FindWindowStore(store);
  if (!ws) return UnknownWindowStore(store);
  STATECHECK_RETURN_IF_ERROR(ws->store->Put(key, value, window_start));
  // Logged even when the store dropped it (W3): the put still moved the store's stream time
  // (W2), and a restore must repeat that.
  // Keeps: W2 — dropped puts are logged too, so that a restore moves stream time as they did
  return Append(&ws->pending, WindowChangelogKey(window_start, key), value, RecordTimestamp());
}

Status TaskImpl::WindowFetch(std::string_view store, std::string_view key, int64_t window_start,
                             std::optional<std::string>* value) {
  TaskWindowStore* ws = FindWindowStore(store);
  if (!ws) return UnknownWindowStore(store);
  return ws->store->Fetch(key, window_start, value);
}

Status TaskImpl::WindowFetchAll(std::string_view store, int64_t time_from, int64_t time_to,
                                std::unique_ptr<WindowStoreIterator>* it) {
  TaskWindowStore* ws = FindWindowStore(store);
  if (!ws) return UnknownWindowStore(store);
  return ws->store->FetchAll(time_from, time_to, it);
}

Status TaskImpl::Append(std::vector<LogAppendRecord>* pending, std::string_view key,
                        std::optional<std::string_view> value, int64_t timestamp,
                        const std::optional<LogSource>& source) {
  LogAppendRecord& r = pending->emplace_back();
  r.key.assign(key);
  if (value) r.value.emplace(*value);
  r.timestamp = timestamp;
  r.source = source;
  pending_bytes_ += internal::PendingBytes(r);
  if (pending_bytes_ < options_.log_batch_bytes) return Status::Ok();
  return WritePending();
}

Status TaskImpl::WritePending() {
  if (pending_bytes_ == 0) return Status::Ok();
  Log* log = options_.log;
  if (eos_ && !txn_open_) {
    STATECHECK_RETURN_IF_ERROR(log->BeginTransaction(txn_id_));
    txn_open_ = true;
  }
  // Sets `*last` (unless null) to the offset of the last record written.
  auto write = [&](const std::string& partition, std::vector<LogAppendRecord>* pending,
                   std::optional<int64_t>* last) {
    if (pending->empty()) return Status::Ok();
    const auto n = static_cast<int64_t>(pending->size());
    int64_t first = 0;
    const Status s = log->AppendBatch(eos_ ? txn_id_ : 0, partition, std::move(*pending), &first);
    pending->clear();
    if (s.ok() && last) *last = first + n - 1;
    return s;
  };
  for (TaskStore& ts : stores_) {
    STATECHECK_RETURN_IF_ERROR(write(ts.changelog, &ts.pending, &ts.last_changelog_offset));
  }
  for (TaskWindowStore& ws : window_stores_) {
    STATECHECK_RETURN_IF_ERROR(write(ws.changelog, &ws.pending, nullptr));
  }
  STATECHECK_RETURN_IF_ERROR(write(options_.output_partition, &pending_output_, nullptr));
  pending_bytes_ = 0;
  return Status::Ok();
}

Status TaskImpl::DoCommit(CommitReason reason) {
  if (records_since_commit_ == 0) return Status::Ok();
  committing_ = true;
  // Keeps: C1 — the changelog and output records are written before the commit that covers them
  STATECHECK_RETURN_IF_ERROR(WritePending());
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
  CompactChangelogs();
  return Status::Ok();
}

void TaskImpl::CompactChangelogs() {
  if (options_.changelog_compaction_min_bytes < 0) return;
  // `tombstones_below` and `expired` as in LogCompaction; the trigger is the options'.
  auto compact = [&](const std::string& partition, int64_t tombstones_below,
                     std::function<bool(const LogRecord&)> expired) {
    LogCompaction policy;
    policy.min_bytes = static_cast<uint64_t>(options_.changelog_compaction_min_bytes);
    policy.min_dirty_ratio = options_.changelog_compaction_min_dirty_ratio;
    policy.tombstones_removable_below = tombstones_below;
    policy.expired = std::move(expired);
    LogCompactionResult result;
    const Status s = options_.log->Compact(partition, policy, &result);
    if (result.compacted) ++stats_.compactions;
    if (result.segments_replaced > 1) ++stats_.segment_compactions;
    if (s.ok()) return;
    ++stats_.compactions_failed;
    logger_->Log(LogLevel::kWarn, "task " + options_.task_id + ": compacting " + partition +
                                      " failed (the commit stands; a later one compacts " +
                                      "again): " + s.ToString());
  };
  for (const TaskStore& ts : stores_) {
    if (!ts.last_changelog_offset) continue;
    // Keeps: C2, C7 — a restore starts after the offset the store holds on disk, which after a
    // crash is its last durable commit's (not always its last commit's), or at 0 after a wipe:
    // none needs a tombstone below the durable offset + 1
    const std::optional<int64_t> durable = ts.store->DurableOffset(ts.changelog);
    compact(ts.changelog, durable ? *durable + 1 : 0, nullptr);
  }
  for (const TaskWindowStore& ws : window_stores_) {
    // Keeps: W2, W3 — a window below stream time - retention is dropped on restore anyway; the
    // record of the largest window start stays (it is at stream time), so stream time does too
    const int64_t bound = ws.store->stream_time() - ws.store->retention_ms();
    compact(ws.changelog, 0, [bound](const LogRecord& r) { return WindowStartOf(r.key) < bound; });
  }
  // The log's own partitions grow with every commit too: each group's last committed offsets
  // and the last commit decision stay. (Every task over the log does this; they take turns.)
  for (const std::string_view internal : {kLogOffsetsPartition, kLogTxnStatePartition}) {
    compact(std::string(internal), 0, nullptr);
  }
}

Status TaskImpl::CommitStores() {
  for (TaskStore& ts : stores_) {
    // Empty when the changelog was never written (nothing to keep), and always in the legacy
    // format, where .checkpoint keeps the offsets.
    ChangelogOffsets offsets;
    if (ts.last_changelog_offset && !legacy_) offsets[ts.changelog] = *ts.last_changelog_offset;
    STATECHECK_RETURN_IF_ERROR(ts.store->Commit(offsets));
  }
  return Status::Ok();
}

Status TaskImpl::WriteLegacyFiles() {
  std::vector<internal::LegacyStoreState> states;
  for (const TaskStore& ts : stores_) {
    states.push_back(
        {ts.name, ts.changelog, ts.last_changelog_offset, ts.store->CommittedPosition()});
  }
  return legacy_files_.Write(states);
}

Status TaskImpl::Fail(Status s) {
  // Keeps: C6 — an error stops the task: reported, then every call but Abandon refuses
  if (!s.ok() && !failed_) {
    failed_ = true;
    stats_.failed_in_commit = committing_;
  }
  return s;
}

}  // namespace internal

namespace {

using internal::TaskImpl;

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
  if (options.log_batch_bytes < 0) {
    return Status::InvalidArgument("task option log_batch_bytes must be at least 0, got " +
                                   std::to_string(options.log_batch_bytes));
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
