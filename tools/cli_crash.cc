// `statecheck crash`: kill-and-recover cycles (tools/crash_command.h).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <memory>

#include "statecheck/status.h"
#include "tools/cli.h"
#include "tools/crash_command.h"

namespace statecheck::cli {
namespace {

// Kill-and-recover cycles (tools/crash_command.h) for one configuration or all of them.
int Crash(const tools::CrashFlags& flags) {
  const Status s = tools::ValidateCrashFlags(flags);
  if (!s.ok()) return UsageError(s.message());
  return tools::RunCrashCommand(flags, std::cout) ? kExitOk : kExitFailed;
}

}  // namespace

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
                   "Configurations run at once, each in a worker process (default: the CPUs "
                   "this process may use: its CPU affinity, capped by a cgroup v2 CPU quota)")
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

}  // namespace statecheck::cli
