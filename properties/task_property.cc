#include "properties/task_property.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>
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
#include "properties/rapidcheck_runner.h"
#include "properties/window_store_ops.h"
#include "statecheck/fail_points.h"
#include "statecheck/log.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/task.h"

namespace statecheck::properties {

// rapidcheck shows a generated TaskSetup as its JSON (the first line of a counterexample).
void showValue(const TaskSetup& setup, std::ostream& os) { os << SetupJson(setup).dump(); }

namespace {

constexpr char kInput[] = "input";
constexpr char kOutput[] = "output";

// The fail points a faulty commit arms: every fsync and directory fsync of every file kind.
constexpr const char* kSyncFamilies[] = {"statecheck/fs/sync/*", "statecheck/fs/dir_fsync/*"};

// The engine side and the model side of one case.
class TaskSut {
 public:
  TaskSut(std::string dir, const TaskConfig& config, const StateConfig& resolved,
          const TaskSetup& setup, int64_t* operations)
      : dir_(std::move(dir)), config_(config), setup_(setup), operations_(operations) {
    options_.application_id = "app";
    options_.input_partition = kInput;
    options_.output_partition = kOutput;
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
    options_.clock = clock_;
    options_.store_use_wal = config.use_wal;
    options_.logger = NullLogger();
    options_.store_config_setter = HarnessRocksDBConfig();
    model_ = std::make_unique<model::TaskModel>(ModelConfig(), clock_->NowMs());
    eos_ = resolved.guarantee == ProcessingGuarantee::kExactlyOnceV2;
    if (config.power_loss || !config.real_disk) {
      // In memory: a process crash loses nothing there either, and no fsync waits for a disk.
      fault_env_ = faults::NewFaultEnv(faults::BaseFileSystem::kInMemory);
      fault_env_.fs->RegisterLogDirectory(dir_ + "/log");
      options_.env = fault_env_.env.get();
    }
    if (config.power_loss) {
      // Deterministic fault schedules: no file write happens on a background schedule.
      options_.store_disable_auto_compactions = true;
    }
  }

  ~TaskSut() {
    task_.reset();
    log_.reset();
    faults::FailPoints::Reset();
    std::filesystem::remove_all(dir_);
  }

  // Opens the log and the task (a first start: C2); held or the finding.
  CheckResult Start() {
    if (CheckResult why = OpenTheLog("C2")) return why;
    const Status s = OpenTask(options_, NewProcessor(), &task_);
    if (!s.ok()) return Finding("C2", "opening the task: " + s.ToString());
    return std::nullopt;
  }

  // Runs `op` on both sides and checks them; held or the finding, its message naming the step.
  // When every check of the step held, the situations it reached count (evidence.h).
  CheckResult Step(const TaskOp& op) {
    ++*operations_;
    ++steps_;
    before_ = Snapshot();
    step_ = StepFacts{};
    CheckResult why = Apply(op);
    if (!why) why = CheckLive(op);
    if (!why) {
      HeldAll();
      return std::nullopt;
    }
    return Finding(why->rule, "step " + std::to_string(steps_) + ": " + TaskOpToString(op) + " (" +
                                  setup_.ToString() + ")\n  " + why->message);
  }

