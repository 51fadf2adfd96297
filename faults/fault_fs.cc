#include "faults/fault_fs.h"

#include <fiu.h>
#include <rocksdb/system_clock.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <utility>

namespace statecheck::faults {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {

constexpr std::string_view kMarkerPrefix = "injected fault: statecheck/";

constexpr std::array<const char*, kNumFsOps> kOpNames = {"open",       "append",  "pwrite", "sync",
                                                         "range_sync", "rename",  "delete", "read",
                                                         "dir_fsync",  "truncate"};
constexpr std::array<const char*, kNumFsOps> kOpDescriptions = {
    "opening the file (any mode, a lock, or a directory handle) fails",
    "an append fails and writes nothing",
    "a positioned write (PositionedAppend, RandomRWFile::Write) fails and writes nothing",
    "a Sync/Fsync fails and makes nothing durable",
    "a RangeSync fails",
    "renaming onto the file fails; both names stay as they were",
    "deleting the file fails; it stays",
    "a read fails",
    "a directory fsync fails; no pending create, rename or delete in it becomes durable",
    "truncating the file fails; its size stays"};
constexpr std::array<const char*, kNumFileKinds> kKindNames = {
    "wal", "sst", "manifest", "current", "options", "log", "checkpoint", "other"};
constexpr std::array<const char*, kNumFileKinds> kKindDescriptions = {
    "RocksDB WAL (<digits>.log)",
    "RocksDB table file (*.sst)",
    "RocksDB MANIFEST-*",
    "RocksDB CURRENT and its <digits>.dbtmp temp file",
    "RocksDB OPTIONS-*",
    "the embedded log (files under a registered log directory)",
    ".checkpoint and *.position files",
    "any other file (IDENTITY, LOCK, LOG, ...)"};

const std::array<std::array<std::string, kNumFileKinds>, kNumFsOps>& NameTable() {
  static const auto* table = [] {
    auto* t = new std::array<std::array<std::string, kNumFileKinds>, kNumFsOps>;
    for (int op = 0; op < kNumFsOps; ++op) {
      for (int kind = 0; kind < kNumFileKinds; ++kind) {
        (*t)[op][kind] = std::string("statecheck/fs/") + kOpNames[op] + "/" + kKindNames[kind];
      }
    }
    return t;
  }();
  return *table;
}

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

}  // namespace

bool IsInjectedFault(std::string_view message) {
  return message.find(kMarkerPrefix) != std::string_view::npos;
}
bool IsInjectedFault(const rocksdb::Status& status) {
  return !status.ok() && IsInjectedFault(status.ToString());
}
bool IsInjectedFault(const Status& status) {
  return !status.ok() && IsInjectedFault(status.message());
}

const std::string& FsFailPointName(FsOp op, FileKind kind) {
  return NameTable()[static_cast<int>(op)][static_cast<int>(kind)];
}

// Why the engine never performs `op` on a file of `kind` ("" when it does), as the fault sweep
// measures (RocksDB 7.8 as the engine configures it, the log, the legacy files).
std::string UnreachableBecause(FsOp op, FileKind kind) {
  switch (op) {
    case FsOp::kPwrite:
      return "RocksDB writes with PositionedAppend only under direct I/O, which the engine never "
             "enables; the log and the legacy files append";
    case FsOp::kRangeSync:
      return "RocksDB calls RangeSync only with bytes_per_sync or wal_bytes_per_sync set; the "
             "engine leaves both at 0";
    case FsOp::kRename:
      if (kind == FileKind::kWal || kind == FileKind::kSst || kind == FileKind::kManifest ||
          kind == FileKind::kLog) {
        return "nothing renames a file of this kind (RocksDB renames only its CURRENT and "
               "OPTIONS temp files, the legacy files their .tmp)";
      }
      return "";
    case FsOp::kDelete:
      return kind == FileKind::kLog ? "the log never deletes its partition files" : "";
    case FsOp::kDirFsync:
      if (kind == FileKind::kLog || kind == FileKind::kOther) return "";
      return "a directory fsync is of the log's directory (log) or of a store's or the state "
             "directory (other): RocksDB 7.8 names no renamed file that would make it this kind";
    case FsOp::kTruncate:
      if (kind == FileKind::kLog || kind == FileKind::kWal) return "";
      return "only the log (a torn tail) and RocksDB's WAL files are ever truncated";
    default:
      return "";
  }
}

std::vector<FailPointInfo> FsFailPointCatalogue() {
  std::vector<FailPointInfo> out;
  for (int op = 0; op < kNumFsOps; ++op) {
    for (int kind = 0; kind < kNumFileKinds; ++kind) {
      out.push_back({NameTable()[op][kind],
                     std::string(kOpDescriptions[op]) + " (" + kKindDescriptions[kind] + ")",
                     UnreachableBecause(static_cast<FsOp>(op), static_cast<FileKind>(kind))});
    }
  }
  return out;
}

std::vector<std::string> AllFailPointNames() {
  std::vector<std::string> out;
  for (const FailPointInfo& info : FsFailPointCatalogue()) out.push_back(info.name);
  return out;
}

std::shared_ptr<rocksdb::FileSystem> NewBaseFileSystem(BaseFileSystem base) {
  if (base == BaseFileSystem::kDisk) return rocksdb::FileSystem::Default();
  // The MemEnv's file system keeps its own reference to the clock; the Env can go.
  std::unique_ptr<rocksdb::Env> env(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  return env->GetFileSystem();
}

namespace internal {

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
std::array<FsCounter, kNumFsOps * kNumFileKinds>& FsCounters() {
  static std::array<FsCounter, kNumFsOps * kNumFileKinds> counters;
  return counters;
}
// Per file kind: durable damages (DurableDamageCounts).
std::array<std::atomic<uint64_t>, kNumFileKinds>& DamageCounters() {
  static std::array<std::atomic<uint64_t>, kNumFileKinds> counters{};
  return counters;
}

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
    if (StartsWith(name, "OPTIONS-")) return FileKind::kOptions;
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
    std::unique_ptr<rocksdb::FSSequentialFile> file;
    IOStatus s = base_->NewSequentialFile(path, FileOptions(), &file, nullptr);
    std::string scratch(1 << 16, '\0');
    while (s.ok() && data->size() < limit) {
      Slice chunk;
      const size_t n =
          static_cast<size_t>(std::min<uint64_t>(scratch.size(), limit - data->size()));
      s = file->Read(n, IOOptions(), &chunk, scratch.data(), nullptr);
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

Pass::~Pass() {
  if (state_ != nullptr) state_->Leave();
}

// Truncates `path` on `base`: by name where the base can, else through a reopened handle.
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

}  // namespace internal

namespace {

using internal::FaultFsState;
using internal::FileState;
using internal::Pass;

// Read handles: each read evaluates the read fail point.
class FaultSequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  FaultSequentialFile(std::unique_ptr<rocksdb::FSSequentialFile> target, std::string path,
                      FileKind kind)
      : FSSequentialFileOwnerWrapper(std::move(target)), path_(std::move(path)), kind_(kind) {}

  IOStatus Read(size_t n, const IOOptions& options, Slice* result, char* scratch,
                IODebugContext* dbg) override {
    IOStatus s = FaultFsState::MaybeFail(FsOp::kRead, kind_, path_);
    if (!s.ok()) return s;
    return target()->Read(n, options, result, scratch, dbg);
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions& options, Slice* result,
                          char* scratch, IODebugContext* dbg) override {
    IOStatus s = FaultFsState::MaybeFail(FsOp::kRead, kind_, path_);
    if (!s.ok()) return s;
    return target()->PositionedRead(offset, n, options, result, scratch, dbg);
  }

 private:
  const std::string path_;
  const FileKind kind_;
};

class FaultRandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  FaultRandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> target, std::string path,
                        FileKind kind)
      : FSRandomAccessFileOwnerWrapper(std::move(target)), path_(std::move(path)), kind_(kind) {}

  IOStatus Read(uint64_t offset, size_t n, const IOOptions& options, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    IOStatus s = FaultFsState::MaybeFail(FsOp::kRead, kind_, path_);
    if (!s.ok()) return s;
    return target()->Read(offset, n, options, result, scratch, dbg);
  }
  // The base class's versions read through Read() above (the wrapper's would bypass it).
  IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t num_reqs, const IOOptions& options,
                     IODebugContext* dbg) override {
    return FSRandomAccessFile::MultiRead(reqs, num_reqs, options, dbg);
  }
  IOStatus ReadAsync(rocksdb::FSReadRequest& req, const IOOptions& opts,
                     std::function<void(const rocksdb::FSReadRequest&, void*)> cb, void* cb_arg,
                     void** io_handle, rocksdb::IOHandleDeleter* del_fn,
                     IODebugContext* dbg) override {
    return FSRandomAccessFile::ReadAsync(req, opts, std::move(cb), cb_arg, io_handle, del_fn, dbg);
  }

