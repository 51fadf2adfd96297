// campaign_bench: the conformance campaign's throughput, family by family — cases and operations
// per second of `statecheck run` (tools/campaign.h) at a fixed seed and batch count, with one
// worker process and with every core.
//
// One iteration = one RunCampaign over the family's whole option matrix: `--batches B` of each
// of its properties (B per family below, so that an iteration takes a few seconds), seed 42,
// the campaign's default cases per batch and sequence length, `--jobs J`, report into a
// temporary directory (removed afterwards). Timed in wall time (UseRealTime: the work is in the
// worker processes). The run is checked: no finding, and the same cases with 1 worker as with
// J (a batch's cases depend on its seed alone); a failure is an error of the benchmark.
//
// Counters (per wall second): cases/s and ops/s, as `statecheck run` reports them; `cases` and
// `batches` per iteration. The ratio of the jobs:N and jobs:1 rows of a family is the parallel
// speed-up (the target: at least 1.7x with 2 workers on 2 cores).
//
//   campaign_bench --benchmark_min_time=1   (a few minutes on 2 cores)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "tools/campaign.h"

namespace {

namespace fs = std::filesystem;

struct Family {
  const char* name;
  int batches;  // Per property, per iteration.
};

constexpr Family kFamilies[] = {
    {"window_store", 40}, {"kv_store", 2}, {"kv_concurrency", 2}, {"task", 2}, {"windowed", 1},
};

// The cases an iteration ran, per family, with one worker: what every other row must repeat.
std::map<std::string, int64_t>& CasesWithOneWorker() {
  static auto* cases = new std::map<std::string, int64_t>();
  return *cases;
}

void BM_Campaign(benchmark::State& state) {
  const Family& family = kFamilies[state.range(0)];
  const int jobs = static_cast<int>(state.range(1));
  const fs::path dir = fs::temp_directory_path() /
                       ("campaign_bench-" + std::to_string(::getpid()) + "-" + family.name);
  int64_t cases = 0, ops = 0, batches = 0, iterations = 0;
  for (auto _ : state) {
    statecheck::tools::CampaignOptions o;
    o.seed = 42;
    o.batches_per_property = family.batches;
    o.families = {family.name};
    o.jobs = jobs;
    o.report_dir = (dir / std::to_string(iterations)).string();
    o.command = "campaign_bench";
    statecheck::tools::CampaignResult r;
    const statecheck::Status s = statecheck::tools::RunCampaign(o, &r);
    if (!s.ok() || r.findings > 0) {
      state.SkipWithError((s.ok() ? "the campaign had a finding" : s.ToString()).c_str());
      break;
    }
    int64_t c = 0;
    for (const auto& p : r.report.properties) {
      c += p.cases;
      ops += p.operations;
      batches += static_cast<int64_t>(p.batches.size());
    }
    auto [it, first] = CasesWithOneWorker().emplace(family.name, c);
    if (!first && it->second != c) {
      state.SkipWithError("another number of cases than with one worker: not the same batches");
      break;
    }
    cases += c;
    ++iterations;
    fs::remove_all(o.report_dir);
  }
  fs::remove_all(dir);
  state.counters["cases/s"] =
      benchmark::Counter(static_cast<double>(cases), benchmark::Counter::kIsRate);
  state.counters["ops/s"] =
      benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
  state.counters["cases"] =
      benchmark::Counter(static_cast<double>(cases), benchmark::Counter::kAvgIterations);
  state.counters["batches"] =
      benchmark::Counter(static_cast<double>(batches), benchmark::Counter::kAvgIterations);
  state.SetLabel(family.name);
}

void Args(benchmark::internal::Benchmark* b) {
  const int cores = statecheck::tools::CampaignOptions::DefaultJobs();
  for (int f = 0; f < static_cast<int>(std::size(kFamilies)); ++f) {
    b->Args({f, 1});
    if (cores > 1) b->Args({f, cores});
  }
  b->ArgNames({"family", "jobs"});
}

BENCHMARK(BM_Campaign)->Apply(Args)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
