// FaultFileSystem: a rocksdb::FileSystem that forwards to a real one (the disk or RocksDB's
// in-memory file system) and can lose power, be shut down, and fail any operation on any kind
// of file by name (SPEC F1, F3, F4).
//
// Hand it to RocksDB as `rocksdb::NewCompositeEnv(fs)` (or take NewFaultEnv's env) and the same
// Env to the engine's log (LogOptions::env): both then do all their file I/O through it.
//
// A crash, then a restart:
//   fs->SetActive(false);         // Nothing more reaches the disk; writes in flight finish.
//   db.reset(); log.reset();      // The crashed instances go; their last writes fail.
//   fs->SimulatePowerLoss(opts);  // Power loss only. A process crash loses nothing written:
//                                 // for one, skip this call.
//   fs->SetActive(true);          // Reopen and recover.
// (RocksDB sleeps a second after a background flush or compaction fails, and its close waits
// for that: a DB crashed mid-compaction, or flushing on close, takes a second to go. Set
// avoid_flush_during_shutdown, as the engine's stores do.)
//
// How it differs from a real disk:
//   * Durability is modelled, not left to the kernel. A file's contents are durable up to the
//     size it had at its last successful Sync/Fsync (RangeSync and Close make nothing durable).
//     A create, rename or delete is durable once the directory holding the name (both
//     directories, for a rename) has been fsynced (FSDirectory::Fsync or FsyncWithDirOptions)
//     after it. SimulatePowerLoss() throws away everything else: newest first, it undoes each
//     create (the file vanishes, even if its contents were synced), rename (the old name comes
//     back, and the overwritten target's durable contents) and delete (the file comes back with
//     its durable contents) not covered by a directory fsync; then it truncates every file to
//     its durable size or, with torn writes, to its durable size plus a random prefix of its
//     unsynced tail (the last write torn part-way, SPEC F4).
//   * Simplifications, pessimistic or neutral for the code under test: a truncation (Truncate,
//     or NewWritableFile over an existing file) is durable at once, and so are overwrites of
//     durable bytes through a RandomRWFile; directories are durable as soon as they are created
//     or deleted; files the FS did not see written (present before it was made, or before the
//     last power loss) are durable as they are; lock files (LockFile) are not tracked (they
//     survive a power loss); RocksDB's info log (NewLogger) is passed straight through and never
//     fails. LinkFile is NotSupported (RocksDB then copies). Preallocation (PrepareWrite,
//     Allocate) is a no-op, so that a handle closed after a power loss cannot re-extend a file
//     it had preallocated.
//   * SetActive(false) shuts the file system down as a crash would: from then on every write,
//     flush, sync, truncate, create, rename, delete, lock and directory fsync fails with an
//     injected IOError; reads, listings, directory handles, Close and UnlockFile still work.
//     SetActive(false) returns once the writes in flight are done, so none lands after it.
//     Handles opened before a power loss stay dead (their writes fail) even after
//     SetActive(true): the crashed instance cannot write into the recovered one's files.
//   * Fail points: every operation evaluates the libfiu point `statecheck/fs/<op>/<kind>`
//     (FailPoints::Enable turns one on; see FsFailPointCatalogue) before it reaches the real
//     file system; a firing point makes it do nothing and return an IOError that
//     IsInjectedFault() recognizes (a failed append or positioned write writes no byte).
//
// Thread safety: every method may be called from any thread (RocksDB calls from its background
// threads); file handles may be used concurrently as far as RocksDB's own allow.
#ifndef STATECHECK_FAULTS_FAULT_FS_H_
#define STATECHECK_FAULTS_FAULT_FS_H_

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "faults/fail_points.h"
#include "statecheck/status.h"

