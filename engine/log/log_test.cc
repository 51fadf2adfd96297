#include "statecheck/log.h"

#include <fiu-control.h>
#include <fiu.h>
#include <gtest/gtest.h>
#include <rocksdb/env.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "statecheck/hooks/fail_points.h"
#include "testing/test_util.h"

namespace statecheck {
namespace {

namespace fs = std::filesystem;
using testing::CapturingLogger;
using testing::FaultyFileEnv;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("statecheck_log_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
  }
  void TearDown() override {
    log_.reset();
    fs::remove_all(dir_.parent_path());
  }

  Status Open(rocksdb::Env* env = nullptr) {
    log_.reset();
    logger_ = std::make_shared<CapturingLogger>();
    LogOptions o;
    o.directory = dir_.string();
    o.env = env;
    o.logger = logger_;
    o.segment_bytes = segment_bytes_;
    return OpenLog(o, &log_);
  }

  int64_t AppendOk(std::string_view partition, std::string_view key,
                   std::optional<std::string_view> value) {
    int64_t offset = -1;
    Status s = log_->Append(partition, key, value, &offset);
    EXPECT_TRUE(s.ok()) << s;
    return offset;
  }

  int64_t TxnAppendOk(int64_t txn, std::string_view partition, std::string_view key,
                      std::string_view value) {
    int64_t offset = -1;
    Status s = log_->AppendTransactional(txn, partition, key, value, &offset);
    EXPECT_TRUE(s.ok()) << s;
    return offset;
  }

  // "key=value" of each record read from offset 0.
  std::vector<std::string> Keys(std::string_view partition, IsolationLevel level) {
    std::vector<LogRecord> records;
    Status s = log_->Read(partition, 0, 1000, level, &records);
    EXPECT_TRUE(s.ok()) << s;
    std::vector<std::string> out;
    for (const auto& r : records) out.push_back(r.key + "=" + r.value.value_or("<null>"));
    return out;
  }

  int64_t End(std::string_view partition) {
    int64_t end = -1;
    EXPECT_TRUE(log_->EndOffset(partition, &end).ok());
    return end;
  }
  int64_t CommittedEnd(std::string_view partition) {
    int64_t end = -1;
    EXPECT_TRUE(log_->CommittedEndOffset(partition, &end).ok());
    return end;
  }

  std::string FileOf(std::string_view partition) {
    return (dir_ / (std::string(partition) + ".log")).string();
  }

  // Compacts `partition` with engine fail point `point` armed to fire once; expects the compaction
  // to fail with the injected IOError naming the point. `*result` is the compaction's.
  void CompactFailingAt(std::string_view point, std::string_view partition,
                        LogCompactionResult* result) {
    const std::string name(point);
    ASSERT_EQ(fiu_enable(name.c_str(), 1, nullptr, FIU_ONETIME), 0);
    const Status s = log_->Compact(partition, {}, result);
    fiu_disable(name.c_str());
    EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
    EXPECT_NE(s.message().find(name), std::string::npos) << s;
  }

  // The partition's segment files in the log directory, sorted, and their sizes.
  std::vector<std::pair<std::string, uintmax_t>> Segments(std::string_view partition) {
    std::vector<std::pair<std::string, uintmax_t>> out;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(std::string(partition) + ".log")) {
        out.emplace_back(name, fs::file_size(entry.path()));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
  int64_t segment_bytes_ = LogOptions{}.segment_bytes;
  std::shared_ptr<CapturingLogger> logger_;
  std::unique_ptr<Log> log_;
};

using Strings = std::vector<std::string>;
constexpr IsolationLevel kCommitted = IsolationLevel::kReadCommitted;
constexpr IsolationLevel kUncommitted = IsolationLevel::kReadUncommitted;

TEST_F(LogTest, AppendAssignsConsecutiveOffsetsAndReads) {
  ASSERT_OK(Open());
  EXPECT_EQ(AppendOk("input-0", "a", "1"), 0);
  EXPECT_EQ(AppendOk("input-0", "b", std::nullopt), 1);
  EXPECT_EQ(AppendOk("input-0", "c", ""), 2);
  EXPECT_EQ(AppendOk("output-0", "x", "9"), 0);
  EXPECT_EQ(End("input-0"), 3);
  EXPECT_EQ(End("never-written"), 0);
  EXPECT_EQ(Keys("input-0", kUncommitted), (Strings{"a=1", "b=<null>", "c="}));

  std::vector<LogRecord> records;
  ASSERT_OK(log_->Read("input-0", 1, 1, kUncommitted, &records));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0], (LogRecord{1, "b", std::nullopt, 0, kNoTimestamp, {}}));
  EXPECT_EQ(log_->Partitions(), (Strings{"input-0", "output-0"}));
}

// Records carry a timestamp (Kafka's record timestamp, SPEC E) or none, through a reopen too.
TEST_F(LogTest, RecordsCarryTheirTimestamps) {
  ASSERT_OK(Open());
  int64_t offset = 0;
  ASSERT_OK(log_->Append("input-0", "a", "1", 1700000000000, &offset));
  ASSERT_OK(log_->Append("input-0", "b", std::nullopt, 0, &offset));
  ASSERT_OK(log_->Append("input-0", "c", "3", &offset));  // None.
  ASSERT_OK(log_->BeginTransaction(7));
  ASSERT_OK(log_->AppendTransactional(7, "input-0", "d", "4", 42, &offset));
  ASSERT_OK(log_->CommitTransaction(7));
  const Status negative = log_->Append("input-0", "e", "5", -2, &offset);
  EXPECT_EQ(negative.code(), Status::Code::kInvalidArgument) << negative;
  EXPECT_NE(negative.message().find("timestamp -2 is negative"), std::string::npos) << negative;
  for (int open = 0; open < 2; ++open) {
    std::vector<LogRecord> records;
    ASSERT_OK(log_->Read("input-0", 0, 10, kCommitted, &records));
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(records[0], (LogRecord{0, "a", "1", 0, 1700000000000, {}}));
    EXPECT_EQ(records[1], (LogRecord{1, "b", std::nullopt, 0, 0, {}}));
    EXPECT_EQ(records[2], (LogRecord{2, "c", "3", 0, kNoTimestamp, {}}));
    EXPECT_EQ(records[3].timestamp, 42);
    ASSERT_OK(Open());  // Recovery reads them back from the file.
  }
  EXPECT_EQ(logger_->All(), "");
}

// Records carry the source they were appended with (a changelog record's input position, T8),
// or none, through a reopen too; a bad source is refused and appends nothing.
TEST_F(LogTest, RecordsCarryTheirSources) {
  ASSERT_OK(Open());
  int64_t offset = 0;
  ASSERT_OK(log_->Append("changelog-0", "a", "1", 5, LogSource{"input-0", 17}, &offset));
  ASSERT_OK(log_->Append("changelog-0", "b", std::nullopt, kNoTimestamp, std::nullopt, &offset));
  ASSERT_OK(log_->BeginTransaction(7));
  ASSERT_OK(log_->AppendTransactional(7, "changelog-0", "c", "3", 6, LogSource{"in", 0}, &offset));
  ASSERT_OK(log_->CommitTransaction(7));
  for (const LogSource& bad :
       {LogSource{"input-0", -1}, LogSource{"__offsets", 1}, LogSource{"", 1}}) {
    const Status s = log_->Append("changelog-0", "d", "4", 7, bad, &offset);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("record source"), std::string::npos) << s;
  }
  for (int open = 0; open < 2; ++open) {
    std::vector<LogRecord> records;
    ASSERT_OK(log_->Read("changelog-0", 0, 10, kCommitted, &records));
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0], (LogRecord{0, "a", "1", 0, 5, LogSource{"input-0", 17}}));
    EXPECT_EQ(records[1], (LogRecord{1, "b", std::nullopt, 0, kNoTimestamp, {}}));
    EXPECT_EQ(records[2], (LogRecord{3, "c", "3", 7, 6, LogSource{"in", 0}}));
    ASSERT_OK(Open());  // Recovery reads them back from the file.
  }
  EXPECT_EQ(logger_->All(), "");
}

