// Internal to the command line (tools/statecheck_main.cc and tools/cli_*.cc, one per
// subcommand): the exit codes, UsageError, and the Add* functions that declare the subcommands.
#ifndef STATECHECK_TOOLS_CLI_H_
#define STATECHECK_TOOLS_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

// STATECHECK_GIT_COMMIT: the commit the binary was built from (cmake/GitCommit.cmake).
#if __has_include("statecheck_git_commit.h")
#include "statecheck_git_commit.h"
#endif
#ifndef STATECHECK_GIT_COMMIT
#define STATECHECK_GIT_COMMIT "unknown"
#endif

namespace statecheck::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

inline int UsageError(const std::string& message) {
  std::cerr << "statecheck: " << message << "\n";
  return kExitUsage;
}

// One subcommand: the CLI11 app its options were declared on and what it runs once parsed. The
// options live in a struct the run shares, so that each subcommand is declared in one place.
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// list rules, list faults (cli_list.cc).
std::vector<Subcommand> AddList(CLI::App& app);
// replay (cli_replay.cc).
Subcommand AddReplay(CLI::App& app);
// inspect (cli_inspect.cc).
Subcommand AddInspect(CLI::App& app);
// checkpoint read, write and delete (cli_checkpoint.cc).
std::vector<Subcommand> AddCheckpoint(CLI::App& app);
// run (cli_run.cc); `command`: the command line, for the report.
Subcommand AddRun(CLI::App& app, const std::string& command);
// shard: the shard `run` takes from the environment (cli_run.cc).
Subcommand AddShard(CLI::App& app);
// report merge (cli_report.cc).
Subcommand AddReportMerge(CLI::App& app);
// selftest (cli_selftest.cc); `command`: the command line, for the report.
Subcommand AddSelftest(CLI::App& app, const std::string& command);
// crash (cli_crash.cc).
Subcommand AddCrash(CLI::App& app);

}  // namespace statecheck::cli

#endif  // STATECHECK_TOOLS_CLI_H_
