#include "tools/campaign.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "faults/fault_fs.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/json_lines.h"
#include "properties/property_registry.h"
#include "properties/trace_replay.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/hooks/planted_bugs.h"
#include "tools/campaign_workers.h"

namespace statecheck::tools {
namespace {

namespace fs = std::filesystem;

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

std::string NowIso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

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

// "[=======>      ] 31/60 s": how far the budget (or the batches) has got.
std::string Bar(double done) {
  constexpr int kWidth = 20;
  const int filled = std::clamp(static_cast<int>(done * kWidth), 0, kWidth);
  std::string bar = "[" + std::string(filled, '=');
  if (filled < kWidth) bar += ">" + std::string(kWidth - filled - 1, ' ');
  return bar + "]";
}

}  // namespace

int CampaignOptions::DefaultJobs() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

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

// One campaign run: the plan of batches, the executor (this process or the workers), what the
// batches did, and the progress line.
class Campaign {
 public:
  Campaign(const CampaignOptions& options, std::vector<properties::PropertySpec> specs,
           uint64_t seed, CampaignResult* result)
      : options_(options), specs_(std::move(specs)), seed_(seed), result_(result) {}

  Status Run();

 private:
  // A property's batches in this shard: the next batch number to run, how many are left (with a
  // fixed count), and the seconds its batches took (with those running counted at an estimate).
  struct Plan {
    uint64_t next = 0;
    int64_t left = -1;  // -1: until the budget ends.
    double seconds = 0;
    int64_t runs = 0;
    int64_t in_flight_cases = 0;  // Of batches handed out and not yet back.
  };

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  uint64_t Advance(const std::string& id, uint64_t from) const {
    while (ShardOf(id, from, options_.shard_count) != options_.shard_index) ++from;
    return from;
  }
  bool Inline() const { return jobs_ == 0; }
  void MakePlans();
  // Replays the regression corpus into the report (RunReport::regressions).
  Status ReplayRegressions();
  // The binary as a replay command names it: a command that works pasted into any shell (an
  // absolute path, quoted), in the planted build with the active planted bug in its environment.
  std::string ReplayExecutable() const;
  // The next batch to run: the property whose family has had the least time, then the property
  // of the family that has; -1 when none is left (or the budget is spent).
  int NextSpec();
  BatchJob MakeJob(size_t spec);
  double Estimate(size_t spec) const;
  // 1 + 2 × the share of the situations its rules declare that no case has reached yet: a
  // family whose evidence is thin gets up to three times the time of one whose is complete.
  double EvidenceWeight(const std::string& family) const;
  void Absorb(const BatchJob& job, const BatchRun& run);
  void RecordFailure(const BatchJob& job, const BatchRun& run, reports::PropertyResult* r);
  void Sample();
  void ShowProgress();
  bool Done() const;