TEST_F(LogTest, AppendIsVisibleToReadCommittedAfterSync) {
  ASSERT_OK(Open());
  AppendOk("input-0", "a", "1");
  EXPECT_EQ(CommittedEnd("input-0"), 0);
  EXPECT_EQ(Keys("input-0", kCommitted), Strings{});
  ASSERT_OK(log_->Sync());
  EXPECT_EQ(CommittedEnd("input-0"), 1);
  EXPECT_EQ(Keys("input-0", kCommitted), Strings{"a=1"});
}

TEST_F(LogTest, ReopenKeepsSyncedData) {
  ASSERT_OK(Open());
  AppendOk("input-0", "a", "1");
  AppendOk("input-0", "b", std::nullopt);
  ASSERT_OK(log_->Sync());
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("input-0", kCommitted), (Strings{"a=1", "b=<null>"}));
  EXPECT_EQ(AppendOk("input-0", "c", "3"), 2);
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("input-0", kUncommitted), (Strings{"a=1", "b=<null>", "c=3"}));
  EXPECT_EQ(logger_->All(), "");
}

TEST_F(LogTest, CreatesMissingDirectoryApartFromEverythingElse) {
  dir_ = dir_ / "nested" / "log";
  ASSERT_OK(Open());
  AppendOk("input-0", "a", "1");
  EXPECT_TRUE(fs::exists(FileOf("input-0")));
}

TEST_F(LogTest, SecondOpenOfTheSameDirectoryFails) {
  ASSERT_OK(Open());
  std::unique_ptr<Log> second;
  LogOptions o;
  o.directory = dir_.string();
  o.logger = NullLogger();
  Status s = OpenLog(o, &second);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_NE(s.message().find("lock"), std::string::npos) << s;
}

TEST_F(LogTest, TornTailIsDroppedAndLogged) {
  ASSERT_OK(Open());
  AppendOk("input-0", "a", "1");
  AppendOk("input-0", "b", "2");
  AppendOk("input-0", "c", "3");
  ASSERT_OK(log_->Sync());
  log_.reset();
  const uintmax_t size = fs::file_size(FileOf("input-0"));
  const uintmax_t record = size / 3;  // Equal-sized records.
  fs::resize_file(FileOf("input-0"), size - 5);

  ASSERT_OK(Open());
  EXPECT_EQ(Keys("input-0", kCommitted), (Strings{"a=1", "b=2"}));
  const std::string logged = logger_->All();
  EXPECT_NE(logged.find("torn tail"), std::string::npos) << logged;
  EXPECT_NE(logged.find("\"input-0\""), std::string::npos) << logged;
  EXPECT_NE(logged.find("byte offset " + std::to_string(2 * record)), std::string::npos) << logged;
  EXPECT_EQ(fs::file_size(FileOf("input-0")), 2 * record);
  EXPECT_EQ(AppendOk("input-0", "d", "4"), 2);
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("input-0", kCommitted), (Strings{"a=1", "b=2", "d=4"}));
  EXPECT_EQ(logger_->All(), "");
}

TEST_F(LogTest, GarbageTailIsDropped) {
  ASSERT_OK(Open());
  AppendOk("input-0", "a", "1");
  ASSERT_OK(log_->Sync());
  log_.reset();
  {
    std::ofstream f(FileOf("input-0"), std::ios::binary | std::ios::app);
    f << std::string(7, '\0') << "garbage after the last record";
  }
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("input-0", kCommitted), Strings{"a=1"});
  EXPECT_NE(logger_->All().find("torn tail"), std::string::npos);
}

TEST_F(LogTest, DamageBeforeValidRecordsIsCorruptionNamingFileAndOffset) {
  ASSERT_OK(Open());
  AppendOk("input-0", "a", "1");
  AppendOk("input-0", "b", "2");
  ASSERT_OK(log_->Sync());
  log_.reset();
  {
    std::fstream f(FileOf("input-0"), std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(32);  // The key of record 0.
    f.put('z');
  }
  Status s = Open();
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
  EXPECT_NE(s.message().find(FileOf("input-0")), std::string::npos) << s;
  EXPECT_NE(s.message().find("byte offset 0"), std::string::npos) << s;
}

TEST_F(LogTest, CommittedTransactionIsVisibleInEveryPartition) {
  ASSERT_OK(Open());
  ASSERT_OK(log_->BeginTransaction(7));
  EXPECT_EQ(TxnAppendOk(7, "kv-changelog-0", "k", "v"), 1);  // After the begin marker.
  TxnAppendOk(7, "output-0", "o", "1");
  TxnAppendOk(7, "kv-changelog-0", "k2", "v2");
  EXPECT_EQ(Keys("kv-changelog-0", kCommitted), Strings{});
  EXPECT_EQ(Keys("kv-changelog-0", kUncommitted), (Strings{"k=v", "k2=v2"}));
  ASSERT_OK(log_->CommitTransaction(7));
  EXPECT_EQ(Keys("kv-changelog-0", kCommitted), (Strings{"k=v", "k2=v2"}));
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{"o=1"});
  EXPECT_EQ(End("kv-changelog-0"), 4);  // Begin, two records, commit.
  EXPECT_EQ(CommittedEnd("kv-changelog-0"), 4);
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("kv-changelog-0", kCommitted), (Strings{"k=v", "k2=v2"}));
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{"o=1"});
  // The id can be reused.
  ASSERT_OK(log_->BeginTransaction(7));
  TxnAppendOk(7, "output-0", "o", "2");
  ASSERT_OK(log_->CommitTransaction(7));
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"o=1", "o=2"}));
}

TEST_F(LogTest, AbortedTransactionIsSkippedByReadCommittedOnly) {
  ASSERT_OK(Open());
  AppendOk("output-0", "before", "0");
  ASSERT_OK(log_->BeginTransaction(1));
  TxnAppendOk(1, "output-0", "aborted", "x");
  ASSERT_OK(log_->AbortTransaction(1));
  AppendOk("output-0", "after", "1");
  ASSERT_OK(log_->Sync());
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"before=0", "after=1"}));
  EXPECT_EQ(Keys("output-0", kUncommitted), (Strings{"before=0", "aborted=x", "after=1"}));
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"before=0", "after=1"}));
}

