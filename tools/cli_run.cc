// `statecheck run`: the conformance campaign (tools/campaign.h).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>

#include "statecheck/status.h"
#include "tools/campaign.h"
#include "tools/cli.h"
#include "tools/shard.h"

namespace statecheck::cli {
namespace {

// ---------------------------------------------------------------------------------------------
// run

// The process's environment, as tools::ResolveShard reads it.
const char* GetEnv(const char* name) { return std::getenv(name); }
const char* NoEnv(const char*) { return nullptr; }

// Runs the campaign (tools/campaign.h) and prints its summary.
int Run(tools::CampaignOptions options, const std::string& shard, const std::string& batch) {
  {
    // A repeated batch or a reproduced failure names its own case: the environment's shard
    // (a CI job's) does not apply to it; --shard still does, as before.
    const bool one_case = !batch.empty() || !options.reproduce.empty();
    tools::ShardChoice choice;
    const Status s = tools::ResolveShard(shard, one_case ? NoEnv : GetEnv, &choice);
    if (!s.ok()) return UsageError(s.message());
    options.shard_index = choice.index;
    options.shard_count = choice.count;
    if (!choice.source.empty() && choice.source != "--shard") {
      std::cerr << "statecheck run: shard " << choice.index << "/" << choice.count << " from "
                << choice.source << "\n";
    }
  }
  if (!batch.empty()) {
    const Status s = tools::ParseBatch(batch, &options.only_batch_property, &options.only_batch);
    if (!s.ok()) return UsageError(s.message());
    if (!options.seed) {
      return UsageError("--batch " + batch +
                        " needs the run's --seed: a batch's seed derives "
                        "from it (the replay command a finding prints has both)");
    }
  }
  options.commit = STATECHECK_GIT_COMMIT;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
  if (!ec) options.executable = self.string();
  options.out = &std::cout;
  options.progress = &std::cerr;
  options.progress_is_tty = isatty(STDERR_FILENO);
  tools::CampaignResult result;
  const Status s = tools::RunCampaign(options, &result);
  if (s.code() == Status::Code::kInvalidArgument) return UsageError(s.message());
  if (!s.ok()) {
    std::cerr << "statecheck: " << s.message() << "\n";
    return kExitUsage;
  }
  tools::PrintSummary(result, std::cout);
  return result.Failed() ? kExitFailed : kExitOk;
}

}  // namespace

// `command`: the command line, for the report.
Subcommand AddRun(CLI::App& app, const std::string& command) {
  auto* run = app.add_subcommand("run", "Run the conformance campaign for a time budget");
  struct Flags {
    tools::CampaignOptions options;
    uint64_t seed = 0;
    std::string shard, batch;
  };
  auto f = std::make_shared<Flags>();
  tools::CampaignOptions& o = f->options;
  run->add_option("--budget", o.budget_seconds, "Seconds to run (default 60)");
  run->add_option("--batches", o.batches_per_property,
                  "Run exactly this many batches of each property instead of a time budget")
      ->check(CLI::PositiveNumber);
  auto* seed = run->add_option("--seed", f->seed, "The run's seed (default: a new one, printed)");
  run->add_option("--select", o.select, "Rules to check: a family (W) or ids (W1,W3)");
  run->add_option("--family", o.families,
                  "Property families to run (window_store, kv_store, kv_concurrency, task, "
                  "windowed); repeat or comma-separate")
      ->delimiter(',');
  run->add_option("--shard", f->shard,
                  "i/n: run shard i of n; n machines with 0/n … n-1/n cover the campaign once "
                  "(default: the CI job's shard, from STATECHECK_SHARD, GitLab's CI_NODE_INDEX, "
                  "Buildkite's BUILDKITE_PARALLEL_JOB, a Kubernetes Indexed Job's "
                  "JOB_COMPLETION_INDEX with STATECHECK_SHARD_COUNT, or GoogleTest's "
                  "GTEST_SHARD_INDEX; `statecheck shard` prints it)");
  run->add_option("--report-dir", o.report_dir,
                  "Where the report goes (default statecheck-reports/<time>-seed<seed>)");
  run->add_option("--reproduce", o.reproduce,
                  "Re-run exactly one failure, from the reproduce string it printed");
  run->add_option("--jobs", o.jobs,
                  "Worker processes that run the batches (default: the CPUs this process may "
                  "use, " +
                      std::to_string(tools::CampaignOptions::DefaultJobs()) +
                      ": its CPU affinity, capped by a cgroup v2 CPU quota). Up to as many as its "
                      "affinity allows, each worker runs on a CPU of its own")
      ->check(CLI::PositiveNumber);
  run->add_option("--hang-seconds", o.hang_seconds,
                  "A batch in which no case ends for this many seconds is a hang: its worker is "
                  "killed and the batch is a finding of L1 naming its seed (default 60; 0: no "
                  "bound)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--batch", f->batch,
                  "PROPERTY:K: run batch K of that property alone, in this process (how a batch "
                  "whose worker died is repeated; give the run's --seed)");
  run->add_flag("--require-evidence", o.require_evidence,
                "Fail (exit 1) when a rule is not exercised: its checks held but a situation it "
                "declares was never reached (the nightly sets it)");
  run->add_option("--cases-per-batch", o.cases_per_batch, "Cases per property batch")
      ->check(CLI::PositiveNumber);
  run->add_option("--max-size", o.max_size, "Longest operation sequence")
      ->check(CLI::PositiveNumber);
  // The corpus of the source tree this binary was built from, when it is there.
  if (const std::string corpus = std::string(STATECHECK_SOURCE_DIR) + "/regressions";
      std::filesystem::is_directory(corpus)) {
    o.regressions_dir = corpus;
  }
  run->add_option("--regressions", o.regressions_dir,
                  "The regression corpus replayed before the batches: a directory of traces, one "
                  "per fixed bug (default: the source tree's regressions/; \"\" for none)");
  return {run, [f, seed, command] {
            if (*seed) f->options.seed = f->seed;
            f->options.command = command;
            return Run(f->options, f->shard, f->batch);
          }};
}

Subcommand AddShard(CLI::App& app) {
  auto* shard = app.add_subcommand(
      "shard",
      "Print the shard `statecheck run` takes from the environment, as i/n (0/1: the whole "
      "campaign); exit 2 naming the variables when they are half-set or disagree");
  auto verbose = std::make_shared<bool>(false);
  shard->add_flag("--source", *verbose, "Also print, on stderr, which variables named it");
  return {shard, [verbose] {
            tools::ShardChoice choice;
            const Status s = tools::ResolveShard("", GetEnv, &choice);
            if (!s.ok()) return UsageError(s.message());
            std::cout << choice.index << "/" << choice.count << "\n";
            if (*verbose) {
              std::cerr << (choice.source.empty() ? "no variable names a shard" : choice.source)
                        << "\n";
            }
            return kExitOk;
          }};
}

}  // namespace statecheck::cli
