#include "reports/run_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace statecheck::reports {

std::string FailPointCoverage(const std::vector<FailPointRow>& rows) {
  int reachable = 0, reached = 0, fired = 0;
  for (const FailPointRow& f : rows) {
    reachable += f.reachable;
    reached += f.reachable && f.reached > 0;
    fired += f.reachable && f.fired > 0;
  }
  return std::to_string(fired) + " of " + std::to_string(reachable) +
         " reachable fail points fired (" + std::to_string(reached) + " reached; " +
         std::to_string(rows.size() - reachable) + " more are unreachable by construction)";
}
namespace {

using Json = nlohmann::ordered_json;

Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IOError("cannot write " + path.string());
  out << text;
  out.close();
  if (!out) return Status::IOError("failed writing " + path.string());
  return Status::Ok();
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::vector<RuleVerdict> RuleVerdicts(const std::vector<const Rule*>& rules,
                                      const RunReport& report) {
  std::vector<RuleVerdict> out;
  for (const Rule* rule : rules) {
    RuleVerdict v;
    v.rule = rule;
    bool ran = false;
    for (const PropertyResult& p : report.properties) {
      const auto& fams = rule->property_families;
      if (std::find(fams.begin(), fams.end(), p.family) == fams.end()) continue;
      ran = true;
      v.cases += p.cases;
      v.operations += p.operations;
      if (!p.passed) v.failing_properties.push_back(p.id);
    }
    if (rule->property_families.empty()) {
      // Checked by the test suite alone (a cost bound, say), or not yet at all.
      v.verdict = rule->checks.empty() ? "not checked" : "tests only";
    } else if (!ran) {
      v.verdict = "not run";
    } else {
      v.verdict = v.failing_properties.empty() ? "pass" : "fail";
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string ReportJson(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  Json j;
  j["statecheck_report"] = 1;
  j["seed"] = report.seed;
  j["budget_seconds"] = report.budget_seconds;
  j["elapsed_seconds"] = report.elapsed_seconds;
  j["started_at"] = report.started_at;
  j["commit"] = report.commit;
  j["command"] = report.command;
  Json props = Json::array();
  for (const PropertyResult& p : report.properties) {
    Json o{{"id", p.id},       {"family", p.family},         {"passed", p.passed},
           {"cases", p.cases}, {"operations", p.operations}, {"seconds", p.seconds}};
    if (!p.passed) {
      o["message"] = p.message;
      o["trace"] = p.trace_path;
      o["reproduce"] = p.reproduce;
      o["counterexample"] = p.counterexample;
    }
    props.push_back(std::move(o));
  }
  j["properties"] = std::move(props);
  Json points = Json::array();
  for (const FailPointRow& f : report.fail_points) {
    points.push_back(Json{
        {"name", f.name}, {"reached", f.reached}, {"fired", f.fired}, {"reachable", f.reachable}});
  }
  j["fail_points"] = std::move(points);
  Json rules = Json::array();
  for (const RuleVerdict& v : verdicts) {
    rules.push_back(Json{{"id", v.rule->id},
                         {"statement", v.rule->statement},
                         {"checks", v.rule->checks},
                         {"verdict", v.verdict},
                         {"cases", v.cases},
                         {"operations", v.operations},
                         {"failing_properties", v.failing_properties}});
  }
  j["rules"] = std::move(rules);
  return j.dump(2) + "\n";
}

std::string ReportMarkdown(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  int64_t cases = 0, ops = 0;
  int failed = 0;
  for (const PropertyResult& p : report.properties) {
    cases += p.cases;
    ops += p.operations;
    failed += p.passed ? 0 : 1;
  }
  std::string md = "# statecheck conformance report\n\n";
  md += "- seed: `" + std::to_string(report.seed) + "`\n";
  md += "- commit: `" + report.commit + "`\n";
  md += "- started: " + report.started_at + ", ran " + Fixed(report.elapsed_seconds, 1) +
        " s of a " + Fixed(report.budget_seconds, 0) + " s budget\n";
  md += "- " + std::to_string(report.properties.size()) + " properties, " + std::to_string(cases) +
        " cases, " + std::to_string(ops) + " operations";
  if (report.elapsed_seconds > 0) {
    md += " (" + Fixed(static_cast<double>(ops) / report.elapsed_seconds, 0) + " ops/s)";
  }
  md += "\n- command: `" + report.command + "`\n\n";
  md += failed ? "**" + std::to_string(failed) + " propert" + (failed == 1 ? "y" : "ies") +
                     " failed.**\n\n"
               : "All properties that ran passed.\n\n";
  md += "## Rules\n\n| rule | verdict | cases | operations | statement |\n|---|---|---|---|---|\n";
  for (const RuleVerdict& v : verdicts) {
    const std::string mark = v.verdict == "pass"   ? "✅ pass"
                             : v.verdict == "fail" ? "❌ **fail**"
                                                   : v.verdict;
    md += "| " + v.rule->id + " | " + mark + " | " + std::to_string(v.cases) + " | " +
          std::to_string(v.operations) + " | " + v.rule->statement + " |\n";
  }
  if (!report.fail_points.empty()) {
    md += "\n## Fail points\n\n" + FailPointCoverage(report.fail_points) +
          ". Points never reached are not listed.\n\n| fail point | reached | fired |\n"
          "|---|---|---|\n";
    for (const FailPointRow& f : report.fail_points) {
      if (f.reached == 0) continue;
      md += "| `" + f.name + "` | " + std::to_string(f.reached) + " | " + std::to_string(f.fired) +
            " |\n";
    }
  }
  bool heading = false;
  for (const PropertyResult& p : report.properties) {
    if (p.passed) continue;
    if (!heading) md += "\n## Findings\n";
    heading = true;
    md += "\n### " + p.id + "\n\n```\n" + p.message + "\n```\n\nShrunk to " +
          std::to_string(p.counterexample.size()) + " steps:\n\n```\n";
    for (const std::string& line : p.counterexample) md += line + "\n";
    md += "```\n\n";
    if (!p.trace_path.empty()) md += "Replay: `statecheck replay " + p.trace_path + "`\n\n";
    md += "Reproduce: `statecheck run --reproduce '" + p.reproduce + "'`\n";
  }
  return md;
}

Status WriteReport(const std::string& dir, const RunReport& report,
                   const std::vector<RuleVerdict>& verdicts) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create report directory " + dir + ": " + ec.message());
  STATECHECK_RETURN_IF_ERROR(
      WriteFile(std::filesystem::path(dir) / "report.json", ReportJson(report, verdicts)));
  return WriteFile(std::filesystem::path(dir) / "summary.md", ReportMarkdown(report, verdicts));
}

}  // namespace statecheck::reports
