// kv_store_bench's workload and fixtures (kv_store_bench.h): the keys, values and orders, the
// stores loaded before the benchmarks that read them, and the buffers filled for BM_Buffer.
#include <rocksdb/write_batch.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
#include "bench/kv_store_bench.h"

namespace statecheck::bench::kv_store {

Workload::Workload(std::mt19937_64 rng) : records_(kKeySpace, rng) {
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

// Keys 0..kLoadedKeys-1 = value(i), committed.
void Load(EngineStore& s) {
  const Workload& w = Workload::Get();
  for (int64_t i = 0; i < kLoadedKeys; ++i) s.Put(i, w.Key(i), w.Value(i));
  Check(s.store->Commit({{kChangelog, kLoadedKeys}}), "Commit");
  s.Reopen();  // The clean close flushes them into one table file (a commit does not: C7).
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

Fixtures::Fixtures()
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

}  // namespace statecheck::bench::kv_store
