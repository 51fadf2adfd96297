#include "engine/runtime/legacy_files.h"

#include <utility>

namespace statecheck::internal {

LegacyFiles::LegacyFiles(rocksdb::Env* env, std::string state_directory, std::string task_id,
                         std::shared_ptr<Logger> logger)
    : env_(env),
      state_directory_(std::move(state_directory)),
      task_id_(std::move(task_id)),
      logger_(std::move(logger)) {}

std::string LegacyFiles::CheckpointPath() const {
  return state_directory_ + "/" + kCheckpointFileName;
}

std::string LegacyFiles::PositionPath(const std::string& store) const {
  return state_directory_ + "/" + store + kPositionFileSuffix;
}

Status LegacyFiles::Load(const std::vector<LegacyStore>& stores) {
  std::vector<std::string> warnings;
  Status s = ReadOffsetCheckpoint(env_, CheckpointPath(), &checkpoint_, &warnings);
  if (s.code() == Status::Code::kIOError) return s;
  found_ = !s.ok() || !checkpoint_.empty() || !warnings.empty();
  checkpoint_damaged_ = Untrusted(s, warnings, CheckpointPath(), "every store of the task");
  if (checkpoint_damaged_) checkpoint_.clear();
  std::set<std::string> changelogs;
  for (const LegacyStore& store : stores) {
    const std::string& name = store.name;
    changelogs.insert(store.changelog);
    warnings.clear();
    CheckpointOffsets entries;
    s = ReadOffsetCheckpoint(env_, PositionPath(name), &entries, &warnings);
    if (s.code() == Status::Code::kIOError) return s;
    found_ = found_ || !s.ok() || !entries.empty() || !warnings.empty();
    for (const auto& [tp, offset] : entries) {
      if (tp.partition != 0 && s.ok()) {
        s = Status::Corruption(PositionPath(name) + ": entry " + tp.topic + " " +
                               std::to_string(tp.partition) +
                               " names a partition other than 0, which this engine never "
                               "writes");
      }
      if (offset != kOffsetUnknown) positions_[name][tp.topic] = offset;
    }
    if (Untrusted(s, warnings, PositionPath(name), "store " + name)) {
      position_damaged_.insert(name);
      positions_.erase(name);
    }
  }
  for (const auto& [tp, offset] : checkpoint_) {
    if (tp.partition != 0 || !changelogs.count(tp.topic)) {
      logger_->Log(LogLevel::kWarn, CheckpointPath() + ": entry " + tp.topic + " " +
                                        std::to_string(tp.partition) +
                                        " names no changelog of task " + task_id_ + ": ignored");
    }
  }
  return Status::Ok();
}

bool LegacyFiles::Untrusted(const Status& s, const std::vector<std::string>& warnings,
                            const std::string& file, const std::string& covers) const {
  for (const std::string& w : warnings) logger_->Log(LogLevel::kWarn, w);
  // Keeps: U5 — any content error or skipped entry: logged, and the file is not trusted
  if (s.ok() && warnings.empty()) return false;
  logger_->Log(LogLevel::kError,
               "Task " + task_id_ + ": " +
                   (s.ok() ? "an entry of " + file + " was invalid" : s.message()) +
                   ". Not trusting " + file + ": " + covers +
                   " will be wiped and restored from the changelog.");
  return true;
}

LegacyEntry LegacyFiles::EntryOf(const LegacyStore& store, int64_t* offset) const {
  if (checkpoint_damaged_ || position_damaged_.count(store.name)) return LegacyEntry::kUntrusted;
  auto it = checkpoint_.find({store.changelog, 0});
  if (it == checkpoint_.end()) return LegacyEntry::kMissing;
  if (it->second == kOffsetUnknown) return LegacyEntry::kUnknown;
  *offset = it->second;
  return LegacyEntry::kOffset;
}

Position LegacyFiles::PositionOf(const std::string& store) const {
  auto it = positions_.find(store);
  return it == positions_.end() ? Position{} : it->second;
}

Status LegacyFiles::Delete(const std::vector<LegacyStore>& stores) const {
  STATECHECK_RETURN_IF_ERROR(DeleteOffsetCheckpoint(env_, CheckpointPath()));
  for (const LegacyStore& store : stores) {
    STATECHECK_RETURN_IF_ERROR(DeleteOffsetCheckpoint(env_, PositionPath(store.name)));
  }
  return Status::Ok();
}

Status LegacyFiles::Write(const std::vector<LegacyStoreState>& stores) const {
  CheckpointOffsets offsets;
  for (const LegacyStoreState& st : stores) {
    offsets[{st.changelog, 0}] = st.last_changelog_offset.value_or(kOffsetUnknown);
  }
  STATECHECK_RETURN_IF_ERROR(WriteOffsetCheckpoint(env_, CheckpointPath(), offsets));
  for (const LegacyStoreState& st : stores) {
    CheckpointOffsets position;
    for (const auto& [partition, offset] : st.committed_position) position[{partition, 0}] = offset;
    STATECHECK_RETURN_IF_ERROR(WriteOffsetCheckpoint(env_, PositionPath(st.name), position));
  }
  return Status::Ok();
}

}  // namespace statecheck::internal
