// windowed_aggregation_bench: the time-windowed count with emit-final (KIP-825 ON_WINDOW_CLOSE,
// statecheck::NewTimeWindowedAggregation) against suppress(untilWindowCloses) over emit-eager
// (statecheck::NewSuppressedTimeWindowedAggregation), each as the processor of a real task
// (statecheck::OpenTask over a Log from statecheck::OpenLog), on the same input. The issue's
// targets: emit-final uses at most 0.5x the memory of suppress(emit-eager) and is at least as
// fast; and E9: emit-final's lookup touches only the windows that close.
//
// Workload (identical for both operators):
//   * Input record n: key Key(draw(n)) ("key-%012d", 16 bytes), draw(n) uniform over 1,000 keys
//     from a fixed-seed RNG (a cycle of 2^20 draws); value 100 bytes of letters (the count
//     ignores it). Timestamp 3,000 + n ms (event time advances 1 ms a record), except that one
//     record in 10 is out of order: 1 to 3,000 ms earlier, uniform — past the 2,000 ms grace
//     for about a third of those, so some windows drop it as late (E1), the same for both.
//   * Windows: tumbling (size 10,000 ms, grace 2,000 ms) or hopping (the same, advancing by
//     2,500 ms: 4 windows a record). So a window gets ~10,000 (hopping: all 4 x ~10,000 over
//     their spans) records over the 1,000 keys: ~10 updates per key and window.
//   * The task: commit interval 1,000 records, its clock a ManualClock that never moves (so the
//     emit interval — 0 here, as the tests set it — and commits follow record counts only), the
//     stores' WAL off (TaskOptions default, as Kafka Streams), NullLogger. Modes as task_bench:
//     at_least_once (READ_UNCOMMITTED stores) and exactly_once_v2 (READ_COMMITTED stores).
//   * Each benchmark run has its own temp directory ("windowed_aggregation_bench.XXXXXX") with
//     the log and the state directory; the input is appended and synced before any timing.
//
// Benchmarks (<op> = emit_final | suppress):
//   BM_Throughput/<mode>/<windows>/<op>
//       20,000 records processed untimed first, then one iteration = one Task::Process(20,000)
//       continuing the stream, in wall time (commits wait on fsyncs). items/s = input records
//       per second.
//   BM_Memory/<mode>/<windows>/<op>/<N>   (one iteration: N input records, N = 25,000, 100,000)
//       Two runs of the same N records on two fresh rigs:
//       (1) heap: bench/heap_accounting counts the net heap bytes allocated while the task
//           processes the N records (in chunks of 1,000, each ending on a commit), sampled after
//           each chunk. heap_peak_B = the largest sample, heap_end_B = the last. This is the
//           whole process's heap: the operator's state in RocksDB (memtables, the
//           READ_COMMITTED write buffer, block cache and table readers), and also the Log, which
//           holds every partition in memory — the changelog and output records the run appends
//           (see changelog_B) — and is the broker's memory, not the operator's. items/s is this
//           run's rate, with heap counting on.
//       (2) state: after each chunk, the task's stores are read (Task::Store(...)->All()) and
//           state_peak_B / state_peak_recs are the largest sum of key + value bytes / records
//           over all the operator's stores (emit-final: "agg"; suppress: "agg" and
//           "agg.suppress"); state_end_B / state_end_recs at the end. This is the operator's
//           live state, what it asks its stores to keep, independent of RocksDB's layout.
//           retained_peak_B: the same peak counting only the windows the store's retention
//           (size + grace) still keeps at the stream time of the sample (window start +
//           retention > stream time; the suppress buffer counts whole) — what the stores would
//           hold if they dropped expired windows: equal to state_peak_B when the aggregation
//           store trims itself to its retention (the engine at HEAD does not: it never deletes
//           a window).
//       Counters also: changelog_recs / changelog_B (the records and key + value bytes the run
//       appended to the stores' changelogs), output_recs; log_heap_B, the heap a fresh Log
//       takes to hold those changelog and output records (appended again after the run, heap
//       counted), and heap_less_log_B = heap_end_B - log_heap_B: the heap the run kept that is
//       not the in-memory Log's (an estimate: transaction markers and offset commits are not
//       re-appended) — the figure closest to the operator's own heap.
//   BM_EmitFinalLookup/<history keys>   (tumbling, exactly_once_v2, emit-final only)
//       E9's cost claim, with a retention longer than the run (the store keeps every window).
//       Untimed, the store is filled with 10 windows of <history keys> keys
//       (100, 1,000, 10,000), then an 11th of 100 keys, which closes the 10th: 1,100 to 100,100
//       stored windows (store_recs_start), all emitted but the last. Then, 100 iterations
//       exactly, one iteration = the next window's 100 records (keys 0..99, spread over it),
//       whose processing closes and emits the previous window's 100 windows (so the store ends
//       10,000 records larger, store_recs_end: it keeps every window).
//       windows_read_per_emitted = AggregationStats::windows_read / emitted over the timed
//       iterations: 1.0 at every store size when the lookup reads only the closing windows.
//
//   BM_SuppressBuffer/<mode>/<buffered>   (tumbling, suppress only; buffered = 1,000, 10,000,
//                                           100,000)
//       Suppress's cost as its buffer grows. <buffered> keys, each updated once per window in
//       turn (key i of window w at w * size + i * size / buffered), so the buffer holds one
//       window per key, plus the last window's until its grace passes. Untimed first, two windows
//       (the buffer full, one window closed and evicted); then one iteration = the next
//       window's <buffered> records, whose processing closes and evicts the previous window's
//       <buffered> windows. Three iterations. items/s = input records/s: flat in <buffered>
//       when a record costs no scan of the buffer. buffer_recs: the buffer's size at the end.
//
//   BM_SlidingLookup/<keys>   (sliding windows, D = 10,000 ms, grace 1,000,000 ms, count,
//                              emit-eager, exactly_once_v2; keys = 100, 1,000, 10,000)
//       E9's claim for sliding windows: a record's lookup of its key's windows (starts in
//       [t - 2D, t + 1]) costs the same whatever the number of other keys. Untimed, <keys> keys
//       get one record each at 10D + i * D / <keys>: one window per key, every one inside the
//       lookup range of the timed records. Then 20 iterations exactly, one iteration = 100
//       records of 100 new keys at 11D + iteration (each finds no window of its key, and creates
//       its left window). items/s = records/s: flat in <keys> when the lookup reads the record's
//       key's windows only. store_recs: the store's records at the start (the index's included).
//
// Before any timing, the program checks E7 on this workload for both window kinds: 20,000
// records then one record far in the future (so every window closes for both operators), and
// both outputs, sorted, must be equal. After the table it prints emit-final / suppress ratios
// per case against the targets.
//
//   windowed_aggregation_bench --benchmark_min_time=0.3
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
#include "bench/heap_accounting.h"
#include "bench/mean_reporter.h"
#include "benchmark/benchmark.h"
#include "statecheck/clock.h"
#include "statecheck/log.h"
#include "statecheck/logger.h"
#include "statecheck/sliding_aggregation.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck::bench {
namespace {

constexpr int64_t kKeySpace = 1'000;
constexpr int64_t kNumDraws = 1 << 20;  // Key draws and lateness, reused cyclically.
constexpr int64_t kBaseTimestamp = 3'000;
constexpr int64_t kMaxLateness = 3'000;
constexpr int64_t kWindowSize = 10'000;
constexpr int64_t kGrace = 2'000;
constexpr int64_t kAdvance = 2'500;  // Hopping windows.
constexpr int64_t kCommitInterval = 1'000;
constexpr int64_t kBatch = 20'000;   // BM_Throughput: records per iteration.
constexpr int64_t kWarmup = 20'000;  // BM_Throughput: records before the timed loop.
constexpr int64_t kChunk = 1'000;    // BM_Memory: records between samples (a commit interval).
constexpr int64_t kMaxUpFront = 2'000'000;  // BM_Throughput: input appended before timing.
constexpr int64_t kLookupKeys = 100;
constexpr int64_t kHistoryWindows = 10;
constexpr int64_t kLookupIterations = 100;
constexpr int64_t kSlidingDifference = 10'000;  // BM_SlidingLookup's D.
constexpr int64_t kSlidingIterations = 20;
constexpr int64_t kMemoryRecords[] = {25'000, 100'000};  // BM_Memory's N.
constexpr int64_t kSuppressWarmupWindows = 2;  // BM_SuppressBuffer: windows before timing.
constexpr int64_t kSuppressIterations = 3;     // BM_SuppressBuffer: windows timed.
constexpr double kMemoryTarget = 0.5;
constexpr double kThroughputTarget = 1.0;
constexpr uint64_t kSeed = 0x7a5c'0002;
constexpr char kInput[] = "input-0";
constexpr char kOutput[] = "output-0";
constexpr char kStore[] = "agg";

static_assert(kBatch % kCommitInterval == 0 && kWarmup % kCommitInterval == 0);
static_assert(kChunk == kCommitInterval, "each memory sample must follow a commit");

struct Mode {
  const char* name;
  const char* guarantee;
};
constexpr Mode kAtLeastOnce{"at_least_once", "at_least_once"};
constexpr Mode kExactlyOnce{"exactly_once_v2", "exactly_once_v2"};
constexpr Mode kModes[] = {kAtLeastOnce, kExactlyOnce};

enum class Kind { kTumbling, kHopping };
constexpr Kind kKinds[] = {Kind::kTumbling, Kind::kHopping};
const char* KindName(Kind kind) { return kind == Kind::kTumbling ? "tumbling" : "hopping"; }

enum class Op { kEmitFinal, kSuppress };
constexpr Op kOps[] = {Op::kEmitFinal, Op::kSuppress};
const char* OpName(Op op) { return op == Op::kEmitFinal ? "emit_final" : "suppress"; }

TimeWindows WindowsOf(Kind kind) {
  TimeWindows tumbling;
  Check(TimeWindows::OfSizeAndGrace(kWindowSize, kGrace, &tumbling), "OfSizeAndGrace");
  if (kind == Kind::kTumbling) return tumbling;
  TimeWindows hopping;
  Check(tumbling.AdvanceBy(kAdvance, &hopping), "AdvanceBy");
  return hopping;
}

// retention_ms -1: the aggregation's default (size + grace).
std::unique_ptr<Processor> NewOperator(Kind kind, Op op, std::shared_ptr<AggregationStats> stats,
                                       int64_t retention_ms = -1) {
  TimeWindowedAggregationOptions options;
  options.retention_ms = retention_ms;
  options.windows = WindowsOf(kind);
  options.emit =
      op == Op::kEmitFinal ? EmitStrategy::kOnWindowClose : EmitStrategy::kOnWindowUpdate;
  options.emit_interval_ms = 0;
  options.store = kStore;
  options.stats = std::move(stats);
  options.logger = NullLogger();
  std::unique_ptr<Processor> processor;
  Check(op == Op::kEmitFinal ? NewTimeWindowedAggregation(options, &processor)
                             : NewSuppressedTimeWindowedAggregation(options, &processor),
        "new aggregation");
  return processor;
}

// The operator's stores, as NewOperator names them.
std::vector<std::string> StoresOf(Op op) {
  if (op == Op::kEmitFinal) return {kStore};
  return {kStore, std::string(kStore) + ".suppress"};
}

// 8 bytes, most significant first: the aggregation store's window-start prefix (for starts >= 0
// the bytes sort as the numbers do).
std::string BigEndian(int64_t v) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
  return out;
}

