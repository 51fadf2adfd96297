// window_store_bench: the engine's in-memory window store (statecheck::NewInMemoryWindowStore)
// against the KIP-428 seed's literal design (bench/seed_window_store.h), on the same data.
//
// Workload (identical for both stores):
//   * 10,000 keys "user-%08d" (13 bytes); values 16 bytes, as Kafka's ValueAndTimestamp of a
//     long aggregate (8-byte timestamp + 8-byte aggregate).
//   * Retention 1,000 ms, window size 100 ms. Puts arrive 100 per ms: put n goes to window start
//     n / 100. Every 100 consecutive segments (10,000 puts) use each key exactly once, in an
//     order drawn from a fixed-seed RNG, so a segment holds 100 distinct keys and each key sits
//     in 10 of the 1,000 live segments.
//   * Steady state: 100,000 puts (starts 0..999) give 1,000 live segments × 100 records =
//     100,000 live records, stream time 999.
//
// Benchmarks (each as BM_X/engine next to BM_X/seed_baseline):
//   BM_Put                  One put per iteration into the steady state, continuing the stream,
//                           so one 100-record segment expires every 100 puts. items/s = puts/s.
//   BM_SingleKeyRangeFetch  Fetch one random key over the whole live range [0, 999] and drain
//                           it (~10 records). items/s = fetches/s.
//   BM_FetchAll             FetchAll over the newest 100 segments [900, 999] and drain it
//                           (10,000 records). items/s = records/s. The engine drains through
//                           NextView (views of its iterator's snapshot); BM_FetchAll/engine_next
//                           drains the engine through Next, copying each record out.
//   BM_Expiry               Per step, in the steady state: the two puts that open a new ms
//                           (between them, the store expires the oldest segment of 100 records;
//                           Kafka's order expires it at the second) are timed by hand
//                           (manual_time); the other 98 puts of that ms are not timed. So time
//                           per iteration = expiring one 100-record segment + two puts.
//                           items/s = expired records/s.
//   BM_ExpiryBulk           Build the steady state (untimed), then time the two puts at stream
//                           time + retention that expire all 1,000 segments (100,000 records).
//                           items/s = expired records/s. Counter records_left must be 2: were it
//                           larger, the store deferred part of the expiry past the timed puts.
//   BM_MemoryPerRecord      Live heap bytes per live record after streaming 200,000 puts (so the
//                           first 1,000 segments have expired; 100,000 records live).
//                           bytes_per_record counts malloc_usable_size of every block allocated
//                           minus every block freed through operator new/delete while the store
//                           is built (bench/heap_accounting.h); malloc_bytes_per_record is the
//                           same delta taken from glibc's mallinfo2 (chunk headers included, and
//                           blocks malloc'd directly, which operator new does not see).
// Drained records are consumed on both sides: the window start and the aggregate in the value
// are summed into a checksum, and before any timing the program checks that the two stores
// return the same records. The engine's iterator hands out views of the records it copied from
// the store when it entered their segment (NextView); the baseline's returns views into the
// store itself (as a Kafka iterator returns the stored byte[]), which favours the baseline.
//
// After the table the program prints engine/baseline ratios (means over repetitions) against
// the targets of issue #21 (put >= 3x, single-key range fetch >= 100x, fetchAll >= 1x, memory
// per live record <= 0.5x). The console output is the only display format; for JSON add
// --benchmark_out=FILE --benchmark_out_format=json.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/heap_accounting.h"
#include "bench/mean_reporter.h"
#include "bench/seed_window_store.h"
#include "benchmark/benchmark.h"
#include "statecheck/in_memory_window_store.h"
#include "statecheck/logger.h"
#include "statecheck/status.h"
#include "statecheck/window_store.h"

namespace statecheck::bench {
namespace {

constexpr int kNumKeys = 10'000;
constexpr int64_t kRecordsPerSegment = 100;
constexpr int64_t kLiveSegments = 1'000;
constexpr int64_t kRetentionMs = 1'000;
constexpr int64_t kWindowSizeMs = 100;
// Puts that build the steady state: starts 0..999, stream time 999.
constexpr int64_t kSteadyPuts = kLiveSegments * kRecordsPerSegment;
constexpr int64_t kSteadyStreamTime = kLiveSegments - 1;
// Distinct key orders; the put stream repeats after kNumPasses passes.
constexpr int kNumPasses = 64;
constexpr int kNumFetchKeys = 1 << 16;
constexpr int64_t kFetchAllSegments = 100;
constexpr uint64_t kSeed = 0x5eed'428;

static_assert(kNumKeys % kRecordsPerSegment == 0);
static_assert(kSteadyStreamTime - kRetentionMs < 0, "the steady state must keep start 0 live");

[[noreturn]] void Die(const char* what, const Status& status) {
  std::fprintf(stderr, "window_store_bench: %s: %s\n", what, status.ToString().c_str());
  std::abort();
}

// The keys and the order in which the put stream and the fetches use them; built once.
class Workload {
 public:
  static const Workload& Get() {
    static const Workload* const workload = new Workload();
    return *workload;
  }

