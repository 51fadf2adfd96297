// Unit tests of the session-window aggregation (statecheck/session_aggregation.h): merging,
// tombstones of merged sessions, late drops at the boundary, emit-final's order, interval and
// exactly-once across a crash, and the store's two indexes.
#include "statecheck/session_aggregation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "testing/test_util.h"

namespace statecheck {
namespace {

namespace fs = std::filesystem;

int64_t BigEndianAt(std::string_view b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return static_cast<int64_t>(v);
}

class SessionAggregationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("statecheck_sagg_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    ReopenLog();
  }
  void TearDown() override {
    task_.reset();
    log_.reset();
    fs::remove_all(dir_.parent_path());
  }

  void ReopenLog() {
    task_.reset();
    log_.reset();
    LogOptions o;
    o.directory = (dir_ / "log").string();
    o.logger = NullLogger();
    ASSERT_OK(OpenLog(o, &log_));
  }

  // Opens the task with a session-windowed count.
  Status Open(int64_t gap, int64_t grace, EmitStrategy emit, bool eos = false,
              bool suppress = false) {
    task_.reset();
    SessionWindowedAggregationOptions a;
    EXPECT_OK(SessionWindows::OfInactivityGapAndGrace(gap, grace, &a.windows));
    a.emit = emit;
    a.emit_interval_ms = emit_interval_ms_;
    a.aggregator = aggregator_;
    a.stats = stats_;
    a.logger = logger_;
    std::unique_ptr<Processor> processor;
    STATECHECK_RETURN_IF_ERROR(suppress ? NewSuppressedSessionWindowedAggregation(a, &processor)
                                        : NewSessionWindowedAggregation(a, &processor));
    TaskOptions o;
    o.application_id = "app";
    o.input_partition = "input";
    o.output_partition = "output";
    o.state_directory = (dir_ / "state").string();
    o.log = log_.get();
    std::map<std::string, std::string> props;
    if (eos) props["processing.guarantee"] = "exactly_once_v2";
    EXPECT_OK(ResolveStateConfig(props, &o.config));
    o.clock = clock_;
    o.logger = logger_;
    return OpenTask(o, std::move(processor), &task_);
  }

  void Input(std::string_view key, int64_t timestamp, std::optional<std::string_view> value = "v") {
    int64_t offset = 0;
    ASSERT_OK(log_->Append("input", key, value, timestamp, &offset));
    ASSERT_OK(log_->Sync());
  }

  // Processes everything, commits, and returns the output committed since the last call, as
  // "<windowed key>=<value>@<timestamp>".
  std::vector<std::string> Run() {
    int64_t n = 0;
    EXPECT_OK(task_->Process(1000, &n));
    EXPECT_OK(task_->Commit());
    std::vector<LogRecord> records;
    std::vector<std::string> out;
    const Status s = log_->Read("output", seen_, 100000, IsolationLevel::kReadCommitted, &records);
    if (s.code() == Status::Code::kOutOfRange) return out;
    EXPECT_OK(s);
    for (const LogRecord& r : records) {
      out.push_back(r.key + "=" + r.value.value_or("null") + "@" + std::to_string(r.timestamp));
      seen_ = r.offset + 1;
    }
    return out;
  }

