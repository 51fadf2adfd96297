// task_bench: the task runtime (statecheck::OpenTask with NewKeyValueProcessor over a Log from
// statecheck::OpenLog) end to end — input → processor → stores → changelogs → output → commit —
// under each processing mode, and what one commit costs against its size. The target:
// exactly_once_v2 throughput at least 0.7x at_least_once throughput at a 1,000-record commit
// interval.
//
// Modes (statecheck::ResolveStateConfig of "processing.guarantee" and
// "default.state.isolation.level"; "unset" = the key is absent):
//   at_least_once                     isolation unset → READ_UNCOMMITTED (stores write directly)
//   at_least_once_read_committed      READ_COMMITTED (stores buffer writes until commit)
//   exactly_once_v2                   isolation unset → READ_COMMITTED
//   exactly_once_v2_read_uncommitted  READ_UNCOMMITTED (T10: wiped after an unclean shutdown)
//
// Workload (identical for every benchmark):
//   * Input record n (partition "input-0"): key Key(draw(n)) ("key-%012d", 16 bytes), draw(n)
//     uniform over a key space of 10,000 keys from a fixed-seed RNG (a cycle of 2^20 draws);
//     value 100 bytes of letters, value(n) = pool[n % 1,024]. Appended and Synced before any
//     timing (so READ_COMMITTED input readers see it): each benchmark run appends exactly what
//     it will process (warm-up + max_iterations batches) up front. Past 4,000,000 records
//     (the log is held in memory) the rest is appended in slices with the timer paused.
//   * Every benchmark run has its own temp directory (system temp dir, "task_bench.XXXXXX")
//     holding the log and the state directory, removed afterwards; the task's clock is a
//     ManualClock that never moves, so only the record-count trigger (or an explicit Commit)
//     commits; stores with the WAL off (TaskOptions default, as Kafka Streams), NullLogger.
//   * Warm-up, untimed: the first 20,000 records are processed (and committed) before the timed
//     loop, so every key is in both stores and the runs measure steady state.
//
// Benchmarks:
//   BM_Throughput/<mode>/<interval>   interval = commit_interval_records: 100, 1,000, 10,000
//       One iteration = one Task::Process(20,000) (a multiple of every interval, so each
//       iteration ends on a commit and does 20,000 / interval of them). Only that call is timed,
//       in wall time (UseRealTime: a commit waits on fsyncs and on RocksDB's flush threads, which
//       the main thread's CPU time does not see). items/s = records processed per wall second.
//       Counter commits_per_iter (must be 20,000 / interval).
//   BM_ThroughputUnbatched/<mode>/1000   mode at_least_once or exactly_once_v2
//       As BM_Throughput, but the task writes each changelog and output record to the log as it
//       is produced (TaskOptions::log_batch_bytes 0) instead of in batches: what batching gains.
//   BM_Commit/<mode>/<N>   N = 10, 100, 1,000, 10,000; mode at_least_once or exactly_once_v2
//       commit_interval_records = 0 (no trigger). Per iteration Task::Process(N), untimed, then
//       one Task::Commit(), timed (manual_time): the Time column is the mean ms per commit.
//       The commit writes the records' changelog and output batches to the log first.
//       Counters: median_ms / p90_ms / max_ms over every commit of the run; log_bytes, the mean
//       growth of the log's files over one processing and its commit (the records, written
//       while processing or at the commit, their markers and offsets), net of what the commit's
//       changelog compaction removed. The CPU column counts the untimed processing too: read
//       the Time column and the counters only.
//   BM_CommitFloor/10000
//       The floor under BM_Commit/exactly_once_v2/10000 (SPEC C7: a commit's durability is the
//       log's; the stores are applied, not flushed): an exactly_once_v2 task processes and
//       commits 10,000 records once, untimed, to measure the log bytes the commit made durable;
//       then each iteration appends that many bytes to one file in one write() and fsync()s it,
//       timed (manual_time). Counters: median_ms, log_bytes. The summary prints the commit's
//       median over the floor's against the 2x target.
//
// Before any timing, each mode runs 2,000 records at interval 1,000 and the program checks
// what the task did: 2 commits, committed input offset 2,000, 2,000 committed output records,
// and the "counts" store summing to 2,000. After the table it prints the EOS/ALOS throughput
// ratio at the 1,000-record interval against the 0.7x target, then the other ratios and the
// commit costs for reference; each section only when its benchmarks ran.
//
//   task_bench --benchmark_min_time=0.5   (about a minute on 2 cores; with
//   --benchmark_repetitions=3 --benchmark_report_aggregates_only=true about three, and the
//   summary uses the means)
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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
#include "bench/mean_reporter.h"
#include "benchmark/benchmark.h"
#include "statecheck/clock.h"
#include "statecheck/log.h"
#include "statecheck/logger.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"
#include "statecheck/task.h"

