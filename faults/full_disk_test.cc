// F7, a full disk: the fault file system's space quota (FaultFileSystem::SetSpaceLeft) and what
// the engine does on it — a task whose commit meets a full disk fails cleanly, loses nothing
// committed, keeps failing clearly while the disk stays full, and works again once space
// returns.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "faults/fault_fs.h"
#include "statecheck/log.h"
#include "statecheck/logger.h"
#include "statecheck/state_config.h"
#include "statecheck/task.h"
#include "testing/test_util.h"

namespace statecheck::faults {
namespace {

// The quota itself: writes take their bytes from what is left; one that does not fit fails
// whole with ENOSPC, as an injected fault, and writes nothing; the disk stays full until space
// is given back; unset, there is no quota.
TEST(FullDisk, AWriteThatDoesNotFitFailsWholeUntilSpaceReturns) {
  FaultEnv e = NewFaultEnv(BaseFileSystem::kInMemory);
  ASSERT_TRUE(e.fs->CreateDirIfMissing("/d", rocksdb::IOOptions(), nullptr).ok());
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(e.fs->NewWritableFile("/d/f", rocksdb::FileOptions(), &f, nullptr).ok());
  e.fs->SetSpaceLeft(10);
  EXPECT_TRUE(f->Append("123456", rocksdb::IOOptions(), nullptr).ok());
  EXPECT_EQ(e.fs->SpaceLeft(), std::optional<uint64_t>(4));
  for (int attempt = 0; attempt < 3; ++attempt) {  // Full until space is freed, not once.
    const rocksdb::IOStatus s = f->Append("abcde", rocksdb::IOOptions(), nullptr);
    EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
    EXPECT_TRUE(IsInjectedFault(s)) << s.ToString();
    EXPECT_NE(s.ToString().find("statecheck/fs/full (/d/f): no space left on device"),
              std::string::npos)
        << s.ToString();
  }
  EXPECT_EQ(e.fs->FullDiskRefusals(), 3u);
  uint64_t size = 0;
  ASSERT_TRUE(e.fs->GetFileSize("/d/f", rocksdb::IOOptions(), &size, nullptr).ok());
  EXPECT_EQ(size, 6u);  // Nothing of the refused writes.
  EXPECT_TRUE(f->Append("abcd", rocksdb::IOOptions(), nullptr).ok());  // What is left fits.
  e.fs->SetSpaceLeft(std::nullopt);
  EXPECT_TRUE(f->Append(std::string(1 << 20, 'x'), rocksdb::IOOptions(), nullptr).ok());
}

std::map<std::string, std::string> Records(Log& log, const std::string& partition,
                                           IsolationLevel isolation) {
  std::vector<LogRecord> records;
  std::map<std::string, std::string> out;
  const Status s = log.Read(partition, 0, 100000, isolation, &records);
  if (s.code() == Status::Code::kOutOfRange) return out;
  EXPECT_TRUE(s.ok()) << s;
  for (const LogRecord& r : records) out[r.key] = r.value.value_or("null");
  return out;
}

// A guarantee, and the space left when the disk fills: none, or enough for part of the commit's
// writes (it then fails in the middle of them).
class FullDiskTask : public ::testing::TestWithParam<std::tuple<std::string, uint64_t>> {
 protected:
  void SetUp() override {
    env_ = NewFaultEnv(BaseFileSystem::kInMemory);
    std::map<std::string, std::string> props;
    if (Eos()) props["processing.guarantee"] = "exactly_once_v2";
    ASSERT_OK(ResolveStateConfig(props, &config_));
  }
  bool Eos() const { return std::get<0>(GetParam()) == "exactly_once_v2"; }
  Status OpenTheLog() {
    log_.reset();
    LogOptions o;
    o.directory = "/app/log";
    o.env = env_.env.get();
    o.logger = NullLogger();
    return OpenLog(o, &log_);
  }
  Status OpenTheTask() {
    task_.reset();
    TaskOptions o;
    o.application_id = "app";
    o.input_partition = "input";
    o.output_partition = "output";
    o.state_directory = "/app/state";
    o.log = log_.get();
    o.config = config_;
    o.env = env_.env.get();
    o.logger = NullLogger();
    return OpenTask(o, NewKeyValueProcessor(), &task_);
  }
  void Input(int from, int to) {
    for (int i = from; i < to; ++i) {
      int64_t offset = 0;
      ASSERT_OK(log_->Append("input", "k" + std::to_string(i), std::to_string(i), &offset));
    }
    ASSERT_OK(log_->Sync());
  }
  int64_t CommittedInput() {
    CommittedOffsets c;
    if (!log_->GetCommittedOffsets("app-0_0", &c).ok()) return 0;
    return c.offsets["input"];
  }
  std::map<std::string, std::string> Store(const std::string& name) {
    std::map<std::string, std::string> out;
    std::unique_ptr<KeyValueIterator> it;
    EXPECT_OK(task_->Store(name)->NewQueryView()->All(&it));
    KeyValue kv;
    while (it->HasNext() && it->Next(&kv).ok()) out[kv.key] = kv.value;
    return out;
  }

