// The pieces of kv_store_bench that its files share (kv_store_bench.cc describes the program):
// the workload, the stores and buffers it runs on, the fixtures built before any timing, and
// what each file defines for the others.
#ifndef STATECHECK_BENCH_KV_STORE_BENCH_H_
#define STATECHECK_BENCH_KV_STORE_BENCH_H_

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "statecheck/key_value_store.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck::bench::kv_store {

inline constexpr int64_t kKeySpace = 1'000'000;   // Keys the put stream draws from.
inline constexpr int64_t kLoadedKeys = 100'000;   // Keys 0..99,999, committed before Get and Range.
inline constexpr int64_t kCommitEvery = 10'000;   // BM_Put: puts between the untimed commits.
inline constexpr int64_t kGetBuffered = 10'000;   // BM_Get/through_buffer: buffered records.
inline constexpr int64_t kRangeBuffered = 1'000;  // BM_Range: overwritten records.
inline constexpr int64_t kRangeLength = 100;
inline constexpr int64_t kNumDraws = 1 << 16;  // Lookup keys and range starts, reused cyclically.
inline constexpr int64_t kBufferWrites = 10'000;   // BM_Buffer: the buffered stream's writes,
inline constexpr int64_t kBufferDistinct = 9'000;  // of this many distinct loaded keys.
inline constexpr uint64_t kSeed = 0x5eed'0892;
inline constexpr char kPartition[] = "input-0";
inline constexpr char kChangelog[] = "store-changelog-0";

static_assert(kGetBuffered >= kRangeBuffered);
static_assert(kBufferDistinct <= kBufferWrites && kBufferDistinct < kLoadedKeys);

// The keys, values and every order the benchmarks use; built once.
class Workload {
 public:
  static const Workload& Get() {
    static const Workload* const workload = new Workload();
    return *workload;
  }

  std::string_view Key(int64_t i) const { return records_.Key(i); }
  std::string_view Value(int64_t n) const { return records_.Value(n); }
  // Put n of the put stream writes PutKey(n) = value(n).
  std::string_view PutKey(int64_t n) const { return Key(put_order_[n % kKeySpace]); }
  // The loaded keys that are overwritten before Get (the first 10,000) and Range (the first
  // 1,000); the overwrite of key i writes value(i + 1).
  int64_t OverwrittenKey(int64_t j) const { return shuffled_loaded_[j]; }
  // The i-th key BM_Get looks up: a loaded key that is not among the 10,000 overwritten.
  int64_t LookupKey(int64_t i) const { return lookups_[i % kNumDraws]; }
  // The first key of the i-th BM_Range read.
  int64_t RangeStart(int64_t i) const { return range_starts_[i % kNumDraws]; }
  // BM_Buffer: write j of the buffered stream writes BufferKey(j) = value(j) (j < 10,000).
  std::string_view BufferKey(int64_t j) const { return Key(buffer_writes_[j % kBufferWrites]); }
  // The i-th key BM_Buffer/GetThrough looks up: a loaded key the buffered stream does not write.
  int64_t BufferLookupKey(int64_t i) const { return buffer_lookups_[i % kNumDraws]; }
  // The first key of the i-th BM_Buffer/Iterate read.
  int64_t BufferRangeStart(int64_t i) const { return buffer_range_starts_[i % kNumDraws]; }

 private:
  Workload() : Workload(std::mt19937_64(kSeed)) {}
  // `rng` draws the values first (records_), then the rest.
  explicit Workload(std::mt19937_64 rng);

  KeysAndValues records_;
  std::vector<int32_t> put_order_;
  std::vector<int64_t> shuffled_loaded_;
  std::vector<int64_t> lookups_;
  std::vector<int64_t> range_starts_;
  std::vector<int64_t> buffer_writes_;
  std::vector<int64_t> buffer_lookups_;
  std::vector<int64_t> buffer_range_starts_;
};

