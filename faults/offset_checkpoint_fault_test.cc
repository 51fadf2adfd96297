// The offset checkpoint writer (statecheck/offset_checkpoint.h) under the fault file system:
// its file I/O goes through the Env it is handed, a write that returned OK survives a power
// loss, and a write that fails at any step leaves, after a power loss or not, the old file or
// the new one — never a torn or half-written one. (Here and not in engine/: the engine's tests
// do not link the fault library.)
#include <gtest/gtest.h>
#include <rocksdb/env.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "faults/fail_points.h"
#include "faults/fault_fs.h"
#include "statecheck/offset_checkpoint.h"
#include "testing/test_util.h"

namespace statecheck::faults {
namespace {

std::string BaseName(BaseFileSystem base) {
  return base == BaseFileSystem::kDisk ? "Disk" : "InMemory";
}

const CheckpointOffsets kOld = {{{"app-kv-changelog-0_0", 0}, 17}, {{"input", 0}, 40}};
const CheckpointOffsets kNew = {{{"app-kv-changelog-0_0", 0}, 23},
                                {{"app-counts-changelog-0_0", 0}, kOffsetUnknown},
                                {{"input", 0}, 52}};

class OffsetCheckpointFaultTest : public ::testing::TestWithParam<BaseFileSystem> {
 protected:
  void SetUp() override {
    fault_ = NewFaultEnv(GetParam());
    if (GetParam() == BaseFileSystem::kDisk) {
      std::string tmpl = ::testing::TempDir() + "offset_checkpoint_fault_test.XXXXXX";
      ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
      root_ = tmpl;
    } else {
      root_ = "/offset_checkpoint_fault_test";
    }
    const std::string task_dir = root_ + "/0_0";
    ASSERT_TRUE(fault_.fs->CreateDirIfMissing(root_, rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(fault_.fs->CreateDirIfMissing(task_dir, rocksdb::IOOptions(), nullptr).ok());
    path_ = task_dir + "/" + kCheckpointFileName;
  }

  void TearDown() override {
    FailPoints::Reset();
    if (GetParam() == BaseFileSystem::kDisk) std::filesystem::remove_all(root_);
  }

  rocksdb::Env* env() { return fault_.env.get(); }

  void PowerLoss(bool torn_writes = false, uint64_t seed = 0) {
    fault_.fs->SetActive(false);
    ASSERT_OK(fault_.fs->SimulatePowerLoss({torn_writes, seed}));
    fault_.fs->SetActive(true);
  }

  // The file as the reader sees it through the fault env; fails the test on any error.
  CheckpointOffsets Read() {
    CheckpointOffsets offsets;
    std::vector<std::string> warnings;
    const Status s = ReadOffsetCheckpoint(env(), path_, &offsets, &warnings);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(warnings.empty());
    return offsets;
  }

  bool TmpExists() { return env()->FileExists(path_ + ".tmp").ok(); }

  FaultEnv fault_;
  std::string root_;
  std::string path_;
};

INSTANTIATE_TEST_SUITE_P(Bases, OffsetCheckpointFaultTest,
                         ::testing::Values(BaseFileSystem::kDisk, BaseFileSystem::kInMemory),
                         [](const auto& info) { return BaseName(info.param); });

TEST_P(OffsetCheckpointFaultTest, WritesAndReadsGoThroughTheEnvItIsHanded) {
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kOld));
  EXPECT_EQ(Read(), kOld);
  // In memory, nothing reached the disk: the default Env does not see the file.
  if (GetParam() == BaseFileSystem::kInMemory) {
    EXPECT_FALSE(std::filesystem::exists(path_));
    CheckpointOffsets offsets;
    ASSERT_OK(ReadOffsetCheckpoint(rocksdb::Env::Default(), path_, &offsets, nullptr));
    EXPECT_TRUE(offsets.empty());
  }
  // The fault file system's fail points fire on the writer's and the reader's calls.
  ASSERT_OK(FailPoints::Enable(FsFailPointName(FsOp::kOpen, FileKind::kCheckpoint),
                               {FaultSpec::Mode::kOnce, 1, 0}, 1));
  Status s = WriteOffsetCheckpoint(env(), path_, kNew);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_TRUE(IsInjectedFault(s)) << s;
  ASSERT_OK(FailPoints::Enable(FsFailPointName(FsOp::kRead, FileKind::kCheckpoint),
                               {FaultSpec::Mode::kOnce, 1, 0}, 1));
  CheckpointOffsets offsets;
  s = ReadOffsetCheckpoint(env(), path_, &offsets, nullptr);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_TRUE(IsInjectedFault(s)) << s;
  EXPECT_TRUE(offsets.empty());
}

TEST_P(OffsetCheckpointFaultTest, FirstWriteSurvivesPowerLoss) {
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kNew));
  PowerLoss();
  EXPECT_EQ(Read(), kNew);
  EXPECT_FALSE(TmpExists());
}

