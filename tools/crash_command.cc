#include "tools/crash_command.h"

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "model/state_config_model.h"
#include "properties/crash/crash_runner.h"
#include "tools/campaign_workers.h"

namespace statecheck::tools {
namespace {

// A probability as the command line takes it back: the shortest text that reads back as it.
std::string FormatProbability(double p) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, p).ptr);
}

using Json = nlohmann::json;

std::vector<model::T1Configuration> Selected(const std::string& config) {
  std::vector<model::T1Configuration> out;
  for (const model::T1Configuration& c : model::T1Configurations()) {
    if (config == "all" || config == c.label) out.push_back(c);
  }
  return out;
}

std::string Secs(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

// One configuration's cycles, in its worker: the result as JSON for the parent to print.
Json RunOne(const model::T1Configuration& c, const CrashFlags& flags, uint64_t seed,
            const std::string& directory) {
  properties::CrashRunOptions o;
  o.seed = seed;
  o.cycles = flags.cycles;
  o.label = c.label;
  o.streams_config = c.props;
  o.directory = directory;
  o.keep = flags.keep;
  o.records_per_cycle = flags.records_per_cycle;
  o.tolerate_io_errors = flags.tolerate_io_errors;
  o.io_error_probability = flags.io_errors;
  properties::CrashRunResult r;
  const int step = std::max(1, flags.cycles / 4);
  const Status s = properties::RunCrashCycles(
      o,
      [&](const properties::CrashCycleReport& cycle) {
        if ((cycle.cycle + 1) % step == 0 && cycle.cycle + 1 < flags.cycles) {
          std::cout << "  " << c.label << ": " << cycle.cycle + 1 << "/" << flags.cycles
                    << " cycles, committed input " << cycle.committed_input << "\n"
                    << std::flush;
        }
      },
      &r);
  if (!s.ok()) return Json{{"error", s.ToString()}};
  return Json{{"cycles", r.cycles},
              {"kills", r.kills},
              {"io_errors", r.io_errors},
              {"aborts", r.aborts},
              {"kills_by_point", r.kills_by_point},
              {"final_committed_input", r.final_committed_input},
              {"input_records", r.input_records},
              {"seconds", r.seconds},
              {"passed", r.passed},
              {"failed_cycle", r.failed_cycle},
              {"failure", r.failure}};
}

}  // namespace

Status ValidateCrashFlags(const CrashFlags& flags) {
  if (Selected(flags.config).empty()) {
    std::string labels;
    for (const model::T1Configuration& c : model::T1Configurations()) {
      labels += (labels.empty() ? "" : ", ") + c.label;
    }
    return Status::InvalidArgument("--config " + flags.config +
                                   " is not a configuration: use all or one of " + labels);
  }
  if (flags.jobs < 1) return Status::InvalidArgument("--jobs takes a number of workers >= 1");
  return Status::Ok();
}

bool RunCrashCommand(const CrashFlags& flags, std::ostream& out) {
  const std::vector<model::T1Configuration> configs = Selected(flags.config);
  const uint64_t seed = flags.seed ? *flags.seed : std::random_device{}();
  const std::string base = flags.dir.empty() ? (std::filesystem::temp_directory_path() /
                                                ("statecheck-crash-" + std::to_string(::getpid())))
                                                   .string()
                                             : flags.dir;
  out << "crash runner: seed " << seed << ", " << flags.cycles << " cycles per configuration, "
      << flags.jobs << (flags.jobs == 1 ? " worker" : " workers") << ", directories under " << base
      << "\n"
      << std::flush;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Json> results = ForkEach(configs.size(), flags.jobs, [&](size_t i) {
    return RunOne(configs[i], flags, seed, base + "/" + configs[i].label);
  });
  int failed = 0;
  int64_t total_cycles = 0, total_kills = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::string& label = configs[i].label;
    const Json& r = results[i];
    const std::string directory = base + "/" + label;
    if (r.contains("died") || r.contains("error")) {
      ++failed;
      out << "  " << label << ": FAILED: "
          << (r.contains("died") ? "its worker process " + r["died"].get<std::string>()
                                 : r["error"].get<std::string>())
          << "\n    replay: statecheck crash --jobs 1 --config " << label << " --seed " << seed
          << " --cycles " << flags.cycles
          << (flags.io_errors > 0 ? " --io-errors " + FormatProbability(flags.io_errors) : "")
          << "\n";
      continue;
    }
    total_cycles += r["cycles"].get<int64_t>();
    total_kills += r["kills"].get<int64_t>();
    if (r["passed"].get<bool>()) {
      out << "  " << label << ": OK, " << r["cycles"] << " cycles (" << r["kills"]
          << " killed by SIGKILL"
          << (flags.tolerate_io_errors || flags.io_errors > 0
                  ? ", " + r["io_errors"].dump() + " ended by an I/O error, " + r["aborts"].dump() +
                        " aborted"
                  : std::string())
          << ") in " << Secs(r["seconds"].get<double>()) << " s; committed input "
          << r["final_committed_input"] << " of " << r["input_records"]
          << " records, nothing lost\n    kills at:";
      for (const auto& [point, n] : r["kills_by_point"].items())
        out << " " << point << " " << n << ";";
      out << "\n";
    } else {
      ++failed;
      out << "  " << label << ": FAILED at cycle " << r["failed_cycle"] << ": "
          << r["failure"].get<std::string>() << "\n    replay: statecheck crash --config " << label
          << " --seed " << seed << " --cycles " << r["failed_cycle"].get<int>() + 1
          << (flags.io_errors > 0 ? " --io-errors " + FormatProbability(flags.io_errors) : "")
          << "\n    directories kept: " << directory << " (statecheck inspect " << directory
          << "/state/kv)\n";
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << (failed ? "FAILED: " : "OK: ") << total_cycles << " kill-and-recover cycles, "
      << total_kills << " kills, " << configs.size() - failed << "/" << configs.size()
      << " configurations passed, in " << Secs(seconds) << " s\n";
  if (!failed && !flags.keep && flags.dir.empty()) std::filesystem::remove_all(base);
  return failed == 0;
}

}  // namespace statecheck::tools
