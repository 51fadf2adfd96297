// kv_store_bench: the engine's persistent key-value store (statecheck::OpenRocksDBStore) under
// READ_COMMITTED (writes buffered until commit) and READ_UNCOMMITTED (writes straight to
// RocksDB), against plain RocksDB (rocksdb::DB) on the same data: SPEC T11's claim that buffered
// writes are no slower than direct ones, and what the buffer costs reads and commits.
//
// Workload (identical for every store):
//   * Keys "key-%012d" (16 bytes), values 100 bytes of letters from a fixed-seed RNG (a pool of
//     1,024, value n is pool[n % 1,024]); the RNG also fixes every order below.
//   * Every store lives in its own temp directory, RocksDB's WAL off (Kafka Streams' setting,
//     use_wal = false; WriteOptions.disableWAL for raw RocksDB), the engine's logger NullLogger().
//     Raw RocksDB is a plain DB with default options (one column family, create_if_missing);
//     the engine adds its metadata column family and atomic_flush.
//   * Engine writes carry a RecordContext (input partition "input-0", offset = put number), as
//     Kafka Streams' writes do; so every engine put also advances the uncommitted position.
//   * "Loaded": keys 0..99,999 written with value(i) and committed (engine: Commit, which
//     flushes since the WAL is off; raw: one WriteBatch and Flush), so each store holds them in
//     one L0 SST file.
//
// Benchmarks (store variants side by side):
//   BM_Put/{read_committed,read_uncommitted,raw_rocksdb}
//       One put per iteration; keys follow a fixed random permutation of 1,000,000 keys. Every
//       10,000 puts the store commits (engine: Commit with a changelog offset; raw: Flush) with
//       the timer paused (state.PauseTiming), so the read_committed buffer stays bounded as T6
//       keeps it, and the time is the pure put cost. items/s = puts/s.
//   BM_Get/{committed,through_buffer,raw_rocksdb}
//       One writer Get per iteration of a loaded key, drawn at random from the 90,000 loaded
//       keys that BM_Get/through_buffer's buffer does not hold. committed: a READ_COMMITTED store,
//       loaded, buffer empty. through_buffer: the same plus 10,000 buffered (uncommitted)
//       overwrites of the other loaded keys, so each Get misses the buffer and reads RocksDB
//       (read-your-writes, T5). raw_rocksdb: DB::Get into a fresh std::string, as the engine
//       does internally. items/s = gets/s.
//   BM_Range/{read_committed,read_uncommitted,raw_rocksdb}
//       One 100-key range read per iteration (from a random loaded key i to key i + 99,
//       inclusive), drained; every record is copied into std::strings, as the engine's iterator
//       does. 1,000 of the loaded keys are overwritten beforehand: read_committed holds them in
//       its buffer (the writer's range merges it over a RocksDB snapshot), read_uncommitted and
//       raw_rocksdb have them in the memtable. Raw: an iterator with iterate_upper_bound.
//       items/s = ranges/s; records_per_range must be 100.
//   BM_Commit/{read_committed,read_uncommitted,raw_rocksdb}/N  for N = 100, 1,000, 10,000
//       Per iteration N puts continuing the put stream (not timed), then one timed commit
//       (manual_time). read_committed: Commit writes the N buffered records, the changelog offset
//       and the position in one WriteBatch, then flushes. read_uncommitted: the N puts went to
//       RocksDB directly; Commit writes offset and position and flushes. raw_rocksdb (the floor
//       for read_committed): build one WriteBatch of the N records, write it, Flush. Counters:
//       median_ms / p90_ms / max_ms over every commit of the final run (the median is computed
//       here, not by Google Benchmark).
//
// BM_Buffer: the READ_COMMITTED write buffer alone, outside the store: the engine's
// std::map<std::string, std::optional<std::string>, std::less<>> (engine/rocksdb_store.cc's
// Buffer, written as its BufferWrite does) against KIP-892's rocksdb::WriteBatchWithIndex
// (bytewise comparator, overwrite_key = true), on the same data. Both sit over one raw RocksDB
// database holding the loaded keys 0..99,999 (RawStore, Load). The buffered stream is 10,000
// writes of loaded keys (overwrites of committed data): 9,000 distinct keys from a fixed random
// permutation, plus 1,000 writes of keys already written, shuffled; write j = value(j). So the
// map ends with 9,000 entries and the WriteBatchWithIndex with 10,000 records in its batch
// (overwrite_key repoints the index; the superseded record stays in the batch).
//   BM_Buffer/Put/{map,wbwi}
//       One buffered write per iteration, cycling through the 10,000-write stream; after each
//       full pass the buffer is cleared with the timer paused. items/s = writes/s.
//   BM_Buffer/GetThrough/{map,wbwi}
//       One writer get per iteration of a loaded key not in the buffer (drawn at random from the
//       91,000 loaded keys the stream does not write), with the whole stream buffered; so each
//       get misses the buffer and reads RocksDB. map: map::find, then DB::Get into a fresh
//       std::string (the store's Get); wbwi: GetFromBatchAndDB into a fresh std::string.
//       items/s = gets/s.
//   BM_Buffer/Commit/{map,wbwi}
//       Per iteration the stream is buffered (not timed), then one timed commit (manual_time):
//       map: build one rocksdb::WriteBatch from the map (the store's Commit loop) and DB::Write
//       it; wbwi: DB::Write(wbwi.GetWriteBatch()). WAL off, no flush in the timed part. Then the
//       buffer is cleared (timed apart: counter clear_ms, the median) and the database flushed,
//       untimed, so every commit starts from an empty memtable as the store's do (its Commit
//       flushes). Each run has its own freshly loaded database, with automatic compactions off
//       so that no compaction of the flushed files runs during the timed writes (a write to the
//       memtable does not read the L0 files they pile up in). Counters: median_ms over the
//       run's commits, records_written (batch count: 9,000 against 10,000). items/s = buffered
//       writes committed/s.
//   BM_Buffer/Iterate/{map,wbwi}
//       One 100-key writer range read per iteration (key i to i + 99, i random over the loaded
//       keys; ~9 of the 100 are buffered), drained and copied into std::strings as in BM_Range.
//       map: copy the buffered range out of the map (as the store's WriterOpenBounds does), then
//       merge it over a RocksDB iterator with iterate_upper_bound (no explicit snapshot on
//       either side); wbwi: NewIteratorWithBase over the same RocksDB iterator. items/s =
//       ranges/s; records_per_range must be 100.
//   BM_Buffer/Memory/{map,wbwi}
//       Builds the buffer from the whole stream once (Iterations(1)) while counting the heap:
//       heap_bytes_per_entry counts malloc_usable_size of every block allocated minus every
//       block freed through operator new/delete (bench/heap_accounting.h; RocksDB's arena blocks
//       are new[]'d, so the WriteBatchWithIndex skiplist is seen), per distinct buffered key
//       (9,000); malloc_bytes_per_entry is the same delta from glibc's mallinfo2 (chunk headers
//       included). data_bytes_per_entry: the payload bytes, i.e. the map's key + value sizes
//       and the batch's GetDataSize() (records with their tags and lengths, superseded records
//       included), per distinct key. The batch is a std::string grown by doubling, so wbwi's
//       heap count includes its spare capacity, which depends on where the batch size falls
//       between two powers of two.
//
// Before any timing the program checks that the stores return the same values and ranges, and
// that the two buffers agree on gets, ranges and what their commits write. After the table it
// prints the SPEC T11 targets: read_committed put throughput >= 1.0x read_uncommitted; commit of
// 10,000 buffered records < 50 ms median; writer get through the buffer <= 1.5x a committed
// get; then other ratios for reference; then the BM_Buffer map / wbwi ratios (time per
// operation, commit median, memory per entry: below 1 the map is faster or smaller). Each
// section is printed only when its benchmarks ran. The console output is the only display
// format; for JSON add --benchmark_out=FILE --benchmark_out_format=json.
//
//   kv_store_bench --benchmark_min_time=0.3
#include <malloc.h>
#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
#include "bench/heap_accounting.h"
#include "bench/mean_reporter.h"
#include "benchmark/benchmark.h"
#include "statecheck/key_value_store.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck::bench {
namespace {

constexpr int64_t kKeySpace = 1'000'000;   // Keys the put stream draws from.
constexpr int64_t kLoadedKeys = 100'000;   // Keys 0..99,999, committed before Get and Range.
constexpr int64_t kCommitEvery = 10'000;   // BM_Put: puts between the untimed commits.
constexpr int64_t kGetBuffered = 10'000;   // BM_Get/through_buffer: buffered records.
constexpr int64_t kRangeBuffered = 1'000;  // BM_Range: overwritten records.
constexpr int64_t kRangeLength = 100;
constexpr int64_t kNumDraws = 1 << 16;      // Lookup keys and range starts, reused cyclically.
constexpr int64_t kBufferWrites = 10'000;   // BM_Buffer: the buffered stream's writes,
constexpr int64_t kBufferDistinct = 9'000;  // of this many distinct loaded keys.
constexpr uint64_t kSeed = 0x5eed'0892;
constexpr char kPartition[] = "input-0";
constexpr char kChangelog[] = "store-changelog-0";

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
  explicit Workload(std::mt19937_64 rng) : records_(kKeySpace, rng) {
    // Fisher-Yates with the raw engine, so the orders do not depend on the standard library's
    // distributions.
    put_order_.resize(kKeySpace);
    for (int64_t i = 0; i < kKeySpace; ++i) put_order_[i] = static_cast<int32_t>(i);
    for (int64_t i = kKeySpace - 1; i > 0; --i) {
      std::swap(put_order_[i], put_order_[rng() % (i + 1)]);
    }
    shuffled_loaded_.resize(kLoadedKeys);
    for (int64_t i = 0; i < kLoadedKeys; ++i) shuffled_loaded_[i] = i;
    for (int64_t i = kLoadedKeys - 1; i > 0; --i) {
      std::swap(shuffled_loaded_[i], shuffled_loaded_[rng() % (i + 1)]);
    }
    lookups_.resize(kNumDraws);
    for (int64_t& k : lookups_) {
      k = shuffled_loaded_[kGetBuffered + rng() % (kLoadedKeys - kGetBuffered)];
    }
    range_starts_.resize(kNumDraws);
    for (int64_t& s : range_starts_)
      s = static_cast<int64_t>(rng() % (kLoadedKeys - kRangeLength + 1));
    // BM_Buffer, drawn last so that the orders above do not depend on it: 9,000 distinct loaded
    // keys, then 1,000 writes of keys among them, the 10,000 shuffled.
    std::vector<int64_t> loaded(kLoadedKeys);
    for (int64_t i = 0; i < kLoadedKeys; ++i) loaded[i] = i;
    for (int64_t i = kLoadedKeys - 1; i > 0; --i) std::swap(loaded[i], loaded[rng() % (i + 1)]);
    buffer_writes_.assign(loaded.begin(), loaded.begin() + kBufferDistinct);
    for (int64_t j = kBufferDistinct; j < kBufferWrites; ++j) {
      buffer_writes_.push_back(loaded[rng() % kBufferDistinct]);
    }
    for (int64_t j = kBufferWrites - 1; j > 0; --j) {
      std::swap(buffer_writes_[j], buffer_writes_[rng() % (j + 1)]);
    }
    buffer_lookups_.resize(kNumDraws);
    for (int64_t& k : buffer_lookups_) {
      k = loaded[kBufferDistinct + rng() % (kLoadedKeys - kBufferDistinct)];
    }
    buffer_range_starts_.resize(kNumDraws);
    for (int64_t& s : buffer_range_starts_) {
      s = static_cast<int64_t>(rng() % (kLoadedKeys - kRangeLength + 1));
    }
  }

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
  explicit EngineStore(IsolationLevel isolation) {
    RocksDBStoreOptions options;
    options.name = "bench-store";
    options.directory = dir.path() + "/store";
    options.isolation = isolation;
    options.use_wal = false;
    options.logger = NullLogger();
    Check(OpenRocksDBStore(options, &store), "OpenRocksDBStore");
  }

