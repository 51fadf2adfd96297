#include "statecheck/rocksdb_store.h"

#include <fiu-control.h>
#include <fiu.h>
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/options_util.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <thread>

#include "statecheck/hooks/fail_points.h"

namespace statecheck {
namespace {

class RocksDBStoreTest : public ::testing::TestWithParam<bool /*use_wal*/> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) c = (c == '/') ? '_' : c;
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("statecheck_" + std::to_string(::getpid())) / name;
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_.parent_path()); }

  std::unique_ptr<RocksDBStore> Open(IsolationLevel level,
                                     StateFormat format = StateFormat::kCurrent,
                                     Position legacy_position = {}) {
    RocksDBStoreOptions o;
    o.name = "kv";
    o.directory = dir_.string();
    o.isolation = level;
    o.format = format;
    o.legacy_position = std::move(legacy_position);
    o.use_wal = GetParam();
    o.logger = NullLogger();
    std::unique_ptr<RocksDBStore> store;
    Status s = OpenRocksDBStore(o, &store);
    if (!s.ok()) ADD_FAILURE() << s;
    return store;
  }

  static std::vector<std::string> Drain(std::unique_ptr<KeyValueIterator> it) {
    std::vector<std::string> out;
    KeyValue kv;
    while (it->HasNext()) {
      EXPECT_TRUE(it->Next(&kv).ok());
      out.push_back(kv.key + "=" + kv.value);
    }
    return out;
  }

  std::filesystem::path dir_;
};

std::optional<std::string> GetOf(ReadOnlyKeyValueStore& s, std::string_view key) {
  std::optional<std::string> v;
  EXPECT_TRUE(s.Get(key, &v).ok());
  return v;
}

TEST_P(RocksDBStoreTest, ReadCommittedIsolatesUntilCommit) {
  auto store = Open(IsolationLevel::kReadCommitted);
  auto view = store->NewQueryView();
  RecordContext ctx{"input-0", 7};
  ASSERT_TRUE(store->Put("a", "1", &ctx).ok());
  ASSERT_TRUE(store->Put("b", "2").ok());
  EXPECT_EQ(GetOf(*store, "a"), "1");          // Read-your-writes (T5).
  EXPECT_EQ(GetOf(*view, "a"), std::nullopt);  // No dirty read (T4).
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 4);
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"input-0", 7}}));
  EXPECT_TRUE(store->CommittedPosition().empty());
  ASSERT_TRUE(store->Commit({{"changelog-0", 41}}).ok());
  EXPECT_EQ(GetOf(*view, "a"), "1");
  EXPECT_EQ(view->LastReadPosition(), (Position{{"input-0", 7}}));
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  EXPECT_EQ(store->CommittedOffset("changelog-0"), 41);

  // A buffered delete hides the committed value from the writer only.
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("a", &old).ok());
  EXPECT_EQ(old, "1");
  EXPECT_EQ(GetOf(*store, "a"), std::nullopt);
  EXPECT_EQ(GetOf(*view, "a"), "1");
  ASSERT_TRUE(store->Rollback().ok());  // T9.
  EXPECT_EQ(GetOf(*store, "a"), "1");
}

TEST_P(RocksDBStoreTest, WriterIteratorsMergeBufferOverCommitted) {
  auto store = Open(IsolationLevel::kReadCommitted);
  for (const char* k : {"a", "ab", "b", "c"}) ASSERT_TRUE(store->Put(k, "old").ok());
  ASSERT_TRUE(store->Commit({}).ok());
  std::optional<std::string> unused;
  ASSERT_TRUE(store->Delete("ab", &unused).ok());
  ASSERT_TRUE(store->Put("b", "new").ok());
  ASSERT_TRUE(store->Put(std::string("\xff", 1), "ff").ok());
  ASSERT_TRUE(store->Put(std::string("\0", 1), "zero").ok());
  std::unique_ptr<KeyValueIterator> it;
  ASSERT_TRUE(store->All(&it).ok());
  ASSERT_TRUE(store->Put("a", "later").ok());  // Not seen by the open iterator.
  EXPECT_EQ(Drain(std::move(it)), (std::vector<std::string>{std::string("\0=zero", 6), "a=old",
                                                            "b=new", "c=old", "\xff=ff"}));
  ASSERT_TRUE(store->ReverseRange(std::string_view("a"), std::string_view("b"), &it).ok());
  EXPECT_EQ(Drain(std::move(it)), (std::vector<std::string>{"b=new", "a=later"}));
  ASSERT_TRUE(store->PrefixScan("a", &it).ok());
  EXPECT_EQ(Drain(std::move(it)), (std::vector<std::string>{"a=later"}));
  ASSERT_TRUE(store->Range(std::string_view("c"), std::string_view("a"), &it).ok());
  EXPECT_FALSE(it->HasNext());
  KeyValue kv;
  EXPECT_EQ(it->Next(&kv).code(), Status::Code::kOutOfRange);
}

