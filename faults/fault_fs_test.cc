#include "faults/fault_fs.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "faults/fail_points.h"
#include "statecheck/log.h"
#include "testing/test_util.h"

namespace statecheck::faults {
namespace {

using rocksdb::IOOptions;
using rocksdb::IOStatus;

std::string BaseName(BaseFileSystem base) {
  return base == BaseFileSystem::kDisk ? "Disk" : "InMemory";
}

class FaultFsTest : public ::testing::TestWithParam<BaseFileSystem> {
 protected:
  void SetUp() override {
    fault_ = NewFaultEnv(GetParam());
    fs_ = fault_.fs.get();
    if (GetParam() == BaseFileSystem::kDisk) {
      std::string tmpl = ::testing::TempDir() + "fault_fs_test.XXXXXX";
      ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
      root_ = tmpl;
    } else {
      root_ = "/fault_fs_test";
    }
    dir_ = root_ + "/d";
    ASSERT_TRUE(fs_->CreateDirIfMissing(root_, io_, nullptr).ok());
    ASSERT_TRUE(fs_->CreateDirIfMissing(dir_, io_, nullptr).ok());
  }

  void TearDown() override {
    FailPoints::Reset();
    if (GetParam() == BaseFileSystem::kDisk) std::filesystem::remove_all(root_);
  }

  std::unique_ptr<rocksdb::FSWritableFile> Open(const std::string& path) {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = fs_->NewWritableFile(path, rocksdb::FileOptions(), &file, nullptr);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return file;
  }

  // Creates `path` with `synced` (fsynced), then `unsynced` appended, closed.
  void Write(const std::string& path, const std::string& synced, const std::string& unsynced) {
    auto file = Open(path);
    ASSERT_TRUE(file->Append(synced, io_, nullptr).ok());
    ASSERT_TRUE(file->Sync(io_, nullptr).ok());
    ASSERT_TRUE(file->Append(unsynced, io_, nullptr).ok());
    ASSERT_TRUE(file->Close(io_, nullptr).ok());
  }

