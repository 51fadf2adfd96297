// statecheck: the harness's command line.
//
//   statecheck run [--budget 60 | --batches N] [--seed N] [--select W|W3,...]
//                  [--family F,...] [--shard i/n] [--report-dir DIR] [--regressions DIR]
//   statecheck run --reproduce STRING
//   statecheck report merge SHARD_REPORT... --out DIR
//   statecheck replay TRACE [--against engine|model|both]
//   statecheck replay TRACE --emit-gtest [--test-name NAME]
//   statecheck list rules [--json | --checks] [--select SEL]
//   statecheck list rules --sites [--json] [--select SEL] [--source DIR]
//   statecheck list faults [--json]
//   statecheck inspect DIR [--json]
//   statecheck checkpoint read FILE [--json]
//   statecheck checkpoint write FILE [TOPIC:PARTITION=OFFSET ...]
//   statecheck checkpoint delete FILE
//   statecheck crash [--cycles 60] [--seed N] [--config LABEL|all] [--dir DIR] [--keep]
//
// Exit codes: 0 all rules hold / the trace replays, 1 a rule fails / the trace diverges,
// 2 a usage or input error (the message names it). `checkpoint read` checks the file it is
// given: 1 when it is unreadable or damaged (the error names the file and the problem), 2 when
// there is no such file. `checkpoint write` and `delete`: 1 when the write fails, 2 for an entry
// Kafka's writer refuses or a missing directory.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "faults/fault_fs.h"
#include "properties/crash_runner.h"
#include "properties/generators.h"
#include "properties/gtest_emitter.h"
#include "properties/json_lines.h"
#include "properties/property_registry.h"
#include "properties/task_property.h"
#include "properties/trace_replay.h"
#include "properties/window_store_trace.h"
#include "properties/windowed_aggregation_property.h"
#include "reports/catalogue_format.h"
#include "reports/rule_catalogue.h"
#include "reports/rule_sites.h"
#include "reports/run_report.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/hooks/planted_bugs.h"
#include "tools/campaign.h"
#include "tools/checkpoint_file.h"
#include "tools/crash_command.h"
#include "tools/inspect.h"
#include "tools/selftest.h"

#ifndef STATECHECK_GIT_COMMIT
#define STATECHECK_GIT_COMMIT "unknown"
#endif

