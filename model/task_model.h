// TaskModel: the reference model of a task running the key-value processor (SPEC C1–C6, T6,
// T9, T10; engine: statecheck/task.h).
//
// How it differs from the engine: there is no log, no disk and no offset arithmetic. The model
// keeps the input as a list, each store as a std::map, and, since the last commit, the list of
// writes each store received and the output records produced. It decides when commits happen
// with the same triggers as the engine (C5, T6), so its commit points are the engine's.
//
// What it allows after a restart:
//   * exactly_once_v2 (C3): the committed input offset, the committed output and every store
//     are exactly those of the last commit. A store is restored from no changelog record at all
//     unless it was wiped (T10: not closed cleanly under READ_UNCOMMITTED), and then from every
//     committed changelog record of the store.
//   * at_least_once (C4): the committed input offset is that of the last commit (C1's order:
//     it is written last). The committed output is the last commit's followed by the first m
//     output records produced since, for some m (nothing lost, no holes). A store that restored
//     r changelog records equals its last commit with the first r of its writes since applied —
//     under READ_UNCOMMITTED, where writes reach the store directly, applied on top of its last
//     commit with any first j of them. Nothing is ever wiped (T10).
// Restart() checks an observation against these and, when it is allowed, adopts it: at-least-once
// processing after a crash continues from the state the engine actually restored.
//
// Formats (SPEC U). The model knows which format each store has on disk (or, after an upgrade
// that failed half-way, that it is one of the two: U2) and whether the legacy files hold a
// trustworthy offset for it: written by every legacy at-least-once commit and start and every
// legacy clean close; deleted by a legacy exactly-once start and by a current-format start;
// damaged by the harness. A restart wipes a store — and restores it from its whole changelog —
// exactly when
//   * the current format finds it current: T10 as above;
//   * the legacy format finds it current: always (U3);
//   * either format finds it legacy: when the legacy files hold no trustworthy offset for it
//     (U5 for a damaged file; otherwise a crash under legacy exactly-once, or a legacy task that
//     never committed); otherwise the offset is used (legacy) or imported (U1) and nothing wiped.
// A wiped store equals its changelog: the last commit's state (exactly-once), or that followed
// by a prefix of the writes since (at-least-once).
//
// The key-value processor, exactly (as task.h's NewKeyValueProcessor): for input (k, v),
// counts[k] := counts[k] + 1 in decimal; v present: kv[k] := v and output (k, v#count);
// v null: kv[k] erased and output (k, null).
#ifndef STATECHECK_MODEL_TASK_MODEL_H_
#define STATECHECK_MODEL_TASK_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/finding.h"
#include "statecheck/state_config.h"

namespace statecheck::model {

struct TaskModelConfig {
  ProcessingGuarantee guarantee = ProcessingGuarantee::kAtLeastOnce;
  IsolationLevel isolation = IsolationLevel::kReadUncommitted;  // Effective (T1).
  bool wipe_on_unclean_shutdown = false;                        // T1's last column.
  int64_t uncommitted_max_bytes = -1;                           // T6; -1 = unlimited.
  int64_t commit_interval_records = 0;                          // 0 = no record trigger.
  int64_t commit_interval_ms = 0;                               // Resolved (never -1).
  StateFormat format = StateFormat::kCurrent;                   // SPEC U.
  // The task compacts its changelogs after commits: a restore from the start of one applies
  // at most the records the commits wrote (superseded ones are gone), no longer exactly them.
  bool changelog_compaction = false;
};

using StoreState = std::map<std::string, std::string>;

struct OutputRecord {
  std::string key;
  std::optional<std::string> value;
  friend bool operator==(const OutputRecord&, const OutputRecord&) = default;
};

// What the harness observed of the engine right after a restart.
struct RestartObservation {
  int64_t committed_input = 0;                 // The committed input offset in the log.
  std::vector<OutputRecord> committed_output;  // The output partition, committed readers' view.
  std::map<std::string, StoreState> stores;    // Each store as the writer reads it.
  std::map<std::string, bool> wiped;           // Per store: wiped before the restore.
  std::map<std::string, int64_t> restored;     // Per store: changelog records restored.
  // Per store: the format it had on disk before the restart (std::nullopt: none, a new store).
  // A store missing here is taken to have the one format the model expects.
  std::map<std::string, std::optional<StateFormat>> found_format;
};

// What the last successful Restart() decided for one store (for the harness's evidence).
struct StoreRestartVerdict {
  bool wiped = false;
  // The rule the wipe decision came from: "T10" (a current-format store in the current format),
  // "U3" (a current-format store opened legacy), "U5" (a damaged legacy file), "U1" (a legacy
  // store with a trustworthy offset), "U4" (a legacy store whose offset is in no file; or a new
  // store).
  std::string rule;
  std::optional<StateFormat> found;  // The format it had on disk.
  int64_t restored = 0;              // Changelog records restored.
  // C7, a store not wiped after a crash: how many committed records it came back behind its
  // last commit (its restore replayed them), of the `unflushed` it could have lost.
  int64_t lost = 0;
  int64_t unflushed = 0;
};

// What became of a failed commit at the restart that followed it.
enum class FailedCommitOutcome { kNone, kTookEffect, kNoEffect };

// What a start must make of durable bytes of a log partition that changed on the disk (F6): the
// damage spans [at, at + length) of a segment file whose last valid record starts at
// `last_record_at`; `closed_segment`: a segment before the partition's active one.
enum class LogDamageOutcome {
  kUnchanged,   // The bytes are what they were (zeros zeroed): the log opens as before.
  kCorruption,  // A valid record follows: the start fails, naming the file and the byte offset.
  kTornTail,    // In the last record: a torn tail (F4), dropped with that record.
};
LogDamageOutcome ExpectedLogDamageOutcome(uint64_t at, uint64_t length, uint64_t last_record_at,
                                          bool changed, bool closed_segment);

class TaskModel {
 public:
  static constexpr int kReasons = 4;  // As statecheck::CommitReason: interval, bytes, explicit,
                                      // close.

