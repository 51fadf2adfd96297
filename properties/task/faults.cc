// Sut's fault steps: arming fail points, damaged legacy files, faulty upgrades, crashes and
// power loss (sut.h).
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "faults/fail_points.h"
#include "faults/fault_fs.h"
#include "model/legacy_file_model.h"
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

namespace {

// The fail points a faulty commit arms: every fsync and directory fsync of every file kind.
constexpr const char* kSyncFamilies[] = {"statecheck/fs/sync/*", "statecheck/fs/dir_fsync/*"};

}  // namespace

CheckResult Sut::Arm(const Op& op) {
  if (op.point == kFullDisk) {
    if (!fault_env_.fs) return Finding("F1", "a full disk needs the fault file system");
    full_disk_refusals_ = fault_env_.fs->FullDiskRefusals();
    fault_env_.fs->SetSpaceLeft(static_cast<uint64_t>(op.n));
    return std::nullopt;
  }
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

bool Sut::ExplainedByInjectedFault(const Status& s, uint64_t fired) {
  if (faults::IsInjectedFault(s)) return true;
  return fired > 0 && s.code() == Status::Code::kInvalidArgument &&
         s.message().find("Direct I/O is not supported") != std::string::npos;
}

uint64_t Sut::Disarm(bool keep_disk_full) {
  uint64_t fired = 0;
  for (const auto& [name, counts] : faults::FailPoints::Counts()) fired += counts.fired;
  faults::FailPoints::Reset();
  if (fault_env_.fs && fault_env_.fs->SpaceLeft()) {
    fired += fault_env_.fs->FullDiskRefusals() - full_disk_refusals_;
    full_disk_refusals_ = fault_env_.fs->FullDiskRefusals();
    if (!keep_disk_full) fault_env_.fs->SetSpaceLeft(std::nullopt);  // The space comes back.
  }
  return fired;
}

std::string Sut::StoreOf(const std::string& position_file) {
  return position_file.substr(0, position_file.size() - (sizeof(kPositionFileSuffix) - 1));
}

std::vector<std::string> Sut::LegacyFileNames() {
  std::vector<std::string> names = {kCheckpointFileName};
  for (const std::string& store : model::TaskModel::StoreNames()) {
    names.push_back(store + kPositionFileSuffix);
  }
  return names;
}

Sut::LegacyFiles Sut::ReadLegacyFiles() const {
  LegacyFiles out;
  for (const std::string& name : LegacyFileNames()) {
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

CheckResult Sut::Damage(const std::string& file, const std::string& damage) {
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
  const rocksdb::Status s = rocksdb::WriteStringToFile(Env(), damaged, path, /*should_sync=*/true);
  if (!s.ok()) return Finding("U5", "damaging " + path + ": " + s.ToString());
  model_->DamageLegacyFile(file == kCheckpointFileName ? "" : StoreOf(file));
  return std::nullopt;
}

CheckResult Sut::FaultyUpgrade(const Op& op) {
  if (options_.config.format != StateFormat::kLegacy) {
    return Finding("U2",
                   "faultyUpgrade: the task runs in the current format; the step needs "
                   "the legacy one");
  }
  if (CheckResult why = CloseCleanly("C1")) return why;
  task_.reset();
  log_.reset();
  shutdown_ = ShutdownFacts{};
  if (CheckResult why = OpenTheLog("U1")) return why;
  UseFormat(StateFormat::kCurrent);
  model_->SwitchConfig(ModelConfig());
  const LegacyFiles before = ReadLegacyFiles();
  if (CheckResult why = Arm(op)) return why;
  Status s = OpenTask(options_, NewProcessor(), &task_);
  const uint64_t fired = Disarm();
  if (s.ok()) {
    // The fault never fired where it could fail the upgrade: a plain upgrade, then (as the
    // step promised) on to `op.format`.
    previous_format_ = StateFormat::kLegacy;
    if (CheckResult why = CheckRestart(/*clean=*/true, before, /*interrupted=*/false)) {
      return why;
    }
    if (op.format == StateFormat::kCurrent) return std::nullopt;
    if (CheckResult why = CloseCleanly("C1")) return why;
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

CheckResult Sut::Crash(uint64_t tear_seed, bool task_open) {
  if (fault_env_.fs) fault_env_.fs->SetActive(false);  // Nothing written after the crash.
  if (task_open) task_->Abandon();
  task_.reset();
  log_.reset();
  if (CheckResult why = PowerLoss(tear_seed)) return why;
  return Restart(/*clean=*/false);
}

void Sut::NoteDown(Shutdown kind) {
  if (kind != Shutdown::kRevived) {
    CountCrash(/*power_loss=*/kind == Shutdown::kPowerLoss);
    ++crashes_since_commit_;
  }
  crash_processed_ = std::max(crash_processed_, model_->next_input_offset());
  shutdown_ = ShutdownFacts{};
  shutdown_.kind = kind;
}

CheckResult Sut::KeepGoing() {
  // What the log holds before the failed task is asked to do anything more.
  auto ends = [&](std::map<std::string, int64_t>* out) -> CheckResult {
    for (const std::string& partition : log_->Partitions()) {
      const Status s = log_->EndOffset(partition, &(*out)[partition]);
      // A log that refuses every call until it is reopened refuses this too: nothing to compare.
      if (s.code() == Status::Code::kFailedPrecondition) {
        out->clear();
        return std::nullopt;
      }
      if (!s.ok()) return Finding("F8", "EndOffset(" + partition + "): " + s.ToString());
    }
    return std::nullopt;
  };
  std::map<std::string, int64_t> ends_before, ends_after;
  if (CheckResult why = ends(&ends_before)) return why;
  int64_t processed = -1;
  const Status process = task_->Process(1, &processed);
  const Status commit = task_->Commit();
  const Status close = task_->Close();
  // Checks: F8 — a stopped task refuses Process, Commit and Close and writes nothing
  for (const auto& [call, s] : {std::pair<const char*, const Status&>{"Process", process},
                                {"Commit", commit},
                                {"Close", close}}) {
    if (s.code() != Status::Code::kFailedPrecondition) {
      return Finding("F8", std::string("the stopped task's ") + call + " returned " + s.ToString() +
                               ", not FailedPrecondition");
    }
  }
  if (processed != 0) {
    return Finding("F8", "the stopped task processed " + std::to_string(processed) + " records");
  }
  if (CheckResult why = ends(&ends_after)) return why;
  if (!ends_before.empty() && ends_after != ends_before) {
    return Finding("F8", "the stopped task wrote to the log while refusing to work");
  }
  // The log goes on unless it says it must be reopened (log.h, "Failures").
  const Status writable = log_->CheckWritable();
  if (!writable.ok() && writable.code() != Status::Code::kFailedPrecondition) {
    return Finding("F8", "CheckWritable: " + writable.ToString());
  }
  step_.revived = true;
  step_.log_reopened = !writable.ok();
  revived_since_commit_ = true;
  log_kept_after_failure_ = writable.ok();
  NoteDown(Shutdown::kRevived);
  if (!fault_env_.fs || !fault_env_.fs->SpaceLeft()) {
    return Restart(/*clean=*/false, std::nullopt, nullptr, /*keep_log=*/writable.ok());
  }
  // The disk is still full: a start now (the log reopened first if it must be) either starts
  // — a restart like any other — or fails cleanly; then the space returns.
  step_.full_disk_start = true;
  task_.reset();
  Status s;
  if (!writable.ok()) {
    log_.reset();
    log_kept_after_failure_ = false;
    s = OpenLog(LogOptionsFor(), &log_);
    options_.log = log_.get();
  }
  if (s.ok() && options_.config.isolation == IsolationLevel::kReadCommitted) {
    if (CheckResult why = CheckStoresOnDisk()) return why;
  }
  const LegacyFiles before = ReadLegacyFiles();
  if (s.ok()) s = OpenTask(options_, NewProcessor(), &task_);
  Disarm();  // The space comes back.
  if (s.ok()) {
    previous_format_ = format_;
    return CheckRestart(/*clean=*/false, before, /*interrupted_upgrade=*/false);
  }
  // Checks: F7 — a start on a disk that is still full fails with ENOSPC, said clearly
  if (!faults::IsInjectedFault(s) ||
      s.message().find("no space left on device") == std::string::npos) {
    return Finding("F7", "a start on a full disk failed with " + s.ToString() +
                             ", which does not say the disk is full (ENOSPC)");
  }
  step_.full_disk_start_failed = true;
  task_.reset();
  model_->StartInterrupted();
  const bool keep_log = log_ != nullptr && log_->CheckWritable().ok();
  return Restart(/*clean=*/false, std::nullopt, nullptr, keep_log);
}

faults::DurableDamage Sut::DrawDamage(uint64_t at, size_t candidates, uint64_t limit,
                                      const std::string& how) {
  faults::DurableDamage damage;
  damage.offset = (at / candidates) % limit;
  damage.kind =
      how == "zero" ? faults::DurableDamage::Kind::kZero : faults::DurableDamage::Kind::kFlipBit;
  damage.bit = static_cast<int>((at >> 24) % 8);
  damage.length = std::min<uint64_t>(1 + (at >> 28) % 16, limit - damage.offset);
  return damage;
}

CheckResult Sut::RepairDamage(const std::string& path, uint64_t offset,
                              const std::string& previous) {
  fault_env_.fs->SetActive(false);
  const Status s = fault_env_.fs->RepairDurable(path, offset, previous);
  fault_env_.fs->SetActive(true);
  if (!s.ok()) return Finding("F6", "repairing " + path + ": " + s.ToString());
  return std::nullopt;
}

CheckResult Sut::DamageLog(const Op& op) {
  if (!fault_env_.fs) return Finding("F6", "damageLog needs the fault file system");
  fault_env_.fs->SetActive(false);  // The process dies; nothing is lost.
  task_->Abandon();
  task_.reset();
  log_.reset();
  NoteDown(Shutdown::kCrash);
  const std::string log_dir = dir_ + "/log";
  LogSummary summary;
  Status s = InspectLog(log_dir, options_.env, &summary);
  if (!s.ok()) return Finding("F6", "inspecting the log before damaging it: " + s.ToString());
  // Where damage has a valid record after it: below the start of a partition's last record,
  // and durable; in a closed segment, anywhere durable.
  struct Candidate {
    std::string file;
    uint64_t limit;  // Bytes that qualify: [0, limit).
    uint64_t last_record_at;
    bool closed;
  };
  std::vector<Candidate> candidates;
  for (const LogPartitionSummary& p : summary.partitions) {
    // A swap file a failed compaction left is renamed by the next open: damage would be reported
    // under the name it takes there. Such a partition is left undamaged.
    if (p.swap_pending) continue;
    for (size_t i = 0; i < p.segments.size(); ++i) {
      const LogSegmentSummary& segment = p.segments[i];
      const bool closed = i + 1 < p.segments.size();
      const std::string file = log_dir + "/" + segment.file;
      const uint64_t limit = std::min(closed ? segment.bytes : p.last_record_at,
                                      fault_env_.fs->DurableSize(file).value_or(segment.bytes));
      if (limit > 0) candidates.push_back({file, limit, p.last_record_at, closed});
    }
  }
  if (candidates.empty()) {  // Nothing to damage yet: a crash like any other.
    fault_env_.fs->SetActive(true);
    return Restart(/*clean=*/false);
  }
  const uint64_t at = static_cast<uint64_t>(op.n);
  const auto& [file, limit, last_record_at, closed] = candidates[at % candidates.size()];
  const faults::DurableDamage damage = DrawDamage(at, candidates.size(), limit, op.damage);
  std::string previous;
  s = fault_env_.fs->DamageDurable(file, damage, &previous);
  fault_env_.fs->SetActive(true);  // The machine comes back with the damage on its disk.
  if (!s.ok()) return Finding("F6", "damaging " + file + ": " + s.ToString());
  const model::LogDamageOutcome expected =
      model::ExpectedLogDamageOutcome(damage.offset, previous.size(), last_record_at,
                                      damage.kind == faults::DurableDamage::Kind::kFlipBit ||
                                          previous.find_first_not_of('\0') != std::string::npos,
                                      closed);
  const std::string where = "byte " + std::to_string(damage.offset) + " of " + file + " (" +
                            op.damage + ", a valid record after it)";
  std::unique_ptr<Log> damaged;
  s = OpenLog(LogOptionsFor(), &damaged);
  damaged.reset();
  LogSummary inspected;
  const Status inspection = InspectLog(log_dir, options_.env, &inspected);
  // Checks: F6 — damage before valid records is Corruption naming the file and byte offset
  if (expected == model::LogDamageOutcome::kCorruption) {
    for (const auto& [who, status] : {std::pair<const char*, const Status&>{"opening the log", s},
                                      {"InspectLog", inspection}}) {
      if (status.ok()) {
        return Finding("F6", std::string(who) + " succeeded with " + where +
                                 " damaged: the records after it are gone or damaged ones served");
      }
      if (status.code() != Status::Code::kCorruption ||
          status.message().find(file) == std::string::npos ||
          status.message().find("byte offset") == std::string::npos) {
        return Finding("F6", std::string(who) + " with " + where + " damaged said " +
                                 status.ToString() +
                                 ", not Corruption naming the file and the byte offset");
      }
    }
    step_.log_damage = op.damage;
    step_.log_damage_found = true;
  } else if (expected == model::LogDamageOutcome::kUnchanged && !s.ok()) {
    return Finding("F6", "zeroing bytes that were zero already (" + where +
                             ") changed nothing, yet opening the log said " + s.ToString());
  }
  // The operator restores the file from a good copy; then the task starts as after a crash.
  if (CheckResult why = RepairDamage(file, damage.offset, previous)) return why;
  return Restart(/*clean=*/false);
}

CheckResult Sut::DamageStore(const Op& op) {
  if (!fault_env_.fs) return Finding("F6", "damageStore needs the fault file system");
  fault_env_.fs->SetActive(false);  // The process dies; nothing is lost.
  task_->Abandon();
  task_.reset();
  log_.reset();
  NoteDown(Shutdown::kCrash);
  // The durable bytes of the MANIFESTs and table files of every store (in that order per store:
  // `at` 0 damages the first MANIFEST) or, in the legacy format, of the task's .checkpoint and
  // the stores' .position files.
  struct Candidate {
    std::string file;
    uint64_t durable;    // Bytes.
    std::string legacy;  // A legacy file's name in the state directory, or "".
  };
  std::vector<Candidate> candidates;
  // `tail`: bytes at the end of the file left alone.
  auto add = [&](const std::string& file, const std::string& legacy, uint64_t tail = 0) {
    uint64_t size = 0;
    if (!Env()->GetFileSize(file, &size).ok() || size <= tail) return;
    const uint64_t durable = std::min(size - tail, fault_env_.fs->DurableSize(file).value_or(size));
    if (durable > 0) candidates.push_back({file, durable, legacy});
  };
  // A table file's data blocks and its index block only (RocksDB 7.8 writes them first, then
  // its properties block, its metaindex block and its 53-byte footer; their sizes come from the
  // table's properties, read before the damage). A start reads the index block, a read the data
  // blocks, and both verify a block's checksum before they parse it. Not the rest: nothing checks
  // the footer, and damage that zeroes its checksum-type byte turns off the checksums of the
  // blocks it points to; and the properties block is parsed before its checksum is verified (the
  // verification waits for an ingested file's global sequence number). Debian's build, assertions
  // on, then aborts on the misread block instead of returning Corruption (`statecheck run
  // --family task --seed 20261212` met the properties block 3 times in 10 minutes: `num_buckets_ >
  // 0` in DataBlockHashIndex::Initialize). Nothing the engine could catch short of parsing tables
  // itself (docs/spec.md, F6).
  auto table_tail = [&](const std::string& file) -> std::optional<uint64_t> {
    rocksdb::Options options;
    options.env = Env();
    rocksdb::SstFileReader reader(options);
    uint64_t size = 0;
    if (!reader.Open(file).ok() || !Env()->GetFileSize(file, &size).ok()) return std::nullopt;
    const auto props = reader.GetTableProperties();
    const uint64_t checked = props->data_size + props->filter_size + props->index_size;
    if (props->data_size == 0 || checked > size) return std::nullopt;
    return size - checked;
  };
  if (format_ == StateFormat::kLegacy) {
    for (const std::string& name : LegacyFileNames()) add(StatePath(name), name);
  } else {
    for (const std::string& store : model::TaskModel::StoreNames()) {
      const std::string dir = options_.state_directory + "/" + store;
      std::vector<std::string> children;
      if (!Env()->GetChildren(dir, &children).ok()) continue;
      std::sort(children.begin(), children.end());
      for (const std::string& child : children) {
        if (child.starts_with("MANIFEST-")) add(dir + "/" + child, "");
      }
      for (const std::string& child : children) {
        if (!child.ends_with(".sst")) continue;
        const std::string file = dir + "/" + child;
        if (const std::optional<uint64_t> tail = table_tail(file)) add(file, "", *tail);
      }
    }
  }
  if (candidates.empty()) {  // Nothing to damage yet: a crash like any other.
    fault_env_.fs->SetActive(true);
    return Restart(/*clean=*/false);
  }
  const uint64_t at = static_cast<uint64_t>(op.n);
  const auto& [file, durable, legacy] = candidates[at % candidates.size()];
  const faults::DurableDamage damage = DrawDamage(at, candidates.size(), durable, op.damage);
  std::string previous;
  Status s = fault_env_.fs->DamageDurable(file, damage, &previous);
  fault_env_.fs->SetActive(true);  // The machine comes back with the damage on its disk.
  if (!s.ok()) return Finding("F6", "damaging " + file + ": " + s.ToString());
  if (!legacy.empty()) return DamagedLegacyFile(legacy, op.damage, damage.offset, previous);
  std::string damaged;  // The file as damaged, to know it again.
  if (!rocksdb::ReadFileToString(Env(), file, &damaged).ok()) {
    return Finding("F6", "reading the damaged " + file + " back failed");
  }
  const std::string where =
      "byte " + std::to_string(damage.offset) + " of " + file + " (" + op.damage + ")";
  // Checks: F6 — damage to a store file is Corruption naming the store where read, never data
  // The damaged file, or (RocksDB 7.8 names the MANIFEST for a damaged table-properties block)
  // the store's directory.
  const std::string store_dir = file.substr(0, file.rfind('/') + 1);
  auto found_here = [&](const Status& status, const std::string& what) -> CheckResult {
    if (status.code() == Status::Code::kCorruption &&
        status.message().find(store_dir) != std::string::npos) {
      return std::nullopt;
    }
    return Finding("F6", what + " with " + where + " damaged said " + status.ToString() +
                             ", not Corruption naming the store's file");
  };
  // A start on the damaged store, and a read of every store it opened.
  std::map<std::string, model::StoreState> seen;  // What reads that worked returned.
  {
    std::unique_ptr<Log> log;
    std::unique_ptr<Task> task;
    s = OpenLog(LogOptionsFor(), &log);
    if (!s.ok()) return Finding("F2", "opening the log after a crash: " + s.ToString());
    TaskOptions options = options_;
    options.log = log.get();
    s = OpenTask(options, NewProcessor(), &task);
    if (!s.ok()) {
      if (CheckResult why = found_here(s, "the start")) return why;
      step_.store_damage_found =
          file.find("/MANIFEST-") != std::string::npos ? "start (manifest)" : "start";
    } else {
      for (const std::string& store : model::TaskModel::StoreNames()) {
        model::StoreState state;
        const Status read = ReadStoreState(*task->Store(store)->NewQueryView(), &state);
        if (read.ok()) {
          seen[store] = std::move(state);
          continue;
        }
        if (CheckResult why = found_here(read, "reading store " + store)) return why;
        step_.store_damage_found = "read";
      }
      task->Abandon();
    }
  }
  model_->StartInterrupted();  // The model did not see that start: it may have restored more.
  // The operator restores the file from a good copy, if the start left it: a wipe or a
  // compaction may have deleted it, and a wiped store's new database may have made a file of
  // the same name (a fresh MANIFEST-000005), which must not be touched. Then the task starts as
  // after a crash.
  std::string now;
  if (rocksdb::ReadFileToString(Env(), file, &now).ok() && now.starts_with(damaged)) {
    if (CheckResult why = RepairDamage(file, damage.offset, previous)) return why;
  }
  if (CheckResult why = Restart(/*clean=*/false)) return why;
  // What a read of the damaged store returned without an error is what the store holds.
  for (const auto& [store, state] : seen) {
    model::StoreState now;
    if (CheckResult why = ReadAll(task_->Store(store), /*view=*/true, &now, "F6")) return why;
    if (now != state) {
      return Finding("F6", "with " + where + " damaged, a read of store " + store + " returned " +
                               Show(state) + " and no error; the store holds " + Show(now));
    }
  }
  return std::nullopt;
}

CheckResult Sut::DamagedLegacyFile(const std::string& name, const std::string& how, uint64_t offset,
                                   const std::string& previous) {
  const std::string path = StatePath(name);
  std::string after;
  if (!rocksdb::ReadFileToString(Env(), path, &after).ok() || offset > after.size()) {
    return Finding("F6", "reading the damaged " + path + " back failed");
  }
  std::string before = after;
  before.replace(offset, previous.size(), previous);
  switch (model::ExpectedLegacyFileDamage(before, after)) {
    case model::LegacyFileDamage::kUnchanged:
      return Restart(/*clean=*/false);
    case model::LegacyFileDamage::kUndetectable: {
      // Another well-formed file: Kafka's format has no checksum, so no reader can tell. The
      // operator's good copy goes back before the start; nothing is checked of this damage.
      if (CheckResult why = RepairDamage(path, offset, previous)) return why;
      return Restart(/*clean=*/false);
    }
    case model::LegacyFileDamage::kUntrusted:
      break;
  }
  model_->DamageLegacyFile(name == kCheckpointFileName ? "" : StoreOf(name));
  step_.damaged_file = name;
  step_.damage = how;
  step_.legacy_damage = true;
  // The start must say so, naming the file, and wipe and restore what the file covered (U5).
  logs_->Take();
  if (CheckResult why = Restart(/*clean=*/false)) return why;
  const std::vector<std::string> lines = logs_->Take();
  // Checks: F6, U5 — a legacy file damaged so that it no longer reads is logged, naming the file
  if (std::none_of(lines.begin(), lines.end(), [&](const std::string& line) {
        return line.starts_with("[ERROR]") && line.find(path) != std::string::npos;
      })) {
    return Finding("U5", "byte " + std::to_string(offset) + " of " + path + " damaged (" + how +
                             ") so that it no longer reads, and the start logged no error naming "
                             "it");
  }
  return std::nullopt;
}

CheckResult Sut::FaultyRead(const Op& op) {
  struct Read {
    std::string what;  // "an IQ reader's scan of store kv", ...
    std::string rule;  // Whose check a wrong answer without a fault fails: T3/T4 or T5.
    Status status;
    model::StoreState got, expected;
  };
  std::vector<Read> reads;
  if (CheckResult why = Arm(op)) return why;
  for (const std::string& name : model::TaskModel::StoreNames()) {
    KeyValueStore* store = task_->Store(name);
    const std::shared_ptr<QueryView> view = store->NewQueryView();
    for (const bool iq : {true, false}) {
      ReadOnlyKeyValueStore& reader = iq ? static_cast<ReadOnlyKeyValueStore&>(*view) : *store;
      const std::string who = iq ? "an IQ reader's " : "the writer's ";
      const std::string rule = !iq                                                    ? "T5"
                               : store->isolation() == IsolationLevel::kReadCommitted ? "T4"
                                                                                      : "T3";
      const model::StoreState expected = iq ? model_->QueryView(name) : model_->Current(name);
      Read scan{who + "scan of store " + name, rule, Status::Ok(), {}, expected};
      scan.status = ReadStoreState(reader, &scan.got);
      reads.push_back(std::move(scan));
      std::vector<std::string> keys = {"absent"};
      for (const auto& [key, value] : expected) keys.push_back(key);
      for (const std::string& key : keys) {
        Read get{who + "Get(" + key + ") of store " + name, rule, Status::Ok(), {}, {}};
        if (auto it = expected.find(key); it != expected.end()) get.expected.insert(*it);
        std::optional<std::string> value;
        get.status = reader.Get(key, &value);
        if (value) get.got[key] = *value;
        reads.push_back(std::move(get));
      }
    }
  }
  const uint64_t fired = Disarm();
  for (const Read& r : reads) {
    if (r.status.ok()) {
      // Checks: F1 — a read that met an injected fault fails with it, never returns less
      if (r.got != r.expected) {
        return Finding(fired > 0 ? "F1" : r.rule, r.what + " returned " + Show(r.got) +
                                                      " and no error (" + std::to_string(fired) +
                                                      " injected faults fired), the model " +
                                                      Show(r.expected));
      }
    } else if (!ExplainedByInjectedFault(r.status, fired)) {
      return Finding("F1",
                     r.what + " failed with " + r.status.ToString() + ", not the injected fault");
    } else {
      ++step_.reads_failed;
    }
  }
  // Checks: F8 — a failed read fails that read only; the task goes on (the checks read again)
  if (task_->failed()) {
    return Finding("F8", "the task stopped after " + std::to_string(step_.reads_failed) +
                             " failed reads: a read error fails the read only");
  }
  return std::nullopt;
}

CheckResult Sut::FaultyClose(const Op& op) {
  if (CheckResult why = Arm(op)) return why;
  CheckResult closed = CloseCleanly("F8");
  const uint64_t fired = Disarm();
  // Checks: F8 — a close that cannot clear a store's marker still closes, and says which store
  if (closed) {
    return Finding("F8", closed->message + " (" + op.point + " armed, " + std::to_string(fired) +
                             " fired; a marker it could not clear fails no close)");
  }
  std::set<std::string> lost;
  for (const std::string& line : logs_->Take()) {
    if (!line.starts_with("[ERROR]") ||
        line.find("could not clear its open-status marker") == std::string::npos) {
      continue;
    }
    for (const std::string& store : model::TaskModel::StoreNames()) {
      if (line.find("store " + store + ":") != std::string::npos) lost.insert(store);
    }
  }
  if (lost.size() != fired) {
    return Finding("F8", std::to_string(fired) +
                             " marker writes failed in the close, and it logged an error naming " +
                             std::to_string(lost.size()) + " stores");
  }
  for (const std::string& store : lost) model_->CloseMarkerLost(store);
  if (CheckResult why = Restart(/*clean=*/true)) return why;
  if (lost.empty()) return std::nullopt;
  Reached("F8.lost_close_marker_restarts_as_crash");
  // A store that lost its marker was wiped (T10), not restored from its offset.
  bool wiped = false;
  for (const std::string& store : lost) wiped = wiped || model_->last_restart().at(store).wiped;
  // Recovered: the next clean close clears every marker, and the start after it is clean.
  if (CheckResult why = CloseCleanly("F8")) return why;
  converging_ = true;
  CheckResult why = Restart(/*clean=*/true);
  converging_ = false;
  if (!why) Reached(wiped ? "L1.lost_marker_wiped_once" : "L1.lost_marker_restored_once");
  return why;
}

CheckResult Sut::PowerLoss(uint64_t tear_seed) {
  NoteDown(config_.power_loss ? Shutdown::kPowerLoss : Shutdown::kCrash);
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

}  // namespace statecheck::properties::task