TEST_P(RocksDBStoreTest, OffsetsAndDataSurviveReopen) {
  {
    auto store = Open(IsolationLevel::kReadCommitted);
    EXPECT_TRUE(store->was_closed_cleanly());
    RecordContext ctx{"in", 3};
    ASSERT_TRUE(store->Put("k", "v", &ctx).ok());
    ASSERT_TRUE(store->Commit({{"cl-0", 10}, {"cl-1", 20}}).ok());
    ASSERT_TRUE(store->Put("lost", "x").ok());  // Never committed.
    ASSERT_TRUE(store->Commit({{"cl-1", std::nullopt}}).ok() == true);
    ASSERT_TRUE(store->Rollback().ok());
    store->Close();
  }
  auto store = Open(IsolationLevel::kReadCommitted);
  EXPECT_TRUE(store->was_closed_cleanly());
  EXPECT_EQ(GetOf(*store, "k"), "v");
  EXPECT_EQ(GetOf(*store, "lost"), "x");  // The second commit carried it.
  EXPECT_EQ(store->CommittedOffset("cl-0"), 10);
  EXPECT_EQ(store->CommittedOffset("cl-1"), std::nullopt);
  EXPECT_EQ(store->CommittedPosition(), (Position{{"in", 3}}));
  ASSERT_TRUE(store->Commit({}).ok());  // An empty map clears every offset.
  EXPECT_EQ(store->CommittedOffset("cl-0"), std::nullopt);
}

// F6: zeroed bytes that make a MANIFEST record header read as length 0, type 0 — which RocksDB
// 7.8 skips as padding, dropping the edits after it and opening an older version — fail the
// open with Corruption naming the file and byte offset, read-only opens too; put back, the store
// opens with everything it committed.
TEST_P(RocksDBStoreTest, AZeroedManifestRecordIsCorruptionNotAnOlderStore) {
  {
    auto store = Open(IsolationLevel::kReadCommitted);
    ASSERT_TRUE(store->Put("k", "v").ok());
    ASSERT_TRUE(store->Commit({{"cl-0", 10}}).ok());
    store->Close();
  }
  std::string current;
  {
    std::ifstream f(dir_ / "CURRENT");
    std::getline(f, current);
  }
  const std::filesystem::path manifest = dir_ / current;
  std::string bytes;
  {
    std::ifstream f(manifest, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  // The second record's header: after the first (7 bytes of header, then its length).
  const size_t second = 7 + (static_cast<uint8_t>(bytes[4]) | static_cast<uint8_t>(bytes[5]) << 8);
  ASSERT_LT(second + 7, bytes.size());
  const std::string saved = bytes.substr(second + 4, 3);
  auto write = [&](const std::string& three) {
    std::fstream f(manifest, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(second + 4));
    f.write(three.data(), 3);
  };
  write(std::string(3, '\0'));
  for (const bool read_only : {false, true}) {
    RocksDBStoreOptions o;
    o.name = "kv";
    o.directory = dir_.string();
    o.use_wal = GetParam();
    o.read_only = read_only;
    o.logger = NullLogger();
    std::unique_ptr<RocksDBStore> store;
    const Status s = OpenRocksDBStore(o, &store);
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << s;
    EXPECT_NE(s.message().find(manifest.string() + " at byte offset " + std::to_string(second)),
              std::string::npos)
        << s;
  }
  write(saved);
  auto store = Open(IsolationLevel::kReadCommitted);
  EXPECT_EQ(GetOf(*store, "k"), "v");
  EXPECT_EQ(store->CommittedOffset("cl-0"), 10);
}

TEST_P(RocksDBStoreTest, UncleanShutdownLeavesTheMarker) {
  {
    auto store = Open(IsolationLevel::kReadUncommitted);
    store->Close();
  }
  {
    // What a crash leaves: the marker still set.
    rocksdb::DB* raw = nullptr;
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::Options o;
    ASSERT_TRUE(
        rocksdb::DB::Open(o, dir_.string(),
                          {{rocksdb::kDefaultColumnFamilyName, {}}, {"statecheck.meta", {}}},
                          &handles, &raw)
            .ok());
    ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), handles[1], "status", "open").ok());
    for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
    delete raw;
  }
  auto store = Open(IsolationLevel::kReadUncommitted);
  EXPECT_FALSE(store->was_closed_cleanly());
}

// A crash keeps whole commits and nothing else (T7, T9), and leaves the marker (T7): with the
// WAL the last commit; without it the last flushed one (C7) — here the one a clean close made
// durable, the commit after it being in the memtables alone.
TEST_P(RocksDBStoreTest, AbandonKeepsCommitsOnly) {
  {
    auto store = Open(IsolationLevel::kReadCommitted);
    RecordContext ctx{"in", 4};
    ASSERT_TRUE(store->Put("kept", "0", &ctx).ok());
    ASSERT_TRUE(store->Commit({{"cl-0", 4}}).ok());
    store->Close();
  }
  {
    auto store = Open(IsolationLevel::kReadCommitted);
    RecordContext ctx{"in", 5};
    ASSERT_TRUE(store->Put("kept", "1", &ctx).ok());
    ASSERT_TRUE(store->Commit({{"cl-0", 5}}).ok());
    RecordContext later{"in", 6};
    ASSERT_TRUE(store->Put("lost", "2", &later).ok());
    ASSERT_TRUE(store->Put("kept", "overwritten", &later).ok());
    store->Abandon();
    EXPECT_FALSE(store->is_open());
    EXPECT_EQ(store->UncommittedPosition(), (Position{{"in", 5}}));
  }
  const bool wal = GetParam();
  auto store = Open(IsolationLevel::kReadCommitted);
  EXPECT_FALSE(store->was_closed_cleanly());
  EXPECT_EQ(GetOf(*store, "kept"), wal ? "1" : "0");
  EXPECT_EQ(GetOf(*store, "lost"), std::nullopt);
  EXPECT_EQ(store->CommittedOffset("cl-0"), wal ? 5 : 4);
  EXPECT_EQ(store->CommittedPosition(), (Position{{"in", wal ? 5 : 4}}));
}