  // The store's sessions, decoded here (not with the engine's code): each time-index record as
  // "<start>:<end>:<key>=<aggregate>", in store order; and each key-index record must name the
  // same session (same key, end and start) — `key_index` counts them.
  std::vector<std::string> StoreSessions(int* key_index) {
    std::vector<std::string> out;
    std::set<std::string> time_sessions, key_sessions;
    auto view = task_->Store("sessions")->NewQueryView();
    std::unique_ptr<KeyValueIterator> it;
    EXPECT_OK(view->All(&it));
    KeyValue kv;
    while (it->HasNext()) {
      EXPECT_OK(it->Next(&kv));
      EXPECT_GE(kv.value.size(), 8u);
      const std::string start = std::to_string(BigEndianAt(kv.value));
      if (kv.key[0] == 'T') {
        const std::string name =
            start + ":" + std::to_string(BigEndianAt(kv.key.substr(1))) + ":" + kv.key.substr(9);
        out.push_back(name + "=" + kv.value.substr(8));
        time_sessions.insert(name);
      } else {
        EXPECT_EQ(kv.key[0], 'K');
        const size_t n = BigEndianAt(std::string(4, '\0') + kv.key.substr(1, 4));
        EXPECT_EQ(kv.key.size(), 1 + 4 + n + 8);
        key_sessions.insert(start + ":" + std::to_string(BigEndianAt(kv.key.substr(5 + n))) + ":" +
                            kv.key.substr(5, n));
      }
    }
    EXPECT_EQ(time_sessions, key_sessions);
    *key_index = static_cast<int>(key_sessions.size());
    return out;
  }

  fs::path dir_;
  std::shared_ptr<testing::CapturingLogger> logger_ = std::make_shared<testing::CapturingLogger>();
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::shared_ptr<AggregationStats> stats_ = std::make_shared<AggregationStats>();
  int64_t emit_interval_ms_ = 0;
  Aggregator aggregator_ = CountAggregator();
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
  int64_t seen_ = 0;
};

// E2: a record merges every session of its key within the gap; emit-eager sends a tombstone for
// each merged-away session (by ascending end, timestamp = its end), then the merged session
// (timestamp = its end). Merged-away sessions leave the store, both indexes.
TEST_F(SessionAggregationTest, EmitEagerMergesSessionsAndTombstonesTheMergedOnes) {
  ASSERT_OK(Open(10, 100, EmitStrategy::kOnWindowUpdate));
  Input("a", 0);
  Input("ab", 6);  // "a"'s key bytes are a prefix of "ab": never the same sessions.
  Input("a", 30);
  Input("a", 5);  // Within 10 of [0,0]: [0,5].
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:0:a=1@0", "6:6:ab=1@6", "30:30:a=1@30",
                                             "0:0:a=null@0", "0:5:a=2@5"}));
  Input("a", 20);  // Within 10 of [30,30] (20 >= 30 - 10), not of [0,5] (20 > 5 + 10).
  EXPECT_EQ(Run(), (std::vector<std::string>{"30:30:a=null@30", "20:30:a=2@30"}));
  Input("a", 12);  // Bridges [0,5] and [20,30].
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:5:a=null@5", "20:30:a=null@30", "0:30:a=5@30"}));
  Input("a", 25);  // Inside [0,30]: the session is replaced — a tombstone, then its new count.
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:30:a=null@30", "0:30:a=6@30"}));
  Input("a", 100);
  Input("a", 100);  // Merges [100,100] only: the merged session is [t,t], Kafka sends no tombstone.
  EXPECT_EQ(Run(), (std::vector<std::string>{"100:100:a=1@100", "100:100:a=2@100"}));
  int key_index = 0;
  // Time index order: by end, then key.
  EXPECT_EQ(StoreSessions(&key_index),
            (std::vector<std::string>{"6:6:ab=1", "0:30:a=6", "100:100:a=2"}));
  EXPECT_EQ(key_index, 3);
  EXPECT_EQ(stats_->dropped_records, 0);
  EXPECT_EQ(stats_->emitted, 14);
}

// The store, deletes included, is rebuilt from its changelog alone.
TEST_F(SessionAggregationTest, StoreIsRestoredFromItsChangelog) {
  ASSERT_OK(Open(10, 0, EmitStrategy::kOnWindowUpdate));
  Input("a", 0);
  Input("a", 20);
  Input("a", 10);  // Bridges both: [0,20].
  Input("b", 15);
  Run();
  int key_index = 0;
  const std::vector<std::string> before = StoreSessions(&key_index);
  EXPECT_EQ(before, (std::vector<std::string>{"15:15:b=1", "0:20:a=3"}));
  ASSERT_OK(task_->Close());
  task_.reset();
  fs::remove_all(dir_ / "state");
  ASSERT_OK(Open(10, 0, EmitStrategy::kOnWindowUpdate));
  EXPECT_EQ(StoreSessions(&key_index), before);
  EXPECT_EQ(key_index, 2);
}