  void Put(int64_t offset, std::string_view key, std::string_view value) {
    context.offset = offset;
    Check(store->Put(key, value, &context), "Put");
  }

  TempDir dir{"kv_store_bench"};
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

// Keys 0..kLoadedKeys-1 = value(i), committed.
void Load(EngineStore& s) {
  const Workload& w = Workload::Get();
  for (int64_t i = 0; i < kLoadedKeys; ++i) s.Put(i, w.Key(i), w.Value(i));
  Check(s.store->Commit({{kChangelog, kLoadedKeys}}), "Commit");
}

void Load(RawStore& s) {
  const Workload& w = Workload::Get();
  rocksdb::WriteBatch batch;
  for (int64_t i = 0; i < kLoadedKeys; ++i) batch.Put(w.Key(i), w.Value(i));
  Check(s.db->Write(RawStore::NoWal(), &batch), "DB::Write");
  s.Flush();
}

// The first `count` overwritten keys = value(i + 1), not committed.
void Overwrite(EngineStore& s, int64_t count) {
  const Workload& w = Workload::Get();
  for (int64_t j = 0; j < count; ++j) {
    const int64_t i = w.OverwrittenKey(j);
    s.Put(kLoadedKeys + j, w.Key(i), w.Value(i + 1));
  }
}

void Overwrite(RawStore& s, int64_t count) {
  const Workload& w = Workload::Get();
  for (int64_t j = 0; j < count; ++j) {
    const int64_t i = w.OverwrittenKey(j);
    s.Put(w.Key(i), w.Value(i + 1));
  }
}

// BM_Buffer's two buffers -------------------------------------------------------------------

// The engine's READ_COMMITTED buffer (engine/rocksdb_store.cc's Buffer): a value, or
// std::nullopt for a delete.
using MapBuffer = std::map<std::string, std::optional<std::string>, std::less<>>;

// The store's BufferWrite, byte count included.
void BufferWrite(MapBuffer& buffer, int64_t* buffered_bytes, std::string_view key,
                 std::optional<std::string_view> value) {
  auto [it, inserted] = buffer.try_emplace(std::string(key));
  if (!inserted) {
    *buffered_bytes -=
        static_cast<int64_t>(it->first.size() + (it->second ? it->second->size() : 0));
  }
  it->second = value ? std::optional<std::string>(std::string(*value)) : std::nullopt;
  *buffered_bytes += static_cast<int64_t>(key.size() + (value ? value->size() : 0));
}

// KIP-892's buffer: one index entry per key, the latest write winning.
std::unique_ptr<rocksdb::WriteBatchWithIndex> NewWbwi() {
  return std::make_unique<rocksdb::WriteBatchWithIndex>(rocksdb::BytewiseComparator(),
                                                        /*reserved_bytes=*/0,
                                                        /*overwrite_key=*/true);
}

// The whole buffered stream (10,000 writes) into each buffer.
void Fill(MapBuffer& buffer, int64_t* buffered_bytes) {
  const Workload& w = Workload::Get();
  for (int64_t j = 0; j < kBufferWrites; ++j) {
    BufferWrite(buffer, buffered_bytes, w.BufferKey(j), w.Value(j));
  }
}

void Fill(rocksdb::WriteBatchWithIndex& buffer) {
  const Workload& w = Workload::Get();
  for (int64_t j = 0; j < kBufferWrites; ++j) {
    Check(buffer.Put(w.BufferKey(j), w.Value(j)), "WriteBatchWithIndex::Put");
  }
}

// The store's Commit loop: one WriteBatch from the map.
void BuildBatch(const MapBuffer& buffer, rocksdb::WriteBatch* batch) {
  for (const auto& [key, value] : buffer) {
    value ? batch->Put(key, *value) : batch->Delete(key);
  }
}

// The stores BM_Get and BM_Range read, built once before any timing.
struct Fixtures {
  Fixtures()
      : get_committed(IsolationLevel::kReadCommitted),
        get_through_buffer(IsolationLevel::kReadCommitted),
        range_committed(IsolationLevel::kReadCommitted),
        range_uncommitted(IsolationLevel::kReadUncommitted) {
    Load(get_committed);
    Load(get_through_buffer);
    Overwrite(get_through_buffer, kGetBuffered);
    Load(get_raw);
    Load(range_committed);
    Overwrite(range_committed, kRangeBuffered);
    Load(range_uncommitted);
    Overwrite(range_uncommitted, kRangeBuffered);
    Load(range_raw);
    Overwrite(range_raw, kRangeBuffered);
    Load(buffer_db);
    int64_t buffered_bytes = 0;
    Fill(buffer_map, &buffered_bytes);
    buffer_wbwi = NewWbwi();
    Fill(*buffer_wbwi);
  }

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

// BM_Put ---------------------------------------------------------------------------------------

void BM_PutEngine(benchmark::State& state, IsolationLevel isolation) {
  const Workload& w = Workload::Get();
  EngineStore s(isolation);
  int64_t n = 0;
  for (auto _ : state) {
    s.context.offset = n;
    const Status status = s.store->Put(w.PutKey(n), w.Value(n), &s.context);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    if (++n % kCommitEvery == 0) {
      state.PauseTiming();
      Check(s.store->Commit({{kChangelog, n}}), "Commit");
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_PutRaw(benchmark::State& state) {
  const Workload& w = Workload::Get();
  RawStore s;
  const rocksdb::WriteOptions wo = RawStore::NoWal();
  int64_t n = 0;
  for (auto _ : state) {
    const rocksdb::Status status = s.db->Put(wo, w.PutKey(n), w.Value(n));
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    if (++n % kCommitEvery == 0) {
      state.PauseTiming();
      s.Flush();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}

// BM_Get ---------------------------------------------------------------------------------------

void BM_GetEngine(benchmark::State& state, EngineStore* s) {
  const Workload& w = Workload::Get();
  std::optional<std::string> value;
  int64_t i = 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    const Status status = s->store->Get(w.Key(w.LookupKey(i++)), &value);
    if (!status.ok() || !value) {
      state.SkipWithError("Get failed or found nothing");
      break;
    }
    bytes += static_cast<int64_t>(value->size());
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations());
  state.counters["buffered_bytes"] =
      static_cast<double>(s->store->ApproximateNumUncommittedBytes());
}

void BM_GetRaw(benchmark::State& state, RawStore* s) {
  const Workload& w = Workload::Get();
  const rocksdb::ReadOptions ro;
  int64_t i = 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    std::string value;  // Fresh, as the engine's Get reads into a fresh string.
    const rocksdb::Status status = s->db->Get(ro, w.Key(w.LookupKey(i++)), &value);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    bytes += static_cast<int64_t>(value.size());
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations());
}

// BM_Range -------------------------------------------------------------------------------------

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

bool DrainEngine(KeyValueStore& store, int64_t start, bool keep, Drained* out) {
  const Workload& w = Workload::Get();
  std::unique_ptr<KeyValueIterator> it;
  if (!store.Range(w.Key(start), w.Key(start + kRangeLength - 1), &it).ok()) return false;
  KeyValue kv;
  while (it->HasNext()) {
    if (!it->Next(&kv).ok()) return false;
    out->Add(std::move(kv), keep);
  }
  return true;
}

bool DrainRaw(rocksdb::DB& db, int64_t start, bool keep, Drained* out) {
  const Workload& w = Workload::Get();
  const rocksdb::Slice upper(w.Key(start + kRangeLength));  // Exclusive: key start + 99 is in.
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(ro));
  for (it->Seek(w.Key(start)); it->Valid(); it->Next()) {
    out->Add(KeyValue{it->key().ToString(), it->value().ToString()}, keep);
  }
  return it->status().ok();
}

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

void BM_RangeEngine(benchmark::State& state, EngineStore* s) {
  RangeLoop(state,
            [s](int64_t start, Drained* d) { return DrainEngine(*s->store, start, false, d); });
}

void BM_RangeRaw(benchmark::State& state, RawStore* s) {
  RangeLoop(state, [s](int64_t start, Drained* d) { return DrainRaw(*s->db, start, false, d); });
}

// BM_Commit ------------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

// The median of sorted `ms`: the middle element, or the mean of the two middle ones.
double MedianOfSorted(const std::vector<double>& ms) {
  if (ms.empty()) return 0;
  const size_t mid = ms.size() / 2;
  return ms.size() % 2 == 1 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
}

void ReportCommitTimes(benchmark::State& state, std::vector<double> ms, int64_t records) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  const auto at = [&ms](double q) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * static_cast<double>(ms.size())))];
  };
  state.counters["median_ms"] = MedianOfSorted(ms);
  state.counters["p90_ms"] = at(0.9);
  state.counters["max_ms"] = ms.back();
  state.counters["commits"] = static_cast<double>(ms.size());
  state.SetItemsProcessed(state.iterations() * records);
}