 private:
  const std::string path_;
  const FileKind kind_;
};

// Write handles: each mutating call is admitted (file system up, handle not stale), evaluates
// its fail point, then updates the file's durability state.
class FaultWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultWritableFile(std::unique_ptr<rocksdb::FSWritableFile> target,
                    std::shared_ptr<FaultFsState> fs, std::shared_ptr<FileState> file,
                    std::string path, FileKind kind, uint64_t epoch)
      : FSWritableFileOwnerWrapper(std::move(target)),
        fs_(std::move(fs)),
        file_(std::move(file)),
        path_(std::move(path)),
        kind_(kind),
        epoch_(epoch) {}

  IOStatus Append(const Slice& data, const IOOptions& options, IODebugContext* dbg) override {
    return Write(FsOp::kAppend, std::nullopt, data.size(),
                 [&](uint64_t m) { return target()->Append(Slice(data.data(), m), options, dbg); });
  }
  // The checksum in `info` covers all of `data`: a short write passes none on.
  IOStatus Append(const Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& info, IODebugContext* dbg) override {
    return Write(FsOp::kAppend, std::nullopt, data.size(), [&](uint64_t m) {
      return m == data.size() ? target()->Append(data, options, info, dbg)
                              : target()->Append(Slice(data.data(), m), options, dbg);
    });
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& options,
                            IODebugContext* dbg) override {
    return Write(FsOp::kPwrite, offset, data.size(), [&](uint64_t m) {
      return target()->PositionedAppend(Slice(data.data(), m), offset, options, dbg);
    });
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& options,
                            const rocksdb::DataVerificationInfo& info,
                            IODebugContext* dbg) override {
    return Write(FsOp::kPwrite, offset, data.size(), [&](uint64_t m) {
      return m == data.size()
                 ? target()->PositionedAppend(data, offset, options, info, dbg)
                 : target()->PositionedAppend(Slice(data.data(), m), offset, options, dbg);
    });
  }
  IOStatus Truncate(uint64_t size, const IOOptions& options, IODebugContext* dbg) override {
    Pass gate;
    IOStatus s = Admit(&gate, FsOp::kTruncate);
    if (s.ok()) s = target()->Truncate(size, options, dbg);
    if (s.ok()) fs_->TrackTruncate(file_, path_, size);
    return s;
  }
  IOStatus Flush(const IOOptions& options, IODebugContext* dbg) override {
    Pass gate;
    IOStatus s = fs_->Admit(&gate, epoch_, "flush", path_);
    if (s.ok()) s = target()->Flush(options, dbg);
    return s;
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    return DoSync(FsOp::kSync, [&] { return target()->Sync(options, dbg); });
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    return DoSync(FsOp::kSync, [&] { return target()->Fsync(options, dbg); });
  }
  // Not durable: sync_file_range writes data back but promises nothing about metadata.
  IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const IOOptions& options,
                     IODebugContext* dbg) override {
    Pass gate;
    IOStatus s = Admit(&gate, FsOp::kRangeSync);
    if (s.ok()) s = target()->RangeSync(offset, nbytes, options, dbg);
    return s;
  }
  // No preallocation: a handle that preallocated trims the file to its own idea of the size on
  // Close, which after a power loss would re-extend a truncated file.
  void PrepareWrite(size_t, size_t, const IOOptions&, IODebugContext*) override {}
  IOStatus Allocate(uint64_t, uint64_t, const IOOptions&, IODebugContext*) override {
    return IOStatus::OK();
  }

 private:
  IOStatus Admit(Pass* gate, FsOp op) {
    IOStatus s = fs_->Admit(gate, epoch_, kOpNames[static_cast<int>(op)], path_);
    if (s.ok()) s = FaultFsState::MaybeFail(op, kind_, path_);
    return s;
  }

  // `write(m)` writes the first m of the n bytes. A short write writes half, then fails.
  IOStatus Write(FsOp op, std::optional<uint64_t> offset, uint64_t n,
                 const std::function<IOStatus(uint64_t)>& write) {
    Pass gate;
    IOStatus s = fs_->Admit(&gate, epoch_, kOpNames[static_cast<int>(op)], path_);
    bool short_write = false;
    if (s.ok()) s = FaultFsState::MaybeFail(op, kind_, path_, &short_write);
    if (short_write && n / 2 > 0 && write(n / 2).ok()) fs_->TrackWrite(file_.get(), offset, n / 2);
    if (s.ok()) s = fs_->TakeSpace(n, path_);
    if (s.ok()) s = write(n);
    if (s.ok()) fs_->TrackWrite(file_.get(), offset, n);
    return s;
  }

  IOStatus DoSync(FsOp op, const std::function<IOStatus()>& sync) {
    Pass gate;
    IOStatus s = Admit(&gate, op);
    if (!s.ok()) return s;
    const uint64_t size = fs_->SizeOf(file_.get());
    s = sync();
    if (s.ok()) fs_->TrackSync(file_.get(), size);
    return s;
  }

  const std::shared_ptr<FaultFsState> fs_;
  const std::shared_ptr<FileState> file_;
  const std::string path_;
  const FileKind kind_;
  const uint64_t epoch_;
};