 private:
  // What the model said before the step (for the situations the step reaches).
  struct ModelSnapshot {
    int64_t committed_input = 0;
    int64_t next_input = 0;
    size_t committed_output = 0;
    size_t pending_output = 0;
    int64_t uncommitted_bytes = 0;
    int64_t total_commits[model::TaskModel::kReasons] = {0, 0, 0, 0};
    int64_t records_interval_commits = 0;
    int64_t time_interval_commits = 0;
    int restarts = 0;
  };
  ModelSnapshot Snapshot() const {
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
  // How the task last went down.
  enum class Shutdown { kClean, kCrash, kPowerLoss };
  struct ShutdownFacts {
    Shutdown kind = Shutdown::kClean;
    faults::PowerLossStats lost;               // kPowerLoss: what it threw away.
    std::vector<std::string> torn_partitions;  // kPowerLoss: log partitions left with a torn tail.
    bool lost_anything() const {
      return lost.bytes_dropped + lost.files_deleted + lost.renames_reverted +
                 lost.deletes_restored >
             0;
    }
  };
  // What happened in the current step, beyond the model's state (for the situations).
  struct StepFacts {
    bool commit_failed = false;         // A faulty commit failed with the injected error ...
    bool failed_in_processing = false;  // ... in a commit processing triggered.
    bool engine_point = false;          // The fault was one of the engine's named steps.
    faults::FaultSpec::Error error = faults::FaultSpec::Error::kIO;  // The failed commit's.
    bool start_failed = false;    // A faulty restore failed the start.
    bool upgrade_failed = false;  // A faulty upgrade failed the upgrade ...
    std::string upgrade_point;    // ... at this point.
    std::string damaged_file;     // damageFile: the file and how.
    std::string damage;
  };

  CheckResult Apply(const TaskOp& op) {
    switch (op.type) {
      case TaskOpType::kAppend: {
        for (const auto& [k, v] : op.records) {
          int64_t offset = 0;
          const Status s = log_->Append(
              kInput, k, v ? std::optional<std::string_view>(*v) : std::nullopt, &offset);
          if (!s.ok()) return Finding("C1", "appending input: " + s.ToString());
          model_->AppendInput(k, v);
        }
        appended_after_torn_tail_ = torn_tail_recovered_;
        const Status s = log_->Sync();
        if (!s.ok()) return Finding("C1", "syncing input: " + s.ToString());
        return std::nullopt;
      }
      case TaskOpType::kProcess: {
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
      case TaskOpType::kAdvanceClock:
        clock_->Advance(op.n);
        return std::nullopt;
      case TaskOpType::kCommit: {
        const Status s = task_->Commit();
        if (!s.ok()) return Finding("C1", "Commit: " + s.ToString());
        model_->Commit(clock_->NowMs());
        return std::nullopt;
      }
      case TaskOpType::kCrash:
        return Crash(op.tear_seed);
      case TaskOpType::kFaultyCommit: {
        // Armed: process `k` records (commits their triggers ask for included), then commit.
        if (CheckResult why = Arm(op)) return why;
        int64_t processed = 0;
        const Status processing = task_->Process(op.k, &processed);
        const Status s = processing.ok() ? task_->Commit() : processing;
        const uint64_t fired = Disarm();
        if (s.ok()) {
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
        // Checks: C6 — a failed commit reports its error and stops the task
        if (!task_->failed()) return Finding("C6", "the task carries on after " + s.ToString());
        step_.commit_failed = true;
        step_.error = op.error;
        step_.failed_in_processing = !processing.ok();
        step_.engine_point = op.point.rfind("statecheck/fs/", 0) != 0 && op.point != "fsync";
        if (processing.ok()) {
          model_->Process(op.k, clock_->NowMs());
          model_->CommitFailed();
        } else {
          model_->ProcessFailed(processed, task_->stats().failed_in_commit, clock_->NowMs());
        }
        return Crash(op.tear_seed);
      }
      case TaskOpType::kFaultyRestore: {
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
          return Finding("F1", "the failed restart reported " + s.ToString());
        }
        step_.start_failed = true;
        step_.error = op.error;
        model_->StartInterrupted();
        task_.reset();
        log_.reset();
        return Crash(op.tear_seed, /*task_open=*/false);
      }
      case TaskOpType::kRestart: {
        const Status s = task_->Close();
        if (!s.ok()) return Finding("C1", "Close: " + s.ToString());
        NoteClose();
        model_->Close(clock_->NowMs());
        return Restart(/*clean=*/true);
      }
      case TaskOpType::kRestartAs:
      case TaskOpType::kDamageFile: {
        if (op.clean) {
          const Status s = task_->Close();
          if (!s.ok()) return Finding("C1", "Close: " + s.ToString());
          NoteClose();
          model_->Close(clock_->NowMs());
        } else {
          if (fault_env_.fs) fault_env_.fs->SetActive(false);
          task_->Abandon();
        }
        task_.reset();
        log_.reset();
        if (!op.clean) {
          if (CheckResult why = PowerLoss(op.tear_seed)) return why;
        }
        if (op.type == TaskOpType::kDamageFile) {
          if (CheckResult why = Damage(op.file, op.damage)) return why;
          step_.damaged_file = op.file;
          step_.damage = op.damage;
        }
        return Restart(op.clean, op.format);
      }
      case TaskOpType::kFaultyUpgrade:
        return FaultyUpgrade(op);
    }
    return Finding("C1", "unknown op " + TaskOpToString(op));
  }

  // A clean close is about to commit what was processed since the last commit (C5).
  void NoteClose() {
    if (model_->next_input_offset() > model_->committed_input_offset()) {
      Reached("C5.close_commit");
    }
  }

  // Arms the fault of a faulty step: `op.point` ("fsync": every fsync and directory fsync) fails
  // its `op.n`-th time with `op.error`. Held, or an F1 finding (the harness could not inject).
  static CheckResult Arm(const TaskOp& op) {
    std::vector<std::string> points(std::begin(kSyncFamilies), std::end(kSyncFamilies));
    if (op.point != "fsync") points = {op.point};
    for (const std::string& point : points) {
      faults::FaultSpec spec{faults::FaultSpec::Mode::kOnce, static_cast<uint64_t>(op.n), 0};
      spec.error = op.error;
      const Status s = faults::FailPoints::Enable(point, spec, 0);
      if (!s.ok()) return Finding("F1", "arming " + point + ": " + s.ToString());
    }
    return std::nullopt;
  }
  // F1: whether `s`, from a call during which `fired` faults fired, is the injected error.
  // RocksDB's DB::Open opens CURRENT a second time when the first open fails, and when the second
  // succeeds reports "Direct I/O is not supported by the specified DB." (RocksDB 7.8,
  // DBImpl::Recover): an injected open fault of CURRENT surfaces under that message.
  static bool ExplainedByInjectedFault(const Status& s, uint64_t fired) {
    if (faults::IsInjectedFault(s)) return true;
    return fired > 0 && s.code() == Status::Code::kInvalidArgument &&
           s.message().find("Direct I/O is not supported") != std::string::npos;
  }
  // Disarms every fault; returns how many fired.
  static uint64_t Disarm() {
    uint64_t fired = 0;
    for (const auto& [name, counts] : faults::FailPoints::Counts()) fired += counts.fired;
    faults::FailPoints::Reset();
    return fired;
  }

  // The options and the model's configuration in `format`.
  void UseFormat(StateFormat format) {
    format_ = format;
    options_.config = configs_.at(format);
    options_.config.uncommitted_max_bytes = setup_.uncommitted_max_bytes;
  }
  model::TaskModelConfig ModelConfig() const {
    // The model runs T1's row as the model reads the table, not the engine's resolution.
    const model::T1Row& c = rows_.at(format_);
    model::TaskModelConfig mc;
    mc.guarantee = c.guarantee;
    mc.isolation = c.isolation;
    mc.wipe_on_unclean_shutdown = c.wipe_on_unclean_shutdown;
    mc.format = c.format;
    mc.uncommitted_max_bytes = setup_.uncommitted_max_bytes;
    mc.commit_interval_records = setup_.commit_interval_records;
    mc.commit_interval_ms = setup_.commit_interval_ms >= 0 ? setup_.commit_interval_ms
                            : c.guarantee == ProcessingGuarantee::kExactlyOnceV2 ? 100
                                                                                 : 30000;
    return mc;
  }

  // What the legacy files of the state directory hold (SPEC U).
  struct LegacyFiles {
    std::optional<CheckpointOffsets> checkpoint;  // nullopt: missing or untrustworthy.
    std::map<std::string, Position> positions;    // Per store; trustworthy files only.
    std::vector<std::string> present;             // The files that exist.
  };
  // The store of a "<store>.position" file name.
  static std::string StoreOf(const std::string& position_file) {
    return position_file.substr(0, position_file.size() - (sizeof(kPositionFileSuffix) - 1));
  }
  rocksdb::Env* Env() const { return options_.env ? options_.env : rocksdb::Env::Default(); }
  std::string StatePath(const std::string& file) const {
    return options_.state_directory + "/" + file;
  }
  LegacyFiles ReadLegacyFiles() const {
    LegacyFiles out;
    std::vector<std::string> names = {kCheckpointFileName};
    for (const std::string& store : model::TaskModel::StoreNames()) {
      names.push_back(store + kPositionFileSuffix);
    }
    for (const std::string& name : names) {
      if (Env()->FileExists(StatePath(name)).ok()) out.present.push_back(name);
      std::vector<std::string> warnings;
      CheckpointOffsets entries;
      if (!ReadOffsetCheckpoint(Env(), StatePath(name), &entries, &warnings).ok() ||
          !warnings.empty()) {
        continue;
      }
      if (name == kCheckpointFileName) {
        if (!entries.empty()) out.checkpoint = std::move(entries);
        continue;
      }
      Position& position = out.positions[StoreOf(name)];
      for (const auto& [tp, offset] : entries) position[tp.topic] = offset;
    }
    return out;
  }

  // Damages a legacy file (creating it first if missing): its every damage makes it
  // untrustworthy (U5).
  CheckResult Damage(const std::string& file, const std::string& damage) {
    const std::string path = StatePath(file);
    std::string text;
    if (!Env()->FileExists(path).ok() || !rocksdb::ReadFileToString(Env(), path, &text).ok()) {
      text = file == kCheckpointFileName ? "0\n1\napp-kv-changelog-0_0 0 0\n" : "0\n1\ninput 0 0\n";
    }
    std::vector<std::string> lines;
    for (size_t at = 0; at < text.size();) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      lines.push_back(text.substr(at, nl - at));
      at = nl + 1;
    }
    while (lines.size() < 2) lines.push_back(lines.empty() ? "0" : "1");
    if (damage == "version") {
      lines[0] = "7";
    } else if (damage == "count") {
      lines[1] = "9999";
    } else if (damage == "malformed") {
      lines.insert(lines.begin() + 2, "not an entry");
    } else if (damage == "negative") {
      if (lines.size() < 3) lines.push_back("app-kv-changelog-0_0 0 0");
      lines[2] = lines[2].substr(0, lines[2].rfind(' ') + 1) + "-2";
    }
    std::string damaged;
    for (const std::string& line : lines) damaged += line + "\n";
    if (damage == "truncate") damaged = text.substr(0, text.size() / 2);
    if (damage == "empty") damaged.clear();
    const rocksdb::Status s =
        rocksdb::WriteStringToFile(Env(), damaged, path, /*should_sync=*/true);
    if (!s.ok()) return Finding("U5", "damaging " + path + ": " + s.ToString());
    model_->DamageLegacyFile(file == kCheckpointFileName ? "" : StoreOf(file));
    return std::nullopt;
  }

  // From the legacy format: a clean close, then a start in the current format with a fault
  // armed. A failure must be the injected one (F1); then the machine loses power and the task
  // starts in `op.format`: each store must be legacy with its files, or current with what they
  // said (U2).
  CheckResult FaultyUpgrade(const TaskOp& op) {
    if (options_.config.format != StateFormat::kLegacy) {
      return Finding("U2",
                     "faultyUpgrade: the task runs in the current format; the step needs "
                     "the legacy one");
    }
    Status s = task_->Close();
    if (!s.ok()) return Finding("C1", "Close: " + s.ToString());
    NoteClose();
    model_->Close(clock_->NowMs());
    task_.reset();
    log_.reset();
    shutdown_ = ShutdownFacts{};
    if (CheckResult why = OpenTheLog("U1")) return why;
    UseFormat(StateFormat::kCurrent);
    model_->SwitchConfig(ModelConfig());
    const LegacyFiles before = ReadLegacyFiles();
    if (CheckResult why = Arm(op)) return why;
    s = OpenTask(options_, NewProcessor(), &task_);
    const uint64_t fired = Disarm();
    if (s.ok()) {
      // The fault never fired where it could fail the upgrade: a plain upgrade, then (as the
      // step promised) on to `op.format`.
      previous_format_ = StateFormat::kLegacy;
      if (CheckResult why = CheckRestart(/*clean=*/true, before, /*interrupted=*/false)) {
        return why;
      }
      if (op.format == StateFormat::kCurrent) return std::nullopt;
      s = task_->Close();
      if (!s.ok()) return Finding("C1", "Close: " + s.ToString());
      NoteClose();
      model_->Close(clock_->NowMs());
      return Restart(/*clean=*/true, op.format);
    }
    if (!ExplainedByInjectedFault(s, fired)) {
      return Finding("F1", "the failed upgrade reported " + s.ToString());
    }
    step_.upgrade_failed = true;
    step_.upgrade_point = op.point;
    step_.error = op.error;
    task_.reset();
    model_->UpgradeInterrupted();
    if (fault_env_.fs) fault_env_.fs->SetActive(false);
    log_.reset();
    if (CheckResult why = PowerLoss(op.tear_seed)) return why;
    format_ = StateFormat::kLegacy;  // The last start that succeeded was legacy.
    return Restart(/*clean=*/false, op.format, &before);
  }

  // A crash: the process dies (and under power loss the machine too), then restarts.
  CheckResult Crash(uint64_t tear_seed, bool task_open = true) {
    if (fault_env_.fs) fault_env_.fs->SetActive(false);  // Nothing written after the crash.
    if (task_open) task_->Abandon();
    task_.reset();
    log_.reset();
    if (CheckResult why = PowerLoss(tear_seed)) return why;
    return Restart(/*clean=*/false);
  }

  // Every crash comes here. Under power loss: loses what was not durable, and notes what (F3)
  // and which log partitions it left with a torn tail (F4); then the file system is back up.
  CheckResult PowerLoss(uint64_t tear_seed) {
    CountCrash(/*power_loss=*/config_.power_loss);
    ++crashes_since_commit_;
    crash_processed_ = std::max(crash_processed_, model_->next_input_offset());
    shutdown_ = ShutdownFacts{};
    shutdown_.kind = config_.power_loss ? Shutdown::kPowerLoss : Shutdown::kCrash;
    if (!config_.power_loss) {
      if (fault_env_.fs) fault_env_.fs->SetActive(true);  // A process crash loses nothing.
      return std::nullopt;
    }
    const Status s = fault_env_.fs->SimulatePowerLoss({/*torn_writes=*/true, tear_seed});
    fault_env_.fs->SetActive(true);
    if (!s.ok()) return Finding("F3", "power loss: " + s.ToString());
    shutdown_.lost = fault_env_.fs->LastPowerLoss();
    LogSummary summary;
    const Status inspected = InspectLog(dir_ + "/log", options_.env, &summary);
    // Checks: F4 — after a power loss the log may be damaged only in its last write
    if (inspected.code() == Status::Code::kCorruption) {
      // Damage that is not a torn tail: a torn tail left in the middle of the log (F4).
      return Finding("F4", "after the power loss the log is damaged before valid records: " +
                               inspected.ToString());
    }
    for (const LogPartitionSummary& p : summary.partitions) {
      if (p.torn_tail_at) shutdown_.torn_partitions.push_back(p.name);
    }
    return std::nullopt;
  }

  // The rule of a start that fails: after a crash, F2 (F3 after a power loss; F4 for a log
  // damaged by a torn tail); after a clean close `clean_rule`.
  std::string StartRule(const Status& s, const std::string& clean_rule) const {
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
    }
    return "F2";
  }

