#include "statecheck/task.h"

#include <fiu-control.h>
#include <fiu.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "statecheck/hooks/fail_points.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"
#include "testing/test_util.h"

namespace statecheck {
namespace {

namespace fs = std::filesystem;
using testing::CapturingLogger;

StateConfig Config(std::map<std::string, std::string> props) {
  StateConfig c;
  Status s = ResolveStateConfig(props, &c);
  EXPECT_TRUE(s.ok()) << s;
  return c;
}

const std::map<std::string, std::string> kAlos = {};
const std::map<std::string, std::string> kEos = {{"processing.guarantee", "exactly_once_v2"}};
const std::map<std::string, std::string> kEosRu = {
    {"processing.guarantee", "exactly_once_v2"},
    {"default.state.isolation.level", "READ_UNCOMMITTED"}};
const std::map<std::string, std::string> kAlosRc = {
    {"default.state.isolation.level", "READ_COMMITTED"}};
const std::map<std::string, std::string> kLegacyAlos = {{"state.format", "legacy"}};
const std::map<std::string, std::string> kLegacyEos = {{"processing.guarantee", "exactly_once_v2"},
                                                       {"state.format", "legacy"}};

class TaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("statecheck_task_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    logger_ = std::make_shared<CapturingLogger>();
    OpenTheLog();
  }
  void TearDown() override {
    task_.reset();
    log_.reset();
    fs::remove_all(dir_.parent_path());
  }

  void OpenTheLog(rocksdb::Env* env = nullptr) {
    log_.reset();
    LogOptions o;
    o.directory = (dir_ / "log").string();
    o.env = env;
    o.logger = logger_;
    ASSERT_OK(OpenLog(o, &log_));
  }

  // Under exactly_once_v2 with READ_UNCOMMITTED stores: a and b committed (input offsets 0 and
  // 1), c processed (written straight into the stores, never committed), a crash, a restart.
  void CrashAfterAnUncommittedWriteUnderEosRu() {
    ASSERT_OK(Open(Options(kEosRu)));
    Input("a", "1");
    Input("b", "2");
    ProcessAll();
    ASSERT_OK(task_->Commit());
    Input("c", "3");
    ProcessAll();
    EXPECT_EQ(task_->Store("kv")->UncommittedPosition(), (Position{{"input", 2}}));
    task_->Abandon();
    OpenTheLog();
    ASSERT_OK(Open(Options(kEosRu)));
  }

  TaskOptions Options(const std::map<std::string, std::string>& props) {
    TaskOptions o;
    o.application_id = "app";
    o.input_partition = "input";
    o.output_partition = "output";
    o.state_directory = (dir_ / "state").string();
    o.log = log_.get();
    o.config = Config(props);
    o.clock = clock_;
    o.logger = logger_;
    return o;
  }

  Status Open(const TaskOptions& o) {
    task_.reset();
    return OpenTask(o, NewKeyValueProcessor(), &task_);
  }

  void Input(std::string_view key, std::optional<std::string_view> value) {
    int64_t offset = 0;
    ASSERT_OK(log_->Append("input", key, value, &offset));
    ASSERT_OK(log_->Sync());
  }

  int64_t ProcessAll() {
    int64_t n = 0;
    Status s = task_->Process(1000, &n);
    EXPECT_TRUE(s.ok()) << s;
    return n;
  }

  // What a committed reader of `partition` sees, as "key=value" ("key=null" for a tombstone).
  std::vector<std::string> Committed(std::string_view partition) {
    std::vector<LogRecord> records;
    Status s = log_->Read(partition, 0, 100000, IsolationLevel::kReadCommitted, &records);
    if (s.code() == Status::Code::kOutOfRange) return {};
    EXPECT_TRUE(s.ok()) << s;
    std::vector<std::string> out;
    for (const LogRecord& r : records) out.push_back(r.key + "=" + r.value.value_or("null"));
    return out;
  }

  // Every key=value of `store` as a committed IQ reader sees it.
  std::map<std::string, std::string> View(std::string_view store) {
    std::map<std::string, std::string> out;
    std::unique_ptr<KeyValueIterator> it;
    Status s = task_->Store(store)->NewQueryView()->All(&it);
    EXPECT_TRUE(s.ok()) << s;
    KeyValue kv;
    while (it->HasNext() && it->Next(&kv).ok()) out[kv.key] = kv.value;
    return out;
  }

  // The text of the file `name` in the state directory, or "(none)".
  std::string StateFile(const std::string& name) {
    std::ifstream in(dir_ / "state" / name);
    if (!in) return "(none)";
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  void WriteStateFile(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / "state" / name) << text;
  }

  // SPEC U2: a legacy at-least-once task processes one record and closes; then a start in the
  // current format, which the engine fail point `point` fails once. That start's status;
  // `checkpoint` gets the .checkpoint the legacy close wrote.
  Status UpgradeFailingAt(std::string_view point, std::string* checkpoint) {
    EXPECT_OK(Open(Options(kLegacyAlos)));
    Input("a", "1");
    ProcessAll();
    EXPECT_OK(task_->Close());
    *checkpoint = StateFile(".checkpoint");
    fiu_init(0);
    const std::string name(point);
    EXPECT_EQ(fiu_enable(name.c_str(), 1, nullptr, FIU_ONETIME), 0);
    const Status s = Open(Options(kAlos));
    fiu_disable(name.c_str());
    return s;
  }
  // The store `name` of the state directory, opened directly (not through a task).
  std::unique_ptr<RocksDBStore> StoreInStateDirectory(const std::string& name, bool read_only) {
    RocksDBStoreOptions so;
    so.name = name;
    so.directory = (dir_ / "state" / name).string();
    so.logger = logger_;
    so.read_only = read_only;
    std::unique_ptr<RocksDBStore> store;
    EXPECT_OK(OpenRocksDBStore(so, &store));
    return store;
  }
  // After an interrupted upgrade, the next start in the current format finishes it: the
  // .checkpoint is gone, no store is wiped, and each holds the offset imported once (0), with
  // nothing to restore.
  void ExpectTheNextStartFinishesTheUpgrade() {
    ASSERT_OK(Open(Options(kAlos)));
    EXPECT_EQ(StateFile(".checkpoint"), "(none)");
    for (const StoreRestore& r : task_->restores()) {
      EXPECT_FALSE(r.wiped) << r.store;
      EXPECT_EQ(r.stored_offset, std::optional<int64_t>(0)) << r.store;
      EXPECT_EQ(r.records_restored, 0) << r.store;
    }
  }

  int64_t End(std::string_view partition) {
    int64_t end = -1;
    EXPECT_TRUE(log_->EndOffset(partition, &end).ok());
    return end;
  }

  int64_t CommittedInput() {
    CommittedOffsets c;
    if (!log_->GetCommittedOffsets("app-0_0", &c).ok()) return 0;
    return c.offsets["input"];
  }

