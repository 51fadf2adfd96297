// The campaign behind `statecheck run` (campaign.h): its plan of batches, their scheduling and
// progress (Campaign), and RunCampaign. Its regression corpus: campaign_regressions.cc; its
// summary and merged reports: campaign_report.cc.
#include "tools/campaign.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "faults/fault_fs.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/property_registry.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/hooks/planted_bugs.h"
#include "tools/campaign_internal.h"
#include "tools/campaign_workers.h"
#include "tools/catalogue.h"

namespace statecheck::tools {
namespace internal {

std::string Compact(double v) {
  char buf[32];
  if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  } else if (v >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  }
  return buf;
}

// `s` as one shell word: bare when it is safe, else in single quotes.
std::string ShellQuote(const std::string& s) {
  const bool safe = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-+=:,@%", c);
  });
  if (safe) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace internal

namespace {

namespace fs = std::filesystem;

std::string NowIso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// FNV-1a: a property id's contribution to its batch seeds, the same on every platform.
uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// The catalogue's fail points, in its order, with the run's counts (name -> reached, fired: the
// sums of every batch's, wherever it ran).
std::vector<reports::FailPointRow> FailPointRows(
    const std::map<std::string, std::pair<uint64_t, uint64_t>>& counts) {
  auto count = [&](const std::string& name) {
    auto it = counts.find(name);
    return it == counts.end() ? std::pair<uint64_t, uint64_t>{} : it->second;
  };
  std::vector<reports::FailPointRow> rows;
  for (const FailPointCount& c : EngineFailPointCounts()) {
    rows.push_back({c.name, count(c.name).first, count(c.name).second});
  }
  const std::vector<faults::FailPointInfo> catalogue = faults::FsFailPointCatalogue();
  for (const auto& [name, c] : faults::FsFailPointCounts()) {
    bool reachable = true;
    for (const faults::FailPointInfo& info : catalogue) {
      if (info.name == name) reachable = info.unreachable_because.empty();
    }
    rows.push_back({name, count(name).first, count(name).second, reachable});
  }
  return rows;
}

// "[=======>      ] 31/60 s": how far the budget (or the batches) has got.
std::string Bar(double done) {
  constexpr int kWidth = 20;
  const int filled = std::clamp(static_cast<int>(done * kWidth), 0, kWidth);
  std::string bar = "[" + std::string(filled, '=');
  if (filled < kWidth) bar += ">" + std::string(kWidth - filled - 1, ' ');
  return bar + "]";
}

using internal::Campaign;
using internal::Compact;

}  // namespace

int CampaignOptions::DefaultJobs() { return WorkerPool::UsableCpus(); }

bool CampaignResult::Failed() const {
  return findings > 0 || reports::VerdictsFail(verdicts, report.configuration.require_evidence);
}

int ShardOf(const std::string& id, uint64_t k, int count) {
  if (count <= 1) return 0;
  return static_cast<int>(properties::Mix(Fnv1a(id) ^ properties::Mix(k + 1)) %
                          static_cast<uint64_t>(count));
}

namespace {

// The properties a campaign runs: those of the selected rules' families (or --family), or the one
// a reproduce string or --batch names. InvalidArgument naming what matched nothing.
Status SelectSpecs(const CampaignOptions& options, const std::vector<const reports::Rule*>& rules,
                   std::vector<properties::PropertySpec>* specs) {
  std::set<std::string> families;
  for (const reports::Rule* r : rules) {
    families.insert(r->property_families.begin(), r->property_families.end());
  }
  std::vector<properties::PropertySpec> all = properties::AllProperties();
  if (!options.families.empty()) {
    std::set<std::string> known;
    for (const auto& spec : all) known.insert(spec.family);
    for (const std::string& f : options.families) {
      if (!known.count(f)) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        return Status::InvalidArgument("no property family \"" + f + "\" (one of " + list + ")");
      }
    }
    std::set<std::string> wanted(options.families.begin(), options.families.end());
    std::erase_if(families, [&](const std::string& f) { return !wanted.count(f); });
  }
  std::string only = options.only_batch_property;
  if (!options.reproduce.empty()) {
    STATECHECK_RETURN_IF_ERROR(properties::PropertyIdOfReproduce(options.reproduce, &only));
  }
  for (auto& spec : all) {
    if (!only.empty() ? spec.id == only : families.count(spec.family) > 0) {
      specs->push_back(std::move(spec));
    }
  }
  if (specs->empty()) {
    return Status::InvalidArgument(!only.empty()
                                       ? "no property \"" + only + "\" in this build"
                                       : "no property checks the selected rules and families (see "
                                         "`statecheck list rules`)");
  }
  return Status::Ok();
}

}  // namespace