namespace statecheck::bench {
namespace {

constexpr int64_t kKeySpace = 10'000;
constexpr int64_t kNumDraws = 1 << 20;      // The key draws, reused cyclically.
constexpr int64_t kBatch = 20'000;          // BM_Throughput: records per iteration.
constexpr int64_t kWarmup = 20'000;         // Records processed before the timed loop.
constexpr int64_t kMaxUpFront = 4'000'000;  // Input appended before the loop, at most.
constexpr int64_t kTargetInterval = 1'000;
constexpr double kTargetRatio = 0.7;
constexpr double kFloorRatio = 2.0;  // BM_Commit/exactly_once_v2/10000 over BM_CommitFloor/10000.
constexpr uint64_t kSeed = 0x7a5c'0001;
constexpr char kInput[] = "input-0";
constexpr char kOutput[] = "output-0";

static_assert(kBatch % 100 == 0 && kBatch % 1'000 == 0 && kBatch % 10'000 == 0,
              "every throughput iteration must end on a commit");
static_assert(kWarmup % 10'000 == 0, "the warm-up must end on a commit");

// A processing mode: the two T1 keys, nullptr = unset.
struct Mode {
  const char* name;
  const char* guarantee;
  const char* isolation;
};

constexpr Mode kAtLeastOnce{"at_least_once", "at_least_once", nullptr};
constexpr Mode kAtLeastOnceRc{"at_least_once_read_committed", "at_least_once", "READ_COMMITTED"};
constexpr Mode kExactlyOnce{"exactly_once_v2", "exactly_once_v2", nullptr};
constexpr Mode kExactlyOnceRu{"exactly_once_v2_read_uncommitted", "exactly_once_v2",
                              "READ_UNCOMMITTED"};
constexpr Mode kModes[] = {kAtLeastOnce, kAtLeastOnceRc, kExactlyOnce, kExactlyOnceRu};

// The input records; built once.
class Workload {
 public:
  static const Workload& Get() {
    static const Workload* const workload = new Workload();
    return *workload;
  }

  std::string_view Key(int64_t i) const { return records_.Key(i); }
  // Input record n is (InputKey(n), Value(n)).
  std::string_view InputKey(int64_t n) const { return Key(draws_[n % kNumDraws]); }
  std::string_view Value(int64_t n) const { return records_.Value(n); }

 private:
  Workload() : Workload(std::mt19937_64(kSeed)) {}
  // `rng` draws the values first (records_), then the rest.
  explicit Workload(std::mt19937_64 rng) : records_(kKeySpace, rng) {
    // The raw engine, so the draws do not depend on the standard library's distributions.
    draws_.resize(kNumDraws);
    for (int32_t& d : draws_) d = static_cast<int32_t>(rng() % kKeySpace);
  }

  KeysAndValues records_;
  std::vector<int32_t> draws_;
};

// A log and a key-value task over it, in their own temp directory. Members in this order: the
// task closes before the log, the log before its directory goes.
class Rig {
 public:
  Rig(const Mode& mode, int64_t commit_interval_records,
      int64_t log_batch_bytes = TaskOptions{}.log_batch_bytes) {
    LogOptions log_options;
    log_options.directory = dir_.path() + "/log";
    log_options.logger = NullLogger();
    Check(OpenLog(log_options, &log_), "OpenLog");

    std::map<std::string, std::string> props{
        {std::string(kProcessingGuaranteeConfig), mode.guarantee}};
    if (mode.isolation != nullptr) props[std::string(kIsolationLevelConfig)] = mode.isolation;
    TaskOptions options;
    Check(ResolveStateConfig(props, &options.config), "ResolveStateConfig");
    options.application_id = "task-bench";
    options.input_partition = kInput;
    options.output_partition = kOutput;
    options.state_directory = dir_.path() + "/state";
    options.log = log_.get();
    options.commit_interval_records = commit_interval_records;
    options.log_batch_bytes = log_batch_bytes;
    options.clock = std::make_shared<ManualClock>();  // Never advanced: no time-based commits.
    options.logger = NullLogger();
    Check(OpenTask(options, NewKeyValueProcessor(), &task_), "OpenTask");
  }

  ~Rig() {
    if (task_) Check(task_->Close(), "Task::Close");
    task_.reset();
    log_.reset();
  }

  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;

  // Appends the next `count` input records and syncs them.
  void AppendInput(int64_t count) {
    const Workload& w = Workload::Get();
    int64_t offset = 0;
    for (int64_t i = 0; i < count; ++i, ++appended_) {
      Check(log_->Append(kInput, w.InputKey(appended_), w.Value(appended_), &offset),
            "Log::Append");
    }
    Check(log_->Sync(), "Log::Sync");
  }

  // Input records appended and not yet processed.
  int64_t available() const { return appended_ - task_->next_input_offset(); }

  // Processes exactly `count` records (untimed use: dies otherwise).
  void ProcessExactly(int64_t count) {
    int64_t processed = 0;
    Check(task_->Process(count, &processed), "Task::Process");
    if (processed != count) {
      Die("processed " + std::to_string(processed) + " records, not " + std::to_string(count));
    }
  }

  Task& task() { return *task_; }
  Log& log() { return *log_; }
  // The bytes of the log's files: what the task has written to the log so far.
  int64_t LogBytes() const {
    int64_t bytes = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_.path() + "/log")) {
      if (e.is_regular_file()) bytes += static_cast<int64_t>(e.file_size());
    }
    return bytes;
  }
  const std::string& directory() const { return dir_.path(); }