TEST_P(OffsetCheckpointFaultTest, OverwriteSurvivesPowerLoss) {
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kOld));
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kNew));
  PowerLoss(/*torn_writes=*/true, /*seed=*/7);
  EXPECT_EQ(Read(), kNew);
  EXPECT_FALSE(TmpExists());
}

TEST_P(OffsetCheckpointFaultTest, DeleteSurvivesPowerLoss) {
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kOld));
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, {}));  // An empty map deletes the file.
  PowerLoss();
  EXPECT_TRUE(env()->FileExists(path_).IsNotFound());
  EXPECT_TRUE(Read().empty());
}

// The rename fails: the old file stays, before and after a power loss.
TEST_P(OffsetCheckpointFaultTest, FailedRenameKeepsTheOldFile) {
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kOld));
  ASSERT_OK(FailPoints::Enable(FsFailPointName(FsOp::kRename, FileKind::kCheckpoint),
                               {FaultSpec::Mode::kOnce, 1, 0}, 1));
  const Status s = WriteOffsetCheckpoint(env(), path_, kNew);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_TRUE(IsInjectedFault(s)) << s;
  EXPECT_EQ(Read(), kOld);
  PowerLoss(/*torn_writes=*/true, /*seed=*/3);
  EXPECT_EQ(Read(), kOld);
}

// The rename happened but the directory fsync that makes it durable fails: until a power loss
// the new file is there; the power loss undoes the rename and brings the old one back. (The
// writer fsyncs the directory through rocksdb::Directory::Fsync, which names no file, so the
// fault file system classes it "other".)
TEST_P(OffsetCheckpointFaultTest, FailedDirectoryFsyncLeavesTheOldOrTheNewFile) {
  ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kOld));
  ASSERT_OK(FailPoints::Enable(FsFailPointName(FsOp::kDirFsync, FileKind::kOther),
                               {FaultSpec::Mode::kOnce, 1, 0}, 1));
  const Status s = WriteOffsetCheckpoint(env(), path_, kNew);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_TRUE(IsInjectedFault(s)) << s;
  EXPECT_EQ(Read(), kNew);
  PowerLoss();
  EXPECT_EQ(Read(), kOld);
}

// Every step of a write failing in turn (create, append, fsync, rename, directory fsync), with
// no power loss after it, a clean one, or one that tears unsynced writes: the file reads as the
// old or the new offsets, never anything else, and a retry then writes the new ones durably.
TEST_P(OffsetCheckpointFaultTest, EveryFailedStepLeavesTheOldOrTheNewFile) {
  const std::vector<std::string> points = {
      FsFailPointName(FsOp::kOpen, FileKind::kCheckpoint),
      FsFailPointName(FsOp::kAppend, FileKind::kCheckpoint),
      FsFailPointName(FsOp::kSync, FileKind::kCheckpoint),
      FsFailPointName(FsOp::kRename, FileKind::kCheckpoint),
      FsFailPointName(FsOp::kDirFsync, FileKind::kOther),
  };
  enum class After { kNothing, kPowerLoss, kTornPowerLoss };
  for (const std::string& point : points) {
    for (After after : {After::kNothing, After::kPowerLoss, After::kTornPowerLoss}) {
      SCOPED_TRACE(point + ", then " +
                   (after == After::kNothing     ? "no power loss"
                    : after == After::kPowerLoss ? "a power loss"
                                                 : "a power loss tearing writes"));
      ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kOld));
      ASSERT_OK(FailPoints::Enable(point, {FaultSpec::Mode::kOnce, 1, 0}, 1));
      const Status s = WriteOffsetCheckpoint(env(), path_, kNew);
      EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
      EXPECT_TRUE(IsInjectedFault(s)) << s;
      FailPoints::Reset();
      if (after != After::kNothing) PowerLoss(after == After::kTornPowerLoss, /*seed=*/11);
      const CheckpointOffsets read = Read();
      EXPECT_TRUE(read == kOld || read == kNew);

      ASSERT_OK(WriteOffsetCheckpoint(env(), path_, kNew));
      PowerLoss(/*torn_writes=*/true, /*seed=*/13);
      EXPECT_EQ(Read(), kNew);
      EXPECT_FALSE(TmpExists());
    }
  }
}

}  // namespace
}  // namespace statecheck::faults
