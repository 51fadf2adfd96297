// What Log::Compact costs a task's commit (SPEC C7; issue #45): a changelog of `keys` keys, each
// written once before the loop, then per iteration one commit's worth of records — every key
// written again, in a transaction, as the task's exactly-once commit writes them — and one
// Compact of the partition, timed alone (manual time), with the trigger a task uses by default
// (TaskOptions: 1 MiB and half of the partition dirty), so that every iteration compacts.
// 16-byte keys, 100-byte values and a source offset per record, as task_bench's stores write.
// A program to run by hand, not a test:
//   build/release/engine/log_compaction_bench
// Counters: bytes_before (the partition's bytes before each compaction), records_after.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "statecheck/log.h"
#include "statecheck/logger.h"

namespace statecheck {
namespace {

void Check(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "log_compaction_bench: %s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

// "key-000000000042": 16 bytes for every i below 10^12.
std::string KeyOf(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key-%012lld", static_cast<long long>(i));
  return buf;
}

void BM_Compact(benchmark::State& state) {
  const int64_t keys = state.range(0);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("log_compaction_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::unique_ptr<Log> log;
  LogOptions options;
  options.directory = dir.string();
  options.logger = NullLogger();
  Check(OpenLog(options, &log), "OpenLog");
  const std::string partition = "counts-changelog-0";
  int64_t source = 0, txn = 0;
  // One commit's records: every key once, under exactly-once (a transaction, then its decision).
  auto write_commit = [&] {
    std::vector<LogAppendRecord> batch;
    batch.reserve(static_cast<size_t>(keys));
    for (int64_t i = 0; i < keys; ++i) {
      batch.push_back({KeyOf(i), std::string(100, static_cast<char>('a' + source % 26)),
                       kNoTimestamp, LogSource{"input-0", source++}});
    }
    int64_t first = 0;
    Check(log->BeginTransaction(++txn), "BeginTransaction");
    Check(log->AppendBatch(txn, partition, std::move(batch), &first), "AppendBatch");
    Check(log->CommitTransaction(txn), "CommitTransaction");
  };
  LogCompaction policy;  // TaskOptions' defaults.
  policy.min_bytes = 1 << 20;
  policy.min_dirty_ratio = 0.5;
  write_commit();
  LogCompactionResult result;
  Check(log->Compact(partition, policy, &result), "Compact");
  int64_t bytes_before = 0, records_after = 0, compactions = 0;
  for (auto _ : state) {
    write_commit();
    const auto begin = std::chrono::steady_clock::now();
    Check(log->Compact(partition, policy, &result), "Compact");
    const auto end = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - begin).count());
    bytes_before += static_cast<int64_t>(result.bytes_before);
    records_after += result.records_after;
    compactions += result.compacted ? 1 : 0;
  }
  if (compactions != state.iterations()) {
    state.SkipWithError("an iteration did not compact: the trigger is not met every commit");
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["bytes_before"] = static_cast<double>(bytes_before) / n;
  state.counters["records_after"] = static_cast<double>(records_after) / n;
  log.reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Compact)->Arg(10'000)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace statecheck

BENCHMARK_MAIN();