// The input records; built once.
class Workload {
 public:
  static const Workload& Get() {
    static const Workload* const workload = new Workload();
    return *workload;
  }

  std::string_view Key(int64_t i) const { return records_.Key(i); }
  std::string_view InputKey(int64_t n) const { return Key(draws_[n % kNumDraws]); }
  std::string_view Value(int64_t n) const { return records_.Value(n); }
  int64_t Timestamp(int64_t n) const { return kBaseTimestamp + n - lateness_[n % kNumDraws]; }
  // The largest timestamp of records 0..n-1 (kNoTimestamp for n = 0): the stream time after
  // them. Lateness is at most kMaxLateness and record n - 1 is at most that late.
  int64_t StreamTimeAfter(int64_t n) const {
    int64_t t = kNoTimestamp;
    for (int64_t i = std::max<int64_t>(0, n - kMaxLateness - 1); i < n; ++i) {
      t = std::max(t, Timestamp(i));
    }
    return t;
  }

 private:
  Workload() : Workload(std::mt19937_64(kSeed)) {}
  explicit Workload(std::mt19937_64 rng) : records_(kKeySpace, rng) {
    draws_.resize(kNumDraws);
    lateness_.resize(kNumDraws);
    for (int64_t i = 0; i < kNumDraws; ++i) {
      draws_[i] = static_cast<int32_t>(rng() % kKeySpace);
      lateness_[i] = rng() % 10 == 0 ? static_cast<int32_t>(1 + rng() % kMaxLateness) : 0;
    }
  }

