// The task's start (TaskImpl, engine/runtime/task_impl.h): the plan for each store, its wipe
// where one is due (crash-safe), and its restore from the changelog (C2, T10, U1-U5).
#include <rocksdb/env.h>

#include <utility>

#include "engine/base/env_util.h"
#include "engine/base/fail_point.h"
#include "engine/base/planted.h"
#include "engine/base/rocksdb_status.h"
#include "engine/runtime/restore_plan.h"
#include "engine/runtime/task_impl.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/in_memory_window_store.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck::internal {

Status TaskImpl::Open() {
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
      (STATECHECK_PLANTED(UpgradeDeletesFilesBeforeImport) && !legacy_ && legacy_files_.found())) {
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

Status TaskImpl::OpenAndRestore(TaskStore* ts, StoreRestore* restore) {
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
      STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailTaskUpgradeBeforeImport));
      // Keeps: U1 — an upgrade imports .checkpoint and .position into the store in one commit
      STATECHECK_RETURN_IF_ERROR(
          ts->store->ImportLegacy(offsets, legacy_files_.PositionOf(ts->name)));
      logger_->Log(LogLevel::kInfo, "Store " + ts->name + " of task " + options_.task_id +
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
                                      std::to_string(*restore->stored_offset) + " but changelog " +
                                      ts->changelog + " ends at " + std::to_string(end) +
                                      ": wiping the store and restoring it from the beginning.");
    STATECHECK_RETURN_IF_ERROR(Wipe(ts, directory));
    restore->wiped = true;
    legacy_offset.reset();
  }
  std::optional<int64_t> stored =
      legacy_ ? legacy_offset : ts->store->CommittedOffset(ts->changelog);
  // Keeps: C2, C7 — restore from the stored offset + 1, or from 0 without one (after a wipe)
  int64_t from = stored && !STATECHECK_PLANTED(TaskRestoreFromChangelogStart) ? *stored + 1 : 0;
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
      // Keeps: T8 — a restored record advances the store's position to its source's
      std::optional<RecordContext> context;
      if (r.source && !STATECHECK_PLANTED(TaskRestoreIgnoresSources)) {
        context = RecordContext{r.source->partition, r.source->offset};
      }
      STATECHECK_RETURN_IF_ERROR(ts->store->Put(r.key, r.value, context ? &*context : nullptr));
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

Status TaskImpl::OpenAndRestoreWindowStore(TaskWindowStore* ws, StoreRestore* restore) {
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

Status TaskImpl::OpenStore(const std::string& name, const std::string& directory,
                           std::unique_ptr<RocksDBStore>* store, bool wiped) {
  RocksDBStoreOptions so;
  so.name = name;
  so.directory = directory;
  so.isolation = options_.config.isolation;
  so.env = options_.env;
  so.use_wal = options_.store_use_wal;
  so.write_buffer_size = options_.store_write_buffer_size;
  so.max_unflushed_bytes = options_.store_max_unflushed_bytes;
  so.disable_auto_compactions = options_.store_disable_auto_compactions;
  so.config_setter = options_.store_config_setter;
  so.logger = logger_;
  so.format = options_.config.format;
  if (legacy_ && !wiped) so.legacy_position = legacy_files_.PositionOf(name);
  return OpenRocksDBStore(so, store);
}

Status TaskImpl::Wipe(TaskStore* ts, const std::string& directory) {
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

}  // namespace statecheck::internal