namespace internal {

void Campaign::MakePlans() {
  reports::RunReport& report = result_->report;
  for (const reports::Rule& rule : Catalogue().rules()) {
    for (const std::string& family : rule.property_families) {
      for (const reports::Situation& sit : rule.situations) {
        family_situations_[family].push_back(sit.name);
      }
    }
  }
  for (const auto& spec : specs_) {
    Plan p;
    if (!options_.only_batch_property.empty()) {
      p.next = options_.only_batch;
      p.left = 1;
    } else {
      p.next = Advance(spec.id, 0);
      if (options_.batches_per_property > 0) {
        p.left = 0;
        for (int64_t k = 0; k < options_.batches_per_property; ++k) {
          p.left += ShardOf(spec.id, static_cast<uint64_t>(k), options_.shard_count) ==
                    options_.shard_index;
        }
      }
    }
    if (p.left > 0) total_batches_ += p.left;
    plans_.push_back(p);
    reports::PropertyResult r;
    r.id = spec.id;
    r.family = spec.family;
    r.config = spec.config;
    report.properties.push_back(std::move(r));
  }
}

bool Campaign::Done() const {
  if (stop_) return true;
  if (!options_.reproduce.empty() && batches_run_ > 0) return true;  // A reproduction runs once.
  const bool counted = options_.batches_per_property > 0 || !options_.only_batch_property.empty();
  return !counted && Elapsed() >= options_.budget_seconds;
}

int Campaign::NextSpec() {
  if (Done()) return -1;
  // The family whose time, weighed by how thin its evidence is, is least; within it the property
  // that has run the fewest cases (then had the least time), so no configuration starves.
  auto family_cost = [&](const std::string& family) {
    return family_seconds_[family] / EvidenceWeight(family);
  };
  int next = -1;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const Plan& plan = plans_[i];
    if (!result_->report.properties[i].passed || plan.left == 0) continue;
    if (next >= 0) {
      const size_t n = static_cast<size_t>(next);
      const double fa = family_cost(specs_[i].family), fb = family_cost(specs_[n].family);
      if (fa > fb) continue;
      if (fa == fb) {
        const int64_t ca = result_->report.properties[i].cases + plan.in_flight_cases;
        const int64_t cb = result_->report.properties[n].cases + plans_[n].in_flight_cases;
        if (ca > cb || (ca == cb && plan.seconds >= plans_[n].seconds)) continue;
      }
    }
    next = static_cast<int>(i);
  }
  return next;
}

double Campaign::EvidenceWeight(const std::string& family) const {
  auto it = family_situations_.find(family);
  if (it == family_situations_.end() || it->second.empty()) return 1;
  size_t unreached = 0;
  for (const std::string& name : it->second) unreached += reached_.count(name) == 0;
  return 1 + 2 * static_cast<double>(unreached) / static_cast<double>(it->second.size());
}

// What a batch of `spec` is expected to take: its mean so far, or a guess for the first one.
double Campaign::Estimate(size_t spec) const {
  const Plan& p = plans_[spec];
  return p.runs > 0 ? p.seconds / static_cast<double>(p.runs) : 0.01;
}

BatchJob Campaign::MakeJob(size_t spec_index) {
  const properties::PropertySpec& spec = specs_[spec_index];
  Plan& plan = plans_[spec_index];
  BatchJob job;
  job.spec = spec_index;
  job.number = plan.next;
  job.params.seed =
      properties::Mix(seed_ ^ properties::Mix(Fnv1a(spec.id) ^ properties::Mix(plan.next)));
  job.params.max_success = std::max(1, options_.cases_per_batch / spec.batch_divisor);
  job.params.max_size = options_.max_size;
  job.params.trace_dir = result_->report_dir + "/counterexamples";
  if (!options_.reproduce.empty()) job.params.reproduce = options_.reproduce;
  const bool victim =
      options_.test_kill_worker_property == spec.id && options_.test_kill_worker_batch == plan.next;
  job.kill_worker = victim && !options_.test_hang_worker;
  job.hang_worker = victim && options_.test_hang_worker;
  plan.next =
      options_.only_batch_property.empty() ? Advance(spec.id, plan.next + 1) : plan.next + 1;
  if (plan.left > 0) --plan.left;
  plan.in_flight_cases += job.params.max_success;
  // Counted now at its estimate, so that the other workers' picks see it; Absorb corrects it.
  const double estimate = Estimate(spec_index);
  plan.seconds += estimate;
  family_seconds_[spec.family] += estimate;
  return job;
}

