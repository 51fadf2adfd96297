// The task family's system under test: one case's engine side (a log and a task on the fault
// file system) and model side (model::TaskModel), driven a step at a time, with the checks that
// compare them (checks.cc) and the fault steps (faults.cc).
// Internal to the task property (property.cc declares it to the state-machine kit; generator.cc
// generates its steps).
#ifndef STATECHECK_PROPERTIES_TASK_SUT_H_
#define STATECHECK_PROPERTIES_TASK_SUT_H_

#include <rocksdb/env.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faults/fault_fs.h"
#include "model/state_config_model.h"
#include "model/task_model.h"
#include "properties/evidence.h"
#include "properties/kit/family.h"
#include "properties/recording_logger.h"
#include "properties/task/property.h"
#include "statecheck/log.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/task.h"

namespace statecheck::properties::task {

// The task's input and output partitions in every case.
inline constexpr char kTaskInput[] = "input";
inline constexpr char kTaskOutput[] = "output";

// The engine side and the model side of one case.
class Sut {
 public:
  // `config`'s task, with its setup, in `dir`.
  Sut(std::string dir, const Config& config, const StateConfig& resolved);

  ~Sut();

  // Opens the log and the task (a first start: C2); held or the finding, which Started() then
  // reports (the kit fails the case with it before any step).
  CheckResult Start() {
    started_ = Open();
    return started_;
  }
  std::optional<Finding> Started() const { return started_; }

  // Runs `op` on both sides and checks them; held or the finding, its message naming the case's
  // setup. When every check of the step held, the situations it reached count (evidence.h). A
  // task step records no expectation: a trace replays through the same checks.
  kit::StepResult Step(const Op& op, const std::optional<Json>& expect);

 private:
  // Start's work.
  CheckResult Open();

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
  ModelSnapshot Snapshot() const;
  // How the task last went down.
  // kRevived: the process lived on after an error (F8): the failed task was abandoned and opened
  // again in the same process, nothing lost.
  enum class Shutdown { kClean, kCrash, kPowerLoss, kRevived };
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
    std::string commit_point;           // The failed commit's fault point.
    faults::FaultSpec::Error error = faults::FaultSpec::Error::kIO;  // The failed commit's.
    bool start_failed = false;    // A faulty restore failed the start.
    bool upgrade_failed = false;  // A faulty upgrade failed the upgrade ...
    std::string upgrade_point;    // ... at this point.
    std::string damaged_file;     // damageFile: the file and how.
    std::string damage;
    bool full_disk = false;         // The failed commit met a full disk (F7).
    std::string log_damage;         // damageLog: how (F6) ...
    bool log_damage_found = false;  // ... and the start that met it said Corruption.
    // damageStore: where the damage was found — "start" (the start failed; "start (manifest)"
    // for a MANIFEST), "read" (a read of a started store failed) — or "" (nothing read it, or it
    // changed nothing that is read).
    std::string store_damage_found;
    bool legacy_damage = false;    // damageStore made a legacy file unreadable (F6, U5).
    int reads_failed = 0;          // faultyRead: reads that failed with the injected error (F8).
    bool revived = false;          // The process went on after the failure (F8) ...
    bool log_reopened = false;     // ... reopening the log, which said it must be ...
    bool full_disk_start = false;  // ... trying a start while the disk was still full,
    bool full_disk_start_failed = false;  // which failed with ENOSPC (F7).
  };

  CheckResult Apply(const Op& op);

  // A clean close (Task::Close) and the model's: its commit of what was processed since the last
  // one (C5). Held, or a finding of `rule` when Close fails.
  CheckResult CloseCleanly(const std::string& rule);

  // Arms the fault of a faulty step: `op.point` ("fsync": every fsync and directory fsync) fails
  // its `op.n`-th time with `op.error`; kFullDisk fills the disk, `op.n` bytes left (F7). Held,
  // or an F1 finding (the harness could not inject).
  CheckResult Arm(const Op& op);
  // F1: whether `s`, from a call during which `fired` faults fired, is the injected error.
  // RocksDB's DB::Open opens CURRENT a second time when the first open fails, and when the second
  // succeeds reports "Direct I/O is not supported by the specified DB." (RocksDB 7.8,
  // DBImpl::Recover): an injected open fault of CURRENT surfaces under that message.
  static bool ExplainedByInjectedFault(const Status& s, uint64_t fired);
  // Disarms every fault (a full disk gets its space back unless `keep_disk_full`); returns how
  // many fired (writes a full disk refused included).
  uint64_t Disarm(bool keep_disk_full = false);

  // The options and the model's configuration in `format`.
  void UseFormat(StateFormat format);
  model::TaskModelConfig ModelConfig() const;