TEST_P(RocksDBStoreTest, ReadUncommittedWritesThrough) {
  auto store = Open(IsolationLevel::kReadUncommitted);
  auto view = store->NewQueryView();
  ASSERT_TRUE(store->Put("a", "1").ok());
  EXPECT_EQ(GetOf(*view, "a"), "1");  // T3.
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  EXPECT_EQ(store->Rollback().code(), Status::Code::kFailedPrecondition);
  std::optional<std::string> existing;
  ASSERT_TRUE(store->PutIfAbsent("a", "2", &existing).ok());
  EXPECT_EQ(existing, "1");
  EXPECT_EQ(GetOf(*store, "a"), "1");
  ASSERT_TRUE(store->PutAll({{"b", "2"}, {"a", std::nullopt}}).ok());
  std::unique_ptr<KeyValueIterator> it;
  ASSERT_TRUE(view->All(&it).ok());
  EXPECT_EQ(Drain(std::move(it)), (std::vector<std::string>{"b=2"}));
}

TEST_P(RocksDBStoreTest, ClosedStoreAndViews) {
  auto store = Open(IsolationLevel::kReadCommitted);
  auto view = store->NewQueryView();
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Commit({}).ok());
  std::unique_ptr<KeyValueIterator> it;
  ASSERT_TRUE(view->All(&it).ok());
  store->Close();
  store->Close();
  EXPECT_EQ(store->Put("a", "1").code(), Status::Code::kFailedPrecondition);
  std::optional<std::string> v;
  EXPECT_EQ(view->Get("a", &v).message(), "Store kv is currently closed.");
  EXPECT_FALSE(it->HasNext());  // Closing the store closed its iterators.
  KeyValue kv;
  EXPECT_EQ(it->Next(&kv).code(), Status::Code::kOutOfRange);
}

// A reader never sees half a commit: every commit writes the same value to two keys.
TEST_P(RocksDBStoreTest, ReadersSeeWholeCommits) {
  auto store = Open(IsolationLevel::kReadCommitted);
  auto view = store->NewQueryView();
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, reads{0};
  std::thread reader([&] {
    while (!done) {
      std::unique_ptr<KeyValueIterator> it;
      if (!view->All(&it).ok()) continue;
      std::vector<std::string> values;
      KeyValue kv;
      while (it->HasNext() && it->Next(&kv).ok()) values.push_back(kv.value);
      if (values.size() == 2 && values[0] != values[1]) ++torn;
      if (values.size() == 1) ++torn;
      ++reads;
    }
  });
  // At least 50 commits, and on until the reader has read 50 times (a commit that does not
  // flush takes microseconds: 50 of them may be over before the reader starts).
  for (int i = 0; i < 50 || (reads < 50 && i < 1000000); ++i) {
    ASSERT_TRUE(store->Put("x", std::to_string(i)).ok());
    ASSERT_TRUE(store->Put("y", std::to_string(i)).ok());
    ASSERT_TRUE(store->Commit({}).ok());
  }
  done = true;
  reader.join();
  EXPECT_EQ(torn, 0);
  EXPECT_GT(reads, 0);
}

// SPEC U ---------------------------------------------------------------------------------------

TEST_P(RocksDBStoreTest, ALegacyStoreKeepsNoOffsetsAndWritesDirectly) {
  auto store = Open(IsolationLevel::kReadCommitted, StateFormat::kLegacy, {{"input", 4}});
  EXPECT_EQ(store->found_format(), std::nullopt);
  EXPECT_EQ(store->isolation(), IsolationLevel::kReadUncommitted);  // No buffer in legacy.
  EXPECT_EQ(store->CommittedPosition(), (Position{{"input", 4}}));
  RecordContext ctx{"input", 5};
  ASSERT_TRUE(store->Put("a", "1", &ctx).ok());
  EXPECT_EQ(GetOf(*store->NewQueryView(), "a"), "1");
  const Status refused = store->Commit({{"changelog", 0}});
  EXPECT_EQ(refused.code(), Status::Code::kInvalidArgument) << refused;
  ASSERT_TRUE(store->Commit({}).ok());
  EXPECT_EQ(store->CommittedPosition(), (Position{{"input", 5}}));
  store->Close();
  store = Open(IsolationLevel::kReadUncommitted, StateFormat::kLegacy);
  EXPECT_EQ(store->found_format(), StateFormat::kLegacy);
  EXPECT_EQ(GetOf(*store, "a"), "1");
  EXPECT_TRUE(store->CommittedPosition().empty());  // Its task keeps it in a .position file.
}

