#include "model/task_model.h"

#include <algorithm>
#include <sstream>

namespace statecheck::model {
namespace {

// At most this many candidate changelog states per store (at-least-once leaves several).
constexpr size_t kMaxLogged = 64;

std::string Show(const StoreState& s) {
  std::ostringstream out;
  out << "{";
  for (const auto& [k, v] : s) out << (out.tellp() > 1 ? ", " : "") << k << "=" << v;
  out << "}";
  return out.str();
}

std::string Show(const std::vector<OutputRecord>& records) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < records.size(); ++i) {
    out << (i ? ", " : "") << records[i].key << "=" << records[i].value.value_or("null");
  }
  out << "]";
  return out.str();
}

std::string FormatNames(const std::vector<StateFormat>& formats) {
  std::string out;
  for (StateFormat f : formats)
    out += (out.empty() ? "" : " or ") + std::string(StateFormatName(f));
  return out;
}

bool IsReadCommitted(const TaskModelConfig& c) {
  return c.isolation == IsolationLevel::kReadCommitted;
}

}  // namespace

TaskModel::TaskModel(TaskModelConfig config, int64_t now_ms)
    : config_(config), last_commit_ms_(now_ms) {
  for (const std::string& name : StoreNames()) stores_[name].disk = {config_.format};
  // The first start, as every legacy at-least-once start, writes the legacy files.
  legacy_files_ = config_.format == StateFormat::kLegacy &&
                  config_.guarantee == ProcessingGuarantee::kAtLeastOnce;
}

void TaskModel::DamageLegacyFile(const std::string& store) {
  if (store.empty()) {
    for (const std::string& name : StoreNames()) legacy_files_damaged_.insert(name);
  } else {
    legacy_files_damaged_.insert(store);
  }
}

// Encodes: U2 — after an interrupted upgrade each store is legacy or current, nothing else
void TaskModel::UpgradeInterrupted() {
  for (auto& [name, s] : stores_) s.disk = {StateFormat::kLegacy, StateFormat::kCurrent};
  start_interrupted_ = true;
}

// Encodes: F1, F2 — after a failed start a store may be missing or part-restored, no worse
void TaskModel::StartInterrupted() { start_interrupted_ = true; }

// Encodes: L1 — a lost close marker makes one restart of that store unclean, not every one
void TaskModel::CloseMarkerLost(const std::string& store) { close_markers_lost_.insert(store); }

void TaskModel::LegacyFilesWritten() {
  legacy_files_ = true;
  legacy_files_damaged_.clear();
}

bool TaskModel::ExpectWipe(const std::string& name, std::optional<StateFormat> found, bool clean,
                           std::string* rule, std::string* why) const {
  const bool legacy = config_.format == StateFormat::kLegacy;
  if (!found) {
    *rule = "U4";
    *why = "a new store";
    return false;
  }
  if (*found == StateFormat::kCurrent) {
    if (legacy) {  // Encodes: U3 — the legacy format wipes a current-format store, then restores
      *rule = "U3";
      *why = "a current-format store opened in the legacy format";
      return true;
    }
    *rule = "T10";
    *why = config_.wipe_on_unclean_shutdown ? "T1's row wipes after an unclean shutdown"
                                            : "T1's row never wipes";
    // Encodes: T10 — wiped exactly after an unclean shutdown where T1's row says wipe
    return !clean && config_.wipe_on_unclean_shutdown;
  }
  // Encodes: U5 — a damaged legacy file is never trusted: the store is wiped and restored
  if (legacy_files_damaged_.count(name)) {
    *rule = "U5";
    *why = "its legacy file was damaged";
    return true;
  }
  // Encodes: U1 — a legacy store with a trustworthy offset: used or imported, not wiped
  if (legacy_files_) {
    *rule = "U1";
    *why = "the legacy files hold its offset";
    return false;
  }
  // Encodes: U4 — a legacy store whose offset no file holds (legacy EOS crash): wiped
  *rule = "U4";
  *why = "a legacy store whose offset is in no .checkpoint";
  return true;
}

