// A console reporter that also keeps, per benchmark and counter, the mean of what was
// reported, so a program can print ratios against its targets after the table. Header-only.
#ifndef STATECHECK_BENCH_MEAN_REPORTER_H_
#define STATECHECK_BENCH_MEAN_REPORTER_H_

#include <benchmark/benchmark.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace statecheck::bench {

class MeanReporter : public benchmark::ConsoleReporter {
 public:
  MeanReporter() : ConsoleReporter(OO_None) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      // Repetitions: the "mean" aggregate when it is reported, else the mean of the runs.
      const bool is_mean = run.run_type == Run::RT_Aggregate && run.aggregate_name == "mean";
      if (run.run_type != Run::RT_Iteration && !is_mean) continue;
      std::string name = run.run_name.function_name;
      if (!run.run_name.args.empty()) name += "/" + run.run_name.args;
      for (const auto& [counter_name, counter] : run.counters) {
        Mean& mean = (is_mean ? aggregate_means_ : values_)[name][counter_name];
        mean.sum += counter.value;
        ++mean.count;
      }
    }
  }

 protected:
  // The mean of `counter` for `benchmark` ("BM_Put/engine", with "/arg" if it has one).
  std::optional<double> MeanOf(const std::string& benchmark, const char* counter) const {
    const std::optional<double> aggregate = Find(aggregate_means_, benchmark, counter);
    return aggregate ? aggregate : Find(values_, benchmark, counter);
  }

  // Whether a benchmark whose name starts with `prefix` reported.
  bool Ran(std::string_view prefix) const {
    for (const Means* means : {&values_, &aggregate_means_}) {
      const auto it = means->lower_bound(std::string(prefix));
      if (it != means->end() && std::string_view(it->first).substr(0, prefix.size()) == prefix) {
        return true;
      }
    }
    return false;
  }

 private:
  struct Mean {
    double sum = 0;
    int count = 0;
  };
  using Means = std::map<std::string, std::map<std::string, Mean>>;

  static std::optional<double> Find(const Means& means, const std::string& benchmark,
                                    const char* counter) {
    const auto b = means.find(benchmark);
    if (b == means.end()) return std::nullopt;
    const auto c = b->second.find(counter);
    if (c == b->second.end() || c->second.count == 0) return std::nullopt;
    return c->second.sum / c->second.count;
  }

  Means values_;           // Per benchmark and counter, over the iteration runs.
  Means aggregate_means_;  // The same from "mean" aggregates (--benchmark_repetitions).
};

}  // namespace statecheck::bench

#endif  // STATECHECK_BENCH_MEAN_REPORTER_H_
