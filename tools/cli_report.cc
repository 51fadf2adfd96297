// `statecheck report merge`: the reports of a sharded campaign merged into one.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "statecheck/status.h"
#include "tools/campaign.h"
#include "tools/cli.h"

namespace statecheck::cli {
namespace {

// report merge: the shards' reports into one.
int ReportMerge(const std::vector<std::string>& inputs, const std::string& out_dir) {
  tools::CampaignResult result;
  const Status s = tools::MergeReportFiles(inputs, out_dir, &result);
  if (!s.ok()) return UsageError(s.message());
  std::cout << "merged " << inputs.size() << " shard reports (seed " << result.report.seed << ")\n";
  tools::PrintSummary(result, std::cout);
  return result.Failed() ? kExitFailed : kExitOk;
}

}  // namespace

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

}  // namespace statecheck::cli