void TaskModel::AppendInput(std::string key, std::optional<std::string> value) {
  input_.emplace_back(std::move(key), std::move(value));
}

StoreState TaskModel::Apply(
    StoreState state, const std::vector<std::pair<std::string, std::optional<std::string>>>& writes,
    size_t n) {
  for (size_t i = 0; i < n && i < writes.size(); ++i) {
    const auto& [k, v] = writes[i];
    if (v) {
      state[k] = *v;
    } else {
      state.erase(k);
    }
  }
  return state;
}

StoreState TaskModel::Current(const std::string& store) const {
  const Store& s = stores_.at(store);
  return Apply(s.committed, s.pending, s.pending.size());
}

StoreState TaskModel::QueryView(const std::string& store) const {
  // Encodes: T3, T4 — IQ sees the last commit under READ_COMMITTED, every write otherwise
  return IsReadCommitted(config_) ? stores_.at(store).committed : Current(store);
}

// Encodes: T6 — the task's sum: each buffered key once with its last value; 0 unbuffered
int64_t TaskModel::UncommittedBytes() const {
  if (!IsReadCommitted(config_)) return 0;
  int64_t sum = 0;
  for (const auto& [name, s] : stores_) {
    std::map<std::string, std::optional<std::string>> last;
    for (const auto& [k, v] : s.pending) last[k] = v;
    for (const auto& [k, v] : last) sum += k.size() + (v ? v->size() : 0);
  }
  return sum;
}

void TaskModel::Write(const std::string& store, const std::string& key,
                      std::optional<std::string> value) {
  stores_.at(store).pending.emplace_back(key, std::move(value));
}

int64_t TaskModel::Process(int64_t max_records, int64_t now_ms) {
  return Run(max_records, now_ms, /*fail_last_commit=*/false);
}

void TaskModel::ApplyRecord(int64_t i) {
  const auto& [key, value] = input_[i];
  const StoreState counts = Current("counts");
  auto it = counts.find(key);
  const std::string count = std::to_string((it == counts.end() ? 0 : std::stoll(it->second)) + 1);
  Write("counts", key, count);
  Write("kv", key, value);
  pending_output_.push_back(
      {key, value ? std::optional<std::string>(*value + "#" + count) : std::nullopt});
}

int64_t TaskModel::Run(int64_t max_records, int64_t now_ms, bool fail_last_commit) {
  int64_t processed = 0;
  while (processed < max_records && next_ < static_cast<int64_t>(input_.size())) {
    CommitIfOverTheBound(now_ms);
    ApplyRecord(next_);
    ++next_;
    ++since_commit_;
    ++processed;
    const bool by_records =
        config_.commit_interval_records > 0 && since_commit_ >= config_.commit_interval_records;
    // Encodes: C5 — the commit interval, in processed records or simulated ms, elapsed
    if (by_records || now_ms - last_commit_ms_ >= config_.commit_interval_ms) {
      if (fail_last_commit && processed == max_records) break;
      ++(by_records ? records_interval_commits_ : time_interval_commits_);
      DoCommit(0, now_ms);
    }
  }
  return processed;
}

// Encodes: T6, T11, C5 — over the bound (not -1): commit before the next record
void TaskModel::CommitIfOverTheBound(int64_t now_ms) {
  if (config_.uncommitted_max_bytes >= 0 && since_commit_ > 0 &&
      UncommittedBytes() > config_.uncommitted_max_bytes) {
    DoCommit(1, now_ms);
  }
}

void TaskModel::ProcessFailed(int64_t processed, bool in_commit, int64_t now_ms) {
  Run(processed, now_ms, /*fail_last_commit=*/in_commit);
  if (in_commit) {
    CommitFailed();
  } else if (next_ < static_cast<int64_t>(input_.size())) {
    // The next record failed (a read or a write of it): the commit the bound asked for before
    // it had happened first.
    CommitIfOverTheBound(now_ms);
    ApplyRecord(next_);  // Maybe partly done: only prefixes of it can survive (C4).
    ++since_commit_;
  }
}