 private:
  TempDir dir_{"task_bench"};
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
  int64_t appended_ = 0;
};

// What a benchmark run appends up front: the warm-up plus every iteration's records, capped.
int64_t UpFront(const benchmark::State& state, int64_t per_iteration) {
  const int64_t need = kWarmup + static_cast<int64_t>(state.max_iterations) * per_iteration;
  return std::min(need, std::max(kMaxUpFront, kWarmup + per_iteration));
}

// Tops up the input with the timer paused when the up-front input is used up (long runs only).
void EnsureInput(benchmark::State& state, Rig& rig, int64_t count, bool timer_running) {
  if (rig.available() >= count) return;
  if (timer_running) state.PauseTiming();
  rig.AppendInput(std::max(count, kMaxUpFront / 4));
  if (timer_running) state.ResumeTiming();
}

// BM_Throughput ------------------------------------------------------------------------------

void BM_Throughput(benchmark::State& state, const Mode& mode,
                   int64_t log_batch_bytes = TaskOptions{}.log_batch_bytes) {
  const int64_t interval = state.range(0);
  Rig rig(mode, interval, log_batch_bytes);
  rig.AppendInput(UpFront(state, kBatch));
  rig.ProcessExactly(kWarmup);
  const int64_t commits_before = rig.task().stats().commits;
  for (auto _ : state) {
    EnsureInput(state, rig, kBatch, /*timer_running=*/true);
    int64_t processed = 0;
    const Status status = rig.task().Process(kBatch, &processed);
    if (!status.ok() || processed != kBatch) {
      state.SkipWithError(
          (status.ok() ? "processed " + std::to_string(processed) + " records" : status.ToString())
              .c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["commits_per_iter"] =
      static_cast<double>(rig.task().stats().commits - commits_before) /
      static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations()));
}

// BM_Commit ----------------------------------------------------------------------------------

// The median of sorted `ms`: the middle element, or the mean of the two middle ones.
double MedianOfSorted(const std::vector<double>& ms) {
  if (ms.empty()) return 0;
  const size_t mid = ms.size() / 2;
  return ms.size() % 2 == 1 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
}

void BM_Commit(benchmark::State& state, const Mode& mode) {
  const int64_t records = state.range(0);
  Rig rig(mode, /*commit_interval_records=*/0);
  rig.AppendInput(UpFront(state, records));
  rig.ProcessExactly(kWarmup);
  Check(rig.task().Commit(), "Task::Commit");
  std::vector<double> ms;
  int64_t log_bytes = 0;
  for (auto _ : state) {
    EnsureInput(state, rig, records, /*timer_running=*/false);  // Manual time: nothing to pause.
    const int64_t bytes_before = rig.LogBytes();
    rig.ProcessExactly(records);
    const auto begin = std::chrono::steady_clock::now();
    const Status status = rig.task().Commit();
    const auto end = std::chrono::steady_clock::now();
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
    log_bytes += rig.LogBytes() - bytes_before;
    const double seconds = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(seconds);
    ms.push_back(seconds * 1e3);
  }
  if (ms.empty()) return;
  // The growth of the log's files per commit, net of compaction (BM_CommitFloor measures its
  // bytes the same way, once, for the first commit after the warm-up).
  state.counters["log_bytes"] = static_cast<double>(log_bytes) / static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  const auto at = [&ms](double q) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * static_cast<double>(ms.size())))];
  };
  state.counters["median_ms"] = MedianOfSorted(ms);
  state.counters["p90_ms"] = at(0.9);
  state.counters["max_ms"] = ms.back();
  state.counters["commits"] = static_cast<double>(ms.size());
}