  KeysAndValues records_;
  std::vector<int32_t> draws_;
  std::vector<int32_t> lateness_;
};

// A log and a task running one operator over it, in their own temp directory. Members in this
// order: the task closes before the log, the log before its directory goes.
class Rig {
 public:
  Rig(const Mode& mode, std::unique_ptr<Processor> processor) {
    LogOptions log_options;
    log_options.directory = dir_.path() + "/log";
    log_options.logger = NullLogger();
    Check(OpenLog(log_options, &log_), "OpenLog");
    std::map<std::string, std::string> props{
        {std::string(kProcessingGuaranteeConfig), mode.guarantee}};
    TaskOptions options;
    Check(ResolveStateConfig(props, &options.config), "ResolveStateConfig");
    options.application_id = "wagg-bench";
    options.input_partition = kInput;
    options.output_partition = kOutput;
    options.state_directory = dir_.path() + "/state";
    options.log = log_.get();
    options.commit_interval_records = kCommitInterval;
    options.clock = std::make_shared<ManualClock>();  // Never advanced: record-count commits.
    options.logger = NullLogger();
    Check(OpenTask(options, std::move(processor), &task_), "OpenTask");
  }

  ~Rig() {
    if (task_) Check(task_->Close(), "Task::Close");
    task_.reset();
    log_.reset();
  }

  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;