TEST_P(RocksDBStoreTest, ALegacyStoreOpenedCurrentUpgradesAtomicallyOnImport) {
  auto store = Open(IsolationLevel::kReadUncommitted, StateFormat::kLegacy);
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Commit({}).ok());
  store->Close();
  // Opened current, abandoned before the import: still legacy on disk (U2).
  store = Open(IsolationLevel::kReadCommitted);
  EXPECT_EQ(store->found_format(), StateFormat::kLegacy);
  store->Abandon();
  store = Open(IsolationLevel::kReadCommitted);
  EXPECT_EQ(store->found_format(), StateFormat::kLegacy);
  ASSERT_TRUE(store->ImportLegacy({{"changelog", 9}}, {{"input", 3}}).ok());
  EXPECT_EQ(store->ImportLegacy({}, {}).code(), Status::Code::kFailedPrecondition);
  store->Abandon();  // A crash right after: the import is durable.
  store = Open(IsolationLevel::kReadCommitted);
  EXPECT_EQ(store->found_format(), StateFormat::kCurrent);
  EXPECT_EQ(store->CommittedOffset("changelog"), 9);
  EXPECT_EQ(store->CommittedPosition(), (Position{{"input", 3}}));
  EXPECT_EQ(GetOf(*store, "a"), "1");
}

TEST_P(RocksDBStoreTest, ACurrentStoreOpenedLegacyRefusesEverythingUntilWiped) {
  auto store = Open(IsolationLevel::kReadCommitted);
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Commit({{"changelog", 0}}).ok());
  store->Close();
  store = Open(IsolationLevel::kReadUncommitted, StateFormat::kLegacy);
  EXPECT_EQ(store->found_format(), StateFormat::kCurrent);
  std::optional<std::string> v;
  const Status refused = store->Get("a", &v);
  EXPECT_EQ(refused.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(refused.message().find("wipe it"), std::string::npos) << refused;
  store->Close();
  // It wrote nothing: the current-format store is intact.
  store = Open(IsolationLevel::kReadCommitted);
  EXPECT_EQ(store->found_format(), StateFormat::kCurrent);
  EXPECT_EQ(store->CommittedOffset("changelog"), 0);
}

// A start after a crash finds its open-status marker and its format mark on disk already: the
// open writes nothing (without the WAL it would flush a table file), the store still says it was
// not closed cleanly, and a second crash leaves the marker set. After a clean close the open
// writes the marker again.
TEST_P(RocksDBStoreTest, AnOpenThatFindsItsMarkerAlreadySetWritesNothing) {
  const bool use_wal = GetParam();  // With the WAL, RocksDB's recovery flushes on its own.
  auto tables = [&] {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      if (e.path().extension() == ".sst") out.insert(e.path().filename().string());
    }
    return out;
  };
  {
    auto store = Open(IsolationLevel::kReadCommitted);
    ASSERT_TRUE(store->Put("a", "1").ok());
    ASSERT_TRUE(store->Commit({{"cl", 4}}).ok());
    store->Close();  // Durable (C7).
    store = Open(IsolationLevel::kReadCommitted);
    store->Abandon();  // A crash: the marker stays set.
  }
  for (int crash = 0; crash < 2; ++crash) {
    const std::set<std::string> before = tables();
    auto store = Open(IsolationLevel::kReadCommitted);
    EXPECT_FALSE(store->was_closed_cleanly()) << crash;
    if (!use_wal) {
      EXPECT_EQ(tables(), before) << crash;
    }
    EXPECT_EQ(GetOf(*store, "a"), "1");
    EXPECT_EQ(store->CommittedOffset("cl"), 4);
    store->Abandon();
  }
  Open(IsolationLevel::kReadCommitted)->Close();  // Clears the marker.
  const std::set<std::string> before = tables();
  auto store = Open(IsolationLevel::kReadCommitted);
  EXPECT_TRUE(store->was_closed_cleanly());
  if (!use_wal) {
    EXPECT_NE(tables(), before);  // The marker, flushed.
  }
  store->Abandon();
  EXPECT_FALSE(Open(IsolationLevel::kReadCommitted)->was_closed_cleanly());
}