// Encodes: C5 — an explicit commit request commits (when anything was processed)
void TaskModel::Commit(int64_t now_ms) { DoCommit(2, now_ms); }

void TaskModel::Close(int64_t now_ms) {
  DoCommit(3, now_ms);
  if (config_.format == StateFormat::kLegacy) LegacyFilesWritten();
}

void TaskModel::DoCommit(int reason, int64_t now_ms) {
  if (since_commit_ == 0) return;
  for (auto& [name, s] : stores_) {
    s.committed = Apply(s.committed, s.pending, s.pending.size());
    for (StoreState& logged : s.logged) logged = Apply(logged, s.pending, s.pending.size());
    s.changelog_committed += s.pending.size();
    s.last_commit_writes = s.pending.size();
    // Encodes: C7 — a current-format commit is applied, not flushed (a legacy one is flushed)
    s.unflushed = config_.format == StateFormat::kLegacy
                      ? 0
                      : s.unflushed + static_cast<int64_t>(s.pending.size());
    s.pending.clear();
  }
  committed_output_.insert(committed_output_.end(), pending_output_.begin(), pending_output_.end());
  pending_output_.clear();
  // Encodes: C1 — the input offset moves last, with the stores and output of the same commit
  committed_input_ = next_;
  since_commit_ = 0;
  last_commit_ms_ = now_ms;
  if (reason >= 0) {
    ++commits_by_reason_[reason];
    ++total_commits_[reason];
  }
  if (config_.format == StateFormat::kLegacy &&
      config_.guarantee == ProcessingGuarantee::kAtLeastOnce) {
    LegacyFilesWritten();
  }
}

CheckResult TaskModel::CheckCommittedOutput(const std::vector<OutputRecord>& observed) const {
  if (config_.guarantee == ProcessingGuarantee::kExactlyOnceV2) {
    // Encodes: C3 — exactly-once: committed output is exactly the last commit's, nothing open
    if (observed == committed_output_) return std::nullopt;
    return Finding("C3",
                   "committed output " + Show(observed) + ", expected " + Show(committed_output_));
  }
  // Encodes: C4, F4 — at-least-once: the last commit's output then a whole-record prefix
  const size_t base = committed_output_.size();
  bool ok = observed.size() >= base && observed.size() <= base + pending_output_.size();
  for (size_t i = 0; ok && i < observed.size(); ++i) {
    ok = observed[i] == (i < base ? committed_output_[i] : pending_output_[i - base]);
  }
  if (ok) return std::nullopt;
  return Finding("C4", "committed output " + Show(observed) + " is not the last commit's " +
                           Show(committed_output_) +
                           " followed by a prefix of the records produced since " +
                           Show(pending_output_));
}

// Encodes: F6 — damage before the last record is Corruption; in the last record a torn tail (F4)
LogDamageOutcome ExpectedLogDamageOutcome(uint64_t at, uint64_t length, uint64_t last_record_at,
                                          bool changed, bool closed_segment) {
  if (!changed) return LogDamageOutcome::kUnchanged;
  // A closed segment was fsynced whole before the next began: no tail of it is torn.
  if (closed_segment) return LogDamageOutcome::kCorruption;
  // A valid record follows the damaged ones exactly when the damage ends before the last record
  // starts; damage reaching into the last record leaves no valid record after it.
  if (at + length <= last_record_at) return LogDamageOutcome::kCorruption;
  return LogDamageOutcome::kTornTail;
}

// Encodes: C6, F1, F7, F8 — a failed commit, then a crash or a revival, took effect fully or not
// at all (an I/O error or a full disk alike), and the next start shows which.
void TaskModel::CommitFailed() {
  if (since_commit_ > 0) commit_uncertain_ = true;
}

