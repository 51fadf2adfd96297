// The fault file system's shared state (faults/fault_fs.h): which bytes of each file are durable,
// the creates, renames and deletes a directory fsync has not yet made durable, the gate that
// admits operations while the file system is up, the space quota, and what a power loss reverts.
// Internal to faults/: fault_fs.cc wraps RocksDB's handles around it, fault_fs_state.cc reverts
// at a power loss, fault_fs_catalogue.cc names and counts the fail points.
#ifndef STATECHECK_FAULTS_FAULT_FS_STATE_H_
#define STATECHECK_FAULTS_FAULT_FS_STATE_H_

#include <fiu.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faults/fault_fs.h"

namespace statecheck::faults::internal {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// Paths, as the state keys them.
bool EndsWith(std::string_view s, std::string_view suffix);
bool StartsWith(std::string_view s, std::string_view prefix);
bool AllDigits(std::string_view s);
// `path` with repeated slashes collapsed and no trailing slash, so that a directory's name and
// the parent of the files in it compare equal.
std::string Normalize(std::string_view path);
std::string Parent(const std::string& normalized);
std::string_view Basename(std::string_view path);

// The verb of `op` in fail-point names ("append", "sync", ...).
const char* FsOpName(FsOp op);

// Truncates `path` on `base`: by name where the base can, else through a reopened handle.
IOStatus TruncateOnBase(rocksdb::FileSystem* base, const std::string& path, uint64_t size);

// The durability of one file's contents (one inode: it follows the file through renames).
struct FileState {
  uint64_t size = 0;          // Bytes written, as far as this file system saw.
  uint64_t durable_size = 0;  // Bytes that survive a power loss.
};

// A create, rename or delete whose directory entry is not yet durable.
struct PendingOp {
  enum class Type { kCreate, kRename, kDelete };
  Type type = Type::kCreate;
  uint64_t seq = 0;
  std::string path;                  // Created or deleted path; the source of a rename.
  std::string target;                // The target of a rename.
  std::optional<std::string> saved;  // A deleted file's, or an overwritten target's, durable bytes.
  std::vector<std::string> dirs;     // Directories whose fsync is still needed.
};

// Per fail point (op × kind): how often reached and fired, process-wide (FsFailPointCounts).
struct FsCounter {
  std::atomic<uint64_t> reached{0};
  std::atomic<uint64_t> fired{0};
};
std::array<FsCounter, kNumFsOps * kNumFileKinds>& FsCounters();
// Per file kind: durable damages (DurableDamageCounts); the last slot counts the .position files
// among the kCheckpoint ones.
inline constexpr int kPositionDamageSlot = kNumFileKinds;
std::array<std::atomic<uint64_t>, kNumFileKinds + 1>& DamageCounters();

class FaultFsState;

// Proof that a mutating operation was admitted (see FaultFsState::Admit); leaves on destruction.
class Pass {
 public:
  Pass() = default;
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;
  ~Pass();

 private:
  friend class FaultFsState;
  FaultFsState* state_ = nullptr;
};

// Everything a FaultFileSystem and its handles share. Lock order: gate_mu_, then mu_.
class FaultFsState {
 public:
  explicit FaultFsState(std::shared_ptr<rocksdb::FileSystem> base) : base_(std::move(base)) {}

  rocksdb::FileSystem* base() const { return base_.get(); }

  // Admits one mutating operation (`verb` `path`) on a handle opened in `epoch` (or, for
  // kCurrentEpoch, on the file system): `*pass` counts it in flight until the pass is
  // destroyed, so that SetActive(false) and SimulatePowerLoss wait for it. Sets `*epoch_out`
  // (if not null) to the current epoch. An injected IOError if the file system is down or the
  // handle is stale.
  static constexpr uint64_t kCurrentEpoch = ~uint64_t{0};
  IOStatus Admit(Pass* pass, uint64_t epoch, std::string_view verb, const std::string& path,
                 uint64_t* epoch_out = nullptr) {
    std::lock_guard<std::mutex> lock(gate_mu_);
    if (epoch_out != nullptr) *epoch_out = epoch_;
    if (active_ && (epoch == kCurrentEpoch || epoch == epoch_)) {
      ++in_flight_;
      pass->state_ = this;
      return IOStatus::OK();
    }
    return IOStatus::IOError(std::string(kInjectedFaultMarker) + "statecheck/fs/down: " +
                             (active_ ? "the handle was opened before a simulated power loss"
                                      : "the file system is down (a simulated crash)") +
                             ": " + std::string(verb) + " " + path);
  }

