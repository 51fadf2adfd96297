#include "tools/inspect.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "statecheck/log.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/task.h"
#include "testing/test_util.h"

namespace statecheck::tools {
namespace {

namespace fs = std::filesystem;

// Every file under `dir` with its size and modification time.
std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> Snapshot(const fs::path& dir) {
  std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[e.path().string()] = {e.file_size(), e.last_write_time()};
  }
  return out;
}

class InspectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("statecheck_inspect_" + std::to_string(::getpid())) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_.parent_path()); }

  std::unique_ptr<RocksDBStore> OpenStore(const fs::path& path) {
    RocksDBStoreOptions o;
    o.name = path.filename().string();
    o.directory = path.string();
    o.logger = NullLogger();
    std::unique_ptr<RocksDBStore> store;
    const Status s = OpenRocksDBStore(o, &store);
    EXPECT_TRUE(s.ok()) << s;
    return store;
  }

  // A RocksDB store written directly: `keys` data keys, the "statecheck.meta" column family if
  // `meta_family`, holding "format" = `format` if set.
  void MakeRawStore(const fs::path& path, bool meta_family, std::optional<std::string> format,
                    int keys) {
    fs::create_directories(path.parent_path());
    rocksdb::DBOptions o;
    o.create_if_missing = true;
    o.create_missing_column_families = true;
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()}};
    if (meta_family) families.emplace_back("statecheck.meta", rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, path.string(), families, &handles, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<rocksdb::DB> db(raw);
    for (int i = 0; i < keys; ++i) {
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), handles[0], std::to_string(i), "v").ok());
    }
    if (format) {
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), handles[1], "format", *format).ok());
    }
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    ASSERT_TRUE(db->Close().ok());
  }

  static void WriteFile(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }

  fs::path dir_;
};

TEST_F(InspectTest, InspectStore) {
  // state/<task>/<store>: one closed cleanly, one abandoned (open marker left set).
  const fs::path clean = dir_ / "0_0" / "counts";
  const fs::path crashed = dir_ / "0_1" / "sums";
  {
    auto store = OpenStore(clean);
    ASSERT_NE(store, nullptr);
    RecordContext ctx{"input-0", 7};
    ASSERT_OK(store->Put("a", "1", &ctx));
    ASSERT_OK(store->Put("b", "2", &ctx));
    ASSERT_OK(store->Commit({{"counts-changelog-0", 41}}));
    store->Close();
  }
  {
    auto store = OpenStore(crashed);
    ASSERT_NE(store, nullptr);
    ASSERT_OK(store->Put("x", "9"));
    ASSERT_OK(store->Commit({{"sums-changelog-0", 3}}));
    store->Close();  // Durable (C7) ...
    store = OpenStore(crashed);
    ASSERT_NE(store, nullptr);
    store->Abandon();  // ... then a crash: the open marker stays set.
  }
  const auto before = Snapshot(dir_);

  InspectReport report;
  ASSERT_OK(Inspect(dir_.string(), &report));
  EXPECT_FALSE(report.log.has_value());
  ASSERT_EQ(report.stores.size(), 2u);
  const StoreSummary& c = report.stores[0];
  EXPECT_EQ(c.path, clean.string());
  EXPECT_EQ(c.error, "");
  EXPECT_TRUE(c.statecheck_store);
  EXPECT_EQ(c.format, std::optional<std::string>("1"));
  EXPECT_EQ(c.format_kind, "current");
  EXPECT_FALSE(c.open_marker);
  EXPECT_EQ(c.data_keys, 2);
  EXPECT_EQ(c.changelog_offsets,
            (std::map<std::string, std::string>{{"counts-changelog-0", "41"}}));
  EXPECT_EQ(c.positions, (std::map<std::string, std::string>{{"input-0", "7"}}));
  const StoreSummary& a = report.stores[1];
  EXPECT_EQ(a.path, crashed.string());
  EXPECT_EQ(a.error, "");
  EXPECT_TRUE(a.open_marker);
  EXPECT_EQ(a.changelog_offsets, (std::map<std::string, std::string>{{"sums-changelog-0", "3"}}));

  const std::string text = FormatInspectText(report);
  EXPECT_NE(text.find("2 stores"), std::string::npos) << text;
  EXPECT_NE(text.find("open marker set"), std::string::npos) << text;
  const auto json = InspectJson(report);
  EXPECT_EQ(json["stores"][0]["changelog_offsets"]["counts-changelog-0"], "41");
  EXPECT_TRUE(json["stores"][1]["open_marker"].get<bool>());

  // A store directory named directly works too; nothing was written, not even RocksDB's LOG.
  ASSERT_OK(Inspect(clean.string(), &report));
  ASSERT_EQ(report.stores.size(), 1u);
  EXPECT_EQ(Snapshot(dir_), before);
}