class FaultRandomRWFile : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  FaultRandomRWFile(std::unique_ptr<rocksdb::FSRandomRWFile> target,
                    std::shared_ptr<FaultFsState> fs, std::shared_ptr<FileState> file,
                    std::string path, FileKind kind, uint64_t epoch)
      : FSRandomRWFileOwnerWrapper(std::move(target)),
        fs_(std::move(fs)),
        file_(std::move(file)),
        path_(std::move(path)),
        kind_(kind),
        epoch_(epoch) {}

  IOStatus Write(uint64_t offset, const Slice& data, const IOOptions& options,
                 IODebugContext* dbg) override {
    Pass gate;
    IOStatus s = Admit(&gate, FsOp::kPwrite);
    if (s.ok()) s = fs_->TakeSpace(data.size(), path_);
    if (s.ok()) s = target()->Write(offset, data, options, dbg);
    if (s.ok()) fs_->TrackWrite(file_.get(), offset, data.size());
    return s;
  }
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& options, Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    IOStatus s = FaultFsState::MaybeFail(FsOp::kRead, kind_, path_);
    if (!s.ok()) return s;
    return target()->Read(offset, n, options, result, scratch, dbg);
  }
  IOStatus Flush(const IOOptions& options, IODebugContext* dbg) override {
    Pass gate;
    IOStatus s = fs_->Admit(&gate, epoch_, "flush", path_);
    if (s.ok()) s = target()->Flush(options, dbg);
    return s;
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    return DoSync([&] { return target()->Sync(options, dbg); });
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    return DoSync([&] { return target()->Fsync(options, dbg); });
  }

 private:
  IOStatus Admit(Pass* gate, FsOp op) {
    IOStatus s = fs_->Admit(gate, epoch_, kOpNames[static_cast<int>(op)], path_);
    if (s.ok()) s = FaultFsState::MaybeFail(op, kind_, path_);
    return s;
  }

  IOStatus DoSync(const std::function<IOStatus()>& sync) {
    Pass gate;
    IOStatus s = Admit(&gate, FsOp::kSync);
    if (!s.ok()) return s;
    const uint64_t size = fs_->SizeOf(file_.get());
    s = sync();
    if (s.ok()) fs_->TrackSync(file_.get(), size);
    return s;
  }

  const std::shared_ptr<FaultFsState> fs_;
  const std::shared_ptr<FileState> file_;
  const std::string path_;
  const FileKind kind_;
  const uint64_t epoch_;
};