  fs::path dir_;
  std::shared_ptr<CapturingLogger> logger_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
};

TEST_F(TaskTest, ProcessesRecordsIntoStoresChangelogsAndOutput) {
  ASSERT_OK(Open(Options(kAlos)));
  Input("a", "1");
  Input("b", "2");
  Input("a", std::nullopt);
  EXPECT_EQ(ProcessAll(), 3);
  EXPECT_EQ(task_->next_input_offset(), 3);
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"b", "2"}}));
  EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "2"}, {"b", "1"}}));
  EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1", "b=2#1", "a=null"}));
  EXPECT_EQ(Committed("app-kv-changelog-0_0"), (std::vector<std::string>{"a=1", "b=2", "a=null"}));
  EXPECT_EQ(CommittedInput(), 3);
  EXPECT_EQ(task_->stats().commits, 1);
  EXPECT_EQ(task_->stats().commits_by_reason[static_cast<int>(CommitReason::kExplicit)], 1);
  // Nothing processed since: no second commit.
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(task_->stats().commits, 1);
}

TEST_F(TaskTest, ExactlyOnceOutputIsInvisibleUntilCommit) {
  ASSERT_OK(Open(Options(kEos)));
  Input("a", "1");
  EXPECT_EQ(ProcessAll(), 1);
  EXPECT_TRUE(Committed("output").empty());
  EXPECT_TRUE(View("kv").empty());  // READ_COMMITTED IQ (T4).
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1"}));
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_EQ(CommittedInput(), 1);
}

TEST_F(TaskTest, CleanRestartResumesAtTheCommittedOffsetWithoutRestoring) {
  for (const auto& props : {kAlos, kEos, kEosRu, kAlosRc}) {
    SCOPED_TRACE(Config(props).isolation == IsolationLevel::kReadCommitted ? "RC" : "RU");
    fs::remove_all(dir_);
    OpenTheLog();
    ASSERT_OK(Open(Options(props)));
    Input("a", "1");
    Input("b", "2");
    EXPECT_EQ(ProcessAll(), 2);
    ASSERT_OK(task_->Close());
    ASSERT_OK(Open(Options(props)));
    EXPECT_EQ(task_->next_input_offset(), 2);
    for (const StoreRestore& r : task_->restores()) {
      EXPECT_TRUE(r.was_closed_cleanly) << r.store;
      EXPECT_FALSE(r.wiped) << r.store;
      EXPECT_EQ(r.records_restored, 0) << r.store;
      EXPECT_EQ(r.start_offset, *r.stored_offset + 1) << r.store;
    }
    EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "1"}}));
    task_.reset();
  }
}

TEST_F(TaskTest, ExactlyOnceCrashLosesTheOpenTransactionAndNothingCommitted) {
  ASSERT_OK(Open(Options(kEos)));
  Input("a", "1");
  ProcessAll();
  ASSERT_OK(task_->Commit());
  Input("a", "2");
  ProcessAll();
  task_->Abandon();
  OpenTheLog();  // The process died: the log recovers and aborts the open transaction.
  ASSERT_OK(Open(Options(kEos)));
  EXPECT_EQ(task_->next_input_offset(), 1);
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}}));
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_FALSE(r.was_closed_cleanly);
    EXPECT_FALSE(r.wiped);  // READ_COMMITTED: not wiped (T9).
    // The commit was applied, not flushed (C7): its one record is restored from the changelog.
    EXPECT_EQ(r.records_restored, 1);
  }
  EXPECT_EQ(ProcessAll(), 1);
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1", "a=2#2"}));
  EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "2"}}));
}

// SPEC C7: a commit does not flush the stores, so after a crash each holds its last flushed
// commit (here the clean close's) and its restore replays only the changelog records committed
// since — from its own offset + 1, nothing wiped under exactly-once with READ_COMMITTED stores —
// and the task ends at the committed state.
TEST_F(TaskTest, ARestoreAfterACrashReplaysOnlyWhatFollowsTheLastFlush) {
  TaskOptions o = Options(kEos);
  o.store_max_unflushed_bytes = -1;  // Only the clean close flushes.
  ASSERT_OK(Open(o));
  Input("a", "1");
  Input("b", "1");
  ProcessAll();
  ASSERT_OK(task_->Close());
  std::map<std::string, int64_t> flushed;  // Each store's changelog end at the clean close.
  for (const std::string store : {"kv", "counts"}) {
    flushed[store] = End(ChangelogPartitionName(o, store));
  }
  ASSERT_OK(Open(o));
  Input("a", "2");
  ProcessAll();
  ASSERT_OK(task_->Commit());
  Input("c", "3");
  Input("a", "4");
  ProcessAll();
  ASSERT_OK(task_->Commit());
  task_->Abandon();
  OpenTheLog();
  o.log = log_.get();  // The reopened log.
  ASSERT_OK(Open(o));
  EXPECT_EQ(task_->next_input_offset(), 5);
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_FALSE(r.wiped) << r.store;  // T1: exactly-once with READ_COMMITTED wipes nothing.
    EXPECT_FALSE(r.was_closed_cleanly) << r.store;
    // Back at the clean close's commit: its last changelog record (a transaction marker follows
    // each commit's records, so the end is past it).
    ASSERT_TRUE(r.stored_offset) << r.store;
    EXPECT_LT(*r.stored_offset, flushed[r.store]) << r.store;
    EXPECT_EQ(r.start_offset, *r.stored_offset + 1) << r.store;
    // The three records committed since, and nothing before them.
    EXPECT_EQ(r.records_restored, 3) << r.store;
  }
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "4"}, {"b", "1"}, {"c", "3"}}));
  EXPECT_EQ(View("counts"),
            (std::map<std::string, std::string>{{"a", "3"}, {"b", "1"}, {"c", "1"}}));
}

TEST_F(TaskTest, ANewTaskFencesTheTransactionOfAnAbandonedOne) {
  ASSERT_OK(Open(Options(kEos)));
  Input("a", "1");
  ProcessAll();
  task_->Abandon();  // The log stays open: only the task died.
  ASSERT_OK(Open(Options(kEos)));
  EXPECT_EQ(ProcessAll(), 1);
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1"}));
}

TEST_F(TaskTest, ExactlyOnceReadUncommittedWipesAfterAnUncleanShutdown) {
  CrashAfterAnUncommittedWriteUnderEosRu();
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_FALSE(r.was_closed_cleanly);
    EXPECT_TRUE(r.wiped) << r.store;  // T10.
    EXPECT_EQ(r.start_offset, 0);
    EXPECT_EQ(r.records_restored, 2) << r.store;
  }
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_NE(logger_->All().find("under EOS it has the risk of getting uncommitted data"),
            std::string::npos);
}

// T8: changelog records carry their input position, so a store wiped and restored from its
// changelog gets back its committed position: that of the last record whose writes were
// committed (input offset 1 here), not that of the uncommitted write the wipe threw away.
TEST_F(TaskTest, AWipedStoreGetsItsPositionBackFromItsChangelog) {
  CrashAfterAnUncommittedWriteUnderEosRu();
  for (const StoreRestore& r : task_->restores()) {
    ASSERT_TRUE(r.wiped) << r.store;
    EXPECT_EQ(task_->Store(r.store)->CommittedPosition(), (Position{{"input", 1}})) << r.store;
  }
  std::vector<LogRecord> changelog;
  ASSERT_OK(log_->Read(task_->ChangelogPartition("kv"), 0, 10, IsolationLevel::kReadCommitted,
                       &changelog));
  ASSERT_EQ(changelog.size(), 2u);
  EXPECT_EQ(changelog[1].source, (LogSource{"input", 1}));
}

