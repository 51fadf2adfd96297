// F1 for reads: a store read that meets an I/O error reports it — never a silently short or
// wrong answer. A store whose data spans several table files in several levels is read with
// each of its file reads failing in turn (the fault file system's read point at its n-th
// reach); every read must fail with the injected error or return exactly what a read without
// faults returns. RocksDB 7.8 ends a scan early with OK when the read of the next table file of
// a level fails while range deletions are considered (facebook/rocksdb#11782): the store reads
// without them (it never writes one), and this test is what says so.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faults/fail_points.h"
#include "faults/fault_fs.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/store_schema.h"
#include "testing/test_util.h"

namespace statecheck::faults {
namespace {

using State = std::map<std::string, std::string>;

// Every record `reader` returns through `open` (All, ReverseAll, Range ...), or the error.
Status ReadAll(const std::function<Status(std::unique_ptr<KeyValueIterator>*)>& open, State* out) {
  out->clear();
  std::unique_ptr<KeyValueIterator> it;
  STATECHECK_RETURN_IF_ERROR(open(&it));
  KeyValue kv;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
    (*out)[kv.key] = kv.value;
  }
  return Status::Ok();
}

class StoreReadErrorTest : public ::testing::TestWithParam<IsolationLevel> {
 protected:
  void SetUp() override {
    env_ = NewFaultEnv(BaseFileSystem::kInMemory);
    options_.name = "kv";
    options_.directory = "/state/kv";
    options_.env = env_.env.get();
    options_.isolation = GetParam();
    options_.logger = NullLogger();
    options_.disable_auto_compactions = true;  // The layout stays as CompactInto made it.
    options_.max_unflushed_bytes = 0;          // A table file per commit (flushed in the commit).
    ASSERT_OK(OpenRocksDBStore(options_, &store_));
    for (int commit = 0; commit < 24; ++commit) {
      for (int k = 0; k < 8; ++k) {
        const std::string key = "key" + std::to_string((commit * 5 + k * 7) % 64);
        const std::string value = "value" + std::to_string(commit) + std::string(20, 'x');
        ASSERT_OK(store_->Put(key, value));
        expected_[key] = value;
      }
      ASSERT_OK(store_->Commit({{"changelog", commit}}));
    }
    store_->Close();
    ASSERT_NO_FATAL_FAILURE(CompactIntoSmallFiles());
    // Then a few more commits on top: files in level 0 over the compacted level.
    ASSERT_OK(OpenRocksDBStore(options_, &store_));
    for (int commit = 24; commit < 28; ++commit) {
      const std::string key = "key" + std::to_string(commit % 64);
      ASSERT_OK(store_->Put(key, "late" + std::to_string(commit)));
      expected_[key] = "late" + std::to_string(commit);
      ASSERT_OK(store_->Commit({{"changelog", commit}}));
    }
    store_->Close();
  }

  // Compacts the store's data (RocksDB directly, the store closed) into table files of about
  // 256 bytes in level 1: a scan then moves from file to file inside one level.
  void CompactIntoSmallFiles() {
    rocksdb::Options o;
    o.env = env_.env.get();
    o.atomic_flush = true;
    o.target_file_size_base = 256;
    o.disable_auto_compactions = true;
    rocksdb::BlockBasedTableOptions table;
    table.block_size = 64;  // Files are cut at block boundaries: small blocks, small files.
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(o)},
        {kStoreMetaFamily, rocksdb::ColumnFamilyOptions(o)}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, options_.directory, families, &handles, &db).ok());
    rocksdb::CompactRangeOptions compact;
    compact.change_level = true;
    compact.target_level = 1;
    EXPECT_TRUE(db->CompactRange(compact, handles[0], nullptr, nullptr).ok());
    std::string files;
    EXPECT_TRUE(db->GetProperty(handles[0], "rocksdb.num-files-at-level1", &files));
    EXPECT_GT(std::stoi(files), 4) << "level 1 should hold many small files";
    for (auto* h : handles) EXPECT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    EXPECT_TRUE(db->Close().ok());
    delete db;
  }
  void TearDown() override {
    FailPoints::Reset();
    if (store_) store_->Abandon();
  }

  // Opens the store afresh (nothing cached), arms the n-th read of a table file to fail, reads
  // with `open`, disarms. `*fired`: whether the armed read happened.
  Status ReadWithNthReadFailing(
      uint64_t n,
      const std::function<Status(RocksDBStore&, std::unique_ptr<KeyValueIterator>*)>& open,
      State* read, bool* fired) {
    store_.reset();
    EXPECT_OK(OpenRocksDBStore(options_, &store_));
    FaultSpec spec{FaultSpec::Mode::kOnce, n, 0};
    EXPECT_OK(FailPoints::Enable("statecheck/fs/read/sst", spec, 0));
    const Status s = ReadAll([&](auto* it) { return open(*store_, it); }, read);
    *fired = false;
    for (const auto& [name, counts] : FailPoints::Counts()) *fired |= counts.fired > 0;
    FailPoints::Reset();
    store_->Abandon();
    return s;
  }

  // Every table-file read of a scan fails in turn: each such scan fails with the injected
  // error or returns `expected`.
  void EveryReadFailingInTurn(
      const std::function<Status(RocksDBStore&, std::unique_ptr<KeyValueIterator>*)>& open,
      const State& expected) {
    int failed = 0;
    for (uint64_t n = 1;; ++n) {
      ASSERT_LT(n, 1000u) << "the scan never ran out of reads";
      State read;
      bool fired = false;
      const Status s = ReadWithNthReadFailing(n, open, &read, &fired);
      if (!fired) {
        ASSERT_OK(s);
        EXPECT_EQ(read, expected);
        break;
      }
      if (s.ok()) {
        EXPECT_EQ(read, expected) << "read " << n << " failed, and the scan returned "
                                  << read.size() << " of " << expected.size()
                                  << " records with no error";
      } else {
        ++failed;
        EXPECT_EQ(s.code(), Status::Code::kIOError) << s;
        EXPECT_TRUE(s.message().find("injected fault") != std::string::npos) << s;
      }
    }
    EXPECT_GT(failed, 1);  // The scan read several files, and their failures said so.
  }

  FaultEnv env_;
  RocksDBStoreOptions options_;
  std::unique_ptr<RocksDBStore> store_;
  State expected_;
};

