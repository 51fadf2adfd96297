// A READ_COMMITTED store's transaction buffer (engine/store/write_buffer.h) against the
// std::map<std::string, std::optional<std::string>> the store used before it, on one
// transaction of 10,000 writes: 16-byte keys, 100-byte values, 9,000 distinct keys in random
// order and 1,000 overwrites (bench/kv_store_bench's BM_Buffer stream). A program to run by
// hand, not a test:
//   build/release/engine/write_buffer_bench
// BM_WriteBuffer/Put/{arena,map}: the 10,000 writes (the store's BufferWrite), byte count
//   included; items/s = writes/s. Cleared, untimed, after each transaction.
// BM_WriteBuffer/Batch/{arena,map}: the commit's copy: one rocksdb::WriteBatch with every
//   buffered write in key order (the store's Commit loop; the arena's batch reserved as the
//   store reserves it).
// BM_WriteBuffer/Clear/{arena,map}: clearing the buffer after the commit.
#include <benchmark/benchmark.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/write_buffer.h"

namespace statecheck::internal {
namespace {

using MapBuffer = std::map<std::string, std::optional<std::string>, std::less<>>;

constexpr int64_t kWrites = 10'000;
constexpr int64_t kDistinct = 9'000;

struct Stream {
  Stream() {
    std::mt19937_64 rng(42);
    std::vector<int64_t> ids(kWrites);
    for (int64_t i = 0; i < kWrites; ++i) ids[i] = i < kDistinct ? i * 11 : rng() % kDistinct * 11;
    std::shuffle(ids.begin(), ids.end(), rng);
    for (int64_t id : ids) {
      char key[32];
      std::snprintf(key, sizeof(key), "key-%012" PRId64, id);
      keys.emplace_back(key);
      values.emplace_back(100, static_cast<char>('a' + rng() % 26));
    }
  }
  std::vector<std::string> keys, values;
};

const Stream& TheStream() {
  static const Stream stream;
  return stream;
}

// The store's BufferWrite, for each buffer.
void Write(WriteBuffer& b, int64_t* bytes, std::string_view key, std::string_view value) {
  if (const std::optional<int64_t> replaced = b.Put(key, value)) *bytes -= *replaced;
  *bytes += static_cast<int64_t>(key.size() + value.size());
}

void Write(MapBuffer& b, int64_t* bytes, std::string_view key, std::string_view value) {
  auto [it, inserted] = b.try_emplace(std::string(key));
  if (!inserted) {
    *bytes -= static_cast<int64_t>(it->first.size() + (it->second ? it->second->size() : 0));
  }
  it->second = std::string(value);
  *bytes += static_cast<int64_t>(key.size() + value.size());
}

template <typename Buffer>
int64_t Fill(Buffer& b) {
  const Stream& s = TheStream();
  int64_t bytes = 0;
  for (int64_t i = 0; i < kWrites; ++i) Write(b, &bytes, s.keys[i], s.values[i]);
  return bytes;
}

void Append(const WriteBuffer& b, int64_t bytes, rocksdb::WriteBatch* batch) {
  *batch = rocksdb::WriteBatch(static_cast<size_t>(bytes) + 16 * b.size() + 4096);
  for (const auto& [key, slot] : b) {
    const std::optional<std::string_view> value = slot.value();
    value ? batch->Put(key, *value) : batch->Delete(key);
  }
}

void Append(const MapBuffer& b, int64_t /*bytes*/, rocksdb::WriteBatch* batch) {
  for (const auto& [key, value] : b) value ? batch->Put(key, *value) : batch->Delete(key);
}

void Clear(WriteBuffer& b) { b.Clear(); }
void Clear(MapBuffer& b) { b.clear(); }

template <typename Buffer>
void BM_Put(benchmark::State& state) {
  for (auto _ : state) {
    Buffer b;
    benchmark::DoNotOptimize(Fill(b));
    state.PauseTiming();
    Clear(b);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kWrites);
}

template <typename Buffer>
void BM_Batch(benchmark::State& state) {
  Buffer b;
  const int64_t bytes = Fill(b);
  for (auto _ : state) {
    rocksdb::WriteBatch batch;
    Append(b, bytes, &batch);
    benchmark::DoNotOptimize(batch.Data().data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(b.size()));
}

template <typename Buffer>
void BM_Clear(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    Buffer b;
    Fill(b);
    state.ResumeTiming();
    Clear(b);
  }
  state.SetItemsProcessed(state.iterations() * kDistinct);
}

BENCHMARK(BM_Put<WriteBuffer>)->Name("BM_WriteBuffer/Put/arena")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Put<MapBuffer>)->Name("BM_WriteBuffer/Put/map")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Batch<WriteBuffer>)->Name("BM_WriteBuffer/Batch/arena")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Batch<MapBuffer>)->Name("BM_WriteBuffer/Batch/map")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Clear<WriteBuffer>)->Name("BM_WriteBuffer/Clear/arena")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Clear<MapBuffer>)->Name("BM_WriteBuffer/Clear/map")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace statecheck::internal

BENCHMARK_MAIN();