// Records written one at a time (log_batch_bytes 0): a crash after a record's write and before
// the commit leaves its changelog record in the log, unsynced, and the restore applies it.
TEST_F(TaskTest, AtLeastOnceCrashRestoresWhatTheChangelogHeldAndReprocesses) {
  TaskOptions o = Options(kAlosRc);
  o.log_batch_bytes = 0;
  ASSERT_OK(Open(o));
  Input("a", "1");
  ProcessAll();
  ASSERT_OK(task_->Commit());
  Input("a", "2");
  ProcessAll();
  task_->Abandon();
  OpenTheLog();        // A process crash keeps the written (unsynced) changelog records.
  o.log = log_.get();  // The reopened log.
  ASSERT_OK(Open(o));
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_FALSE(r.wiped);  // Never under at-least-once (T10).
    // The commit was applied, not flushed (C7): the store came back before it, with no offset,
    // and the restore reads its changelog from the beginning — both records.
    EXPECT_EQ(r.stored_offset, std::nullopt) << r.store;
    EXPECT_EQ(r.start_offset, 0) << r.store;
    EXPECT_EQ(r.records_restored, 2) << r.store;
  }
  EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "2"}}));
  EXPECT_EQ(task_->next_input_offset(), 1);
  EXPECT_EQ(ProcessAll(), 1);  // Processed again: at least once (C4).
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "3"}}));
  EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1", "a=2#2", "a=2#3"}));
}

// The changelog and output records are buffered and written a partition's batch at a time: at a
// commit, and before one once they add up to log_batch_bytes. What a crash finds unwritten was
// not committed, and is processed again.
TEST_F(TaskTest, RecordsAreWrittenToTheLogInBatches) {
  for (const auto& props : {kAlos, kEos}) {
    const bool eos = props.count("processing.guarantee") > 0;
    SCOPED_TRACE(eos ? "exactly_once_v2" : "at_least_once");
    task_.reset();
    fs::remove_all(dir_);
    testing::FaultyFileEnv env("0_0.log");  // The changelogs.
    OpenTheLog(&env);
    TaskOptions o = Options(props);
    ASSERT_OK(Open(o));
    const int kRecords = 100;
    for (int i = 0; i < kRecords; ++i) Input("k" + std::to_string(i % 7), "v");
    EXPECT_EQ(ProcessAll(), kRecords);
    EXPECT_EQ(env.appends, 0);
    EXPECT_EQ(End("output"), 0);
    ASSERT_OK(task_->Commit());
    // One batch per changelog; a transaction also writes its begin and commit markers there.
    EXPECT_EQ(env.appends, eos ? 6 : 2);
    EXPECT_EQ(Committed("output").size(), static_cast<size_t>(kRecords));
    EXPECT_EQ(Committed("app-counts-changelog-0_0").size(), static_cast<size_t>(kRecords));

    // Batches of about 6 processed records' changelog and output records are written before the
    // commit.
    o.log_batch_bytes = 1000;
    ASSERT_OK(Open(o));
    env.appends = 0;
    for (int i = 0; i < kRecords; ++i) Input("k" + std::to_string(i % 7), "w");
    EXPECT_EQ(ProcessAll(), kRecords);
    const int64_t written = End("output") - kRecords - (eos ? 2 : 0);  // The first commit's.
    EXPECT_GT(written, 0);
    EXPECT_LT(written, kRecords);
    EXPECT_GT(env.appends, 10);
    EXPECT_LT(env.appends, kRecords / 2);  // Unbatched: one per record and changelog.

    // A crash: the task restarts at its last commit and processes the rest again.
    task_->Abandon();
    OpenTheLog(&env);
    o.log = log_.get();  // The reopened log.
    ASSERT_OK(Open(o));
    EXPECT_EQ(task_->next_input_offset(), kRecords);
    EXPECT_EQ(ProcessAll(), kRecords);
    ASSERT_OK(task_->Commit());
    // k0 is 15 of every 100 records. Under at-least-once the restore applied the changelog
    // batches written before the crash, and their input was processed again (C4).
    const int k0 = std::stoi(View("counts")["k0"]);
    if (eos) {
      EXPECT_EQ(k0, 30);
      EXPECT_EQ(Committed("output").size(), static_cast<size_t>(2 * kRecords));
    } else {
      EXPECT_GE(k0, 30);
      EXPECT_LT(k0, 45);
    }
    task_.reset();
    log_.reset();
  }
}

TEST_F(TaskTest, CommitTriggers) {
  TaskOptions o = Options(kAlosRc);
  o.commit_interval_records = 2;
  o.commit_interval_ms = 1000;
  ASSERT_OK(Open(o));
  for (int i = 0; i < 5; ++i) Input("k" + std::to_string(i), "v");
  EXPECT_EQ(ProcessAll(), 5);
  EXPECT_EQ(task_->stats().commits_by_reason[static_cast<int>(CommitReason::kInterval)], 2);
  EXPECT_EQ(CommittedInput(), 4);
  // Time: the next record after 1000 ms commits.
  clock_->Advance(1000);
  Input("k5", "v");
  EXPECT_EQ(ProcessAll(), 1);
  EXPECT_EQ(task_->stats().commits_by_reason[static_cast<int>(CommitReason::kInterval)], 3);
  EXPECT_EQ(CommittedInput(), 6);
}

TEST_F(TaskTest, UncommittedBytesForceACommitBeforeTheNextRecord) {
  TaskOptions o = Options(kAlosRc);
  o.config.uncommitted_max_bytes = 10;
  ASSERT_OK(Open(o));
  Input("key", "value");  // kv: 3 + 5 bytes, counts: 3 + 1 byte = 12 > 10.
  Input("x", "y");
  EXPECT_EQ(ProcessAll(), 2);
  EXPECT_EQ(task_->stats().commits_by_reason[static_cast<int>(CommitReason::kUncommittedBytes)], 1);
  EXPECT_EQ(CommittedInput(), 1);
}

TEST_F(TaskTest, AFailedCommitStopsTheTaskAndKeepsTheLastCommit) {
  for (const auto& props : {kAlosRc, kEos}) {
    const bool eos = props.count("processing.guarantee") > 0;
    SCOPED_TRACE(eos ? "exactly_once_v2" : "at_least_once");
    task_.reset();
    fs::remove_all(dir_);
    testing::FaultyFileEnv env("output.log");
    OpenTheLog(&env);
    ASSERT_OK(Open(Options(props)));
    Input("a", "1");
    ProcessAll();
    ASSERT_OK(task_->Commit());
    Input("a", "2");
    ProcessAll();
    env.fail_sync = true;
    const Status failed = task_->Commit();
    EXPECT_EQ(failed.code(), Status::Code::kIOError) << failed;  // C6: reported.
    EXPECT_TRUE(task_->failed());
    int64_t n = 0;
    EXPECT_EQ(task_->Process(1, &n).code(), Status::Code::kFailedPrecondition);
    EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "1"}}));
    EXPECT_EQ(task_->Close().code(), Status::Code::kFailedPrecondition);  // Abandoned instead.
    env.fail_sync = false;
    OpenTheLog(&env);
    ASSERT_OK(Open(Options(props)));
    EXPECT_EQ(CommittedInput(), 1);  // Nothing committed lost, nothing uncommitted committed.
    EXPECT_EQ(task_->next_input_offset(), 1);
    if (eos) {
      EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "1"}}));
      EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1"}));
    }
    EXPECT_EQ(ProcessAll(), 1);
    ASSERT_OK(task_->Commit());
    EXPECT_EQ(CommittedInput(), 2);
    task_.reset();
    log_.reset();
  }
}

