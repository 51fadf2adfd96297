// The conformance campaign behind `statecheck run`: it runs the option matrix's properties
// (properties/property_registry.h) in batches, for a time budget or a fixed number of batches
// per property, attributes the faults each batch went through, samples its progress, and writes
// the report (reports/run_report.h) in every format.
//
// Batches are the unit of a campaign. Batch k of property P runs cases_per_batch / P's divisor
// cases from the seed Mix(seed ^ Mix(Fnv1a(P) ^ Mix(k))), so it depends on nothing but the run's
// seed, P and k: it replays whatever the timing, and the same batch runs the same cases on any
// machine. Sharding splits the batches: batch (P, k) belongs to shard ShardOf(P, k, n), so n
// machines with --shard 0/n … n-1/n cover each batch exactly once, and `report merge` puts their
// reports back together. With a time budget each shard runs its own batches until the budget
// ends; with batches_per_property every shard runs exactly its share of batches 0…N-1 of each
// property, and the merge covers exactly the batches of the unsharded run.
//
// The budget (or the batches) is shared by coverage: each step runs one batch of the family whose
// time so far, divided by the weight of its thin evidence (1 + 2 × the share of its rules'
// situations not yet reached), is least, and within the family of the property that has run the
// fewest cases, so that every configuration runs and the families still missing evidence get
// more time. A property that failed is not run again: its shrunk counterexample is the finding.
//
// The batches run in `jobs` worker processes (tools/campaign_workers.h), each handed the next
// batch as it becomes free; the batches in flight count at their expected time when the next is
// picked. A batch's cases depend only on its seed, so `--jobs 1` and `--jobs 8` run the same
// batches for `--batches N` with the same results; with a budget, more workers run more of them.
// A worker that dies running a batch (a crash, an abort, a kill) is a finding of that batch's
// property, unattributed to any rule, with the command that runs the batch alone; the campaign
// goes on with a new worker.
#ifndef STATECHECK_TOOLS_CAMPAIGN_H_
#define STATECHECK_TOOLS_CAMPAIGN_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reports/run_report.h"
#include "statecheck/status.h"
#include "tools/shard.h"

namespace statecheck::tools {

struct CampaignOptions {
  double budget_seconds = 60;         // Used when batches_per_property is 0.
  int64_t batches_per_property = 0;   // > 0: exactly this many batches of each property.
  std::optional<uint64_t> seed;       // Unset: a new one (printed, and in the report).
  std::string select;                 // Rules: "" (all), a family ("W") or ids ("W1,T4").
  std::vector<std::string> families;  // Property families; empty = those of the rules.
  std::string report_dir;             // Empty: statecheck-reports/<time>-seed<seed>.
  std::string reproduce;              // Re-runs exactly one failure (rapidcheck's string).
  int cases_per_batch = 40;
  int max_size = 80;
  int shard_index = 0;
  int shard_count = 1;
  std::string command;  // The command line, for the report (the seed is added if unset).
  std::string commit = "unknown";
  // The statecheck binary as the replay commands name it (best absolute, so that a command
  // pasted into any shell runs it).
  std::string executable = "statecheck";
  std::ostream* out = nullptr;         // The summary (null: none).
  std::ostream* progress = nullptr;    // The progress bar and failures as they happen (null: none).
  bool progress_is_tty = false;        // Redraw the progress line in place.
  bool stop_at_first_finding = false;  // End the run at its first finding (statecheck selftest).
  // A rule "not exercised" (its checks held, a situation it declares never reached) fails the
  // run: CampaignResult::Failed. The nightly sets it; a short run only reports it.
  bool require_evidence = false;
  // Worker processes that run the batches (tools/campaign_workers.h); the default, every core.
  // A reproduction (--reproduce) and a single batch (--batch) run in this process.
  int jobs = DefaultJobs();
  // --batch PROPERTY:K: exactly batch K of that property (its seed derived as in any run), in
  // this process: how a batch whose worker died is run again in the foreground.
  std::string only_batch_property;
  uint64_t only_batch = 0;
  // The regression corpus (regressions/: one trace per fixed bug) replayed before the batches,
  // its traces of the selected families only; "" replays none. Not in a reproduction, a single
  // batch, or a shard other than 0. A trace that diverges is a finding; one that cannot be read
  // is a usage error.
  std::string regressions_dir;
  // The watchdog: a batch in which no case has ended (and no result come) for this many seconds
  // is a hang — its worker is killed, the batch is a finding of L1 naming its seed, and the
  // campaign goes on. 0: no bound. Not in this process (--reproduce, --batch), which a
  // debugger may stop.
  double hang_seconds = 60;
  // Test hook (campaign_test): the worker that starts this batch kills itself with SIGKILL, or
  // with test_hang_worker sleeps instead of running it (a case that never ends).
  std::string test_kill_worker_property;
  uint64_t test_kill_worker_batch = 0;
  bool test_hang_worker = false;

  // The CPUs this process can keep busy (WorkerPool::UsableCpus: its affinity mask, capped by a
  // cgroup v2 CPU quota; at least 1).
  static int DefaultJobs();
};

struct CampaignResult {
  reports::RunReport report;
  std::vector<reports::RuleVerdict> verdicts;
  std::string report_dir;
  int64_t findings = 0;
  double first_finding_seconds = -1;  // When the first finding was in (shrunk); -1: none.
  // Whether the run fails: a finding, a "fail" verdict, or (with require_evidence) a rule "not
  // exercised".
  bool Failed() const;
};

// The shard batch k of property `id` belongs to, of `count`.
int ShardOf(const std::string& id, uint64_t k, int count);

// ParseShard ("i/n" → index and count): tools/shard.h.

// Runs the campaign and writes its report. InvalidArgument for a usage error (the message names
// it: an unknown rule or family, nothing selected, a bad budget or shard); IOError when the
// report cannot be written. A failing property is not an error: see result->findings.
Status RunCampaign(const CampaignOptions& options, CampaignResult* result);

// The summary a run prints: the rule table, fail-point coverage, totals, findings with their
// replay commands, and where the report is.
void PrintSummary(const CampaignResult& result, std::ostream& out);

// `report merge`: reads the report.json of each shard (a directory holding one, or the file),
// merges them and writes the merged report into `out_dir`. InvalidArgument naming the file and
// the problem.
Status MergeReportFiles(const std::vector<std::string>& inputs, const std::string& out_dir,
                        CampaignResult* result);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_CAMPAIGN_H_