// BM_CommitFloor -----------------------------------------------------------------------------

// The floor under an exactly-once commit of N records: the log bytes such a commit makes durable
// (measured first, untimed, by one commit of a task), written to one file with one write and one
// fsync per iteration, appended as the log appends. What no commit can beat on this disk.
void BM_CommitFloor(benchmark::State& state) {
  const int64_t records = state.range(0);
  int64_t bytes = 0;
  {
    Rig rig(kExactlyOnce, /*commit_interval_records=*/0);
    rig.AppendInput(kWarmup + records);
    rig.ProcessExactly(kWarmup);
    Check(rig.task().Commit(), "Task::Commit");
    const int64_t before = rig.LogBytes();
    rig.ProcessExactly(records);
    Check(rig.task().Commit(), "Task::Commit");
    bytes = rig.LogBytes() - before;
  }
  TempDir dir("task_bench_floor");
  const std::string path = dir.path() + "/floor.log";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) Die("open " + path + ": " + std::strerror(errno));
  const std::string payload(static_cast<size_t>(bytes), 'r');
  std::vector<double> ms;
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    if (::write(fd, payload.data(), payload.size()) != static_cast<ssize_t>(payload.size())) {
      Die("write " + path + ": " + std::strerror(errno));
    }
    if (::fsync(fd) != 0) Die("fsync " + path + ": " + std::strerror(errno));
    const auto end = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(seconds);
    ms.push_back(seconds * 1e3);
  }
  ::close(fd);
  std::sort(ms.begin(), ms.end());
  state.counters["log_bytes"] = static_cast<double>(bytes);
  state.counters["median_ms"] = MedianOfSorted(ms);
}

// The check before timing --------------------------------------------------------------------