// E1 at the boundary: a record is dropped iff its merged session ends before stream time -
// grace - gap; a late record that merges into a live session is taken.
TEST_F(SessionAggregationTest, LateRecordsAreDroppedExactlyAtTheBoundary) {
  ASSERT_OK(Open(10, 5, EmitStrategy::kOnWindowUpdate));
  Input("k", 100);  // Close time 100 - 5 - 10 = 85.
  Input("x", 85);   // End 85: not < 85, taken.
  Input("y", 84);   // End 84 < 85: dropped.
  Input("z", 86);   // Taken.
  Input("k", 80);   // Merges [100,100]? 80 < 100 - 10: no. [80,80] ends before 85: dropped.
  Input("x", 76);   // Merges [85,85] (76 >= 85 - 10): [76,85] ends at 85, taken.
  EXPECT_EQ(Run(), (std::vector<std::string>{"100:100:k=1@100", "85:85:x=1@85", "86:86:z=1@86",
                                             "85:85:x=null@85", "76:85:x=2@85"}));
  EXPECT_EQ(stats_->dropped_records, 2);
  EXPECT_NE(logger_->All().find("Skipping record for expired window. offset=[2] timestamp=[84] "
                                "window=[84,84] expiration=[85] streamTime=[100]"),
            std::string::npos)
      << logger_->All();
  int key_index = 0;
  EXPECT_EQ(StoreSessions(&key_index),
            (std::vector<std::string>{"76:85:x=2", "86:86:z=1", "100:100:k=1"}));
}

TEST_F(SessionAggregationTest, NullKeysAndMissingTimestampsAreDropped) {
  ASSERT_OK(Open(10, 0, EmitStrategy::kOnWindowUpdate));
  Input("", 1);
  int64_t offset = 0;
  ASSERT_OK(log_->Append("input", "k", "v", &offset));  // No timestamp.
  ASSERT_OK(log_->Sync());
  EXPECT_TRUE(Run().empty());
  EXPECT_EQ(stats_->dropped_records, 2);
}

// E3, E4, E9: each session once, after it closes (end < stream time - grace - gap), with its
// final aggregate and its end as the timestamp; sessions closing together by end, then key, then
// start, read by range scans over exactly them. Merges send nothing.
TEST_F(SessionAggregationTest, EmitFinalEmitsEachSessionOnceInEndKeyStartOrder) {
  ASSERT_OK(Open(5, 1, EmitStrategy::kOnWindowClose));
  Input("b", 6);
  Input("a", 3);
  Input("a", 6);  // [3,6]
  Input("c", 1);
  Input("c", 2);  // [1,2]
  Input("ab", 6);
  EXPECT_TRUE(Run().empty());  // Close time 6 - 1 - 5 = 0.
  Input("z", 13);              // Close time 7: ends 2 and 6 closed.
  EXPECT_EQ(Run(), (std::vector<std::string>{"1:2:c=2@2", "3:6:a=2@6", "6:6:ab=1@6", "6:6:b=1@6"}));
  Input("z", 13);
  Input("y", 19);  // Close time 13: [13,13] not closed (13 < 13 fails).
  EXPECT_TRUE(Run().empty());
  Input("y", 20);  // Close time 14.
  EXPECT_EQ(Run(), (std::vector<std::string>{"13:13:z=2@13"}));
  EXPECT_EQ(stats_->emitted, 5);
  // E9: the range scans read exactly the sessions emitted, not the others in the store.
  EXPECT_EQ(stats_->windows_read, 5);
  // Emitted sessions stay in the store (no expiry).
  int key_index = 0;
  EXPECT_EQ(StoreSessions(&key_index).size(), 6u);
}