  void DirFsync(const std::string& dir) {
    std::unique_ptr<rocksdb::FSDirectory> d;
    ASSERT_TRUE(fs_->NewDirectory(dir, io_, &d, nullptr).ok());
    IOStatus s = d->Fsync(io_, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  bool Exists(const std::string& path) { return fs_->FileExists(path, io_, nullptr).ok(); }

  std::string Read(const std::string& path) {
    std::unique_ptr<rocksdb::FSSequentialFile> file;
    IOStatus s = fs_->NewSequentialFile(path, rocksdb::FileOptions(), &file, nullptr);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return "<missing>";
    std::string out, scratch(4096, '\0');
    for (;;) {
      rocksdb::Slice chunk;
      s = file->Read(scratch.size(), io_, &chunk, scratch.data(), nullptr);
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (!s.ok() || chunk.empty()) return out;
      out.append(chunk.data(), chunk.size());
    }
  }

  void PowerLoss(const PowerLossOptions& options = {}) {
    fs_->SetActive(false);
    ASSERT_OK(fs_->SimulatePowerLoss(options));
    fs_->SetActive(true);
  }

  FaultEnv fault_;
  FaultFileSystem* fs_ = nullptr;
  IOOptions io_;
  std::string root_;
  std::string dir_;
};

INSTANTIATE_TEST_SUITE_P(Bases, FaultFsTest,
                         ::testing::Values(BaseFileSystem::kDisk, BaseFileSystem::kInMemory),
                         [](const auto& info) { return BaseName(info.param); });

// F6: damage changes durable bytes on the disk, only while the file system is down, never
// bytes a sync did not make durable; repairing writes the old bytes back.
TEST_P(FaultFsTest, DamageChangesDurableBytesAndRepairUndoesIt) {
  const std::string path = dir_ + "/a";
  Write(path, "durable", "tail");
  std::string previous;
  DurableDamage flip{DurableDamage::Kind::kFlipBit, 1, 1, 0};
  EXPECT_EQ(fs_->DamageDurable(path, flip, &previous).code(), Status::Code::kFailedPrecondition);
  fs_->SetActive(false);
  ASSERT_OK(fs_->DamageDurable(path, flip, &previous));
  EXPECT_EQ(previous, "u");
  DurableDamage zero{DurableDamage::Kind::kZero, 5, 100, 0};  // Cut at the durable end.
  std::string zeroed;
  ASSERT_OK(fs_->DamageDurable(path, zero, &zeroed));
  EXPECT_EQ(zeroed, "le");
  DurableDamage past{DurableDamage::Kind::kZero, 7, 1, 0};  // "tail" was never synced.
  EXPECT_EQ(fs_->DamageDurable(path, past, &previous).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(fs_->DamageDurable(dir_ + "/missing", flip, &previous).code(), Status::Code::kNotFound);
  EXPECT_EQ(fs_->DamageCount(), 2u);
  fs_->SetActive(true);
  EXPECT_EQ(Read(path), std::string("dtrab\0\0tail", 11));
  fs_->SetActive(false);
  ASSERT_OK(fs_->RepairDurable(path, 5, "le"));
  ASSERT_OK(fs_->RepairDurable(path, 1, "u"));
  fs_->SetActive(true);
  EXPECT_EQ(Read(path), "durabletail");
  EXPECT_EQ(fs_->DurableSize(path), std::optional<uint64_t>(7));
}

TEST_P(FaultFsTest, UnsyncedTailIsDropped) {
  const std::string path = dir_ + "/a";
  Write(path, "synced", "unsynced");
  DirFsync(dir_);
  EXPECT_EQ(Read(path), "syncedunsynced");
  PowerLoss();
  EXPECT_EQ(Read(path), "synced");
  EXPECT_EQ(fs_->LastPowerLoss().bytes_dropped, 8u);
  EXPECT_EQ(fs_->LastPowerLoss().files_truncated, 1u);
}

TEST_P(FaultFsTest, SyncedDataIsKept) {
  const std::string path = dir_ + "/a";
  Write(path, "all of it", "");
  DirFsync(dir_);
  PowerLoss();
  EXPECT_EQ(Read(path), "all of it");
  const PowerLossStats stats = fs_->LastPowerLoss();
  EXPECT_EQ(stats.bytes_dropped + stats.files_deleted + stats.renames_reverted, 0u);
}

TEST_P(FaultFsTest, ReopenedFileKeepsWhatWasThereAndLosesTheUnsyncedAppend) {
  const std::string path = dir_ + "/a";
  Write(path, "first", "");
  DirFsync(dir_);
  PowerLoss();  // Now the file is one this instance of tracking never saw written.
  std::unique_ptr<rocksdb::FSWritableFile> file;
  ASSERT_TRUE(fs_->ReopenWritableFile(path, rocksdb::FileOptions(), &file, nullptr).ok());
  ASSERT_TRUE(file->Append("+second", io_, nullptr).ok());
  ASSERT_TRUE(file->Close(io_, nullptr).ok());
  PowerLoss();
  EXPECT_EQ(Read(path), "first");
}

TEST_P(FaultFsTest, TornWriteKeepsAPrefixOfTheUnsyncedTail) {
  const std::string tail = "0123456789abcdef";
  std::set<size_t> kept;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const std::string path = dir_ + "/torn" + std::to_string(seed);
    Write(path, "durable|", tail);
    DirFsync(dir_);
    PowerLoss({.torn_writes = true, .seed = seed});
    const std::string after = Read(path);
    ASSERT_GE(after.size(), 8u);
    ASSERT_EQ(after, ("durable|" + tail).substr(0, after.size())) << "seed " << seed;
    kept.insert(after.size() - 8);
    EXPECT_EQ(fs_->LastPowerLoss().bytes_dropped, tail.size() - (after.size() - 8));
  }
  // Some seeds tear the write part-way.
  EXPECT_TRUE(
      std::any_of(kept.begin(), kept.end(), [&](size_t k) { return k > 0 && k < tail.size(); }));
}

TEST_P(FaultFsTest, CreateWithoutDirFsyncVanishesEvenWithSyncedContents) {
  const std::string path = dir_ + "/new";
  Write(path, "contents synced, name not", "");
  PowerLoss();
  EXPECT_FALSE(Exists(path));
  EXPECT_EQ(fs_->LastPowerLoss().files_deleted, 1u);
}

TEST_P(FaultFsTest, CreateCoveredByDirFsyncStays) {
  const std::string path = dir_ + "/new";
  auto file = Open(path);
  DirFsync(dir_);  // The name is durable, the (later) contents are not synced.
  ASSERT_TRUE(file->Append("x", io_, nullptr).ok());
  ASSERT_TRUE(file->Close(io_, nullptr).ok());
  PowerLoss();
  ASSERT_TRUE(Exists(path));
  EXPECT_EQ(Read(path), "");
}

TEST_P(FaultFsTest, DirFsyncOfAnotherDirectoryDoesNotCover) {
  const std::string other = root_ + "/other";
  ASSERT_TRUE(fs_->CreateDirIfMissing(other, io_, nullptr).ok());
  Write(dir_ + "/f", "x", "");
  DirFsync(other);
  DirFsync(root_);
  PowerLoss();
  EXPECT_FALSE(Exists(dir_ + "/f"));
}

TEST_P(FaultFsTest, RenameWithoutDirFsyncIsReverted) {
  Write(dir_ + "/CURRENT", "MANIFEST-000001\n", "");
  DirFsync(dir_);
  Write(dir_ + "/000002.dbtmp", "MANIFEST-000002\n", "");
  ASSERT_TRUE(fs_->RenameFile(dir_ + "/000002.dbtmp", dir_ + "/CURRENT", io_, nullptr).ok());
  EXPECT_EQ(Read(dir_ + "/CURRENT"), "MANIFEST-000002\n");
  PowerLoss();
  EXPECT_EQ(Read(dir_ + "/CURRENT"), "MANIFEST-000001\n");
  // The temp file's own creation was not durable either.
  EXPECT_FALSE(Exists(dir_ + "/000002.dbtmp"));
  EXPECT_EQ(fs_->LastPowerLoss().renames_reverted, 1u);
  EXPECT_EQ(fs_->LastPowerLoss().files_deleted, 1u);
}

TEST_P(FaultFsTest, RenameCoveredByDirFsyncStays) {
  Write(dir_ + "/CURRENT", "old\n", "");
  DirFsync(dir_);
  Write(dir_ + "/tmp", "new\n", "");
  ASSERT_TRUE(fs_->RenameFile(dir_ + "/tmp", dir_ + "/CURRENT", io_, nullptr).ok());
  std::unique_ptr<rocksdb::FSDirectory> d;
  ASSERT_TRUE(fs_->NewDirectory(dir_, io_, &d, nullptr).ok());
  ASSERT_TRUE(
      d->FsyncWithDirOptions(io_, nullptr, rocksdb::DirFsyncOptions(dir_ + "/CURRENT")).ok());
  PowerLoss();
  EXPECT_EQ(Read(dir_ + "/CURRENT"), "new\n");
  EXPECT_FALSE(Exists(dir_ + "/tmp"));
}

TEST_P(FaultFsTest, RenamedDurableFileComesBackUnderItsOldName) {
  Write(dir_ + "/a", "durable", "");
  DirFsync(dir_);
  ASSERT_TRUE(fs_->RenameFile(dir_ + "/a", dir_ + "/b", io_, nullptr).ok());
  PowerLoss();
  EXPECT_EQ(Read(dir_ + "/a"), "durable");
  EXPECT_FALSE(Exists(dir_ + "/b"));
}

TEST_P(FaultFsTest, DeleteWithoutDirFsyncIsRestoredWithItsDurableContents) {
  Write(dir_ + "/a", "durable", "+unsynced");
  DirFsync(dir_);
  ASSERT_TRUE(fs_->DeleteFile(dir_ + "/a", io_, nullptr).ok());
  EXPECT_FALSE(Exists(dir_ + "/a"));
  PowerLoss();
  EXPECT_EQ(Read(dir_ + "/a"), "durable");
  EXPECT_EQ(fs_->LastPowerLoss().deletes_restored, 1u);
}

TEST_P(FaultFsTest, DeleteCoveredByDirFsyncStays) {
  Write(dir_ + "/a", "durable", "");
  DirFsync(dir_);
  ASSERT_TRUE(fs_->DeleteFile(dir_ + "/a", io_, nullptr).ok());
  DirFsync(dir_);
  PowerLoss();
  EXPECT_FALSE(Exists(dir_ + "/a"));
}

TEST_P(FaultFsTest, InactiveFileSystemRefusesWritesButReads) {
  Write(dir_ + "/a", "data", "");
  DirFsync(dir_);
  auto open = Open(dir_ + "/b");
  std::unique_ptr<rocksdb::FSDirectory> d;
  ASSERT_TRUE(fs_->NewDirectory(dir_, io_, &d, nullptr).ok());
  fs_->SetActive(false);
  EXPECT_FALSE(fs_->IsActive());

  std::vector<IOStatus> refused;
  std::unique_ptr<rocksdb::FSWritableFile> file;
  refused.push_back(fs_->NewWritableFile(dir_ + "/c", rocksdb::FileOptions(), &file, nullptr));
  refused.push_back(fs_->ReopenWritableFile(dir_ + "/a", rocksdb::FileOptions(), &file, nullptr));
  refused.push_back(open->Append("x", io_, nullptr));
  refused.push_back(open->Flush(io_, nullptr));
  refused.push_back(open->Sync(io_, nullptr));
  refused.push_back(open->Truncate(0, io_, nullptr));
  refused.push_back(d->Fsync(io_, nullptr));
  refused.push_back(fs_->RenameFile(dir_ + "/a", dir_ + "/z", io_, nullptr));
  refused.push_back(fs_->DeleteFile(dir_ + "/a", io_, nullptr));
  refused.push_back(fs_->Truncate(dir_ + "/a", 1, io_, nullptr));
  refused.push_back(fs_->CreateDirIfMissing(root_ + "/new", io_, nullptr));
  rocksdb::FileLock* lock = nullptr;
  refused.push_back(fs_->LockFile(dir_ + "/LOCK", io_, &lock, nullptr));
  for (size_t i = 0; i < refused.size(); ++i) {
    EXPECT_TRUE(refused[i].IsIOError()) << i << ": " << refused[i].ToString();
    EXPECT_TRUE(IsInjectedFault(refused[i])) << i << ": " << refused[i].ToString();
  }
  EXPECT_EQ(Read(dir_ + "/a"), "data");
  EXPECT_TRUE(Exists(dir_ + "/a"));
  EXPECT_TRUE(open->Close(io_, nullptr).ok());

  fs_->SetActive(true);
  EXPECT_TRUE(fs_->RenameFile(dir_ + "/a", dir_ + "/z", io_, nullptr).ok());
}

TEST_P(FaultFsTest, HandlesFromBeforeAPowerLossStayDead) {
  auto file = Open(dir_ + "/a");
  DirFsync(dir_);
  PowerLoss();
  const IOStatus s = file->Append("late write of the crashed instance", io_, nullptr);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(IsInjectedFault(s));
  EXPECT_TRUE(file->Close(io_, nullptr).ok());
  EXPECT_EQ(Read(dir_ + "/a"), "");
}

TEST_P(FaultFsTest, PowerLossNeedsTheFileSystemDown) {
  const Status s = fs_->SimulatePowerLoss();
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s;
}

TEST_P(FaultFsTest, NoWriteLandsAfterSetActiveFalseReturns) {
  constexpr int kWriters = 3;
  auto size_of = [&](int t) {
    uint64_t size = 0;
    EXPECT_TRUE(fs_->GetFileSize(dir_ + "/w" + std::to_string(t), io_, &size, nullptr).ok());
    return size;
  };
  std::vector<std::unique_ptr<rocksdb::FSWritableFile>> files;
  for (int t = 0; t < kWriters; ++t) files.push_back(Open(dir_ + "/w" + std::to_string(t)));
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back([&, t] {
      rocksdb::FSWritableFile* file = files[t].get();
      while (!stop && file->Append(std::string(100, 'x'), io_, nullptr).ok() &&
             file->Sync(io_, nullptr).ok()) {
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs_->SetActive(false);
  std::vector<uint64_t> sizes;
  for (int t = 0; t < kWriters; ++t) sizes.push_back(size_of(t));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  stop = true;
  for (auto& w : writers) w.join();
  for (int t = 0; t < kWriters; ++t) EXPECT_EQ(size_of(t), sizes[t]) << "writer " << t;
  for (auto& file : files) EXPECT_TRUE(file->Close(io_, nullptr).ok());
  fs_->SetActive(true);
}

// --- Fail points ---------------------------------------------------------------------------

TEST(FaultFsCatalogueTest, OneNamedPointPerOpAndKind) {
  const std::vector<FailPointInfo> catalogue = FsFailPointCatalogue();
  ASSERT_EQ(catalogue.size(), static_cast<size_t>(kNumFsOps * kNumFileKinds));
  std::set<std::string> names;
  for (const FailPointInfo& info : catalogue) {
    EXPECT_TRUE(info.name.starts_with("statecheck/fs/")) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
    names.insert(info.name);
  }
  EXPECT_EQ(names.size(), catalogue.size());
  EXPECT_EQ(AllFailPointNames().front(), "statecheck/fs/open/wal");
  EXPECT_EQ(FsFailPointName(FsOp::kDirFsync, FileKind::kCurrent),
            "statecheck/fs/dir_fsync/current");
  EXPECT_EQ(FsFailPointName(FsOp::kTruncate, FileKind::kOther), "statecheck/fs/truncate/other");
}

TEST(FaultFsCatalogueTest, ClassifiesFilesByName) {
  FaultFileSystem fs(NewBaseFileSystem(BaseFileSystem::kInMemory));
  fs.RegisterLogDirectory("/state/log/");
  EXPECT_EQ(fs.KindOf("/db/000012.log"), FileKind::kWal);
  EXPECT_EQ(fs.KindOf("/state/log/000012.log"), FileKind::kLog);
  EXPECT_EQ(fs.KindOf("/state/log//input-0.log"), FileKind::kLog);
  EXPECT_EQ(fs.KindOf("/state/log/LOCK"), FileKind::kLog);
  EXPECT_EQ(fs.KindOf("/state/logs/000012.log"), FileKind::kWal);
  EXPECT_EQ(fs.KindOf("/db/input-0.log"), FileKind::kOther);
  EXPECT_EQ(fs.KindOf("/db/000007.sst"), FileKind::kSst);
  EXPECT_EQ(fs.KindOf("/db/MANIFEST-000005"), FileKind::kManifest);
  EXPECT_EQ(fs.KindOf("/db/CURRENT"), FileKind::kCurrent);
  EXPECT_EQ(fs.KindOf("/db/000005.dbtmp"), FileKind::kCurrent);
  EXPECT_EQ(fs.KindOf("/db/OPTIONS-000007"), FileKind::kOptions);
  EXPECT_EQ(fs.KindOf("/db/OPTIONS-000007.dbtmp"), FileKind::kOptions);
  EXPECT_EQ(fs.KindOf("/state/0_1/.checkpoint"), FileKind::kCheckpoint);
  EXPECT_EQ(fs.KindOf("/state/0_1/.checkpoint.tmp"), FileKind::kCheckpoint);
  EXPECT_EQ(fs.KindOf("/state/0_1/store.position"), FileKind::kCheckpoint);
  EXPECT_EQ(fs.KindOf("/db/IDENTITY"), FileKind::kOther);
  EXPECT_EQ(fs.KindOf("/db/LOCK"), FileKind::kOther);
}

TEST(FaultFsCatalogueTest, IsInjectedFaultTellsInjectedFromReal) {
  const IOStatus injected = IOStatus::IOError("injected fault: statecheck/fs/sync/wal (/db/1.log)");
  EXPECT_TRUE(IsInjectedFault(injected));
  // As the engine reports it, with RocksDB's context in front.
  EXPECT_TRUE(IsInjectedFault(injected));
  EXPECT_TRUE(
      IsInjectedFault("rocksdb: IO error: While appending to file: /db/1.log: "
                      "injected fault: statecheck/fs/append/wal (/db/1.log)"));
  EXPECT_FALSE(IsInjectedFault(rocksdb::Status::Corruption("block checksum mismatch")));
  EXPECT_FALSE(IsInjectedFault(rocksdb::Status::OK()));
  EXPECT_FALSE(IsInjectedFault(Status::IOError("No space left on device")));
  EXPECT_FALSE(IsInjectedFault(Status::Ok()));
}

// A file of each kind, under the test's directory.
std::string FileOfKind(FileKind kind) {
  switch (kind) {
    case FileKind::kWal:
      return "000007.log";
    case FileKind::kSst:
      return "000008.sst";
    case FileKind::kManifest:
      return "MANIFEST-000001";
    case FileKind::kCurrent:
      return "CURRENT";
    case FileKind::kOptions:
      return "OPTIONS-000005";
    case FileKind::kLog:
      return "partition-0.log";  // In the registered log directory.
    case FileKind::kCheckpoint:
      return ".checkpoint";
    case FileKind::kOther:
      return "IDENTITY";
  }
  return "";
}

// F1's other two errors: a full disk, and a short write (half the data lands, then the error).
TEST_P(FaultFsTest, NoSpaceAndShortWrites) {
  const std::string path = dir_ + "/000001.sst";
  Write(path, "0123456789", "");
  DirFsync(dir_);
  auto writable = std::unique_ptr<rocksdb::FSWritableFile>();
  ASSERT_TRUE(fs_->ReopenWritableFile(path, rocksdb::FileOptions(), &writable, nullptr).ok());
  const std::string& name = FsFailPointName(FsOp::kAppend, FileKind::kSst);

  FaultSpec spec{FaultSpec::Mode::kOnce, 1, 0};
  spec.error = FaultSpec::Error::kNoSpace;
  ASSERT_OK(FailPoints::Enable(name, spec, 1));
  IOStatus s = writable->Append("abcdefgh", io_, nullptr);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_TRUE(IsInjectedFault(s));
  EXPECT_EQ(Read(path), "0123456789");  // Nothing written.

  spec.error = FaultSpec::Error::kShortWrite;
  FailPoints::Reset();  // Counts start again: kOnce at the next reach.
  ASSERT_OK(FailPoints::Enable(name, spec, 1));
  s = writable->Append("abcdefgh", io_, nullptr);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(IsInjectedFault(s));
  EXPECT_NE(s.ToString().find("short write"), std::string::npos) << s.ToString();
  ASSERT_TRUE(writable->Flush(io_, nullptr).ok());
  EXPECT_EQ(Read(path), "0123456789abcd");  // Half of it.
  FailPoints::Reset();
  // The short write is unsynced data like any other: a power loss takes it.
  writable.reset();
  PowerLoss();
  EXPECT_EQ(Read(path), "0123456789");
}

TEST_P(FaultFsTest, EveryFailPointFiresAnInjectedIOError) {
  const std::string log_dir = root_ + "/log";
  fs_->RegisterLogDirectory(log_dir);
  ASSERT_TRUE(fs_->CreateDirIfMissing(log_dir, io_, nullptr).ok());
  for (int k = 0; k < kNumFileKinds; ++k) {
    const auto kind = static_cast<FileKind>(k);
    const std::string dir = kind == FileKind::kLog ? log_dir : dir_;
    const std::string path = dir + "/" + FileOfKind(kind);
    ASSERT_EQ(fs_->KindOf(path), kind) << path;
    for (int o = 0; o < kNumFsOps; ++o) {
      const auto op = static_cast<FsOp>(o);
      const std::string& name = FsFailPointName(op, kind);
      SCOPED_TRACE(name);
      Write(path, "0123456789", "");
      DirFsync(dir);
      // Everything the operation needs is opened before the point is enabled.
      auto writable = std::unique_ptr<rocksdb::FSWritableFile>();
      ASSERT_TRUE(fs_->ReopenWritableFile(path, rocksdb::FileOptions(), &writable, nullptr).ok());
      std::unique_ptr<rocksdb::FSSequentialFile> reader;
      ASSERT_TRUE(fs_->NewSequentialFile(path, rocksdb::FileOptions(), &reader, nullptr).ok());
      std::unique_ptr<rocksdb::FSDirectory> d;
      ASSERT_TRUE(fs_->NewDirectory(dir, io_, &d, nullptr).ok());
      Write(dir + "/source", "new", "");

      ASSERT_OK(FailPoints::Enable(name, {FaultSpec::Mode::kOnce, 1, 0}, 1));
      IOStatus s;
      std::string scratch(16, '\0');
      rocksdb::Slice result;
      switch (op) {
        case FsOp::kOpen: {
          std::unique_ptr<rocksdb::FSWritableFile> f;
          s = fs_->NewWritableFile(path, rocksdb::FileOptions(), &f, nullptr);
          break;
        }
        case FsOp::kAppend:
          s = writable->Append("more", io_, nullptr);
          break;
        case FsOp::kPwrite:
          s = writable->PositionedAppend("more", 10, io_, nullptr);
          break;
        case FsOp::kSync:
          s = writable->Sync(io_, nullptr);
          break;
        case FsOp::kRangeSync:
          s = writable->RangeSync(0, 10, io_, nullptr);
          break;
        case FsOp::kRename:
          s = fs_->RenameFile(dir + "/source", path, io_, nullptr);
          break;
        case FsOp::kDelete:
          s = fs_->DeleteFile(path, io_, nullptr);
          break;
        case FsOp::kRead:
          s = reader->Read(scratch.size(), io_, &result, scratch.data(), nullptr);
          break;
        case FsOp::kDirFsync:
          s = kind == FileKind::kLog
                  ? d->Fsync(io_, nullptr)
                  : d->FsyncWithDirOptions(io_, nullptr, rocksdb::DirFsyncOptions(path));
          break;
        case FsOp::kTruncate:
          s = fs_->Truncate(path, 3, io_, nullptr);
          break;
      }
      EXPECT_TRUE(s.IsIOError()) << s.ToString();
      EXPECT_TRUE(IsInjectedFault(s)) << s.ToString();
      EXPECT_NE(s.ToString().find("injected fault: " + name), std::string::npos) << s.ToString();
      bool counted = false;
      for (const auto& [n, counts] : FailPoints::Counts()) {
        if (n == name) {
          counted = true;
          EXPECT_EQ(counts.fired, 1u);
        }
      }
      EXPECT_TRUE(counted);
      FailPoints::Reset();
      // The failed operation changed nothing.
      EXPECT_EQ(Read(path), "0123456789");
      EXPECT_TRUE(Exists(dir + "/source"));
      ASSERT_TRUE(writable->Close(io_, nullptr).ok());
    }
  }
}

TEST_P(FaultFsTest, FailPointsOfOtherKindsDoNotFire) {
  ASSERT_OK(FailPoints::Enable("statecheck/fs/append/sst", {FaultSpec::Mode::kEveryNth, 1, 0}, 1));
  auto file = Open(dir_ + "/000001.log");
  EXPECT_TRUE(file->Append("x", io_, nullptr).ok());
  auto sst = Open(dir_ + "/000002.sst");
  EXPECT_TRUE(IsInjectedFault(sst->Append("x", io_, nullptr)));
}

TEST_P(FaultFsTest, InjectedFaultsSurfaceThroughRocksDBAndTheLogAsInjected) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.env = fault_.env.get();
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, root_ + "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  ASSERT_OK(FailPoints::Enable("statecheck/fs/sync/wal", {FaultSpec::Mode::kOnce, 1, 0}, 1));
  rocksdb::WriteOptions sync;
  sync.sync = true;
  const rocksdb::Status put = db->Put(sync, "k", "v");
  EXPECT_TRUE(put.IsIOError()) << put.ToString();
  EXPECT_TRUE(IsInjectedFault(put)) << put.ToString();
  EXPECT_TRUE(IsInjectedFault(put));
  db.reset();

  fs_->RegisterLogDirectory(root_ + "/log");
  LogOptions log_options;
  log_options.directory = root_ + "/log";
  log_options.env = fault_.env.get();
  std::unique_ptr<Log> log;
  ASSERT_OK(OpenLog(log_options, &log));
  int64_t offset;
  ASSERT_OK(FailPoints::Enable("statecheck/fs/append/log", {FaultSpec::Mode::kOnce, 1, 0}, 1));
  const Status append = log->Append("p", "k", "v", &offset);
  EXPECT_EQ(append.code(), Status::Code::kIOError) << append;
  EXPECT_TRUE(IsInjectedFault(append)) << append;
  ASSERT_OK(log->Append("p", "k", "v", &offset));
  EXPECT_EQ(offset, 0);  // The failed append left nothing behind.
}

TEST_P(FaultFsTest, SkippedOptionsFilesLeaveRocksDBOpeningWithoutThem) {
  auto options_files = [&](const std::string& db) {
    std::vector<std::string> children;
    EXPECT_TRUE(fs_->GetChildren(db, io_, &children, nullptr).ok());
    int n = 0;
    for (const std::string& child : children) n += IsRocksDBOptionsFile(child) ? 1 : 0;
    return n;
  };
  auto open_put_reopen = [&](const std::string& db) {
    rocksdb::Options options;
    options.create_if_missing = true;
    // The first open also creates a family, which writes an OPTIONS file of its own.
    options.create_missing_column_families = true;
    options.env = fault_.env.get();
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options)},
        {"meta", rocksdb::ColumnFamilyOptions(options)}};
    for (int open = 0; open < 2; ++open) {
      std::vector<rocksdb::ColumnFamilyHandle*> handles;
      rocksdb::DB* raw = nullptr;
      const rocksdb::Status s = rocksdb::DB::Open(options, db, families, &handles, &raw);
      ASSERT_TRUE(s.ok()) << s.ToString();
      std::string value;
      if (open == 0) {
        ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), handles[1], "k", "v").ok());
        ASSERT_TRUE(raw->Flush(rocksdb::FlushOptions(), handles[1]).ok());
      } else {
        ASSERT_TRUE(raw->Get(rocksdb::ReadOptions(), handles[1], "k", &value).ok());
        EXPECT_EQ(value, "v");
      }
      for (auto* h : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
      delete raw;
    }
  };
  // A fault armed at every OPTIONS file creation: the skip refuses it before it is reached.
  ASSERT_OK(
      FailPoints::Enable("statecheck/fs/open/options", {FaultSpec::Mode::kEveryNth, 1, 0}, 1));
  auto reached = [] {
    for (const auto& [name, counts] : FsFailPointCounts()) {
      if (name == "statecheck/fs/open/options") return counts.reached;
    }
    return uint64_t{0};
  };
  EXPECT_FALSE(fs_->SkipsRocksDBOptionsFiles());
  fs_->SkipRocksDBOptionsFiles(true);
  const uint64_t before = reached();
  open_put_reopen(root_ + "/skipped");
  EXPECT_EQ(options_files(root_ + "/skipped"), 0);
  EXPECT_EQ(reached(), before);
  std::unique_ptr<rocksdb::FSWritableFile> file;
  const IOStatus refused =
      fs_->NewWritableFile(dir_ + "/OPTIONS-000007.dbtmp", rocksdb::FileOptions(), &file, nullptr);
  EXPECT_TRUE(IsRocksDBOptionsFile(dir_ + "/OPTIONS-000007.dbtmp"));
  EXPECT_TRUE(IsRocksDBOptionsFile("OPTIONS-000012"));
  EXPECT_FALSE(IsRocksDBOptionsFile(dir_ + "/MANIFEST-000012"));
  EXPECT_FALSE(IsRocksDBOptionsFile("/OPTIONS-dir/000012.sst"));
  EXPECT_TRUE(refused.IsIOError()) << refused.ToString();
  EXPECT_FALSE(IsInjectedFault(refused)) << refused.ToString();
  EXPECT_NE(refused.ToString().find("SkipRocksDBOptionsFiles"), std::string::npos);