void BM_CommitEngine(benchmark::State& state, IsolationLevel isolation) {
  const Workload& w = Workload::Get();
  const int64_t records = state.range(0);
  EngineStore s(isolation);
  std::vector<double> ms;
  int64_t n = 0;
  for (auto _ : state) {
    for (const int64_t end = n + records; n < end; ++n) s.Put(n, w.PutKey(n), w.Value(n));
    const Clock::time_point begin = Clock::now();
    const Status status = s.store->Commit({{kChangelog, n}});
    const Clock::time_point end = Clock::now();
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    const double seconds = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(seconds);
    ms.push_back(seconds * 1e3);
  }
  ReportCommitTimes(state, std::move(ms), records);
}

void BM_CommitRaw(benchmark::State& state) {
  const Workload& w = Workload::Get();
  const int64_t records = state.range(0);
  RawStore s;
  std::vector<double> ms;
  int64_t n = 0;
  for (auto _ : state) {
    const Clock::time_point begin = Clock::now();
    rocksdb::WriteBatch batch;
    for (const int64_t end = n + records; n < end; ++n) batch.Put(w.PutKey(n), w.Value(n));
    Check(s.db->Write(RawStore::NoWal(), &batch), "DB::Write");
    s.Flush();
    const Clock::time_point end = Clock::now();
    const double seconds = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(seconds);
    ms.push_back(seconds * 1e3);
  }
  ReportCommitTimes(state, std::move(ms), records);
}