// Runs 2,000 records at interval 1,000 in `mode` and checks what the task wrote; false (with a
// message) when something is off.
bool TaskDoesItsWork(const Mode& mode) {
  constexpr int64_t kRecords = 2'000;
  Rig rig(mode, kTargetInterval);
  rig.AppendInput(kRecords);
  rig.ProcessExactly(kRecords);
  std::string problem;
  if (rig.task().stats().commits != kRecords / kTargetInterval) {
    problem = std::to_string(rig.task().stats().commits) + " commits, not 2";
  }
  CommittedOffsets committed;
  Check(rig.log().GetCommittedOffsets(rig.task().OffsetsGroup(), &committed),
        "Log::GetCommittedOffsets");
  if (committed.offsets[kInput] != kRecords) {
    problem = "committed input offset " + std::to_string(committed.offsets[kInput]);
  }
  std::vector<LogRecord> output;
  Check(rig.log().Read(kOutput, 0, 2 * kRecords, IsolationLevel::kReadCommitted, &output),
        "Log::Read");
  if (static_cast<int64_t>(output.size()) != kRecords) {
    problem = std::to_string(output.size()) + " committed output records";
  }
  KeyValueStore* counts = rig.task().Store("counts");
  int64_t sum = 0;
  const Workload& w = Workload::Get();
  for (int64_t i = 0; counts != nullptr && i < kKeySpace; ++i) {
    std::optional<std::string> value;
    Check(counts->Get(w.Key(i), &value), "counts Get");
    if (value) sum += std::strtoll(value->c_str(), nullptr, 10);
  }
  if (sum != kRecords) problem = "store counts sums to " + std::to_string(sum);
  if (problem.empty()) return true;
  std::fprintf(stderr, "task_bench: %s: after %" PRId64 " records: %s\n", mode.name, kRecords,
               problem.c_str());
  return false;
}

// The summary after the table ----------------------------------------------------------------