namespace statecheck::faults {

namespace internal {
class FaultFsState;
}  // namespace internal

// Every injected error's message starts with this, followed by the fail point's name
// ("injected fault: statecheck/fs/sync/wal (/db/000004.log)"); errors from a shut-down file
// system name "statecheck/fs/down".
inline constexpr std::string_view kInjectedFaultMarker = "injected fault: ";

// True if `message` carries an injected fault's marker anywhere (RocksDB and the engine prefix
// messages with context, e.g. "rocksdb: IO error: While appending to file: ..."). This is the
// one predicate that tells an injected fault from real damage.
bool IsInjectedFault(std::string_view message);
// Whether a RocksDB status's message carries an injected fault, whatever its code.
bool IsInjectedFault(const rocksdb::Status& status);
// Whether an engine status's message carries an injected fault.
bool IsInjectedFault(const Status& status);

// A RocksDB OPTIONS file or its temp file ("OPTIONS-000007", "OPTIONS-000007.dbtmp"): the
// rule FaultFileSystem::KindOf names kOptions by.
bool IsRocksDBOptionsFile(std::string_view path);
// The error with which a harness file system refuses to create such a file: an IOError naming
// `path`, not an injected fault. RocksDB 7.8 then opens without the file (see
// FaultFileSystem::SkipRocksDBOptionsFiles).
rocksdb::IOStatus RocksDBOptionsFileSkipped(const std::string& path);

// The operation classes that have fail points.
enum class FsOp : uint8_t {
  kOpen,       // Opening a file (any mode), a directory handle, or a lock file.
  kAppend,     // FSWritableFile::Append.
  kPwrite,     // FSWritableFile::PositionedAppend, FSRandomRWFile::Write.
  kSync,       // Sync / Fsync of a file.
  kRangeSync,  // FSWritableFile::RangeSync.
  kRename,     // FileSystem::RenameFile (the kind is the target's).
  kDelete,     // FileSystem::DeleteFile.
  kRead,       // Reads from a sequential, random-access or random-RW file.
  kDirFsync,   // FSDirectory::Fsync / FsyncWithDirOptions.
  kTruncate,   // FileSystem::Truncate, FSWritableFile::Truncate.
};
inline constexpr int kNumFsOps = 10;

// What a file is, from its path. For a directory fsync the kind is kLog for a registered log
// directory, else that of DirFsyncOptions::renamed_new_name when RocksDB names one (e.g. CURRENT),
// else kOther.
enum class FileKind : uint8_t {
  kWal,         // RocksDB write-ahead log: <digits>.log outside any registered log directory.
  kSst,         // *.sst
  kManifest,    // MANIFEST-*
  kCurrent,     // CURRENT, and the <digits>.dbtmp temp files RocksDB writes it through.
  kOptions,     // OPTIONS-* (its temp file too).
  kLog,         // Any file under a directory passed to RegisterLogDirectory (the embedded log).
  kCheckpoint,  // .checkpoint* and *.position files.
  kOther,       // Everything else (IDENTITY, LOCK, LOG, ...).
};
inline constexpr int kNumFileKinds = 8;

// "statecheck/fs/<op>/<kind>", e.g. "statecheck/fs/sync/wal".
const std::string& FsFailPointName(FsOp op, FileKind kind);

// One fail point and what firing it does, for a catalogue printout.
struct FailPointInfo {
  std::string name;
  std::string description;  // One line.
  // Why statecheck's engine never reaches this point ("" when it does): the operation never
  // happens on files of this kind. TaskPropertyCoverage.EveryReachableFailPointFires keeps this
  // honest: every other point fires in its sweep, and none of these is even reached.
  std::string unreachable_because;
};

// Every file-system fail point, op-major (kNumFsOps x kNumFileKinds entries).
std::vector<FailPointInfo> FsFailPointCatalogue();
// The names of FsFailPointCatalogue(), in the same order.
std::vector<std::string> AllFailPointNames();

// How often each file-system fail point was reached (evaluated by a FaultFileSystem) and fired,
// process-wide, since the start or the last ResetFsFailPointCounts; in catalogue order.
std::vector<std::pair<std::string, FailPointCounts>> FsFailPointCounts();
// How many DamageDurable calls damaged files of each kind, process-wide, since the start or the
// last ResetFsFailPointCounts: by kind name ("log", "sst", "manifest", "checkpoint", ...; a
// store's .position file, of kind checkpoint to the fail points, counts as "position"), the
// kinds never damaged left out.
std::map<std::string, uint64_t> DurableDamageCounts();
void ResetFsFailPointCounts();

// The file systems a FaultFileSystem can sit on.
enum class BaseFileSystem {
  kDisk,      // rocksdb::FileSystem::Default(): real files.
  kInMemory,  // RocksDB's MemEnv file system: nothing touches the disk; paths are names only.
};

// A new base file system (the disk one is shared, the in-memory one is new and empty).
std::shared_ptr<rocksdb::FileSystem> NewBaseFileSystem(BaseFileSystem base);

struct PowerLossOptions {
  // False: every file keeps exactly its durable size. True: each file with an unsynced tail
  // keeps its durable bytes plus a prefix of that tail of random length (0 to all of it), drawn
  // from `seed` — the last write may be torn part-way.
  bool torn_writes = false;
  uint64_t seed = 0;
};

// Damage to durable data (F6), as bit rot or a misdirected write leaves it: the bytes a sync
// made durable change while nothing writes them.
struct DurableDamage {
  enum class Kind { kFlipBit, kZero };
  Kind kind = Kind::kFlipBit;
  uint64_t offset = 0;  // The first damaged byte.
  uint64_t length = 1;  // kZero: bytes zeroed (cut at the durable end); kFlipBit: one byte.
  int bit = 0;          // kFlipBit: the bit of the byte at `offset` that flips (0-7).
};

// What the last SimulatePowerLoss threw away.
struct PowerLossStats {
  uint64_t bytes_dropped = 0;     // Unsynced bytes cut off files that survived.
  uint64_t files_truncated = 0;   // Files that lost bytes.
  uint64_t files_deleted = 0;     // Files whose creation was not durable, removed.
  uint64_t renames_reverted = 0;  // Renames not durable, undone.
  uint64_t deletes_restored = 0;  // Deleted files brought back (deletion not durable).
};

class FaultFileSystem : public rocksdb::FileSystemWrapper {
 public:
  // Wraps `base` (not null). The file system starts active, tracking nothing.
  explicit FaultFileSystem(std::shared_ptr<rocksdb::FileSystem> base);
  ~FaultFileSystem() override;