  // Opens (recovering) the log for the task to use; held or the finding (`clean_rule` after a
  // clean close, see StartRule).
  LogOptions LogOptionsFor() const {
    LogOptions lo;
    lo.directory = dir_ + "/log";
    lo.env = options_.env;
    lo.logger = NullLogger();
    return lo;
  }
  CheckResult OpenTheLog(const std::string& clean_rule) {
    const Status s = OpenLog(LogOptionsFor(), &log_);
    if (!s.ok()) {
      // Damage in a log that tore a tail (now or earlier in the case): the tail was not dropped
      // as F4 says (the next append landed after it).
      // Checks: F4 — a log with a torn tail must open with the tail dropped
      const bool torn = torn_tail_recovered_ || !shutdown_.torn_partitions.empty();
      const std::string rule =
          s.code() == Status::Code::kCorruption && torn ? "F4" : StartRule(s, clean_rule);
      return Finding(rule, "opening the log: " + s.ToString());
    }
    options_.log = log_.get();
    return std::nullopt;
  }

  // T7 under READ_COMMITTED: each store on disk, before anything restores it, holds exactly the
  // changelog's records up to the offset stored with them (what committed readers of the
  // changelog see under exactly_once_v2; every durable record under at_least_once). Under
  // exactly_once_v2 the stored offset must also be that of a committed record: stores committed
  // with the offsets of a transaction that never committed break C1's order.
  CheckResult CheckStoresOnDisk() {
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
      model::StoreState on_disk, prefix;
      CheckResult why = ReadAll(store.get(), /*view=*/false, &on_disk, "T7");
      store->Close();
      if (why) return why;
      bool stored_is_committed = !stored;
      if (stored) {
        std::vector<LogRecord> records;
        s = log_->Read(changelog, 0, static_cast<int>(*stored + 1),
                       eos_ ? IsolationLevel::kReadCommitted : IsolationLevel::kReadUncommitted,
                       &records);
        if (!s.ok()) {
          return Finding("T7", "store " + name + " stores changelog offset " +
                                   std::to_string(*stored) +
                                   " but the changelog cannot be read there: " + s.ToString());
        }
        for (const LogRecord& r : records) {
          if (r.offset > *stored) break;
          stored_is_committed = stored_is_committed || r.offset == *stored;
          r.value ? void(prefix[r.key] = *r.value) : void(prefix.erase(r.key));
        }
      }
      // Checks: C1 — under EOS a store commits after its changelog transaction
      if (eos_ && !stored_is_committed) {
        return Finding("C1", "after the crash store " + name + " stores changelog offset " +
                                 std::to_string(*stored) +
                                 ", a record of no committed transaction: the store committed "
                                 "before its changelog transaction did");
      }
      // Checks: T7 — after a crash a store is the changelog prefix up to its stored offset
      if (on_disk != prefix) {
        return Finding("T7", "after the crash store " + name + " holds " + Show(on_disk) +
                                 ", but the changelog up to its stored offset " +
                                 (stored ? std::to_string(*stored) : std::string("(none)")) +
                                 " gives " + Show(prefix));
      }
    }
    return std::nullopt;
  }