// BM_Buffer ------------------------------------------------------------------------------------

void BM_BufferPutMap(benchmark::State& state) {
  const Workload& w = Workload::Get();
  MapBuffer buffer;
  int64_t buffered_bytes = 0;
  int64_t n = 0;
  for (auto _ : state) {
    const int64_t j = n % kBufferWrites;
    BufferWrite(buffer, &buffered_bytes, w.BufferKey(j), w.Value(j));
    if (++n % kBufferWrites == 0) {
      state.PauseTiming();
      buffer.clear();
      buffered_bytes = 0;
      state.ResumeTiming();
    }
  }
  benchmark::DoNotOptimize(buffered_bytes);
  state.SetItemsProcessed(state.iterations());
}

void BM_BufferPutWbwi(benchmark::State& state) {
  const Workload& w = Workload::Get();
  const std::unique_ptr<rocksdb::WriteBatchWithIndex> buffer = NewWbwi();
  int64_t n = 0;
  for (auto _ : state) {
    const int64_t j = n % kBufferWrites;
    const rocksdb::Status status = buffer->Put(w.BufferKey(j), w.Value(j));
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    if (++n % kBufferWrites == 0) {
      state.PauseTiming();
      buffer->Clear();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}

// The store's writer Get: the map, then RocksDB into a fresh string.
bool GetThroughMap(rocksdb::DB& db, const MapBuffer& buffer, const rocksdb::ReadOptions& ro,
                   std::string_view key, std::optional<std::string>* value) {
  value->reset();
  if (auto it = buffer.find(key); it != buffer.end()) {
    *value = it->second;
    return true;
  }
  std::string v;
  const rocksdb::Status status = db.Get(ro, key, &v);
  if (status.IsNotFound()) return true;
  if (!status.ok()) return false;
  *value = std::move(v);
  return true;
}

bool GetThroughWbwi(rocksdb::DB& db, rocksdb::WriteBatchWithIndex& buffer,
                    const rocksdb::ReadOptions& ro, std::string_view key,
                    std::optional<std::string>* value) {
  value->reset();
  std::string v;
  const rocksdb::Status status = buffer.GetFromBatchAndDB(&db, ro, key, &v);
  if (status.IsNotFound()) return true;
  if (!status.ok()) return false;
  *value = std::move(v);
  return true;
}

template <class GetThrough>
void BufferGetLoop(benchmark::State& state, GetThrough get) {
  const Workload& w = Workload::Get();
  const rocksdb::ReadOptions ro;
  int64_t i = 0;
  int64_t bytes = 0;
  for (auto _ : state) {
    std::optional<std::string> value;
    if (!get(ro, w.Key(w.BufferLookupKey(i++)), &value) || !value) {
      state.SkipWithError("get failed or found nothing");
      break;
    }
    bytes += static_cast<int64_t>(value->size());
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations());
}

void BM_BufferGetThroughMap(benchmark::State& state, Fixtures* f) {
  BufferGetLoop(state, [f](const rocksdb::ReadOptions& ro, std::string_view key,
                           std::optional<std::string>* value) {
    return GetThroughMap(*f->buffer_db.db, f->buffer_map, ro, key, value);
  });
}

void BM_BufferGetThroughWbwi(benchmark::State& state, Fixtures* f) {
  BufferGetLoop(state, [f](const rocksdb::ReadOptions& ro, std::string_view key,
                           std::optional<std::string>* value) {
    return GetThroughWbwi(*f->buffer_db.db, *f->buffer_wbwi, ro, key, value);
  });
}

// Per iteration: fill() buffers the stream (untimed); commit(db) is timed and returns the
// records it wrote; clear() is timed apart; then an untimed flush.
template <class FillFn, class CommitFn, class ClearFn>
void BufferCommitLoop(benchmark::State& state, FillFn fill, CommitFn commit, ClearFn clear) {
  RawStore s(/*auto_compactions=*/false);
  Load(s);
  std::vector<double> ms;
  std::vector<double> clear_ms;
  uint32_t records_written = 0;
  for (auto _ : state) {
    fill();
    const Clock::time_point begin = Clock::now();
    records_written = commit(*s.db);
    const Clock::time_point end = Clock::now();
    clear();
    const Clock::time_point cleared = Clock::now();
    s.Flush();
    const double seconds = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(seconds);
    ms.push_back(seconds * 1e3);
    clear_ms.push_back(std::chrono::duration<double, std::milli>(cleared - end).count());
  }
  ReportCommitTimes(state, std::move(ms), kBufferWrites);
  std::sort(clear_ms.begin(), clear_ms.end());
  state.counters["clear_ms"] = MedianOfSorted(clear_ms);
  state.counters["records_written"] = static_cast<double>(records_written);
}

void BM_BufferCommitMap(benchmark::State& state) {
  MapBuffer buffer;
  int64_t buffered_bytes = 0;
  BufferCommitLoop(
      state, [&] { Fill(buffer, &buffered_bytes); },
      [&buffer](rocksdb::DB& db) {
        rocksdb::WriteBatch batch;
        BuildBatch(buffer, &batch);
        Check(db.Write(RawStore::NoWal(), &batch), "DB::Write");
        return batch.Count();
      },
      [&] {
        buffer.clear();
        buffered_bytes = 0;
      });
}

void BM_BufferCommitWbwi(benchmark::State& state) {
  const std::unique_ptr<rocksdb::WriteBatchWithIndex> buffer = NewWbwi();
  BufferCommitLoop(
      state, [&buffer] { Fill(*buffer); },
      [&buffer](rocksdb::DB& db) {
        rocksdb::WriteBatch* batch = buffer->GetWriteBatch();
        Check(db.Write(RawStore::NoWal(), batch), "DB::Write");
        return batch->Count();
      },
      [&buffer] { buffer->Clear(); });
}

// The map buffer's writer range over [start, start + 100): the buffered records in it copied
// out of the map (as the store's WriterOpenBounds does) and merged over a RocksDB iterator, the
// buffer winning on equal keys and its deletes hiding the database's records.
bool DrainMap(rocksdb::DB& db, const MapBuffer& buffer, int64_t start, bool keep, Drained* out) {
  const Workload& w = Workload::Get();
  const std::string_view lower = w.Key(start);
  const std::string_view upper_key = w.Key(start + kRangeLength);  // Exclusive.
  std::vector<std::pair<std::string, std::optional<std::string>>> buffered(
      buffer.lower_bound(lower), buffer.lower_bound(upper_key));
  const rocksdb::Slice upper(upper_key);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(ro));
  it->Seek(lower);
  auto b = buffered.begin();
  for (;;) {
    const bool in_db = it->Valid();
    if (b == buffered.end() && !in_db) break;
    const int order = b == buffered.end() ? 1
                      : !in_db            ? -1
                                          : rocksdb::Slice(b->first).compare(it->key());
    if (order <= 0) {
      if (b->second) out->Add(KeyValue{std::move(b->first), std::move(*b->second)}, keep);
      ++b;
      if (order == 0) it->Next();
    } else {
      out->Add(KeyValue{it->key().ToString(), it->value().ToString()}, keep);
      it->Next();
    }
  }
  return it->status().ok();
}

// The WriteBatchWithIndex's writer range: its index merged over the same RocksDB iterator.
// RocksDB 7.8's merged iterator applies iterate_upper_bound to the database side only (its batch
// side runs on to the end of the batch), so the loop checks the bound itself.
bool DrainWbwi(rocksdb::DB& db, rocksdb::WriteBatchWithIndex& buffer, int64_t start, bool keep,
               Drained* out) {
  const Workload& w = Workload::Get();
  const rocksdb::Slice upper(w.Key(start + kRangeLength));  // Exclusive.
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      buffer.NewIteratorWithBase(db.DefaultColumnFamily(), db.NewIterator(ro), &ro));
  for (it->Seek(w.Key(start)); it->Valid() && it->key().compare(upper) < 0; it->Next()) {
    out->Add(KeyValue{it->key().ToString(), it->value().ToString()}, keep);
  }
  return it->status().ok();
}