  TaskModel(TaskModelConfig config, int64_t now_ms);

  void AppendInput(std::string key, std::optional<std::string> value);
  // Processes up to `max_records` input records, committing where the triggers say; returns
  // how many were processed.
  int64_t Process(int64_t max_records, int64_t now_ms);
  // An explicit commit (reason 2); a no-op when nothing was processed since the last commit.
  void Commit(int64_t now_ms);
  // A clean close: a commit (reason 3), then a clean restart must observe exactly that commit.
  void Close(int64_t now_ms);

  // The engine's commit failed (C6): whether it took effect is unknown until the next restart,
  // which must follow (the task stops on a failed commit) and may observe either outcome. A
  // failed exactly-once commit may also have committed its log transaction and not the stores
  // (they then restore that commit from the changelog); a failed at-least-once commit may have
  // committed the stores and not the input offset.
  void CommitFailed();
  // The engine processed `processed` records (with the commits its triggers asked for) and then
  // failed: in a commit (`in_commit`: the next commit the triggers or an explicit Commit asked
  // for; see CommitFailed) or while processing the next record, whose writes and output may
  // then be partly in the changelog and the output (at-least-once prefixes). A restart follows.
  void ProcessFailed(int64_t processed, bool in_commit, int64_t now_ms);

  // The next restart runs with `config` (another state.format: an upgrade or a downgrade, U1–U4).
  // Encodes: U4 — a round trip: the next restart's checks (C3/C4) apply in the new format
  void SwitchConfig(const TaskModelConfig& config) { config_ = config; }
  // The harness damaged the legacy file of `store` (its .position file), or .checkpoint
  // (`store` empty: every store's offset).
  void DamageLegacyFile(const std::string& store);
  // A start in the current format failed after a clean legacy close (an interrupted upgrade,
  // U2): each store may now be legacy or current on disk, and must be one of them. Implies
  // StartInterrupted().
  void UpgradeInterrupted();
  // A start failed part-way (F1, F2): until the next restart succeeds, a store may be missing
  // (a wipe the failed start began: restored from scratch, whatever the wipe rules say) or
  // hold part of what that start restored (committed with its offset).
  void StartInterrupted();
  // The clean close could not clear the open-status marker of `store` (KeyValueStore::Close):
  // the next restart, though clean, finds that store as after a crash — wiped where T1's row
  // wipes after an unclean shutdown — with everything the close committed (F8, L1).
  void CloseMarkerLost(const std::string& store);
  // Whether the next restart finds `store` as after a crash although the task closed cleanly.
  bool CloseMarkerWasLost(const std::string& store) const {
    return close_markers_lost_.count(store) > 0;
  }

  // Checks what was observed after a restart (`clean`: the task had been Close()d; otherwise it
  // crashed). Holds (nullopt) when the observation is allowed — and adopts it — or else a
  // finding of the rule the difference breaks. After a failed commit (commit_uncertain()) the
  // observed committed input offset says which outcome the commit had (C1: it is written last,
  // or atomically with the rest), and the finding is that outcome's.
  [[nodiscard]] CheckResult Restart(bool clean, const RestartObservation& observed, int64_t now_ms);

  // Checks the output partition as committed readers see it: exactly the last commit's output
  // under exactly_once_v2 (C3); under at_least_once, where output is visible once the log syncs
  // it, the last commit's followed by a prefix of the records produced since (C4).
  [[nodiscard]] CheckResult CheckCommittedOutput(const std::vector<OutputRecord>& observed) const;

  // What the last successful Restart() decided, per store.
  const std::map<std::string, StoreRestartVerdict>& last_restart() const { return last_restart_; }
  // What the last successful Restart() found of a failed commit before it (kNone: there was none).
  FailedCommitOutcome last_failed_commit() const { return last_failed_commit_; }
  // The last commit's state of `store`.
  const StoreState& Committed(const std::string& store) const {
    return stores_.at(store).committed;
  }
  // Output records produced since the last commit.
  size_t pending_output() const { return pending_output_.size(); }
  // Whether the legacy files hold a trustworthy offset (for some store).
  bool legacy_files() const { return legacy_files_; }
  bool start_interrupted() const { return start_interrupted_; }

