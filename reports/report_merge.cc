// MergeReports: one campaign's report put back together from its shards' (`statecheck report
// merge`).
#include <algorithm>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "reports/run_report.h"

namespace statecheck::reports {
namespace {

std::string ShardName(int index, int count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

}  // namespace

Status MergeReports(const std::vector<RunReport>& shards, RunReport* merged) {
  *merged = RunReport();
  if (shards.empty()) return Status::InvalidArgument("report merge: no shard reports");
  const RunReport& first = shards.front();
  const int count = first.configuration.shard_count;
  std::set<int> seen;
  for (const RunReport& s : shards) {
    const RunConfiguration& c = s.configuration;
    const std::string name = "shard " + ShardName(c.shard_index, c.shard_count);
    auto differs = [&](const std::string& what, const std::string& a, const std::string& b) {
      return Status::InvalidArgument("report merge: " + name + " has " + what + " " + b +
                                     ", the first report " + a +
                                     ": they are not shards of one campaign");
    };
    if (!s.merged_shards.empty()) {
      return Status::InvalidArgument("report merge: " + name +
                                     " is a merged report already; merge the shard reports");
    }
    if (s.seed != first.seed) {
      return differs("seed", std::to_string(first.seed), std::to_string(s.seed));
    }
    if (s.commit != first.commit) return differs("commit", first.commit, s.commit);
    if (c.shard_count != count) {
      return differs("shard count", std::to_string(count), std::to_string(c.shard_count));
    }
    const RunConfiguration& f = first.configuration;
    if (c.budget_seconds != f.budget_seconds || c.batches_per_property != f.batches_per_property ||
        c.select != f.select || c.families != f.families ||
        c.cases_per_batch != f.cases_per_batch || c.max_size != f.max_size ||
        c.require_evidence != f.require_evidence) {
      return Status::InvalidArgument("report merge: " + name +
                                     " ran with another configuration than the first report");
    }
    if (s.selftest) {
      return Status::InvalidArgument("report merge: " + name +
                                     " is a selftest's report; only campaign shards merge");
    }
    if (!seen.insert(c.shard_index).second) {
      return Status::InvalidArgument("report merge: " + name + " is given twice");
    }
  }
  for (int i = 0; i < count; ++i) {
    if (!seen.count(i)) {
      return Status::InvalidArgument("report merge: shard " + ShardName(i, count) +
                                     " is missing (the merge must cover the whole campaign)");
    }
  }
  merged->seed = first.seed;
  merged->configuration = first.configuration;
  merged->configuration.shard_index = 0;
  merged->configuration.shard_count = 1;
  merged->commit = first.commit;
  merged->started_at = first.started_at;
  std::vector<const RunReport*> ordered;
  for (const RunReport& s : shards) ordered.push_back(&s);
  std::sort(ordered.begin(), ordered.end(), [](const RunReport* a, const RunReport* b) {
    return a->configuration.shard_index < b->configuration.shard_index;
  });
  for (const RunReport* s : ordered) {
    merged->merged_shards.push_back(
        ShardName(s->configuration.shard_index, s->configuration.shard_count));
    merged->started_at = std::min(merged->started_at, s->started_at);
    merged->elapsed_seconds = std::max(merged->elapsed_seconds, s->elapsed_seconds);
    if (merged->command.empty()) merged->command = s->command;
  }
  // Properties, in the registry order the shards share; batches by number.
  for (const RunReport* s : ordered) {
    for (const PropertyResult& p : s->properties) {
      auto it = std::find_if(merged->properties.begin(), merged->properties.end(),
                             [&](const PropertyResult& m) { return m.id == p.id; });
      if (it == merged->properties.end()) {
        PropertyResult copy = p;
        copy.batches.clear();
        copy.cases = copy.operations = copy.no_fault_cases = 0;
        copy.seconds = 0;
        copy.faults = FaultCounts();
        copy.evidence.clear();
        copy.rule_cases.clear();
        copy.passed = true;
        copy.message.clear();
        copy.failing_rule.clear();
        merged->properties.push_back(std::move(copy));
        it = std::prev(merged->properties.end());
      }
      it->cases += p.cases;
      it->operations += p.operations;
      it->seconds += p.seconds;
      it->no_fault_cases += p.no_fault_cases;
      it->faults += p.faults;
      for (const auto& [k, n] : p.evidence) it->evidence[k] += n;
      for (const auto& [k, n] : p.rule_cases) it->rule_cases[k] += n;
      it->batches.insert(it->batches.end(), p.batches.begin(), p.batches.end());
      if (!p.passed && it->passed) {
        it->passed = false;
        it->failing_rule = p.failing_rule;
        it->message = p.message;
        it->trace_path = p.trace_path;
        it->reproduce = p.reproduce;
        it->counterexample = p.counterexample;
        it->replay_commands = p.replay_commands;
      }
    }
  }
  for (PropertyResult& p : merged->properties) {
    std::sort(p.batches.begin(), p.batches.end(),
              [](const BatchResult& a, const BatchResult& b) { return a.number < b.number; });
  }
  // The regression corpus: replayed by shard 0 alone.
  for (const RunReport* s : ordered) {
    if (s->regressions && !merged->regressions) merged->regressions = s->regressions;
  }
  // Fail points: the same catalogue in every shard; counts add up.
  for (const RunReport* s : ordered) {
    for (const FailPointRow& f : s->fail_points) {
      auto it = std::find_if(merged->fail_points.begin(), merged->fail_points.end(),
                             [&](const FailPointRow& m) { return m.name == f.name; });
      if (it == merged->fail_points.end()) {
        merged->fail_points.push_back(f);
      } else {
        it->reached += f.reached;
        it->fired += f.fired;
      }
    }
  }
  // Progress: the shards ran side by side, so the campaign's totals at second t are the sums of
  // each shard's latest sample at or before t.
  const int64_t seconds = static_cast<int64_t>(merged->elapsed_seconds) + 1;
  for (int64_t t = 1; t <= seconds; ++t) {
    ProgressSample sum;
    sum.seconds = static_cast<double>(t);
    for (const RunReport* s : ordered) {
      const ProgressSample* latest = nullptr;
      for (const ProgressSample& p : s->progress) {
        if (p.seconds <= static_cast<double>(t)) latest = &p;
      }
      if (!latest && !s->progress.empty() && t == seconds) latest = &s->progress.back();
      if (!latest) continue;
      sum.cases += latest->cases;
      sum.operations += latest->operations;
      sum.findings += latest->findings;
    }
    merged->progress.push_back(sum);
  }
  return Status::Ok();
}

}  // namespace statecheck::reports
