#include "tools/selftest.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <set>

#include "reports/report_text.h"
#include "reports/rule_catalogue.h"
#include "statecheck/hooks/planted_bugs.h"
#include "tools/campaign.h"
#include "tools/catalogue.h"

namespace statecheck::tools {
namespace {

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

std::vector<std::string> Split(std::string_view list) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from <= list.size()) {
    const size_t comma = std::min(list.find(',', from), list.size());
    if (comma > from) out.emplace_back(list.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

// The rule ids of a selector ("E", "W3,T4"), or InvalidArgument.
Status RuleIds(const std::string& selector, std::set<std::string>* ids) {
  std::vector<const reports::Rule*> rules;
  STATECHECK_RETURN_IF_ERROR(Catalogue().Select(selector, &rules));
  for (const reports::Rule* r : rules) ids->insert(r->id);
  return Status::Ok();
}

// The planted bugs the options ask for, in catalogue order.
Status ChooseBugs(const SelftestOptions& options, std::vector<planted::PlantedBug>* out) {
  const auto& catalogue = planted::Catalogue();
  for (const std::string& name : options.bugs) {
    if (std::none_of(catalogue.begin(), catalogue.end(),
                     [&](const planted::PlantedBug& b) { return b.name == name; })) {
      return Status::InvalidArgument("no planted bug \"" + name +
                                     "\"; `statecheck selftest --list` lists them");
    }
  }
  std::set<std::string> selected;
  if (!options.select.empty()) STATECHECK_RETURN_IF_ERROR(RuleIds(options.select, &selected));
  for (const planted::PlantedBug& b : catalogue) {
    if (!options.bugs.empty() &&
        std::find(options.bugs.begin(), options.bugs.end(), b.name) == options.bugs.end()) {
      continue;
    }
    if (!selected.empty()) {
      const std::vector<std::string> rules = Split(b.rules);
      if (std::none_of(rules.begin(), rules.end(),
                       [&](const std::string& r) { return selected.count(r) > 0; })) {
        continue;
      }
    }
    out->push_back(b);
  }
  if (out->empty()) {
    return Status::InvalidArgument("no planted bug is tied to the rules \"" + options.select +
                                   "\"");
  }
  return Status::Ok();
}

// "window_store/drop_rule" → "window_store-drop_rule": a directory name.
std::string DirName(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '/', '-');
  return out;
}

}  // namespace

namespace {

// The rules of `bugs`, each once, in their order, comma-separated: what the control run checks.
std::string UnionOfRules(const std::vector<planted::PlantedBug>& bugs) {
  std::vector<std::string> all;
  for (const planted::PlantedBug& b : bugs) {
    for (const std::string& r : Split(b.rules)) {
      if (std::find(all.begin(), all.end(), r) == all.end()) all.push_back(r);
    }
  }
  std::string out;
  for (const std::string& r : all) out += (out.empty() ? "" : ",") + r;
  return out;
}

// The control run: the same campaign as the bugs' (their rules, or everything) with no bug
// planted; it must be clean for the score to mean anything.
Status RunControl(const SelftestOptions& options, const CampaignOptions& base,
                  const std::vector<planted::PlantedBug>& bugs, const std::string& dir,
                  uint64_t seed, CampaignResult* out) {
  planted::DeactivateAll();
  CampaignOptions control = base;
  control.budget_seconds =
      options.control_seconds >= 0 ? options.control_seconds : options.budget_seconds;
  control.select = options.whole_campaign ? "" : UnionOfRules(bugs);
  control.report_dir = dir;
  control.command = options.command;
  if (options.out) {
    *options.out << "statecheck selftest: seed " << seed << ", " << bugs.size() << " planted bugs, "
                 << Seconds(options.budget_seconds) << " s each ("
                 << (options.whole_campaign ? "the whole campaign"
                                            : "the rules each bug is tied to")
                 << "), report in " << dir << "\ncontrol run (no bug planted, "
                 << Seconds(control.budget_seconds) << " s) ..." << std::endl;
  }
  if (control.budget_seconds > 0) STATECHECK_RETURN_IF_ERROR(RunCampaign(control, out));
  if (options.out) {
    *options.out << (out->findings == 0
                         ? "control run: clean, "
                         : "control run: FAILED with " + std::to_string(out->findings) +
                               " findings on the correct engine, ")
                 << Seconds(out->report.elapsed_seconds) << " s" << std::endl;
  }
  return Status::Ok();
}

// Runs the campaign `o` with planted bug `b` active, and what it found of it.
Status RunWithBug(const planted::PlantedBug& b, const CampaignOptions& o,
                  reports::PlantedBugResult* bug) {
  STATECHECK_RETURN_IF_ERROR(planted::Activate(b.name));
  CampaignResult r;
  const Status s = RunCampaign(o, &r);
  planted::DeactivateAll();
  STATECHECK_RETURN_IF_ERROR(s);
  bug->name = b.name;
  bug->rules = b.rules;
  bug->description = b.description;
  bug->modelled_on = b.modelled_on;
  bug->file = b.file;
  bug->caught = r.findings > 0;
  bug->seconds = bug->caught ? r.first_finding_seconds : r.report.elapsed_seconds;
  bug->report_dir = r.report_dir;
  for (const reports::PropertyResult& p : r.report.properties) {
    bug->cases += p.cases;
    bug->operations += p.operations;
    if (!p.passed && bug->property.empty()) {
      bug->property = p.id;
      bug->message = p.message;
      bug->counterexample_steps = static_cast<int64_t>(p.counterexample.size());
      bug->replay_commands = p.replay_commands;
      bug->trace_path = p.trace_path;
    }
    // The rules the failing checks enforce (their findings'), not rule ids read off messages.
    if (!p.passed && !p.failing_rule.empty() &&
        std::find(bug->cited_rules.begin(), bug->cited_rules.end(), p.failing_rule) ==
            bug->cited_rules.end()) {
      bug->cited_rules.push_back(p.failing_rule);
    }
  }
  for (const reports::RuleVerdict& v : r.verdicts) {
    if (v.verdict == "fail") bug->failing_rules.push_back(v.rule->id);
  }
  return Status::Ok();
}

// "[ 3/42] name (rules): caught in ... by ..." or "NOT CAUGHT ...".
void PrintBug(std::ostream& out, const reports::PlantedBugResult& bug, size_t i, size_t n) {
  const std::string by = reports::report_text::CaughtBy(bug);
  char index[32];
  std::snprintf(index, sizeof index, "[%2zu/%zu] ", i + 1, n);
  out << index << bug.name << " (" << bug.rules << "): "
      << (bug.caught ? "caught in " + Seconds(bug.seconds) + " s by " + bug.property + " (" + by +
                           "), " + reports::report_text::StepsText(bug.counterexample_steps)
                     : "NOT CAUGHT in " + Seconds(bug.seconds) + " s (" +
                           std::to_string(bug.cases) + " cases)")
      << std::endl;
}

// The score, the bugs not caught, a failed control run, and where the report is.
void PrintSummary(std::ostream& out, const SelftestOptions& options,
                  const reports::SelftestSection& section, bool control_passed,
                  const std::string& dir) {
  out << "\nmutation score: " << section.Caught() << " of " << section.bugs.size()
      << " planted bugs caught = " << Seconds(section.Score()) << "% (threshold "
      << Seconds(options.min_score) << "%, " << Seconds(options.budget_seconds) << " s per bug)\n";
  for (const reports::PlantedBugResult& b : section.bugs) {
    if (!b.caught) out << "  not caught: " << b.name << " (" << b.rules << ")\n";
  }
  if (!control_passed) {
    out << "the control run failed on the correct engine: the score means nothing "
           "until that is fixed (its findings are in the report)\n";
  }
  out << "report: " << dir
      << "/report.html (also report.json, junit.xml, summary.md; each bug's own campaign in " << dir
      << "/bugs/)\n";
}

}  // namespace

Status RunSelftest(const SelftestOptions& options, SelftestResult* result) {
  *result = SelftestResult();
  if (!planted::Compiled()) {
    return Status::InvalidArgument(
        "this statecheck has no planted bugs (they are compiled only into the planted build): "
        "run ci/selftest.sh, or build it with `ci/build.sh planted` and run "
        "build/planted/tools/statecheck selftest");
  }
  if (options.budget_seconds <= 0) {
    return Status::InvalidArgument("--budget must be a positive number of seconds per bug");
  }
  std::vector<planted::PlantedBug> bugs;
  STATECHECK_RETURN_IF_ERROR(ChooseBugs(options, &bugs));
  // Every rule a chosen bug is tied to must be one the catalogue knows.
  for (const planted::PlantedBug& b : bugs) {
    std::set<std::string> ids;
    const Status s = RuleIds(std::string(b.rules), &ids);
    if (!s.ok()) {
      return Status::InvalidArgument("planted bug " + std::string(b.name) + ": " + s.message());
    }
  }
  const uint64_t seed = options.seed ? *options.seed : std::random_device{}();
  std::string dir = options.report_dir;
  if (dir.empty()) dir = "statecheck-reports/selftest-seed" + std::to_string(seed);
  result->report_dir = dir;

  CampaignOptions base;
  base.seed = seed;
  base.commit = options.commit;
  base.executable = options.executable;
  base.progress = options.progress;
  base.progress_is_tty = options.progress_is_tty;
  base.hang_seconds = options.hang_seconds;

  CampaignResult control_result;
  STATECHECK_RETURN_IF_ERROR(RunControl(options, base, bugs, dir, seed, &control_result));
  result->control_passed = control_result.findings == 0;

  reports::SelftestSection section;
  section.budget_seconds = options.budget_seconds;
  section.scope = options.whole_campaign ? "all" : "rules";
  for (size_t i = 0; i < bugs.size(); ++i) {
    const planted::PlantedBug& b = bugs[i];
    CampaignOptions o = base;
    o.budget_seconds = options.budget_seconds;
    o.select = options.whole_campaign ? "" : std::string(b.rules);
    o.report_dir = dir + "/bugs/" + DirName(b.name);
    o.stop_at_first_finding = true;
    o.command = "STATECHECK_PLANTED_BUG=" + std::string(b.name) + " statecheck run --budget " +
                Seconds(options.budget_seconds) + " --seed " + std::to_string(seed) +
                (o.select.empty() ? "" : " --select " + o.select);
    reports::PlantedBugResult bug;
    STATECHECK_RETURN_IF_ERROR(RunWithBug(b, o, &bug));
    if (options.out) PrintBug(*options.out, bug, i, bugs.size());
    section.bugs.push_back(std::move(bug));
  }

  result->report = control_result.report;
  result->verdicts = control_result.verdicts;
  result->report.command = options.command;
  result->report.selftest = section;
  result->passed = result->control_passed && section.Score() >= options.min_score;
  STATECHECK_RETURN_IF_ERROR(reports::WriteReport(dir, result->report, result->verdicts));
  if (options.out) PrintSummary(*options.out, options, section, result->control_passed, dir);
  return Status::Ok();
}

void PrintCatalogue(std::ostream& out) {
  for (const planted::PlantedBug& b : planted::Catalogue()) {
    out << b.name << "  [" << b.rules << "]  " << b.file << "\n  " << b.description
        << "\n  modelled on: " << b.modelled_on << "\n";
  }
}

}  // namespace statecheck::tools