  // Drops the task and the log (both already closed or abandoned), opens them again — the task
  // in `format` if given (an upgrade or a downgrade) — and checks the restart against the
  // model. After a crash it first checks each store as the crash left it on disk (T7).
  // `upgrade_files`: the legacy files before an upgrade that failed (U2).
  CheckResult Restart(bool clean, std::optional<StateFormat> format = std::nullopt,
                      const LegacyFiles* upgrade_files = nullptr) {
    task_.reset();
    log_.reset();
    if (clean) shutdown_ = ShutdownFacts{};
    if (CheckResult why = OpenTheLog("C2")) return why;
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

  // The checks after a restart: C2, T7, U1–U5, then the model's (C1, C3, C4, T9, T10, U*),
  // and the situations the restart reached.
  CheckResult CheckRestart(bool clean, const LegacyFiles& before, bool interrupted_upgrade) {
    const bool legacy = options_.config.format == StateFormat::kLegacy;
    model::RestartObservation o;
    if (CheckResult why = ReadCommitted(&o.committed_input, &o.committed_output)) return why;
    // The rule for durable data a restart finds missing: F3 after a power loss, else C1.
    // Checks: F3 — input or changelog records a sync made durable are still there
    const std::string lost_rule = shutdown_.kind == Shutdown::kPowerLoss ? "F3" : "C1";
    {
      int64_t input = 0;
      if (CheckResult why = CountRecords(kInput, 0, int64_t{1} << 40, false, &input)) return why;
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
        return Finding("C2", "store " + r.store + " restored up to " +
                                 std::to_string(r.end_offset) + ", the changelog ends at " +
                                 std::to_string(end));
      }
      int64_t records = 0, all_records = 0;
      if (CheckResult why = CountRecords(r.changelog, r.start_offset, end, eos_, &records)) {
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
        const Position position =
            before.positions.count(r.store) ? before.positions.at(r.store) : Position{};
        if (task_->Store(r.store)->CommittedPosition() != position) {
          return Finding(rule, "store " + r.store + " has committed position " +
                                   ShowPosition(task_->Store(r.store)->CommittedPosition()) +
                                   ", where " + r.store + ".position said " +
                                   ShowPosition(position));
        }
        if (!legacy) {
          ReachedIf(expected.has_value() && r.found_format == StateFormat::kLegacy,
                    "U1.imports_checkpoint");
          ReachedIf(!position.empty(), "U1.imports_position");
        }
      }
      o.found_format[r.store] = r.found_format;
      // T7: the open-status marker tells a crash from a clean close (current-format stores;
      // a legacy one's .checkpoint tells it).
      if (r.found_format == StateFormat::kCurrent && !legacy && r.was_closed_cleanly != clean) {
        return Finding("T7", "store " + r.store + " reports " +
                                 (r.was_closed_cleanly ? "a clean" : "an unclean") +
                                 " shutdown after a " + (clean ? "clean close" : "crash"));
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
                               std::to_string(model_->committed_input_offset()) + " (" +
                               ShowLost() + ")");
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

  std::string ShowLost() const {
    const faults::PowerLossStats& l = shutdown_.lost;
    return "the power loss dropped " + std::to_string(l.bytes_dropped) + " unsynced bytes of " +
           std::to_string(l.files_truncated) + " files, removed " +
           std::to_string(l.files_deleted) + " files, reverted " +
           std::to_string(l.renames_reverted) + " renames and " +
           std::to_string(l.deletes_restored) + " deletes";
  }

  // The situations a restart that held reached (the step's later checks confirm them).
  void NoteRestart(bool clean, const model::RestartObservation& o, const LegacyFiles& before,
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
      ReachedIf(v.wiped && v.restored > 0, "C2.restore_after_wipe");
      ReachedIf(!v.wiped && v.found && v.restored > 0, "C2.restore_from_stored_offset");
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
      }
    }
    ReachedIf(clean && restored_nothing && !model_->last_restart().empty(),
              "C2.clean_restart_restores_nothing");
    ReachedIf(skipped_aborted, "C2.skips_aborted");
    // C1, C3, C4: what the crash left to recover.
    if (crashed && uncommitted_work) Reached("C1.restart_resumes_at_commit");
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
      if (p == kFailTaskUpgradeBeforeDelete) {
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

  static std::string ShowPosition(const Position& p) {
    Json j = Json::object();
    for (const auto& [k, v] : p) j[k] = v;
    return j.dump();
  }

  std::unique_ptr<Processor> NewProcessor() const {
    return config_.processor ? config_.processor() : NewKeyValueProcessor();
  }

  // The checks after every step: the commit triggers first (C5; T11 and T6 for the bytes
  // trigger), then what the commits made visible (C1, C3, C4), the stores (T3, T4, T5) and the
  // uncommitted bytes (T6).
  CheckResult CheckLive(const TaskOp& op) {
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

  // The situations of a step whose live checks held (C1, C3, C5, T11).
  void NoteLive(const TaskOp& op, int64_t bytes) {
    const ModelSnapshot& b = before_;
    const bool restarted = restarts_ != b.restarts;
    const bool rc = options_.config.isolation == IsolationLevel::kReadCommitted;
    const bool committed = model_->committed_input_offset() > b.committed_input && !restarted;
    if (committed) {
      ReachedIf(model_->committed_output().size() > b.committed_output, "C1.commit_with_output");
      if (eos_ && b.committed_input < crash_processed_) Reached("C3.reprocessed_once");
      crashes_since_commit_ = 0;
    }
    ReachedIf(eos_ && model_->pending_output() > 0, "C1.eos_open_txn_invisible");
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
      ReachedIf(op.type == TaskOpType::kCommit && b.uncommitted_bytes > 0 && bytes == 0,
                "T11.commit_empties_buffer");
    } else {
      ReachedIf(
          processed && bytes == 0 && model_->next_input_offset() > model_->committed_input_offset(),
          "T11.direct_writes_unbuffered");
    }
  }

  CheckResult ReadCommitted(int64_t* input, std::vector<model::OutputRecord>* output) {
    CommittedOffsets c;
    Status s = log_->GetCommittedOffsets(task_->OffsetsGroup(), &c);
    *input = 0;
    if (s.ok()) {
      *input = c.offsets.count(kInput) ? c.offsets.at(kInput) : 0;
    } else if (s.code() != Status::Code::kNotFound) {
      return Finding("C1", "reading committed offsets: " + s.ToString());
    }
    std::vector<LogRecord> records;
    s = log_->Read(kOutput, 0, 1 << 30, IsolationLevel::kReadCommitted, &records);
    if (!s.ok()) return Finding("C1", "reading the output: " + s.ToString());
    output->clear();
    for (LogRecord& r : records) output->push_back({std::move(r.key), std::move(r.value)});
    return std::nullopt;
  }

  // Data records of `partition` in [from, end), as committed readers (`committed`) or every
  // reader sees them.
  CheckResult CountRecords(const std::string& partition, int64_t from, int64_t end, bool committed,
                           int64_t* count) {
    *count = 0;
    if (from >= end) return std::nullopt;
    std::vector<LogRecord> records;
    const Status s = log_->Read(
        partition, from, 1 << 30,
        committed ? IsolationLevel::kReadCommitted : IsolationLevel::kReadUncommitted, &records);
    if (!s.ok()) return Finding("C2", "reading " + partition + ": " + s.ToString());
    for (const LogRecord& r : records) *count += r.offset < end;
    return std::nullopt;
  }

  // The store as its writer (`view` false) or an IQ reader sees it; held, or a finding of
  // `rule` when the read fails.
  static CheckResult ReadAll(KeyValueStore* store, bool view, model::StoreState* out,
                             const std::string& rule) {
    const Status s =
        view ? ReadStoreState(*store->NewQueryView(), out) : ReadStoreState(*store, out);
    if (s.ok()) return std::nullopt;
    return Finding(rule, "reading store " + store->name() + ": " + s.ToString());
  }

  static std::string Show(const model::StoreState& s) {
    Json j = Json::object();
    for (const auto& [k, v] : s) j[EscapeBytes(k)] = EscapeBytes(v);
    return j.dump();
  }

  const std::string dir_;
  const TaskConfig config_;
  const TaskSetup setup_;
  int64_t* operations_;
  int steps_ = 0;
  bool eos_ = false;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  faults::FaultEnv fault_env_;                  // Unless real_disk (never with power loss).
  std::map<StateFormat, StateConfig> configs_;  // The configuration in each format.
  std::map<StateFormat, model::T1Row> rows_;    // T1's row in each format (the model's).
  StateFormat format_ = StateFormat::kCurrent;  // The format the task runs in.
  StateFormat previous_format_ = StateFormat::kCurrent;  // The one before the last start.
  std::string unused_;
  TaskOptions options_;
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
  std::unique_ptr<model::TaskModel> model_;
  // For the situations (evidence.h).
  ModelSnapshot before_;              // The model before the current step.
  StepFacts step_;                    // What the current step did.
  ShutdownFacts shutdown_;            // How the task last went down.
  int restarts_ = 0;                  // Restarts checked.
  int crashes_since_commit_ = 0;      // Crashes since the last commit.
  int64_t crash_processed_ = 0;       // The furthest input offset processed before a crash.
  bool torn_tail_recovered_ = false;  // A torn log tail was dropped earlier in the case (F4) ...
  bool appended_after_torn_tail_ = false;  // ... and input appended since.
  std::vector<StateFormat> switches_;      // The formats each switch went to.
};

struct GenState {
  bool power_loss = false;
  bool format_switches = false;
  bool legacy = false;  // The format the task runs in now.
  bool crashes = true;  // TaskConfig::crashes: crash and power-loss steps are generated.
};
using Command = rc::state::Command<GenState, TaskSut>;

class TaskCommand final : public Command {
 public:
  explicit TaskCommand(TaskOp op) : op_(std::move(op)) {}
  void checkPreconditions(const GenState& state) const override {
    RC_PRE(op_.type != TaskOpType::kFaultyUpgrade || state.legacy);
  }
  void apply(GenState& state) const override {
    if (op_.type == TaskOpType::kRestartAs || op_.type == TaskOpType::kDamageFile ||
        op_.type == TaskOpType::kFaultyUpgrade) {
      state.legacy = op_.format == StateFormat::kLegacy;
    }
  }
  void run(const GenState&, TaskSut& sut) const override {
    if (CheckResult why = sut.Step(op_)) Fail(std::move(*why));
  }
  void show(std::ostream& os) const override { os << TaskOpToString(op_); }

 private:
  TaskOp op_;
};

rc::Gen<TaskOp> GenTaskOp(const GenState& state) {
  return rc::gen::exec([state] {
    const bool power_loss = state.power_loss;
    const int formats = state.format_switches ? 1 : 0;
    const int crashes = state.crashes ? 1 : 0;
    TaskOp op;
    op.type = PickWeighted<TaskOpType>(
        {{4, TaskOpType::kAppend},
         {5, TaskOpType::kProcess},
         {2, TaskOpType::kAdvanceClock},  // C5's time interval.
         {2, TaskOpType::kCommit},
         {2 * crashes, TaskOpType::kCrash},
         {2, TaskOpType::kRestart},
         {power_loss ? 3 * crashes : 0, TaskOpType::kFaultyCommit},
         {power_loss ? crashes : 0, TaskOpType::kFaultyRestore},
         {3 * formats, TaskOpType::kRestartAs},
         // A damaged file matters most beside legacy stores (U5).
         {(state.legacy ? 3 : 1) * formats, TaskOpType::kDamageFile},
         {state.legacy ? 4 * formats * crashes : 0, TaskOpType::kFaultyUpgrade}});
    switch (op.type) {
      case TaskOpType::kAppend: {
        const int n = *UniformInRange<int>(1, 4);
        for (int i = 0; i < n; ++i) {
          std::string key = *rc::gen::elementOf(std::vector<std::string>{"a", "b", "ab", "c"});
          std::optional<std::string> value;
          if (*UniformInRange<int>(0, 5) > 0) {
            value = *rc::gen::elementOf(std::vector<std::string>{"1", "22", "x"});
          }
          op.records.emplace_back(std::move(key), std::move(value));
        }
        break;
      }
      case TaskOpType::kProcess:
        op.n = *UniformInRange<int64_t>(1, 8);
        break;
      case TaskOpType::kAdvanceClock:
        op.n = *rc::gen::elementOf(std::vector<int64_t>{1, 60, 200});
        break;
      case TaskOpType::kFaultyCommit: {
        std::vector<std::string> points = {"fsync",
                                           "fsync",
                                           "fsync",
                                           "statecheck/fs/append/*",
                                           "statecheck/fs/open/*",
                                           "statecheck/fs/read/*",
                                           "statecheck/fs/rename/*",
                                           "statecheck/fs/delete/*",
                                           "statecheck/fs/truncate/*"};
        for (const EngineFailPoint& p : EngineFailPoints()) {
          if (p.name != kFailTaskRestoreBatch && p.name != kFailTaskUpgradeBeforeDelete) {
            points.emplace_back(p.name);
          }
        }
        op.point = *rc::gen::elementOf(points);
        // A commit makes up to about a dozen fsyncs (log partitions, the commit decision, each
        // store's flush); a larger n lets the commit succeed.
        op.n = op.point.rfind("statecheck/fs/", 0) == 0 || op.point == "fsync"
                   ? *UniformInRange<int64_t>(1, 16)
                   : 1;
        op.k = *UniformInRange<int64_t>(0, 5);
        op.error = *rc::gen::elementOf(std::vector<faults::FaultSpec::Error>{
            faults::FaultSpec::Error::kIO, faults::FaultSpec::Error::kNoSpace,
            faults::FaultSpec::Error::kShortWrite});
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      }
      case TaskOpType::kFaultyRestore:
        // Where a start can fail: the restore's own point, or any file operation of the log's
        // and the stores' recovery.
        op.point = *rc::gen::elementOf(std::vector<std::string>{
            std::string(kFailTaskRestoreBatch), std::string(kFailTaskRestoreBatch), "fsync",
            "statecheck/fs/open/*", "statecheck/fs/read/*", "statecheck/fs/append/*",
            "statecheck/fs/delete/*", "statecheck/fs/truncate/*"});
        op.n = op.point == kFailTaskRestoreBatch ? 1 : *UniformInRange<int64_t>(1, 12);
        op.error = *rc::gen::elementOf(std::vector<faults::FaultSpec::Error>{
            faults::FaultSpec::Error::kIO, faults::FaultSpec::Error::kNoSpace});
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      case TaskOpType::kRestartAs:
      case TaskOpType::kDamageFile:
        // Without crashes every switch starts after a clean close.
        op.clean = state.crashes ? *rc::gen::arbitrary<bool>() : true;
        op.format = *rc::gen::element(StateFormat::kLegacy, StateFormat::kCurrent);
        if (op.type == TaskOpType::kDamageFile) {
          op.file = *rc::gen::elementOf(
              std::vector<std::string>(std::begin(kLegacyFiles), std::end(kLegacyFiles)));
          // A negative offset (skipped with a warning, SPEC U) is the subtlest damage: thrice.
          std::vector<std::string> damages(std::begin(kDamages), std::end(kDamages));
          damages.insert(damages.end(), {"negative", "negative"});
          op.damage = *rc::gen::elementOf(damages);
        }
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      case TaskOpType::kFaultyUpgrade:
        // Where an upgrade can fail: between its imports and the deletion of the files, any
        // operation on the legacy files, or the n-th fsync (the imports' flushes).
        // Each step an upgrade can crash at as often as the others (U2): reading the files,
        // importing them (fsyncs, the stores' files), before deleting them, deleting them.
        op.point = *rc::gen::elementOf(std::vector<std::string>{
            std::string(kFailTaskUpgradeBeforeDelete), std::string(kFailTaskUpgradeBeforeDelete),
            "fsync", "statecheck/fs/open/*", "statecheck/fs/append/*",
            "statecheck/fs/delete/checkpoint", "statecheck/fs/delete/checkpoint",
            "statecheck/fs/delete/checkpoint", "statecheck/fs/read/checkpoint",
            "statecheck/fs/read/checkpoint", "statecheck/fs/read/checkpoint"});
        // The legacy files are three (.checkpoint and two .position files): their points fail at
        // one of their first three reaches, or they would seldom fail at all.
        op.n = op.point == kFailTaskUpgradeBeforeDelete ? 1
               : op.point.find("/checkpoint") != std::string::npos
                   ? *UniformInRange<int64_t>(1, 3)
                   : *UniformInRange<int64_t>(1, 12);
        op.format = *rc::gen::element(StateFormat::kLegacy, StateFormat::kCurrent);
        op.error = *rc::gen::elementOf(std::vector<faults::FaultSpec::Error>{
            faults::FaultSpec::Error::kIO, faults::FaultSpec::Error::kNoSpace});
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      case TaskOpType::kCrash:
        if (power_loss) op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      default:
        break;
    }
    return op;
  });
}

}  // namespace

Status ReadStoreState(ReadOnlyKeyValueStore& reader, model::StoreState* out) {
  out->clear();
  std::unique_ptr<KeyValueIterator> it;
  STATECHECK_RETURN_IF_ERROR(reader.All(&it));
  KeyValue kv;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
    (*out)[kv.key] = kv.value;
  }
  return Status::Ok();
}

std::vector<TaskConfig> TaskT1Rows() {
  auto row = [](std::string label, std::map<std::string, std::string> props, bool use_wal) {
    TaskConfig c;
    c.label = std::move(label);
    c.streams_config = std::move(props);
    c.use_wal = use_wal;
    return c;
  };
  return {
      row("alos_unset", {}, false),
      row("alos_ru", {{"default.state.isolation.level", "READ_UNCOMMITTED"}}, true),
      row("alos_rc", {{"default.state.isolation.level", "READ_COMMITTED"}}, false),
      row("eos_unset", {{"processing.guarantee", "exactly_once_v2"}}, false),
      row("eos_ru",
          {{"processing.guarantee", "exactly_once_v2"},
           {"default.state.isolation.level", "READ_UNCOMMITTED"}},
          false),
      row("eos_rc",
          {{"processing.guarantee", "exactly_once_v2"},
           {"default.state.isolation.level", "READ_COMMITTED"}},
          true),
  };
}

std::vector<TaskConfig> TaskOptionMatrix() {
  std::vector<TaskConfig> out = TaskT1Rows();
  for (TaskConfig row : TaskT1Rows()) {
    row.label += "_powerloss";
    row.power_loss = true;
    out.push_back(std::move(row));
  }
  for (TaskConfig row : TaskT1Rows()) {
    row.label += "_formats";
    row.power_loss = true;
    row.format_switches = true;
    out.push_back(std::move(row));
  }
  // Interleaved — the kinds (formats, power loss, process crashes), the guarantees and the
  // isolation levels taking turns — so that a short campaign, which runs the configurations in
  // this order and may end before the last ones, reaches every kind of situation early.
  constexpr const char* kOrder[] = {"eos_ru_formats",     "alos_unset_powerloss", "eos_rc",
                                    "alos_rc_formats",    "eos_ru_powerloss",     "alos_unset",
                                    "eos_unset_formats",  "alos_rc_powerloss",    "eos_ru",
                                    "alos_unset_formats", "eos_rc_powerloss",     "alos_rc",
                                    "eos_rc_formats",     "alos_ru_powerloss",    "eos_unset",
                                    "alos_ru_formats",    "eos_unset_powerloss",  "alos_ru"};
  std::vector<TaskConfig> ordered;
  for (const char* label : kOrder) {
    for (TaskConfig& c : out) {
      if (c.label == label) ordered.push_back(std::move(c));
    }
  }
  return ordered;
}

namespace {

// T1: the engine's row against the table's, in each format the configuration runs in. Held, or
// the T1 finding.
CheckResult CheckT1Rows(const TaskConfig& config) {
  std::vector<std::map<std::string, std::string>> variants = {config.streams_config};
  if (config.format_switches) {
    for (StateFormat f : {StateFormat::kLegacy, StateFormat::kCurrent}) {
      variants.push_back(config.streams_config);
      variants.back()[std::string(kStateFormatConfig)] = StateFormatName(f);
    }
  }
  for (const auto& props : variants) {
    StateConfig resolved;
    if (const Status s = ResolveStateConfig(props, &resolved); !s.ok()) {
      return Finding("T1", "configuration: " + s.ToString());
    }
    model::T1Row row;
    std::string problem;
    if (!model::ExpectedT1Row(props, &row, &problem)) {
      return Finding("T1", "configuration: T1 has no row for " + problem);
    }
    // Checks: T1 — each format's resolved configuration against T1's table row
    if (CheckResult diff = model::CompareT1Row(props, resolved, row)) return diff;
  }
  return std::nullopt;
}

}  // namespace

PropertyOutcome CheckTaskMatchesModel(const TaskConfig& config, const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "task/MatchesModel/" + config.label;
  StateConfig resolved;
  const Status r = ResolveStateConfig(config.streams_config, &resolved);
  if (!r.ok()) {
    out.message = Finding("T1", "configuration: " + r.ToString()).ToString();
    out.rule = "T1";
    return out;
  }
  if (const CheckResult diff = CheckT1Rows(config)) {
    out.message = diff->ToString();
    out.rule = diff->rule;
    return out;
  }
  auto property = [&] {
    const CaseScope scope;
    const TaskSetup setup = *rc::gen::exec([] {
      TaskSetup s;
      // Intervals of 0 and 5 records twice as often as 1 and 2, and two small bounds (a record
      // writes about 5 bytes), the smallest twice: a short campaign must see the bounds force
      // commits (T11, C5), which intervals of 1 or 2 records pre-empt.
      s.commit_interval_records = *rc::gen::elementOf(std::vector<int64_t>{0, 1, 2, 5, 0, 5});
      s.commit_interval_ms = *rc::gen::elementOf(std::vector<int64_t>{-1, 50});
      s.uncommitted_max_bytes =
          *rc::gen::elementOf(std::vector<int64_t>{kDefaultUncommittedMaxBytes, -1, 12, 6, 6});
      return s;
    });
    const std::string dir = ScratchDirectory("task");
    std::filesystem::remove_all(dir);
    TaskSut sut(dir, config, resolved, setup, &out.operations);
    if (CheckResult why = sut.Start()) Fail(std::move(*why));
    const GenState initial{config.power_loss, config.format_switches, config.format_switches,
                           config.crashes};
    rc::state::check(initial, sut, [](const GenState& state) {
      return rc::gen::map(GenTaskOp(state), [](TaskOp op) {
        return std::shared_ptr<const Command>(std::make_shared<TaskCommand>(std::move(op)));
      });
    });
  };
  RunProperty(property, params, &out);
  SaveTaskTrace(config, params, &out);
  return out;
}

void SaveTaskTrace(const TaskConfig& config, const PropertyParams& params, PropertyOutcome* out) {
  if (out->passed || params.trace_dir.empty() || out->counterexample.empty()) return;
  // The counterexample: the setup's JSON, then one operation's JSON per line.
  std::string text;
  for (size_t i = 0; i < out->counterexample.size(); ++i) {
    Json line = Json::parse(out->counterexample[i], nullptr, /*allow_exceptions=*/false);
    if (line.is_discarded()) return;  // Not a counterexample of this property.
    if (i == 0) {
      Json header{{"statecheck_trace", 1},       {"kind", "task"},
                  {"config", config.label},      {"setup", line},
                  {"property", out->property},   {"seed", params.seed},
                  {"reproduce", out->reproduce}, {"failure", out->message}};
      text += header.dump() + "\n";
    } else {
      text += line.dump() + "\n";
    }
  }
  SaveTraceText(text, params, out);
}

Status ReadTaskTrace(const std::string& path, TaskTrace* trace) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::InvalidArgument("cannot open trace file " + path);
  std::stringstream text;
  text << file.rdbuf();
  return ParseTaskTrace(text.str(), path, trace);
}