  const CampaignOptions& options_;
  const std::vector<properties::PropertySpec> specs_;
  const uint64_t seed_;
  CampaignResult* const result_;
  int jobs_ = 0;  // 0: batches run in this process.
  std::vector<Plan> plans_;
  std::map<std::string, double> family_seconds_;
  std::map<std::string, std::vector<std::string>> family_situations_;  // Of its rules.
  std::set<std::string> reached_;  // Situations some case has reached so far.
  std::map<std::string, std::pair<uint64_t, uint64_t>> fail_points_;  // name -> reached, fired.
  Clock::time_point start_;
  int64_t total_ops_ = 0, total_cases_ = 0, batches_run_ = 0, total_batches_ = 0;
  double last_sample_ = 0;
  bool stop_ = false;
};

void Campaign::MakePlans() {
  reports::RunReport& report = result_->report;
  for (const reports::Rule& rule : reports::RuleCatalogue::Builtin().rules()) {
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

// A regression trace's replay (`replay`: what ReplayRegressions' child sent back, or ForkEach's
// {"died": ...}) as a property result; `exe` starts its replay command.
reports::PropertyResult RegressionResult(const fs::path& file, const std::string& family,
                                         const Json& replay, const std::string& exe) {
  reports::PropertyResult r;
  r.id = "regressions/" + file.filename().string();
  r.family = family;
  r.cases = 1;
  const bool died = replay.contains("died");
  if (!died) {
    r.config = replay["description"].get<std::string>();
    r.operations = replay["steps_run"].get<int64_t>();
    r.seconds = replay["seconds"].get<double>();
  }
  r.passed = !died && !replay["diverged"].get<bool>();
  r.batches.push_back(reports::BatchResult{0, 0, 1, r.operations, r.seconds, r.passed});
  if (r.passed) return r;
  std::error_code ec;
  r.trace_path = fs::absolute(file, ec).string();
  r.replay_commands = {exe + " replay " + ShellQuote(r.trace_path)};
  if (died) {
    r.message = "the process replaying it died: it was " + replay["died"].get<std::string>() +
                ". No check failed, so the failure is unattributed.\n";
  } else {
    r.failing_rule = replay["rule"].get<std::string>();
    r.message = replay["verdict"].get<std::string>();
    r.counterexample = {replay["op"].get<std::string>()};
  }
  return r;
}

std::string Campaign::ReplayExecutable() const {
  const std::string active_bug = planted::ActiveName();
  return (active_bug.empty() ? "" : "STATECHECK_PLANTED_BUG=" + ShellQuote(active_bug) + " ") +
         ShellQuote(options_.executable);
}

Status Campaign::ReplayRegressions() {
  if (options_.regressions_dir.empty() || !options_.reproduce.empty() ||
      !options_.only_batch_property.empty() || options_.shard_index != 0) {
    return Status::Ok();
  }
  const fs::path dir(options_.regressions_dir);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::InvalidArgument("--regressions " + options_.regressions_dir +
                                   ": not a directory (give the corpus directory, such as the "
                                   "source tree's regressions/, or \"\" for none)");
  }
  // The traces of the families this run checks, by file name.
  std::set<std::string> families;
  for (const properties::PropertySpec& spec : specs_) families.insert(spec.family);
  std::vector<std::pair<fs::path, std::string>> traces;  // (file, family)
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string kind = properties::TraceKind(text.str());
    if (kind.empty()) kind = "window_store";  // Its reader says what is wrong.
    if (families.count(kind) != 0) traces.emplace_back(e.path(), kind);
  }
  std::sort(traces.begin(), traces.end());
  // Each in a process of its own, as the batches are: the engine's threads stay out of this
  // process (the workers are forked from it), and a replay that dies is a finding.
  const std::vector<Json> replays = ForkEach(traces.size(), std::max(1, jobs_), [&](size_t i) {
    const auto started = Clock::now();
    properties::TraceReplay r;
    const Status s =
        properties::ReplayTraceFile(traces[i].first.string(), properties::ReplayTarget::kBoth, &r);
    return Json{{"error", s.ok() ? "" : s.message()},
                {"description", r.description},
                {"steps_run", r.steps_run},
                {"diverged", r.diverged},
                {"rule", r.rule},
                {"op", r.op},
                {"verdict", r.verdict},
                {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}};
  });
  reports::RegressionSection section;
  section.directory = options_.regressions_dir;
  const std::string exe = ReplayExecutable();
  for (size_t i = 0; i < traces.size(); ++i) {
    const Json& j = replays[i];
    if (j.contains("error") && !j["error"].get<std::string>().empty()) {
      return Status::InvalidArgument("the regression corpus holds a trace that cannot run: " +
                                     j["error"].get<std::string>());
    }
    reports::PropertyResult r = RegressionResult(traces[i].first, traces[i].second, j, exe);
    if (!r.passed) {
      ++result_->findings;
      if (result_->first_finding_seconds < 0) result_->first_finding_seconds = Elapsed();
      if (options_.stop_at_first_finding) stop_ = true;
      if (options_.progress) {
        *options_.progress << (options_.progress_is_tty ? "\r\033[K" : "") << "FAIL " << r.id
                           << " (the regression corpus)\n"
                           << r.message;
      }
    }
    section.traces.push_back(std::move(r));
  }
  if (options_.progress) {
    *options_.progress << "regression corpus: " << section.traces.size() << " traces from "
                       << section.directory << ", " << section.Diverged() << " diverged\n";
  }
  result_->report.regressions = std::move(section);
  return Status::Ok();
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
                       << r->message << "\n  shrunk to " << out.counterexample.size()
                       << " steps; trace: " << out.trace_path << "\n";
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
      if (!reports::RuleCatalogue::Builtin().FindSituation(name)) {
        return Status::FailedPrecondition("harness bug: property " + p.id +
                                          " counted the situation \"" + name +
                                          "\", which reports/rules.json does not declare");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status RunCampaign(const CampaignOptions& options, CampaignResult* result) {
  *result = CampaignResult();
  std::vector<const reports::Rule*> rules;
  STATECHECK_RETURN_IF_ERROR(reports::RuleCatalogue::Builtin().Select(options.select, &rules));
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
                 << ", report in " << dir << "\n";
  }
  Campaign campaign(options, std::move(specs), seed, result);
  STATECHECK_RETURN_IF_ERROR(campaign.Run());
  result->verdicts = reports::RuleVerdicts(rules, report);
  return reports::WriteReport(dir, report, result->verdicts);
}

void PrintSummary(const CampaignResult& result, std::ostream& out) {
  const reports::RunReport& report = result.report;
  out << "\nrule  verdict        situations    cases    operations  statement\n";
  for (const auto& v : result.verdicts) {
    char line[160];
    std::snprintf(line, sizeof line, "%-5s %-14s %10s %8lld %13lld  ", v.rule->id.c_str(),
                  v.verdict.c_str(), v.evidence.empty() ? "" : v.EvidenceFraction().c_str(),
                  static_cast<long long>(v.cases), static_cast<long long>(v.operations));
    std::string statement = v.rule->statement;
    if (statement.size() > 60) statement = statement.substr(0, 57) + "...";
    out << line << statement << "\n";
  }
  std::string unexercised;
  for (const auto& v : result.verdicts) {
    if (v.verdict != "not exercised") continue;
    unexercised += "\n  " + v.rule->id + ": never reached";
    for (const std::string& s : v.MissingSituations()) unexercised += " " + s;
  }
  if (!unexercised.empty()) {
    out << "\nnot exercised (the checks held, but these situations were never reached"
        << (report.configuration.require_evidence ? "; --require-evidence fails the run" : "")
        << "):" << unexercised << "\n";
  }
  for (const auto& v : result.verdicts) {
    if (v.unattributed) {
      out << "\n"
          << v.rule->id
          << " fails unattributed: a property of its family failed with no check to credit (a "
             "crash or an unexpected error)\n";
    }
  }
  std::string fired_names;
  for (const reports::FailPointRow& f : report.fail_points) {
    if (f.fired > 0) {
      fired_names += "\n  " + f.name + ": reached " + std::to_string(f.reached) + ", fired " +
                     std::to_string(f.fired);
    }
  }
  out << "\nfail points: " << reports::FailPointCoverage(report.fail_points)
      << " (statecheck list faults; counts in the report)" << fired_names << "\n";
  int64_t cases = 0, ops = 0;
  for (const auto& p : report.properties) {
    cases += p.cases;
    ops += p.operations;
  }
  out << "\n"
      << cases << " cases, " << ops << " operations in " << Compact(report.elapsed_seconds)
      << " s; " << result.findings << (result.findings == 1 ? " finding" : " findings") << "\n";
  if (report.regressions) {
    out << "regression corpus: " << report.regressions->traces.size() << " traces from "
        << report.regressions->directory << ", " << report.regressions->Diverged() << " diverged\n";
  }
  for (const auto& p : reports::FailedResults(report)) {
    out << "  " << p.id << ": replay with\n";
    for (const std::string& c : p.replay_commands) out << "    " << c << "\n";
  }
  const std::string& d = result.report_dir;
  out << "report: " << d << "/report.html (also report.json, junit.xml, summary.md)\n";
}

Status MergeReportFiles(const std::vector<std::string>& inputs, const std::string& out_dir,
                        CampaignResult* result) {
  *result = CampaignResult();
  std::vector<reports::RunReport> shards;
  for (const std::string& input : inputs) {
    std::filesystem::path path(input);
    if (std::filesystem::is_directory(path)) path /= "report.json";
    std::ifstream file(path);
    if (!file) {
      return Status::InvalidArgument("report merge: cannot read " + path.string() +
                                     " (give shard report directories or their report.json)");
    }
    std::stringstream text;
    text << file.rdbuf();
    reports::RunReport shard;
    const Status s = reports::ReadReportJson(text.str(), &shard);
    if (!s.ok()) return Status::InvalidArgument(path.string() + ": " + s.message());
    shards.push_back(std::move(shard));
  }
  STATECHECK_RETURN_IF_ERROR(reports::MergeReports(shards, &result->report));
  std::vector<const reports::Rule*> rules;
  STATECHECK_RETURN_IF_ERROR(
      reports::RuleCatalogue::Builtin().Select(result->report.configuration.select, &rules));
  result->verdicts = reports::RuleVerdicts(rules, result->report);
  for (const auto& p : result->report.properties) result->findings += p.passed ? 0 : 1;
  result->report_dir = out_dir;
  return reports::WriteReport(out_dir, result->report, result->verdicts);
}

}  // namespace statecheck::tools