TEST_F(LogTest, OpenTransactionHidesItsRecordsAndBoundsCommittedEnd) {
  ASSERT_OK(Open());
  AppendOk("output-0", "a", "1");
  ASSERT_OK(log_->Sync());
  ASSERT_OK(log_->BeginTransaction(3));
  TxnAppendOk(3, "output-0", "t", "1");
  AppendOk("output-0", "b", "2");  // After the open transaction: hidden too.
  ASSERT_OK(log_->Sync());
  EXPECT_EQ(CommittedEnd("output-0"), 1);
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{"a=1"});
  ASSERT_OK(log_->CommitTransaction(3));
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"a=1", "t=1", "b=2"}));
}

TEST_F(LogTest, TransactionWithoutDecisionIsAbortedOnReopen) {
  ASSERT_OK(Open());
  ASSERT_OK(log_->BeginTransaction(5));
  TxnAppendOk(5, "output-0", "t", "1");
  TxnAppendOk(5, "kv-changelog-0", "k", "v");
  ASSERT_OK(log_->Sync());
  ASSERT_OK(Open());  // A crash: no commit, no abort.
  EXPECT_NE(logger_->All().find("aborting transaction 5"), std::string::npos) << logger_->All();
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{});
  EXPECT_EQ(Keys("kv-changelog-0", kCommitted), Strings{});
  EXPECT_EQ(Keys("output-0", kUncommitted), Strings{"t=1"});
  EXPECT_EQ(CommittedEnd("output-0"), End("output-0"));
  EXPECT_EQ(log_->CommitTransaction(5).code(), Status::Code::kNotFound);
  ASSERT_OK(Open());
  EXPECT_EQ(logger_->All(), "");
}

TEST_F(LogTest, CommitDecisionWithMissingMarkersIsCompletedOnReopen) {
  ASSERT_OK(Open());
  ASSERT_OK(log_->BeginTransaction(9));
  TxnAppendOk(9, "output-0", "o", "1");
  TxnAppendOk(9, "kv-changelog-0", "k", "v");
  ASSERT_OK(log_->CommitTransaction(9));
  log_.reset();
  // A crash after the decision, before the markers: remove each commit marker (the last
  // record: a 32-byte header, empty key and value).
  for (const char* p : {"output-0", "kv-changelog-0"}) {
    fs::resize_file(FileOf(p), fs::file_size(FileOf(p)) - 32);
  }
  ASSERT_OK(Open());
  EXPECT_NE(logger_->All().find("completing committed transaction 9"), std::string::npos)
      << logger_->All();
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{"o=1"});
  EXPECT_EQ(Keys("kv-changelog-0", kCommitted), Strings{"k=v"});
}

TEST_F(LogTest, CommittedOffsetsRoundTrip) {
  ASSERT_OK(Open());
  CommittedOffsets got;
  EXPECT_EQ(log_->GetCommittedOffsets("app", &got).code(), Status::Code::kNotFound);
  const CommittedOffsets first{{{"input-0", 3}, {"input-1", 0}}, "stream-time=17"};
  ASSERT_OK(log_->CommitOffsets("app", first));
  const CommittedOffsets second{{{"input-0", 5}}, ""};
  ASSERT_OK(log_->CommitOffsets("app", second));
  ASSERT_OK(log_->CommitOffsets("other", first));
  ASSERT_OK(Open());
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, second);
  ASSERT_OK(log_->GetCommittedOffsets("other", &got));
  EXPECT_EQ(got, first);
}

TEST_F(LogTest, TransactionalOffsetsCommitAndAbortWithTheTransaction) {
  ASSERT_OK(Open());
  const CommittedOffsets base{{{"input-0", 1}}, "m1"};
  ASSERT_OK(log_->CommitOffsets("app", base));

  ASSERT_OK(log_->BeginTransaction(1));
  TxnAppendOk(1, "output-0", "o", "1");
  ASSERT_OK(log_->AppendOffsetsTransactional(1, "app", {{{"input-0", 2}}, "m2"}));
  CommittedOffsets got;
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, base);  // Not yet.
  ASSERT_OK(log_->AbortTransaction(1));
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, base);

  ASSERT_OK(log_->BeginTransaction(2));
  TxnAppendOk(2, "output-0", "o", "2");
  const CommittedOffsets next{{{"input-0", 3}}, "m3"};
  ASSERT_OK(log_->AppendOffsetsTransactional(2, "app", next));
  ASSERT_OK(log_->CommitTransaction(2));
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, next);
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{"o=2"});

  // Undecided at a crash: both the output and the offsets are rolled back.
  ASSERT_OK(log_->BeginTransaction(3));
  TxnAppendOk(3, "output-0", "o", "3");
  ASSERT_OK(log_->AppendOffsetsTransactional(3, "app", {{{"input-0", 4}}, "m4"}));
  ASSERT_OK(Open());
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, next);
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{"o=2"});
}

TEST_F(LogTest, FailedFsyncOfCommitDecisionLeavesTheOutcomeToRecovery) {
  FaultyFileEnv env("__txn_state.log");
  ASSERT_OK(Open(&env));
  ASSERT_OK(log_->BeginTransaction(4));
  TxnAppendOk(4, "output-0", "o", "1");
  env.fail_sync = true;
  Status s = log_->CommitTransaction(4);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  std::vector<LogRecord> records;
  s = log_->Read("output-0", 0, 10, kCommitted, &records);  // Every call refuses now.
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("reopen"), std::string::npos) << s;
  env.fail_sync = false;
  // The decision reached the file (only its fsync failed), so recovery completes the commit.
  ASSERT_OK(Open(&env));
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{"o=1"});
  log_.reset();  // Before `env`.
}

TEST_F(LogTest, CheckWritableSaysWhenTheLogMustBeReopened) {
  FaultyFileEnv env("output-0.log");
  ASSERT_OK(Open(&env));
  ASSERT_OK(log_->CheckWritable());
  // A transaction whose commit fails before its commit point stays open: writes may go on.
  ASSERT_OK(log_->BeginTransaction(4));
  TxnAppendOk(4, "output-0", "o", "1");
  env.fail_sync = true;
  EXPECT_EQ(log_->CommitTransaction(4).code(), Status::Code::kIOError);
  env.fail_sync = false;
  // The fsync that failed was output-0's: that partition's durable contents are unknown now.
  const Status s = log_->CheckWritable();
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("output-0"), std::string::npos) << s;
  EXPECT_NE(s.message().find("reopen"), std::string::npos) << s;
  // Reading goes on; other partitions take writes; a reopen makes the log writable again.
  AppendOk("other", "k", "v");
  ASSERT_OK(Open(&env));
  ASSERT_OK(log_->CheckWritable());
  EXPECT_EQ(Keys("output-0", kCommitted), Strings{});  // No decision: aborted on reopen.
  log_.reset();                                        // Before `env`.
}

// Every file in `dir` with its size and modification time.
std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> FileStates(const fs::path& dir) {
  std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file())
      out[e.path().filename().string()] = {e.file_size(), e.last_write_time()};
  }
  return out;
}