void BM_BufferIterateMap(benchmark::State& state, Fixtures* f) {
  RangeLoop(state, [f](int64_t start, Drained* d) {
    return DrainMap(*f->buffer_db.db, f->buffer_map, start, false, d);
  });
}

void BM_BufferIterateWbwi(benchmark::State& state, Fixtures* f) {
  RangeLoop(state, [f](int64_t start, Drained* d) {
    return DrainWbwi(*f->buffer_db.db, *f->buffer_wbwi, start, false, d);
  });
}

// Per iteration: build(), which buffers the whole stream and returns its payload bytes, runs
// with the heap counted; the buffer it built stays alive until the counts are taken.
template <class Build>
void BufferMemoryLoop(benchmark::State& state, Build build) {
  for (auto _ : state) {
    const struct mallinfo2 before = mallinfo2();
    StartHeapCounting();
    const auto [buffer, data_bytes] = build();
    StopHeapCounting();
    const struct mallinfo2 after = mallinfo2();
    const double malloc_bytes = static_cast<double>(after.uordblks + after.hblkhd) -
                                static_cast<double>(before.uordblks + before.hblkhd);
    const double entries = static_cast<double>(kBufferDistinct);
    state.counters["entries"] = entries;
    state.counters["heap_bytes_per_entry"] = static_cast<double>(CountedHeapBytes()) / entries;
    state.counters["malloc_bytes_per_entry"] = malloc_bytes / entries;
    state.counters["data_bytes_per_entry"] = static_cast<double>(data_bytes) / entries;
    benchmark::DoNotOptimize(buffer.get());
  }
}