CheckResult TaskModel::Restart(bool clean, const RestartObservation& o, int64_t now_ms) {
  if (clean && since_commit_ != 0)
    return Finding("C1", "model: a clean restart needs Close() first");
  if (!commit_uncertain_) {
    CheckResult r = CheckAndAdopt(clean, o, Slack::kNone, now_ms);
    if (!r) last_failed_commit_ = FailedCommitOutcome::kNone;
    return r;
  }
  // The failed commit happened or it did not (C6, F1); nothing in between.
  // Encodes: C6, F1, F3 — after a failed commit exactly one of its two outcomes survives
  const bool eos = config_.guarantee == ProcessingGuarantee::kExactlyOnceV2;
  TaskModel after = *this;
  after.commit_uncertain_ = false;
  after.DoCommit(-1, now_ms);
  const CheckResult why_after =
      after.CheckAndAdopt(false, o, eos ? Slack::kStoresMayLag : Slack::kNone, now_ms);
  if (!why_after) {
    *this = std::move(after);
    last_failed_commit_ = FailedCommitOutcome::kTookEffect;
    return std::nullopt;
  }
  const int64_t offset_after = after.committed_input_;
  const CheckResult why_before =
      CheckAndAdopt(false, o, eos ? Slack::kNone : Slack::kStoresMayLead, now_ms);
  if (!why_before) {
    commit_uncertain_ = false;
    last_failed_commit_ = FailedCommitOutcome::kNoEffect;
    return std::nullopt;
  }
  if (!eos && config_.format == StateFormat::kLegacy) {
    // A legacy at-least-once commit writes the legacy files after the stores and before the
    // input offset: they may lead with the stores.
    TaskModel written = *this;
    written.commit_uncertain_ = false;
    written.LegacyFilesWritten();
    if (!written.CheckAndAdopt(false, o, Slack::kStoresMayLead, now_ms)) {
      *this = std::move(written);
      last_failed_commit_ = FailedCommitOutcome::kNoEffect;
      return std::nullopt;
    }
  }
  // The committed input offset tells the outcome the commit had (it is written last, or with
  // everything else): the rest must match that outcome, and the finding is that outcome's.
  // Encodes: C1 — the committed input offset tells which outcome the failed commit had
  const bool offset_committed = o.committed_input == offset_after;
  std::string rule = offset_committed ? why_after->rule : why_before->rule;
  // At-least-once writes the input offset last (C1's order): a store that must still restore
  // records of a commit whose input offset is committed was committed after it, or never.
  if (offset_committed && !eos && rule == "C2") rule = "C1";
  return Finding(rule,
                 "after a failed commit the task restarted in neither outcome: had it "
                 "committed, " +
                     why_after->ToString() + "; had it not, " + why_before->ToString() +
                     " (its committed input offset says it " +
                     (offset_committed ? "had" : "had not") + ")");
}

CheckResult TaskModel::KeptBufferedWrites(const std::string& name, const Store& s,
                                          const StoreState& observed, int64_t restored,
                                          bool clean) const {
  if (clean || !IsReadCommitted(config_)) return std::nullopt;
  for (size_t j = static_cast<size_t>(std::max<int64_t>(restored, 0)) + 1; j <= s.pending.size();
       ++j) {
    if (Apply(s.committed, s.pending, j) == observed) {
      // Encodes: T9 — a crash under READ_COMMITTED must discard every buffered write
      return Finding("T9", "store " + name + " after a crash under READ_COMMITTED is " +
                               Show(observed) + ": its last commit " + Show(s.committed) +
                               " with " + std::to_string(j) +
                               " of the aborted task's buffered writes kept (" +
                               std::to_string(restored) + " restored from the changelog)");
    }
  }
  return std::nullopt;
}