  // What the legacy files of the state directory hold (SPEC U).
  struct LegacyFiles {
    std::optional<CheckpointOffsets> checkpoint;  // nullopt: missing or untrustworthy.
    std::map<std::string, Position> positions;    // Per store; trustworthy files only.
    std::vector<std::string> present;             // The files that exist.
  };
  // The store of a "<store>.position" file name.
  static std::string StoreOf(const std::string& position_file);
  rocksdb::Env* Env() const { return options_.env ? options_.env : rocksdb::Env::Default(); }
  std::string StatePath(const std::string& file) const;
  LegacyFiles ReadLegacyFiles() const;
  // The legacy files' names in the state directory: .checkpoint, then each store's .position.
  static std::vector<std::string> LegacyFileNames();

  // Damages a legacy file (creating it first if missing): its every damage makes it
  // untrustworthy (U5).
  CheckResult Damage(const std::string& file, const std::string& damage);

  // From the legacy format: a clean close, then a start in the current format with a fault
  // armed. A failure must be the injected one (F1); then the machine loses power and the task
  // starts in `op.format`: each store must be legacy with its files, or current with what they
  // said (U2).
  CheckResult FaultyUpgrade(const Op& op);

  // A crash: the process dies (and under power loss the machine too), then restarts.
  CheckResult Crash(uint64_t tear_seed, bool task_open = true);

  // F8, after a failed commit: the process goes on. The failed task must refuse Process, Commit
  // and Close and write nothing (C6, F8); it is abandoned and opened again in the same process,
  // on the same log unless Log::CheckWritable says it must be reopened (task.h, "Keeping going").
  // When a full disk failed the commit, the disk is still full at the first start (F7): it must
  // start or fail with ENOSPC, said clearly; then space returns and the task starts again.
  CheckResult KeepGoing();

  // F6: the process crashes and the disk damages a durable byte (or run of bytes) of a log
  // partition that has a valid record after it; a start must fail with Corruption naming the
  // file and the byte offset (InspectLog too). The damage is then repaired (the file restored
  // from a good copy) and the task restarts as after any crash.
  CheckResult DamageLog(const Op& op);
  // A damage step's damage to the (at % candidates)-th of its candidate files, whose first
  // `limit` bytes qualify: the byte (at / candidates % limit), the bit flipped or the run zeroed
  // (`how`: "flip" or "zero"; a run stays below `limit`), all drawn from `at`.
  static faults::DurableDamage DrawDamage(uint64_t at, size_t candidates, uint64_t limit,
                                          const std::string& how);
  // The operator's repair from a good copy: with the file system down, `previous` is written
  // back at `offset` of `path`. Held, or the F6 finding of a repair that failed.
  CheckResult RepairDamage(const std::string& path, uint64_t offset, const std::string& previous);

  // F6 for the stores: the process crashes and the disk damages durable bytes of a store's table
  // file or MANIFEST. A start on it must fail with Corruption naming the file, or start; every read
  // of the started task's stores must then fail the same way or return what the store holds once
  // the file is repaired — never damaged data. The start is abandoned (an interrupted start to the
  // model), the file repaired if it is still there, and the task restarts as after a crash.
  // In the legacy format (whose start uses up the legacy files, so it cannot be tried and
  // abandoned) the damage goes to the .checkpoint or a .position file: DamagedLegacyFile.
  CheckResult DamageStore(const Op& op);
  // F6, U5: `previous` was at byte `offset` of the legacy file `name` before damage (`how`). What
  // the damaged file makes the start do is the model's (ExpectedLegacyFileDamage): a file that no
  // longer reads must be logged as an error naming it, and the stores it covers wiped and restored
  // from the changelog with nothing committed lost; a file that reads as before changes nothing;
  // another well-formed file (undetectable without a checksum) is repaired before the start.
  CheckResult DamagedLegacyFile(const std::string& name, const std::string& how, uint64_t offset,
                                const std::string& previous);

  // F1, F8 for reads: with the fault armed, every store is read as an IQ reader and as the writer
  // (a scan, then a Get of each key it should hold and of one it should not). Each read returns
  // what the model says or fails with the injected error — never fewer records or another value
  // without an error. The task is not touched: the step's checks then read every store again
  // without the fault, and the next steps process and commit on (the store goes on, F8).
  CheckResult FaultyRead(const Op& op);

  // F8, L1 for a close: with the close's marker write armed, a clean close must succeed and log
  // an error naming each store whose marker it could not clear (as many as the point fired);
  // the restart then finds exactly those stores crashed — T7 per store, T10's wipe where T1's
  // row says, nothing the close committed lost. When a marker was lost, the task closes cleanly
  // once more and the start after that must find every store clean and wipe none: recovery
  // converged (L1), rather than restoring again at every start (KAFKA-20753).
  CheckResult FaultyClose(const Op& op);

  // Notes a crash or a revival for the restart's checks and the campaign's tally.
  void NoteDown(Shutdown kind);

  // Every crash comes here. Under power loss: loses what was not durable, and notes what (F3)
  // and which log partitions it left with a torn tail (F4); then the file system is back up.
  CheckResult PowerLoss(uint64_t tear_seed);