  const std::string& key(int i) const { return keys_[i]; }
  // Put n of the stream writes PutKey(n) at window start PutStart(n).
  const std::string& PutKey(int64_t n) const {
    const int64_t pass = (n / kNumKeys) % kNumPasses;
    return keys_[order_[pass * kNumKeys + n % kNumKeys]];
  }
  static int64_t PutStart(int64_t n) { return n / kRecordsPerSegment; }
  // The i-th key a single-key fetch asks for (uniform over all keys).
  const std::string& FetchKey(int64_t i) const { return keys_[fetch_keys_[i % kNumFetchKeys]]; }

 private:
  Workload() {
    keys_.reserve(kNumKeys);
    char buf[32];
    for (int i = 0; i < kNumKeys; ++i) {
      std::snprintf(buf, sizeof(buf), "user-%08d", i);
      keys_.emplace_back(buf);
    }
    std::mt19937_64 rng(kSeed);
    std::vector<int> perm(kNumKeys);
    order_.reserve(static_cast<size_t>(kNumPasses) * kNumKeys);
    for (int pass = 0; pass < kNumPasses; ++pass) {
      for (int i = 0; i < kNumKeys; ++i) perm[i] = i;
      // Fisher-Yates with the raw engine, so the order does not depend on the standard
      // library's distributions.
      for (int i = kNumKeys - 1; i > 0; --i) std::swap(perm[i], perm[rng() % (i + 1)]);
      order_.insert(order_.end(), perm.begin(), perm.end());
    }
    fetch_keys_.resize(kNumFetchKeys);
    for (int& k : fetch_keys_) k = static_cast<int>(rng() % kNumKeys);
  }

  std::vector<std::string> keys_;
  std::vector<int> order_;
  std::vector<int> fetch_keys_;
};

// A 16-byte value: window start (as ValueAndTimestamp's timestamp) + the aggregate.
struct Value {
  char bytes[16];
  std::string_view view() const { return std::string_view(bytes, sizeof(bytes)); }
};

Value MakeValue(int64_t timestamp, int64_t aggregate) {
  Value v;
  std::memcpy(v.bytes, &timestamp, 8);
  std::memcpy(v.bytes + 8, &aggregate, 8);
  return v;
}

// What a drain returns: how many records, and a checksum of their starts and aggregates.
struct Drained {
  int64_t records = 0;
  uint64_t checksum = 0;
  void Add(int64_t start, std::string_view value) {
    int64_t aggregate = 0;
    if (value.size() >= 16) std::memcpy(&aggregate, value.data() + 8, 8);
    ++records;
    checksum =
        checksum * 1'000'003 + static_cast<uint64_t>(start) * 31 + static_cast<uint64_t>(aggregate);
  }
  friend bool operator==(const Drained&, const Drained&) = default;
};

// How the engine's drains read a record: views of the iterator's snapshot, or copies.
enum class EngineRead { kNextView, kNext };

// The two stores behind one surface, so each benchmark is written once. The engine comes in two
// read modes; only BM_FetchAll runs the second (BM_FetchAll/engine_next).
template <EngineRead kRead>
class EngineStoreT {
 public:
  static constexpr const char* kName = kRead == EngineRead::kNextView ? "engine" : "engine_next";

  EngineStoreT() {
    WindowStoreOptions options;
    options.name = "bench-store";
    options.retention_ms = kRetentionMs;
    options.window_size_ms = kWindowSizeMs;
    options.retain_duplicates = false;
    options.logger = NullLogger();
    Status status = NewInMemoryWindowStore(options, &store_);
    if (!status.ok()) Die("NewInMemoryWindowStore", status);
  }

  void Put(std::string_view key, std::string_view value, int64_t start) {
    Status status = store_->Put(key, value, start);
    if (!status.ok()) Die("Put", status);
  }

  Drained DrainKey(std::string_view key, int64_t from, int64_t to) {
    std::unique_ptr<WindowStoreIterator> it;
    Status status = store_->Fetch(key, from, to, &it);
    if (!status.ok()) Die("Fetch", status);
    return Drain(it.get());
  }