TEST_F(TaskTest, BadOptionsAreClearErrors) {
  TaskOptions o = Options(kAlos);
  o.input_partition = "in put";
  Status s = Open(o);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("input_partition"), std::string::npos) << s;
  o = Options(kAlos);
  o.log = nullptr;
  EXPECT_EQ(Open(o).code(), Status::Code::kInvalidArgument);
  o = Options(kAlos);
  o.restore_batch_records = 0;
  EXPECT_EQ(Open(o).code(), Status::Code::kInvalidArgument);
  o = Options(kAlos);
  o.log_batch_bytes = -1;
  s = Open(o);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("log_batch_bytes"), std::string::npos) << s;
}

// L1: under exactly-once every transaction ends with a commit marker in the changelog, so after a
// commit the changelog's last offsets hold no data record: a restart's restore reads past the
// store's offset, finds nothing to apply, and must end there (with a store kept, and with one
// wiped and restored from 0 after a crash). A restore that read on until the end offset was
// reached by a record would never return (planted: task/restore_spins_on_markers).
TEST_F(TaskTest, RestoreEndsWhenTheChangelogEndsWithAMarker) {
  TaskOptions o = Options(kEosRu);
  ASSERT_OK(Open(o));
  Input("a", "1");
  Input("b", "2");
  ProcessAll();
  ASSERT_OK(task_->Commit());
  ASSERT_OK(task_->Close());
  auto restore_of_kv = [&] {
    for (const StoreRestore& r : task_->restores()) {
      if (r.store == "kv") return r;
    }
    ADD_FAILURE() << "no restore of store kv";
    return StoreRestore();
  };
  ASSERT_OK(Open(o));  // Kept: restores from its offset + 1, where only the marker is.
  const StoreRestore kept = restore_of_kv();
  EXPECT_FALSE(kept.wiped);
  EXPECT_EQ(kept.records_restored, 0);
  EXPECT_LT(kept.start_offset, kept.end_offset) << "the changelog's tail is a marker to read past";
  task_->Abandon();
  OpenTheLog();
  o.log = log_.get();
  ASSERT_OK(Open(o));  // Wiped (EOS, unclean): restores both records, then the marker.
  const StoreRestore wiped = restore_of_kv();
  EXPECT_TRUE(wiped.wiped);
  EXPECT_EQ(wiped.records_restored, 2);
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
}

// F8, L1: a clean close whose marker write fails still closes (OK, logged naming the store);
// the next start takes that store for crashed — under exactly-once with READ_UNCOMMITTED it
// wipes and restores it, nothing committed lost — and the clean close after that clears the
// marker again, so the start after it wipes nothing (planted: store/close_marker_not_durable).
TEST_F(TaskTest, ALostCloseMarkerCostsOneRestoreThenStartsAreCleanAgain) {
  const TaskOptions o = Options(kEosRu);
  ASSERT_OK(Open(o));
  Input("a", "1");
  Input("b", "2");
  ProcessAll();
  fiu_init(0);
  const std::string point(kFailStoreCloseMarker);
  ASSERT_EQ(fiu_enable(point.c_str(), 1, nullptr, FIU_ONETIME), 0);
  const Status closed = task_->Close();
  fiu_disable(point.c_str());
  ASSERT_OK(closed);
  EXPECT_NE(logger_->All().find("could not clear its open-status marker"), std::string::npos)
      << logger_->All();
  auto wiped = [&] {
    std::map<std::string, bool> out;
    for (const StoreRestore& r : task_->restores()) out[r.store] = r.wiped;
    return out;
  };
  auto unclean = [&] {
    std::vector<std::string> out;
    for (const StoreRestore& r : task_->restores()) {
      if (!r.was_closed_cleanly) out.push_back(r.store);
    }
    return out;
  };
  ASSERT_OK(Open(o));
  ASSERT_EQ(unclean().size(), 1u) << "one store lost its marker";
  EXPECT_TRUE(wiped()[unclean()[0]]);
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  ASSERT_OK(task_->Close());
  ASSERT_OK(Open(o));
  EXPECT_EQ(unclean(), std::vector<std::string>{});
  EXPECT_EQ(wiped(), (std::map<std::string, bool>{{"counts", false}, {"kv", false}}));
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
}

TEST_F(TaskTest, RestoreInSmallBatchesSkipsAbortedTransactions) {
  TaskOptions o = Options(kEosRu);
  o.restore_batch_records = 2;
  ASSERT_OK(Open(o));
  for (int i = 0; i < 5; ++i) Input("k" + std::to_string(i), std::to_string(i));
  ProcessAll();
  ASSERT_OK(task_->Commit());
  Input("k9", "aborted");
  ProcessAll();
  task_->Abandon();
  OpenTheLog();
  o.log = log_.get();  // The new log.
  ASSERT_OK(Open(o));
  EXPECT_EQ(View("kv").size(), 5u);
  EXPECT_EQ(View("kv").count("k9"), 0u);
}

}  // namespace
}  // namespace statecheck

namespace statecheck {
namespace {

// SPEC U: the legacy format, upgrade and downgrade
// -------------------------------------------------

TEST_F(TaskTest, LegacyAtLeastOnceKeepsOffsetsInCheckpointFilesAfterEveryCommit) {
  TaskOptions o = Options(kLegacyAlos);
  o.log_batch_bytes = 0;  // c's changelog records are written as it is processed.
  ASSERT_OK(Open(o));
  Input("a", "1");
  Input("b", "2");
  EXPECT_EQ(ProcessAll(), 2);
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(StateFile(".checkpoint"),
            "0\n2\napp-counts-changelog-0_0 0 1\napp-kv-changelog-0_0 0 1\n");
  EXPECT_EQ(StateFile("kv.position"), "0\n1\ninput 0 1\n");
  EXPECT_FALSE(task_->Store("kv")->CommittedOffset("app-kv-changelog-0_0"));  // Not in the store.
  Input("c", "3");
  ProcessAll();
  task_->Abandon();  // A crash: the checkpoint of the last commit stays.
  OpenTheLog();
  o.log = log_.get();  // The reopened log.
  ASSERT_OK(Open(o));
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_FALSE(r.wiped) << r.store;
    EXPECT_EQ(r.stored_offset, std::optional<int64_t>(1)) << r.store;
    EXPECT_EQ(r.start_offset, 2) << r.store;
    EXPECT_EQ(r.records_restored, 1) << r.store;  // c, written before the crash.
  }
  EXPECT_EQ(task_->next_input_offset(), 2);
  // kv.position's offset 1, advanced by the restored record of c (input offset 2) (T8).
  EXPECT_EQ(task_->Store("kv")->CommittedPosition(), (Position{{"input", 2}}));
}

TEST_F(TaskTest, LegacyExactlyOnceWritesTheCheckpointOnlyAtACleanCloseAndWipesWithoutIt) {
  ASSERT_OK(Open(Options(kLegacyEos)));
  Input("a", "1");
  ProcessAll();
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(StateFile(".checkpoint"), "(none)");
  ASSERT_OK(task_->Close());
  // Offset 0 of each changelog is the transaction's begin marker.
  EXPECT_EQ(StateFile(".checkpoint"),
            "0\n2\napp-counts-changelog-0_0 0 1\napp-kv-changelog-0_0 0 1\n");
  ASSERT_OK(Open(Options(kLegacyEos)));
  EXPECT_EQ(StateFile(".checkpoint"), "(none)");  // Deleted when the task starts.
  EXPECT_EQ(StateFile("kv.position"), "(none)");
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_FALSE(r.wiped) << r.store;
    EXPECT_EQ(r.records_restored, 0) << r.store;
  }
  Input("b", "2");
  ProcessAll();
  ASSERT_OK(task_->Commit());
  Input("c", "3");
  ProcessAll();  // Written straight into the store, never committed.
  task_->Abandon();
  OpenTheLog();
  ASSERT_OK(Open(Options(kLegacyEos)));
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_TRUE(r.wiped) << r.store;
    EXPECT_EQ(r.start_offset, 0) << r.store;
    EXPECT_EQ(r.records_restored, 2) << r.store;
  }
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_NE(logger_->All().find("no offset in .checkpoint"), std::string::npos) << logger_->All();
}

