// Sut's checks: the engine against the model after each step, after a restart, and on
// disk after a crash (sut.h).
#include <rocksdb/env.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "faults/fail_points.h"
#include "faults/fault_fs.h"
#include "model/state_config_model.h"
#include "model/task_model.h"
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/harness_rocksdb.h"
#include "properties/kit/json_lines.h"
#include "properties/task/sut.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/log.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/task.h"

namespace statecheck::properties::task {

CheckResult Sut::CheckStoresOnDisk() {
  for (const std::string& name : model::TaskModel::StoreNames()) {
    const std::string directory = options_.state_directory + "/" + name;
    rocksdb::Env* env = options_.env ? options_.env : rocksdb::Env::Default();
    if (!env->FileExists(directory + "/CURRENT").ok()) continue;  // Never created.
    // Read-only: the check reads the store as the crash left it and writes nothing into it
    // (a writable open would set its open marker and flush before the restart sees it).
    RocksDBStoreOptions so;
    so.name = name;
    so.directory = directory;
    so.isolation = IsolationLevel::kReadCommitted;
    so.env = options_.env;
    so.use_wal = options_.store_use_wal;
    so.disable_auto_compactions = options_.store_disable_auto_compactions;
    so.config_setter = options_.store_config_setter;
    so.logger = NullLogger();
    so.read_only = true;
    std::unique_ptr<RocksDBStore> store;
    Status s = OpenRocksDBStore(so, &store);
    if (!s.ok()) {
      return Finding(StartRule(s, "T7"),
                     "store " + name + " does not open after the crash: " + s.ToString());
    }
    if (store->found_format() == StateFormat::kLegacy) {
      continue;  // No offsets in a legacy store: its task's .checkpoint has them.
    }
    const std::string changelog = ChangelogPartitionName(options_, name);
    const std::optional<int64_t> stored = store->CommittedOffset(changelog);
    model::StoreState on_disk;
    CheckResult why = ReadAll(store.get(), /*view=*/false, &on_disk, "T7");
    store->Close();
    if (why) return why;
    // The changelog up to the stored offset, as its surviving records give it: key → value or
    // tombstone. Compaction may have removed records at or below it that a later one supersedes
    // (C7: the store's durable commit may be older than the one compaction kept a record for),
    // so only a key whose record survived says what the store must hold.
    std::map<std::string, std::optional<std::string>> survived;
    bool stored_is_committed = !stored, stored_compacted = false;
    if (stored) {
      std::vector<LogRecord> records, any;
      s = log_->Read(changelog, 0, static_cast<int>(*stored + 1),
                     eos_ ? IsolationLevel::kReadCommitted : IsolationLevel::kReadUncommitted,
                     &records);
      if (s.ok()) {
        s = log_->Read(changelog, *stored, 1, IsolationLevel::kReadUncommitted, &any);
      }
      if (!s.ok()) {
        return Finding("T7", "store " + name + " stores changelog offset " +
                                 std::to_string(*stored) +
                                 " but the changelog cannot be read there: " + s.ToString());
      }
      for (const LogRecord& r : records) {
        if (r.offset > *stored) break;
        stored_is_committed = stored_is_committed || r.offset == *stored;
        survived[r.key] = r.value;
      }
      // Not even an uncommitted record there: compaction removed it (nothing else does).
      stored_compacted = any.empty() || any.front().offset != *stored;
      // C7's situation: a stored offset that compaction has since passed.
      ReachedIf(stored_compacted, "C7.stored_offset_compacted");
    }
    // Checks: C1 — under EOS a store commits after its changelog transaction
    if (eos_ && !stored_is_committed && !stored_compacted) {
      return Finding("C1", "after the crash store " + name + " stores changelog offset " +
                               std::to_string(*stored) +
                               ", a record of no committed transaction: the store committed "
                               "before its changelog transaction did");
    }
    // Checks: T7 — after a crash a store is the changelog prefix up to its stored offset
    bool agrees = true;
    model::StoreState prefix;
    for (const auto& [key, value] : survived) {
      if (value) prefix[key] = *value;
      const auto it = on_disk.find(key);
      agrees =
          agrees && (value ? it != on_disk.end() && it->second == *value : it == on_disk.end());
    }
    // Without compaction every record survives, so the store is exactly the prefix.
    const bool compacting = options_.changelog_compaction_min_bytes >= 0;
    if (!compacting && on_disk != prefix) agrees = false;
    if (!agrees) {
      return Finding("T7", "after the crash store " + name + " holds " + Show(on_disk) +
                               ", but the changelog up to its stored offset " +
                               (stored ? std::to_string(*stored) : std::string("(none)")) +
                               " gives " + Show(prefix) +
                               (compacting ? " (of the records compaction kept)" : ""));
    }
  }
  return std::nullopt;
}

// T8 after a restart, of a store of the key-value processor (every record writes both stores):
// its committed position is that of the last record whose writes it committed — under
// exactly-once exactly the record before the committed input offset; under at-least-once at least
// that one (writes after the last commit may be restored too) and none past the input. A wiped
// store gets it back from its changelog records' sources.
CheckResult Sut::CheckPosition(const StoreRestore& r, int64_t committed_input) const {
  const Position got = task_->Store(r.store)->CommittedPosition();
  const std::string& input = options_.input_partition;
  // Offsets, -1 for none.
  const int64_t at = got.count(input) ? got.at(input) : -1;
  const int64_t last_committed = committed_input - 1;
  const bool only_input = got.size() == (at >= 0 ? 1u : 0u);
  const bool ok = only_input &&
                  (eos_ ? at == last_committed : at >= last_committed && at < model_->input_size());
  // Checks: T8 — after a restart, a wipe included, the committed position is the last commit's
  if (!ok) {
    return Finding(
        "T8", "store " + r.store + (r.wiped ? " (wiped and restored)" : "") +
                  " has committed position " + ShowPosition(got) + " after the " +
                  "restart, where the committed input offset " + std::to_string(committed_input) +
                  " makes its last committed write " +
                  (last_committed >= 0 ? "that of input offset " + std::to_string(last_committed)
                                       : std::string("none")) +
                  (eos_ ? "" : " (or a later one, under at-least-once)"));
  }
  ReachedIf(r.wiped && last_committed >= 0, "T8.position_restored_after_wipe");
  return std::nullopt;
}

CheckResult Sut::CheckRestart(bool clean, const LegacyFiles& before, bool interrupted_upgrade) {
  const bool legacy = options_.config.format == StateFormat::kLegacy;
  model::RestartObservation o;
  if (CheckResult why = ReadCommitted(&o.committed_input, &o.committed_output)) return why;
  // The rule for durable data a restart finds missing: F3 after a power loss, else C1.
  // Checks: F3 — input or changelog records a sync made durable are still there
  const std::string lost_rule = shutdown_.kind == Shutdown::kPowerLoss ? "F3" : "C1";
  {
    int64_t input = 0;
    if (CheckResult why = CountRecords(kTaskInput, 0, int64_t{1} << 40, false, &input)) return why;
    if (input < model_->input_size()) {
      return Finding(lost_rule, "the input partition holds " + std::to_string(input) +
                                    " records after the restart; " +
                                    std::to_string(model_->input_size()) +
                                    " were appended and synced" +
                                    (lost_rule == "F3" ? " (" + ShowLost() + ")" : ""));
    }
  }
  bool skipped_aborted = false;
  for (const StoreRestore& r : task_->restores()) {
    // The changelog must hold every record a store holds (C1's order: changelog first).
    {
      int64_t end = 0;
      const Status s =
          eos_ ? log_->CommittedEndOffset(r.changelog, &end) : log_->EndOffset(r.changelog, &end);
      if (!s.ok()) {
        return Finding("C2", "reading the end of " + r.changelog + ": " + s.ToString());
      }
      if (r.stored_offset && *r.stored_offset >= end) {
        return Finding(lost_rule, "store " + r.store + " stores changelog offset " +
                                      std::to_string(*r.stored_offset) + ", but " + r.changelog +
                                      " ends at " + std::to_string(end) +
                                      (lost_rule == "F3" ? " (" + ShowLost() + ")" : "") +
                                      (r.wiped ? "; the store was wiped" : ""));
      }
    }
    // C2: where the restore read from and to, and how much it applied.
    const int64_t expected_start = r.wiped || !r.stored_offset ? 0 : *r.stored_offset + 1;
    // Checks: C2 — a store restores from its stored offset + 1 (0 after a wipe)
    if (r.start_offset != expected_start) {
      return Finding("C2", "store " + r.store + " restored from changelog offset " +
                               std::to_string(r.start_offset) + ", its stored offset + 1 is " +
                               std::to_string(expected_start));
    }
    int64_t end = 0;
    const Status s =
        eos_ ? log_->CommittedEndOffset(r.changelog, &end) : log_->EndOffset(r.changelog, &end);
    if (!s.ok()) return Finding("C2", "reading the end of " + r.changelog + ": " + s.ToString());
    // Checks: C2 — a store restores up to the changelog's committed end, and all of it
    if (r.end_offset != end) {
      return Finding("C2", "store " + r.store + " restored up to " + std::to_string(r.end_offset) +
                               ", the changelog ends at " + std::to_string(end));
    }
    int64_t records = 0, all_records = 0;
    Position restored_sources;  // The largest source per partition of the records restored.
    if (CheckResult why =
            CountRecords(r.changelog, r.start_offset, end, eos_, &records, &restored_sources)) {
      return why;
    }
    if (r.records_restored != records) {
      return Finding("C2", "store " + r.store + " applied " + std::to_string(r.records_restored) +
                               " records restoring [" + std::to_string(r.start_offset) + ", " +
                               std::to_string(end) + "), where the changelog holds " +
                               std::to_string(records) + (eos_ ? " committed ones" : ""));
    }
    if (eos_) {
      if (CheckResult why = CountRecords(r.changelog, r.start_offset, end, false, &all_records)) {
        return why;
      }
      skipped_aborted = skipped_aborted || all_records > records;
    }
    // U1, U2: a legacy store not wiped restored after its .checkpoint offset, with its
    // .position; so did an upgrade that got as far as importing them before it failed.
    if (!r.wiped && (r.found_format == StateFormat::kLegacy ||
                     (interrupted_upgrade && r.found_format == StateFormat::kCurrent))) {
      const std::string rule = interrupted_upgrade ? "U2" : "U1";
      std::optional<int64_t> expected;
      if (before.checkpoint) {
        auto it = before.checkpoint->find({r.changelog, 0});
        if (it != before.checkpoint->end() && it->second != kOffsetUnknown) {
          expected = it->second;
        }
      }
      // Checks: U1, U2 — a legacy store resumes at its .checkpoint offset, .position imported
      if (r.stored_offset != expected) {
        return Finding(rule, "store " + r.store + " (" +
                                 std::string(StateFormatName(*r.found_format)) +
                                 " on disk) restored after changelog offset " +
                                 (r.stored_offset ? std::to_string(*r.stored_offset) : "(none)") +
                                 ", where .checkpoint said " +
                                 (expected ? std::to_string(*expected) : "(none)"));
      }
      const Position imported =
          before.positions.count(r.store) ? before.positions.at(r.store) : Position{};
      // What .position said, advanced by the sources of the records restored after it (T8).
      Position position = imported;
      for (const auto& [partition, offset] : restored_sources) {
        auto [it, inserted] = position.try_emplace(partition, offset);
        if (!inserted) it->second = std::max(it->second, offset);
      }
      if (task_->Store(r.store)->CommittedPosition() != position) {
        // .position imported but the restored records' sources not applied: T8's restore part.
        const bool sources_missed = task_->Store(r.store)->CommittedPosition() == imported;
        return Finding(sources_missed ? "T8" : rule,
                       "store " + r.store + " has committed position " +
                           ShowPosition(task_->Store(r.store)->CommittedPosition()) + ", where " +
                           r.store + ".position said " + ShowPosition(imported) +
                           " and the records restored after it came from " +
                           ShowPosition(restored_sources));
      }
      if (!legacy) {
        ReachedIf(expected.has_value() && r.found_format == StateFormat::kLegacy,
                  "U1.imports_checkpoint");
        ReachedIf(!imported.empty(), "U1.imports_position");
      }
    }
    o.found_format[r.store] = r.found_format;
    const bool current = r.found_format == StateFormat::kCurrent && !legacy;
    // Checks: L1 — recovered from a lost close marker, the next clean start wipes nothing
    if (converging_ && current && (!r.was_closed_cleanly || r.wiped)) {
      return Finding("L1", "store " + r.store + (r.wiped ? " was wiped" : " reports a crash") +
                               " at a clean start after the start that recovered it from a lost "
                               "open-status marker: recovery does not converge, every start "
                               "restores it again");
    }
    // T7: the open-status marker tells a crash from a clean close (current-format stores;
    // a legacy one's .checkpoint tells it) — or from a clean close that could not clear it.
    const bool closed_cleanly = clean && !model_->CloseMarkerWasLost(r.store);
    if (current && r.was_closed_cleanly != closed_cleanly) {
      return Finding("T7", "store " + r.store + " reports " +
                               (r.was_closed_cleanly ? "a clean" : "an unclean") +
                               " shutdown after a " +
                               (!clean           ? "crash"
                                : closed_cleanly ? "clean close"
                                                 : "clean close that could not clear its marker"));
    }
    if (current && !config_.processor) {
      if (CheckResult why = CheckPosition(r, o.committed_input)) return why;
    }
    o.wiped[r.store] = r.wiped;
    o.restored[r.store] = r.records_restored;
    if (CheckResult why =
            ReadAll(task_->Store(r.store), /*view=*/false, &o.stores[r.store], "C2")) {
      return why;
    }
  }
  // U1: a current-format start leaves no legacy file; T10: nor does a legacy exactly-once
  // start (its .checkpoint must not survive to skip the wipe after a crash).
  // Checks: U1, T10 — no legacy file outlives a current-format or legacy-EOS start
  if (!legacy || eos_) {
    for (const std::string& file : ReadLegacyFiles().present) {
      return Finding(legacy ? "T10" : "U1",
                     file + " is still there after a " +
                         std::string(StateFormatName(options_.config.format)) + "-format start");
    }
  }
  // F3: a power loss must not lose what a commit made durable.
  // Checks: F3 — a power loss keeps the committed input offset and output
  if (shutdown_.kind == Shutdown::kPowerLoss &&
      o.committed_input < model_->committed_input_offset()) {
    return Finding("F3", "after a power loss the committed input offset is " +
                             std::to_string(o.committed_input) + ", the last commit wrote " +
                             std::to_string(model_->committed_input_offset()) + " (" + ShowLost() +
                             ")");
  }
  if (shutdown_.kind == Shutdown::kPowerLoss &&
      o.committed_output.size() < model_->committed_output().size()) {
    return Finding(
        "F3", "after a power loss the committed output has " +
                  std::to_string(o.committed_output.size()) + " records, the last commit left " +
                  std::to_string(model_->committed_output().size()) + " (" + ShowLost() + ")");
  }
  // What the restart is about to be checked in (the situations it reaches).
  const bool interrupted_start = model_->start_interrupted();
  const bool uncommitted_work = model_->next_input_offset() > model_->committed_input_offset();
  const size_t committed_output = model_->committed_output().size();
  const size_t pending_output = model_->pending_output();
  std::map<std::string, model::StoreState> committed_stores;
  for (const std::string& name : model::TaskModel::StoreNames()) {
    committed_stores[name] = model_->Committed(name);
  }
  // Checks: C3, C4, C6, T9, T10, U3, U4, U5 — wipes, restores and stores vs the model
  if (CheckResult why = model_->Restart(clean, o, clock_->NowMs())) return why;
  ++restarts_;
  NoteRestart(clean, o, before, interrupted_upgrade, interrupted_start, uncommitted_work,
              committed_output, pending_output, committed_stores, skipped_aborted);
  if (clean) crashes_since_commit_ = 0;  // A clean close commits.
  return std::nullopt;
}

std::string Sut::ShowLost() const {
  const faults::PowerLossStats& l = shutdown_.lost;
  return "the power loss dropped " + std::to_string(l.bytes_dropped) + " unsynced bytes of " +
         std::to_string(l.files_truncated) + " files, removed " + std::to_string(l.files_deleted) +
         " files, reverted " + std::to_string(l.renames_reverted) + " renames and " +
         std::to_string(l.deletes_restored) + " deletes";
}

void Sut::NoteRestart(bool clean, const model::RestartObservation& o, const LegacyFiles& before,
                      bool interrupted_upgrade, bool interrupted_start, bool uncommitted_work,
                      size_t committed_output, size_t pending_output,
                      const std::map<std::string, model::StoreState>& committed_stores,
                      bool skipped_aborted) {
  const bool legacy = format_ == StateFormat::kLegacy;
  const model::T1Row& row = rows_.at(format_);
  const bool ru = row.isolation == IsolationLevel::kReadUncommitted;
  const bool crashed = !clean;
  // T10 and C2, per store.
  bool restored_nothing = true;
  for (const auto& [name, v] : model_->last_restart()) {
    restored_nothing = restored_nothing && v.restored == 0;
    if (v.rule == "T10") {
      if (crashed && eos_ && ru && v.wiped) Reached("T10.eos_ru_crash_wiped");
      if (crashed && eos_ && !ru && !v.wiped) Reached("T10.eos_rc_crash_kept");
      if (crashed && !eos_ && !v.wiped) Reached("T10.alos_crash_kept");
      if (clean && eos_ && ru && !v.wiped) Reached("T10.eos_ru_clean_kept");
    }
    // C7: a crash took the store back to a commit before its last (its restore replayed what it
    // lost); or a flush in the middle of the run had made later commits durable than the last
    // one known (a clean close, a start).
    ReachedIf(crashed && !v.wiped && v.lost > 0, "C7.store_behind_after_crash");
    ReachedIf(crashed && !v.wiped && v.unflushed > 0 && v.lost < v.unflushed, "C7.flushed_mid_run");
    ReachedIf(shutdown_.kind == Shutdown::kPowerLoss && !v.wiped && v.lost > 0,
              "C7.power_loss_drops_unflushed");
    ReachedIf(crashed && !v.wiped && step_.commit_failed &&
                  step_.commit_point == kFailStoreBackgroundFlush,
              "C7.crash_in_flush");
    ReachedIf(v.wiped && v.restored > 0, "C2.restore_after_wipe");
    ReachedIf(!v.wiped && v.found && v.restored > 0, "C2.restore_from_stored_offset");
    ReachedIf(changelog_compacted_ && v.wiped && v.restored > 0, "C2.restore_after_compaction");
    ReachedIf(segments_compacted_ && v.wiped && v.restored > 0,
              "C2.restore_after_segment_compaction");
    if (v.rule == "U3" && v.wiped) {
      Reached(clean ? "U3.after_clean_close" : "U3.after_crash");
      ReachedIf(v.restored > 0, "U3.restores_records");
    }
    if (v.rule == "U4" && v.wiped && legacy && eos_ && crashed) {
      Reached("U4.legacy_eos_crash_wipes");
    }
    if (v.rule == "U5" && v.wiped) {
      ReachedIf(step_.damaged_file == kCheckpointFileName, "U5.damaged_checkpoint");
      ReachedIf(!step_.damaged_file.empty() && step_.damaged_file != kCheckpointFileName,
                "U5.damaged_position");
      ReachedIf(!legacy, "U5.damaged_then_upgrade");
      ReachedIf(step_.damage == "negative", "U5.negative_offset");
      ReachedIf(step_.legacy_damage, "F6.unreadable_legacy_file_restores");
    }
  }
  ReachedIf(clean && restored_nothing && !model_->last_restart().empty(),
            "C2.clean_restart_restores_nothing");
  // A restore that read past the store's offset and found no data record, only the markers that
  // close transactions: it ended (else the watchdog would have called the case a hang).
  for (const StoreRestore& r : task_->restores()) {
    ReachedIf(r.start_offset < r.end_offset && r.records_restored == 0,
              "L1.restore_past_marker_tail");
  }
  ReachedIf(skipped_aborted, "C2.skips_aborted");
  // C1, C3, C4: what the crash left to recover.
  if (crashed && uncommitted_work) Reached("C1.restart_resumes_at_commit");
  ReachedIf(crashed && uncommitted_work && setup_.log_batch_bytes >= TaskOptions{}.log_batch_bytes,
            "C1.crash_loses_unwritten_batch");
  if (crashed && eos_) {
    ReachedIf(pending_output > 0, "C3.crash_open_txn_with_output");
    ReachedIf(!uncommitted_work && o.committed_input > 0, "C3.crash_after_commit");
    ReachedIf(crashes_since_commit_ >= 2, "C3.repeated_crashes");
  }
  if (crashed && !eos_) {
    ReachedIf(uncommitted_work, "C4.crash_with_uncommitted_output");
    ReachedIf(o.committed_output.size() > committed_output, "C4.output_ahead_of_commit");
    for (const auto& [name, state] : o.stores) {
      auto it = committed_stores.find(name);
      ReachedIf(it != committed_stores.end() && state != it->second, "C4.store_ahead_of_commit");
    }
  }
  // C6, C1, F1: a failed commit, a failed start, an absorbed fault.
  const model::FailedCommitOutcome outcome = model_->last_failed_commit();
  if (step_.commit_failed) {
    Reached("C6.failed_commit_stops_task");
    ReachedIf(step_.failed_in_processing, "C6.failure_while_processing");
    ReachedIf(outcome == model::FailedCommitOutcome::kNoEffect, "C6.last_commit_intact");
    ReachedIf(outcome == model::FailedCommitOutcome::kTookEffect, "C6.failed_commit_took_effect");
    ReachedIf(outcome != model::FailedCommitOutcome::kNone, "C1.failed_commit_all_or_none");
    Reached(step_.engine_point ? "F1.engine_step_fault" : "F1.commit_fault_reported");
    ReachedIf(step_.full_disk, "F1.full_disk_reported");
    ReachedIf(step_.full_disk, "F7.full_disk_fails_commit");
  }
  ReachedIf(step_.store_damage_found == "start", "F6.store_damage_fails_the_start");
  ReachedIf(step_.store_damage_found == "start (manifest)", "F6.manifest_damage_fails_the_start");
  if (step_.log_damage_found) {
    Reached(step_.log_damage == "zero" ? "F6.zeroed_bytes_are_corruption"
                                       : "F6.flipped_bit_is_corruption");
    Reached("F6.repaired_log_restarts");
  }
  if (shutdown_.kind == Shutdown::kRevived) {
    Reached(step_.log_reopened ? "F8.revived_after_log_reopen" : "F8.revived_on_same_log");
    ReachedIf(eos_ && !step_.log_reopened, "F8.fenced_on_same_log");
    ReachedIf(step_.full_disk, "F8.revived_after_full_disk");
    ReachedIf(step_.full_disk_start_failed, "F7.start_on_full_disk_fails_cleanly");
  }
  ReachedIf(step_.start_failed && crashed, "F1.start_fault_reported");
  ReachedIf(step_.upgrade_failed && interrupted_upgrade, "F1.upgrade_fault_reported");
  ReachedIf((step_.commit_failed || step_.start_failed || step_.upgrade_failed) &&
                step_.error == faults::FaultSpec::Error::kNoSpace,
            "F1.no_space_reported");
  ReachedIf(interrupted_start && crashed, "F2.interrupted_start");
  // F2, F3, F4: how the task went down.
  if (shutdown_.kind == Shutdown::kCrash) {
    Reached(uncommitted_work ? "F2.crash_mid_transaction" : "F2.crash_at_commit_boundary");
  }
  if (shutdown_.kind == Shutdown::kPowerLoss) {
    const faults::PowerLossStats& l = shutdown_.lost;
    ReachedIf(l.bytes_dropped > 0, "F3.unsynced_tail_dropped");
    ReachedIf(uncommitted_work && shutdown_.lost_anything(), "F3.uncommitted_work_lost");
    ReachedIf(l.files_deleted > 0, "F3.unsynced_file_removed");
    ReachedIf(step_.commit_failed, "F3.after_failed_commit");
    ReachedIf(step_.full_disk, "F7.power_loss_after_full_disk");
    if (appended_after_torn_tail_) Reached("F4.append_after_torn_tail");
    if (!shutdown_.torn_partitions.empty()) {
      Reached(eos_ ? "F4.torn_tail_exactly_once" : "F4.torn_tail_at_least_once");
      ReachedIf(step_.commit_failed, "F4.torn_tail_after_failed_commit");
      torn_tail_recovered_ = true;
      appended_after_torn_tail_ = false;
    }
  }
  // U1, U2, U4: format switches.
  if (previous_format_ == StateFormat::kLegacy && !legacy && !before.present.empty()) {
    Reached("U1.deletes_legacy_files");
    ReachedIf(crashed && !interrupted_upgrade, "U1.upgrade_after_crash");
  }
  if (interrupted_upgrade && step_.upgrade_failed) {
    const std::string& p = step_.upgrade_point;
    if (p == kFailTaskUpgradeBeforeImport) {
      Reached("U2.crash_before_import");
    } else if (p == kFailTaskUpgradeBeforeDelete) {
      Reached("U2.crash_before_delete");
    } else if (p.rfind("statecheck/fs/read/", 0) == 0) {
      Reached("U2.crash_reading_files");
    } else if (p.rfind("statecheck/fs/delete/", 0) == 0) {
      Reached("U2.crash_deleting_files");
    } else {
      Reached("U2.crash_importing");
    }
    ReachedIf(legacy, "U2.back_to_legacy");
  }
  if (previous_format_ != format_) {
    if (!switches_.empty() && switches_.back() != format_) Reached("U4.round_trip");
    switches_.push_back(format_);
  }
  ReachedIf(crashed && previous_format_ == StateFormat::kLegacy && legacy, "U4.crash_in_legacy");
}

std::string Sut::ShowPosition(const Position& p) {
  Json j = Json::object();
  for (const auto& [k, v] : p) j[k] = v;
  return j.dump();
}

CheckResult Sut::CheckLive(const Op& op) {
  // Checks: C5 — commits by reason (interval, explicit, close) against the model's
  for (int r : {0, 2, 3}) {
    if (task_->stats().commits_by_reason[r] != model_->commits_by_reason()[r]) {
      return Finding("C5", std::to_string(task_->stats().commits_by_reason[r]) + " commits for " +
                               std::string(CommitReasonName(static_cast<CommitReason>(r))) +
                               ", the model " + std::to_string(model_->commits_by_reason()[r]));
    }
  }
  int64_t bytes = 0;
  for (const std::string& name : model::TaskModel::StoreNames()) {
    KeyValueStore* store = task_->Store(name);
    if (!store) return Finding("C2", "the task has no store " + name);
    bytes += store->ApproximateNumUncommittedBytes();
  }
  {
    const int64_t engine = task_->stats().commits_by_reason[1];
    const int64_t expected = model_->commits_by_reason()[1];
    // Checks: T6, T11 — commits forced by uncommitted bytes: too few T11, too many T6
    if (engine != expected) {
      // Too few: the buffer outgrew its bound (T11); too many: the bytes were miscounted (T6).
      return Finding(engine < expected ? "T11" : "T6",
                     std::to_string(engine) + " commits for uncommitted_bytes (the stores " +
                         "report " + std::to_string(bytes) + " uncommitted bytes, the bound is " +
                         std::to_string(setup_.uncommitted_max_bytes) + "), the model " +
                         std::to_string(expected));
    }
  }
  int64_t committed_input = 0;
  std::vector<model::OutputRecord> output;
  if (CheckResult why = ReadCommitted(&committed_input, &output)) return why;
  // Checks: C1 — the committed input offset is the model's last commit's
  if (committed_input != model_->committed_input_offset()) {
    return Finding("C1", "the committed input offset is " + std::to_string(committed_input) +
                             ", the model's last commit wrote " +
                             std::to_string(model_->committed_input_offset()));
  }
  // Checks: C3, C4 — the committed output: exactly-once's, or what at-least-once allows
  if (CheckResult why = model_->CheckCommittedOutput(output)) return why;
  if (task_->next_input_offset() != model_->next_input_offset()) {
    return Finding("C1", "the task resumes at input offset " +
                             std::to_string(task_->next_input_offset()) + ", the model at " +
                             std::to_string(model_->next_input_offset()));
  }
  for (const std::string& name : model::TaskModel::StoreNames()) {
    KeyValueStore* store = task_->Store(name);
    const std::string read_rule =
        store->isolation() == IsolationLevel::kReadCommitted ? "T4" : "T3";
    model::StoreState view;
    if (CheckResult why = ReadAll(store, /*view=*/true, &view, read_rule)) return why;
    if (view != model_->QueryView(name)) {
      return Finding(read_rule, "an IQ reader of store " + name + " sees " + Show(view) +
                                    ", the model " + Show(model_->QueryView(name)));
    }
    model::StoreState writer;
    if (CheckResult why = ReadAll(store, /*view=*/false, &writer, "T5")) return why;
    // Checks: T5 — the writer reads its uncommitted writes merged over committed
    if (writer != model_->Current(name)) {
      return Finding("T5", "the writer reads store " + name + " as " + Show(writer) +
                               ", the model " + Show(model_->Current(name)));
    }
  }
  // Checks: T6 — the stores' approximateNumUncommittedBytes sum against the model's
  if (bytes != model_->UncommittedBytes()) {
    return Finding("T6", "the stores report " + std::to_string(bytes) +
                             " uncommitted bytes, the model " +
                             std::to_string(model_->UncommittedBytes()));
  }
  NoteLive(op, bytes);
  return std::nullopt;
}

void Sut::NoteLive(const Op& op, int64_t bytes) {
  const ModelSnapshot& b = before_;
  const bool restarted = restarts_ != b.restarts;
  const bool rc = options_.config.isolation == IsolationLevel::kReadCommitted;
  const bool committed = model_->committed_input_offset() > b.committed_input && !restarted;
  if (committed) {
    ReachedIf(model_->committed_output().size() > b.committed_output, "C1.commit_with_output");
    ReachedIf(setup_.log_batch_bytes >= TaskOptions{}.log_batch_bytes &&
                  model_->committed_output().size() >= b.committed_output + 2,
              "C1.commit_writes_its_batch");
    if (eos_ && b.committed_input < crash_processed_) Reached("C3.reprocessed_once");
    ReachedIf(revived_since_commit_, "F8.commits_after_revival");
    ReachedIf(full_disk_since_commit_, "F7.commits_after_space_returns");
    crashes_since_commit_ = 0;
    revived_since_commit_ = false;
    full_disk_since_commit_ = false;
  }
  if (task_ && task_->stats().compactions > 0) changelog_compacted_ = true;
  if (task_ && task_->stats().segment_compactions > 0) segments_compacted_ = true;
  ReachedIf(eos_ && model_->pending_output() > 0, "C1.eos_open_txn_invisible");
  // This step's checks, reading without the fault, found every store as the model has it.
  ReachedIf(step_.reads_failed > 0, "F8.read_error_fails_the_read_only");
  ReachedIf(model_->records_interval_commits() > b.records_interval_commits,
            "C5.records_interval_commit");
  ReachedIf(model_->time_interval_commits() > b.time_interval_commits, "C5.time_interval_commit");
  ReachedIf(model_->total_commits(2) > b.total_commits[2], "C5.explicit_commit");
  if (model_->total_commits(1) > b.total_commits[1]) {
    Reached("C5.bytes_commit");
    ReachedIf(rc, "T11.bound_forces_commit");
  }
  const bool processed = model_->next_input_offset() > b.next_input && !restarted;
  if (rc) {
    ReachedIf((setup_.uncommitted_max_bytes > 12 || setup_.uncommitted_max_bytes < 0) &&
                  processed && bytes > 0 && model_->total_commits(1) == b.total_commits[1],
              "T11.unlimited_buffer");
    ReachedIf(op.type == OpType::kCommit && b.uncommitted_bytes > 0 && bytes == 0,
              "T11.commit_empties_buffer");
  } else {
    ReachedIf(
        processed && bytes == 0 && model_->next_input_offset() > model_->committed_input_offset(),
        "T11.direct_writes_unbuffered");
  }
}

CheckResult Sut::ReadCommitted(int64_t* input, std::vector<model::OutputRecord>* output) {
  CommittedOffsets c;
  Status s = log_->GetCommittedOffsets(task_->OffsetsGroup(), &c);
  *input = 0;
  if (s.ok()) {
    *input = c.offsets.count(kTaskInput) ? c.offsets.at(kTaskInput) : 0;
  } else if (s.code() != Status::Code::kNotFound) {
    return Finding("C1", "reading committed offsets: " + s.ToString());
  }
  std::vector<LogRecord> records;
  s = log_->Read(kTaskOutput, 0, 1 << 30, IsolationLevel::kReadCommitted, &records);
  if (!s.ok()) return Finding("C1", "reading the output: " + s.ToString());
  output->clear();
  for (LogRecord& r : records) output->push_back({std::move(r.key), std::move(r.value)});
  return std::nullopt;
}

CheckResult Sut::CountRecords(const std::string& partition, int64_t from, int64_t end,
                              bool committed, int64_t* count, Position* sources) {
  *count = 0;
  if (sources) sources->clear();
  if (from >= end) return std::nullopt;
  std::vector<LogRecord> records;
  const Status s = log_->Read(
      partition, from, 1 << 30,
      committed ? IsolationLevel::kReadCommitted : IsolationLevel::kReadUncommitted, &records);
  if (!s.ok()) return Finding("C2", "reading " + partition + ": " + s.ToString());
  for (const LogRecord& r : records) {
    if (r.offset >= end) continue;
    ++*count;
    if (sources && r.source) {
      auto [it, inserted] = sources->try_emplace(r.source->partition, r.source->offset);
      if (!inserted) it->second = std::max(it->second, r.source->offset);
    }
  }
  return std::nullopt;
}

CheckResult Sut::ReadAll(KeyValueStore* store, bool view, model::StoreState* out,
                         const std::string& rule) {
  const Status s = view ? ReadStoreState(*store->NewQueryView(), out) : ReadStoreState(*store, out);
  if (s.ok()) return std::nullopt;
  return Finding(rule, "reading store " + store->name() + ": " + s.ToString());
}

std::string Sut::Show(const model::StoreState& s) {
  Json j = Json::object();
  for (const auto& [k, v] : s) j[EscapeBytes(k)] = EscapeBytes(v);
  return j.dump();
}

}  // namespace statecheck::properties::task
