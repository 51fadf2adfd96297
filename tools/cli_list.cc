// `statecheck list`: list rules (the rule catalogue; with --sites, where each rule is kept,
// encoded and checked) and list faults (the fail points).
#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "faults/fault_fs.h"
#include "reports/catalogue_format.h"
#include "reports/rule_catalogue.h"
#include "reports/rule_sites.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/status.h"
#include "tools/catalogue.h"
#include "tools/cli.h"

namespace statecheck::cli {
namespace {

// ---------------------------------------------------------------------------------------------
// list rules

int ListRules(bool json, bool checks, const std::string& select) {
  std::vector<const reports::Rule*> rules;
  const Status s = tools::Catalogue().Select(select, &rules);
  if (!s.ok()) return UsageError(s.message());
  if (checks) {
    std::cout << reports::FormatCheckNames(rules);
  } else if (json) {
    std::cout << reports::FormatRulesJson(rules);
  } else {
    std::cout << reports::FormatRulesText(rules);
  }
  return kExitOk;
}

// Where each selected rule is kept (engine/), encoded (model/) and checked (properties/), from
// the tags in the sources under `source` (reports/rule_sites.h).
int ListRuleSites(bool json, const std::string& select, const std::string& source) {
  const reports::RuleCatalogue& catalogue = tools::Catalogue();
  std::vector<const reports::Rule*> rules;
  Status s = catalogue.Select(select, &rules);
  if (!s.ok()) return UsageError(s.message());
  std::vector<reports::RuleSite> sites;
  s = reports::ScanRuleSites(source, catalogue, &sites);
  if (!s.ok()) {
    const bool built_from = source == STATECHECK_SOURCE_DIR;
    return UsageError(s.message() + (built_from ? "\n(" + source +
                                                      " is the tree this binary was built "
                                                      "from; --source DIR reads another)"
                                                : ""));
  }
  if (json) {
    std::cout << reports::FormatSitesJson(rules, sites);
    return kExitOk;
  }
  std::cout << reports::FormatSitesText(rules, sites);
  const std::vector<std::string> missing = reports::MissingSites(catalogue, sites);
  size_t lacking = 0;
  for (const reports::Rule* rule : rules) {
    for (const std::string& line : missing) {
      if (line.rfind(rule->id + ":", 0) == 0) {
        std::cout << "missing: " << line << "\n";
        ++lacking;
      }
    }
  }
  std::cout << sites.size() << " sites in " << source << "; "
            << (lacking == 0 ? "every selected rule with campaign properties has an engine, a "
                               "model and a property site"
                             : std::to_string(lacking) + " missing")
            << "\n";
  return kExitOk;
}

// The fault catalogue: the engine's named fail points, then the fault file system's.
int ListFaults(bool json) {
  std::vector<faults::FailPointInfo> rows;
  for (const EngineFailPoint& p : EngineFailPoints()) {
    rows.push_back({std::string(p.name), std::string(p.description), ""});
  }
  for (faults::FailPointInfo& p : faults::FsFailPointCatalogue()) rows.push_back(std::move(p));
  if (json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const faults::FailPointInfo& p : rows) {
      nlohmann::ordered_json row = {{"name", p.name},
                                    {"description", p.description},
                                    {"reachable", p.unreachable_because.empty()}};
      if (!p.unreachable_because.empty()) row["unreachable_because"] = p.unreachable_because;
      j.push_back(std::move(row));
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  int unreachable = 0;
  for (const faults::FailPointInfo& p : rows) unreachable += !p.unreachable_because.empty();
  std::cout << rows.size() << " fail points, " << rows.size() - unreachable
            << " reachable (drive them by name with fiu-ctrl, or let statecheck run arm them):\n";
  for (const faults::FailPointInfo& p : rows) {
    std::printf(
        "  %-42s %s%s\n", p.name.c_str(), p.description.c_str(),
        p.unreachable_because.empty()
            ? ""
            : ("\n  " + std::string(44, ' ') + "unreachable: " + p.unreachable_because).c_str());
  }
  return kExitOk;
}

}  // namespace

std::vector<Subcommand> AddList(CLI::App& app) {
  auto* list = app.add_subcommand("list", "List the rule catalogue");
  list->require_subcommand(1);
  auto* rules = list->add_subcommand(
      "rules", "Every rule of docs/spec.md, the checks that cover it and its situations");
  struct Flags {
    bool json = false, checks = false, sites = false, faults_json = false;
    std::string select, source = STATECHECK_SOURCE_DIR;
  };
  auto f = std::make_shared<Flags>();
  rules->add_flag("--json", f->json, "JSON array of {id, statement, checks, ...}");
  rules->add_flag("--checks", f->checks, "Only the check names, one per line");
  rules->add_option("--select", f->select, "Rules: a family (W) or ids (W1,T4)");
  rules->add_flag("--sites", f->sites,
                  "Where each rule is kept (engine), encoded (model) and checked "
                  "(properties): the // Keeps:, Encodes:, Checks: tags in the sources");
  rules->add_option("--source", f->source,
                    "With --sites: the source tree to read (default: the one this binary "
                    "was built from)");
  auto* faults =
      list->add_subcommand("faults", "Every fail point: the engine's and the file system's");
  faults->add_flag("--json", f->faults_json, "JSON array of {name, description}");
  return {{rules,
           [f, rules] {
             if (f->json && f->checks) return UsageError("choose one of --json and --checks");
             if (f->sites && f->checks) return UsageError("choose one of --sites and --checks");
             if (rules->count("--source") > 0 && !f->sites) {
               return UsageError("--source is read with --sites only");
             }
             if (f->sites) return ListRuleSites(f->json, f->select, f->source);
             return ListRules(f->json, f->checks, f->select);
           }},
          {faults, [f] { return ListFaults(f->faults_json); }}};
}

}  // namespace statecheck::cli