TEST_F(InspectTest, InspectLogDirectory) {
  {
    LogOptions o;
    o.directory = dir_.string();
    o.logger = NullLogger();
    std::unique_ptr<Log> log;
    ASSERT_OK(OpenLog(o, &log));
    int64_t offset;
    ASSERT_OK(log->Append("input-0", "k", "v", &offset));
    ASSERT_OK(log->CommitOffsets("app", CommittedOffsets{{{"input-0", 1}}, "meta"}));
    ASSERT_OK(log->Sync());
  }
  InspectReport report;
  ASSERT_OK(Inspect(dir_.string(), &report));
  EXPECT_TRUE(report.stores.empty());
  ASSERT_TRUE(report.log.has_value());
  EXPECT_EQ(report.log->committed_offsets.at("app").metadata, "meta");
  const std::string text = FormatInspectText(report);
  EXPECT_NE(text.find("input-0"), std::string::npos) << text;
}

// The directories of a task that crashed mid-transaction (exactly_once_v2): the stores show
// their open-status markers, the log its unfinished transaction.
TEST_F(InspectTest, CrashedTaskShowsOpenMarkersAndTheUnfinishedTransaction) {
  std::unique_ptr<Log> log;
  LogOptions lo;
  lo.directory = (dir_ / "log").string();
  lo.logger = NullLogger();
  ASSERT_OK(OpenLog(lo, &log));
  int64_t offset = 0;
  ASSERT_OK(log->Append("input", "k", "v", &offset));
  ASSERT_OK(log->Sync());
  TaskOptions to;
  to.application_id = "app";
  to.input_partition = "input";
  to.output_partition = "output";
  to.state_directory = (dir_ / "state").string();
  to.log = log.get();
  ASSERT_OK(ResolveStateConfig({{"processing.guarantee", "exactly_once_v2"}}, &to.config));
  to.clock = std::make_shared<ManualClock>();
  to.logger = NullLogger();
  to.log_batch_bytes = 0;  // The record's writes reach the log as it is processed.
  std::unique_ptr<Task> task;
  ASSERT_OK(OpenTask(to, NewKeyValueProcessor(), &task));
  int64_t processed = 0;
  ASSERT_OK(task->Process(1, &processed));
  task->Abandon();  // The crash: no commit, no clean close.
  log.reset();

  InspectReport state;
  ASSERT_OK(Inspect((dir_ / "state").string(), &state));
  ASSERT_EQ(state.stores.size(), 2u);
  for (const StoreSummary& s : state.stores) EXPECT_TRUE(s.open_marker) << s.path;
  const std::string state_text = FormatInspectText(state);
  EXPECT_NE(state_text.find("open marker set"), std::string::npos) << state_text;

  InspectReport log_report;
  ASSERT_OK(Inspect((dir_ / "log").string(), &log_report));
  ASSERT_TRUE(log_report.log.has_value());
  ASSERT_EQ(log_report.log->open_transactions.size(), 1u);
  const LogOpenTransaction& t = log_report.log->open_transactions[0];
  EXPECT_FALSE(t.commit_decided);
  EXPECT_EQ(t.begin_offsets.count("output"), 1u);
  EXPECT_EQ(t.begin_offsets.count("app-kv-changelog-0_0"), 1u);
  const std::string log_text = FormatInspectText(log_report);
  EXPECT_NE(log_text.find("no decision (recovery aborts it)"), std::string::npos) << log_text;
}