TEST_F(TaskTest, UpgradeImportsTheLegacyFilesIntoTheStoresThenDeletesThem) {
  for (const auto& [legacy, current] :
       {std::pair{kLegacyAlos, kAlos}, std::pair{kLegacyEos, kEos}}) {
    SCOPED_TRACE(current.empty() ? "at_least_once" : "exactly_once_v2");
    task_.reset();
    fs::remove_all(dir_);
    OpenTheLog();
    ASSERT_OK(Open(Options(legacy)));
    Input("a", "1");
    Input("b", "2");
    ProcessAll();
    ASSERT_OK(task_->Close());
    ASSERT_OK(Open(Options(current)));  // U1: the user does nothing.
    // The last record's changelog offset: after a begin marker under exactly-once.
    const int64_t last = current.empty() ? 1 : 2;
    for (const StoreRestore& r : task_->restores()) {
      EXPECT_FALSE(r.wiped) << r.store;
      EXPECT_EQ(r.stored_offset, std::optional<int64_t>(last)) << r.store;
      EXPECT_EQ(r.records_restored, 0) << r.store;
    }
    EXPECT_EQ(task_->Store("kv")->CommittedOffset("app-kv-changelog-0_0"), last);
    EXPECT_EQ(task_->Store("kv")->CommittedPosition(), (Position{{"input", 1}}));
    EXPECT_EQ(StateFile(".checkpoint"), "(none)");
    EXPECT_EQ(StateFile("kv.position"), "(none)");
    EXPECT_EQ(StateFile("counts.position"), "(none)");
    EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "1"}, {"b", "1"}}));
    Input("a", "3");
    EXPECT_EQ(ProcessAll(), 1);
    ASSERT_OK(task_->Close());
    ASSERT_OK(Open(Options(current)));
    EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "2"}, {"b", "1"}}));
    EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1", "b=2#1", "a=3#2"}));
  }
}

TEST_F(TaskTest, AnUpgradeInterruptedBeforeTheFilesAreDeletedFinishesWithoutImportingTwice) {
  std::string checkpoint;
  const Status s = UpgradeFailingAt(kFailTaskUpgradeBeforeDelete, &checkpoint);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_EQ(StateFile(".checkpoint"), checkpoint);  // U2: still there ...
  {
    // ... and the stores are current already, with the imported offsets.
    std::unique_ptr<RocksDBStore> store = StoreInStateDirectory("kv", /*read_only=*/false);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->found_format(), StateFormat::kCurrent);
    EXPECT_EQ(store->CommittedOffset("app-kv-changelog-0_0"), 0);
    store->Close();
  }
  // Two commits later on the changelog, a second import would move the offset back.
  ExpectTheNextStartFinishesTheUpgrade();
}

// U2: the first store opened in the current format, then the upgrade failed before it imported:
// the store still holds the legacy format (its mark goes only with the import), so the next
// start imports it from the files, which are still there.
TEST_F(TaskTest, AnUpgradeInterruptedBeforeAStoreImportsLeavesItLegacyForTheNextStart) {
  std::string checkpoint;
  const Status s = UpgradeFailingAt(kFailTaskUpgradeBeforeImport, &checkpoint);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
  EXPECT_NE(s.message().find(kFailTaskUpgradeBeforeImport), std::string::npos) << s;
  EXPECT_EQ(StateFile(".checkpoint"), checkpoint);
  for (const std::string name : {"kv", "counts"}) {
    std::unique_ptr<RocksDBStore> store = StoreInStateDirectory(name, /*read_only=*/true);
    ASSERT_NE(store, nullptr) << name;
    EXPECT_EQ(store->found_format(), StateFormat::kLegacy) << name;
    EXPECT_EQ(store->CommittedOffset("app-" + name + "-changelog-0_0"), std::nullopt) << name;
    store->Close();
  }
  ExpectTheNextStartFinishesTheUpgrade();
  EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "1"}}));
}

TEST_F(TaskTest, DowngradeWipesTheStoresAndRestoresThemFromTheChangelog) {
  for (const auto& [current, legacy] :
       {std::pair{kAlosRc, kLegacyAlos}, std::pair{kEos, kLegacyEos}}) {
    task_.reset();
    fs::remove_all(dir_);
    OpenTheLog();
    ASSERT_OK(Open(Options(current)));
    Input("a", "1");
    Input("a", "2");
    ProcessAll();
    ASSERT_OK(task_->Close());
    ASSERT_OK(Open(Options(legacy)));  // U3: the user does nothing.
    for (const StoreRestore& r : task_->restores()) {
      EXPECT_TRUE(r.wiped) << r.store;
      EXPECT_EQ(r.start_offset, 0) << r.store;
      EXPECT_EQ(r.records_restored, 2) << r.store;
    }
    EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "2"}}));
    EXPECT_EQ(View("counts"), (std::map<std::string, std::string>{{"a", "2"}}));
    EXPECT_NE(logger_->All().find("which state.format=legacy cannot use (U3)"), std::string::npos)
        << logger_->All();
    Input("a", "3");
    EXPECT_EQ(ProcessAll(), 1);
    ASSERT_OK(task_->Close());
    EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1#1", "a=2#2", "a=3#3"}));
  }
}

TEST_F(TaskTest, ADamagedCheckpointOrPositionFileIsNeverTrusted) {
  struct Case {
    std::string file, text, wiped;  // wiped: "all" or one store's name.
    std::map<std::string, std::string> props;
  };
  const std::vector<Case> cases = {
      {".checkpoint", "1\n0\n", "all", kLegacyAlos},                            // version
      {".checkpoint", "0\n2\napp-kv-changelog-0_0 0 1\n", "all", kLegacyAlos},  // count
      {".checkpoint", "0\n2\napp-kv-changelog-0_0 0 -2\napp-counts-changelog-0_0 0 1\n", "all",
       kLegacyAlos},                                    // a negative offset
      {".checkpoint", "0\n1\nkv 0 x\n", "all", kAlos},  // on upgrade
      {"kv.position", "0\n1\ninput 0\n", "kv", kLegacyAlos},
      {"kv.position", "0\n1\ninput 0 1\n", "none", kLegacyAlos},  // intact: nothing wiped
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file + ": " + c.text);
    task_.reset();
    fs::remove_all(dir_);
    OpenTheLog();
    ASSERT_OK(Open(Options(kLegacyAlos)));
    Input("a", "1");
    ProcessAll();
    ASSERT_OK(task_->Close());
    WriteStateFile(c.file, c.text);
    ASSERT_OK(Open(Options(c.props)));  // U5: reported, and a full restore.
    for (const StoreRestore& r : task_->restores()) {
      const bool wiped = c.wiped == "all" || c.wiped == r.store;
      EXPECT_EQ(r.wiped, wiped) << r.store;
      EXPECT_EQ(r.records_restored, wiped ? 1 : 0) << r.store;
    }
    EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}}));
    if (c.wiped != "none") {
      // The error names the file by its path (the warnings of skipped entries do too).
      EXPECT_NE(logger_->All().find("Not trusting " + (dir_ / "state" / c.file).string()),
                std::string::npos)
          << logger_->All();
    }
  }
}

}  // namespace
}  // namespace statecheck