// The engine's store in its own temp directory. Members in this order: the store closes before
// its directory goes.
struct EngineStore {
  explicit EngineStore(IsolationLevel isolation, bool use_wal = false) {
    options.name = "bench-store";
    options.directory = dir.path() + "/store";
    options.isolation = isolation;
    options.use_wal = use_wal;
    options.logger = NullLogger();
    Check(OpenRocksDBStore(options, &store), "OpenRocksDBStore");
  }

  // A clean close (which flushes: SPEC C7) and an open again.
  void Reopen() {
    store->Close();
    Check(OpenRocksDBStore(options, &store), "OpenRocksDBStore");
  }

  void Put(int64_t offset, std::string_view key, std::string_view value) {
    context.offset = offset;
    Check(store->Put(key, value, &context), "Put");
  }

  TempDir dir{"kv_store_bench"};
  RocksDBStoreOptions options;
  std::unique_ptr<RocksDBStore> store;
  RecordContext context{kPartition, 0};
};

// A plain RocksDB database in its own temp directory.
struct RawStore {
  // auto_compactions = false only for BM_Buffer/Commit (see there).
  explicit RawStore(bool auto_compactions = true) {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = !auto_compactions;
    rocksdb::DB* opened = nullptr;
    Check(rocksdb::DB::Open(options, dir.path() + "/db", &opened), "DB::Open");
    db.reset(opened);
  }

  static rocksdb::WriteOptions NoWal() {
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    return wo;
  }

  void Put(std::string_view key, std::string_view value) {
    Check(db->Put(NoWal(), key, value), "DB::Put");
  }

  void Flush() {
    rocksdb::FlushOptions fo;
    fo.wait = true;
    Check(db->Flush(fo), "DB::Flush");
  }

  TempDir dir{"kv_store_bench"};
  std::unique_ptr<rocksdb::DB> db;
};

// Loading the stores (kv_store_bench_fixtures.cc).
void Load(EngineStore& s);
void Load(RawStore& s);
void Overwrite(EngineStore& s, int64_t count);
void Overwrite(RawStore& s, int64_t count);

// BM_Buffer's two buffers -------------------------------------------------------------------

// The engine's READ_COMMITTED buffer (engine/store/rocksdb_store.cc's Buffer): a value, or
// std::nullopt for a delete.
using MapBuffer = std::map<std::string, std::optional<std::string>, std::less<>>;

// The buffers' operations (kv_store_bench_buffer.cc, with the benchmarks that time them).
void BufferWrite(MapBuffer& buffer, int64_t* buffered_bytes, std::string_view key,
                 std::optional<std::string_view> value);
std::unique_ptr<rocksdb::WriteBatchWithIndex> NewWbwi();
void Fill(MapBuffer& buffer, int64_t* buffered_bytes);
void Fill(rocksdb::WriteBatchWithIndex& buffer);
void BuildBatch(const MapBuffer& buffer, rocksdb::WriteBatch* batch);
bool GetThroughMap(rocksdb::DB& db, const MapBuffer& buffer, const rocksdb::ReadOptions& ro,
                   std::string_view key, std::optional<std::string>* value);
bool GetThroughWbwi(rocksdb::DB& db, rocksdb::WriteBatchWithIndex& buffer,
                    const rocksdb::ReadOptions& ro, std::string_view key,
                    std::optional<std::string>* value);

// The stores BM_Get and BM_Range read, built once before any timing.
struct Fixtures {
  Fixtures();

  EngineStore get_committed;       // Loaded, buffer empty.
  EngineStore get_through_buffer;  // Loaded, 10,000 buffered overwrites.
  RawStore get_raw;                // Loaded.
  EngineStore range_committed;     // Loaded, 1,000 buffered overwrites.
  EngineStore range_uncommitted;   // Loaded, 1,000 direct overwrites (in the memtable).
  RawStore range_raw;              // Loaded, 1,000 direct overwrites (in the memtable).
  // BM_Buffer/GetThrough and /Iterate: the loaded database under the buffered stream, in each
  // buffer (the database does not see the buffered writes).
  RawStore buffer_db;
  MapBuffer buffer_map;
  std::unique_ptr<rocksdb::WriteBatchWithIndex> buffer_wbwi;
};