  // The rule of a start that fails: after a crash, F2 (F3 after a power loss; F4 for a log
  // damaged by a torn tail); after a clean close `clean_rule`.
  std::string StartRule(const Status& s, const std::string& clean_rule) const;

  // Opens (recovering) the log for the task to use; held or the finding (`clean_rule` after a
  // clean close, see StartRule).
  LogOptions LogOptionsFor() const;
  CheckResult OpenTheLog(const std::string& clean_rule);

  // T7 under READ_COMMITTED: each store on disk, before anything restores it, holds exactly the
  // changelog's records up to the offset stored with them (what committed readers of the
  // changelog see under exactly_once_v2; every durable record under at_least_once). Under
  // exactly_once_v2 the stored offset must also be that of a committed record: stores committed
  // with the offsets of a transaction that never committed break C1's order.
  CheckResult CheckStoresOnDisk();

  // Drops the task and the log (both already closed or abandoned), opens them again — the task
  // in `format` if given (an upgrade or a downgrade) — and checks the restart against the
  // model. After a crash it first checks each store as the crash left it on disk (T7).
  // `upgrade_files`: the legacy files before an upgrade that failed (U2).
  // `keep_log`: the log object lives on (a revival, F8), neither dropped nor reopened.
  CheckResult Restart(bool clean, std::optional<StateFormat> format = std::nullopt,
                      const LegacyFiles* upgrade_files = nullptr, bool keep_log = false);

  // The checks after a restart: C2, T7, U1–U5, then the model's (C1, C3, C4, T9, T10, U*),
  // and the situations the restart reached.
  CheckResult CheckRestart(bool clean, const LegacyFiles& before, bool interrupted_upgrade);

  std::string ShowLost() const;

  // The situations a restart that held reached (the step's later checks confirm them).
  void NoteRestart(bool clean, const model::RestartObservation& o, const LegacyFiles& before,
                   bool interrupted_upgrade, bool interrupted_start, bool uncommitted_work,
                   size_t committed_output, size_t pending_output,
                   const std::map<std::string, model::StoreState>& committed_stores,
                   bool skipped_aborted);

  static std::string ShowPosition(const Position& p);
  // T8: a current-format store's committed position after a restart (`committed_input`: the
  // committed input offset the log holds).
  CheckResult CheckPosition(const StoreRestore& r, int64_t committed_input) const;

  std::unique_ptr<Processor> NewProcessor() const;

  // The checks after every step: the commit triggers first (C5; T11 and T6 for the bytes
  // trigger), then what the commits made visible (C1, C3, C4), the stores (T3, T4, T5) and the
  // uncommitted bytes (T6).
  CheckResult CheckLive(const Op& op);

  // The situations of a step whose live checks held (C1, C3, C5, T11).
  void NoteLive(const Op& op, int64_t bytes);

  CheckResult ReadCommitted(int64_t* input, std::vector<model::OutputRecord>* output);

  // Data records of `partition` in [from, end), as committed readers (`committed`) or every
  // reader sees them.
  CheckResult CountRecords(const std::string& partition, int64_t from, int64_t end, bool committed,
                           int64_t* count, Position* sources = nullptr);

  // The store as its writer (`view` false) or an IQ reader sees it; held, or a finding of
  // `rule` when the read fails.
  static CheckResult ReadAll(KeyValueStore* store, bool view, model::StoreState* out,
                             const std::string& rule);

  static std::string Show(const model::StoreState& s);

  const std::string dir_;
  const Config config_;
  const Setup setup_;
  std::optional<Finding> started_;
  bool eos_ = false;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  faults::FaultEnv fault_env_;                  // Unless real_disk (never with power loss).
  uint64_t full_disk_refusals_ = 0;             // fault_env_'s, when the disk was last filled.
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
  bool changelog_compacted_ = false;  // A task of this case compacted a changelog (seen live).
  bool segments_compacted_ = false;   // ... and replaced several closed segments of one.
  bool torn_tail_recovered_ = false;  // A torn log tail was dropped earlier in the case (F4) ...
  bool appended_after_torn_tail_ = false;  // ... and input appended since.
  // The log object has lived through a failure (F8): kept by a revival, not reopened since.
  bool log_kept_after_failure_ = false;
  // Everything the engine logs, taken at each step's start (the checks of what a step logged).
  std::shared_ptr<RecordingLogger> logs_ = std::make_shared<RecordingLogger>();
  // faultyClose: the restart checked is the one after recovering from a lost marker (L1).
  bool converging_ = false;
  bool revived_since_commit_ = false;    // A revival (F8) since the last commit ...
  bool full_disk_since_commit_ = false;  // ... a commit a full disk failed (F7).
  std::vector<StateFormat> switches_;    // The formats each switch went to.
};

}  // namespace statecheck::properties::task

#endif  // STATECHECK_PROPERTIES_TASK_SUT_H_