  FaultEnv env_;
  StateConfig config_;
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
};

TEST_P(FullDiskTask, FailsCleanlyKeepsWhatWasCommittedAndWorksAgainOnceSpaceReturns) {
  ASSERT_OK(OpenTheLog());
  ASSERT_OK(OpenTheTask());
  Input(0, 20);
  int64_t processed = 0;
  ASSERT_OK(task_->Process(10, &processed));
  ASSERT_OK(task_->Commit());
  ASSERT_EQ(CommittedInput(), 10);

  // The disk fills: the next commit fails with the full disk's error, and the task stops (C6).
  env_.fs->SetSpaceLeft(std::get<1>(GetParam()));
  Status s = task_->Process(10, &processed);
  if (s.ok()) s = task_->Commit();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_NE(s.ToString().find("no space left on device"), std::string::npos) << s;
  EXPECT_TRUE(task_->failed());
  EXPECT_EQ(task_->Commit().code(), Status::Code::kFailedPrecondition);
  EXPECT_GT(env_.fs->FullDiskRefusals(), 0u);
  task_->Abandon();

  // While the disk stays full a new start fails as clearly — or, when it has nothing to write,
  // succeeds — and loses nothing committed either way.
  s = OpenTheLog();
  if (s.ok()) s = OpenTheTask();
  if (!s.ok()) {
    EXPECT_NE(s.ToString().find("no space left on device"), std::string::npos) << s;
  }
  task_.reset();

  // Space returns: the task starts, finds the last commit (10 records, or all 20 if the failed
  // commit took effect, C6), processes the rest and commits, every record exactly once in the
  // stores (and, under exactly-once, in the committed output).
  env_.fs->SetSpaceLeft(std::nullopt);
  ASSERT_OK(OpenTheLog());
  ASSERT_OK(OpenTheTask());
  const int64_t resumed = CommittedInput();
  EXPECT_TRUE(resumed == 10 || resumed == 20) << resumed;
  ASSERT_OK(task_->Process(100, &processed));
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(CommittedInput(), 20);
  const std::map<std::string, std::string> kv = Store("kv");
  ASSERT_EQ(kv.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(kv.at("k" + std::to_string(i)), std::to_string(i));
  if (Eos()) {
    for (const auto& [key, count] : Store("counts")) EXPECT_EQ(count, "1") << key;
  }
  if (Eos()) {
    EXPECT_EQ(Records(*log_, "output", IsolationLevel::kReadCommitted).size(), 20u);
  }
  ASSERT_OK(task_->Close());
}

INSTANTIATE_TEST_SUITE_P(GuaranteesAndSpace, FullDiskTask,
                         ::testing::Combine(::testing::Values("at_least_once", "exactly_once_v2"),
                                            ::testing::Values(0, 150, 400)));

}  // namespace
}  // namespace statecheck::faults
