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

#include "faults/fault_fs.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/property_registry.h"
#include "statecheck/fail_points.h"
#include "statecheck/planted_bugs.h"

namespace statecheck::tools {
namespace {

namespace fs = std::filesystem;

using Clock = std::chrono::steady_clock;

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

// The catalogue's fail points with their counts for this run.
std::vector<reports::FailPointRow> FailPointRows() {
  std::vector<reports::FailPointRow> rows;
  for (const FailPointCount& c : EngineFailPointCounts()) {
    rows.push_back({c.name, c.reached, c.fired});
  }
  const std::vector<faults::FailPointInfo> catalogue = faults::FsFailPointCatalogue();
  for (const auto& [name, c] : faults::FsFailPointCounts()) {
    bool reachable = true;
    for (const faults::FailPointInfo& info : catalogue) {
      if (info.name == name) reachable = info.unreachable_because.empty();
    }
    rows.push_back({name, c.reached, c.fired, reachable});
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

bool CampaignResult::Failed() const {
  return findings > 0 || reports::VerdictsFail(verdicts, report.configuration.require_evidence);
}

int ShardOf(const std::string& id, uint64_t k, int count) {
  if (count <= 1) return 0;
  return static_cast<int>(properties::Mix(Fnv1a(id) ^ properties::Mix(k + 1)) %
                          static_cast<uint64_t>(count));
}

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
  const uint64_t seed = options.seed
                            ? *options.seed
                            : (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
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
  std::string reproduce_id;
  if (!options.reproduce.empty()) {
    STATECHECK_RETURN_IF_ERROR(properties::PropertyIdOfReproduce(options.reproduce, &reproduce_id));
  }
  std::vector<properties::PropertySpec> specs;
  for (auto& spec : all) {
    if (!reproduce_id.empty() ? spec.id == reproduce_id : families.count(spec.family) > 0) {
      specs.push_back(std::move(spec));
    }
  }
  if (specs.empty()) {
    return Status::InvalidArgument(!reproduce_id.empty()
                                       ? "no property \"" + reproduce_id + "\" in this build"
                                       : "no property checks the selected rules and families (see "
                                         "`statecheck list rules`)");
  }

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
                 << ", report in " << dir << "\n";
  }

  // Each property's batches in this shard: the next batch number to run, and (with a fixed
  // count) how many are left.
  struct Plan {
    uint64_t next = 0;
    int64_t left = -1;  // -1: until the budget ends.
    double seconds = 0;
  };
  std::map<std::string, Plan> plans;
  auto advance = [&](const std::string& id, uint64_t from) {
    while (ShardOf(id, from, options.shard_count) != options.shard_index) ++from;
    return from;
  };
  int64_t total_batches = 0;
  for (const auto& spec : specs) {
    Plan p;
    p.next = advance(spec.id, 0);
    if (options.batches_per_property > 0) {
      p.left = 0;
      for (int64_t k = 0; k < options.batches_per_property; ++k) {
        p.left +=
            ShardOf(spec.id, static_cast<uint64_t>(k), options.shard_count) == options.shard_index;
      }
      total_batches += p.left;
    }
    plans[spec.id] = p;
    reports::PropertyResult r;
    r.id = spec.id;
    r.family = spec.family;
    r.config = spec.config;
    report.properties.push_back(std::move(r));
  }
  auto result_of = [&](const std::string& id) -> reports::PropertyResult& {
    return *std::find_if(report.properties.begin(), report.properties.end(),
                         [&](const reports::PropertyResult& r) { return r.id == id; });
  };

  faults::ResetFsFailPointCounts();
  ResetEngineFailPointCounts();
  properties::ResetFaultTally();
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  int64_t total_ops = 0, total_cases = 0, batches_run = 0;
  double last_sample = 0;
  std::map<std::string, double> family_seconds;
  auto sample = [&] {
    report.progress.push_back({elapsed(), total_cases, total_ops, result->findings});
  };
  auto show_progress = [&] {
    if (!options.progress) return;
    const double now = elapsed();
    const double done = options.batches_per_property > 0
                            ? static_cast<double>(batches_run) /
                                  static_cast<double>(std::max<int64_t>(1, total_batches))
                            : now / options.budget_seconds;
    const std::string where =
        options.batches_per_property > 0
            ? std::to_string(batches_run) + "/" + std::to_string(total_batches) + " batches"
            : std::to_string(static_cast<int>(now)) + "/" +
                  std::to_string(static_cast<int>(options.budget_seconds)) + " s";
    *options.progress << (options.progress_is_tty ? "\r\033[K" : "") << Bar(done) << " " << where
                      << "  " << Compact(static_cast<double>(total_cases)) << " cases, "
                      << Compact(static_cast<double>(total_ops)) << " ops ("
                      << Compact(static_cast<double>(total_ops) / std::max(now, 1e-9))
                      << " ops/s), " << result->findings
                      << (result->findings == 1 ? " finding" : " findings")
                      << (options.progress_is_tty ? "" : "\n") << std::flush;
  };
  sample();
  while (options.batches_per_property > 0 || elapsed() < options.budget_seconds) {
    const properties::PropertySpec* next = nullptr;
    for (const auto& spec : specs) {
      const Plan& plan = plans[spec.id];
      if (!result_of(spec.id).passed || plan.left == 0) continue;
      if (next) {
        const double fa = family_seconds[spec.family], fb = family_seconds[next->family];
        if (fa > fb || (fa == fb && plan.seconds >= plans[next->id].seconds)) continue;
      }
      next = &spec;
    }
    if (!next) break;
    const properties::PropertySpec& spec = *next;
    Plan& plan = plans[spec.id];
    reports::PropertyResult& r = result_of(spec.id);
    properties::PropertyParams params;
    using properties::Mix;
    reports::BatchResult batch;
    batch.number = plan.next;
    batch.seed = Mix(seed ^ Mix(Fnv1a(spec.id) ^ Mix(plan.next)));
    plan.next = advance(spec.id, plan.next + 1);
    if (plan.left > 0) --plan.left;
    params.seed = batch.seed;
    params.max_success = std::max(1, options.cases_per_batch / spec.batch_divisor);
    params.max_size = options.max_size;
    params.trace_dir = dir + "/counterexamples";
    if (!options.reproduce.empty()) params.reproduce = options.reproduce;
    const properties::FailPointsFired fired_before = properties::FailPointsFiredSoFar();
    const properties::FaultTally tally_before = properties::CurrentFaultTally();
    const auto t0 = Clock::now();
    const properties::PropertyOutcome out = spec.run(params);
    batch.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const properties::FailPointsFired fired_after = properties::FailPointsFiredSoFar();
    const properties::FaultTally tally = properties::CurrentFaultTally();
    batch.cases = out.cases;
    batch.operations = out.operations;
    batch.passed = out.passed;
    r.batches.push_back(batch);
    r.seconds += batch.seconds;
    plan.seconds += batch.seconds;
    family_seconds[spec.family] += batch.seconds;
    r.cases += out.cases;
    r.operations += out.operations;
    // Evidence: only situations the catalogue declares count; any other name is a harness bug
    // (a typo would otherwise never count, or count for nothing).
    for (const auto& [name, n] : out.evidence.situations) {
      if (!reports::RuleCatalogue::Builtin().FindSituation(name)) {
        return Status::FailedPrecondition("harness bug: property " + spec.id +
                                          " counted the situation \"" + name +
                                          "\", which reports/rules.json does not declare");
      }
      r.evidence[name] += n;
    }
    for (const auto& [rule, n] : out.evidence.rule_cases) r.rule_cases[rule] += n;
    r.faults.crashes += tally.crashes - tally_before.crashes;
    r.faults.power_losses += tally.power_losses - tally_before.power_losses;
    r.faults.io_errors += static_cast<int64_t>(fired_after.fs - fired_before.fs);
    r.faults.engine_faults += static_cast<int64_t>(fired_after.engine - fired_before.engine);
    // Cases that went through no fault. The tally counts every case a property ran, shrinking
    // attempts included; a passing batch runs exactly its cases.
    r.no_fault_cases +=
        std::max<int64_t>(0, out.cases - (tally.faulted_cases - tally_before.faulted_cases));
    total_ops += out.operations;
    total_cases += out.cases;
    ++batches_run;
    if (!out.passed) {
      ++result->findings;
      r.passed = false;
      r.failing_rule = out.rule;
      r.message = out.message;
      r.trace_path = out.trace_path;
      r.reproduce = out.reproduce;
      r.counterexample = out.counterexample;
      // Commands that work pasted into any shell: absolute paths, quoted; in the planted build
      // with the active planted bug in their environment.
      const std::string active_bug = planted::ActiveName();
      const std::string exe =
          (active_bug.empty() ? "" : "STATECHECK_PLANTED_BUG=" + ShellQuote(active_bug) + " ") +
          ShellQuote(options.executable);
      if (!r.trace_path.empty()) {
        std::error_code ec;
        const fs::path trace = fs::absolute(r.trace_path, ec);
        r.replay_commands.push_back(exe + " replay " +
                                    ShellQuote(ec ? r.trace_path : trace.string()));
      }
      if (!r.reproduce.empty()) {
        r.replay_commands.push_back(exe + " run --reproduce " + ShellQuote(r.reproduce));
      }
      if (result->first_finding_seconds < 0) result->first_finding_seconds = elapsed();
      if (options.progress) {
        *options.progress << (options.progress_is_tty ? "\r\033[K" : "") << "FAIL " << spec.id
                          << " (batch " << batch.number << ", seed " << batch.seed << ")\n"
                          << out.message << "\n  shrunk to " << out.counterexample.size()
                          << " steps; trace: " << out.trace_path << "\n";
      }
    }
    const double now = elapsed();
    if (now - last_sample >= 1.0 || !out.passed) {
      last_sample = now;
      sample();
      show_progress();
    }
    if (!options.reproduce.empty()) break;  // A reproduction runs once.
    if (options.stop_at_first_finding && result->findings > 0) break;
  }
  report.elapsed_seconds = elapsed();
  sample();
  if (options.progress && options.progress_is_tty) *options.progress << "\n";
  report.fail_points = FailPointRows();
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
      out << "\n" << v.rule->id
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
  for (const auto& p : report.properties) {
    if (p.passed) continue;
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
