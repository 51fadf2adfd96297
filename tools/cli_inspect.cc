// `statecheck inspect`: what a state directory or a log directory holds (tools/inspect.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "statecheck/status.h"
#include "tools/cli.h"
#include "tools/inspect.h"

namespace statecheck::cli {
namespace {

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

}  // namespace

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

}  // namespace statecheck::cli