void Campaign::Absorb(const BatchJob& job, const BatchRun& run) {
  const properties::PropertySpec& spec = specs_[job.spec];
  Plan& plan = plans_[job.spec];
  reports::PropertyResult& r = result_->report.properties[job.spec];
  const properties::PropertyOutcome& out = run.outcome;
  const double estimate = Estimate(job.spec);
  plan.seconds += run.seconds - estimate;
  family_seconds_[spec.family] += run.seconds - estimate;
  ++plan.runs;
  plan.in_flight_cases -= job.params.max_success;
  for (const auto& [name, n] : run.outcome.evidence.situations) {
    if (n > 0) reached_.insert(name);
  }
  reports::BatchResult batch;
  batch.number = job.number;
  batch.seed = job.params.seed;
  batch.seconds = run.seconds;
  batch.cases = out.cases;
  batch.operations = out.operations;
  batch.passed = out.passed;
  r.batches.push_back(batch);
  r.seconds += run.seconds;
  r.cases += out.cases;
  r.operations += out.operations;
  for (const auto& [name, n] : out.evidence.situations) r.evidence[name] += n;
  for (const auto& [rule, n] : out.evidence.rule_cases) r.rule_cases[rule] += n;
  r.faults.crashes += run.crashes;
  r.faults.power_losses += run.power_losses;
  r.faults.io_errors += static_cast<int64_t>(run.fs_fired);
  r.faults.engine_faults += static_cast<int64_t>(run.engine_fired);
  // Cases that went through no fault. The tally counts every case a property ran, shrinking
  // attempts included; a passing batch runs exactly its cases.
  r.no_fault_cases += std::max<int64_t>(0, out.cases - run.faulted_cases);
  for (const auto& [name, c] : run.fail_points) {
    fail_points_[name].first += c.first;
    fail_points_[name].second += c.second;
  }
  total_ops_ += out.operations;
  total_cases_ += out.cases;
  ++batches_run_;
  if (!out.passed && r.passed) RecordFailure(job, run, &r);
  const double now = Elapsed();
  if (now - last_sample_ >= 1.0 || !out.passed) {
    last_sample_ = now;
    Sample();
    ShowProgress();
  }
}

std::string Campaign::ReplayExecutable() const {
  const std::string active_bug = planted::ActiveName();
  return (active_bug.empty() ? "" : "STATECHECK_PLANTED_BUG=" + ShellQuote(active_bug) + " ") +
         ShellQuote(options_.executable);
}

