// What is made of a campaign's result: the summary `statecheck run` prints (PrintSummary), and
// one report merged from the shards' (`statecheck report merge`: MergeReportFiles).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "reports/rule_catalogue.h"
#include "reports/run_report.h"
#include "tools/campaign.h"
#include "tools/campaign_internal.h"
#include "tools/catalogue.h"

namespace statecheck::tools {
namespace {

using internal::Compact;

}  // namespace

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
      out << "\n"
          << v.rule->id
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
  if (report.regressions) {
    out << "regression corpus: " << report.regressions->traces.size() << " traces from "
        << report.regressions->directory << ", " << report.regressions->Diverged() << " diverged\n";
  }
  for (const auto& p : reports::FailedResults(report)) {
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
  STATECHECK_RETURN_IF_ERROR(Catalogue().Select(result->report.configuration.select, &rules));
  result->verdicts = reports::RuleVerdicts(rules, result->report);
  for (const auto& p : result->report.properties) result->findings += p.passed ? 0 : 1;
  result->report_dir = out_dir;
  return reports::WriteReport(out_dir, result->report, result->verdicts);
}

}  // namespace statecheck::tools