  // Kept (the default): the files are written, through their fail point.
  fs_->SkipRocksDBOptionsFiles(false);
  ASSERT_OK(FailPoints::Disable("statecheck/fs/open/options"));
  open_put_reopen(root_ + "/kept");
  EXPECT_GE(options_files(root_ + "/kept"), 1);
  EXPECT_GT(reached(), before);
}

// --- RocksDB over the fault file system ----------------------------------------------------

struct DbCase {
  BaseFileSystem base;
  bool wal;
  bool torn;
};

class FaultFsRocksDBTest : public ::testing::TestWithParam<DbCase> {
 protected:
  void SetUp() override {
    fault_ = NewFaultEnv(GetParam().base);
    if (GetParam().base == BaseFileSystem::kDisk) {
      std::string tmpl = ::testing::TempDir() + "fault_fs_db.XXXXXX";
      ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
      root_ = tmpl;
    } else {
      root_ = "/fault_fs_db";
    }
  }
  void TearDown() override {
    if (GetParam().base == BaseFileSystem::kDisk) std::filesystem::remove_all(root_);
  }

  rocksdb::Status OpenDb(std::unique_ptr<rocksdb::DB>* db) {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.env = fault_.env.get();
    options.write_buffer_size = 64 << 10;
    options.paranoid_checks = true;
    // A crashed instance must not flush on the way down: the flush would fail and RocksDB would
    // sleep a second before closing (the engine's stores set this too).
    options.avoid_flush_during_shutdown = true;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, root_ + "/db", &raw);
    db->reset(raw);
    return s;
  }