// A read-only open sees the store as a crash left it (its commits, its open-status marker set)
// and changes nothing on disk: no file is added, removed or grows, writes are refused with a
// message that says what to do, and Close clears no marker.
TEST_P(RocksDBStoreTest, AReadOnlyOpenSeesTheStoreAsItIsAndWritesNothing) {
  {
    auto store = Open(IsolationLevel::kReadCommitted);
    ASSERT_TRUE(store->Put("a", "1").ok());
    ASSERT_TRUE(store->Commit({{"cl", 4}}).ok());
    store->Close();  // Durable (C7).
    store = Open(IsolationLevel::kReadCommitted);
    ASSERT_TRUE(store->Put("b", "2").ok());  // Never committed.
    store->Abandon();                        // A crash: the marker stays set.
  }
  auto files = [&] {
    std::map<std::string, uintmax_t> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      out[e.path().filename().string()] = e.file_size();
    }
    return out;
  };
  const std::map<std::string, uintmax_t> before = files();
  for (int round = 0; round < 2; ++round) {
    RocksDBStoreOptions o;
    o.name = "kv";
    o.directory = dir_.string();
    o.use_wal = GetParam();
    o.logger = NullLogger();
    o.read_only = true;
    std::unique_ptr<RocksDBStore> store;
    ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
    EXPECT_FALSE(store->was_closed_cleanly());
    EXPECT_EQ(store->found_format(), StateFormat::kCurrent);
    EXPECT_EQ(store->CommittedOffset("cl"), 4);
    EXPECT_EQ(GetOf(*store, "a"), "1");
    EXPECT_EQ(GetOf(*store, "b"), std::nullopt);
    EXPECT_EQ(GetOf(*store->NewQueryView(), "a"), "1");
    std::optional<std::string> old;
    for (const Status& s : {store->Put("c", "3"), store->Delete("a", &old), store->Commit({}),
                            store->PutIfAbsent("d", "4", &old), store->Rollback()}) {
      EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s;
      EXPECT_NE(s.message().find("open it without read_only"), std::string::npos) << s;
    }
    store->Close();  // Clears no marker: the second round sees it still set.
  }
  EXPECT_EQ(files(), before);

  // A database without the metadata family (something else wrote it): read-only opens it with
  // no offsets, as a legacy store (data without a format mark), and creates nothing.
  const std::filesystem::path plain = dir_ / "plain";
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, plain.string(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "k", "v").ok());
    ASSERT_TRUE(db->Close().ok());
  }
  RocksDBStoreOptions unmarked;
  unmarked.name = "kv";
  unmarked.directory = plain.string();
  unmarked.logger = NullLogger();
  unmarked.read_only = true;
  std::unique_ptr<RocksDBStore> other;
  ASSERT_TRUE(OpenRocksDBStore(unmarked, &other).ok());
  EXPECT_EQ(other->found_format(), StateFormat::kLegacy);
  EXPECT_EQ(GetOf(*other, "k"), "v");
  EXPECT_EQ(other->CommittedOffset("cl"), std::nullopt);
  other->Close();
  std::vector<std::string> families;
  ASSERT_TRUE(
      rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), plain.string(), &families).ok());
  EXPECT_EQ(families, std::vector<std::string>{"default"});

  RocksDBStoreOptions missing;
  missing.name = "kv";
  missing.directory = (dir_ / "nothing-here").string();
  missing.read_only = true;
  std::unique_ptr<RocksDBStore> store;
  const Status s = OpenRocksDBStore(missing, &store);
  EXPECT_EQ(s.code(), Status::Code::kNotFound) << s;
  EXPECT_FALSE(std::filesystem::exists(missing.directory));
}

INSTANTIATE_TEST_SUITE_P(Wal, RocksDBStoreTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "wal" : "no_wal"; });

}  // namespace
}  // namespace statecheck

namespace statecheck {
namespace {

// Fails every read of a table file (*.sst) while `fail` is set.
class FailingReadEnv : public rocksdb::EnvWrapper {
 public:
  FailingReadEnv() : EnvWrapper(rocksdb::Env::Default()) {}
  rocksdb::Status NewRandomAccessFile(const std::string& fname,
                                      std::unique_ptr<rocksdb::RandomAccessFile>* result,
                                      const rocksdb::EnvOptions& options) override {
    rocksdb::Status s = target()->NewRandomAccessFile(fname, result, options);
    if (s.ok() && fname.size() > 4 && fname.compare(fname.size() - 4, 4, ".sst") == 0) {
      *result = std::make_unique<File>(std::move(*result), &fail);
    }
    return s;
  }
  std::atomic<bool> fail{false};

 private:
  class File : public rocksdb::RandomAccessFile {
   public:
    File(std::unique_ptr<rocksdb::RandomAccessFile> target, std::atomic<bool>* fail)
        : target_(std::move(target)), fail_(fail) {}
    rocksdb::Status Read(uint64_t offset, size_t n, rocksdb::Slice* result,
                         char* scratch) const override {
      if (*fail_) return rocksdb::Status::IOError("injected read failure");
      return target_->Read(offset, n, result, scratch);
    }

