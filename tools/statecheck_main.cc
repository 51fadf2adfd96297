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
//   statecheck selftest [--budget 60] [--seed N] [--bugs ID,... | --select SEL] [--list]
//                       [--whole-campaign] [--min-score PCT] [--report-dir DIR]
//   statecheck crash [--cycles 60] [--seed N] [--config LABEL|all] [--dir DIR] [--keep]
//
// Exit codes: 0 all rules hold / the trace replays, 1 a rule fails / the trace diverges,
// 2 a usage or input error (the message names it). `checkpoint read` checks the file it is
// given: 1 when it is unreadable or damaged (the error names the file and the problem), 2 when
// there is no such file. `checkpoint write` and `delete`: 1 when the write fails, 2 for an entry
// Kafka's writer refuses or a missing directory.
#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tools/cli.h"

namespace statecheck::cli {
namespace {

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
  subcommands.push_back(AddShard(app));
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
}  // namespace statecheck::cli

int main(int argc, char** argv) { return statecheck::cli::Main(argc, argv); }