void BM_BufferMemoryMap(benchmark::State& state) {
  BufferMemoryLoop(state, [] {
    auto buffer = std::make_unique<MapBuffer>();
    int64_t buffered_bytes = 0;
    Fill(*buffer, &buffered_bytes);
    return std::make_pair(std::move(buffer), buffered_bytes);
  });
}

void BM_BufferMemoryWbwi(benchmark::State& state) {
  BufferMemoryLoop(state, [] {
    auto buffer = NewWbwi();
    Fill(*buffer);
    const auto data_bytes = static_cast<int64_t>(buffer->GetWriteBatch()->GetDataSize());
    return std::make_pair(std::move(buffer), data_bytes);
  });
}

// Checks ---------------------------------------------------------------------------------------

// Before any timing: every store returns what was written, and the three BM_Range stores the
// same records.
bool StoresAgree(Fixtures& f) {
  const Workload& w = Workload::Get();
  for (int64_t i = 0; i < 1'000; ++i) {
    const int64_t k = w.LookupKey(i);
    const std::string expected(w.Value(k));
    std::optional<std::string> committed, through_buffer;
    std::string raw;
    if (!f.get_committed.store->Get(w.Key(k), &committed).ok() ||
        !f.get_through_buffer.store->Get(w.Key(k), &through_buffer).ok() ||
        !f.get_raw.db->Get(rocksdb::ReadOptions(), w.Key(k), &raw).ok() || committed != expected ||
        through_buffer != expected || raw != expected) {
      std::fprintf(stderr, "check failed: Get of key %" PRId64 " differs\n", k);
      return false;
    }
  }
  // Read-your-writes: the buffered overwrites win.
  for (int64_t j = 0; j < kGetBuffered; j += 97) {
    const int64_t k = w.OverwrittenKey(j);
    std::optional<std::string> value;
    if (!f.get_through_buffer.store->Get(w.Key(k), &value).ok() ||
        value != std::string(w.Value(k + 1))) {
      std::fprintf(stderr, "check failed: buffered key %" PRId64 " does not read its write\n", k);
      return false;
    }
  }
  int64_t ranges = 0;
  int64_t overwritten_seen = 0;
  for (int64_t i = 0; i < 1'000; ++i, ++ranges) {
    const int64_t start = w.RangeStart(i);
    Drained committed, uncommitted, raw;
    if (!DrainEngine(*f.range_committed.store, start, true, &committed) ||
        !DrainEngine(*f.range_uncommitted.store, start, true, &uncommitted) ||
        !DrainRaw(*f.range_raw.db, start, true, &raw) || committed.records != kRangeLength ||
        committed.kvs != uncommitted.kvs || committed.kvs != raw.kvs) {
      std::fprintf(stderr, "check failed: range from key %" PRId64 " differs\n", start);
      return false;
    }
    for (int64_t r = 0; r < kRangeLength; ++r) {
      if (committed.kvs[r].value != w.Value(start + r)) ++overwritten_seen;
    }
  }
  std::printf(
      "check: the three Get stores agree on 1,000 lookups; the three Range stores on %" PRId64
      " ranges of %" PRId64 " records (%" PRId64 " overwritten records seen)\n",
      ranges, kRangeLength, overwritten_seen);
  return overwritten_seen > 0;
}

// Every record of `db`, in order.
std::vector<KeyValue> Contents(rocksdb::DB& db) {
  std::vector<KeyValue> kvs;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    kvs.push_back(KeyValue{it->key().ToString(), it->value().ToString()});
  }
  Check(it->status(), "Iterator");
  return kvs;
}