TEST_F(LogTest, InspectIsReadOnly) {
  ASSERT_OK(Open());
  AppendOk("input-0", "a", "1");
  AppendOk("input-0", "b", "2");
  ASSERT_OK(log_->BeginTransaction(3));
  TxnAppendOk(3, "output-0", "o", "1");
  ASSERT_OK(log_->AppendOffsetsTransactional(3, "app", CommittedOffsets{{{"input-0", 2}}, "m1"}));
  ASSERT_OK(log_->CommitTransaction(3));
  ASSERT_OK(log_->Sync());
  log_.reset();
  const auto before = FileStates(dir_);

  LogSummary summary;
  ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
  EXPECT_EQ(summary.directory, dir_.string());
  std::map<std::string, LogPartitionSummary> parts;
  for (const auto& p : summary.partitions) parts[p.name] = p;
  ASSERT_EQ(parts.size(), 4u);  // input-0, output-0, __offsets, __txn_state.
  EXPECT_EQ(parts["input-0"].end_offset, 2);
  EXPECT_EQ(parts["input-0"].data_records, 2);
  EXPECT_EQ(parts["input-0"].markers, 0);
  EXPECT_EQ(parts["output-0"].end_offset, 3);  // Begin marker, data, commit marker.
  EXPECT_EQ(parts["output-0"].data_records, 1);
  EXPECT_EQ(parts["output-0"].markers, 2);
  EXPECT_EQ(parts["__txn_state"].markers, 1);
  EXPECT_EQ(parts["input-0"].valid_bytes, fs::file_size(FileOf("input-0")));
  EXPECT_FALSE(parts["input-0"].torn_tail_at.has_value());
  ASSERT_EQ(summary.committed_offsets.count("app"), 1u);
  EXPECT_EQ(summary.committed_offsets["app"], (CommittedOffsets{{{"input-0", 2}}, "m1"}));
  EXPECT_TRUE(summary.open_transactions.empty());
  EXPECT_EQ(FileStates(dir_), before);

  // A crash with transaction 4 open, and a torn tail: both reported, neither repaired.
  ASSERT_OK(Open());
  ASSERT_OK(log_->BeginTransaction(4));
  TxnAppendOk(4, "output-0", "p", "2");
  ASSERT_OK(log_->AppendOffsetsTransactional(4, "app", CommittedOffsets{{{"input-0", 3}}, "m2"}));
  ASSERT_OK(log_->Sync());
  log_.reset();  // No commit, no abort.
  const uintmax_t input_size = fs::file_size(FileOf("input-0"));
  fs::resize_file(FileOf("input-0"), input_size + 7);
  const auto crashed = FileStates(dir_);

  ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
  ASSERT_EQ(summary.open_transactions.size(), 1u);
  const LogOpenTransaction& t = summary.open_transactions[0];
  EXPECT_EQ(t.txn_id, 4);
  EXPECT_FALSE(t.commit_decided);
  EXPECT_EQ(t.begin_offsets, (std::map<std::string, int64_t>{{"__offsets", 3}, {"output-0", 3}}));
  // The open transaction's offsets are not committed: the last committed ones still count.
  EXPECT_EQ(summary.committed_offsets["app"], (CommittedOffsets{{{"input-0", 2}}, "m1"}));
  for (const auto& p : summary.partitions) {
    if (p.name != "input-0") continue;
    ASSERT_TRUE(p.torn_tail_at.has_value());
    EXPECT_EQ(*p.torn_tail_at, input_size);
    EXPECT_EQ(p.torn_tail_bytes, 7u);
    EXPECT_EQ(p.end_offset, 2);
  }
  EXPECT_EQ(FileStates(dir_), crashed);

  // Opening recovers: it aborts the transaction and truncates the tail; inspect then agrees.
  ASSERT_OK(Open());
  log_.reset();
  ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
  EXPECT_TRUE(summary.open_transactions.empty());
  for (const auto& p : summary.partitions) EXPECT_FALSE(p.torn_tail_at.has_value()) << p.name;
}

TEST_F(LogTest, InspectTellsAReusedTransactionIdFromTheLastDecision) {
  // A task reuses its transaction id for every commit (task.h). The last decision names id 3;
  // a new, undecided transaction 3 is open after it: recovery would abort it, not complete it.
  ASSERT_OK(Open());
  ASSERT_OK(log_->BeginTransaction(3));
  TxnAppendOk(3, "output-0", "o", "1");
  ASSERT_OK(log_->CommitTransaction(3));
  ASSERT_OK(log_->BeginTransaction(3));
  TxnAppendOk(3, "output-0", "o", "2");
  log_.reset();
  LogSummary summary;
  ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
  ASSERT_EQ(summary.open_transactions.size(), 1u);
  EXPECT_FALSE(summary.open_transactions[0].commit_decided);
  ASSERT_OK(Open());
  std::vector<LogRecord> records;
  ASSERT_OK(log_->Read("output-0", 0, 10, IsolationLevel::kReadCommitted, &records));
  ASSERT_EQ(records.size(), 1u);  // Recovery agrees: the second transaction is aborted.
  EXPECT_EQ(records[0].value, "1");
}

TEST_F(LogTest, InspectOfMissingDirectoryIsNotFoundAndCreatesNothing) {
  LogSummary summary;
  EXPECT_EQ(InspectLog(dir_.string(), nullptr, &summary).code(), Status::Code::kNotFound);
  EXPECT_FALSE(fs::exists(dir_));
}

// "offset:key=value" of each record read from offset 0.
std::vector<std::string> OffsetsAndKeys(Log* log, std::string_view partition,
                                        IsolationLevel level) {
  std::vector<LogRecord> records;
  const Status s = log->Read(partition, 0, 1000, level, &records);
  EXPECT_TRUE(s.ok()) << s;
  std::vector<std::string> out;
  for (const auto& r : records) {
    out.push_back(std::to_string(r.offset) + ":" + r.key + "=" + r.value.value_or("<null>"));
  }
  return out;
}

// Compaction keeps the latest record of each key at its own offset; the end offset, the last
// record and (by default) tombstones stay; a reopen reads the compacted file back with its gaps,
// and appends go on from the same end.
TEST_F(LogTest, CompactionKeepsTheLatestRecordOfEachKeyAtItsOffset) {
  ASSERT_OK(Open());
  for (auto [k, v] : std::vector<std::pair<const char*, const char*>>{
           {"a", "1"}, {"b", "2"}, {"a", "3"}, {"c", "4"}, {"b", nullptr}, {"c", "5"}}) {
    AppendOk("kv-changelog-0", k, v ? std::optional<std::string_view>(v) : std::nullopt);
  }
  ASSERT_OK(log_->Sync());
  const auto size = fs::file_size(FileOf("kv-changelog-0"));
  LogCompactionResult result;
  ASSERT_OK(log_->Compact("kv-changelog-0", {}, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(result.cut, 5);  // The last record stays as it is.
  EXPECT_EQ(result.records_before, 6);
  EXPECT_EQ(result.records_after, 3);
  EXPECT_EQ(result.bytes_before, size);
  EXPECT_EQ(result.bytes_after, fs::file_size(FileOf("kv-changelog-0")));
  EXPECT_LT(result.bytes_after, size);
  // c=4 is superseded by c=5, which is past the cut: a later record of a key wherever it is.
  const Strings expected{"2:a=3", "4:b=<null>", "5:c=5"};
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted), expected);
  EXPECT_EQ(End("kv-changelog-0"), 6);
  std::vector<LogRecord> records;
  ASSERT_OK(log_->Read("kv-changelog-0", 3, 10, kCommitted, &records));  // From inside a gap.
  EXPECT_EQ(records.size(), 2u);
  ASSERT_OK(Open());
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted), expected);
  EXPECT_EQ(AppendOk("kv-changelog-0", "d", "6"), 6);
  // Nothing more to remove: no rewrite.
  ASSERT_OK(log_->Sync());
  ASSERT_OK(log_->Compact("kv-changelog-0", {}, &result));
  EXPECT_FALSE(result.compacted);
  // Tombstones below the caller's offset go; the partition's last record never does.
  AppendOk("kv-changelog-0", "d", std::nullopt);
  ASSERT_OK(log_->Sync());
  LogCompaction policy;
  policy.tombstones_removable_below = 100;
  ASSERT_OK(log_->Compact("kv-changelog-0", policy, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"2:a=3", "5:c=5", "7:d=<null>"}));
  EXPECT_EQ(End("kv-changelog-0"), 8);
  // `statecheck inspect` reads the gaps as the log does.
  LogSummary summary;
  ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
  ASSERT_EQ(summary.partitions.size(), 1u);
  EXPECT_EQ(summary.partitions[0].end_offset, 8);
  EXPECT_EQ(summary.partitions[0].data_records, 3);
  EXPECT_EQ(summary.partitions[0].markers, 0);
  EXPECT_EQ(summary.partitions[0].valid_bytes, fs::file_size(FileOf("kv-changelog-0")));
}