TEST_P(StoreReadErrorTest, AScanThatMeetsAReadErrorFailsAndNeverReturnsLess) {
  EveryReadFailingInTurn([](RocksDBStore& s, auto* it) { return s.All(it); }, expected_);
}

TEST_P(StoreReadErrorTest, ABackwardScanThatMeetsAReadErrorFailsAndNeverReturnsLess) {
  EveryReadFailingInTurn([](RocksDBStore& s, auto* it) { return s.ReverseAll(it); }, expected_);
}

TEST_P(StoreReadErrorTest, ARangeScanThatMeetsAReadErrorFailsAndNeverReturnsLess) {
  State expected;
  for (const auto& [k, v] : expected_) {
    if (k >= "key2" && k <= "key5") expected[k] = v;
  }
  EveryReadFailingInTurn([](RocksDBStore& s, auto* it) { return s.Range("key2", "key5", it); },
                         expected);
}

// The engine's own point at each step of a store iterator (statecheck/store/iterate): a scan by
// the writer or a query view fails at each step in turn, with the injected error, never fewer
// records; and the store, not reopened, then reads everything (F8).
TEST_P(StoreReadErrorTest, AFailedIteratorStepFailsThatReadOnly) {
  ASSERT_OK(OpenRocksDBStore(options_, &store_));
  ASSERT_OK(store_->Put("key0", "uncommitted"));  // The writer reads it merged over the store.
  State writes = expected_;
  writes["key0"] = "uncommitted";
  const State view_expected = GetParam() == IsolationLevel::kReadCommitted ? expected_ : writes;
  const std::shared_ptr<QueryView> view = store_->NewQueryView();
  for (const bool iq : {false, true}) {
    ReadOnlyKeyValueStore& reader = iq ? static_cast<ReadOnlyKeyValueStore&>(*view) : *store_;
    const State& expected = iq ? view_expected : writes;
    for (uint64_t n = 1; n <= expected.size(); ++n) {
      ASSERT_OK(
          FailPoints::Enable(std::string(kFailStoreIterate), {FaultSpec::Mode::kOnce, n, 0}, 0));
      State read;
      const Status s = ReadAll([&](auto* it) { return reader.All(it); }, &read);
      FailPoints::Reset();
      EXPECT_EQ(s.code(), Status::Code::kIOError) << (iq ? "view" : "writer") << ", step " << n;
      EXPECT_TRUE(s.message().find("statecheck/store/iterate") != std::string::npos) << s;
      ASSERT_OK(ReadAll([&](auto* it) { return reader.All(it); }, &read));
      EXPECT_EQ(read, expected) << (iq ? "view" : "writer") << " after step " << n << " failed";
    }
  }
  ASSERT_OK(store_->Commit({{"changelog", 99}}));  // The writer goes on too.
}

INSTANTIATE_TEST_SUITE_P(Isolation, StoreReadErrorTest,
                         ::testing::Values(IsolationLevel::kReadUncommitted,
                                           IsolationLevel::kReadCommitted),
                         [](const auto& info) {
                           return info.param == IsolationLevel::kReadCommitted
                                      ? std::string("ReadCommitted")
                                      : std::string("ReadUncommitted");
                         });

}  // namespace
}  // namespace statecheck::faults