void Campaign::RecordFailure(const BatchJob& job, const BatchRun& run, reports::PropertyResult* r) {
  const properties::PropertySpec& spec = specs_[job.spec];
  const properties::PropertyOutcome& out = run.outcome;
  ++result_->findings;
  r->passed = false;
  r->failing_rule = out.rule;
  r->message = out.message;
  r->trace_path = out.trace_path;
  r->reproduce = out.reproduce;
  r->counterexample = out.counterexample;
  const std::string exe = ReplayExecutable();
  if (!run.died.empty()) {
    // The process running the batch did not survive it: no check failed, so the failure is
    // unattributed. Or the watchdog ended it (a hang): a finding of L1. The batch alone, in the
    // foreground (under a debugger, say), repeats it.
    const std::string batch = "batch " + std::to_string(job.number) + " (seed " +
                              std::to_string(job.params.seed) + ") of " + spec.id;
    // L1: a batch with no result within --hang-seconds is a hang.
    if (run.hung_seconds > 0) r->failing_rule = "L1";
    r->message = run.hung_seconds > 0
                     ? "hang: no case of " + batch + " ended within " +
                           (std::ostringstream() << run.hung_seconds).str() +
                           " s (--hang-seconds), and its worker was " + run.died +
                           ". A finding of L1 (no hang)."
                     : "the worker process running " + batch + " died: it was " + run.died +
                           ". No check failed, so the failure is unattributed.";
    r->replay_commands.push_back(exe + " run --seed " + std::to_string(seed_) + " --batch " +
                                 ShellQuote(spec.id + ":" + std::to_string(job.number)));
  }
  if (!r->trace_path.empty()) {
    std::error_code ec;
    const fs::path trace = fs::absolute(r->trace_path, ec);
    r->replay_commands.push_back(exe + " replay " +
                                 ShellQuote(ec ? r->trace_path : trace.string()));
  }
  if (!r->reproduce.empty()) {
    r->replay_commands.push_back(exe + " run --reproduce " + ShellQuote(r->reproduce));
  }
  if (result_->first_finding_seconds < 0) result_->first_finding_seconds = Elapsed();
  if (options_.stop_at_first_finding) stop_ = true;
  if (options_.progress) {
    *options_.progress << (options_.progress_is_tty ? "\r\033[K" : "") << "FAIL " << spec.id
                       << " (batch " << job.number << ", seed " << job.params.seed << ")\n"
                       << r->message << "\n";
    if (!out.trace_path.empty()) {
      *options_.progress << "  shrunk to " << out.counterexample.size()
                         << " steps; trace: " << out.trace_path << "\n";
    } else if (!r->replay_commands.empty()) {
      // No trace (a worker that died, a hang): the batch alone repeats it.
      *options_.progress << "  repeat it: " << r->replay_commands.front() << "\n";
    }
  }
}

void Campaign::Sample() {
  result_->report.progress.push_back({Elapsed(), total_cases_, total_ops_, result_->findings});
}

void Campaign::ShowProgress() {
  if (!options_.progress) return;
  const double now = Elapsed();
  const bool counted = total_batches_ > 0;
  const double done = counted ? static_cast<double>(batches_run_) /
                                    static_cast<double>(std::max<int64_t>(1, total_batches_))
                              : now / options_.budget_seconds;
  const std::string where =
      counted ? std::to_string(batches_run_) + "/" + std::to_string(total_batches_) + " batches"
              : std::to_string(static_cast<int>(now)) + "/" +
                    std::to_string(static_cast<int>(options_.budget_seconds)) + " s";
  *options_.progress << (options_.progress_is_tty ? "\r\033[K" : "") << Bar(done) << " " << where
                     << "  " << Compact(static_cast<double>(total_cases_)) << " cases, "
                     << Compact(static_cast<double>(total_ops_)) << " ops ("
                     << Compact(static_cast<double>(total_ops_) / std::max(now, 1e-9))
                     << " ops/s), " << result_->findings
                     << (result_->findings == 1 ? " finding" : " findings")
                     << (options_.progress_is_tty ? "" : "\n") << std::flush;
}

Status Campaign::Run() {
  // A reproduction or a single batch runs in this process, in the foreground; a campaign in
  // worker processes.
  jobs_ = options_.reproduce.empty() && options_.only_batch_property.empty()
              ? std::max(1, options_.jobs)
              : 0;
  result_->report.configuration.jobs = std::max(1, jobs_);
  MakePlans();
  faults::ResetFsFailPointCounts();
  ResetEngineFailPointCounts();
  properties::ResetFaultTally();
  start_ = Clock::now();
  Sample();
  STATECHECK_RETURN_IF_ERROR(ReplayRegressions());
  if (Inline()) {
    for (int next; (next = NextSpec()) >= 0;) {
      const BatchJob job = MakeJob(static_cast<size_t>(next));
      Absorb(job, RunBatchHere(specs_[job.spec], job.params));
    }
  } else {
    WorkerPool pool(&specs_, jobs_, options_.hang_seconds);
    std::vector<BatchJob> running(static_cast<size_t>(pool.size()));
    for (;;) {
      for (int w, next; (w = pool.FindIdle()) >= 0 && (next = NextSpec()) >= 0;) {
        running[static_cast<size_t>(w)] = MakeJob(static_cast<size_t>(next));
        STATECHECK_RETURN_IF_ERROR(pool.Start(w, running[static_cast<size_t>(w)]));
      }
      if (pool.busy() == 0) break;
      int w = -1;
      BatchRun run;
      STATECHECK_RETURN_IF_ERROR(pool.WaitAny(&w, &run));
      Absorb(running[static_cast<size_t>(w)], run);
      if (stop_) pool.AbandonBusy();
    }
    result_->report.configuration.workers_started = pool.started();
  }
  reports::RunReport& report = result_->report;
  report.elapsed_seconds = Elapsed();
  Sample();
  if (options_.progress && options_.progress_is_tty) *options_.progress << "\n";
  report.fail_points = FailPointRows(fail_points_);
  // Evidence: only situations the catalogue declares count; any other name is a harness bug
  // (a typo would otherwise never count, or count for nothing).
  for (const reports::PropertyResult& p : report.properties) {
    for (const auto& [name, n] : p.evidence) {
      if (!Catalogue().FindSituation(name)) {
        return Status::FailedPrecondition("harness bug: property " + p.id +
                                          " counted the situation \"" + name +
                                          "\", which reports/rules.json does not declare");
      }
    }
  }
  return Status::Ok();
}

}  // namespace internal