Status ReplayTaskTrace(const TaskTrace& trace, TaskReplayOutcome* out,
                       std::function<std::unique_ptr<Processor>()> processor) {
  *out = TaskReplayOutcome();
  const TaskConfig* config = nullptr;
  const std::vector<TaskConfig> matrix = TaskOptionMatrix();
  std::string labels;
  for (const TaskConfig& c : matrix) {
    labels += (labels.empty() ? "" : ", ") + c.label;
    if (c.label == trace.config) config = &c;
  }
  if (!config) {
    return Status::InvalidArgument("unknown task configuration \"" + trace.config + "\" (one of " +
                                   labels + ")");
  }
  TaskSetup setup;
  STATECHECK_RETURN_IF_ERROR(SetupFromJson(trace.setup, &setup));
  StateConfig resolved;
  STATECHECK_RETURN_IF_ERROR(ResolveStateConfig(config->streams_config, &resolved));
  int64_t operations = 0;
  const std::string dir = ScratchDirectory("task-replay");
  std::filesystem::remove_all(dir);
  faults::FailPoints::Reset();
  TaskConfig chosen = *config;
  if (processor) chosen.processor = std::move(processor);
  TaskSut sut(dir, chosen, resolved, setup, &operations);
  if (CheckResult why = sut.Start()) {
    out->diverged = true;
    out->rule = why->rule;
    out->message = why->ToString();
    return Status::Ok();
  }
  for (const auto& [line, json] : trace.steps) {
    TaskOp op;
    STATECHECK_RETURN_IF_ERROR(TaskOpFromJson(json, &op));
    if (CheckResult why = sut.Step(op)) {
      out->diverged = true;
      out->step = out->steps_run + 1;
      out->line = line;
      out->op = TaskOpToString(op);
      out->rule = why->rule;
      out->message = why->ToString();
      return Status::Ok();
    }
    ++out->steps_run;
  }
  return Status::Ok();
}