// E5: at most one emission attempt per emit interval of wall-clock time.
TEST_F(SessionAggregationTest, EmitFinalWaitsForTheEmitInterval) {
  emit_interval_ms_ = 1000;
  ASSERT_OK(Open(5, 0, EmitStrategy::kOnWindowClose));
  Input("a", 0);  // Close time -5: nothing to attempt.
  Input("b", 6);  // Close time 1: the first attempt, [0,0] closed.
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:0:a=1@0"}));
  Input("b", 20);  // Close time 15: [6,6] closed, but the last attempt was 0 ms ago.
  EXPECT_TRUE(Run().empty());
  clock_->Advance(999);
  Input("b", 21);
  EXPECT_TRUE(Run().empty());
  clock_->Advance(1);
  Input("b", 22);
  EXPECT_EQ(Run(), (std::vector<std::string>{"6:6:b=1@6"}));
}

// E6, E10: the last emitted close time is committed with the input offset; after a crash (with
// or without an uncommitted emission) and a clean restart, nothing is emitted twice or lost.
TEST_F(SessionAggregationTest, EmitFinalNeverEmitsTwiceAcrossACrashOrRestart) {
  ASSERT_OK(Open(5, 0, EmitStrategy::kOnWindowClose, /*eos=*/true));
  Input("a", 0);
  Input("a", 10);  // Close time 5.
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:0:a=1@0"}));
  task_->Abandon();
  ReopenLog();
  ASSERT_OK(Open(5, 0, EmitStrategy::kOnWindowClose, /*eos=*/true));
  Input("b", 10);  // Stream time starts afresh at 10: [0,0] closes again — emitted already.
  EXPECT_TRUE(Run().empty());
  Input("b", 30);  // Close time 25; processed, not committed, then a crash.
  int64_t n = 0;
  ASSERT_OK(task_->Process(1000, &n));
  task_->Abandon();
  ReopenLog();
  ASSERT_OK(Open(5, 0, EmitStrategy::kOnWindowClose, /*eos=*/true));
  EXPECT_EQ(Run(), (std::vector<std::string>{"10:10:a=1@10", "10:10:b=1@10"}));
  ASSERT_OK(task_->Close());
  ASSERT_OK(Open(5, 0, EmitStrategy::kOnWindowClose, /*eos=*/true));
  Input("c", 30);  // Close time 25 again after a clean restart: nothing new closed.
  EXPECT_TRUE(Run().empty());
  Input("c", 40);
  EXPECT_EQ(Run(), (std::vector<std::string>{"30:30:b=1@30", "30:30:c=1@30"}));
}