  // Appends the workload's next `count` input records and syncs them.
  void AppendWorkload(int64_t count) {
    const Workload& w = Workload::Get();
    for (int64_t i = 0; i < count; ++i, ++appended_) {
      Append(w.InputKey(appended_), w.Value(appended_), w.Timestamp(appended_));
    }
    Sync();
  }
  void Append(std::string_view key, std::string_view value, int64_t timestamp) {
    int64_t offset = 0;
    Check(log_->Append(kInput, key, value, timestamp, &offset), "Log::Append");
  }
  void Sync() { Check(log_->Sync(), "Log::Sync"); }

  void ProcessExactly(int64_t count) {
    int64_t processed = 0;
    Check(task_->Process(count, &processed), "Task::Process");
    if (processed != count) {
      Die("processed " + std::to_string(processed) + " records, not " + std::to_string(count));
    }
  }

  // In a timed loop: processes `count` records, or marks the run failed (false: leave the loop).
  bool ProcessTimed(benchmark::State& state, int64_t count) {
    int64_t processed = 0;
    const Status status = task_->Process(count, &processed);
    if (status.ok() && processed == count) return true;
    state.SkipWithError(
        (status.ok() ? "processed " + std::to_string(processed) + " records" : status.ToString())
            .c_str());
    return false;
  }

  // Records and key + value bytes in `store` (reads through the task's store).
  std::pair<int64_t, int64_t> StoreSize(const std::string& store,
                                        std::optional<std::string_view> from = std::nullopt) {
    KeyValueStore* s = task_->Store(store);
    if (s == nullptr) Die("no store " + store);
    std::unique_ptr<KeyValueIterator> it;
    Check(s->Range(from, std::nullopt, &it), "Range");
    int64_t records = 0;
    int64_t bytes = 0;
    KeyValue kv;
    while (it->HasNext()) {
      Check(it->Next(&kv), "KeyValueIterator::Next");
      ++records;
      bytes += static_cast<int64_t>(kv.key.size() + kv.value.size());
    }
    return {records, bytes};
  }