// A legacy task directory: its .checkpoint and .position files (one damaged, one with an entry
// the reader skips) and each store's format, whatever marks it.
TEST_F(InspectTest, LegacyFilesAndStoreFormats) {
  const fs::path task = dir_ / "0_0";
  MakeRawStore(task / "kv", /*meta_family=*/true, "0", 2);              // Legacy, marked.
  MakeRawStore(task / "sums", /*meta_family=*/false, std::nullopt, 1);  // Legacy, unmarked.
  MakeRawStore(task / "fresh", /*meta_family=*/true, std::nullopt, 0);  // New.
  MakeRawStore(task / "now", /*meta_family=*/true, "1", 1);             // Current.
  MakeRawStore(task / "odd", /*meta_family=*/true, "7", 0);             // Unknown.
  WriteFile(task / ".checkpoint", "0\n2\napp-kv-changelog-0_0 0 17\napp-sums-changelog-0_0 0 -4\n");
  WriteFile(task / "kv.position", "1\n0\n");
  WriteFile(task / "sums.position", "0\n2\ninput 0 -1\nother 0 3\n");
  WriteFile(task / "notes.txt", "not a legacy file");
  const auto before = Snapshot(dir_);

  for (const fs::path& dir : {dir_, task, task / ""}) {
    SCOPED_TRACE(dir.string());
    InspectReport report;
    ASSERT_OK(Inspect(dir.string(), &report));
    ASSERT_EQ(report.stores.size(), 5u);
    std::map<std::string, std::string> kinds;
    for (const StoreSummary& s : report.stores) {
      EXPECT_EQ(s.error, "") << s.path;
      kinds[fs::path(s.path).filename().string()] = s.format_kind;
    }
    EXPECT_EQ(kinds, (std::map<std::string, std::string>{{"fresh", "new"},
                                                         {"kv", "legacy"},
                                                         {"now", "current"},
                                                         {"odd", "unknown"},
                                                         {"sums", "legacy"}}));

    ASSERT_EQ(report.legacy_files.size(), 3u);  // Each once, whichever directory was named.
    const LegacyFileSummary& checkpoint = report.legacy_files[0];
    EXPECT_EQ(fs::path(checkpoint.path).filename(), ".checkpoint");
    EXPECT_EQ(checkpoint.error, "");
    EXPECT_EQ(checkpoint.entries, (CheckpointOffsets{{{"app-kv-changelog-0_0", 0}, 17},
                                                     {{"app-sums-changelog-0_0", 0}, -4}}));
    const LegacyFileSummary& kv = report.legacy_files[1];
    EXPECT_EQ(fs::path(kv.path).filename(), "kv.position");
    EXPECT_NE(kv.error.find("Corruption: "), std::string::npos) << kv.error;
    EXPECT_NE(kv.error.find("kv.position: Unknown offset checkpoint version: 1"), std::string::npos)
        << kv.error;
    EXPECT_TRUE(kv.entries.empty());
    const LegacyFileSummary& sums = report.legacy_files[2];
    EXPECT_EQ(fs::path(sums.path).filename(), "sums.position");
    EXPECT_EQ(sums.error, "");
    EXPECT_EQ(sums.entries, (CheckpointOffsets{{{"other", 0}, 3}}));
    ASSERT_EQ(sums.warnings.size(), 1u);

    const std::string text = FormatInspectText(report);
    for (const char* part : {
             "legacy offset files (.checkpoint, <store>.position):",
             "/.checkpoint: 2 entries\n    app-kv-changelog-0_0 0 17\n"
             "    app-sums-changelog-0_0 0 -4 (unknown)\n",
             "kv.position: error: Corruption: ",
             "sums.position: 1 entry\n    other 0 3\n    warning: ",
             "skipping invalid offset -1 for input-0",
             "format: legacy (\"format\" = 0)",
             "format: legacy (not recorded; the store has data)",
             "format: new (not recorded; no data yet)",
             "format: current (\"format\" = 1)",
             "format: unknown (\"format\" = 7)",
         }) {
      EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
    }
    EXPECT_EQ(text.find("notes.txt"), std::string::npos) << text;

    const auto json = InspectJson(report);
    ASSERT_EQ(json["legacy_files"].size(), 3u);
    EXPECT_EQ(json["legacy_files"][0]["error"], nullptr);
    EXPECT_EQ(json["legacy_files"][0]["entries"][1]["unknown"], true);
    EXPECT_NE(json["legacy_files"][1]["error"].get<std::string>().find("Unknown offset checkpoint"),
              std::string::npos);
    EXPECT_EQ(json["legacy_files"][2]["warnings"].size(), 1u);
    EXPECT_EQ(json["stores"][0]["format_kind"], "new");  // fresh, first by path.
  }
  EXPECT_EQ(Snapshot(dir_), before);  // Read-only.
}