// Range reads -------------------------------------------------------------------------------------

// A drained range: record count and a checksum over every key and value byte count and the
// values' first bytes.
struct Drained {
  int64_t records = 0;
  uint64_t checksum = 0;
  std::vector<KeyValue> kvs;  // Only when asked to keep them (the checks).

  void Add(KeyValue kv, bool keep) {
    ++records;
    checksum =
        checksum * 31 + kv.key.size() + kv.value.size() + static_cast<unsigned char>(kv.value[0]);
    if (keep) kvs.push_back(std::move(kv));
  }
};

// The stores' ranges (kv_store_bench_store.cc) and the buffers' (kv_store_bench_buffer.cc).
bool DrainEngine(KeyValueStore& store, int64_t start, bool keep, Drained* out);
bool DrainRaw(rocksdb::DB& db, int64_t start, bool keep, Drained* out);
bool DrainMap(rocksdb::DB& db, const MapBuffer& buffer, int64_t start, bool keep, Drained* out);
bool DrainWbwi(rocksdb::DB& db, rocksdb::WriteBatchWithIndex& buffer, int64_t start, bool keep,
               Drained* out);

template <class Drain>
void RangeLoop(benchmark::State& state, Drain drain) {
  const Workload& w = Workload::Get();
  int64_t i = 0;
  int64_t records = 0;
  for (auto _ : state) {
    Drained drained;
    if (!drain(w.RangeStart(i++), &drained)) {
      state.SkipWithError("range read failed");
      break;
    }
    benchmark::DoNotOptimize(drained.checksum);
    records += drained.records;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["records_per_range"] =
      static_cast<double>(records) / static_cast<double>(std::max<int64_t>(1, i));
}

// Commit times ------------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

// The commits' counters (kv_store_bench_store.cc).
double MedianOfSorted(const std::vector<double>& ms);
void ReportCommitTimes(benchmark::State& state, std::vector<double> ms, int64_t records);

// The benchmarks ----------------------------------------------------------------------------------

// BM_Put, BM_Get, BM_Range, BM_Commit: kv_store_bench_store.cc.
void BM_PutEngine(benchmark::State& state, IsolationLevel isolation);
void BM_PutRaw(benchmark::State& state);
void BM_GetEngine(benchmark::State& state, EngineStore* s);
void BM_GetRaw(benchmark::State& state, RawStore* s);
void BM_RangeEngine(benchmark::State& state, EngineStore* s);
void BM_RangeRaw(benchmark::State& state, RawStore* s);
void BM_CommitEngine(benchmark::State& state, IsolationLevel isolation, bool use_wal);
void BM_CommitRaw(benchmark::State& state);
void BM_CommitRawMemtable(benchmark::State& state, bool sorted);

// BM_Buffer: kv_store_bench_buffer.cc.
void BM_BufferPutMap(benchmark::State& state);
void BM_BufferPutWbwi(benchmark::State& state);
void BM_BufferGetThroughMap(benchmark::State& state, Fixtures* f);
void BM_BufferGetThroughWbwi(benchmark::State& state, Fixtures* f);
void BM_BufferCommitMap(benchmark::State& state);
void BM_BufferCommitWbwi(benchmark::State& state);
void BM_BufferIterateMap(benchmark::State& state, Fixtures* f);
void BM_BufferIterateWbwi(benchmark::State& state, Fixtures* f);
void BM_BufferMemoryMap(benchmark::State& state);
void BM_BufferMemoryWbwi(benchmark::State& state);

// The checks before any timing (kv_store_bench_checks.cc).
bool StoresAgree(Fixtures& f);
bool BuffersAgree(Fixtures& f);

}  // namespace statecheck::bench::kv_store

#endif  // STATECHECK_BENCH_KV_STORE_BENCH_H_