namespace statecheck {
namespace {

// A wipe leaves a marker, durable before the first file goes, until the new store is: a crash
// in between, which may leave half a store, makes the next start wipe it again.
TEST_F(TaskTest, AnInterruptedWipeIsFinishedAtTheNextStart) {
  ASSERT_OK(Open(Options(kAlos)));
  Input("a", "1");
  ProcessAll();
  ASSERT_OK(task_->Close());
  WriteStateFile("kv.wiping", "");  // As a crash in the middle of wiping kv leaves it.
  ASSERT_OK(Open(Options(kAlos)));
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_EQ(r.wiped, r.store == "kv") << r.store;
    EXPECT_EQ(r.records_restored, r.store == "kv" ? 1 : 0) << r.store;
  }
  EXPECT_EQ(StateFile("kv.wiping"), "(none)");
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_NE(logger_->All().find("an earlier wipe did not finish"), std::string::npos)
      << logger_->All();
}

// A store whose stored offset is at or past its changelog's end holds records the changelog no
// longer has (Kafka: the offset is out of range, as after the changelog topic was recreated):
// it is wiped and restored from the beginning. At the end exactly is the edge: the store's last
// record would be at the offset the changelog writes next.
TEST_F(TaskTest, AStoreAtOrPastItsChangelogsEndIsWipedAndRestoredFromTheBeginning) {
  for (const int64_t short_by : {0, 1}) {
    SCOPED_TRACE("the changelog ends " + std::to_string(short_by) +
                 " record(s) before the stored offset");
    fs::remove_all(dir_);
    OpenTheLog();
    ASSERT_OK(Open(Options(kAlos)));
    Input("a", "1");
    Input("b", "2");
    Input("c", "3");
    ASSERT_EQ(ProcessAll(), 3);
    ASSERT_OK(task_->Close());
    ASSERT_OK(Open(Options(kAlos)));
    std::map<std::string, int64_t> stored;  // Changelog -> its store's stored offset.
    for (const StoreRestore& r : task_->restores()) {
      ASSERT_TRUE(r.stored_offset) << r.store;
      stored[r.changelog] = *r.stored_offset;
    }
    ASSERT_OK(task_->Close());
    task_.reset();
    // The same state directory over a new log, whose changelogs end `short_by` records before
    // the stored offsets.
    log_.reset();
    fs::remove_all(dir_ / "log");
    OpenTheLog();
    for (const auto& [changelog, offset] : stored) {
      for (int64_t i = 0; i < offset - short_by; ++i) {
        int64_t at = 0;
        ASSERT_OK(log_->Append(changelog, "z", "9", &at));
      }
    }
    ASSERT_OK(log_->Sync());
    ASSERT_OK(Open(Options(kAlos)));
    for (const StoreRestore& r : task_->restores()) {
      EXPECT_TRUE(r.wiped) << r.store;
      EXPECT_EQ(r.start_offset, 0) << r.store;
      EXPECT_EQ(r.records_restored, stored[r.changelog] - short_by) << r.store;
    }
    EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"z", "9"}}));
    EXPECT_NE(logger_->All().find("wiping the store and restoring it from the beginning"),
              std::string::npos)
        << logger_->All();
    task_.reset();  // Its stores' background threads must be gone before the next remove_all.
  }
}

}  // namespace
}  // namespace statecheck

namespace statecheck {
namespace {

// A processor with one in-memory window store "win" (and the key-value stores `kv`): an input
// record (k, v, ts) puts k = v at window start ts (v null deletes) and forwards (k, v).
// C2 with changelog compaction after every commit: each changelog keeps the latest record of
// each key at its offset (a tombstone below the store's stored offset + 1 goes too), and a
// wiped store restores the same contents and position from fewer records.
TEST_F(TaskTest, ACompactedChangelogRestoresTheSameStoresFromItsLiveRecords) {
  TaskOptions o = Options(kEosRu);
  o.changelog_compaction_min_bytes = 0;
  o.changelog_compaction_min_dirty_ratio = 0;
  ASSERT_OK(Open(o));
  Input("a", "1");
  Input("b", "1");
  Input("a", "2");
  Input("b", std::nullopt);
  EXPECT_EQ(ProcessAll(), 4);
  ASSERT_OK(task_->Commit());
  // Nothing yet: a changelog's last record stays (it holds the end offset), and here it is the
  // commit marker of the only transaction, which is open below it.
  EXPECT_EQ(task_->stats().compactions, 0);
  // A clean close makes the stores durable (C7), so compaction may drop a tombstone below their
  // stored offset + 1: no restart can find them further back.
  ASSERT_OK(task_->Close());
  ASSERT_OK(Open(o));
  Input("c", "1");
  EXPECT_EQ(ProcessAll(), 1);
  ASSERT_OK(task_->Commit());
  // Both changelogs below the second transaction, and the log's "__offsets" and "__txn_state".
  EXPECT_EQ(task_->stats().compactions, 4);
  EXPECT_EQ(task_->stats().compactions_failed, 0);
  std::vector<LogRecord> kv;
  ASSERT_OK(
      log_->Read(task_->ChangelogPartition("kv"), 0, 100, IsolationLevel::kReadCommitted, &kv));
  ASSERT_EQ(kv.size(), 2u);  // a=2 and c=1: b's tombstone is below the stored offset + 1.
  EXPECT_EQ(kv[0].key, "a");
  EXPECT_EQ(kv[0].source, (LogSource{"input", 2}));
  EXPECT_EQ(kv[1].key, "c");
  EXPECT_EQ(kv[1].source, (LogSource{"input", 4}));
  // Offsets stay: the begin marker took 0, then a=1 1, b=1 2, a=2 3, b deleted 4, the commit
  // marker 5, the second transaction's begin 6, c=1 7.
  EXPECT_EQ(kv[0].offset, 3);
  EXPECT_EQ(kv[1].offset, 7);
  Input("d", "1");
  ProcessAll();  // Uncommitted, written straight into the READ_UNCOMMITTED stores.
  task_->Abandon();
  OpenTheLog();
  o.log = log_.get();
  ASSERT_OK(Open(o));
  for (const StoreRestore& r : task_->restores()) {
    EXPECT_TRUE(r.wiped) << r.store;                                    // T10.
    EXPECT_EQ(r.records_restored, r.store == "kv" ? 2 : 3) << r.store;  // Of 5 written.
    EXPECT_EQ(task_->Store(r.store)->CommittedPosition(), (Position{{"input", 4}})) << r.store;
  }
  EXPECT_EQ(View("kv"), (std::map<std::string, std::string>{{"a", "2"}, {"c", "1"}}));
  EXPECT_EQ(View("counts"),
            (std::map<std::string, std::string>{{"a", "2"}, {"b", "2"}, {"c", "1"}}));
  EXPECT_EQ(task_->next_input_offset(), 5);
  EXPECT_EQ(ProcessAll(), 1);
  ASSERT_OK(task_->Close());
  EXPECT_EQ(Committed("output"),
            (std::vector<std::string>{"a=1#1", "b=1#1", "a=2#2", "b=null", "c=1#1", "d=1#1"}));
}

// Without compaction (min_bytes -1) nothing is rewritten; with the defaults (1 MiB) a small
// changelog is left alone.
TEST_F(TaskTest, ChangelogCompactionRunsOnlyWhenItIsDue) {
  for (const int64_t min_bytes : {int64_t{-1}, int64_t{1} << 20}) {
    SCOPED_TRACE(min_bytes);
    fs::remove_all(dir_);
    OpenTheLog();
    TaskOptions o = Options(kEos);
    o.changelog_compaction_min_bytes = min_bytes;
    ASSERT_OK(Open(o));
    Input("a", "1");
    Input("a", "2");
    ProcessAll();
    ASSERT_OK(task_->Commit());
    EXPECT_EQ(task_->stats().compactions, 0);
    EXPECT_EQ(Committed(task_->ChangelogPartition("kv")), (std::vector<std::string>{"a=1", "a=2"}));
    task_.reset();
  }
}

class WindowingProcessor final : public Processor {
 public:
  WindowingProcessor(std::vector<std::string> kv, std::vector<WindowStoreSpec> windows)
      : kv_(std::move(kv)), windows_(std::move(windows)) {}
  std::vector<std::string> StoreNames() const override { return kv_; }
  std::vector<WindowStoreSpec> WindowStores() const override { return windows_; }
  Status Process(const LogRecord& record, ProcessorContext* context) override {
    STATECHECK_RETURN_IF_ERROR(context->WindowPut(
        "win", record.key,
        record.value ? std::optional<std::string_view>(*record.value) : std::nullopt,
        record.timestamp));
    return context->Forward(record.key, record.value);
  }

