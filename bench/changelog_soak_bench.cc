// changelog_soak_bench: a task's changelogs under a long run of updates, with and without
// changelog compaction (statecheck/log.h, "Compaction"; TaskOptions::changelog_compaction_*).
// The targets: after 1,000,000 updates over 10,000 keys the changelogs' disk use is at
// most 2x the live data, and restoring the stores afterwards takes at most 2x restoring 10,000
// records.
//
// Workload: the key-value processor (NewKeyValueProcessor: stores "kv" and "counts", one
// changelog each) under exactly_once_v2, commit interval 1,000 records, stores with the WAL off,
// a ManualClock that never moves, NullLogger, everything in one temp directory
// ("changelog_soak_bench.XXXXXX" in the system temp directory).
//   * soak: 1,000,000 input records, key uniform over 10,000 keys from a fixed-seed RNG, value
//     100 letters. With compaction the task's defaults (a changelog of at least 1 MiB, at least
//     half of it written since its last compaction); without, never (min_bytes -1).
//   * fresh: 10,000 input records, each key once: changelogs of 10,000 records each, the
//     restore baseline.
// Each is built once per program run, the first time a benchmark needs it (untimed, except the
// soak's processing, which BM_Soak reports).
//
// Benchmarks:
//   BM_Soak/compaction:<0|1>/segment_KiB:<0|N>   Iterations(1). Time (manual) = the wall time of
//       processing the 1,000,000 records, commits and compactions included. segment_KiB: the
//       log's LogOptions::segment_bytes in KiB (0: its default, 64 MiB, which these changelogs
//       never reach under compaction). Counters: changelog_MiB (the two changelogs' bytes, all
//       segments, when the task has closed), live_MiB (the bytes the latest record of each key
//       takes in the log's format: what a changelog holding only the live data would take),
//       disk_per_live (the ratio; target <= 2), changelog_records (records in the two
//       changelogs, markers included), segments (their segment files), compactions
//       (TaskStats::compactions). With segments of 1 MiB, a compaction rewrites the closed
//       segments only: the active one keeps its superseded records until it rolls (as Kafka's
//       cleaner leaves the active segment), so disk use is bounded by the live data, what is
//       dirty, and up to one segment.
//   BM_Restore/<fresh|soak_compacted|soak_uncompacted|soak_segmented>   one iteration = the state
//   directory
//       removed (untimed), OpenTask (timed, manual time: it restores both stores from their
//       changelogs from offset 0), Close (untimed). Counter restored = data records applied.
// After the table the program prints the two ratios against their targets.
//
//   changelog_soak_bench --benchmark_min_time=1   (about two minutes on 2 cores)
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
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
constexpr int64_t kSoakUpdates = 1'000'000;
constexpr int64_t kCommitInterval = 1'000;
constexpr uint64_t kSeed = 0x50a6'0001;
constexpr char kInput[] = "input-0";
constexpr char kOutput[] = "output-0";
constexpr const char* kStores[] = {"kv", "counts"};
constexpr double kMiB = 1024.0 * 1024.0;

const KeysAndValues& Records() {
  static const KeysAndValues* const records = [] {
    std::mt19937_64 rng(kSeed);
    return new KeysAndValues(kKeySpace, rng);
  }();
  return *records;
}

// A log and a key-value task over it in a temp directory, kept for the program's life once
// built. The task is open only while a benchmark uses it.
class Rig {
 public:
  // `segment_bytes` 0: LogOptions' default.
  Rig(bool compaction, int64_t segment_bytes) {
    LogOptions log_options;
    log_options.directory = dir_.path() + "/log";
    log_options.logger = NullLogger();
    if (segment_bytes > 0) log_options.segment_bytes = segment_bytes;
    Check(OpenLog(log_options, &log_), "OpenLog");
    std::map<std::string, std::string> props{
        {std::string(kProcessingGuaranteeConfig), "exactly_once_v2"}};
    Check(ResolveStateConfig(props, &options_.config), "ResolveStateConfig");
    options_.application_id = "soak";
    options_.input_partition = kInput;
    options_.output_partition = kOutput;
    options_.state_directory = dir_.path() + "/state";
    options_.log = log_.get();
    options_.commit_interval_records = kCommitInterval;
    options_.clock = std::make_shared<ManualClock>();
    options_.logger = NullLogger();
    if (!compaction) options_.changelog_compaction_min_bytes = -1;
  }

