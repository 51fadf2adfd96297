#include "faults/fault_fs.h"

#include <rocksdb/system_clock.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "faults/fault_fs_state.h"

namespace statecheck::faults {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

std::shared_ptr<rocksdb::FileSystem> NewBaseFileSystem(BaseFileSystem base) {
  if (base == BaseFileSystem::kDisk) return rocksdb::FileSystem::Default();
  // The MemEnv's file system keeps its own reference to the clock; the Env can go.
  std::unique_ptr<rocksdb::Env> env(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  return env->GetFileSystem();
}

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
    IOStatus s = fs_->Admit(gate, epoch_, internal::FsOpName(op), path_);
    if (s.ok()) s = FaultFsState::MaybeFail(op, kind_, path_);
    return s;
  }

  // `write(m)` writes the first m of the n bytes. A short write writes half, then fails.
  IOStatus Write(FsOp op, std::optional<uint64_t> offset, uint64_t n,
                 const std::function<IOStatus(uint64_t)>& write) {
    Pass gate;
    IOStatus s = fs_->Admit(&gate, epoch_, internal::FsOpName(op), path_);
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
    IOStatus s = fs_->Admit(gate, epoch_, internal::FsOpName(op), path_);
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

void FaultFileSystem::SkipRocksDBOptionsFiles(bool skip) {
  skip_options_files_.store(skip, std::memory_order_relaxed);
}
bool FaultFileSystem::SkipsRocksDBOptionsFiles() const {
  return skip_options_files_.load(std::memory_order_relaxed);
}

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
  const int slot = internal::EndsWith(path, ".position") ? internal::kPositionDamageSlot
                                                         : static_cast<int>(KindOf(path));
  internal::DamageCounters()[slot].fetch_add(1);
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
  const FileKind kind = KindOf(fname);
  if (kind == FileKind::kOptions && skip_options_files_.load(std::memory_order_relaxed)) {
    return RocksDBOptionsFileSkipped(fname);
  }
  return OpenForWrite<rocksdb::FSWritableFile, FaultWritableFile>(
      state_.get(), state_, kind, fname, /*truncates=*/true,
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

FaultEnv NewFaultEnv(BaseFileSystem base) {
  FaultEnv out;
  out.fs = std::make_shared<FaultFileSystem>(NewBaseFileSystem(base));
  out.env = std::make_unique<FaultEnvImpl>(rocksdb::NewCompositeEnv(out.fs));
  return out;
}

}  // namespace statecheck::faults