// Before any timing: BM_Buffer's two buffers hold the same 9,000 entries, agree on every get
// (buffered keys read their last write, the lookup keys the database's value) and on the
// ranges, and their commits leave the same records.
bool BuffersAgree(Fixtures& f) {
  const Workload& w = Workload::Get();
  rocksdb::DB& db = *f.buffer_db.db;
  rocksdb::WriteBatchWithIndex& wbwi = *f.buffer_wbwi;
  int64_t index_entries = 0;
  {
    std::unique_ptr<rocksdb::WBWIIterator> it(wbwi.NewIterator());
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++index_entries;
  }
  if (static_cast<int64_t>(f.buffer_map.size()) != kBufferDistinct ||
      index_entries != kBufferDistinct ||
      wbwi.GetWriteBatch()->Count() != static_cast<uint32_t>(kBufferWrites)) {
    std::fprintf(stderr,
                 "check failed: map entries %zu, index entries %" PRId64 ", batch records %u\n",
                 f.buffer_map.size(), index_entries, wbwi.GetWriteBatch()->Count());
    return false;
  }
  const rocksdb::ReadOptions ro;
  std::optional<std::string> from_map, from_wbwi;
  for (const auto& [key, value] : f.buffer_map) {
    if (!GetThroughWbwi(db, wbwi, ro, key, &from_wbwi) || from_wbwi != value) {
      std::fprintf(stderr, "check failed: buffered key %s differs\n", key.c_str());
      return false;
    }
  }
  for (int64_t i = 0; i < 1'000; ++i) {
    const int64_t k = w.BufferLookupKey(i);
    const std::string expected(w.Value(k));
    if (!GetThroughMap(db, f.buffer_map, ro, w.Key(k), &from_map) ||
        !GetThroughWbwi(db, wbwi, ro, w.Key(k), &from_wbwi) || from_map != expected ||
        from_wbwi != expected) {
      std::fprintf(stderr, "check failed: get through to key %" PRId64 " differs\n", k);
      return false;
    }
  }
  int64_t buffered_seen = 0;
  for (int64_t i = 0; i < 1'000; ++i) {
    const int64_t start = w.BufferRangeStart(i);
    Drained map, wbwi_drained;
    if (!DrainMap(db, f.buffer_map, start, true, &map) ||
        !DrainWbwi(db, wbwi, start, true, &wbwi_drained) || map.records != kRangeLength ||
        map.kvs != wbwi_drained.kvs) {
      std::fprintf(stderr, "check failed: buffered range from key %" PRId64 " differs\n", start);
      return false;
    }
    for (const KeyValue& kv : map.kvs) buffered_seen += f.buffer_map.count(kv.key);
  }
  RawStore map_commit, wbwi_commit;
  rocksdb::WriteBatch batch;
  BuildBatch(f.buffer_map, &batch);
  Check(map_commit.db->Write(RawStore::NoWal(), &batch), "DB::Write");
  Check(wbwi_commit.db->Write(RawStore::NoWal(), wbwi.GetWriteBatch()), "DB::Write");
  if (Contents(*map_commit.db) != Contents(*wbwi_commit.db)) {
    std::fprintf(stderr, "check failed: the two commits leave different records\n");
    return false;
  }
  std::printf("check: map and wbwi buffers agree on %" PRId64 " entries (%" PRId64
              " writes), 1,000 gets through, 1,000 ranges (%" PRId64
              " buffered records seen) and their commits\n",
              kBufferDistinct, kBufferWrites, buffered_seen);
  return buffered_seen > 0;
}

// Summary --------------------------------------------------------------------------------------

// The console table, then the SPEC T11 targets and other ratios.
class SummaryReporter : public MeanReporter {
 public:
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::ostream& out = GetOutputStream();
    if (Ran("BM_Put/") || Ran("BM_Get/") || Ran("BM_Range/") || Ran("BM_Commit/")) {
      StoreSummary(out);
    }
    if (Ran("BM_Buffer/")) BufferSummary(out);
  }

 private:
  // BM_Buffer: map against wbwi, metric by metric.
  void BufferSummary(std::ostream& out) const {
    out << "\nBM_Buffer: std::map buffer (map) / WriteBatchWithIndex (wbwi); below 1x the map is "
           "faster or smaller:\n";
    // Time per item from items_per_second, times `scale` (1e9: ns, 1e6: us).
    BufferRatio(out, "put: ns per buffered write", "Put", "items_per_second", 1e9);
    BufferRatio(out, "get through (miss, RocksDB read): ns per get", "GetThrough",
                "items_per_second", 1e9);
    BufferRatio(out, "commit of 10,000 writes: median ms", "Commit", "median_ms", 0);
    BufferRatio(out, "clear after commit: median ms", "Commit", "clear_ms", 0);
    BufferRatio(out, "commit: records written", "Commit", "records_written", 0);
    BufferRatio(out, "iterate 100 keys (~9 buffered): us per range", "Iterate", "items_per_second",
                1e6);
    BufferRatio(out, "memory: heap bytes per entry (operator new)", "Memory",
                "heap_bytes_per_entry", 0);
    BufferRatio(out, "memory: malloc bytes per entry (mallinfo2)", "Memory",
                "malloc_bytes_per_entry", 0);
    BufferRatio(out, "memory: data bytes per entry (payload/batch)", "Memory",
                "data_bytes_per_entry", 0);
  }

  // `counter` of BM_Buffer/<op>/map over BM_Buffer/<op>/wbwi; with a `per_item_scale`, the
  // counter is a rate and the ratio is of time per item (scale / rate).
  void BufferRatio(std::ostream& out, const char* what, const char* op, const char* counter,
                   double per_item_scale) const {
    const std::string base = std::string("BM_Buffer/") + op;
    std::optional<double> map = MeanOf(base + "/map", counter);
    std::optional<double> wbwi = MeanOf(base + "/wbwi", counter);
    if (!map || !wbwi || *map == 0 || *wbwi == 0) {
      out << "  " << what << ": not measured\n";
      return;
    }
    if (per_item_scale > 0) {
      map = per_item_scale / *map;
      wbwi = per_item_scale / *wbwi;
    }
    char line[256];
    std::snprintf(line, sizeof(line), "  %-48s map %10.3f  wbwi %10.3f  map/wbwi = %6.3fx\n", what,
                  *map, *wbwi, *map / *wbwi);
    out << line;
  }

  // The SPEC T11 targets and the store ratios.
  void StoreSummary(std::ostream& out) const {
    out << "\nSPEC T11 targets:\n";
    // Throughput ratio a/b, or time ratio b/a from rates (time per op = 1 / rate).
    Ratio(out, "put: read_committed / read_uncommitted throughput", "BM_Put/read_committed",
          "BM_Put/read_uncommitted", false, ">=", 1.0);
    Absolute(out, "commit of 10,000 buffered records, median", "BM_Commit/read_committed/10000",
             "<", 50.0);
    Ratio(out, "get: through_buffer / committed time per get", "BM_Get/through_buffer",
          "BM_Get/committed", true, "<=", 1.5);
    out << "\nfor reference:\n";
    Ratio(out, "put: read_committed / raw_rocksdb throughput", "BM_Put/read_committed",
          "BM_Put/raw_rocksdb", false, "", 0);
    Ratio(out, "put: read_uncommitted / raw_rocksdb throughput", "BM_Put/read_uncommitted",
          "BM_Put/raw_rocksdb", false, "", 0);
    Ratio(out, "get: committed / raw_rocksdb time per get", "BM_Get/committed",
          "BM_Get/raw_rocksdb", true, "", 0);
    Ratio(out, "range: read_committed / raw_rocksdb time per range", "BM_Range/read_committed",
          "BM_Range/raw_rocksdb", true, "", 0);
    Ratio(out, "range: read_uncommitted / raw_rocksdb time per range", "BM_Range/read_uncommitted",
          "BM_Range/raw_rocksdb", true, "", 0);
    for (const char* n : {"100", "1000", "10000"}) {
      const std::string suffix = std::string("/") + n;
      const std::optional<double> rc = MeanOf("BM_Commit/read_committed" + suffix, "median_ms");
      const std::optional<double> ru = MeanOf("BM_Commit/read_uncommitted" + suffix, "median_ms");
      const std::optional<double> raw = MeanOf("BM_Commit/raw_rocksdb" + suffix, "median_ms");
      if (!rc || !ru || !raw) continue;
      char line[256];
      std::snprintf(line, sizeof(line),
                    "  commit of %5s, median ms: read_committed %8.3f  read_uncommitted %8.3f  "
                    "raw_rocksdb %8.3f  (read_committed / raw_rocksdb = %.2fx)\n",
                    n, *rc, *ru, *raw, *raw > 0 ? *rc / *raw : 0.0);
      out << line;
    }
  }

  static void Verdict(std::ostream& out, bool met, const char* op, double target,
                      const char* unit) {
    char line[128];
    std::snprintf(line, sizeof(line), "   target %s %.1f%s: %s", op, target, unit,
                  met ? "MET" : "MISSED");
    out << line;
  }

  // items_per_second of a over b; with `time`, the time-per-item ratio a/b instead.
  void Ratio(std::ostream& out, const char* what, const std::string& a, const std::string& b,
             bool time, const char* op, double target) const {
    const std::optional<double> ra = MeanOf(a, "items_per_second");
    const std::optional<double> rb = MeanOf(b, "items_per_second");
    if (!ra || !rb || *ra == 0 || *rb == 0) {
      out << "  " << what << ": not measured\n";
      return;
    }
    const double ratio = time ? *rb / *ra : *ra / *rb;
    char line[256];
    std::snprintf(line, sizeof(line), "  %-56s = %7.3fx", what, ratio);
    out << line;
    if (*op != '\0') {
      Verdict(out, std::string_view(op) == ">=" ? ratio >= target : ratio <= target, op, target,
              "x");
    }
    out << "\n";
  }

  void Absolute(std::ostream& out, const char* what, const std::string& benchmark, const char* op,
                double target_ms) const {
    const std::optional<double> ms = MeanOf(benchmark, "median_ms");
    if (!ms) {
      out << "  " << what << ": not measured\n";
      return;
    }
    char line[256];
    std::snprintf(line, sizeof(line), "  %-56s = %7.3f ms", what, *ms);
    out << line;
    Verdict(out, *ms < target_ms, op, target_ms, " ms");
    out << "\n";
  }
};