// `tombstones_removable_below` is exclusive: a tombstone at that offset is the first record a
// restore from the caller's stored offset + 1 reads, so it stays; one below it goes.
TEST_F(LogTest, CompactionRemovesOnlyTombstonesBelowTheCallersOffset) {
  ASSERT_OK(Open());
  for (auto [k, v] : std::vector<std::pair<const char*, const char*>>{
           {"a", "1"}, {"a", nullptr}, {"b", nullptr}, {"c", "3"}, {"d", "4"}}) {
    AppendOk("kv-changelog-0", k, v ? std::optional<std::string_view>(v) : std::nullopt);
  }
  ASSERT_OK(log_->Sync());
  LogCompaction policy;
  policy.tombstones_removable_below = 2;
  LogCompactionResult result;
  ASSERT_OK(log_->Compact("kv-changelog-0", policy, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"2:b=<null>", "3:c=3", "4:d=4"}));
}

// Below the cut, markers and aborted records go and committed records are kept outside any
// transaction; an open transaction and what follows its begin marker stay as they are, and
// commit after the compaction.
TEST_F(LogTest, CompactionRemovesMarkersAndAbortedRecordsAndKeepsAnOpenTransaction) {
  ASSERT_OK(Open());
  ASSERT_OK(log_->BeginTransaction(1));
  TxnAppendOk(1, "kv-changelog-0", "a", "1");
  TxnAppendOk(1, "kv-changelog-0", "b", "2");
  ASSERT_OK(log_->CommitTransaction(1));
  ASSERT_OK(log_->BeginTransaction(2));
  TxnAppendOk(2, "kv-changelog-0", "a", "aborted");
  ASSERT_OK(log_->AbortTransaction(2));
  ASSERT_OK(log_->BeginTransaction(3));
  TxnAppendOk(3, "kv-changelog-0", "c", "3");
  ASSERT_OK(log_->CommitTransaction(3));
  ASSERT_OK(log_->BeginTransaction(4));
  const int64_t open_at = TxnAppendOk(4, "kv-changelog-0", "a", "4");  // Begin marker before it.
  LogCompactionResult result;
  ASSERT_OK(log_->Compact("kv-changelog-0", {}, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(result.cut, open_at - 1);
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"1:a=1", "2:b=2", "8:c=3"}));
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kUncommitted),
            (Strings{"1:a=1", "2:b=2", "8:c=3", "11:a=4"}));
  std::vector<LogRecord> records;
  ASSERT_OK(log_->Read("kv-changelog-0", 0, 10, kCommitted, &records));
  EXPECT_EQ(records[0].txn_id, 0);  // Settled: its markers are gone.
  EXPECT_EQ(CommittedEnd("kv-changelog-0"), open_at - 1);
  ASSERT_OK(log_->CommitTransaction(4));
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"1:a=1", "2:b=2", "8:c=3", "11:a=4"}));
  ASSERT_OK(Open());
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"1:a=1", "2:b=2", "8:c=3", "11:a=4"}));
  EXPECT_EQ(End("kv-changelog-0"), 13);
}

// The caller's predicate removes expired records; of each source partition the record with the
// largest source offset stays (a restore rebuilds a position from it), superseded or not.
TEST_F(LogTest, CompactionRemovesExpiredRecordsAndKeepsTheLastOfEachSource) {
  ASSERT_OK(Open());
  int64_t offset;
  ASSERT_OK(log_->Append("w-changelog-0", "old", "1", 10, LogSource{"in-0", 0}, &offset));
  ASSERT_OK(log_->Append("w-changelog-0", "k", "2", 20, LogSource{"in-0", 1}, &offset));
  ASSERT_OK(log_->Append("w-changelog-0", "k", "3", 30, LogSource{"in-1", 0}, &offset));
  ASSERT_OK(log_->Append("w-changelog-0", "x", "4", 40, &offset));
  ASSERT_OK(log_->Sync());
  LogCompaction policy;
  std::vector<int64_t> asked;
  policy.expired = [&](const LogRecord& r) {
    asked.push_back(r.offset);
    return r.timestamp < 15;
  };
  LogCompactionResult result;
  ASSERT_OK(log_->Compact("w-changelog-0", policy, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "w-changelog-0", kCommitted),
            (Strings{"1:k=2", "2:k=3", "3:x=4"}));
  EXPECT_EQ(asked, (std::vector<int64_t>{2, 0}));  // Latest first; superseded ones not asked.
}

// Compaction runs when it is due: a file of at least min_bytes, of which min_dirty_ratio was
// written since the last compaction. Bad policies and names are rejected.
// The log's own partitions compact: "__offsets" keeps each group's last committed offsets,
// "__txn_state" its last decision, which recovery still completes after a crash between a
// decision and its markers. Other "__" names are not partitions to compact.
TEST_F(LogTest, CompactionOfTheLogsOwnPartitionsKeepsWhatRecoveryReads) {
  fiu_init(0);
  ASSERT_OK(Open());
  for (int64_t txn = 1; txn <= 3; ++txn) {
    ASSERT_OK(log_->BeginTransaction(txn));
    TxnAppendOk(txn, "output-0", "o", std::to_string(txn));
    ASSERT_OK(log_->AppendOffsetsTransactional(txn, "app", {{{"input-0", txn}}, ""}));
    ASSERT_OK(log_->CommitTransaction(txn));
  }
  ASSERT_OK(log_->CommitOffsets("other", {{{"input-1", 5}}, "x"}));
  LogCompactionResult result;
  ASSERT_OK(log_->Compact(kLogTxnStatePartition, {}, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(result.records_before, 3);
  EXPECT_EQ(result.records_after, 1);  // The last decision.
  ASSERT_OK(log_->Compact(kLogOffsetsPartition, {}, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(result.records_before, 10);  // Three transactions of three records, then "other".
  EXPECT_EQ(result.records_after, 2);
  CommittedOffsets got;
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, (CommittedOffsets{{{"input-0", 3}}, ""}));
  EXPECT_EQ(log_->Compact("__other", {}, &result).code(), Status::Code::kInvalidArgument);

  // A crash after transaction 4's decision, before its markers.
  ASSERT_OK(log_->BeginTransaction(4));
  TxnAppendOk(4, "output-0", "o", "4");
  ASSERT_OK(log_->AppendOffsetsTransactional(4, "app", {{{"input-0", 4}}, ""}));
  const std::string point(kFailLogAfterDecision);
  ASSERT_EQ(fiu_enable(point.c_str(), 1, nullptr, FIU_ONETIME), 0);
  EXPECT_FALSE(log_->CommitTransaction(4).ok());
  fiu_disable(point.c_str());
  ASSERT_OK(Open());  // Recovery completes it from the last decision.
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"o=1", "o=2", "o=3", "o=4"}));
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, (CommittedOffsets{{{"input-0", 4}}, ""}));
  ASSERT_OK(log_->Compact(kLogTxnStatePartition, {}, &result));
  ASSERT_OK(log_->Compact("output-0", {}, &result));  // Its markers go, the decision's too.
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"o=4"}));
  ASSERT_OK(log_->GetCommittedOffsets("app", &got));
  EXPECT_EQ(got, (CommittedOffsets{{{"input-0", 4}}, ""}));
  LogSummary summary;
  ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
  EXPECT_TRUE(summary.open_transactions.empty());
  EXPECT_EQ(summary.committed_offsets.at("app"), got);
}