  // What an IQ reader sees of `store`: the last commit under READ_COMMITTED (T4), every write
  // under READ_UNCOMMITTED (T3).
  StoreState QueryView(const std::string& store) const;
  // The writer's view of `store` (read-your-writes, T5).
  StoreState Current(const std::string& store) const;
  // The sum of the stores' uncommitted bytes (T6), as the engine reports it.
  int64_t UncommittedBytes() const;

  int64_t input_size() const { return static_cast<int64_t>(input_.size()); }
  int64_t next_input_offset() const { return next_; }
  int64_t committed_input_offset() const { return committed_input_; }
  const std::vector<OutputRecord>& committed_output() const { return committed_output_; }
  bool commit_uncertain() const { return commit_uncertain_; }
  // Commits since the last restart, by reason.
  const int64_t* commits_by_reason() const { return commits_by_reason_; }
  // Commits since the model was made, by reason (never reset), and of the interval commits
  // those the records interval triggered and those the time interval did (C5).
  int64_t total_commits(int reason) const { return total_commits_[reason]; }
  int64_t records_interval_commits() const { return records_interval_commits_; }
  int64_t time_interval_commits() const { return time_interval_commits_; }
  static std::vector<std::string> StoreNames() { return {"kv", "counts"}; }

 private:
  struct Store {
    StoreState committed;
    std::vector<std::pair<std::string, std::optional<std::string>>> pending;  // Since commit.
    int64_t changelog_committed = 0;  // Changelog records of this store in committed commits.
    int64_t last_commit_writes = 0;   // Of which in the last commit.
    // C7: changelog records applied to the store since it was last surely durable (a clean
    // close, an upgrade's import, what a restart found on disk). A commit does not flush, so a
    // crash may take the store back by up to this many, which its restore then replays.
    int64_t unflushed = 0;
    std::vector<StateFormat> disk;  // The formats it may have on disk.
    // What replaying the whole changelog gives as of the last commit: `committed`, except
    // under at-least-once after a crash, where the store may have kept writes the changelog
    // lost, or the changelog more than the restore applied — then each possibility.
    std::vector<StoreState> logged = {StoreState{}};
  };
  // What a failed commit may have left besides exactly one of its two outcomes.
  enum class Slack { kNone, kStoresMayLag, kStoresMayLead };
  CheckResult CheckAndAdopt(bool clean, const RestartObservation& observed, Slack slack,
                            int64_t now_ms);
  // T9, at-least-once (exactly-once calls any other state C3): under READ_COMMITTED, after a
  // crash, `observed` is the last commit with more of the buffered writes since than the
  // `restored` ones the changelog gave back.
  CheckResult KeptBufferedWrites(const std::string& name, const Store& s,
                                 const StoreState& observed, int64_t restored, bool clean) const;
  static StoreState Apply(
      StoreState state,
      const std::vector<std::pair<std::string, std::optional<std::string>>>& writes, size_t n);
  void Write(const std::string& store, const std::string& key, std::optional<std::string> value);
  // Processes up to `max_records`; with `fail_last_commit`, the interval commit due right after
  // the last of them is not made (it is the one that failed).
  int64_t Run(int64_t max_records, int64_t now_ms, bool fail_last_commit);
  // The commit a record over statestore.uncommitted.max.bytes asks for before the next one.
  void CommitIfOverTheBound(int64_t now_ms);
  // The writes and output of processing input record `i` (not advancing the offset).
  void ApplyRecord(int64_t i);
  void DoCommit(int reason, int64_t now_ms);
  void ResetAfterRestart(int64_t now_ms);
  // Whether a restart must wipe store `name`, found in `found` on disk; `*rule` is the rule
  // that decides it and `*why` says how.
  bool ExpectWipe(const std::string& name, std::optional<StateFormat> found, bool clean,
                  std::string* rule, std::string* why) const;
  // After a legacy at-least-once commit or a legacy clean close: the files hold every store.
  void LegacyFilesWritten();

  TaskModelConfig config_;
  std::vector<std::pair<std::string, std::optional<std::string>>> input_;
  std::map<std::string, Store> stores_;
  std::vector<OutputRecord> committed_output_;
  std::vector<OutputRecord> pending_output_;
  int64_t next_ = 0;
  int64_t committed_input_ = 0;
  int64_t since_commit_ = 0;
  int64_t last_commit_ms_ = 0;
  int64_t commits_by_reason_[kReasons] = {0, 0, 0, 0};
  int64_t total_commits_[kReasons] = {0, 0, 0, 0};
  int64_t records_interval_commits_ = 0;
  int64_t time_interval_commits_ = 0;
  bool commit_uncertain_ = false;
  // The legacy files hold a trustworthy offset for every store, except those damaged.
  bool legacy_files_ = false;
  bool start_interrupted_ = false;            // Since the last restart the model checked.
  std::set<std::string> close_markers_lost_;  // Since the last restart the model checked.
  std::set<std::string> legacy_files_damaged_;
  std::map<std::string, StoreRestartVerdict> last_restart_;
  FailedCommitOutcome last_failed_commit_ = FailedCommitOutcome::kNone;
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_TASK_MODEL_H_