 private:
  const std::vector<std::string> kv_;
  const std::vector<WindowStoreSpec> windows_;
};

class TaskWindowStoreTest : public TaskTest {
 protected:
  Status OpenWindowing(const TaskOptions& o, int64_t retention_ms = 100,
                       int64_t window_size_ms = 10) {
    task_.reset();
    return OpenTask(o,
                    std::make_unique<WindowingProcessor>(
                        std::vector<std::string>{},
                        std::vector<WindowStoreSpec>{{"win", retention_ms, window_size_ms}}),
                    &task_);
  }

  void InputAt(std::string_view key, std::optional<std::string_view> value, int64_t timestamp) {
    int64_t offset = 0;
    ASSERT_OK(log_->Append("input", key, value, timestamp, &offset));
    ASSERT_OK(log_->Sync());
  }

  // Every live record of window store `store`, as "<start>:<key>=<value>", by start then key.
  std::vector<std::string> Windows(std::string_view store) {
    std::vector<std::string> out;
    ReadOnlyWindowStore* ws = task_->GetWindowStore(store);
    EXPECT_NE(ws, nullptr);
    if (!ws) return out;
    std::unique_ptr<WindowStoreIterator> it;
    EXPECT_OK(ws->All(&it));
    WindowedRecord r;
    while (it->HasNext() && it->Next(&r).ok()) {
      out.push_back(std::to_string(r.window.start) + ":" + r.key + "=" + r.value);
    }
    return out;
  }

  const StoreRestore* RestoreOf(std::string_view store) {
    for (const StoreRestore& r : task_->restores()) {
      if (r.store == store) return &r;
    }
    return nullptr;
  }
};

// The changelog record of a window store's write: key [start, 8 bytes big-endian][key], the
// value (null deletes), the input record's timestamp.
TEST_F(TaskWindowStoreTest, WritesGoToTheChangelogWithTheWindowStartInTheKey) {
  ASSERT_OK(OpenWindowing(Options(kAlos)));
  InputAt("a", "1", 258);
  InputAt("a", std::nullopt, 258);
  EXPECT_EQ(ProcessAll(), 2);
  ASSERT_OK(task_->Commit());
  std::vector<LogRecord> records;
  ASSERT_OK(log_->Read("app-win-changelog-0_0", 0, 10, IsolationLevel::kReadCommitted, &records));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].key, std::string("\0\0\0\0\0\0\x01\x02"
                                        "a",
                                        9));
  EXPECT_EQ(records[0].value, "1");
  EXPECT_EQ(records[0].timestamp, 258);
  EXPECT_EQ(records[1].key, records[0].key);
  EXPECT_EQ(records[1].value, std::nullopt);
  EXPECT_TRUE(Windows("win").empty());
  EXPECT_EQ(task_->GetWindowStore("kv"), nullptr);
  EXPECT_EQ(task_->Store("win"), nullptr);
}

// A crash loses the in-memory store; the next task restores it from its changelog from offset
// 0: under at-least-once every record written (the uncommitted one too, then processed again,
// C4), under exactly-once the committed ones only (C3).
TEST_F(TaskWindowStoreTest, RestoredFromItsChangelogAfterACrashUnderBothGuarantees) {
  for (const bool eos : {false, true}) {
    SCOPED_TRACE(eos ? "exactly_once_v2" : "at_least_once");
    fs::remove_all(dir_);
    OpenTheLog();
    // Options() holds the log: made again after each OpenTheLog(). Each record is written as it
    // is produced, so c's is in the changelog at the crash.
    const auto options = [&] {
      TaskOptions o = Options(eos ? kEos : kAlos);
      o.log_batch_bytes = 0;
      return o;
    };
    ASSERT_OK(OpenWindowing(options()));
    InputAt("a", "1", 10);
    InputAt("b", "2", 20);
    ProcessAll();
    ASSERT_OK(task_->Commit());
    InputAt("c", "3", 30);
    ProcessAll();  // Not committed.
    EXPECT_EQ(Windows("win"), (std::vector<std::string>{"10:a=1", "20:b=2", "30:c=3"}));
    task_->Abandon();
    EXPECT_EQ(task_->GetWindowStore("win"), nullptr);
    OpenTheLog();  // The process died; the log recovers (and aborts the open transaction).
    ASSERT_OK(OpenWindowing(options()));
    const StoreRestore* r = RestoreOf("win");
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(r->in_memory);
    EXPECT_EQ(r->changelog, "app-win-changelog-0_0");
    EXPECT_EQ(r->start_offset, 0);
    EXPECT_EQ(r->stored_offset, std::nullopt);
    EXPECT_EQ(r->records_restored, eos ? 2 : 3);
    EXPECT_EQ(Windows("win"), eos ? (std::vector<std::string>{"10:a=1", "20:b=2"})
                                  : (std::vector<std::string>{"10:a=1", "20:b=2", "30:c=3"}));
    EXPECT_EQ(task_->next_input_offset(), 2);
    EXPECT_EQ(ProcessAll(), 1);  // c again.
    ASSERT_OK(task_->Close());
    ASSERT_OK(
        OpenWindowing(options()));  // A clean restart restores from 0 too: nothing is on disk.
    EXPECT_EQ(Windows("win"), (std::vector<std::string>{"10:a=1", "20:b=2", "30:c=3"}));
    EXPECT_EQ(RestoreOf("win")->records_restored, eos ? 3 : 4);  // At least once: c twice.
    task_.reset();
  }
}

