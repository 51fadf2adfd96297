// kv_store_bench's BM_Buffer: the READ_COMMITTED write buffer alone, the engine's std::map
// against KIP-892's WriteBatchWithIndex (kv_store_bench.cc describes the benchmarks).
#include <malloc.h>
#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
#include "bench/heap_accounting.h"
#include "bench/kv_store_bench.h"
#include "benchmark/benchmark.h"

namespace statecheck::bench::kv_store {

// BM_Buffer's two buffers -------------------------------------------------------------------

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

}  // namespace statecheck::bench::kv_store