class FaultDirectory : public rocksdb::FSDirectory {
 public:
  FaultDirectory(std::unique_ptr<rocksdb::FSDirectory> target, std::shared_ptr<FaultFsState> fs,
                 std::string path, uint64_t epoch)
      : target_(std::move(target)), fs_(std::move(fs)), path_(std::move(path)), epoch_(epoch) {}

  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    return DoFsync(nullptr, [&] { return target_->Fsync(options, dbg); });
  }
  IOStatus FsyncWithDirOptions(const IOOptions& options, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& dir_options) override {
    return DoFsync(&dir_options,
                   [&] { return target_->FsyncWithDirOptions(options, dbg, dir_options); });
  }
  IOStatus Close(const IOOptions& options, IODebugContext* dbg) override {
    return target_->Close(options, dbg);
  }
  size_t GetUniqueId(char* id, size_t max_size) const override {
    return target_->GetUniqueId(id, max_size);
  }

 private:
  IOStatus DoFsync(const rocksdb::DirFsyncOptions* dir_options,
                   const std::function<IOStatus()>& fsync) {
    Pass gate;
    IOStatus s = fs_->Admit(&gate, epoch_, "fsync directory", path_);
    if (s.ok())
      s = FaultFsState::MaybeFail(FsOp::kDirFsync, fs_->DirKind(path_, dir_options), path_);
    if (!s.ok()) return s;
    const uint64_t seq = fs_->NextSeq();
    s = fsync();
    if (s.ok()) fs_->TrackDirFsync(path_, seq);
    return s;
  }

  const std::unique_ptr<rocksdb::FSDirectory> target_;
  const std::shared_ptr<FaultFsState> fs_;
  const std::string path_;
  const uint64_t epoch_;
};

}  // namespace