// One damaged byte in the middle of each kind of file the engine keeps durable — a log partition
// file, a store's table file (SST), a legacy .checkpoint — is Corruption naming the file and
// where in it, from the engine and from `statecheck inspect` alike. A checkpoint is text without
// a checksum (Kafka's format): its damage is found where it breaks the format, as here (a digit
// turned into a letter); damage that leaves another valid number cannot be told from data.
TEST_F(InspectTest, ADamagedByteIsCorruptionNamingTheFileAndWhereInIt) {
  auto damage = [](const fs::path& file, char to) {
    const auto middle = static_cast<std::streamoff>(fs::file_size(file) / 2);
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekg(middle);
    const char was = static_cast<char>(f.get());
    f.seekp(middle);
    f.put(to == 0 ? static_cast<char>(was ^ 0x40) : to);
    return middle;
  };
  auto expect_corruption = [](const std::string& what, const std::string& error,
                              const fs::path& file, const std::string& where) {
    SCOPED_TRACE(what);
    EXPECT_NE(error.find("Corruption"), std::string::npos) << error;
    EXPECT_NE(error.find(file.filename().string()), std::string::npos) << error;
    EXPECT_NE(error.find(where), std::string::npos) << error;
  };

  // A log partition: 40 records; the byte in the middle of the file is inside one of them, with
  // valid records after it (never a torn tail to drop).
  const fs::path log_dir = dir_ / "log";
  LogOptions lo;
  lo.directory = log_dir.string();
  lo.logger = NullLogger();
  {
    std::unique_ptr<Log> log;
    ASSERT_OK(OpenLog(lo, &log));
    for (int i = 0; i < 40; ++i) {
      int64_t offset = 0;
      ASSERT_OK(log->Append("input-0", "key" + std::to_string(i), "value", &offset));
    }
    ASSERT_OK(log->Sync());
  }
  const fs::path partition = log_dir / "input-0.log";
  damage(partition, 0);
  std::unique_ptr<Log> log;
  const Status opened = OpenLog(lo, &log);
  expect_corruption("the engine opening the log", opened.ToString(), partition, "byte offset");
  InspectReport log_report;
  const Status inspected = Inspect(log_dir.string(), &log_report);
  expect_corruption("inspect of the log", inspected.ToString(), partition, "byte offset");

  // A store: 200 keys committed and flushed into one table file; its middle is in a data block,
  // whose checksum the engine's read and inspect's scan check.
  const fs::path store_dir = dir_ / "0_0" / "kv";
  {
    std::unique_ptr<RocksDBStore> store = OpenStore(store_dir);
    ASSERT_NE(store, nullptr);
    for (int i = 0; i < 200; ++i) {
      ASSERT_OK(store->Put("key" + std::to_string(1000 + i), std::string(40, 'v')));
    }
    ASSERT_OK(store->Commit({{"kv-changelog-0", 199}}));
    store->Close();
  }
  fs::path table;
  uintmax_t largest = 0;
  for (const auto& e : fs::directory_iterator(store_dir)) {
    if (e.path().extension() == ".sst" && e.file_size() > largest) {
      table = e.path();
      largest = e.file_size();
    }
  }
  ASSERT_FALSE(table.empty()) << "no table file in " << store_dir;
  damage(table, 0);
  {
    RocksDBStoreOptions o;
    o.name = "kv";
    o.directory = store_dir.string();
    o.logger = NullLogger();
    o.read_only = true;
    std::unique_ptr<RocksDBStore> store;
    Status s = OpenRocksDBStore(o, &store);
    if (s.ok()) {
      std::unique_ptr<KeyValueIterator> it;
      s = store->All(&it);
      KeyValue kv;
      while (s.ok() && it->HasNext()) s = it->Next(&kv);
    }
    expect_corruption("the engine reading the store", s.ToString(), table, "offset");
  }
  InspectReport store_report;
  ASSERT_OK(Inspect((dir_ / "0_0").string(), &store_report));
  ASSERT_EQ(store_report.stores.size(), 1u);
  expect_corruption("inspect of the store", store_report.stores[0].error, table, "offset");

  // A legacy .checkpoint: the middle byte is a digit of the first entry's offset.
  const fs::path checkpoint = dir_ / "0_0" / ".checkpoint";
  WriteFile(checkpoint, "0\n1\nt 0 1234567890123\n");
  ASSERT_EQ(damage(checkpoint, 'x'), 11);
  CheckpointOffsets offsets;
  const Status read = ReadOffsetCheckpoint(nullptr, checkpoint.string(), &offsets, nullptr);
  expect_corruption("the engine reading the checkpoint", read.ToString(), checkpoint,
                    "line 3 (byte 4)");
  InspectReport checkpoint_report;
  ASSERT_OK(Inspect((dir_ / "0_0").string(), &checkpoint_report));
  ASSERT_EQ(checkpoint_report.legacy_files.size(), 1u);
  expect_corruption("inspect of the checkpoint", checkpoint_report.legacy_files[0].error,
                    checkpoint, "line 3 (byte 4)");
}

// A task directory whose stores are gone (wiped) but whose legacy files remain is still a state
// directory.
TEST_F(InspectTest, LegacyFilesWithoutStores) {
  WriteFile(dir_ / ".checkpoint", "0\n1\napp-kv-changelog-0_0 0 5\n");
  InspectReport report;
  ASSERT_OK(Inspect(dir_.string(), &report));
  EXPECT_TRUE(report.stores.empty());
  ASSERT_EQ(report.legacy_files.size(), 1u);
  const std::string text = FormatInspectText(report);
  EXPECT_NE(text.find("0 stores"), std::string::npos) << text;
  EXPECT_NE(text.find("app-kv-changelog-0_0 0 5"), std::string::npos) << text;
}

TEST_F(InspectTest, NeitherStateNorLogIsAClearError) {
  InspectReport report;
  Status s = Inspect(dir_.string(), &report);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is neither a state directory"), std::string::npos) << s;
  s = Inspect((dir_ / "missing").string(), &report);
  EXPECT_NE(s.message().find("does not exist"), std::string::npos) << s;
}

}  // namespace
}  // namespace statecheck::tools