  Drained DrainAll(int64_t from, int64_t to) {
    std::unique_ptr<WindowStoreIterator> it;
    Status status = store_->FetchAll(from, to, &it);
    if (!status.ok()) Die("FetchAll", status);
    return Drain(it.get());
  }

  int64_t records() const { return store_->metrics().retained_records; }
  int64_t segments() const { return store_->metrics().retained_segments; }

 private:
  Drained Drain(WindowStoreIterator* it) {
    Drained drained;
    WindowedRecordView view;
    while (it->HasNext()) {
      if constexpr (kRead == EngineRead::kNextView) {
        Status status = it->NextView(&view);
        if (!status.ok()) Die("NextView", status);
        drained.Add(view.window.start, view.value);
      } else {
        Status status = it->Next(&record_);
        if (!status.ok()) Die("Next", status);
        drained.Add(record_.window.start, record_.value);
      }
    }
    it->Close();
    return drained;
  }

  std::unique_ptr<WindowStore> store_;
  WindowedRecord record_;  // Reused by kNext, as a caller draining many records would.
};

using EngineStore = EngineStoreT<EngineRead::kNextView>;
using EngineCopyStore = EngineStoreT<EngineRead::kNext>;

class SeedStore {
 public:
  static constexpr const char* kName = "seed_baseline";

  void Put(std::string_view key, std::string_view value, int64_t start) {
    store_.Put(key, value, start);
  }

  Drained DrainKey(std::string_view key, int64_t from, int64_t to) {
    Drained drained;
    SeedWindowStore::KeyIterator it = store_.Fetch(key, from, to);
    SeedWindowStore::RecordView record;
    while (it.Next(&record)) drained.Add(record.window_start, record.value);
    return drained;
  }

  Drained DrainAll(int64_t from, int64_t to) {
    Drained drained;
    SeedWindowStore::AllIterator it = store_.FetchAll(from, to);
    SeedWindowStore::RecordView record;
    while (it.Next(&record)) drained.Add(record.window_start, record.value);
    return drained;
  }

  int64_t records() const { return static_cast<int64_t>(store_.num_records()); }
  int64_t segments() const { return static_cast<int64_t>(store_.num_segments()); }

 private:
  SeedWindowStore store_{kRetentionMs, kWindowSizeMs};
};

template <class Store>
void PutFromStream(Store& store, int64_t n) {
  const Workload& w = Workload::Get();
  const int64_t start = Workload::PutStart(n);
  store.Put(w.PutKey(n), MakeValue(start, n).view(), start);
}

// Puts [first, last) of the stream.
template <class Store>
void PutRange(Store& store, int64_t first, int64_t last) {
  for (int64_t n = first; n < last; ++n) PutFromStream(store, n);
}

template <class Store>
std::unique_ptr<Store> SteadyState() {
  auto store = std::make_unique<Store>();
  PutRange(*store, 0, kSteadyPuts);
  return store;
}

// Marks the run failed unless the store holds the steady state's shape.
template <class Store>
bool CheckSteady(benchmark::State& state, const Store& store) {
  if (store.records() != kSteadyPuts || store.segments() != kLiveSegments) {
    state.SkipWithError("store is not in the steady state (1,000 segments x 100 records)");
    return false;
  }
  return true;
}

template <class Store>
void BM_Put(benchmark::State& state) {
  auto store = SteadyState<Store>();
  int64_t n = kSteadyPuts;
  for (auto _ : state) PutFromStream(*store, n++);
  state.SetItemsProcessed(state.iterations());
  // Finish the ms being written, so the store is back at exactly 1,000 full segments.
  PutRange(*store, n, (n + kRecordsPerSegment - 1) / kRecordsPerSegment * kRecordsPerSegment);
  CheckSteady(state, *store);
}

template <class Store>
void BM_SingleKeyRangeFetch(benchmark::State& state) {
  const Workload& w = Workload::Get();
  auto store = SteadyState<Store>();
  if (!CheckSteady(state, *store)) return;
  const int64_t from = kSteadyStreamTime - kRetentionMs + 1;
  int64_t i = 0;
  int64_t records = 0;
  for (auto _ : state) {
    const Drained drained = store->DrainKey(w.FetchKey(i++), from, kSteadyStreamTime);
    benchmark::DoNotOptimize(drained.checksum);
    records += drained.records;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["records_per_fetch"] =
      static_cast<double>(records) / static_cast<double>(std::max<int64_t>(1, i));
}

template <class Store>
void BM_FetchAll(benchmark::State& state) {
  auto store = SteadyState<Store>();
  if (!CheckSteady(state, *store)) return;
  const int64_t from = kSteadyStreamTime - kFetchAllSegments + 1;
  int64_t records = 0;
  for (auto _ : state) {
    const Drained drained = store->DrainAll(from, kSteadyStreamTime);
    benchmark::DoNotOptimize(drained.checksum);
    records += drained.records;
  }
  state.SetItemsProcessed(records);
  state.counters["records_per_fetch"] =
      static_cast<double>(records) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}

template <class Store>
void BM_Expiry(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  auto store = SteadyState<Store>();
  int64_t n = kSteadyPuts;  // The first put of ms 1,000.
  for (auto _ : state) {
    const Clock::time_point begin = Clock::now();
    PutFromStream(*store, n);
    PutFromStream(*store, n + 1);
    const Clock::time_point end = Clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - begin).count());
    PutRange(*store, n + 2, n + kRecordsPerSegment);
    n += kRecordsPerSegment;
  }
  state.SetItemsProcessed(state.iterations() * kRecordsPerSegment);
  CheckSteady(state, *store);
}

template <class Store>
void BM_ExpiryBulk(benchmark::State& state) {
  using Clock = std::chrono::steady_clock;
  const Workload& w = Workload::Get();
  const int64_t jump = kSteadyStreamTime + kRetentionMs;  // Every steady segment expires.
  const Value value = MakeValue(jump, 0);
  int64_t records_left = 0;
  for (auto _ : state) {
    auto store = SteadyState<Store>();
    const Clock::time_point begin = Clock::now();
    store->Put(w.key(0), value.view(), jump);
    store->Put(w.key(1), value.view(), jump);
    const Clock::time_point end = Clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - begin).count());
    records_left = store->records();
  }
  state.SetItemsProcessed(state.iterations() * kSteadyPuts);
  state.counters["records_left"] = static_cast<double>(records_left);
}

