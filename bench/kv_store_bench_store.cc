// kv_store_bench's store benchmarks: BM_Put, BM_Get, BM_Range and BM_Commit, the engine's store
// under each isolation level against raw RocksDB (kv_store_bench.cc describes them).
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
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
#include "bench/kv_store_bench.h"
#include "benchmark/benchmark.h"
#include "statecheck/key_value_store.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck::bench::kv_store {

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

void BM_RangeEngine(benchmark::State& state, EngineStore* s) {
  RangeLoop(state,
            [s](int64_t start, Drained* d) { return DrainEngine(*s->store, start, false, d); });
}

void BM_RangeRaw(benchmark::State& state, RawStore* s) {
  RangeLoop(state, [s](int64_t start, Drained* d) { return DrainRaw(*s->db, start, false, d); });
}

// BM_Commit ------------------------------------------------------------------------------------

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

void BM_CommitEngine(benchmark::State& state, IsolationLevel isolation, bool use_wal) {
  const Workload& w = Workload::Get();
  const int64_t records = state.range(0);
  EngineStore s(isolation, use_wal);
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

void BM_CommitRawMemtable(benchmark::State& state, bool sorted) {
  const Workload& w = Workload::Get();
  const int64_t records = state.range(0);
  RawStore s(/*auto_compactions=*/false);
  std::vector<double> ms;
  std::vector<std::string_view> keys;
  int64_t n = 0;
  for (auto _ : state) {
    keys.clear();
    const int64_t first = n;
    for (const int64_t end = n + records; n < end; ++n) keys.push_back(w.PutKey(n));
    if (sorted) std::sort(keys.begin(), keys.end());
    rocksdb::WriteBatch batch;
    for (size_t i = 0; i < keys.size(); ++i) batch.Put(keys[i], w.Value(first + int64_t(i)));
    const Clock::time_point begin = Clock::now();
    Check(s.db->Write(RawStore::NoWal(), &batch), "DB::Write");
    const Clock::time_point end = Clock::now();
    s.Flush();  // Not timed: the next write goes into an empty memtable.
    const double seconds = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(seconds);
    ms.push_back(seconds * 1e3);
  }
  ReportCommitTimes(state, std::move(ms), records);
}

}  // namespace statecheck::bench::kv_store
