// `statecheck crash`: kill-and-recover cycles of a real task (properties/task/crash_runner.h) for
// one configuration of the T1 table or all of them, each configuration in a worker process of its
// own, `--jobs` at a time (tools/campaign_workers.h: ForkEach), so every core is busy. A worker
// that dies is a failure of its configuration, like a failed check.
#ifndef STATECHECK_TOOLS_CRASH_COMMAND_H_
#define STATECHECK_TOOLS_CRASH_COMMAND_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "statecheck/status.h"
#include "tools/campaign.h"

namespace statecheck::tools {

struct CrashFlags {
  int cycles = 60;
  std::optional<uint64_t> seed;
  std::string config = "all";  // A label of properties::TaskT1Rows(), or "all".
  std::string dir;             // Where the runs live; "" = a temp directory.
  bool keep = false;
  int records_per_cycle = 40;
  bool tolerate_io_errors = false;
  double io_errors = 0;                       // CrashRunOptions::io_error_probability.
  int jobs = CampaignOptions::DefaultJobs();  // Configurations run at once.
};

// InvalidArgument naming the problem: an unknown configuration, jobs < 1.
Status ValidateCrashFlags(const CrashFlags& flags);

// Runs the cycles and prints, per configuration, its result (with the replay command of a
// failure) and then the totals, to `out`. True when every configuration passed.
// REQUIRES: ValidateCrashFlags(flags).ok().
bool RunCrashCommand(const CrashFlags& flags, std::ostream& out);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_CRASH_COMMAND_H_