Status RunCampaign(const CampaignOptions& options, CampaignResult* result) {
  *result = CampaignResult();
  std::vector<const reports::Rule*> rules;
  STATECHECK_RETURN_IF_ERROR(Catalogue().Select(options.select, &rules));
  if (options.batches_per_property <= 0 && options.budget_seconds <= 0) {
    return Status::InvalidArgument("--budget must be a positive number of seconds");
  }
  if (options.shard_count < 1 || options.shard_index < 0 ||
      options.shard_index >= options.shard_count) {
    return Status::InvalidArgument("--shard takes i/n with 0 <= i < n");
  }
  if (options.jobs < 1) return Status::InvalidArgument("--jobs takes a number of workers >= 1");
  if (options.hang_seconds < 0) {
    return Status::InvalidArgument("--hang-seconds takes a number of seconds >= 0 (0: no bound)");
  }
  std::vector<properties::PropertySpec> specs;
  STATECHECK_RETURN_IF_ERROR(SelectSpecs(options, rules, &specs));
  const uint64_t seed = options.seed
                            ? *options.seed
                            : (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();

  reports::RunReport& report = result->report;
  report.seed = seed;
  reports::RunConfiguration& config = report.configuration;
  config.budget_seconds = options.batches_per_property > 0 ? 0 : options.budget_seconds;
  config.batches_per_property = options.batches_per_property;
  config.select = options.select;
  config.families = options.families;
  config.cases_per_batch = options.cases_per_batch;
  config.max_size = options.max_size;
  config.shard_index = options.shard_index;
  config.shard_count = options.shard_count;
  config.require_evidence = options.require_evidence;
  report.started_at = NowIso8601();
  report.commit = options.commit;
  // The seed goes into the recorded command, so that it repeats the run exactly.
  report.command = options.seed || !options.reproduce.empty()
                       ? options.command
                       : options.command + " --seed " + std::to_string(seed);
  std::string dir = options.report_dir;
  if (dir.empty()) {
    std::string stamp = report.started_at;
    for (char& c : stamp) c = (c == ':') ? '-' : c;
    dir = "statecheck-reports/" + stamp + "-seed" + std::to_string(seed);
    if (options.shard_count > 1) {
      dir += "-shard" + std::to_string(options.shard_index) + "of" +
             std::to_string(options.shard_count);
    }
  }
  result->report_dir = dir;
  if (options.out) {
    *options.out << "statecheck run: seed " << seed << ", "
                 << (options.batches_per_property > 0
                         ? std::to_string(options.batches_per_property) + " batches per property"
                         : "budget " + Compact(options.budget_seconds) + " s")
                 << ", " << specs.size() << " properties"
                 << (options.shard_count > 1 ? ", shard " + std::to_string(options.shard_index) +
                                                   "/" + std::to_string(options.shard_count)
                                             : "")
                 << ", " << options.jobs << (options.jobs == 1 ? " worker" : " workers")
                 << (!WorkerPool::Pinned(options.jobs) ? ""
                     : options.jobs == 1               ? " on a core of its own"
                                                       : " on a core each")
                 << ", report in " << dir << "\n";
  }
  Campaign campaign(options, std::move(specs), seed, result);
  STATECHECK_RETURN_IF_ERROR(campaign.Run());
  result->verdicts = reports::RuleVerdicts(rules, report);
  return reports::WriteReport(dir, report, result->verdicts);
}

}  // namespace statecheck::tools