class SummaryReporter : public MeanReporter {
 public:
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::ostream& out = GetOutputStream();
    if (Ran("BM_Throughput/")) ThroughputSummary(out);
    if (Ran("BM_ThroughputUnbatched/")) BatchingSummary(out);
    if (Ran("BM_Commit/") || Ran("BM_CommitFloor/")) CommitSummary(out);
  }

 private:
  static std::string Name(const char* benchmark, const Mode& mode, int64_t arg) {
    std::string name = benchmark;
    name += '/';
    name += mode.name;
    name += '/';
    name += std::to_string(arg);
    return name;
  }
  static std::string Throughput(const Mode& mode, int64_t interval) {
    return Name("BM_Throughput", mode, interval);
  }
  static std::string Commit(const Mode& mode, int64_t records) {
    return Name("BM_Commit", mode, records);
  }

  void ThroughputSummary(std::ostream& out) const {
    char line[256];
    out << "\nIssue target: exactly_once_v2 throughput >= " << kTargetRatio
        << "x at_least_once at a " << kTargetInterval << "-record commit interval:\n";
    const std::optional<double> eos =
        MeanOf(Throughput(kExactlyOnce, kTargetInterval), "items_per_second");
    const std::optional<double> alos =
        MeanOf(Throughput(kAtLeastOnce, kTargetInterval), "items_per_second");
    if (!eos || !alos || *alos == 0) {
      out << "  not measured\n";
    } else {
      const double ratio = *eos / *alos;
      std::snprintf(line, sizeof(line),
                    "  exactly_once_v2 %.0f records/s / at_least_once %.0f records/s = %.3fx   "
                    "target >= %.1fx: %s\n",
                    *eos, *alos, ratio, kTargetRatio, ratio >= kTargetRatio ? "MET" : "MISSED");
      out << line;
    }
    out << "\nfor reference, records/s (and / at_least_once at the same interval):\n";
    for (const int64_t interval : {100, 1'000, 10'000}) {
      const std::optional<double> base =
          MeanOf(Throughput(kAtLeastOnce, interval), "items_per_second");
      for (const Mode& mode : kModes) {
        const std::optional<double> rate = MeanOf(Throughput(mode, interval), "items_per_second");
        if (!rate) continue;
        std::snprintf(line, sizeof(line), "  interval %6" PRId64 "  %-34s %10.0f", interval,
                      mode.name, *rate);
        out << line;
        if (base && *base > 0) {
          std::snprintf(line, sizeof(line), "  (%.3fx)", *rate / *base);
          out << line;
        }
        out << "\n";
      }
    }
  }

  void BatchingSummary(std::ostream& out) const {
    out << "\nlog batching at interval " << kTargetInterval
        << ", records/s: batched (log_batch_bytes default) / each record written alone:\n";
    for (const Mode* mode : {&kAtLeastOnce, &kExactlyOnce}) {
      const std::optional<double> batched =
          MeanOf(Throughput(*mode, kTargetInterval), "items_per_second");
      const std::optional<double> alone =
          MeanOf(Name("BM_ThroughputUnbatched", *mode, kTargetInterval), "items_per_second");
      if (!batched || !alone || *alone == 0) continue;
      char line[256];
      std::snprintf(line, sizeof(line), "  %-34s %10.0f / %10.0f = %.2fx\n", mode->name, *batched,
                    *alone, *batched / *alone);
      out << line;
    }
  }

  void CommitSummary(std::ostream& out) const {
    char target[256];
    const std::optional<double> eos = MeanOf(Commit(kExactlyOnce, 10'000), "median_ms");
    const std::optional<double> floor = MeanOf("BM_CommitFloor/10000", "median_ms");
    out << "\nIssue target: an exactly_once_v2 commit of 10,000 records <= " << kFloorRatio
        << "x the fsync floor (the same log bytes, one write and one fsync):\n";
    if (!eos || !floor || *floor <= 0) {
      out << "  not measured\n";
    } else {
      std::snprintf(
          target, sizeof(target),
          "  commit median %.3f ms / floor median %.3f ms = %.2fx   target <= %.1fx: %s\n", *eos,
          *floor, *eos / *floor, kFloorRatio, *eos / *floor <= kFloorRatio ? "MET" : "MISSED");
      out << target;
    }
    out << "\ncommit cost, median ms per commit (exactly_once_v2 / at_least_once):\n";
    for (const int64_t n : {10, 100, 1'000, 10'000}) {
      const std::optional<double> alos = MeanOf(Commit(kAtLeastOnce, n), "median_ms");
      const std::optional<double> eos = MeanOf(Commit(kExactlyOnce, n), "median_ms");
      if (!alos && !eos) continue;
      char line[256];
      std::snprintf(line, sizeof(line), "  %6d records: at_least_once %8.3f  exactly_once_v2 %8.3f",
                    static_cast<int>(n), alos.value_or(0), eos.value_or(0));
      out << line;
      if (alos && eos && *alos > 0) {
        std::snprintf(line, sizeof(line), "  (%.2fx)", *eos / *alos);
        out << line;
      }
      out << "\n";
    }
  }
};

void RegisterBenchmarks() {
  using benchmark::State;
  for (const Mode& mode : kModes) {
    benchmark::RegisterBenchmark((std::string("BM_Throughput/") + mode.name).c_str(),
                                 [&mode](State& s) { BM_Throughput(s, mode); })
        ->Arg(100)
        ->Arg(1'000)
        ->Arg(10'000)
        ->UseRealTime()  // Commits wait on fsyncs and RocksDB's flush threads: wall time counts.
        ->Unit(benchmark::kMillisecond);
  }
  for (const Mode* mode : {&kAtLeastOnce, &kExactlyOnce}) {
    // As BM_Throughput, each changelog and output record written to the log as it is produced
    // (log_batch_bytes 0), as before the task batched them.
    benchmark::RegisterBenchmark((std::string("BM_ThroughputUnbatched/") + mode->name).c_str(),
                                 [mode](State& s) { BM_Throughput(s, *mode, 0); })
        ->Arg(kTargetInterval)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  for (const Mode* mode : {&kAtLeastOnce, &kExactlyOnce}) {
    benchmark::RegisterBenchmark((std::string("BM_Commit/") + mode->name).c_str(),
                                 [mode](State& s) { BM_Commit(s, *mode); })
        ->Arg(10)
        ->Arg(100)
        ->Arg(1'000)
        ->Arg(10'000)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("BM_CommitFloor", BM_CommitFloor)
      ->Arg(10'000)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace statecheck::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const statecheck::bench::Mode& mode : statecheck::bench::kModes) {
    if (!statecheck::bench::TaskDoesItsWork(mode)) return 1;
  }
  statecheck::bench::RegisterBenchmarks();
  statecheck::bench::SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