template <class Store>
void BM_MemoryPerRecord(benchmark::State& state) {
  for (auto _ : state) {
    const struct mallinfo2 before = mallinfo2();
    StartHeapCounting();
    auto store = std::make_unique<Store>();
    // Two retention periods of puts: the first 1,000 segments have come and gone.
    PutRange(*store, 0, 2 * kSteadyPuts);
    StopHeapCounting();
    const struct mallinfo2 after = mallinfo2();
    const double records = static_cast<double>(store->records());
    const double malloc_bytes = static_cast<double>(after.uordblks + after.hblkhd) -
                                static_cast<double>(before.uordblks + before.hblkhd);
    state.counters["live_records"] = records;
    state.counters["live_segments"] = static_cast<double>(store->segments());
    state.counters["bytes_per_record"] = static_cast<double>(CountedHeapBytes()) / records;
    state.counters["malloc_bytes_per_record"] = malloc_bytes / records;
    if (store->records() != kSteadyPuts || store->segments() != kLiveSegments) {
      state.SkipWithError("store is not in the steady state (1,000 segments x 100 records)");
    }
  }
}

// Before any timing: both stores, built from the same stream, return the same records.
bool StoresAgree() {
  const Workload& w = Workload::Get();
  auto engine = SteadyState<EngineStore>();
  auto seed = SteadyState<SeedStore>();
  const int64_t from = kSteadyStreamTime - kRetentionMs + 1;
  int64_t fetches = 0;
  for (int i = 0; i < 1'000; ++i, ++fetches) {
    const std::string& key = w.FetchKey(i);
    if (!(engine->DrainKey(key, from, kSteadyStreamTime) ==
          seed->DrainKey(key, from, kSteadyStreamTime))) {
      std::fprintf(stderr, "check failed: single-key fetch of %s differs\n", key.c_str());
      return false;
    }
  }
  const Drained engine_all = engine->DrainAll(from, kSteadyStreamTime);
  if (!(engine_all == seed->DrainAll(from, kSteadyStreamTime)) ||
      !(engine_all == SteadyState<EngineCopyStore>()->DrainAll(from, kSteadyStreamTime)) ||
      engine_all.records != kSteadyPuts) {
    std::fprintf(stderr,
                 "check failed: fetchAll over the live range differs (NextView, Next, "
                 "seed)\n");
    return false;
  }
  std::printf("check: engine and seed baseline agree on %" PRId64
              " single-key fetches and a fetchAll of %" PRId64 " records\n",
              fetches, engine_all.records);
  return true;
}

