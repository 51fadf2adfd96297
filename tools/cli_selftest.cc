// `statecheck selftest`: each planted bug planted and caught (tools/selftest.h; the planted
// build only).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>

#include "statecheck/hooks/planted_bugs.h"
#include "statecheck/status.h"
#include "tools/cli.h"
#include "tools/selftest.h"

namespace statecheck::cli {
namespace {

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

}  // namespace

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

}  // namespace statecheck::cli