TEST_F(LogTest, CompactionRunsWhenTheDirtyPartIsLargeEnough) {
  ASSERT_OK(Open());
  for (int i = 0; i < 20; ++i) AppendOk("kv-changelog-0", "k" + std::to_string(i % 5), "v");
  ASSERT_OK(log_->Sync());
  LogCompaction policy;
  policy.min_dirty_ratio = 0.5;
  policy.min_bytes = fs::file_size(FileOf("kv-changelog-0")) + 1;
  LogCompactionResult result;
  ASSERT_OK(log_->Compact("kv-changelog-0", policy, &result));
  EXPECT_FALSE(result.compacted);  // Below min_bytes.
  policy.min_bytes = 0;
  ASSERT_OK(log_->Compact("kv-changelog-0", policy, &result));
  EXPECT_TRUE(result.compacted);  // Never compacted: all of it is dirty.
  EXPECT_EQ(result.records_after, 5);
  for (int i = 0; i < 3; ++i) AppendOk("kv-changelog-0", "k" + std::to_string(i), "w");
  ASSERT_OK(log_->Sync());
  ASSERT_OK(log_->Compact("kv-changelog-0", policy, &result));
  EXPECT_FALSE(result.compacted);  // 3 records written after 5 kept: under half of the file.
  for (int i = 0; i < 3; ++i) AppendOk("kv-changelog-0", "k" + std::to_string(i), "x");
  ASSERT_OK(log_->Sync());
  ASSERT_OK(log_->Compact("kv-changelog-0", policy, &result));
  EXPECT_TRUE(result.compacted);
  ASSERT_OK(log_->Compact("no-such-partition", policy, &result));
  EXPECT_FALSE(result.compacted);
  policy.min_dirty_ratio = 2;
  Status s = log_->Compact("kv-changelog-0", policy, &result);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("min_dirty_ratio"), std::string::npos) << s;
  EXPECT_EQ(log_->Compact("__nope", {}, &result).code(), Status::Code::kInvalidArgument);
}

// F1, F8: a compaction that fails at any of its steps reports the injected error and leaves a
// partition that reads as before and takes writes; a reopen reads it (old file or new) the same,
// and a `.compacting` file a failure left is overwritten by the next compaction.
TEST_F(LogTest, ACompactionThatFailsAtAnyStepLosesNothing) {
  fiu_init(0);
  for (std::string_view point :
       {kFailLogCompactBeforeSync, kFailLogCompactBeforeRename, kFailLogCompactBeforeDirSync}) {
    SCOPED_TRACE(point);
    fs::remove_all(dir_);
    ASSERT_OK(Open());
    for (auto k : {"a", "b", "a", "b", "c"}) AppendOk("kv-changelog-0", k, k);
    ASSERT_OK(log_->Sync());
    const Strings before = Keys("kv-changelog-0", kCommitted);
    LogCompactionResult result;
    CompactFailingAt(point, "kv-changelog-0", &result);
    EXPECT_EQ(result.compacted, point == kFailLogCompactBeforeDirSync);
    const Strings after = {"2:a=a", "3:b=b", "4:c=c"};
    const Strings& now = result.compacted ? after : before;
    EXPECT_EQ(Keys("kv-changelog-0", kCommitted).size(), now.size());
    ASSERT_OK(log_->CheckWritable());
    EXPECT_EQ(AppendOk("kv-changelog-0", "d", "d"), 5);
    ASSERT_OK(log_->Sync());
    ASSERT_OK(Open());
    EXPECT_EQ(Keys("kv-changelog-0", kCommitted).size(), now.size() + 1);
    const bool left = fs::exists(dir_ / "kv-changelog-0.log.compacting");
    EXPECT_EQ(left, point != kFailLogCompactBeforeDirSync);
    EXPECT_EQ(logger_->All().find("compaction a crash interrupted") != std::string::npos, left)
        << logger_->All();
    ASSERT_OK(log_->Compact("kv-changelog-0", {}, &result));
    EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
              (Strings{"2:a=a", "3:b=b", "4:c=c", "5:d=d"}));
    EXPECT_FALSE(fs::exists(dir_ / "kv-changelog-0.log.compacting"));
  }
}

// A partition rolls a new segment, named by its first offset, when a write would take the active
// one past segment_bytes (a write larger than that fills one segment alone); a reopen reads every
// segment, InspectLog lists them, and a torn tail of the active one is dropped as before.
TEST_F(LogTest, SegmentsRollAtTheirSizeAndReopenReadsThemAll) {
  segment_bytes_ = 100;  // A record of a 2-byte key and a 1-byte value takes 35 bytes.
  ASSERT_OK(Open());
  for (int i = 0; i < 10; ++i) AppendOk("kv-changelog-0", "k" + std::to_string(i), "v");
  int64_t first = -1;
  std::vector<LogAppendRecord> big = {{"big", std::string(300, 'x'), kNoTimestamp, {}}};
  ASSERT_OK(log_->AppendBatch(0, "kv-changelog-0", std::move(big), &first));
  EXPECT_EQ(first, 10);
  AppendOk("kv-changelog-0", "k0", "w");
  ASSERT_OK(log_->Sync());
  using Files = std::vector<std::pair<std::string, uintmax_t>>;
  const Files expected = {{"kv-changelog-0.log", 70},
                          {"kv-changelog-0.log.00000000000000000002", 70},
                          {"kv-changelog-0.log.00000000000000000004", 70},
                          {"kv-changelog-0.log.00000000000000000006", 70},
                          {"kv-changelog-0.log.00000000000000000008", 70},
                          {"kv-changelog-0.log.00000000000000000010", 335},
                          {"kv-changelog-0.log.00000000000000000011", 35}};
  EXPECT_EQ(Segments("kv-changelog-0"), expected);
  const Strings all = OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted);
  ASSERT_EQ(all.size(), 12u);
  LogSummary summary;
  ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
  ASSERT_EQ(summary.partitions.size(), 1u);
  const LogPartitionSummary& p = summary.partitions[0];
  ASSERT_EQ(p.segments.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(p.segments[i].file, expected[i].first);
    EXPECT_EQ(p.segments[i].bytes, expected[i].second);
    EXPECT_EQ(p.segments[i].base, i == 0 ? 0 : i < 5 ? 2 * static_cast<int64_t>(i) : i + 5);
  }
  EXPECT_EQ(p.valid_bytes, 70u * 5 + 335 + 35);
  EXPECT_EQ(p.end_offset, 12);
  // A torn tail of the active segment is dropped on reopen; the others are read whole.
  log_.reset();
  {
    std::ofstream f(dir_ / "kv-changelog-0.log.00000000000000000011", std::ios::app);
    f << "\xC1torn";
  }
  ASSERT_OK(Open());
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted), all);
  EXPECT_NE(logger_->All().find("torn tail of 5 bytes at byte offset 35"), std::string::npos)
      << logger_->All();
  EXPECT_EQ(AppendOk("kv-changelog-0", "k1", "w"), 12);  // 35 + 35 bytes: in the same segment.
  EXPECT_EQ(Segments("kv-changelog-0").size(), expected.size());
  // A bad size is a clear error.
  log_.reset();
  segment_bytes_ = 0;
  const Status s = Open();
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("segment_bytes"), std::string::npos) << s;
}