FaultFileSystem::FaultFileSystem(std::shared_ptr<rocksdb::FileSystem> base)
    : FileSystemWrapper(base), state_(std::make_shared<internal::FaultFsState>(base)) {}

FaultFileSystem::~FaultFileSystem() = default;

void FaultFileSystem::RegisterLogDirectory(const std::string& path) {
  state_->RegisterLogDirectory(path);
}

FileKind FaultFileSystem::KindOf(const std::string& path) const { return state_->KindOf(path); }

void FaultFileSystem::SetActive(bool active) { state_->SetActive(active); }

void FaultFileSystem::SetSpaceLeft(std::optional<uint64_t> bytes) { state_->SetSpaceLeft(bytes); }

std::optional<uint64_t> FaultFileSystem::SpaceLeft() const { return state_->SpaceLeft(); }

uint64_t FaultFileSystem::FullDiskRefusals() const { return state_->FullDiskRefusals(); }

bool FaultFileSystem::IsActive() const { return state_->IsActive(); }

Status FaultFileSystem::SimulatePowerLoss(const PowerLossOptions& options) {
  return state_->SimulatePowerLoss(options);
}

PowerLossStats FaultFileSystem::LastPowerLoss() const { return state_->LastPowerLoss(); }

Status FaultFileSystem::DamageDurable(const std::string& path, const DurableDamage& damage,
                                      std::string* previous) {
  uint64_t size = 0;
  if (!target()->GetFileSize(path, IOOptions(), &size, nullptr).ok()) {
    return Status::NotFound("no file " + path + " to damage");
  }
  const uint64_t durable = std::min(size, state_->DurableSizeOf(path).value_or(size));
  if (damage.offset >= durable) {
    return Status::InvalidArgument("byte " + std::to_string(damage.offset) + " of " + path +
                                   " is not durable (" + std::to_string(durable) +
                                   " durable bytes): damage is to data a sync made durable");
  }
  const bool flip = damage.kind == DurableDamage::Kind::kFlipBit;
  const uint64_t length =
      flip ? 1 : std::min(std::max<uint64_t>(damage.length, 1), durable - damage.offset);
  STATECHECK_RETURN_IF_ERROR(state_->Rewrite(
      path, damage.offset, length,
      [&](std::string* bytes) {
        if (flip) {
          (*bytes)[0] = static_cast<char>((*bytes)[0] ^ (1 << (damage.bit & 7)));
        } else {
          bytes->assign(bytes->size(), '\0');
        }
      },
      previous));
  damages_.fetch_add(1);
  internal::DamageCounters()[static_cast<int>(KindOf(path))].fetch_add(1);
  return Status::Ok();
}