// C1: an aborted transaction's window store writes are never restored.
TEST_F(TaskWindowStoreTest, AnAbortedTransactionIsNotRestoredUnderExactlyOnce) {
  TaskOptions o = Options(kEos);
  o.log_batch_bytes = 0;  // b's record is written as it is produced, in the open transaction.
  ASSERT_OK(OpenWindowing(o));
  InputAt("a", "1", 10);
  ProcessAll();
  ASSERT_OK(task_->Commit());
  InputAt("b", "2", 20);
  ProcessAll();
  task_->Abandon();
  ASSERT_OK(OpenWindowing(o));  // Fences the abandoned task: its transaction aborts.
  // The aborted record is in the changelog; the restore skipped it.
  std::vector<LogRecord> all;
  ASSERT_OK(log_->Read("app-win-changelog-0_0", 0, 10, IsolationLevel::kReadUncommitted, &all));
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(RestoreOf("win")->records_restored, 1);
  EXPECT_EQ(Windows("win"), (std::vector<std::string>{"10:a=1"}));
  InputAt("c", "3", 30);
  EXPECT_EQ(ProcessAll(), 2);
  ASSERT_OK(task_->Commit());
  task_->Abandon();
  ASSERT_OK(OpenWindowing(Options(kEos)));
  EXPECT_EQ(Windows("win"), (std::vector<std::string>{"10:a=1", "20:b=2", "30:c=3"}));
  EXPECT_EQ(Committed("output"), (std::vector<std::string>{"a=1", "b=2", "c=3"}));
}

// W2, W3 on restore: replaying the changelog moves the store's stream time as the writes did, so
// windows that had expired are gone again, a put that was dropped is dropped again, and a
// delete deletes.
TEST_F(TaskWindowStoreTest, RetentionAppliesOnRestore) {
  ASSERT_OK(OpenWindowing(Options(kEos), /*retention_ms=*/10, /*window_size_ms=*/5));
  InputAt("a", "1", 0);
  InputAt("b", "2", 5);
  InputAt("x", "9", 6);
  InputAt("x", std::nullopt, 6);
  InputAt("c", "3", 12);  // Stream time 12: starts <= 2 expire (a).
  InputAt("d", "4", 1);   // 1 <= 12 - 10: dropped.
  EXPECT_EQ(ProcessAll(), 6);
  EXPECT_EQ(Windows("win"), (std::vector<std::string>{"5:b=2", "12:c=3"}));
  EXPECT_EQ(task_->GetWindowStore("win")->metrics().dropped_records, 1);
  ASSERT_OK(task_->Close());
  ASSERT_OK(OpenWindowing(Options(kEos), 10, 5));
  EXPECT_EQ(RestoreOf("win")->records_restored, 6);  // Every write, the dropped one included.
  ReadOnlyWindowStore* ws = task_->GetWindowStore("win");
  ASSERT_NE(ws, nullptr);
  EXPECT_EQ(ws->stream_time(), 12);
  EXPECT_EQ(ws->retention_ms(), 10);
  EXPECT_EQ(ws->window_size_ms(), 5);
  EXPECT_EQ(ws->metrics().dropped_records, 1);
  EXPECT_EQ(Windows("win"), (std::vector<std::string>{"5:b=2", "12:c=3"}));
  std::optional<std::string> value;
  ASSERT_OK(ws->Fetch("a", 0, &value));
  EXPECT_EQ(value, std::nullopt);
}

// W2, W3 with changelog compaction: a window store's changelog also loses the records whose
// window has expired (start below stream time - retention), and a restore gives the same
// windows and stream time.
TEST_F(TaskWindowStoreTest, ACompactedChangelogLosesExpiredWindowsAndRestoresTheSameStore) {
  TaskOptions o = Options(kEos);
  o.changelog_compaction_min_bytes = 0;
  o.changelog_compaction_min_dirty_ratio = 0;
  ASSERT_OK(OpenWindowing(o, /*retention_ms=*/10, /*window_size_ms=*/5));
  InputAt("a", "1", 0);
  InputAt("a", "2", 0);
  InputAt("b", "1", 5);
  InputAt("c", "1", 20);  // Stream time 20: windows below 10 have expired.
  InputAt("d", "1", 12);
  EXPECT_EQ(ProcessAll(), 5);
  ASSERT_OK(task_->Commit());
  InputAt("e", "1", 21);  // A second transaction, so that the first is below the cut.
  EXPECT_EQ(ProcessAll(), 1);
  ASSERT_OK(task_->Commit());
  EXPECT_EQ(task_->stats().compactions, 3);  // With "__offsets" and "__txn_state".
  std::vector<LogRecord> records;
  ASSERT_OK(log_->Read("app-win-changelog-0_0", 0, 10, IsolationLevel::kReadCommitted, &records));
  std::vector<int64_t> starts;
  for (const LogRecord& r : records) starts.push_back(r.timestamp);
  EXPECT_EQ(starts, (std::vector<int64_t>{20, 12, 21}));  // Stream time 21: below 11 expired.
  const std::vector<std::string> before = Windows("win");
  EXPECT_EQ(before, (std::vector<std::string>{"12:d=1", "20:c=1", "21:e=1"}));
  ASSERT_OK(task_->Close());
  ASSERT_OK(OpenWindowing(o, 10, 5));
  EXPECT_EQ(RestoreOf("win")->records_restored, 3);  // Of 6 written.
  EXPECT_EQ(task_->GetWindowStore("win")->stream_time(), 21);
  EXPECT_EQ(Windows("win"), before);
}

TEST_F(TaskWindowStoreTest, StoreNamesAreOneNamespaceAndWindowStoreOptionsAreChecked) {
  Status s =
      OpenTask(Options(kAlos),
               std::make_unique<WindowingProcessor>(std::vector<std::string>{"win"},
                                                    std::vector<WindowStoreSpec>{{"win", 100, 10}}),
               &task_);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("declares store \"win\" twice"), std::string::npos) << s;
  s = OpenWindowing(Options(kAlos), /*retention_ms=*/5, /*window_size_ms=*/10);
  EXPECT_EQ(s.message(),
            "The retention period of the window store win must be no smaller than its window "
            "size. Got size=[10], retention=[5]");
  s = OpenTask(Options(kAlos),
               std::make_unique<WindowingProcessor>(
                   std::vector<std::string>{}, std::vector<WindowStoreSpec>{{"w/in", 100, 10}}),
               &task_);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
  // A processor writing a window store the task does not have.
  ASSERT_OK(OpenTask(Options(kAlos),
                     std::make_unique<WindowingProcessor>(std::vector<std::string>{"kv"},
                                                          std::vector<WindowStoreSpec>{}),
                     &task_));
  InputAt("a", "1", 1);
  int64_t n = 0;
  s = task_->Process(10, &n);
  EXPECT_EQ(s.message(), "task 0_0 has no window store named \"win\"");
}

}  // namespace
}  // namespace statecheck