void RegisterBenchmarks(Fixtures* f) {
  using benchmark::State;
  // Constants: the lambdas read them without capturing them.
  static constexpr auto rc = IsolationLevel::kReadCommitted;
  static constexpr auto ru = IsolationLevel::kReadUncommitted;

  benchmark::RegisterBenchmark("BM_Put/read_committed", [](State& s) { BM_PutEngine(s, rc); });
  benchmark::RegisterBenchmark("BM_Put/read_uncommitted", [](State& s) { BM_PutEngine(s, ru); });
  benchmark::RegisterBenchmark("BM_Put/raw_rocksdb", BM_PutRaw);

  benchmark::RegisterBenchmark("BM_Get/committed",
                               [f](State& s) { BM_GetEngine(s, &f->get_committed); });
  benchmark::RegisterBenchmark("BM_Get/through_buffer",
                               [f](State& s) { BM_GetEngine(s, &f->get_through_buffer); });
  benchmark::RegisterBenchmark("BM_Get/raw_rocksdb", [f](State& s) { BM_GetRaw(s, &f->get_raw); });

  benchmark::RegisterBenchmark("BM_Range/read_committed", [f](State& s) {
    BM_RangeEngine(s, &f->range_committed);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Range/read_uncommitted", [f](State& s) {
    BM_RangeEngine(s, &f->range_uncommitted);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Range/raw_rocksdb", [f](State& s) {
    BM_RangeRaw(s, &f->range_raw);
  })->Unit(benchmark::kMicrosecond);

  const auto commit = [](benchmark::internal::Benchmark* b) {
    b->Arg(100)->Arg(1'000)->Arg(10'000)->UseManualTime()->Unit(benchmark::kMillisecond);
  };
  commit(benchmark::RegisterBenchmark("BM_Commit/read_committed",
                                      [](State& s) { BM_CommitEngine(s, rc); }));
  commit(benchmark::RegisterBenchmark("BM_Commit/read_uncommitted",
                                      [](State& s) { BM_CommitEngine(s, ru); }));
  commit(benchmark::RegisterBenchmark("BM_Commit/raw_rocksdb", BM_CommitRaw));

  benchmark::RegisterBenchmark("BM_Buffer/Put/map", BM_BufferPutMap);
  benchmark::RegisterBenchmark("BM_Buffer/Put/wbwi", BM_BufferPutWbwi);
  benchmark::RegisterBenchmark("BM_Buffer/GetThrough/map",
                               [f](State& s) { BM_BufferGetThroughMap(s, f); });
  benchmark::RegisterBenchmark("BM_Buffer/GetThrough/wbwi",
                               [f](State& s) { BM_BufferGetThroughWbwi(s, f); });
  benchmark::RegisterBenchmark("BM_Buffer/Commit/map", BM_BufferCommitMap)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Buffer/Commit/wbwi", BM_BufferCommitWbwi)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Buffer/Iterate/map", [f](State& s) {
    BM_BufferIterateMap(s, f);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Buffer/Iterate/wbwi", [f](State& s) {
    BM_BufferIterateWbwi(s, f);
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Buffer/Memory/map", BM_BufferMemoryMap)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Buffer/Memory/wbwi", BM_BufferMemoryWbwi)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace statecheck::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  using statecheck::bench::Fixtures;
  auto fixtures = std::make_unique<Fixtures>();
  if (!statecheck::bench::StoresAgree(*fixtures)) return 1;
  if (!statecheck::bench::BuffersAgree(*fixtures)) return 1;
  statecheck::bench::RegisterBenchmarks(fixtures.get());
  statecheck::bench::SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  fixtures.reset();
  return 0;
}