TEST_F(SessionAggregationTest, BadOptionsAreClearErrors) {
  SessionWindowedAggregationOptions a;
  ASSERT_OK(SessionWindows::OfInactivityGapAndGrace(10, 5, &a.windows));
  a.retention_ms = 14;
  std::unique_ptr<Processor> p;
  Status s = NewSessionWindowedAggregation(a, &p);
  EXPECT_EQ(s.message(),
            "The retention period of the session store sessions must be no smaller than the "
            "session inactivity gap plus the grace period. Got gap=[10], grace=[5], "
            "retention=[14]");
  a.retention_ms = 15;
  EXPECT_OK(NewSessionWindowedAggregation(a, &p));
  a.retention_ms = -1;
  a.emit_interval_ms = -1;
  s = NewSessionWindowedAggregation(a, &p);
  EXPECT_NE(s.message().find("emit_interval_ms must be >= 0"), std::string::npos) << s;
  a.emit_interval_ms = 0;
  a.merger = nullptr;
  s = NewSessionWindowedAggregation(a, &p);
  EXPECT_NE(s.message().find("option merger"), std::string::npos) << s;
  a.merger = CountMerger();
  a.store = "";
  EXPECT_EQ(NewSessionWindowedAggregation(a, &p).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(CountMerger()("k", "2", "3"), "5");
}

// reduce(): sessions merge with the reducer (Kafka's session reduce needs no merger), and the
// record's value folds into the merged aggregate.
TEST_F(SessionAggregationTest, ReduceMergesSessionsWithTheReducer) {
  aggregator_ = ReduceAggregator([](std::string_view agg, std::string_view v) {
    return std::string(agg) + "+" + std::string(v);
  });
  ASSERT_OK(Open(/*gap=*/5, /*grace=*/100, EmitStrategy::kOnWindowUpdate));
  Input("a", 0, "x");
  Input("a", 20, "y");
  Input("a", 10, "z");           // Within the gap of neither: a third session.
  Input("a", 15, "w");           // Bridges [10,10] and [20,20].
  Input("a", 16, std::nullopt);  // Skipped.
  EXPECT_EQ(Run(),
            (std::vector<std::string>{"0:0:a=x@0", "20:20:a=y@20", "10:10:a=z@10",
                                      "10:10:a=null@10", "20:20:a=null@20", "10:20:a=z+y+w@20"}));
  EXPECT_EQ(stats_->dropped_records, 0);
}

// SPEC E7 for sessions, Kafka's SuppressScenarioTest.shouldSupportFinalResultsForSessionWindows:
// a session goes out once end + grace + gap <= the suppress's stream time, with its last
// update; the sessions merged into it (their tombstones removed them from the buffer) and the
// late record dropped by the aggregation never do.
TEST_F(SessionAggregationTest, SuppressEmitsEachSessionOnceEndPlusGraceAndGapIsStreamTime) {
  ASSERT_OK(Open(/*gap=*/5, /*grace=*/0, EmitStrategy::kOnWindowUpdate, /*eos=*/false,
                 /*suppress=*/true));
  Input("k1", 0);
  Input("k1", 5);
  Input("k1", 1);
  EXPECT_EQ(Run(), std::vector<std::string>{});
  Input("k2", 11);  // Stream time 11: [0, 5] ends at 11 - 0 - 5 - 1.
  Input("k1", 5);   // Late: dropped by the aggregation, so nothing reaches the buffer.
  EXPECT_EQ(Run(), std::vector<std::string>{"0:5:k1=3@5"});
  Input("k1", 30);
  EXPECT_EQ(Run(), std::vector<std::string>{"11:11:k2=1@11"});
  EXPECT_EQ(stats_->dropped_records, 1);
}

// Sessions ending together go out by key bytes, then start (Kafka's serialized windowed key),
// not by the windowed key's text.
TEST_F(SessionAggregationTest, SuppressedSessionsEndingTogetherGoOutByKeyThenStart) {
  ASSERT_OK(Open(/*gap=*/2, /*grace=*/0, EmitStrategy::kOnWindowUpdate, /*eos=*/false,
                 /*suppress=*/true));
  Input("b", 5);
  Input("ab", 9);
  Input("ab", 10);  // [9, 10]
  Input("a", 10);
  Input("b", 10);  // Its own session [10, 10]: [5, 5] is more than the gap away.
  Input("z", 20);  // Stream time 20: everything ending at or before 18 goes out.
  EXPECT_EQ(Run(), (std::vector<std::string>{"5:5:b=1@5", "10:10:a=1@10", "9:10:ab=2@10",
                                             "10:10:b=1@10"}));
}

// A session that has gone out still merges records while end >= stream time - grace - gap
// (E3's close), and its merged successor goes out in its turn.
TEST_F(SessionAggregationTest, ASuppressedSessionAtItsBoundStillMergesAndGoesOutAgain) {
  ASSERT_OK(Open(/*gap=*/5, /*grace=*/0, EmitStrategy::kOnWindowUpdate, /*eos=*/false,
                 /*suppress=*/true));
  Input("k", 0);
  Input("x", 5);  // Stream time 5: [0, 0] goes out (0 + 0 + 5 <= 5), yet is still open (0 >= 0).
  Input("k", 3);  // Merges into [0, 3].
  Input("x", 8);  // 3 + 5 <= 8.
  EXPECT_EQ(Run(), (std::vector<std::string>{"0:0:k=1@0", "0:3:k=2@3"}));
}

}  // namespace
}  // namespace statecheck