// The console table, then engine/baseline ratios against the targets.
class SummaryReporter : public MeanReporter {
 public:
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::ostream& out = GetOutputStream();
    out << "\nengine vs seed_baseline:\n";
    Ratio(out, "BM_Put", "items_per_second", "throughput", ">=", 3.0);
    Ratio(out, "BM_SingleKeyRangeFetch", "items_per_second", "throughput", ">=", 100.0);
    Ratio(out, "BM_FetchAll", "items_per_second", "throughput", ">=", 1.0);
    Ratio(out, "BM_FetchAll", "items_per_second", "throughput, Next", "", 0,
          EngineCopyStore::kName);
    Ratio(out, "BM_Expiry", "items_per_second", "throughput", "", 0);
    Ratio(out, "BM_ExpiryBulk", "items_per_second", "throughput", "", 0);
    Ratio(out, "BM_MemoryPerRecord", "bytes_per_record", "bytes/record", "<=", 0.5);
    Ratio(out, "BM_MemoryPerRecord", "malloc_bytes_per_record", "malloc bytes/record", "", 0);
  }

 private:
  // `engine_name`: the engine's run of `benchmark` to compare (BM_FetchAll has two).
  void Ratio(std::ostream& out, const std::string& benchmark, const char* counter, const char* what,
             const char* op, double target, const char* engine_name = EngineStore::kName) const {
    const std::optional<double> engine = MeanOf(benchmark + "/" + engine_name, counter);
    const std::optional<double> seed = MeanOf(benchmark + "/" + SeedStore::kName, counter);
    if (!engine || !seed || *seed == 0) return;
    const double ratio = *engine / *seed;
    char line[256];
    std::snprintf(line, sizeof(line), "  %-24s %-20s engine/baseline = %8.3fx", benchmark.c_str(),
                  what, ratio);
    out << line;
    if (*op != '\0') {
      const bool met = std::string_view(op) == ">=" ? ratio >= target : ratio <= target;
      std::snprintf(line, sizeof(line), "   target %s %.1fx: %s", op, target,
                    met ? "MET" : "MISSED");
      out << line;
    }
    out << "\n";
  }
};

void NoConfiguration(benchmark::internal::Benchmark*) {}

// Registers Fn<EngineStore>::Run and Fn<SeedStore>::Run as BENCHMARK/engine and
// BENCHMARK/seed_baseline, next to each other.
template <template <class> class Fn>
void RegisterPair(const char* benchmark,
                  void (*configure)(benchmark::internal::Benchmark*) = NoConfiguration) {
  const std::string name = benchmark;
  configure(benchmark::RegisterBenchmark((name + "/" + EngineStore::kName).c_str(),
                                         Fn<EngineStore>::Run));
  configure(
      benchmark::RegisterBenchmark((name + "/" + SeedStore::kName).c_str(), Fn<SeedStore>::Run));
}

// Adapters so RegisterPair can take a benchmark template by name.
template <class S>
struct PutFn {
  static void Run(benchmark::State& state) { BM_Put<S>(state); }
};
template <class S>
struct SingleKeyRangeFetchFn {
  static void Run(benchmark::State& state) { BM_SingleKeyRangeFetch<S>(state); }
};
template <class S>
struct FetchAllFn {
  static void Run(benchmark::State& state) { BM_FetchAll<S>(state); }
};
template <class S>
struct ExpiryFn {
  static void Run(benchmark::State& state) { BM_Expiry<S>(state); }
};
template <class S>
struct ExpiryBulkFn {
  static void Run(benchmark::State& state) { BM_ExpiryBulk<S>(state); }
};
template <class S>
struct MemoryPerRecordFn {
  static void Run(benchmark::State& state) { BM_MemoryPerRecord<S>(state); }
};

void RegisterBenchmarks() {
  RegisterPair<PutFn>("BM_Put");
  RegisterPair<SingleKeyRangeFetchFn>("BM_SingleKeyRangeFetch");
  RegisterPair<FetchAllFn>("BM_FetchAll");
  benchmark::RegisterBenchmark((std::string("BM_FetchAll/") + EngineCopyStore::kName).c_str(),
                               FetchAllFn<EngineCopyStore>::Run);
  RegisterPair<ExpiryFn>("BM_Expiry", [](benchmark::internal::Benchmark* b) {
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
  });
  RegisterPair<ExpiryBulkFn>("BM_ExpiryBulk", [](benchmark::internal::Benchmark* b) {
    b->UseManualTime()->Unit(benchmark::kMillisecond);
  });
  RegisterPair<MemoryPerRecordFn>("BM_MemoryPerRecord", [](benchmark::internal::Benchmark* b) {
    b->Iterations(1)->Unit(benchmark::kMillisecond);
  });
}

}  // namespace
}  // namespace statecheck::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!statecheck::bench::StoresAgree()) return 1;
  statecheck::bench::RegisterBenchmarks();
  statecheck::bench::SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
