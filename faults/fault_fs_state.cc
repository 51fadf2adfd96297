#include "faults/fault_fs_state.h"

#include <algorithm>
#include <random>

namespace statecheck::faults::internal {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// `path` with repeated slashes collapsed and no trailing slash, so that a directory's name and
// the parent of the files in it compare equal.
std::string Normalize(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string Parent(const std::string& normalized) {
  const size_t slash = normalized.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return normalized.substr(0, slash);
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::array<FsCounter, kNumFsOps * kNumFileKinds>& FsCounters() {
  static std::array<FsCounter, kNumFsOps * kNumFileKinds> counters;
  return counters;
}

std::array<std::atomic<uint64_t>, kNumFileKinds + 1>& DamageCounters() {
  static std::array<std::atomic<uint64_t>, kNumFileKinds + 1> counters{};
  return counters;
}

Pass::~Pass() {
  if (state_ != nullptr) state_->Leave();
}

IOStatus TruncateOnBase(rocksdb::FileSystem* base, const std::string& path, uint64_t size) {
  IOStatus s = base->Truncate(path, size, IOOptions(), nullptr);
  if (!s.IsNotSupported()) return s;
  std::unique_ptr<rocksdb::FSWritableFile> file;
  s = base->ReopenWritableFile(path, FileOptions(), &file, nullptr);
  if (s.ok()) s = file->Truncate(size, IOOptions(), nullptr);
  if (s.ok()) s = file->Sync(IOOptions(), nullptr);
  if (file != nullptr) {
    IOStatus c = file->Close(IOOptions(), nullptr);
    if (s.ok()) s = c;
  }
  return s;
}

IOStatus FaultFsState::Revert(const PendingOp& op, PowerLossStats* stats) {
  const IOOptions io;
  switch (op.type) {
    case PendingOp::Type::kCreate: {
      files_.erase(op.path);
      if (base_->FileExists(op.path, io, nullptr).IsNotFound()) return IOStatus::OK();
      ++stats->files_deleted;
      return base_->DeleteFile(op.path, io, nullptr);
    }
    case PendingOp::Type::kRename: {
      MoveState(op.target, op.path);
      IOStatus s;
      if (!base_->FileExists(op.target, io, nullptr).IsNotFound()) {
        s = base_->RenameFile(op.target, op.path, io, nullptr);
      }
      if (s.ok() && op.saved) s = WriteWhole(op.target, *op.saved);
      ++stats->renames_reverted;
      return s;
    }
    case PendingOp::Type::kDelete:
      files_.erase(op.path);
      if (!op.saved) return IOStatus::OK();
      ++stats->deletes_restored;
      return WriteWhole(op.path, *op.saved);
  }
  return IOStatus::OK();
}

Status FaultFsState::SimulatePowerLoss(const PowerLossOptions& options) {
  // Held throughout: no operation is admitted (or going up) while the power is out.
  std::unique_lock<std::mutex> gate(gate_mu_);
  if (active_) {
    return Status::FailedPrecondition(
        "SimulatePowerLoss needs the file system shut down first (SetActive(false))");
  }
  drained_.wait(gate, [this] { return in_flight_ == 0; });
  std::lock_guard<std::mutex> lock(mu_);
  PowerLossStats stats;
  IOStatus first;
  auto note = [&first](const IOStatus& s) {
    if (first.ok() && !s.ok()) first = s;
  };
  for (auto op = pending_.rbegin(); op != pending_.rend(); ++op) note(Revert(*op, &stats));
  std::mt19937_64 rng(options.seed);
  for (const auto& [path, state] : files_) {
    uint64_t size = 0;
    IOStatus s = base_->GetFileSize(path, IOOptions(), &size, nullptr);
    if (s.IsNotFound() || s.IsPathNotFound()) continue;
    note(s);
    if (!s.ok() || size <= state->durable_size) continue;
    uint64_t keep = state->durable_size;
    if (options.torn_writes) {
      keep += std::uniform_int_distribution<uint64_t>(0, size - state->durable_size)(rng);
    }
    if (keep == size) continue;
    s = TruncateOnBase(base_.get(), path, keep);
    note(s);
    if (s.ok()) {
      stats.bytes_dropped += size - keep;
      ++stats.files_truncated;
    }
  }
  files_.clear();
  pending_.clear();
  ++epoch_;
  last_ = stats;
  if (!first.ok()) {
    return Status::IOError("simulated power loss: the base file system failed: " +
                           first.ToString());
  }
  return Status::Ok();
}

}  // namespace statecheck::faults::internal