  FaultEnv fault_;
  std::string root_;
};

std::string Key(int i) { return "key" + std::to_string(i); }
std::string Value(int i, int round) {
  return std::string(200, static_cast<char>('a' + i % 26)) + std::to_string(round);
}

TEST_P(FaultFsRocksDBTest, ReopensCleanlyAfterPowerLossWithAllFlushedData) {
  const DbCase c = GetParam();
  rocksdb::WriteOptions write;
  write.disableWAL = !c.wal;
  std::unique_ptr<rocksdb::DB> db;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    rocksdb::Status s = OpenDb(&db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::string value;
    // Everything flushed (or synced) before the previous power loss is there.
    for (int i = 0; round > 0 && i < 1000; ++i) {
      s = db->Get(rocksdb::ReadOptions(), Key(i), &value);
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(value, Value(i, round - 1));
    }
    if (round > 0 && c.wal) {
      s = db->Get(rocksdb::ReadOptions(), "synced", &value);
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(value, std::to_string(round - 1));
    }
    if (round > 0) {
      // Written after the flush, neither flushed nor synced: lost.
      EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), "unsynced", &value).IsNotFound());
    }
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(db->Put(write, Key(i), Value(i, round)).ok());
    ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    // Compacts now rather than in the background: a compaction that fails when the file system
    // goes down makes RocksDB sleep a second before the crashed instance can close. This also
    // deletes the obsolete table files without a directory fsync.
    ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
    if (c.wal) {
      rocksdb::WriteOptions sync = write;
      sync.sync = true;
      ASSERT_TRUE(db->Put(sync, "synced", std::to_string(round)).ok());
    }
    ASSERT_TRUE(db->Put(write, "unsynced", std::string(1000, 'u')).ok());

    fault_.fs->SetActive(false);
    db.reset();  // The crashed instance: its writes on the way down fail.
    ASSERT_OK(fault_.fs->SimulatePowerLoss({.torn_writes = c.torn, .seed = 7 + uint64_t(round)}));
    fault_.fs->SetActive(true);
    const PowerLossStats stats = fault_.fs->LastPowerLoss();
    if (c.wal && !c.torn) {
      EXPECT_GT(stats.bytes_dropped, 0u);
    }
  }
  rocksdb::Status s = OpenDb(&db);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(Cases, FaultFsRocksDBTest,
                         ::testing::Values(DbCase{BaseFileSystem::kDisk, false, false},
                                           DbCase{BaseFileSystem::kDisk, true, false},
                                           DbCase{BaseFileSystem::kDisk, true, true},
                                           DbCase{BaseFileSystem::kInMemory, false, false},
                                           DbCase{BaseFileSystem::kInMemory, true, false},
                                           DbCase{BaseFileSystem::kInMemory, true, true}),
                         [](const auto& info) {
                           return BaseName(info.param.base) + (info.param.wal ? "Wal" : "NoWal") +
                                  (info.param.torn ? "Torn" : "");
                         });