Status FaultFileSystem::RepairDurable(const std::string& path, uint64_t offset,
                                      const std::string& previous) {
  std::string unused;
  return state_->Rewrite(
      path, offset, previous.size(), [&](std::string* bytes) { *bytes = previous; }, &unused);
}

std::optional<uint64_t> FaultFileSystem::DurableSize(const std::string& path) const {
  return state_->DurableSizeOf(path);
}

uint64_t FaultFileSystem::DamageCount() const { return damages_.load(); }

IOStatus FaultFileSystem::NewSequentialFile(const std::string& fname, const FileOptions& file_opts,
                                            std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                            IODebugContext* dbg) {
  const FileKind kind = KindOf(fname);
  IOStatus s = FaultFsState::MaybeFail(FsOp::kOpen, kind, fname);
  if (s.ok()) s = target()->NewSequentialFile(fname, file_opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultSequentialFile>(std::move(*result), fname, kind);
  return s;
}

IOStatus FaultFileSystem::NewRandomAccessFile(const std::string& fname,
                                              const FileOptions& file_opts,
                                              std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                              IODebugContext* dbg) {
  const FileKind kind = KindOf(fname);
  IOStatus s = FaultFsState::MaybeFail(FsOp::kOpen, kind, fname);
  if (s.ok()) s = target()->NewRandomAccessFile(fname, file_opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultRandomAccessFile>(std::move(*result), fname, kind);
  return s;
}

namespace {

// Opens `fname` for writing through `open` (a call on the base) and wraps the handle.
template <typename Handle, typename Wrapper>
IOStatus OpenForWrite(FaultFsState* state, const std::shared_ptr<FaultFsState>& shared,
                      FileKind kind, const std::string& fname, bool truncates,
                      const std::function<IOStatus(std::unique_ptr<Handle>*)>& open,
                      std::unique_ptr<Handle>* result) {
  Pass gate;
  uint64_t epoch = 0;
  IOStatus s = state->Admit(&gate, FaultFsState::kCurrentEpoch, "open", fname, &epoch);
  if (s.ok()) s = FaultFsState::MaybeFail(FsOp::kOpen, kind, fname);
  if (!s.ok()) return s;
  const bool existed = !state->base()->FileExists(fname, IOOptions(), nullptr).IsNotFound();
  std::unique_ptr<Handle> handle;
  s = open(&handle);
  if (!s.ok()) return s;
  std::shared_ptr<FileState> file = state->TrackOpen(fname, existed, truncates);
  *result =
      std::make_unique<Wrapper>(std::move(handle), shared, std::move(file), fname, kind, epoch);
  return s;
}

}  // namespace

IOStatus FaultFileSystem::NewWritableFile(const std::string& fname, const FileOptions& file_opts,
                                          std::unique_ptr<rocksdb::FSWritableFile>* result,
                                          IODebugContext* dbg) {
  return OpenForWrite<rocksdb::FSWritableFile, FaultWritableFile>(
      state_.get(), state_, KindOf(fname), fname, /*truncates=*/true,
      [&](auto* h) { return target()->NewWritableFile(fname, file_opts, h, dbg); }, result);
}

IOStatus FaultFileSystem::ReopenWritableFile(const std::string& fname, const FileOptions& file_opts,
                                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                                             IODebugContext* dbg) {
  return OpenForWrite<rocksdb::FSWritableFile, FaultWritableFile>(
      state_.get(), state_, KindOf(fname), fname, /*truncates=*/false,
      [&](auto* h) { return target()->ReopenWritableFile(fname, file_opts, h, dbg); }, result);
}

IOStatus FaultFileSystem::ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                            const FileOptions& file_opts,
                                            std::unique_ptr<rocksdb::FSWritableFile>* result,
                                            IODebugContext* dbg) {
  IOStatus s = RenameFile(old_fname, fname, file_opts.io_options, dbg);
  if (!s.ok()) return s;
  return NewWritableFile(fname, file_opts, result, dbg);
}

IOStatus FaultFileSystem::NewRandomRWFile(const std::string& fname, const FileOptions& file_opts,
                                          std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                          IODebugContext* dbg) {
  return OpenForWrite<rocksdb::FSRandomRWFile, FaultRandomRWFile>(
      state_.get(), state_, KindOf(fname), fname, /*truncates=*/false,
      [&](auto* h) { return target()->NewRandomRWFile(fname, file_opts, h, dbg); }, result);
}

IOStatus FaultFileSystem::NewDirectory(const std::string& name, const IOOptions& io_opts,
                                       std::unique_ptr<rocksdb::FSDirectory>* result,
                                       IODebugContext* dbg) {
  IOStatus s = FaultFsState::MaybeFail(FsOp::kOpen, state_->DirKind(name, nullptr), name);
  if (!s.ok()) return s;
  // Opening a directory handle writes nothing, so it works while the file system is down.
  const uint64_t epoch = state_->CurrentEpoch();
  s = target()->NewDirectory(name, io_opts, result, dbg);
  if (s.ok()) *result = std::make_unique<FaultDirectory>(std::move(*result), state_, name, epoch);
  return s;
}

IOStatus FaultFileSystem::DeleteFile(const std::string& fname, const IOOptions& options,
                                     IODebugContext* dbg) {
  Pass gate;
  IOStatus s = state_->Admit(&gate, FaultFsState::kCurrentEpoch, "delete", fname);
  if (s.ok()) s = FaultFsState::MaybeFail(FsOp::kDelete, KindOf(fname), fname);
  std::optional<std::string> saved;
  if (s.ok()) s = state_->ReadDurable(fname, &saved);
  if (s.ok()) s = target()->DeleteFile(fname, options, dbg);
  if (s.ok()) state_->TrackDelete(fname, std::move(saved));
  return s;
}

IOStatus FaultFileSystem::Truncate(const std::string& fname, size_t size, const IOOptions& options,
                                   IODebugContext* dbg) {
  Pass gate;
  IOStatus s = state_->Admit(&gate, FaultFsState::kCurrentEpoch, "truncate", fname);
  if (s.ok()) s = FaultFsState::MaybeFail(FsOp::kTruncate, KindOf(fname), fname);
  if (s.ok()) s = internal::TruncateOnBase(target(), fname, size);
  if (s.ok()) state_->TrackTruncate(nullptr, fname, size);
  return s;
}

IOStatus FaultFileSystem::CreateDir(const std::string& dirname, const IOOptions& options,
                                    IODebugContext* dbg) {
  Pass gate;
  IOStatus s = state_->Admit(&gate, FaultFsState::kCurrentEpoch, "create directory", dirname);
  if (s.ok()) s = target()->CreateDir(dirname, options, dbg);
  return s;
}

IOStatus FaultFileSystem::CreateDirIfMissing(const std::string& dirname, const IOOptions& options,
                                             IODebugContext* dbg) {
  Pass gate;
  IOStatus s = state_->Admit(&gate, FaultFsState::kCurrentEpoch, "create directory", dirname);
  if (s.ok()) s = target()->CreateDirIfMissing(dirname, options, dbg);
  return s;
}

IOStatus FaultFileSystem::DeleteDir(const std::string& dirname, const IOOptions& options,
                                    IODebugContext* dbg) {
  Pass gate;
  IOStatus s = state_->Admit(&gate, FaultFsState::kCurrentEpoch, "delete directory", dirname);
  if (s.ok()) s = target()->DeleteDir(dirname, options, dbg);
  return s;
}

IOStatus FaultFileSystem::RenameFile(const std::string& src, const std::string& dst,
                                     const IOOptions& options, IODebugContext* dbg) {
  Pass gate;
  IOStatus s = state_->Admit(&gate, FaultFsState::kCurrentEpoch, "rename", src + " to " + dst);
  if (s.ok()) s = FaultFsState::MaybeFail(FsOp::kRename, KindOf(dst), dst);
  std::optional<std::string> saved;
  if (s.ok()) s = state_->ReadDurable(dst, &saved);
  if (s.ok()) s = target()->RenameFile(src, dst, options, dbg);
  if (s.ok()) state_->TrackRename(src, dst, std::move(saved));
  return s;
}

IOStatus FaultFileSystem::LinkFile(const std::string& src, const std::string& dst, const IOOptions&,
                                   IODebugContext*) {
  return IOStatus::NotSupported("FaultFileSystem does not link files", src + " -> " + dst);
}

IOStatus FaultFileSystem::LockFile(const std::string& fname, const IOOptions& options,
                                   rocksdb::FileLock** lock, IODebugContext* dbg) {
  Pass gate;
  IOStatus s = state_->Admit(&gate, FaultFsState::kCurrentEpoch, "lock", fname);
  if (s.ok()) s = FaultFsState::MaybeFail(FsOp::kOpen, KindOf(fname), fname);
  if (s.ok()) s = target()->LockFile(fname, options, lock, dbg);
  return s;
}

namespace {

// The system clock with sleeps capped at 1 ms. RocksDB sleeps 1 s after a failed background
// flush or compaction (and closing the database waits for it): with faults injected on purpose
// that second is pure waiting, many times per property run.
class ShortSleepClock final : public rocksdb::SystemClockWrapper {
 public:
  explicit ShortSleepClock(const std::shared_ptr<rocksdb::SystemClock>& target)
      : SystemClockWrapper(target) {}
  static const char* kClassName() { return "StatecheckShortSleepClock"; }
  const char* Name() const override { return kClassName(); }
  void SleepForMicroseconds(int micros) override {
    SystemClockWrapper::SleepForMicroseconds(std::min(micros, 1000));
  }
};

// An Env over the fault file system whose clock is a ShortSleepClock.
class FaultEnvImpl final : public rocksdb::EnvWrapper {
 public:
  explicit FaultEnvImpl(std::unique_ptr<rocksdb::Env> composite)
      : EnvWrapper(std::move(composite)) {
    system_clock_ = std::make_shared<ShortSleepClock>(system_clock_);
  }
  static const char* kClassName() { return "StatecheckFaultEnv"; }
  const char* Name() const override { return kClassName(); }
};

}  // namespace

std::vector<std::pair<std::string, FailPointCounts>> FsFailPointCounts() {
  std::vector<std::pair<std::string, FailPointCounts>> out;
  for (int op = 0; op < kNumFsOps; ++op) {
    for (int kind = 0; kind < kNumFileKinds; ++kind) {
      const internal::FsCounter& c = internal::FsCounters()[op * kNumFileKinds + kind];
      out.emplace_back(FsFailPointName(static_cast<FsOp>(op), static_cast<FileKind>(kind)),
                       FailPointCounts{c.reached.load(), c.fired.load()});
    }
  }
  return out;
}

std::map<std::string, uint64_t> DurableDamageCounts() {
  std::map<std::string, uint64_t> out;
  for (int kind = 0; kind < kNumFileKinds; ++kind) {
    if (const uint64_t n = internal::DamageCounters()[kind].load()) out[kKindNames[kind]] = n;
  }
  return out;
}

void ResetFsFailPointCounts() {
  for (internal::FsCounter& c : internal::FsCounters()) {
    c.reached = 0;
    c.fired = 0;
  }
  for (std::atomic<uint64_t>& n : internal::DamageCounters()) n = 0;
}

FaultEnv NewFaultEnv(BaseFileSystem base) {
  FaultEnv out;
  out.fs = std::make_shared<FaultFileSystem>(NewBaseFileSystem(base));
  out.env = std::make_unique<FaultEnvImpl>(rocksdb::NewCompositeEnv(out.fs));
  return out;
}

}  // namespace statecheck::faults