const std::vector<std::string>& FaultSweepConfigs() {
  static const std::vector<std::string> configs = {"alos_ru_powerloss", "eos_rc_powerloss",
                                                   "eos_ru_powerloss", "alos_unset_formats",
                                                   "eos_unset_formats"};
  return configs;
}

FaultSweepOutcome RunFaultSweep(const std::vector<std::string>& points,
                                const std::vector<std::string>& configs) {
  FaultSweepOutcome out;
  auto records = [](std::vector<std::pair<std::string, Json>> kvs) {
    Json a = Json::array();
    for (auto& [k, v] : kvs) a.push_back(Json::array({k, v}));
    return a;
  };
  for (const std::string& config : configs.empty() ? FaultSweepConfigs() : configs) {
    const bool formats = config.ends_with("_formats");
    for (const std::string& point : points) {
      TaskTrace trace;
      trace.config = config;
      trace.setup = Json{{"commit_interval_records", 0},
                         {"commit_interval_ms", -1},
                         {"uncommitted_max_bytes", -1}};
      auto step = [&](Json j) {
        trace.steps.push_back({static_cast<int>(trace.steps.size()) + 2, std::move(j)});
      };
      auto fault = [&](const char* op) {
        return Json{{"op", op}, {"point", point}, {"n", 1}, {"error", "EIO"}, {"tear_seed", 0}};
      };
      step({{"op", "append"},
            {"records", records({{"a", "1"}, {"b", "2"}, {"a", nullptr}, {"c", "3"}})}});
      step({{"op", "process"}, {"max_records", 2}});
      step({{"op", "commit"}});
      Json commit = fault("faultyCommit");
      commit["process"] = 2;
      step(commit);
      step({{"op", "append"}, {"records", records({{"d", "4"}})}});
      step({{"op", "process"}, {"max_records", 1}});
      step(fault("faultyRestore"));
      if (formats) {  // Started legacy: an upgrade, then a downgrade, a start in legacy.
        Json upgrade = fault("faultyUpgrade");
        upgrade["format"] = "current";
        step(upgrade);
        step({{"op", "process"}, {"max_records", 1}});
        step({{"op", "restartAs"}, {"clean", false}, {"format", "legacy"}, {"tear_seed", 0}});
        step(fault("faultyRestore"));
      }
      ++out.runs;
      TaskReplayOutcome replay;
      const Status s = ReplayTaskTrace(trace, &replay);
      if (!s.ok()) {
        out.failures.push_back(config + ", " + point + ": " + s.ToString());
      } else if (replay.diverged) {
        out.failures.push_back(config + ", " + point + ": step " + std::to_string(replay.step) +
                               " " + replay.op + ": " + replay.message);
      }
    }
  }
  return out;
}

}  // namespace statecheck::properties