// --- The engine's log over the fault file system -------------------------------------------

class FaultFsLogTest : public FaultFsTest {
 protected:
  Status Open(std::unique_ptr<Log>* log) {
    LogOptions options;
    options.directory = root_ + "/log";
    options.env = fault_.env.get();
    options.logger = logger_;
    return OpenLog(options, log);
  }

  std::vector<std::string> Keys(Log* log, const std::string& partition, IsolationLevel level) {
    std::vector<LogRecord> records;
    EXPECT_OK(log->Read(partition, 0, 1000, level, &records));
    std::vector<std::string> keys;
    for (const LogRecord& r : records) keys.push_back(r.key);
    return keys;
  }

  void Crash(std::unique_ptr<Log>* log, const PowerLossOptions& options = {}) {
    fs_->SetActive(false);
    log->reset();
    ASSERT_OK(fs_->SimulatePowerLoss(options));
    fs_->SetActive(true);
  }

  std::shared_ptr<testing::CapturingLogger> logger_ = std::make_shared<testing::CapturingLogger>();
};

INSTANTIATE_TEST_SUITE_P(Bases, FaultFsLogTest,
                         ::testing::Values(BaseFileSystem::kDisk, BaseFileSystem::kInMemory),
                         [](const auto& info) { return BaseName(info.param); });