  // Every record of `partition` (uncommitted ones too).
  std::vector<LogRecord> ReadAll(const std::string& partition) {
    std::vector<LogRecord> all;
    int64_t end = 0;
    Check(log_->EndOffset(partition, &end), "Log::EndOffset");
    while (true) {
      const int64_t from = all.empty() ? 0 : all.back().offset + 1;
      if (from >= end) break;
      const size_t before = all.size();
      Check(log_->Read(partition, from, 10'000, IsolationLevel::kReadUncommitted, &all),
            "Log::Read");
      if (all.size() == before) break;  // Only markers were left.
    }
    return all;
  }

  // Input records appended and not yet processed.
  int64_t available() const { return appended_ - task_->next_input_offset(); }

  Task& task() { return *task_; }

 private:
  TempDir dir_{"windowed_aggregation_bench"};
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
  int64_t appended_ = 0;
};

// BM_Throughput ------------------------------------------------------------------------------

void BM_Throughput(benchmark::State& state, const Mode& mode, Kind kind, Op op) {
  Rig rig(mode, NewOperator(kind, op, nullptr));
  // Everything the run processes, up front (the log holds it in memory: capped, topped up with
  // the timer paused in long runs).
  rig.AppendWorkload(
      std::min(kWarmup + static_cast<int64_t>(state.max_iterations) * kBatch, kMaxUpFront));
  rig.ProcessExactly(kWarmup);
  for (auto _ : state) {
    if (rig.available() < kBatch) {
      state.PauseTiming();
      rig.AppendWorkload(kMaxUpFront / 4);
      state.ResumeTiming();
    }
    if (!rig.ProcessTimed(state, kBatch)) break;
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// BM_Memory ----------------------------------------------------------------------------------

// The heap a fresh Log takes to hold `records` (partition, its records), appended outside any
// transaction: what the run's changelog and output records cost the in-memory Log.
int64_t LogHeapOf(const std::vector<std::pair<std::string, std::vector<LogRecord>>>& records) {
  TempDir dir("windowed_aggregation_bench");
  LogOptions options;
  options.directory = dir.path() + "/log";
  options.logger = NullLogger();
  std::unique_ptr<Log> log;
  Check(OpenLog(options, &log), "OpenLog");
  int64_t offset = 0;
  StartHeapCounting();
  for (const auto& [partition, partition_records] : records) {
    for (const LogRecord& r : partition_records) {
      Check(log->Append(partition, r.key, r.value, r.timestamp, &offset), "Log::Append");
    }
  }
  const int64_t bytes = CountedHeapBytes();
  StopHeapCounting();
  return bytes;
}

void BM_Memory(benchmark::State& state, const Mode& mode, Kind kind, Op op) {
  const int64_t records = state.range(0);
  for (auto _ : state) {
    // (1) Heap, timed.
    int64_t heap_peak = 0;
    int64_t heap_end = 0;
    int64_t changelog_records = 0;
    int64_t changelog_bytes = 0;
    int64_t output_records = 0;
    int64_t log_heap = 0;
    auto stats = std::make_shared<AggregationStats>();
    double seconds = 0;
    {
      Rig rig(mode, NewOperator(kind, op, stats));
      rig.AppendWorkload(records);
      const auto begin = std::chrono::steady_clock::now();
      StartHeapCounting();
      for (int64_t done = 0; done < records; done += kChunk) {
        rig.ProcessExactly(kChunk);
        heap_peak = std::max(heap_peak, CountedHeapBytes());
      }
      heap_end = CountedHeapBytes();
      StopHeapCounting();
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      std::vector<std::pair<std::string, std::vector<LogRecord>>> appended;
      for (const std::string& store : StoresOf(op)) {
        const std::string changelog = rig.task().ChangelogPartition(store);
        appended.emplace_back(changelog, rig.ReadAll(changelog));
        for (const LogRecord& r : appended.back().second) {
          ++changelog_records;
          changelog_bytes += static_cast<int64_t>(r.key.size() + (r.value ? r.value->size() : 0));
        }
      }
      appended.emplace_back(kOutput, rig.ReadAll(kOutput));
      output_records = static_cast<int64_t>(appended.back().second.size());
      log_heap = LogHeapOf(appended);
    }
    // (2) State, on a second rig with the same input.
    int64_t state_peak = 0;
    int64_t state_peak_records = 0;
    int64_t retained_peak = 0;
    std::pair<int64_t, int64_t> end{0, 0};
    {
      Rig rig(mode, NewOperator(kind, op, nullptr));
      rig.AppendWorkload(records);
      const int64_t retention = kWindowSize + kGrace;  // The aggregation's default.
      for (int64_t done = 0; done < records;) {
        rig.ProcessExactly(kChunk);
        done += kChunk;
        end = {0, 0};
        int64_t retained = 0;
        const int64_t stream_time = Workload::Get().StreamTimeAfter(done);
        for (const std::string& store : StoresOf(op)) {
          const std::pair<int64_t, int64_t> size = rig.StoreSize(store);
          end.first += size.first;
          end.second += size.second;
          if (store == kStore) {
            // Windows with start + retention > stream time; the store's keys begin with the
            // start, big-endian.
            const int64_t first_kept = std::max<int64_t>(0, stream_time - retention + 1);
            retained += rig.StoreSize(store, BigEndian(first_kept)).second;
          } else {
            retained += size.second;  // The buffer evicts at close itself.
          }
        }
        state_peak = std::max(state_peak, end.second);
        state_peak_records = std::max(state_peak_records, end.first);
        retained_peak = std::max(retained_peak, retained);
      }
    }
    state.SetIterationTime(seconds);
    state.counters["heap_peak_B"] = static_cast<double>(heap_peak);
    state.counters["heap_end_B"] = static_cast<double>(heap_end);
    state.counters["changelog_recs"] = static_cast<double>(changelog_records);
    state.counters["changelog_B"] = static_cast<double>(changelog_bytes);
    state.counters["state_peak_B"] = static_cast<double>(state_peak);
    state.counters["state_peak_recs"] = static_cast<double>(state_peak_records);
    state.counters["state_end_B"] = static_cast<double>(end.second);
    state.counters["state_end_recs"] = static_cast<double>(end.first);
    state.counters["retained_peak_B"] = static_cast<double>(retained_peak);
    state.counters["output_recs"] = static_cast<double>(output_records);
    state.counters["log_heap_B"] = static_cast<double>(log_heap);
    state.counters["heap_less_log_B"] = static_cast<double>(heap_end - log_heap);
  }
  state.SetItemsProcessed(state.iterations() * records);
}

// BM_EmitFinalLookup -------------------------------------------------------------------------

// "key-%012d" for any i (the workload's keys stop at kKeySpace).
std::string LookupKey(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key-%012" PRId64, i);
  return buf;
}

void BM_EmitFinalLookup(benchmark::State& state) {
  const int64_t history_keys = state.range(0);
  auto stats = std::make_shared<AggregationStats>();
  // A retention longer than the run: the store keeps every window, whether or not the
  // aggregation trims its store to the retention.
  Rig rig(kExactlyOnce,
          NewOperator(Kind::kTumbling, Op::kEmitFinal, stats, /*retention_ms=*/1'000'000'000));
  const std::string value(KeysAndValues::kValueSize, 'v');
  // Window w gets `keys` records, key i at w * size + i * size / keys: spread over the window,
  // so the first record past end + grace (the closing one) comes a fifth of the way in.
  int64_t window = 0;
  const auto append_window = [&](int64_t keys) {
    for (int64_t i = 0; i < keys; ++i) {
      rig.Append(LookupKey(i), value, window * kWindowSize + i * kWindowSize / keys);
    }
    ++window;
  };
  for (int64_t w = 0; w < kHistoryWindows; ++w) append_window(history_keys);
  // The lead-in: closes (and emits) the last history window.
  append_window(kLookupKeys);
  rig.Sync();
  rig.ProcessExactly(kHistoryWindows * history_keys + kLookupKeys);
  const int64_t store_before = rig.StoreSize(kStore).first;
  for (int64_t i = 0; i < kLookupIterations; ++i) append_window(kLookupKeys);
  rig.Sync();
  const int64_t read_before = stats->windows_read;
  const int64_t emitted_before = stats->emitted;
  for (auto _ : state) {
    if (!rig.ProcessTimed(state, kLookupKeys)) break;
  }
  const int64_t emitted = stats->emitted - emitted_before;
  state.SetItemsProcessed(state.iterations() * kLookupKeys);
  state.counters["emitted_per_iter"] =
      static_cast<double>(emitted) /
      static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations()));
  state.counters["windows_read_per_emitted"] =
      emitted == 0 ? 0 : static_cast<double>(stats->windows_read - read_before) / emitted;
  state.counters["store_recs_start"] = static_cast<double>(store_before);
  state.counters["store_recs_end"] = static_cast<double>(rig.StoreSize(kStore).first);
}

// BM_SlidingLookup --------------------------------------------------------------------------

void BM_SlidingLookup(benchmark::State& state) {
  const int64_t keys = state.range(0);
  constexpr int64_t d = kSlidingDifference;
  SlidingWindowedAggregationOptions options;
  Check(SlidingWindows::OfTimeDifferenceAndGrace(d, 100 * d, &options.windows), "sliding windows");
  options.emit_interval_ms = 0;
  options.store = kStore;
  options.logger = NullLogger();
  std::unique_ptr<Processor> processor;
  Check(NewSlidingWindowedAggregation(options, &processor), "NewSlidingWindowedAggregation");
  Rig rig(kExactlyOnce, std::move(processor));
  const std::string value(KeysAndValues::kValueSize, 'v');
  for (int64_t i = 0; i < keys; ++i) rig.Append(LookupKey(i), value, 10 * d + i * d / keys);
  const int64_t iterations = static_cast<int64_t>(state.max_iterations);
  for (int64_t j = 0; j < iterations; ++j) {
    for (int64_t i = 0; i < kLookupKeys; ++i) {
      rig.Append(LookupKey(keys + j * kLookupKeys + i), value, 11 * d + j);
    }
  }
  rig.Sync();
  rig.ProcessExactly(keys);
  state.counters["store_recs"] = static_cast<double>(rig.StoreSize(kStore).first);
  for (auto _ : state) {
    if (!rig.ProcessTimed(state, kLookupKeys)) break;
  }
  state.SetItemsProcessed(state.iterations() * kLookupKeys);
}

// BM_SuppressBuffer ---------------------------------------------------------------------------

void BM_SuppressBuffer(benchmark::State& state, const Mode& mode) {
  const int64_t buffered = state.range(0);
  Rig rig(mode, NewOperator(Kind::kTumbling, Op::kSuppress, nullptr));
  const std::string value(KeysAndValues::kValueSize, 'v');
  int64_t window = 0;
  const auto append_window = [&] {
    for (int64_t i = 0; i < buffered; ++i) {
      rig.Append(LookupKey(i), value, window * kWindowSize + i * kWindowSize / buffered);
    }
    ++window;
  };
  const int64_t iterations = static_cast<int64_t>(state.max_iterations);
  for (int64_t w = 0; w < kSuppressWarmupWindows + iterations; ++w) append_window();
  rig.Sync();
  rig.ProcessExactly(kSuppressWarmupWindows * buffered);
  for (auto _ : state) {
    if (!rig.ProcessTimed(state, buffered)) break;
  }
  state.SetItemsProcessed(state.iterations() * buffered);
  state.counters["buffer_recs"] =
      static_cast<double>(rig.StoreSize(std::string(kStore) + ".suppress").first);
}

// The check before timing (E7 on this workload) ----------------------------------------------

std::vector<std::string> SortedOutput(Kind kind, Op op) {
  constexpr int64_t kRecords = 20'000;
  Rig rig(kExactlyOnce, NewOperator(kind, op, nullptr));
  rig.AppendWorkload(kRecords);
  rig.Append(Workload::Get().Key(0), "v", Workload::Get().Timestamp(kRecords) + 10 * kWindowSize);
  rig.Sync();
  rig.ProcessExactly(kRecords + 1);
  Check(rig.task().Commit(), "Task::Commit");
  std::vector<std::string> out;
  for (const LogRecord& r : rig.ReadAll(kOutput)) {
    out.push_back(r.key + "=" + r.value.value_or("null") + "@" + std::to_string(r.timestamp));
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool OperatorsAgree() {
  for (const Kind kind : kKinds) {
    const std::vector<std::string> final_out = SortedOutput(kind, Op::kEmitFinal);
    const std::vector<std::string> suppress_out = SortedOutput(kind, Op::kSuppress);
    if (final_out.empty() || final_out != suppress_out) {
      std::fprintf(stderr,
                   "windowed_aggregation_bench: %s: emit-final emitted %zu records, "
                   "suppress(emit-eager) %zu, and they differ (E7)\n",
                   KindName(kind), final_out.size(), suppress_out.size());
      return false;
    }
  }
  return true;
}

// The summary after the table ----------------------------------------------------------------

std::string CaseName(const char* benchmark, const Mode& mode, Kind kind, Op op) {
  return std::string(benchmark) + "/" + mode.name + "/" + KindName(kind) + "/" + OpName(op);
}

class SummaryReporter : public MeanReporter {
 public:
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::ostream& out = GetOutputStream();
    char line[512];
    out << "\nemit_final / suppress(emit-eager), per case (targets: memory <= " << kMemoryTarget
        << "x, throughput >= " << kThroughputTarget << "x):\n";
    for (const Mode& mode : kModes) {
      for (const Kind kind : kKinds) {
        const auto ratio = [&](const std::string& a, const std::string& b,
                               const char* counter) -> std::optional<double> {
          const std::optional<double> x = MeanOf(a, counter);
          const std::optional<double> y = MeanOf(b, counter);
          if (!x || !y || *y == 0) return std::nullopt;
          return *x / *y;
        };
        const std::optional<double> throughput =
            ratio(CaseName("BM_Throughput", mode, kind, Op::kEmitFinal),
                  CaseName("BM_Throughput", mode, kind, Op::kSuppress), "items_per_second");
        if (throughput) {
          std::snprintf(line, sizeof(line), "  %-15s %-8s throughput          %.3fx  %s\n",
                        mode.name, KindName(kind), *throughput,
                        *throughput >= kThroughputTarget ? "MET" : "MISSED");
          out << line;
        }
        for (const int64_t n : kMemoryRecords) {
          std::string a = CaseName("BM_Memory", mode, kind, Op::kEmitFinal);
          std::string b = CaseName("BM_Memory", mode, kind, Op::kSuppress);
          for (std::string* name : {&a, &b}) {
            *name += '/';
            *name += std::to_string(n);
          }
          for (const char* counter :
               {"state_peak_B", "heap_peak_B", "heap_less_log_B", "retained_peak_B"}) {
            const std::optional<double> r = ratio(a, b, counter);
            if (!r) continue;
            std::snprintf(line, sizeof(line), "  %-15s %-8s N=%-7" PRId64 " %-15s %.3fx  %s\n",
                          mode.name, KindName(kind), n, counter, *r,
                          std::string_view(counter) == "retained_peak_B"
                              ? "(projection: unexpired windows only)"
                              : (*r <= kMemoryTarget ? "MET" : "MISSED"));
            out << line;
          }
        }
      }
    }
  }
};

void RegisterBenchmarks() {
  using benchmark::State;
  for (const Mode& mode : kModes) {
    for (const Kind kind : kKinds) {
      for (const Op op : kOps) {
        benchmark::RegisterBenchmark(
            CaseName("BM_Throughput", mode, kind, op).c_str(),
            [&mode, kind, op](State& s) { BM_Throughput(s, mode, kind, op); })
            ->UseRealTime()  // Commits wait on fsyncs and RocksDB's flush threads.
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  for (const Mode& mode : kModes) {
    for (const Kind kind : kKinds) {
      for (const Op op : kOps) {
        benchmark::RegisterBenchmark(CaseName("BM_Memory", mode, kind, op).c_str(),
                                     [&mode, kind, op](State& s) { BM_Memory(s, mode, kind, op); })
            ->Arg(kMemoryRecords[0])
            ->Arg(kMemoryRecords[1])
            ->Iterations(1)
            ->UseManualTime()  // Run (1)'s processing only.
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  for (const Mode& mode : kModes) {
    benchmark::RegisterBenchmark((std::string("BM_SuppressBuffer/") + mode.name).c_str(),
                                 [&mode](State& s) { BM_SuppressBuffer(s, mode); })
        ->Arg(1'000)
        ->Arg(10'000)
        ->Arg(100'000)
        ->Iterations(kSuppressIterations)  // Each a whole window: every one evicts as many.
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("BM_EmitFinalLookup", BM_EmitFinalLookup)
      ->Arg(100)
      ->Arg(1'000)
      ->Arg(10'000)
      ->Iterations(kLookupIterations)  // Fixed, so the loop adds the same windows at every size.
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_SlidingLookup", BM_SlidingLookup)
      ->Arg(100)
      ->Arg(1'000)
      ->Arg(10'000)
      ->Iterations(kSlidingIterations)  // Fixed: the same new keys and windows at every size.
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace statecheck::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!statecheck::bench::OperatorsAgree()) return 1;
  statecheck::bench::RegisterBenchmarks();
  statecheck::bench::SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
