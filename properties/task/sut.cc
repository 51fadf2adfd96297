// Sut: starting a case, applying a step to both sides, restarts (sut.h).
#include "properties/task/sut.h"

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
#include "statecheck/hooks/fail_points.h"
#include "statecheck/log.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/task.h"

namespace statecheck::properties::task {

Sut::Sut(std::string dir, const Config& config, const StateConfig& resolved)
    : dir_(std::move(dir)), config_(config), setup_(config.setup) {
  const Setup& setup = config.setup;
  options_.application_id = "app";
  options_.input_partition = kTaskInput;
  options_.output_partition = kTaskOutput;
  options_.state_directory = dir_ + "/state";
  configs_[resolved.format] = resolved;
  model::ExpectedT1Row(config.streams_config, &rows_[resolved.format], &unused_);
  if (config.format_switches) {
    // The same T1 row in the other format; the case starts in the legacy one.
    for (StateFormat f : {StateFormat::kLegacy, StateFormat::kCurrent}) {
      std::map<std::string, std::string> props = config.streams_config;
      props[std::string(kStateFormatConfig)] = StateFormatName(f);
      // The matrix's rows resolve (CheckT1Rows checked each in both formats before any case).
      if (!ResolveStateConfig(props, &configs_[f]).ok()) std::abort();
      model::ExpectedT1Row(props, &rows_[f], &unused_);
    }
  }
  UseFormat(config.format_switches ? StateFormat::kLegacy : resolved.format);
  options_.commit_interval_records = setup.commit_interval_records;
  options_.commit_interval_ms = setup.commit_interval_ms;
  options_.changelog_compaction_min_bytes = setup.changelog_compaction ? 0 : -1;
  options_.changelog_compaction_min_dirty_ratio = 0;
  options_.log_batch_bytes = setup.log_batch_bytes;
  options_.store_max_unflushed_bytes = setup.max_unflushed_bytes;
  options_.clock = clock_;
  options_.store_use_wal = config.use_wal;
  options_.logger = logs_;
  options_.store_config_setter = HarnessRocksDBConfig();
  model_ = std::make_unique<model::TaskModel>(ModelConfig(), clock_->NowMs());
  eos_ = resolved.guarantee == ProcessingGuarantee::kExactlyOnceV2;
  if (config.power_loss || !config.real_disk) {
    // In memory: a process crash loses nothing there either, and no fsync waits for a disk.
    fault_env_ = faults::NewFaultEnv(faults::BaseFileSystem::kInMemory);
    fault_env_.fs->RegisterLogDirectory(dir_ + "/log");
    // Harness-only: the engine and RocksDB's defaults are as users run them; the file system
    // refuses the OPTIONS file, which RocksDB 7.8 then goes without (fault_fs.h).
    fault_env_.fs->SkipRocksDBOptionsFiles(!setup.rocksdb_options_files);
    options_.env = fault_env_.env.get();
    // Deterministic fault schedules ("fail the n-th read"): no file write or read happens on a
    // background schedule — no compaction, and the stores' flushes past max_unflushed_bytes run
    // in the commit that starts them (RocksDBStoreOptions::disable_auto_compactions).
    options_.store_disable_auto_compactions = true;
  }
}

Sut::~Sut() {
  task_.reset();
  log_.reset();
  faults::FailPoints::Reset();
  std::filesystem::remove_all(dir_);
}

CheckResult Sut::Open() {
  if (CheckResult why = OpenTheLog("C2")) return why;
  const Status s = OpenTask(options_, NewProcessor(), &task_);
  if (!s.ok()) return Finding("C2", "opening the task: " + s.ToString());
  return std::nullopt;
}

kit::StepResult Sut::Step(const Op& op, const std::optional<Json>&) {
  before_ = Snapshot();
  step_ = StepFacts{};
  logs_->Take();
  CheckResult why = Apply(op);
  if (!why) why = CheckLive(op);
  kit::StepResult result;
  if (!why) {
    HeldAll();
    return result;
  }
  result.finding = Finding(why->rule, "(" + setup_.ToString() + ")\n  " + why->message);
  return result;
}

Sut::ModelSnapshot Sut::Snapshot() const {
  ModelSnapshot m;
  m.committed_input = model_->committed_input_offset();
  m.next_input = model_->next_input_offset();
  m.committed_output = model_->committed_output().size();
  m.pending_output = model_->pending_output();
  m.uncommitted_bytes = model_->UncommittedBytes();
  for (int r = 0; r < model::TaskModel::kReasons; ++r)
    m.total_commits[r] = model_->total_commits(r);
  m.records_interval_commits = model_->records_interval_commits();
  m.time_interval_commits = model_->time_interval_commits();
  m.restarts = restarts_;
  return m;
}

CheckResult Sut::Apply(const Op& op) {
  switch (op.type) {
    case OpType::kAppend: {
      for (const auto& [k, v] : op.records) {
        int64_t offset = 0;
        const Status s = log_->Append(
            kTaskInput, k, v ? std::optional<std::string_view>(*v) : std::nullopt, &offset);
        if (!s.ok()) return Finding("C1", "appending input: " + s.ToString());
        model_->AppendInput(k, v);
      }
      appended_after_torn_tail_ = torn_tail_recovered_;
      const Status s = log_->Sync();
      if (!s.ok()) return Finding("C1", "syncing input: " + s.ToString());
      return std::nullopt;
    }
    case OpType::kProcess: {
      int64_t processed = 0;
      const Status s = task_->Process(op.n, &processed);
      if (!s.ok()) return Finding("C1", "Process: " + s.ToString());
      const int64_t expected = model_->Process(op.n, clock_->NowMs());
      if (processed != expected) {
        return Finding("C1", "processed " + std::to_string(processed) + " records, the model " +
                                 std::to_string(expected));
      }
      return std::nullopt;
    }
    case OpType::kAdvanceClock:
      clock_->Advance(op.n);
      return std::nullopt;
    case OpType::kCommit: {
      const Status s = task_->Commit();
      if (!s.ok()) return Finding("C1", "Commit: " + s.ToString());
      model_->Commit(clock_->NowMs());
      return std::nullopt;
    }
    case OpType::kCrash:
      return Crash(op.tear_seed);
    case OpType::kFaultyCommit: {
      // Armed: process `k` records (commits their triggers ask for included), then commit.
      if (CheckResult why = Arm(op)) return why;
      int64_t processed = 0;
      const Status processing = task_->Process(op.k, &processed);
      const Status s = processing.ok() ? task_->Commit() : processing;
      // A full disk the process goes on after stays full until the revival's first start.
      const bool disk_stays_full = op.point == kFullDisk && op.keep_going;
      const uint64_t fired = Disarm(disk_stays_full);
      if (s.ok()) {
        if (disk_stays_full) Disarm();  // Nothing to go on after: the space comes back.
        const int64_t expected = model_->Process(op.k, clock_->NowMs());
        if (processed != expected) {
          return Finding("C1", "processed " + std::to_string(processed) + " records, the model " +
                                   std::to_string(expected));
        }
        model_->Commit(clock_->NowMs());
        // The fsync failed in work the commit did not wait for: the machine dies there too.
        return fired > 0 ? Crash(op.tear_seed) : std::nullopt;
      }
      // F1: the error is the one injected, said clearly, and the task stops (C6).
      // Checks: F1 — a failed commit reports the injected EIO, ENOSPC or short write
      if (!faults::IsInjectedFault(s)) {
        return Finding("F1", "the failure reported " + s.ToString());
      }
      // Checks: F7 — a commit a full disk fails says so: ENOSPC, not another error
      if (op.point == kFullDisk &&
          s.message().find("no space left on device") == std::string::npos) {
        return Finding("F7", "a full disk failed the commit with " + s.ToString() +
                                 ", which does not say the disk is full (ENOSPC)");
      }
      // Checks: C6 — a failed commit reports its error and stops the task
      if (!task_->failed()) return Finding("C6", "the task carries on after " + s.ToString());
      step_.commit_failed = true;
      step_.error = op.error;
      step_.full_disk = op.point == kFullDisk;
      full_disk_since_commit_ = full_disk_since_commit_ || step_.full_disk;
      step_.failed_in_processing = !processing.ok();
      step_.engine_point = op.point.rfind("statecheck/fs/", 0) != 0 && op.point != "fsync";
      step_.commit_point = op.point;
      if (processing.ok()) {
        model_->Process(op.k, clock_->NowMs());
        model_->CommitFailed();
      } else {
        model_->ProcessFailed(processed, task_->stats().failed_in_commit, clock_->NowMs());
      }
      return op.keep_going ? KeepGoing() : Crash(op.tear_seed);
    }
    case OpType::kFaultyRestore: {
      // A crash, then a restart that fails at the armed fault (by default after the first
      // restore batch) with the injected error, said clearly (F1); then another crash and a
      // restart that must still find every commit.
      if (fault_env_.fs) fault_env_.fs->SetActive(false);
      task_->Abandon();
      task_.reset();
      log_.reset();
      if (CheckResult why = PowerLoss(op.tear_seed)) return why;
      const LegacyFiles before = ReadLegacyFiles();
      previous_format_ = format_;  // A start in the same format.
      if (CheckResult why = Arm(op)) return why;
      const bool kept = std::exchange(log_kept_after_failure_, false);
      Status s = OpenLog(LogOptionsFor(), &log_);
      if (s.ok()) {
        options_.log = log_.get();
        s = OpenTask(options_, NewProcessor(), &task_);
      }
      const uint64_t fired = Disarm();
      if (s.ok()) {
        // The fault did not stop the start: it is a restart like any other.
        if (CheckResult why = CheckRestart(/*clean=*/false, before, /*interrupted=*/false)) {
          return why;
        }
        return Crash(op.tear_seed);
      }
      // Checks: F1 — a start that fails reports the injected error
      if (!ExplainedByInjectedFault(s, fired)) {
        return Finding(kept ? "F8" : "F1", "the failed restart reported " + s.ToString());
      }
      step_.start_failed = true;
      step_.error = op.error;
      model_->StartInterrupted();
      task_.reset();
      log_.reset();
      return Crash(op.tear_seed, /*task_open=*/false);
    }
    case OpType::kDamageLog:
      return DamageLog(op);
    case OpType::kDamageStore:
      return DamageStore(op);
    case OpType::kFaultyRead:
      return FaultyRead(op);
    case OpType::kFaultyClose:
      return FaultyClose(op);
    case OpType::kRestart: {
      if (CheckResult why = CloseCleanly("C1")) return why;
      return Restart(/*clean=*/true);
    }
    case OpType::kRestartAs:
    case OpType::kDamageFile: {
      if (op.clean) {
        if (CheckResult why = CloseCleanly("C1")) return why;
      } else {
        if (fault_env_.fs) fault_env_.fs->SetActive(false);
        task_->Abandon();
      }
      task_.reset();
      log_.reset();
      if (!op.clean) {
        if (CheckResult why = PowerLoss(op.tear_seed)) return why;
      }
      if (op.type == OpType::kDamageFile) {
        if (CheckResult why = Damage(op.file, op.damage)) return why;
        step_.damaged_file = op.file;
        step_.damage = op.damage;
      }
      return Restart(op.clean, op.format);
    }
    case OpType::kFaultyUpgrade:
      return FaultyUpgrade(op);
  }
  return Finding("C1", "unknown op " + OpToString(op));
}

CheckResult Sut::CloseCleanly(const std::string& rule) {
  const bool commits = model_->next_input_offset() > model_->committed_input_offset();
  const Status s = task_->Close();
  if (!s.ok()) return Finding(rule, "Close: " + s.ToString());
  ReachedIf(commits, "C5.close_commit");
  model_->Close(clock_->NowMs());
  return std::nullopt;
}

void Sut::UseFormat(StateFormat format) {
  format_ = format;
  options_.config = configs_.at(format);
  options_.config.uncommitted_max_bytes = setup_.uncommitted_max_bytes;
}

model::TaskModelConfig Sut::ModelConfig() const {
  // The model runs T1's row as the model reads the table, not the engine's resolution.
  const model::T1Row& c = rows_.at(format_);
  model::TaskModelConfig mc;
  mc.guarantee = c.guarantee;
  mc.isolation = c.isolation;
  mc.wipe_on_unclean_shutdown = c.wipe_on_unclean_shutdown;
  mc.format = c.format;
  mc.uncommitted_max_bytes = setup_.uncommitted_max_bytes;
  mc.commit_interval_records = setup_.commit_interval_records;
  mc.changelog_compaction = setup_.changelog_compaction;
  mc.commit_interval_ms = setup_.commit_interval_ms >= 0 ? setup_.commit_interval_ms
                          : c.guarantee == ProcessingGuarantee::kExactlyOnceV2 ? 100
                                                                               : 30000;
  return mc;
}

std::string Sut::StatePath(const std::string& file) const {
  return options_.state_directory + "/" + file;
}

std::string Sut::StartRule(const Status& s, const std::string& clean_rule) const {
  switch (shutdown_.kind) {
    case Shutdown::kClean:
      return clean_rule;
    // Checks: F2 — a start that fails after a process crash
    case Shutdown::kCrash:
      return "F2";
    // Checks: F3 — a start that fails after a power loss (F4 when a tail tore)
    case Shutdown::kPowerLoss:
      return s.code() == Status::Code::kCorruption && !shutdown_.torn_partitions.empty() ? "F4"
                                                                                         : "F3";
    // Checks: F8 — a task opened again in the same process after an error
    case Shutdown::kRevived:
      return "F8";
  }
  return "F2";
}

LogOptions Sut::LogOptionsFor() const {
  LogOptions lo;
  lo.directory = dir_ + "/log";
  lo.env = options_.env;
  lo.logger = NullLogger();
  lo.segment_bytes = setup_.log_segment_bytes;
  return lo;
}

CheckResult Sut::OpenTheLog(const std::string& clean_rule) {
  const bool kept = log_kept_after_failure_;
  log_kept_after_failure_ = false;
  const Status s = OpenLog(LogOptionsFor(), &log_);
  if (!s.ok()) {
    // Damage in a log that tore a tail (now or earlier in the case): the tail was not dropped
    // as F4 says (the next append landed after it).
    // Checks: F4 — a log with a torn tail must open with the tail dropped
    const bool torn = torn_tail_recovered_ || !shutdown_.torn_partitions.empty();
    // Checks: F8 — a log that went on after a failure opens again
    const std::string rule = kept ? "F8"
                             : s.code() == Status::Code::kCorruption && torn
                                 ? "F4"
                                 : StartRule(s, clean_rule);
    return Finding(rule, "opening the log: " + s.ToString());
  }
  options_.log = log_.get();
  return std::nullopt;
}

CheckResult Sut::Restart(bool clean, std::optional<StateFormat> format,
                         const LegacyFiles* upgrade_files, bool keep_log) {
  task_.reset();
  if (clean) shutdown_ = ShutdownFacts{};
  if (!keep_log) {
    log_.reset();
    if (CheckResult why = OpenTheLog("C2")) return why;
  }
  if (!clean && options_.config.isolation == IsolationLevel::kReadCommitted) {
    if (CheckResult why = CheckStoresOnDisk()) return why;
  }
  previous_format_ = format_;
  if (format) {
    UseFormat(*format);
    model_->SwitchConfig(ModelConfig());
  }
  const LegacyFiles before = upgrade_files ? *upgrade_files : ReadLegacyFiles();
  const Status s = OpenTask(options_, NewProcessor(), &task_);
  if (!s.ok()) {
    // A start that switches formats, or meets a damaged legacy file, fails its U rule.
    // Checks: U1, U2, U3, U5 — a start that switches formats or finds damaged files fails
    std::string rule = StartRule(s, "C2");
    if (!step_.damaged_file.empty()) {
      rule = "U5";
    } else if (previous_format_ != format_) {
      rule = format_ == StateFormat::kCurrent ? "U1" : "U3";
    } else if (upgrade_files) {
      rule = "U2";
    }
    return Finding(rule, "opening the task: " + s.ToString());
  }
  return CheckRestart(clean, before, upgrade_files != nullptr);
}

std::unique_ptr<Processor> Sut::NewProcessor() const {
  return config_.processor ? config_.processor() : NewKeyValueProcessor();
}

}  // namespace statecheck::properties::task