  // Ends an operation admitted by Admit.
  void Leave() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    if (--in_flight_ == 0) drained_.notify_all();
  }

  // The current epoch (handles opened now die at the next power loss).
  uint64_t CurrentEpoch() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    return epoch_;
  }

  // The injected error if fail point (op, kind) fires, else OK.
  // OK, or the error of the point of `op` on `kind` when it fires: EIO, ENOSPC, or (failnum 3,
  // FaultSpec::Error::kShortWrite) an I/O error with `*short_write` set, for the caller to write
  // part of its data first.
  static IOStatus MaybeFail(FsOp op, FileKind kind, const std::string& path,
                            bool* short_write = nullptr) {
    const std::string& name = FsFailPointName(op, kind);
    FsCounter& counter =
        FsCounters()[static_cast<int>(op) * kNumFileKinds + static_cast<int>(kind)];
    ++counter.reached;
    const int failnum = fiu_fail(name.c_str());
    if (failnum == 0) return IOStatus::OK();
    ++counter.fired;
    const std::string message = std::string(kInjectedFaultMarker) + name + " (" + path + ")";
    if (failnum == 2) return IOStatus::NoSpace(message + ": no space left on device");
    if (failnum == 3 && short_write != nullptr) {
      *short_write = true;
      return IOStatus::IOError(message + ": short write");
    }
    return IOStatus::IOError(message);
  }

  void RegisterLogDirectory(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    log_dirs_.push_back(Normalize(path));
  }

  bool InLogDirectory(const std::string& normalized) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& dir : log_dirs_) {
      if (normalized == dir || (StartsWith(normalized, dir) && normalized.size() > dir.size() &&
                                (normalized[dir.size()] == '/' || dir == "/"))) {
        return true;
      }
    }
    return false;
  }

  FileKind KindOf(const std::string& path) const {
    const std::string normalized = Normalize(path);
    if (InLogDirectory(normalized)) return FileKind::kLog;
    const std::string_view name = Basename(normalized);
    if (StartsWith(name, ".checkpoint") || EndsWith(name, ".position") ||
        EndsWith(name, ".position.tmp")) {
      return FileKind::kCheckpoint;
    }
    if (EndsWith(name, ".log") && AllDigits(name.substr(0, name.size() - 4))) {
      return FileKind::kWal;
    }
    if (EndsWith(name, ".sst")) return FileKind::kSst;
    if (StartsWith(name, "MANIFEST-")) return FileKind::kManifest;
    if (name == "CURRENT" ||
        (EndsWith(name, ".dbtmp") && AllDigits(name.substr(0, name.size() - 6)))) {
      return FileKind::kCurrent;
    }
    if (IsRocksDBOptionsFile(name)) return FileKind::kOptions;
    return FileKind::kOther;
  }

  FileKind DirKind(const std::string& dir, const rocksdb::DirFsyncOptions* options) const {
    if (InLogDirectory(Normalize(dir))) return FileKind::kLog;
    if (options != nullptr && options->reason == rocksdb::DirFsyncOptions::kFileRenamed &&
        !options->renamed_new_name.empty()) {
      return KindOf(options->renamed_new_name);
    }
    return FileKind::kOther;
  }

  // Called by an admitted operation, after the base opened `path` for writing. `existed`:
  // whether it existed before; `truncated`: whether opening emptied it.
  std::shared_ptr<FileState> TrackOpen(const std::string& path, bool existed, bool truncated) {
    const std::string key = Normalize(path);
    uint64_t size = 0;
    if (existed && !truncated) {
      // A file we did not see written is durable as it is.
      if (!base_->GetFileSize(path, IOOptions(), &size, nullptr).ok()) size = 0;
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<FileState>& state = files_[key];
    if (state == nullptr) {
      state = std::make_shared<FileState>();
      state->size = state->durable_size = size;
    } else if (truncated) {
      state->size = state->durable_size = 0;
    }
    if (!existed) AddPending({PendingOp::Type::kCreate, 0, key, "", std::nullopt, {Parent(key)}});
    return state;
  }

  // The durable bytes of `path`, read from the base; nullopt if it does not exist.
  IOStatus ReadDurable(const std::string& path, std::optional<std::string>* out) {
    out->reset();
    if (base_->FileExists(path, IOOptions(), nullptr).IsNotFound()) return IOStatus::OK();
    std::string data;
    IOStatus s = ReadBase(path, DurableSizeOf(path).value_or(UINT64_MAX), &data);
    if (!s.ok()) return s;
    *out = std::move(data);
    return IOStatus::OK();
  }

  // Up to `limit` bytes of `path` from the base, from its start.
  IOStatus ReadBase(const std::string& path, uint64_t limit, std::string* data) {
    data->clear();
    if (limit == 0) return IOStatus::OK();  // Nothing durable to read.
    std::unique_ptr<rocksdb::FSSequentialFile> file;
    IOStatus s = base_->NewSequentialFile(path, FileOptions(), &file, nullptr);
    // Not zeroed: Read overwrites what it returns (zeroing 64 KiB at every delete and rename
    // was 0.65% of a task case's samples).
    const size_t scratch_size = static_cast<size_t>(std::min<uint64_t>(limit, 1 << 16));
    const auto scratch = std::make_unique_for_overwrite<char[]>(scratch_size);
    while (s.ok() && data->size() < limit) {
      Slice chunk;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(scratch_size, limit - data->size()));
      s = file->Read(n, IOOptions(), &chunk, scratch.get(), nullptr);
      if (!s.ok() || chunk.empty()) break;
      data->append(chunk.data(), chunk.size());
    }
    return s;
  }

  // After the base deleted `path`, whose durable bytes were `saved`.
  void TrackDelete(const std::string& path, std::optional<std::string> saved) {
    const std::string key = Normalize(path);
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(key);
    AddPending({PendingOp::Type::kDelete, 0, key, "", std::move(saved), {Parent(key)}});
  }

  // After the base renamed `src` onto `dst`, whose durable bytes were `saved_dst`.
  void TrackRename(const std::string& src, const std::string& dst,
                   std::optional<std::string> saved_dst) {
    const std::string from = Normalize(src);
    const std::string to = Normalize(dst);
    std::lock_guard<std::mutex> lock(mu_);
    MoveState(from, to);
    std::vector<std::string> dirs = {Parent(from)};
    if (Parent(to) != dirs[0]) dirs.push_back(Parent(to));
    AddPending({PendingOp::Type::kRename, 0, from, to, std::move(saved_dst), std::move(dirs)});
  }

  // After `file` (or the file at `path`, if `file` is null) was truncated to `size`.
  void TrackTruncate(const std::shared_ptr<FileState>& file, const std::string& path,
                     uint64_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    FileState* state = file.get();
    if (state == nullptr) {
      auto it = files_.find(Normalize(path));
      if (it == files_.end()) return;  // Untracked: durable at its new size.
      state = it->second.get();
    }
    state->size = size;
    state->durable_size = std::min(state->durable_size, size);
  }

  // After `n` bytes were written at `offset` (or appended, if offset is nullopt).
  void TrackWrite(FileState* file, std::optional<uint64_t> offset, uint64_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    file->size = offset ? std::max(file->size, *offset + n) : file->size + n;
  }

  uint64_t SizeOf(FileState* file) {
    std::lock_guard<std::mutex> lock(mu_);
    return file->size;
  }

  // After a sync that began when `file` had `size` bytes.
  void TrackSync(FileState* file, uint64_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    file->durable_size = std::min(std::max(file->durable_size, size), file->size);
  }

  uint64_t NextSeq() {
    std::lock_guard<std::mutex> lock(mu_);
    return next_seq_;
  }

  // After a fsync of `dir` that began when NextSeq() was `seq`: the operations before it in
  // that directory are durable there.
  void TrackDirFsync(const std::string& dir, uint64_t seq) {
    const std::string key = Normalize(dir);
    std::lock_guard<std::mutex> lock(mu_);
    for (PendingOp& op : pending_) {
      if (op.seq >= seq) break;
      op.dirs.erase(std::remove(op.dirs.begin(), op.dirs.end(), key), op.dirs.end());
    }
    std::erase_if(pending_, [](const PendingOp& op) { return op.dirs.empty(); });
  }

  // Going down refuses new operations at once, then waits for those in flight: operations
  // never starve it, as they would a reader-preferring rwlock.
  void SetActive(bool active) {
    std::unique_lock<std::mutex> lock(gate_mu_);
    active_ = active;
    if (!active) drained_.wait(lock, [this] { return in_flight_ == 0; });
  }

  bool IsActive() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    return active_;
  }

  void SetSpaceLeft(std::optional<uint64_t> bytes) {
    std::lock_guard<std::mutex> lock(gate_mu_);
    space_left_ = bytes;
  }
  std::optional<uint64_t> SpaceLeft() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    return space_left_;
  }

  // Takes `n` bytes of the space left for a write to `path`; the disk-full error (ENOSPC) when
  // fewer are left, and nothing is taken: the write must not happen.
  IOStatus TakeSpace(uint64_t n, const std::string& path) {
    std::lock_guard<std::mutex> lock(gate_mu_);
    if (!space_left_) return IOStatus::OK();
    if (n > *space_left_) {
      ++full_disk_refusals_;
      return IOStatus::NoSpace(std::string(kInjectedFaultMarker) + "statecheck/fs/full (" + path +
                               "): no space left on device (" + std::to_string(*space_left_) +
                               " bytes left, " + std::to_string(n) + " to write)");
    }
    *space_left_ -= n;
    return IOStatus::OK();
  }
  uint64_t FullDiskRefusals() {
    std::lock_guard<std::mutex> lock(gate_mu_);
    return full_disk_refusals_;
  }

  Status SimulatePowerLoss(const PowerLossOptions& options);

  std::optional<uint64_t> DurableSizeOf(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(Normalize(path));
    if (it == files_.end()) return std::nullopt;
    return it->second->durable_size;
  }

  // Rewrites bytes [offset, offset + length) of `path` on the base with `change` (which gets
  // them and changes them in place), the rest kept; `*previous` receives them as they were. No
  // tracking changes: sizes stay, the disk changed under them. InvalidArgument past the end.
  Status Rewrite(const std::string& path, uint64_t offset, uint64_t length,
                 const std::function<void(std::string*)>& change, std::string* previous) {
    std::lock_guard<std::mutex> gate(gate_mu_);
    if (active_) {
      return Status::FailedPrecondition(
          "damaging or repairing a file needs the file system shut down first "
          "(SetActive(false)): the engine is down while its disk changes");
    }
    std::string data;
    IOStatus s = ReadBase(path, UINT64_MAX, &data);
    if (s.IsNotFound() || s.IsPathNotFound()) return Status::NotFound("no file " + path);
    if (s.ok() && offset + length > data.size()) {
      return Status::InvalidArgument("bytes " + std::to_string(offset) + " to " +
                                     std::to_string(offset + length) + " are past the end of " +
                                     path + " (" + std::to_string(data.size()) + " bytes)");
    }
    if (s.ok()) {
      *previous = data.substr(offset, length);
      std::string bytes = *previous;
      change(&bytes);
      data.replace(offset, length, bytes);
      s = WriteWhole(path, data);
    }
    if (!s.ok()) return Status::IOError("rewriting " + path + ": " + s.ToString());
    return Status::Ok();
  }

  PowerLossStats LastPowerLoss() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  void AddPending(PendingOp op) {
    op.seq = next_seq_++;
    pending_.push_back(std::move(op));
  }

  void MoveState(const std::string& from, const std::string& to) {
    auto it = files_.find(from);
    if (it == files_.end()) {
      files_.erase(to);
      return;
    }
    std::shared_ptr<FileState> state = std::move(it->second);
    files_.erase(it);
    files_[to] = std::move(state);
  }

  // Replaces `path` with a file of `data`, synced.
  IOStatus WriteWhole(const std::string& path, const std::string& data) {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = base_->NewWritableFile(path, FileOptions(), &file, nullptr);
    if (s.ok()) s = file->Append(data, IOOptions(), nullptr);
    if (s.ok()) s = file->Sync(IOOptions(), nullptr);
    if (file != nullptr) {
      IOStatus c = file->Close(IOOptions(), nullptr);
      if (s.ok()) s = c;
    }
    return s;
  }

  // Undoes one pending operation on the base. REQUIRES: mu_ and gate_mu_ held.
  IOStatus Revert(const PendingOp& op, PowerLossStats* stats);

  const std::shared_ptr<rocksdb::FileSystem> base_;

  std::mutex gate_mu_;
  std::condition_variable drained_;  // Signalled when in_flight_ drops to 0.
  bool active_ = true;
  uint64_t epoch_ = 0;                  // Bumped by each power loss; older handles are dead.
  int in_flight_ = 0;                   // Admitted mutating operations not yet done.
  std::optional<uint64_t> space_left_;  // Unset: no quota (SetSpaceLeft).
  uint64_t full_disk_refusals_ = 0;

  mutable std::mutex mu_;
  std::vector<std::string> log_dirs_;
  std::map<std::string, std::shared_ptr<FileState>> files_;  // By normalized path.
  std::vector<PendingOp> pending_;                           // Oldest first.
  uint64_t next_seq_ = 0;
  PowerLossStats last_;
};

}  // namespace statecheck::faults::internal

#endif  // STATECHECK_FAULTS_FAULT_FS_STATE_H_