TEST_P(FaultFsLogTest, KeepsSyncedRecordsAndLosesUnsyncedOnes) {
  fs_->RegisterLogDirectory(root_ + "/log");
  std::unique_ptr<Log> log;
  ASSERT_OK(Open(&log));
  int64_t offset;
  for (int i = 0; i < 5; ++i)
    ASSERT_OK(log->Append("p", "synced" + std::to_string(i), "v", &offset));
  ASSERT_OK(log->Sync());
  for (int i = 0; i < 5; ++i)
    ASSERT_OK(log->Append("p", "unsynced" + std::to_string(i), "v", &offset));
  ASSERT_OK(log->Append("q", "never synced partition", "v", &offset));
  Crash(&log);
  EXPECT_GT(fs_->LastPowerLoss().bytes_dropped, 0u);
  EXPECT_EQ(fs_->LastPowerLoss().files_deleted, 0u);  // The log fsyncs its directory.

  ASSERT_OK(Open(&log));
  EXPECT_EQ(Keys(log.get(), "p", IsolationLevel::kReadUncommitted),
            (std::vector<std::string>{"synced0", "synced1", "synced2", "synced3", "synced4"}));
  EXPECT_EQ(Keys(log.get(), "q", IsolationLevel::kReadUncommitted), std::vector<std::string>{});
  ASSERT_OK(log->Append("p", "after", "v", &offset));
  EXPECT_EQ(offset, 5);
}