  void Append(std::string_view key, std::string_view value) {
    int64_t offset = 0;
    Check(log_->Append(kInput, key, value, &offset), "Log::Append");
  }

  // Opens the task (restoring its stores); the time it took.
  double Open() {
    const auto begin = std::chrono::steady_clock::now();
    Check(OpenTask(options_, NewKeyValueProcessor(), &task_), "OpenTask");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  }

  void Close() {
    Check(task_->Close(), "Task::Close");
    task_.reset();
  }

  void WipeState() {
    std::error_code ec;
    std::filesystem::remove_all(options_.state_directory, ec);
    if (ec) Die("removing " + options_.state_directory + ": " + ec.message());
  }

  // Processes everything appended; the wall time it took.
  double ProcessAll(int64_t count) {
    Check(log_->Sync(), "Log::Sync");
    const auto begin = std::chrono::steady_clock::now();
    for (int64_t done = 0; done < count;) {
      int64_t processed = 0;
      Check(task_->Process(count - done, &processed), "Task::Process");
      if (processed == 0) Die("the task processed nothing");
      done += processed;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  }

  std::vector<std::string> Changelogs() const {
    std::vector<std::string> names;
    for (const char* store : kStores) names.push_back(ChangelogPartitionName(options_, store));
    return names;
  }

  // The changelog files' bytes and records of every kind, markers included (InspectLog).
  void OnDisk(uint64_t* bytes, int64_t* records, int64_t* segments) const {
    LogSummary summary;
    Check(InspectLog(dir_.path() + "/log", nullptr, &summary), "InspectLog");
    *bytes = 0;
    *records = 0;
    *segments = 0;
    const std::vector<std::string> changelogs = Changelogs();
    for (const LogPartitionSummary& p : summary.partitions) {
      if (std::find(changelogs.begin(), changelogs.end(), p.name) == changelogs.end()) continue;
      *bytes += p.valid_bytes;
      *records += p.data_records + p.markers;
      *segments += static_cast<int64_t>(p.segments.size());
    }
  }

  // The bytes the latest record of each key in the changelogs would take in the log's format
  // (docs/formats.md: a 32-byte header, then the timestamp, the source, the key, the value).
  uint64_t LiveBytes() {
    uint64_t bytes = 0;
    for (const std::string& name : Changelogs()) {
      std::map<std::string, LogRecord> latest;
      for (int64_t from = 0;;) {
        std::vector<LogRecord> batch;
        Check(log_->Read(name, from, 10'000, IsolationLevel::kReadCommitted, &batch), "Read");
        if (batch.empty()) break;
        from = batch.back().offset + 1;
        for (LogRecord& r : batch) latest[r.key] = std::move(r);
      }
      for (const auto& [key, r] : latest) {
        bytes += 32 + (r.timestamp != kNoTimestamp ? 8 : 0) +
                 (r.source ? 4 + r.source->partition.size() + 8 : 0) + key.size() +
                 (r.value ? r.value->size() : 0);
      }
    }
    return bytes;
  }

  Task& task() { return *task_; }

 private:
  TempDir dir_{"changelog_soak_bench"};
  std::unique_ptr<Log> log_;
  TaskOptions options_;
  std::unique_ptr<Task> task_;
};

struct Soaked {
  std::unique_ptr<Rig> rig;
  double process_seconds = 0;
  int64_t compactions = 0;
};

constexpr int64_t kSegmentKiB = 1024;  // The segmented soak's segment size.

// The soak, built once per mode: with compaction or not, and with the default segment size (0) or
// another.
Soaked& Soak(bool compaction, int64_t segment_kib) {
  static std::map<std::pair<bool, int64_t>, Soaked> soaked;
  Soaked& s = soaked[{compaction, segment_kib}];
  if (s.rig) return s;
  s.rig = std::make_unique<Rig>(compaction, segment_kib * 1024);
  std::mt19937_64 rng(kSeed + 1);
  for (int64_t n = 0; n < kSoakUpdates; ++n) {
    s.rig->Append(Records().Key(static_cast<int64_t>(rng() % kKeySpace)), Records().Value(n));
  }
  s.rig->Open();
  s.process_seconds = s.rig->ProcessAll(kSoakUpdates);
  s.compactions = s.rig->task().stats().compactions;
  s.rig->Close();
  return s;
}

// The baseline: every key once.
Rig& Fresh() {
  static std::unique_ptr<Rig> rig;
  if (rig) return *rig;
  rig = std::make_unique<Rig>(/*compaction=*/true, /*segment_bytes=*/0);
  for (int64_t i = 0; i < kKeySpace; ++i) rig->Append(Records().Key(i), Records().Value(i));
  rig->Open();
  rig->ProcessAll(kKeySpace);
  rig->Close();
  return *rig;
}

std::map<std::string, double> disk_per_live;  // By BM_Soak arguments ("compaction", ...).
std::map<std::string, double> restore_ms;     // By BM_Restore source: mean ms.

void BM_Soak(benchmark::State& state) {
  const bool compaction = state.range(0) != 0;
  const int64_t segment_kib = state.range(1);
  Soaked& s = Soak(compaction, segment_kib);
  for (auto _ : state) state.SetIterationTime(s.process_seconds);
  uint64_t disk = 0;
  int64_t records = 0, segments = 0;
  s.rig->OnDisk(&disk, &records, &segments);
  const uint64_t live = s.rig->LiveBytes();
  state.counters["changelog_MiB"] = static_cast<double>(disk) / kMiB;
  state.counters["live_MiB"] = static_cast<double>(live) / kMiB;
  state.counters["disk_per_live"] = static_cast<double>(disk) / static_cast<double>(live);
  state.counters["changelog_records"] = static_cast<double>(records);
  state.counters["segments"] = static_cast<double>(segments);
  state.counters["compactions"] = static_cast<double>(s.compactions);
  state.SetItemsProcessed(kSoakUpdates);
  const std::string mode =
      std::string(compaction ? "compaction" : "no compaction") +
      (segment_kib > 0 ? ", " + std::to_string(segment_kib) + " KiB segments" : "");
  disk_per_live[mode] = static_cast<double>(disk) / static_cast<double>(live);
}

void BM_Restore(benchmark::State& state, const std::string& source) {
  Rig& rig = source == "fresh"            ? Fresh()
             : source == "soak_segmented" ? *Soak(true, kSegmentKiB).rig
                                          : *Soak(source == "soak_compacted", 0).rig;
  double total = 0;
  int64_t restored = 0;
  for (auto _ : state) {
    rig.WipeState();
    const double seconds = rig.Open();
    state.SetIterationTime(seconds);
    total += seconds;
    restored = 0;
    for (const StoreRestore& r : rig.task().restores()) restored += r.records_restored;
    rig.Close();
  }
  state.counters["restored"] = static_cast<double>(restored);
  restore_ms[source] = total * 1e3 / static_cast<double>(state.iterations());
}

BENCHMARK(BM_Soak)
    ->ArgNames({"compaction", "segment_KiB"})
    ->Args({1, 0})
    ->Args({0, 0})
    ->Args({1, kSegmentKiB})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Restore, fresh, std::string("fresh"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Restore, soak_compacted, std::string("soak_compacted"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Restore, soak_uncompacted, std::string("soak_uncompacted"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Restore, soak_segmented, std::string("soak_segmented"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void PrintSummary() {
  std::printf("\n");
  for (const auto& [mode, ratio] : disk_per_live) {
    std::printf("changelog disk use / live data, %s: %.2fx%s\n", mode.c_str(), ratio,
                mode == "compaction"
                    ? (ratio <= 2.0 ? "  (target <= 2x: met)" : "  (target <= 2x: NOT met)")
                    : "");
  }
  const auto fresh = restore_ms.find("fresh");
  if (fresh == restore_ms.end()) return;
  for (const char* source : {"soak_compacted", "soak_uncompacted", "soak_segmented"}) {
    const auto it = restore_ms.find(source);
    if (it == restore_ms.end()) continue;
    const double ratio = it->second / fresh->second;
    std::printf(
        "restore after the soak (%s) / restore of 10,000 records: %.2f / %.2f ms = %.2fx%s\n",
        source, it->second, fresh->second, ratio,
        std::string_view(source) == "soak_compacted"
            ? (ratio <= 2.0 ? "  (target <= 2x: met)" : "  (target <= 2x: NOT met)")
            : "");
  }
}

}  // namespace
}  // namespace statecheck::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  statecheck::bench::PrintSummary();
  return 0;
}