namespace statecheck {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int UsageError(const std::string& message) {
  std::cerr << "statecheck: " << message << "\n";
  return kExitUsage;
}

// ---------------------------------------------------------------------------------------------
// list rules

int ListRules(bool json, bool checks, const std::string& select) {
  std::vector<const reports::Rule*> rules;
  const Status s = reports::RuleCatalogue::Builtin().Select(select, &rules);
  if (!s.ok()) return UsageError(s.message());
  if (checks) {
    std::cout << reports::FormatCheckNames(rules);
  } else if (json) {
    std::cout << reports::FormatRulesJson(rules);
  } else {
    std::cout << reports::FormatRulesText(rules);
  }
  return kExitOk;
}

// Where each selected rule is kept (engine/), encoded (model/) and checked (properties/), from
// the tags in the sources under `source` (reports/rule_sites.h).
int ListRuleSites(bool json, const std::string& select, const std::string& source) {
  const reports::RuleCatalogue& catalogue = reports::RuleCatalogue::Builtin();
  std::vector<const reports::Rule*> rules;
  Status s = catalogue.Select(select, &rules);
  if (!s.ok()) return UsageError(s.message());
  std::vector<reports::RuleSite> sites;
  s = reports::ScanRuleSites(source, catalogue, &sites);
  if (!s.ok()) {
    const bool built_from = source == STATECHECK_SOURCE_DIR;
    return UsageError(s.message() + (built_from ? "\n(" + source +
                                                      " is the tree this binary was built "
                                                      "from; --source DIR reads another)"
                                                : ""));
  }
  if (json) {
    std::cout << reports::FormatSitesJson(rules, sites);
    return kExitOk;
  }
  std::cout << reports::FormatSitesText(rules, sites);
  const std::vector<std::string> missing = reports::MissingSites(catalogue, sites);
  size_t lacking = 0;
  for (const reports::Rule* rule : rules) {
    for (const std::string& line : missing) {
      if (line.rfind(rule->id + ":", 0) == 0) {
        std::cout << "missing: " << line << "\n";
        ++lacking;
      }
    }
  }
  std::cout << sites.size() << " sites in " << source << "; "
            << (lacking == 0 ? "every selected rule with campaign properties has an engine, a "
                               "model and a property site"
                             : std::to_string(lacking) + " missing")
            << "\n";
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// replay

// `replay --emit-gtest`: the window-store trace at `path` as a GoogleTest on the public API.
int EmitGTest(const std::string& path, const std::string& test_name) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  const std::string kind = properties::TraceKind(text.str());
  if (kind == "task" || kind == "windowed") {
    return UsageError("--emit-gtest takes window-store traces; a " + kind +
                      " trace replays through the harness's task model, which is not the "
                      "engine's public API: run it with `statecheck replay " +
                      path + "`");
  }
  properties::Trace trace;
  Status s = properties::ReadTraceFile(path, &trace);
  if (!s.ok()) {
    return UsageError(s.message() + "\n(the trace format is described in docs/traces.md)");
  }
  std::string test;
  s = properties::EmitGTest(trace, path, test_name, &test);
  if (!s.ok()) return UsageError(path + ": " + s.message());
  std::cout << test;
  return kExitOk;
}

int Replay(const std::string& path, const std::string& against) {
  properties::ReplayTarget target;
  if (against == "engine") {
    target = properties::ReplayTarget::kEngine;
  } else if (against == "model") {
    target = properties::ReplayTarget::kModel;
  } else if (against == "both") {
    target = properties::ReplayTarget::kBoth;
  } else {
    return UsageError("--against takes engine, model or both, not \"" + against + "\"");
  }
  properties::TraceReplay replay;
  const Status s = properties::ReplayTraceFile(path, target, &replay);
  if (!s.ok()) return UsageError(s.message());
  std::cout << "replaying " << path << ": " << replay.description << "\n";
  if (!replay.recorded_failure.empty()) {
    std::cout << "recorded failure: " << replay.recorded_failure << "\n";
  }
  std::cout << replay.verdict;
  return replay.diverged ? kExitFailed : kExitOk;
}

// ---------------------------------------------------------------------------------------------
// inspect

int InspectDir(const std::string& dir, bool json) {
  tools::InspectReport report;
  const Status s = tools::Inspect(dir, &report);
  if (!s.ok()) return UsageError(s.message());
  if (json) {
    std::cout << tools::InspectJson(report).dump(2) << "\n";
  } else {
    std::cout << tools::FormatInspectText(report);
  }
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// checkpoint read

// The entries of an offset checkpoint file on stdout and its warnings on stderr (in the JSON
// view, both in the JSON), or its error on stderr.
int CheckpointRead(const std::string& path, bool json) {
  tools::CheckpointFile file;
  const Status s = tools::ReadCheckpointFile(path, &file);
  if (!s.ok()) {
    std::cerr << "statecheck: " << s << "\n";
    return s.code() == Status::Code::kNotFound ? kExitUsage : kExitFailed;
  }
  if (json) {
    std::cout << tools::CheckpointFileJson(file).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << tools::FormatCheckpointEntries(file.entries);
  for (const std::string& w : file.warnings) std::cerr << "statecheck: warning: " << w << "\n";
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// checkpoint write, checkpoint delete

// Writes `entries` (none: deletes the file) with the engine's legacy writer, and says what it did.
int CheckpointWrite(const std::string& path, const std::vector<std::string>& entries) {
  CheckpointOffsets offsets;
  for (const std::string& e : entries) {
    if (const Status s = tools::ParseCheckpointEntry(e, &offsets); !s.ok()) {
      return UsageError(s.message());
    }
  }
  const bool existed = std::filesystem::exists(path);
  const Status s = tools::WriteCheckpointFile(path, offsets);
  if (!s.ok()) {
    std::cerr << "statecheck: " << s << "\n";
    return s.code() == Status::Code::kIOError ? kExitFailed : kExitUsage;
  }
  if (!offsets.empty()) {
    std::cout << "wrote " << offsets.size() << " entries to " << path << "\n";
  } else {
    std::cout << (existed ? "deleted " + path : path + ": no such file, nothing to delete")
              << " (no entries: Kafka's OffsetCheckpoint deletes the file)\n";
  }
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// run

// Runs the campaign (tools/campaign.h) and prints its summary.
int Run(tools::CampaignOptions options, const std::string& shard, const std::string& batch) {
  if (!shard.empty()) {
    const Status s = tools::ParseShard(shard, &options.shard_index, &options.shard_count);
    if (!s.ok()) return UsageError(s.message());
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

// report merge: the shards' reports into one.
int Selftest(tools::SelftestOptions options, bool list) {
  if (list) {
    if (!planted::Compiled()) {
      return UsageError(
          "this statecheck has no planted bugs: they are compiled only into the planted build "
          "(ci/build.sh planted; build/planted/tools/statecheck selftest --list)");
    }
    tools::PrintCatalogue(std::cout);
    return kExitOk;
  }
  options.commit = STATECHECK_GIT_COMMIT;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe", ec);
  if (!ec) options.executable = self.string();
  options.out = &std::cout;
  if (isatty(STDERR_FILENO)) {
    options.progress = &std::cerr;
    options.progress_is_tty = true;
  }
  tools::SelftestResult result;
  const Status s = tools::RunSelftest(options, &result);
  if (s.code() == Status::Code::kInvalidArgument) return UsageError(s.message());
  if (!s.ok()) {
    std::cerr << "statecheck: " << s.message() << "\n";
    return kExitUsage;
  }
  return result.passed ? kExitOk : kExitFailed;
}

int ReportMerge(const std::vector<std::string>& inputs, const std::string& out_dir) {
  tools::CampaignResult result;
  const Status s = tools::MergeReportFiles(inputs, out_dir, &result);
  if (!s.ok()) return UsageError(s.message());
  std::cout << "merged " << inputs.size() << " shard reports (seed " << result.report.seed << ")\n";
  tools::PrintSummary(result, std::cout);
  return result.Failed() ? kExitFailed : kExitOk;
}

// The fault catalogue: the engine's named fail points, then the fault file system's.
int ListFaults(bool json) {
  std::vector<faults::FailPointInfo> rows;
  for (const EngineFailPoint& p : EngineFailPoints()) {
    rows.push_back({std::string(p.name), std::string(p.description), ""});
  }
  for (faults::FailPointInfo& p : faults::FsFailPointCatalogue()) rows.push_back(std::move(p));
  if (json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const faults::FailPointInfo& p : rows) {
      nlohmann::ordered_json row = {{"name", p.name},
                                    {"description", p.description},
                                    {"reachable", p.unreachable_because.empty()}};
      if (!p.unreachable_because.empty()) row["unreachable_because"] = p.unreachable_because;
      j.push_back(std::move(row));
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  int unreachable = 0;
  for (const faults::FailPointInfo& p : rows) unreachable += !p.unreachable_because.empty();
  std::cout << rows.size() << " fail points, " << rows.size() - unreachable
            << " reachable (drive them by name with fiu-ctrl, or let statecheck run arm them):\n";
  for (const faults::FailPointInfo& p : rows) {
    std::printf(
        "  %-42s %s%s\n", p.name.c_str(), p.description.c_str(),
        p.unreachable_because.empty()
            ? ""
            : ("\n  " + std::string(44, ' ') + "unreachable: " + p.unreachable_because).c_str());
  }
  return kExitOk;
}

// Kill-and-recover cycles (tools/crash_command.h) for one configuration or all of them.
int Crash(const tools::CrashFlags& flags) {
  const Status s = tools::ValidateCrashFlags(flags);
  if (!s.ok()) return UsageError(s.message());
  return tools::RunCrashCommand(flags, std::cout) ? kExitOk : kExitFailed;
}

// One subcommand: the CLI11 app its options were declared on and what it runs once parsed. The
// options live in a struct the run shares, so that each subcommand is declared in one place.
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

std::vector<Subcommand> AddList(CLI::App& app) {
  auto* list = app.add_subcommand("list", "List the rule catalogue");
  list->require_subcommand(1);
  auto* rules = list->add_subcommand(
      "rules", "Every rule of docs/spec.md, the checks that cover it and its situations");
  struct Flags {
    bool json = false, checks = false, sites = false, faults_json = false;
    std::string select, source = STATECHECK_SOURCE_DIR;
  };
  auto f = std::make_shared<Flags>();
  rules->add_flag("--json", f->json, "JSON array of {id, statement, checks, ...}");
  rules->add_flag("--checks", f->checks, "Only the check names, one per line");
  rules->add_option("--select", f->select, "Rules: a family (W) or ids (W1,T4)");
  rules->add_flag("--sites", f->sites,
                  "Where each rule is kept (engine), encoded (model) and checked "
                  "(properties): the // Keeps:, Encodes:, Checks: tags in the sources");
  rules->add_option("--source", f->source,
                    "With --sites: the source tree to read (default: the one this binary "
                    "was built from)");
  auto* faults =
      list->add_subcommand("faults", "Every fail point: the engine's and the file system's");
  faults->add_flag("--json", f->faults_json, "JSON array of {name, description}");
  return {{rules,
           [f, rules] {
             if (f->json && f->checks) return UsageError("choose one of --json and --checks");
             if (f->sites && f->checks) return UsageError("choose one of --sites and --checks");
             if (rules->count("--source") > 0 && !f->sites) {
               return UsageError("--source is read with --sites only");
             }
             if (f->sites) return ListRuleSites(f->json, f->select, f->source);
             return ListRules(f->json, f->checks, f->select);
           }},
          {faults, [f] { return ListFaults(f->faults_json); }}};
}

Subcommand AddReplay(CLI::App& app) {
  auto* replay = app.add_subcommand("replay", "Replay a trace file step by step");
  struct Flags {
    std::string trace, against = "both", test_name;
    bool emit_gtest = false;
  };
  auto f = std::make_shared<Flags>();
  replay->add_option("trace", f->trace, "The trace (JSON Lines)")->required();
  replay->add_option("--against", f->against, "engine, model or both (default both)");
  replay->add_flag("--emit-gtest", f->emit_gtest,
                   "Print the window-store trace as a GoogleTest on the engine's public API "
                   "instead of replaying it");
  replay->add_option("--test-name", f->test_name,
                     "With --emit-gtest: the test's name (default: from the file name)");
  return {replay, [f, replay] {
            if (!f->emit_gtest && replay->count("--test-name") > 0) {
              return UsageError("--test-name is read with --emit-gtest only");
            }
            if (!f->emit_gtest) return Replay(f->trace, f->against);
            if (replay->count("--against") > 0) {
              return UsageError("--emit-gtest prints a test of the engine: drop --against");
            }
            return EmitGTest(f->trace, f->test_name);
          }};
}

Subcommand AddInspect(CLI::App& app) {
  auto* inspect = app.add_subcommand(
      "inspect", "Show what a state directory or a log directory holds (read-only)");
  struct Flags {
    std::string dir;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  inspect->add_option("dir", f->dir, "The state or log directory")->required();
  inspect->add_flag("--json", f->json, "JSON instead of text");
  return {inspect, [f] { return InspectDir(f->dir, f->json); }};
}

std::vector<Subcommand> AddCheckpoint(CLI::App& app) {
  auto* checkpoint = app.add_subcommand(
      "checkpoint", "Legacy offset checkpoint files (.checkpoint, <store>.position)");
  checkpoint->require_subcommand(1);
  struct Flags {
    std::string file;
    bool json = false;
    std::vector<std::string> entries;
  };
  auto f = std::make_shared<Flags>();
  auto* read = checkpoint->add_subcommand(
      "read", "Print a checkpoint file's entries; exit 1 if it is damaged, 2 if missing");
  read->add_option("file", f->file, "The checkpoint file")->required();
  read->add_flag("--json", f->json, "JSON instead of text");
  auto* write = checkpoint->add_subcommand(
      "write",
      "Write a checkpoint file as the engine's legacy writer does (Kafka's OffsetCheckpoint: no "
      "entries deletes it)");
  write->add_option("file", f->file, "The checkpoint file")->required();
  write->add_option("entries", f->entries,
                    "TOPIC:PARTITION=OFFSET, e.g. app-kv-changelog-0_0:0=17 (-4: unknown)");
  auto* remove =
      checkpoint->add_subcommand("delete", "Delete a checkpoint file (and fsync its directory)");
  remove->add_option("file", f->file, "The checkpoint file")->required();
  return {{read, [f] { return CheckpointRead(f->file, f->json); }},
          {write, [f] { return CheckpointWrite(f->file, f->entries); }},
          {remove, [f] { return CheckpointWrite(f->file, {}); }}};
}

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
                  "i/n: run shard i of n; n machines with 0/n … n-1/n cover the campaign once");
  run->add_option("--report-dir", o.report_dir,
                  "Where the report goes (default statecheck-reports/<time>-seed<seed>)");
  run->add_option("--reproduce", o.reproduce,
                  "Re-run exactly one failure, from the reproduce string it printed");
  run->add_option("--jobs", o.jobs,
                  "Worker processes that run the batches (default: the machine's cores, " +
                      std::to_string(tools::CampaignOptions::DefaultJobs()) + ")")
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

Subcommand AddReportMerge(CLI::App& app) {
  auto* report = app.add_subcommand("report", "Work with run reports");
  report->require_subcommand(1);
  auto* merge = report->add_subcommand("merge", "Merge the reports of a sharded campaign into one");
  struct Flags {
    std::vector<std::string> inputs;
    std::string out;
  };
  auto f = std::make_shared<Flags>();
  merge->add_option("reports", f->inputs, "Shard report directories (or report.json)")->required();
  merge->add_option("--out", f->out, "Where the merged report goes")->required();
  return {merge, [f] { return ReportMerge(f->inputs, f->out); }};
}

// `command`: the command line, for the report.
Subcommand AddSelftest(CLI::App& app, const std::string& command) {
  auto* selftest = app.add_subcommand(
      "selftest",
      "Plant each bug of the planted-bug catalogue and check the campaign catches it (the "
      "planted build only)");
  struct Flags {
    tools::SelftestOptions options;
    uint64_t seed = 0;
    bool list = false;
  };
  auto f = std::make_shared<Flags>();
  tools::SelftestOptions& o = f->options;
  selftest->add_option("--budget", o.budget_seconds,
                       "Campaign seconds per planted bug (default 60)");
  selftest->add_option("--control-budget", o.control_seconds,
                       "Seconds of the control run with no bug planted (default: --budget)");
  auto* seed = selftest->add_option("--seed", f->seed,
                                    "The seed of every campaign (default: a new one, printed)");
  selftest->add_option("--bugs", o.bugs, "Only these planted bugs (comma-separated)")
      ->delimiter(',');
  selftest->add_option("--select", o.select,
                       "Only the bugs tied to these rules: a family (E) or ids (W3,T4)");
  selftest->add_flag("--whole-campaign", o.whole_campaign,
                     "Run the whole campaign for each bug, not only the rules it breaks");
  selftest->add_option("--min-score", o.min_score,
                       "Fail below this mutation score, in percent (default 95)");
  selftest->add_option("--report-dir", o.report_dir,
                       "Where the report goes (default statecheck-reports/selftest-seed<seed>)");
  selftest->add_flag("--list", f->list, "List the planted bugs and exit");
  return {selftest, [f, seed, command] {
            if (*seed) f->options.seed = f->seed;
            f->options.command = command;
            return Selftest(f->options, f->list);
          }};
}

Subcommand AddCrash(CLI::App& app) {
  auto* crash = app.add_subcommand(
      "crash", "Kill-and-recover cycles: a task in a child process killed by SIGKILL, checked");
  struct Flags {
    tools::CrashFlags flags;
    uint64_t seed = 0;
  };
  auto f = std::make_shared<Flags>();
  tools::CrashFlags& c = f->flags;
  crash->add_option("--cycles", c.cycles, "Cycles per configuration (default 60: 360 in all)")
      ->check(CLI::PositiveNumber);
  auto* seed = crash->add_option("--seed", f->seed, "The run's seed (default: a new one, printed)");
  crash->add_option("--config", c.config,
                    "A T1 configuration (alos_unset, alos_ru, alos_rc, eos_unset, eos_ru, "
                    "eos_rc) or all (default)");
  crash->add_option("--dir", c.dir, "Where the runs live (default: a temp directory)");
  crash
      ->add_option("--jobs", c.jobs,
                   "Configurations run at once, each in a worker process (default: the "
                   "machine's cores)")
      ->check(CLI::PositiveNumber);
  crash->add_flag("--keep", c.keep, "Keep the directories after a passing run");
  crash->add_flag("--tolerate-io-errors", c.tolerate_io_errors,
                  "Count a cycle that fails with an I/O error as a crash (for fiu-run -x)");
  crash
      ->add_option("--io-errors", c.io_errors,
                   "Fail each read, append, fsync and truncate with EIO with this probability, "
                   "from the seed (replayable, unlike fiu-run); a cycle an error ends counts "
                   "as a crash")
      ->check(CLI::Range(0.0, 1.0));
  crash
      ->add_option("--records-per-cycle", c.records_per_cycle,
                   "Input records each cycle appends (default 40)")
      ->check(CLI::PositiveNumber);
  return {crash, [f, seed] {
            if (*seed) f->flags.seed = f->seed;
            return Crash(f->flags);
          }};
}

int Main(int argc, char** argv) {
  CLI::App app{"statecheck: conformance checks for Kafka Streams state stores", "statecheck"};
  app.require_subcommand(1);
  std::string command = "statecheck";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::vector<Subcommand> subcommands = AddList(app);
  subcommands.push_back(AddReplay(app));
  subcommands.push_back(AddInspect(app));
  for (Subcommand& s : AddCheckpoint(app)) subcommands.push_back(std::move(s));
  subcommands.push_back(AddRun(app, command));
  subcommands.push_back(AddReportMerge(app));
  subcommands.push_back(AddSelftest(app, command));
  subcommands.push_back(AddCrash(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  for (const Subcommand& s : subcommands) {
    if (s.app->parsed()) return s.run();
  }
  return UsageError("no subcommand given");  // require_subcommand(1) makes this unreachable.
}

}  // namespace
}  // namespace statecheck

int main(int argc, char** argv) { return statecheck::Main(argc, argv); }