CheckResult TaskModel::CheckAndAdopt(bool clean, const RestartObservation& o, Slack slack,
                                     int64_t now_ms) {
  const bool eos = config_.guarantee == ProcessingGuarantee::kExactlyOnceV2;
  // Encodes: C1 — a restart resumes at the last commit's input offset
  if (o.committed_input != committed_input_) {
    return Finding("C1", "committed input offset is " + std::to_string(o.committed_input) +
                             ", the last commit wrote " + std::to_string(committed_input_));
  }
  // Output (C3 / C4).
  if (CheckResult why = CheckCommittedOutput(o.committed_output)) return why;
  std::map<std::string, StoreRestartVerdict> verdicts;
  // Stores (C2, C3, C4, T9, T10), checked on a copy: a rejected observation changes nothing.
  std::map<std::string, Store> stores = stores_;
  for (auto& [name, s] : stores) {
    const bool wiped = o.wiped.count(name) ? o.wiped.at(name) : false;
    const int64_t restored = o.restored.count(name) ? o.restored.at(name) : 0;
    std::optional<StateFormat> found = s.disk.size() == 1 ? s.disk[0] : StateFormat::kLegacy;
    if (auto f = o.found_format.find(name); f != o.found_format.end()) found = f->second;
    // Missing: only when a start that may have been wiping it failed (F2: the wipe restarts).
    // Encodes: F2 — a store may be missing only after a start that failed while wiping it
    const bool missing_allowed = start_interrupted_;
    // Encodes: U2, U4 — after any format switch a store is in a format it can be in
    if (found ? std::find(s.disk.begin(), s.disk.end(), *found) == s.disk.end()
              : !missing_allowed) {
      return Finding(s.disk.size() > 1 ? "U2" : "U4",
                     "store " + name + " was " +
                         (found ? std::string(StateFormatName(*found)) : std::string("missing")) +
                         " on disk, where it can only be " + FormatNames(s.disk));
    }
    std::string rule, reason;
    // A store whose clean close lost its marker starts as after a crash, its data the close's.
    const bool store_clean = clean && !close_markers_lost_.count(name);
    const bool expect_wipe = ExpectWipe(name, found, store_clean, &rule, &reason);
    // An interrupted upgrade (U2) decides about the stores it left legacy.
    if (rule == "U1" && s.disk.size() > 1) rule = "U2";  // Encodes: U2 — left legacy: import once
    // A store found missing was wiped by the failed start, or is being wiped now.
    if (wiped != expect_wipe && found) {
      return Finding(rule, "store " + name + " (" + std::string(StateFormatName(*found)) +
                               " on disk) was " + (wiped ? "wiped" : "not wiped") + " when the " +
                               std::string(StateFormatName(config_.format)) +
                               " format started after a" + (store_clean ? " clean" : "n unclean") +
                               " shutdown under " + (eos ? "exactly_once_v2" : "at_least_once") +
                               " with " +
                               (IsReadCommitted(config_) ? "READ_COMMITTED" : "READ_UNCOMMITTED") +
                               " (" + reason + ")");
    }
    verdicts[name] =
        StoreRestartVerdict{wiped, rule, found, restored, 0, store_clean ? 0 : s.unflushed};
    auto it = o.stores.find(name);
    const StoreState observed = it == o.stores.end() ? StoreState{} : it->second;
    // Restored from nothing: after a wipe, or into a store a failed start's wipe left missing.
    const bool from_scratch = wiped || !found;
    // What the changelog replays to: `observed` after a wipe, else as it was.
    std::vector<StoreState> logged = from_scratch ? std::vector<StoreState>{observed} : s.logged;
    if (!eos && from_scratch) {
      // Restored from the whole changelog: what it held at the last commit, then a prefix of
      // the writes since. (How many records that was, the harness checks against the log.)
      // Encodes: C4, U3 — a wiped store equals its changelog: the last commit, then a prefix
      bool found_prefix = false;
      for (const StoreState& base : s.logged) {
        for (size_t r = 0; r <= s.pending.size() && !found_prefix; ++r) {
          found_prefix = Apply(base, s.pending, r) == observed;
        }
      }
      if (!found_prefix) {
        return Finding(
            "C4",
            "store " + name + " after its wipe and restore is " + Show(observed) +
                ", not what its changelog held at the last commit " + Show(s.logged.front()) +
                (s.logged.size() > 1 ? " (or " + std::to_string(s.logged.size() - 1) + " more)"
                                     : std::string()) +
                " followed by a prefix of its " + std::to_string(s.pending.size()) +
                " later writes");
      }
      s.changelog_committed = restored;
    } else if (eos || clean) {
      // Encodes: C2 — not wiped: from its offset + 1, i.e. nothing; wiped: every committed record
      const int64_t expect_restored = from_scratch ? s.changelog_committed : 0;
      // Encodes: C7 — after a crash a store not wiped may be back by up to its unflushed
      // records, which its restore replays from its own offset + 1
      const bool behind = !from_scratch && !store_clean && restored > expect_restored &&
                          restored - expect_restored <= s.unflushed;
      // A store whose commit was lost after the log transaction committed restores that
      // commit's writes from the changelog; one a failed start restored in part, the rest.
      const bool lagged =
          !from_scratch && ((slack == Slack::kStoresMayLag && restored == s.last_commit_writes) ||
                            (start_interrupted_ && restored <= s.changelog_committed));
      // Encodes: C2 — a compacted changelog restores its live records: at most every committed
      // one, at least one per key the committed store holds
      size_t live = s.logged.empty() ? 0 : s.logged.front().size();
      for (const StoreState& state : s.logged) live = std::min(live, state.size());
      const bool compacted = config_.changelog_compaction && from_scratch &&
                             restored <= expect_restored && static_cast<size_t>(restored) >= live;
      if (behind && restored != expect_restored) {
        verdicts[name].lost = restored - expect_restored;
      }
      if (restored != expect_restored && !lagged && !compacted && !behind) {
        // More than the commits ever wrote, under exactly-once: records of aborted or open
        // transactions were restored (C1). More than the store lost but no more than were
        // committed: it restored from before its stored offset + 1 (C2). Fewer: it stopped
        // short (C2).
        // Encodes: C1, C2, C7 — which rule a wrong restore count breaks
        const bool beyond_committed = restored > s.changelog_committed;
        return Finding(eos && restored > expect_restored && beyond_committed ? "C1" : "C2",
                       "store " + name + " restored " + std::to_string(restored) +
                           " changelog records, expected " + std::to_string(expect_restored) +
                           (wiped ? " (every committed one, after the wipe)"
                                  : " (its stored offset is the changelog's committed end)"));
      }
      // Encodes: C3 — exactly-once (or a clean close): each store is exactly its last commit
      if (observed != s.committed) {
        // The store must be the last commit's (C3 under exactly-once, C4 for a clean close).
        return Finding(eos ? "C3" : "C4", "store " + name + " after restart is " + Show(observed) +
                                              ", the last commit left " + Show(s.committed));
      }
    } else {
      // Encodes: C2, C7 — a store not wiped restores only records after its stored offset: those
      // written after its last commit, and after a crash those of commits it lost (unflushed)
      const int64_t back_allowed = store_clean ? 0 : s.unflushed;
      if (restored < 0 || restored > static_cast<int64_t>(s.pending.size()) + back_allowed) {
        return Finding("C2", "store " + name + " restored " + std::to_string(restored) +
                                 " changelog records, but only " +
                                 std::to_string(s.pending.size()) +
                                 " were written after its last commit" +
                                 (back_allowed > 0 ? " and " + std::to_string(back_allowed) +
                                                         " committed since its last flush"
                                                   : std::string()));
      }
      // The store came back `back` records behind its last commit (C7), or at it, holding the
      // first j later writes (j = 0 under READ_COMMITTED, where writes wait in the buffer — or j
      // = all of them when a failed commit committed the stores but not the input offset), and
      // the restore applied the lost commits' records and the first r of the later writes.
      const size_t k = s.pending.size();
      bool found_state = false;
      int64_t back = 0;
      for (; back <= std::min(back_allowed, restored) && !found_state; ++back) {
        const size_t r = static_cast<size_t>(restored - back);
        if (r > k) continue;
        for (size_t j = 0; j <= k && !found_state; ++j) {
          // Encodes: T7, T9 — READ_COMMITTED data is never ahead of its offset; direct writes
          // may be
          const bool possible = !IsReadCommitted(config_) || j == 0 ||
                                (j == k && slack == Slack::kStoresMayLead && back == 0);
          found_state = possible && Apply(Apply(s.committed, s.pending, back == 0 ? j : 0),
                                          s.pending, r) == observed;
        }
        if (found_state) break;
      }
      if (!found_state) back = 0;
      verdicts[name].lost = back;
      // A failed start may have restored (and committed) the first x - restored of them.
      for (size_t x = static_cast<size_t>(restored); start_interrupted_ && x <= k && !found_state;
           ++x) {
        found_state = Apply(s.committed, s.pending, x) == observed;
      }
      // Encodes: C4 — the last commit plus a re-applied prefix of later writes, no holes
      if (!found_state) {
        if (CheckResult kept = KeptBufferedWrites(name, s, observed, restored, clean)) return kept;
        return Finding("C4", "store " + name + " after restart is " + Show(observed) +
                                 ", not its last commit " + Show(s.committed) + " with the first " +
                                 std::to_string(restored) + " of its " + std::to_string(k) +
                                 " later writes re-applied (on top of any prefix of them, under "
                                 "READ_UNCOMMITTED)");
      }
      s.changelog_committed += restored - back;
      // The store may now hold writes its changelog lost (j > r), or the changelog writes the
      // store's offset already covered (a failed commit's): what a later wipe restores is the
      // changelog at the last commit with between r and all of the later writes.
      // Encodes: F3 — power loss may cut the changelog's unsynced tail: keep each candidate
      logged.clear();
      for (const StoreState& base : s.logged) {
        for (size_t x = static_cast<size_t>(restored - back); x <= k; ++x) {
          StoreState candidate = Apply(base, s.pending, x);
          if (std::find(logged.begin(), logged.end(), candidate) == logged.end() &&
              logged.size() < kMaxLogged) {
            logged.push_back(std::move(candidate));
          }
        }
      }
    }
    s.committed = observed;
    s.logged = std::move(logged);
    s.pending.clear();
    s.disk = {config_.format};
    // Encodes: C7 — what a restart found is on disk; what it restored since is not flushed
    s.unflushed = config_.format == StateFormat::kLegacy ? 0 : restored;
  }
  stores_ = std::move(stores);
  last_restart_ = std::move(verdicts);
  start_interrupted_ = false;
  close_markers_lost_.clear();
  // A legacy exactly-once start deletes the legacy files; so does every current-format start,
  // once the stores hold what they said (U1).
  // Encodes: U1 — a current-format start deletes the legacy files once the stores hold them
  if (config_.format == StateFormat::kCurrent ||
      config_.guarantee == ProcessingGuarantee::kExactlyOnceV2) {
    legacy_files_ = false;
    legacy_files_damaged_.clear();
  } else {
    LegacyFilesWritten();  // A legacy at-least-once start writes what it restored.
  }
  committed_output_ = o.committed_output;
  pending_output_.clear();
  ResetAfterRestart(now_ms);
  return std::nullopt;
}

void TaskModel::ResetAfterRestart(int64_t now_ms) {
  commit_uncertain_ = false;
  next_ = committed_input_;
  since_commit_ = 0;
  last_commit_ms_ = now_ms;
  for (int64_t& c : commits_by_reason_) c = 0;
}

}  // namespace statecheck::model