   private:
    std::unique_ptr<rocksdb::RandomAccessFile> target_;
    std::atomic<bool>* fail_;
  };
};

// F1: a read that fails surfaces as an error from the iterator, never as a short result.
TEST(RocksDBStoreReadErrors, AnIteratorThatFailsToReadSaysSo) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("statecheck_read_errors_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  FailingReadEnv env;
  RocksDBStoreOptions o;
  o.name = "kv";
  o.directory = dir.string();
  o.isolation = IsolationLevel::kReadCommitted;
  o.env = &env;
  o.logger = NullLogger();
  {
    std::unique_ptr<RocksDBStore> store;
    ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(store->Put("key" + std::to_string(i), std::string(100, 'v')).ok());
    }
    ASSERT_TRUE(store->Commit({}).ok());  // Flushed to a table file.
    store->Close();
  }
  std::unique_ptr<RocksDBStore> store;  // A cold block cache: iterating reads the file.
  ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
  for (bool view : {false, true}) {
    std::unique_ptr<KeyValueIterator> it;
    env.fail = false;
    ASSERT_TRUE((view ? store->NewQueryView()->All(&it) : store->All(&it)).ok());
    env.fail = true;
    int records = 0;
    Status error;
    KeyValue kv;
    while (it->HasNext()) {
      const Status s = it->Next(&kv);
      if (!s.ok()) {
        error = s;
        break;
      }
      ++records;
    }
    EXPECT_EQ(error.code(), Status::Code::kIOError) << "read " << records << " records";
    EXPECT_NE(error.message().find("injected read failure"), std::string::npos) << error;
    EXPECT_LT(records, 2000);
    env.fail = false;
  }
  store.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace statecheck

namespace statecheck {
namespace {

// F8: a READ_UNCOMMITTED store's direct write that fails applies nothing — no record, no position
// — and reports the error; the store is not broken by it: the next write and reads work.
TEST(RocksDBStoreFailedWrite, AFailedDirectWriteAppliesNothing) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("statecheck_failed_write_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  RocksDBStoreOptions o;
  o.name = "kv";
  o.directory = dir.string();
  o.isolation = IsolationLevel::kReadUncommitted;
  o.logger = NullLogger();
  std::unique_ptr<RocksDBStore> store;
  ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
  RecordContext first{"in", 1}, second{"in", 2};
  ASSERT_TRUE(store->Put("a", "1", &first).ok());
  fiu_init(0);
  const std::string point(kFailStoreWrite);
  for (const bool del : {false, true}) {
    ASSERT_EQ(fiu_enable(point.c_str(), 1, nullptr, FIU_ONETIME), 0);
    const Status failed =
        del ? store->Put("a", std::nullopt, &second) : store->Put("b", "2", &second);
    fiu_disable(point.c_str());
    EXPECT_EQ(failed.code(), Status::Code::kIOError) << failed;
    EXPECT_EQ(GetOf(*store, "a"), "1");
    EXPECT_EQ(GetOf(*store, "b"), std::nullopt);
    EXPECT_EQ(store->UncommittedPosition(), (Position{{"in", 1}}));
  }
  ASSERT_TRUE(store->Put("b", "2", &second).ok());
  EXPECT_EQ(GetOf(*store->NewQueryView(), "b"), "2");
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in", 2}}));
  store.reset();
  std::filesystem::remove_all(dir);
}

// C6: a commit whose outcome is unknown (its write failed) leaves the store refusing every call
// until it is reopened; the reopened store holds its last commit, or this one — never a part.
TEST(RocksDBStoreFailedCommit, RefusesCallsUntilReopened) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("statecheck_failed_commit_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  RocksDBStoreOptions o;
  o.name = "kv";
  o.directory = dir.string();
  o.isolation = IsolationLevel::kReadCommitted;
  o.logger = NullLogger();
  std::unique_ptr<RocksDBStore> store;
  ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Commit({{"cl", 1}}).ok());
  store->Close();  // Durable (C7): the restart below finds it.
  ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
  auto view = store->NewQueryView();
  ASSERT_TRUE(store->Put("a", "2").ok());
  ASSERT_TRUE(store->Put("b", "2").ok());
  fiu_init(0);
  ASSERT_EQ(fiu_enable(std::string(kFailStoreCommitWrite).c_str(), 1, nullptr, FIU_ONETIME), 0);
  const Status failed = store->Commit({{"cl", 3}});
  fiu_disable(std::string(kFailStoreCommitWrite).c_str());
  EXPECT_EQ(failed.code(), Status::Code::kIOError) << failed;
  std::optional<std::string> v;
  EXPECT_EQ(store->Get("a", &v).code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(view->Get("a", &v).code(), Status::Code::kFailedPrecondition);  // Readers too.
  EXPECT_EQ(store->Put("c", "3").code(), Status::Code::kFailedPrecondition);
  const Status again = store->Commit({{"cl", 3}});
  EXPECT_EQ(again.code(), Status::Code::kFailedPrecondition);
  EXPECT_NE(again.message().find("abandon the store and open it again"), std::string::npos);
  store->Abandon();
  ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
  std::optional<std::string> a, b;
  ASSERT_TRUE(store->Get("a", &a).ok());
  ASSERT_TRUE(store->Get("b", &b).ok());
  const bool old_commit = a == "1" && !b && store->CommittedOffset("cl") == 1;
  const bool new_commit = a == "2" && b == "2" && store->CommittedOffset("cl") == 3;
  EXPECT_TRUE(old_commit || new_commit)
      << "a=" << a.value_or("none") << " b=" << b.value_or("none");
  store.reset();
  std::filesystem::remove_all(dir);
}

// SPEC C7: a commit is applied, not flushed; the store is flushed past max_unflushed_bytes (in
// the background), at a clean close and at an upgrade's import; after a crash it holds the last
// flushed commit. Without the WAL throughout.
class RocksDBStoreDurability : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("statecheck_durability_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    options_.name = "kv";
    options_.directory = dir_.string();
    options_.isolation = IsolationLevel::kReadCommitted;
    options_.logger = NullLogger();
    options_.max_unflushed_bytes = -1;
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_.parent_path());
  }
  void Open() {
    store_.reset();
    const Status s = OpenRocksDBStore(options_, &store_);
    ASSERT_TRUE(s.ok()) << s;
  }
  // Puts `key`=`value` and commits it with changelog offset `offset`.
  void Commit(const std::string& key, const std::string& value, int64_t offset) {
    ASSERT_TRUE(store_->Put(key, value).ok());
    const Status s = store_->Commit({{"cl", offset}});
    ASSERT_TRUE(s.ok()) << s;
  }
  // Waits (up to 20 s) for the store's durable offset to reach `offset`.
  bool DurableReaches(int64_t offset) {
    for (int i = 0; i < 2000; ++i) {
      if (store_->DurableOffset("cl") == offset) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  void CrashAndReopen() {
    store_->Abandon();
    Open();
    EXPECT_FALSE(store_->was_closed_cleanly());
  }

  std::filesystem::path dir_;
  RocksDBStoreOptions options_;
  std::unique_ptr<RocksDBStore> store_;
};

TEST_F(RocksDBStoreDurability, ACrashGoesBackToTheLastFlushedCommit) {
  Open();
  Commit("a", "1", 1);
  store_->Close();
  Open();
  EXPECT_EQ(store_->DurableOffset("cl"), 1);  // What the open found is durable.
  Commit("a", "2", 2);
  Commit("b", "3", 3);
  // Applied whole (T4), not durable (C7).
  EXPECT_EQ(store_->CommittedOffset("cl"), 3);
  EXPECT_EQ(store_->DurableOffset("cl"), 1);
  EXPECT_EQ(GetOf(*store_->NewQueryView(), "b"), "3");
  CrashAndReopen();
  EXPECT_EQ(store_->CommittedOffset("cl"), 1);
  EXPECT_EQ(GetOf(*store_, "a"), "1");
  EXPECT_EQ(GetOf(*store_, "b"), std::nullopt);
}

TEST_F(RocksDBStoreDurability, PastTheBoundACommitStartsAFlush) {
  options_.max_unflushed_bytes = 1000;
  Open();
  Commit("small", "1", 1);  // Under the bound: nothing flushed.
  EXPECT_EQ(store_->DurableOffset("cl"), std::nullopt);
  Commit("big", std::string(2000, 'x'), 2);  // Past it: a flush starts, not waited for.
  ASSERT_TRUE(DurableReaches(2)) << "the background flush never made commit 2 durable";
  Commit("after", "3", 3);  // In the memtable the flush switched to.
  CrashAndReopen();
  EXPECT_EQ(store_->CommittedOffset("cl"), 2);
  EXPECT_EQ(GetOf(*store_, "big"), std::string(2000, 'x'));
  EXPECT_EQ(GetOf(*store_, "after"), std::nullopt);
}

TEST_F(RocksDBStoreDurability, AFlushThatFailsInTheCommitFailsIt) {
  options_.max_unflushed_bytes = 1000;
  Open();
  auto view = store_->NewQueryView();
  fiu_init(0);
  const std::string point(kFailStoreBackgroundFlush);
  ASSERT_EQ(fiu_enable(point.c_str(), 1, nullptr, FIU_ONETIME), 0);
  ASSERT_TRUE(store_->Put("big", std::string(2000, 'x')).ok());
  const Status committed = store_->Commit({{"cl", 1}});
  fiu_disable(point.c_str());
  // The flush failed in the commit's call: the commit says so (applied, durable or not: C6).
  EXPECT_EQ(committed.code(), Status::Code::kIOError) << committed;
  std::optional<std::string> v;
  const Status next = store_->Get("big", &v);
  EXPECT_EQ(next.code(), Status::Code::kFailedPrecondition) << next;
  EXPECT_NE(next.message().find("a flush a commit started failed"), std::string::npos) << next;
  EXPECT_NE(next.message().find("abandon the store and open it again"), std::string::npos);
  EXPECT_EQ(store_->Put("c", "1").code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(view->Get("big", &v).code(), Status::Code::kFailedPrecondition);  // Readers too.
  CrashAndReopen();
  EXPECT_EQ(store_->CommittedOffset("cl"), std::nullopt);  // Back to the last flush: none.
  ASSERT_TRUE(store_->Get("big", &v).ok());                // And usable again.
  EXPECT_EQ(v, std::nullopt);
}

// A flush that fails in the background (here: its table file cannot be created) is reported by
// the store's next call, after the commit that started it returned OK.
class FailingSstCreateEnv : public rocksdb::EnvWrapper {
 public:
  FailingSstCreateEnv() : EnvWrapper(rocksdb::Env::Default()) {}
  rocksdb::Status NewWritableFile(const std::string& fname,
                                  std::unique_ptr<rocksdb::WritableFile>* result,
                                  const rocksdb::EnvOptions& options) override {
    if (fail && fname.size() > 4 && fname.compare(fname.size() - 4, 4, ".sst") == 0) {
      return rocksdb::Status::IOError("injected: cannot create " + fname);
    }
    return target()->NewWritableFile(fname, result, options);
  }
  std::atomic<bool> fail{false};
};

TEST_F(RocksDBStoreDurability, AFailureInTheBackgroundIsReportedByTheNextCall) {
  FailingSstCreateEnv env;
  options_.env = &env;
  options_.max_unflushed_bytes = 1000;
  Open();
  Commit("a", "1", 1);
  env.fail = true;
  Commit("big", std::string(2000, 'x'), 2);  // Starts the flush that fails; returns OK.
  std::optional<std::string> v;
  Status next;
  for (int i = 0; i < 2000 && next.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    next = store_->Get("a", &v);
  }
  EXPECT_EQ(next.code(), Status::Code::kFailedPrecondition) << next;
  EXPECT_NE(next.message().find("a background flush failed"), std::string::npos) << next;
  EXPECT_NE(next.message().find("abandon the store and open it again"), std::string::npos);
  env.fail = false;
  CrashAndReopen();
  EXPECT_EQ(store_->CommittedOffset("cl"), std::nullopt);  // Nothing was ever flushed.
  store_.reset();
}

TEST_F(RocksDBStoreDurability, ACleanCloseAndAnUpgradeAreDurableAtOnce) {
  Open();
  Commit("a", "1", 1);
  store_->Close();
  Open();
  CrashAndReopen();  // Nothing since the clean close: it is all there.
  EXPECT_EQ(store_->CommittedOffset("cl"), 1);
  EXPECT_EQ(GetOf(*store_, "a"), "1");
  store_.reset();
  std::filesystem::remove_all(dir_);
  // U1: a legacy store opened current imports its offsets in one durable commit.
  options_.format = StateFormat::kLegacy;
  Open();
  ASSERT_TRUE(store_->Put("legacy", "1").ok());
  store_->Close();
  options_.format = StateFormat::kCurrent;
  Open();
  ASSERT_EQ(store_->found_format(), StateFormat::kLegacy);
  ASSERT_TRUE(store_->ImportLegacy({{"cl", 7}}, Position{{"in", 7}}).ok());
  EXPECT_EQ(store_->DurableOffset("cl"), 7);
  CrashAndReopen();
  EXPECT_EQ(store_->found_format(), StateFormat::kCurrent);
  EXPECT_EQ(store_->CommittedOffset("cl"), 7);
  EXPECT_EQ(store_->CommittedPosition(), (Position{{"in", 7}}));
}

// The RocksDB config setter (Kafka Streams' rocksdb.config.setter): called with the store's
// name, what it sets is what RocksDB opens with, and a change to a setting the store's rules
// rest on fails the open with InvalidArgument naming it, before anything is created.
TEST(RocksDBStoreConfigSetter, TunesRocksDBAndRefusesTheSettingsTheRulesRestOn) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("statecheck_setter_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  RocksDBStoreOptions o;
  o.name = "counts";
  o.directory = (dir / "counts").string();
  o.logger = NullLogger();
  std::vector<std::string> called;
  o.config_setter = [&](const std::string& store, rocksdb::Options* options) {
    called.push_back(store);
    options->max_file_opening_threads = 1;
    options->max_open_files = 321;
  };
  std::unique_ptr<RocksDBStore> store;
  ASSERT_TRUE(OpenRocksDBStore(o, &store).ok());
  EXPECT_EQ(called, std::vector<std::string>{"counts"});
  store.reset();
  rocksdb::DBOptions persisted;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  rocksdb::ConfigOptions config;
  ASSERT_TRUE(rocksdb::LoadLatestOptions(config, o.directory, &persisted, &families).ok());
  EXPECT_EQ(persisted.max_file_opening_threads, 1);
  EXPECT_EQ(persisted.max_open_files, 321);
  // The engine's own default: Kafka Streams' info log level.
  EXPECT_EQ(persisted.info_log_level, rocksdb::InfoLogLevel::ERROR_LEVEL);

  const std::vector<std::pair<std::string, std::function<void(rocksdb::Options*)>>> breaking = {
      {"atomic_flush", [](rocksdb::Options* p) { p->atomic_flush = false; }},
      {"avoid_flush_during_shutdown",
       [](rocksdb::Options* p) { p->avoid_flush_during_shutdown = false; }},
      {"create_if_missing", [](rocksdb::Options* p) { p->create_if_missing = false; }},
      {"env", [](rocksdb::Options* p) { p->env = nullptr; }},
      {"db_paths", [](rocksdb::Options* p) { p->db_paths.emplace_back("/elsewhere", 1); }},
      {"disable_auto_compactions", [](rocksdb::Options* p) { p->disable_auto_compactions = true; }},
  };
  for (const auto& [setting, change] : breaking) {
    o.directory = (dir / setting).string();
    o.config_setter = [&change = change](const std::string&, rocksdb::Options* options) {
      change(options);
    };
    const Status s = OpenRocksDBStore(o, &store);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << setting << ": " << s;
    EXPECT_NE(s.message().find(setting), std::string::npos) << s;
    EXPECT_NE(s.message().find("store counts"), std::string::npos) << s;
    EXPECT_FALSE(std::filesystem::exists(o.directory)) << setting << ": created before refusing";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace statecheck