// F6: a damaged byte of a synced log record with valid records after it is Corruption naming
// the file and the record's byte offset, from OpenLog and InspectLog alike — never a log that
// opens without the records after the damage; repaired, the log opens with every record.
TEST_P(FaultFsLogTest, DamageBeforeValidRecordsIsCorruptionNamingFileAndOffset) {
  fs_->RegisterLogDirectory(root_ + "/log");
  std::unique_ptr<Log> log;
  ASSERT_OK(Open(&log));
  int64_t offset;
  for (int i = 0; i < 4; ++i) ASSERT_OK(log->Append("p", "k" + std::to_string(i), "v", &offset));
  ASSERT_OK(log->Sync());
  fs_->SetActive(false);
  log.reset();
  LogSummary before;
  ASSERT_OK(InspectLog(root_ + "/log", fault_.env.get(), &before));
  ASSERT_EQ(before.partitions.size(), 1u);
  const uint64_t last = before.partitions[0].last_record_at;
  ASSERT_GT(last, 0u);
  const std::string file = root_ + "/log/p.log";
  for (uint64_t at : {uint64_t{0}, last / 2, last - 1}) {
    SCOPED_TRACE("damage at byte " + std::to_string(at));
    std::string previous;
    ASSERT_OK(fs_->DamageDurable(file, {DurableDamage::Kind::kFlipBit, at, 1, 3}, &previous));
    fs_->SetActive(true);
    const Status opened = Open(&log);
    EXPECT_EQ(opened.code(), Status::Code::kCorruption) << opened;
    EXPECT_NE(opened.message().find(file), std::string::npos) << opened;
    EXPECT_NE(opened.message().find("byte offset"), std::string::npos) << opened;
    LogSummary summary;
    const Status inspected = InspectLog(root_ + "/log", fault_.env.get(), &summary);
    EXPECT_EQ(inspected.code(), Status::Code::kCorruption) << inspected;
    EXPECT_NE(inspected.message().find(file), std::string::npos) << inspected;
    log.reset();
    fs_->SetActive(false);
    ASSERT_OK(fs_->RepairDurable(file, at, previous));
  }
  fs_->SetActive(true);
  ASSERT_OK(Open(&log));
  EXPECT_EQ(Keys(log.get(), "p", IsolationLevel::kReadCommitted),
            (std::vector<std::string>{"k0", "k1", "k2", "k3"}));
}