// Rolling fsyncs the segment it closes (Sync fsyncs only the active one): if that fsync fails, the
// write fails and the partition refuses writes until the log is reopened (F1).
TEST_F(LogTest, RollingFsyncsTheSegmentItCloses) {
  segment_bytes_ = 100;
  testing::FaultyFileEnv env("kv-changelog-0.log");  // The first segment only.
  ASSERT_OK(Open(&env));
  AppendOk("kv-changelog-0", "k0", "v");
  AppendOk("kv-changelog-0", "k1", "v");
  env.fail_sync = true;
  int64_t offset = -1;
  const Status s = log_->Append("kv-changelog-0", "k2", "v", &offset);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_EQ(log_->CheckWritable().code(), Status::Code::kFailedPrecondition);
  env.fail_sync = false;
  ASSERT_OK(Open(&env));
  EXPECT_EQ(AppendOk("kv-changelog-0", "k2", "v"), 2);
  EXPECT_EQ(Segments("kv-changelog-0").size(), 2u);
  log_.reset();  // Before `env`.
}

// A closed segment was fsynced whole before the next began: damage anywhere in it, its last
// record included, is Corruption naming the file and byte offset, never a torn tail; a later
// segment without the first is Corruption too.
TEST_F(LogTest, DamageInAClosedSegmentIsCorruption) {
  segment_bytes_ = 100;
  ASSERT_OK(Open());
  for (int i = 0; i < 5; ++i) AppendOk("kv-changelog-0", "k" + std::to_string(i), "v");
  ASSERT_OK(log_->Sync());
  log_.reset();
  const fs::path closed = dir_ / "kv-changelog-0.log.00000000000000000002";
  ASSERT_TRUE(fs::exists(closed));
  {
    std::fstream f(closed, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(36 + 30);  // In its second (last) record's key.
    f.put('!');
  }
  Status s = Open();
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
  EXPECT_NE(s.message().find(closed.string() + " at byte offset 35"), std::string::npos) << s;
  LogSummary summary;
  EXPECT_EQ(InspectLog(dir_.string(), nullptr, &summary).code(), Status::Code::kCorruption);
  fs::remove(closed);
  fs::remove(dir_ / "kv-changelog-0.log");
  s = Open();
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
  EXPECT_NE(s.message().find("no first segment"), std::string::npos) << s;
}

// A compaction of a partition of several segments rewrites its closed segments as one file, the
// first, and leaves the active segment's file as it was; offsets stay, and a reopen reads the same.
TEST_F(LogTest, CompactionReplacesTheClosedSegmentsAndLeavesTheActiveOne) {
  segment_bytes_ = 100;
  ASSERT_OK(Open());
  for (int i = 0; i < 11; ++i)
    AppendOk("kv-changelog-0", i % 2 ? "ka" : "kb", std::to_string(i % 10));
  ASSERT_OK(log_->Sync());
  ASSERT_EQ(Segments("kv-changelog-0").size(), 6u);
  const auto active = Segments("kv-changelog-0").back();
  LogCompactionResult result;
  ASSERT_OK(log_->Compact("kv-changelog-0", {}, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(result.cut, 10);  // The active segment's base: it is not rewritten.
  EXPECT_EQ(result.records_before, 11);
  EXPECT_EQ(result.records_after, 2);  // 10:kb, in the active segment, supersedes 8:kb.
  using Files = std::vector<std::pair<std::string, uintmax_t>>;
  EXPECT_EQ(Segments("kv-changelog-0"), (Files{{"kv-changelog-0.log", 35}, active}));
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"9:ka=9", "10:kb=0"}));
  EXPECT_EQ(result.bytes_after, 35u + active.second);
  EXPECT_EQ(AppendOk("kv-changelog-0", "ka", "x"), 11);
  ASSERT_OK(log_->Sync());
  ASSERT_OK(Open());
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"9:ka=9", "10:kb=0", "11:ka=x"}));
  // One closed segment (with the active): the compaction renames over it; here it empties it.
  ASSERT_OK(log_->Compact("kv-changelog-0", {}, &result));
  EXPECT_TRUE(result.compacted);
  EXPECT_EQ(Segments("kv-changelog-0"),
            (Files{{"kv-changelog-0.log", 0}, {"kv-changelog-0.log.00000000000000000010", 70}}));
  ASSERT_OK(Open());
  EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted),
            (Strings{"10:kb=0", "11:ka=x"}));
  EXPECT_EQ(End("kv-changelog-0"), 12);
  EXPECT_EQ(logger_->All().find("interrupted"), std::string::npos) << logger_->All();
}