  static const char* kClassName() { return "StatecheckFaultFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // Files under `path` (and `path` itself, for directory fsyncs) are of kind kLog: the
  // embedded log's partitions are also named *.log. Call before the log is opened.
  void RegisterLogDirectory(const std::string& path);
  // The fail-point kind of the file at `path`.
  FileKind KindOf(const std::string& path) const;

  // Shuts the file system down (false: every mutating call fails, after the ones in flight
  // finish) or brings it back up (true).
  void SetActive(bool active);
  bool IsActive() const;

  // A full disk (F7): with a quota set, each write (Append, PositionedAppend, a random-RW Write)
  // takes its bytes from the space left, and a write larger than what is left fails whole with
  // ENOSPC — an IOError of code NoSpace whose message is an injected fault's
  // ("statecheck/fs/full") — and writes nothing, until the quota is raised or unset: the disk
  // stays full until space is freed, not for one call. Space is only taken, never given back
  // by deletes (the disk is full of something else; freeing it is the caller's step). nullopt
  // (the default): no quota.
  void SetSpaceLeft(std::optional<uint64_t> bytes);
  std::optional<uint64_t> SpaceLeft() const;
  // Writes refused for want of space since the file system was made.
  uint64_t FullDiskRefusals() const;

  // A harness-only saving (default false): with `skip` true, creating a RocksDB OPTIONS file
  // (kind kOptions, its temp file) fails with an IOError that is not an injected fault, before
  // its fail point. RocksDB 7.8 writes that file at every writable open and re-parses it to
  // verify it, about 40% of a task-family case; with fail_if_options_file_error false (its
  // default, which the engine keeps) an open that cannot write it logs a warning and goes on. The
  // file records the options for tools (ldb, LoadLatestOptions); nothing in the engine or a rule
  // reads it. The fault sweep keeps the files, so faults at them are still checked.
  void SkipRocksDBOptionsFiles(bool skip);
  bool SkipsRocksDBOptionsFiles() const;

  // Loses power: throws away everything not durable (see the file comment), then treats
  // everything left as durable and kills every handle opened so far. REQUIRES: the file system
  // is inactive (FailedPrecondition otherwise); call SetActive(true) afterwards. Best done
  // after the crashed DB and log objects are destroyed. IOError if the base file system fails
  // (the tracking is reset anyway). Not an injected fault: the base is expected to work.
  Status SimulatePowerLoss(const PowerLossOptions& options = {});
  // What the last SimulatePowerLoss threw away (zeros before the first).
  PowerLossStats LastPowerLoss() const;

  // Damages the durable bytes of `path` (F6) on the base file system, as the disk would: no
  // handle sees a write. `*previous` receives the bytes replaced, for RepairDurable.
  // REQUIRES: the file system is inactive (the engine is down; FailedPrecondition otherwise).
  // InvalidArgument when `damage` reaches no durable byte (past the durable end); NotFound
  // for a missing file; IOError if the base fails. Counted in DamageCount().
  Status DamageDurable(const std::string& path, const DurableDamage& damage, std::string* previous);
  // Writes `previous` back at `offset` of `path`: the damage undone (an operator's repair from
  // a good copy). REQUIRES: the file system is inactive.
  Status RepairDurable(const std::string& path, uint64_t offset, const std::string& previous);
  // The bytes of `path` that survive a power loss (nullopt: a file it never saw written, all of
  // whose bytes are durable).
  std::optional<uint64_t> DurableSize(const std::string& path) const;
  // Damages made since the file system was made.
  uint64_t DamageCount() const;

  // rocksdb::FileSystem. Each mutating call fails while inactive; each call evaluates its
  // fail point (see FsOp) before reaching the base file system.
  rocksdb::IOStatus NewSequentialFile(const std::string& fname,
                                      const rocksdb::FileOptions& file_opts,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& fname,
                                        const rocksdb::FileOptions& file_opts,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                        rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& file_opts,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname,
                                       const rocksdb::FileOptions& file_opts,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  // A rename of `old_fname` to `fname`, then NewWritableFile(fname).
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& file_opts,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& fname, const rocksdb::FileOptions& file_opts,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& io_opts,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  // Works on both bases (RocksDB 7.8's disk file system does not implement it by name).
  rocksdb::IOStatus Truncate(const std::string& fname, size_t size,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& dirname,
                                       const rocksdb::IOOptions& options,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  // NotSupported: a hard link would share contents the model tracks per name.
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& target,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LockFile(const std::string& fname, const rocksdb::IOOptions& options,
                             rocksdb::FileLock** lock, rocksdb::IODebugContext* dbg) override;

 private:
  std::shared_ptr<internal::FaultFsState> state_;
  std::atomic<uint64_t> damages_{0};
  std::atomic<bool> skip_options_files_{false};
};

// A FaultFileSystem and an Env over it (rocksdb::NewCompositeEnv), for RocksDB's
// DBOptions::env and LogOptions::env. The env holds a reference to the file system. Its clock
// caps sleeps at 1 ms: RocksDB sleeps 1 s after each failed background flush or compaction,
// which with faults injected on purpose is only waiting.
struct FaultEnv {
  std::shared_ptr<FaultFileSystem> fs;
  std::unique_ptr<rocksdb::Env> env;
};

// A FaultFileSystem over a new base of kind `base`, with its Env.
FaultEnv NewFaultEnv(BaseFileSystem base);

}  // namespace statecheck::faults

#endif  // STATECHECK_FAULTS_FAULT_FS_H_