TEST_P(FaultFsLogTest, CommittedTransactionSurvivesPowerLoss) {
  fs_->RegisterLogDirectory(root_ + "/log");
  std::unique_ptr<Log> log;
  ASSERT_OK(Open(&log));
  int64_t offset;
  ASSERT_OK(log->BeginTransaction(1));
  ASSERT_OK(log->AppendTransactional(1, "a", "k1", "v", &offset));
  ASSERT_OK(log->AppendTransactional(1, "b", "k2", "v", &offset));
  ASSERT_OK(log->CommitTransaction(1));
  ASSERT_OK(log->BeginTransaction(2));
  ASSERT_OK(log->AppendTransactional(2, "a", "open", "v", &offset));
  Crash(&log);

  ASSERT_OK(Open(&log));
  EXPECT_EQ(Keys(log.get(), "a", IsolationLevel::kReadCommitted), std::vector<std::string>{"k1"});
  EXPECT_EQ(Keys(log.get(), "b", IsolationLevel::kReadCommitted), std::vector<std::string>{"k2"});
}

TEST_P(FaultFsLogTest, TornTailsRecoverWithoutCorruption) {
  fs_->RegisterLogDirectory(root_ + "/log");
  size_t synced = 0;
  std::set<size_t> survivors;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    std::unique_ptr<Log> log;
    const Status s = Open(&log);
    ASSERT_TRUE(s.ok()) << "seed " << seed << ": " << s;
    const size_t before = Keys(log.get(), "p", IsolationLevel::kReadUncommitted).size();
    ASSERT_GE(before, synced) << "seed " << seed << ": synced records lost";
    survivors.insert(before - synced);
    int64_t offset;
    for (int i = 0; i < 3; ++i) ASSERT_OK(log->Append("p", "s" + std::to_string(i), "v", &offset));
    ASSERT_OK(log->Sync());
    synced = before + 3;
    for (int i = 0; i < 4; ++i) {
      ASSERT_OK(log->Append("p", "u" + std::to_string(i), std::string(50, 'x'), &offset));
    }
    Crash(&log, {.torn_writes = true, .seed = seed});
  }
  std::unique_ptr<Log> log;
  ASSERT_OK(Open(&log));
  EXPECT_GT(survivors.size(), 1u) << "every seed kept the same number of unsynced records";
}

// What a crash left readable is durable once the log has opened: a process crash keeps
// unsynced records in the OS's cache, the log opens with them, and a power loss after that
// keeps them. Readers take them as durable — an at-least-once restore applies them and stores
// their offset.
TEST_P(FaultFsLogTest, WhatRecoveryExposesIsDurable) {
  fs_->RegisterLogDirectory(root_ + "/log");
  std::unique_ptr<Log> log;
  ASSERT_OK(Open(&log));
  int64_t offset;
  ASSERT_OK(log->Append("p", "synced", "v", &offset));
  ASSERT_OK(log->Sync());
  ASSERT_OK(log->Append("p", "unsynced", "v", &offset));
  ASSERT_OK(log->Append("new", "in a file never synced", "v", &offset));
  log.reset();  // The process dies; the machine does not.
  ASSERT_OK(Open(&log));
  EXPECT_EQ(Keys(log.get(), "p", IsolationLevel::kReadUncommitted),
            (std::vector<std::string>{"synced", "unsynced"}));
  Crash(&log);  // Power loss, nothing written since the open.
  EXPECT_EQ(fs_->LastPowerLoss().bytes_dropped, 0u);
  EXPECT_EQ(fs_->LastPowerLoss().files_deleted, 0u);
  ASSERT_OK(Open(&log));
  EXPECT_EQ(Keys(log.get(), "p", IsolationLevel::kReadUncommitted),
            (std::vector<std::string>{"synced", "unsynced"}));
  EXPECT_EQ(Keys(log.get(), "new", IsolationLevel::kReadUncommitted),
            std::vector<std::string>{"in a file never synced"});
}

}  // namespace
}  // namespace statecheck::faults