// F1, F3, F8 with segments: a compaction that replaces several closed segments and fails at any
// step loses nothing. Before its swap file is durable the partition is as it was and takes
// writes; after it, the partition refuses writes until a reopen, whose recovery completes the
// compaction — also when a crash stopped it between two deletions.
TEST_F(LogTest, ACompactionOfSegmentsThatFailsAtAnyStepLosesNothing) {
  fiu_init(0);
  segment_bytes_ = 100;
  for (std::string_view point : {kFailLogCompactBeforeSync, kFailLogCompactBeforeRename,
                                 kFailLogCompactBeforeDelete, kFailLogCompactBeforeDirSync}) {
    for (const bool crash_between_deletes : {false, true}) {
      if (crash_between_deletes && point != kFailLogCompactBeforeDelete) continue;
      SCOPED_TRACE(std::string(point) + (crash_between_deletes ? " crash between deletes" : ""));
      fs::remove_all(dir_);
      ASSERT_OK(Open());
      for (int i = 0; i < 9; ++i) AppendOk("kv-changelog-0", i % 2 ? "ka" : "kb", "v");
      ASSERT_OK(log_->Sync());
      ASSERT_EQ(Segments("kv-changelog-0").size(), 5u);
      const Strings before = OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted);
      const Strings after = {"7:ka=v", "8:kb=v"};  // 8:kb, in the active segment, stays.
      LogCompactionResult result;
      CompactFailingAt(point, "kv-changelog-0", &result);
      const bool swapped = point == kFailLogCompactBeforeDelete;
      const bool done = point == kFailLogCompactBeforeDirSync;
      EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted), done ? after : before);
      if (swapped) {
        const Status w = log_->CheckWritable();
        EXPECT_EQ(w.code(), Status::Code::kFailedPrecondition) << w;
        EXPECT_NE(w.message().find("recovery completes it"), std::string::npos) << w;
        EXPECT_TRUE(fs::exists(dir_ / "kv-changelog-0.log.swap.00000000000000000008"));
        LogSummary summary;
        ASSERT_OK(InspectLog(dir_.string(), nullptr, &summary));
        EXPECT_TRUE(summary.partitions.at(0).swap_pending);
        EXPECT_EQ(summary.partitions.at(0).segments.size(), 2u);
        EXPECT_EQ(summary.partitions.at(0).data_records, 2);
        if (crash_between_deletes) {
          log_.reset();
          fs::remove(dir_ / "kv-changelog-0.log");
          fs::remove(dir_ / "kv-changelog-0.log.00000000000000000002");
        }
      } else {
        ASSERT_OK(log_->CheckWritable());
        EXPECT_EQ(AppendOk("kv-changelog-0", "kc", "c"), 9);
        ASSERT_OK(log_->Sync());
      }
      ASSERT_OK(Open());
      Strings now = done || swapped ? after : before;
      if (!swapped) now.push_back("9:kc=c");
      EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted), now);
      EXPECT_EQ(logger_->All().find("completing a compaction") != std::string::npos, swapped)
          << logger_->All();
      ASSERT_OK(log_->Compact("kv-changelog-0", {}, &result));
      using Files = std::vector<std::pair<std::string, uintmax_t>>;
      const Files files = Segments("kv-changelog-0");
      EXPECT_EQ(files.size(), 2u);
      EXPECT_EQ(files.at(0).first, "kv-changelog-0.log");
      EXPECT_EQ(OffsetsAndKeys(log_.get(), "kv-changelog-0", kCommitted).size(), swapped ? 2u : 3u);
    }
  }
}

std::vector<LogAppendRecord> Batch(std::initializer_list<std::string_view> keys) {
  std::vector<LogAppendRecord> out;
  for (std::string_view k : keys) out.push_back({std::string(k), std::string(k) + "v", 7, {}});
  return out;
}

// A batch is the records one Append each would have written, at consecutive offsets, with one
// write to the partition's file (the transaction's begin marker, if it writes one, before it).
TEST_F(LogTest, AppendBatchWritesWhatAppendsWouldInOneWrite) {
  testing::FaultyFileEnv env("output-0.log");
  ASSERT_OK(Open(&env));
  AppendOk("output-0", "first", "f");
  int64_t first = -1;
  env.appends = 0;
  ASSERT_OK(log_->AppendBatch(0, "output-0", Batch({"a", "b", "c"}), &first));
  EXPECT_EQ(first, 1);
  EXPECT_EQ(env.appends, 1);
  ASSERT_OK(log_->AppendBatch(0, "output-0", {}, &first));
  EXPECT_EQ(first, 4);
  EXPECT_EQ(env.appends, 1);
  ASSERT_OK(log_->BeginTransaction(5));
  ASSERT_OK(log_->AppendBatch(5, "output-0", Batch({"d", "e"}), &first));
  EXPECT_EQ(first, 5);  // After the begin marker at 4.
  EXPECT_EQ(env.appends, 3);
  ASSERT_OK(log_->AppendBatch(5, "output-0", Batch({"f"}), &first));
  EXPECT_EQ(first, 7);
  EXPECT_EQ(env.appends, 4);
  ASSERT_OK(log_->Sync());
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"first=f", "a=av", "b=bv", "c=cv"}));
  ASSERT_OK(log_->CommitTransaction(5));
  const Strings all = {"first=f", "a=av", "b=bv", "c=cv", "d=dv", "e=ev", "f=fv"};
  EXPECT_EQ(Keys("output-0", kCommitted), all);
  std::vector<LogRecord> records;
  ASSERT_OK(log_->Read("output-0", 5, 1, kCommitted, &records));
  EXPECT_EQ(records.at(0), (LogRecord{5, "d", "dv", 5, 7, {}}));
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("output-0", kCommitted), all);
}

// A batch is written whole or not at all: a record it cannot take, or a failed write, appends
// none of it, and the partition takes the next batch.
TEST_F(LogTest, AppendBatchIsAllOrNothing) {
  testing::FaultyFileEnv env("output-0.log");
  ASSERT_OK(Open(&env));
  int64_t first = -1;
  auto bad = Batch({"a", "b"});
  bad[1].timestamp = -2;
  Status s = log_->AppendBatch(0, "output-0", bad, &first);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
  bad = Batch({"a", "b"});
  bad[1].source = LogSource{"input-0", -1};
  EXPECT_EQ(log_->AppendBatch(0, "output-0", bad, &first).code(), Status::Code::kInvalidArgument);
  s = log_->AppendBatch(-1, "output-0", Batch({"a"}), &first);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("transaction id -1"), std::string::npos) << s;
  s = log_->AppendBatch(9, "output-0", Batch({"a"}), &first);
  EXPECT_EQ(s.code(), Status::Code::kNotFound) << s;
  EXPECT_EQ(log_->AppendBatch(0, "__offsets", Batch({"a"}), &first).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(env.appends, 0);
  EXPECT_EQ(End("output-0"), 0);

  env.fail_append = true;
  s = log_->AppendBatch(0, "output-0", Batch({"a", "b"}), &first);
  env.fail_append = false;
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_EQ(End("output-0"), 0);
  ASSERT_OK(log_->CheckWritable());
  ASSERT_OK(log_->AppendBatch(0, "output-0", Batch({"c"}), &first));
  EXPECT_EQ(first, 0);
  ASSERT_OK(log_->Sync());
  ASSERT_OK(Open());
  EXPECT_EQ(Keys("output-0", kCommitted), (Strings{"c=cv"}));
}

TEST_F(LogTest, BadInputIsRejectedWithClearErrors) {
  ASSERT_OK(Open());
  int64_t offset;
  Status s = log_->Append("", "k", "v", &offset);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s;
  s = log_->Append("a/b", "k", "v", &offset);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("\"a/b\""), std::string::npos) << s;
  s = log_->Append("__offsets", "k", "v", &offset);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("reserved"), std::string::npos) << s;

  s = log_->AppendTransactional(42, "output-0", "k", "v", &offset);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_NE(s.message().find("transaction 42"), std::string::npos) << s;
  EXPECT_EQ(log_->CommitTransaction(42).code(), Status::Code::kNotFound);
  EXPECT_EQ(log_->AbortTransaction(42).code(), Status::Code::kNotFound);
  EXPECT_EQ(log_->BeginTransaction(0).code(), Status::Code::kInvalidArgument);
  ASSERT_OK(log_->BeginTransaction(1));
  EXPECT_EQ(log_->BeginTransaction(1).code(), Status::Code::kFailedPrecondition);

  std::vector<LogRecord> records;
  EXPECT_EQ(log_->Read("output-0", 1, 10, kCommitted, &records).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(log_->Read("output-0", -1, 10, kCommitted, &records).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(log_->CommitOffsets("", {}).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(log_->CommitOffsets("g", {{{"input-0", -1}}, ""}).code(),
            Status::Code::kInvalidArgument);

  std::unique_ptr<Log> other;
  EXPECT_EQ(OpenLog(LogOptions{}, &other).code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace statecheck
