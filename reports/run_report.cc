// The report model's JSON form both ways (ReportJson, ReadReportJson), and writing all formats
// (WriteReport). The model's derivations (verdicts, coverage): report_verdicts.cc; merging
// shards: report_merge.cc; the other writers: junit_report.cc, markdown_report.cc,
// html_report.cc.
#include "reports/run_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>

namespace statecheck::reports {
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

Json FaultsJson(const FaultCounts& f) {
  return Json{{"crashes", f.crashes},
              {"power_losses", f.power_losses},
              {"io_errors", f.io_errors},
              {"engine_faults", f.engine_faults}};
}

// Whether `v` holds a T exactly: no number converted to a bool or a string, no float to an
// integer, no integer out of T's range, no number that is not finite (ReportJson writes none).
template <class T>
bool HoldsExactly(const Json& v) {
  if constexpr (std::is_same_v<T, Json>) {
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string();
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return v.is_array() &&
           std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_string(); });
  } else if constexpr (std::is_floating_point_v<T>) {
    return v.is_number() && std::isfinite(v.get<double>());
  } else {
    static_assert(std::is_integral_v<T>);
    if (!v.is_number_integer()) return false;
    if (v.is_number_unsigned()) {
      return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    }
    const int64_t x = v.get<int64_t>();
    if (x < 0)
      return std::is_signed_v<T> && x >= static_cast<int64_t>(std::numeric_limits<T>::min());
    return static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
}

// Reads `j`'s field `name` into `*out`, or says which field is missing or of the wrong type.
template <class T>
Status Field(const Json& j, const std::string& where, const char* name, T* out) {
  if (!j.is_object() || !j.contains(name)) {
    return Status::InvalidArgument("report.json: " + where + " has no \"" + name + "\"");
  }
  const Json& v = j[name];
  if (!HoldsExactly<T>(v)) {
    return Status::InvalidArgument(
        "report.json: " + where + " field \"" + name +
        "\" has the wrong type: " + v.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  *out = v.get<T>();
  return Status::Ok();
}

// A field that must be an array (of objects, each read by the caller).
Status ArrayField(const Json& j, const std::string& where, const char* name, Json* out) {
  STATECHECK_RETURN_IF_ERROR(Field(j, where, name, out));
  if (!out->is_array()) {
    return Status::InvalidArgument("report.json: " + where + " field \"" + name +
                                   "\" is not an array");
  }
  return Status::Ok();
}

// {"name": count, ...} in the order of `counts` (a map's, or a rule's declared situations':
// ordered_json keeps it).
template <class Counts>
Json CountsJson(const Counts& counts) {
  Json j = Json::object();
  for (const auto& [k, v] : counts) j[k] = v;
  return j;
}

// {"name": count, ...} with non-negative integer counts.
Status CountsFromJson(const Json& j, const std::string& where, const char* name,
                      std::map<std::string, int64_t>* out) {
  Json o;
  STATECHECK_RETURN_IF_ERROR(Field(j, where, name, &o));
  if (!o.is_object()) {
    return Status::InvalidArgument("report.json: " + where + " field \"" + name +
                                   "\" is not an object");
  }
  for (const auto& [k, v] : o.items()) {
    int64_t n = 0;
    STATECHECK_RETURN_IF_ERROR(Field(o, where + " " + name, k.c_str(), &n));
    if (n < 0) {
      return Status::InvalidArgument("report.json: " + where + " " + name + " \"" + k +
                                     "\" is negative");
    }
    (*out)[k] = n;
  }
  return Status::Ok();
}

Status FaultsFromJson(const Json& j, const std::string& where, FaultCounts* f) {
  STATECHECK_RETURN_IF_ERROR(Field(j, where, "crashes", &f->crashes));
  STATECHECK_RETURN_IF_ERROR(Field(j, where, "power_losses", &f->power_losses));
  STATECHECK_RETURN_IF_ERROR(Field(j, where, "io_errors", &f->io_errors));
  return Field(j, where, "engine_faults", &f->engine_faults);
}

Json SelftestJson(const SelftestSection& s) {
  Json bugs = Json::array();
  for (const PlantedBugResult& b : s.bugs) {
    bugs.push_back(Json{{"name", b.name},
                        {"rules", b.rules},
                        {"description", b.description},
                        {"modelled_on", b.modelled_on},
                        {"file", b.file},
                        {"caught", b.caught},
                        {"seconds", b.seconds},
                        {"cases", b.cases},
                        {"operations", b.operations},
                        {"property", b.property},
                        {"failing_rules", b.failing_rules},
                        {"counterexample_steps", b.counterexample_steps},
                        {"message", b.message},
                        {"replay_commands", b.replay_commands},
                        {"report_dir", b.report_dir},
                        {"cited_rules", b.cited_rules},
                        {"cites_expected_rule", b.CitesExpectedRule()}});
  }
  return Json{{"budget_seconds", s.budget_seconds},
              {"scope", s.scope},
              {"planted", s.bugs.size()},
              {"caught", s.Caught()},
              {"citing_expected_rule", s.CitingExpected()},
              {"mutation_score", s.Score()},
              {"bugs", std::move(bugs)}};
}

Status SelftestFromJson(const Json& j, SelftestSection* s) {
  STATECHECK_RETURN_IF_ERROR(Field(j, "selftest", "budget_seconds", &s->budget_seconds));
  STATECHECK_RETURN_IF_ERROR(Field(j, "selftest", "scope", &s->scope));
  Json bugs;
  STATECHECK_RETURN_IF_ERROR(Field(j, "selftest", "bugs", &bugs));
  if (!bugs.is_array()) return Status::InvalidArgument("report.json: selftest.bugs is no array");
  for (const Json& o : bugs) {
    PlantedBugResult b;
    STATECHECK_RETURN_IF_ERROR(Field(o, "a planted bug", "name", &b.name));
    const std::string at = "planted bug " + b.name;
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "rules", &b.rules));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "description", &b.description));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "modelled_on", &b.modelled_on));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "file", &b.file));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "caught", &b.caught));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "seconds", &b.seconds));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "cases", &b.cases));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "operations", &b.operations));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "property", &b.property));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "failing_rules", &b.failing_rules));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "counterexample_steps", &b.counterexample_steps));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "message", &b.message));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "replay_commands", &b.replay_commands));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "report_dir", &b.report_dir));
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "cited_rules", &b.cited_rules));
    s->bugs.push_back(std::move(b));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// A property's result as report.json has it (ReadPropertyJson reads it back).
Json PropertyJson(const PropertyResult& p) {
  Json batches = Json::array();
  for (const BatchResult& b : p.batches) {
    batches.push_back(Json{{"number", b.number},
                           {"seed", b.seed},
                           {"cases", b.cases},
                           {"operations", b.operations},
                           {"seconds", b.seconds},
                           {"passed", b.passed}});
  }
  Json o{{"id", p.id},
         {"family", p.family},
         {"config", p.config},
         {"passed", p.passed},
         {"cases", p.cases},
         {"operations", p.operations},
         {"seconds", p.seconds},
         {"no_fault_cases", p.no_fault_cases},
         {"faults", FaultsJson(p.faults)},
         {"evidence", CountsJson(p.evidence)},
         {"rule_cases", CountsJson(p.rule_cases)},
         {"batches", std::move(batches)}};
  if (!p.passed) {
    o["failure"] = Json{{"rule", p.failing_rule},
                        {"message", p.message},
                        {"counterexample", p.counterexample},
                        {"trace", p.trace_path},
                        {"reproduce", p.reproduce},
                        {"replay_commands", p.replay_commands}};
  }
  return o;
}

}  // namespace

std::string ReportJson(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  Json j;
  j["statecheck_report"] = kReportVersion;
  j["seed"] = report.seed;
  const RunConfiguration& c = report.configuration;
  j["configuration"] = Json{{"budget_seconds", c.budget_seconds},
                            {"batches_per_property", c.batches_per_property},
                            {"select", c.select},
                            {"families", c.families},
                            {"cases_per_batch", c.cases_per_batch},
                            {"max_size", c.max_size},
                            {"shard", Json{{"index", c.shard_index}, {"count", c.shard_count}}},
                            {"require_evidence", c.require_evidence},
                            {"jobs", c.jobs},
                            {"workers_started", c.workers_started}};
  j["elapsed_seconds"] = report.elapsed_seconds;
  j["started_at"] = report.started_at;
  j["commit"] = report.commit;
  j["command"] = report.command;
  j["merged_shards"] = report.merged_shards;
  Json props = Json::array();
  for (const PropertyResult& p : report.properties) props.push_back(PropertyJson(p));
  j["properties"] = std::move(props);
  if (report.regressions) {
    Json traces = Json::array();
    for (const PropertyResult& p : report.regressions->traces) traces.push_back(PropertyJson(p));
    j["regressions"] = Json{{"directory", report.regressions->directory}, {"traces", traces}};
  }
  Json points = Json::array();
  for (const FailPointRow& f : report.fail_points) {
    points.push_back(Json{
        {"name", f.name}, {"reached", f.reached}, {"fired", f.fired}, {"reachable", f.reachable}});
  }
  j["fail_points"] = std::move(points);
  Json progress = Json::array();
  for (const ProgressSample& s : report.progress) {
    progress.push_back(Json{{"seconds", s.seconds},
                            {"cases", s.cases},
                            {"operations", s.operations},
                            {"findings", s.findings}});
  }
  j["progress"] = std::move(progress);
  Json rules = Json::array();
  for (const RuleVerdict& v : verdicts) {
    rules.push_back(Json{{"id", v.rule->id},
                         {"family", v.rule->family},
                         {"title", v.rule->title},
                         {"statement", v.rule->statement},
                         {"checks", v.rule->checks},
                         {"property_families", v.rule->property_families},
                         {"verdict", v.verdict},
                         {"evidence", CountsJson(v.evidence)},
                         {"missing_situations", v.MissingSituations()},
                         {"unattributed", v.unattributed},
                         {"cases", v.cases},
                         {"operations", v.operations},
                         {"seconds", v.seconds},
                         {"no_fault_cases", v.no_fault_cases},
                         {"faults", FaultsJson(v.faults)},
                         {"properties", v.properties},
                         {"failing_properties", v.failing_properties}});
  }
  j["rules"] = std::move(rules);
  if (report.selftest) j["selftest"] = SelftestJson(*report.selftest);
  // Messages and counterexamples can hold raw key bytes: invalid UTF-8 is replaced, not thrown.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

namespace {

// Reads PropertyJson's object back; `where` names it in an error.
Status ReadPropertyJson(const Json& o, const std::string& where, PropertyResult* out) {
  PropertyResult p;
  STATECHECK_RETURN_IF_ERROR(Field(o, where, "id", &p.id));
  const std::string at = "property " + p.id;
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "family", &p.family));
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "config", &p.config));
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "passed", &p.passed));
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "cases", &p.cases));
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "operations", &p.operations));
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "seconds", &p.seconds));
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "no_fault_cases", &p.no_fault_cases));
  Json faults, batches;
  STATECHECK_RETURN_IF_ERROR(Field(o, at, "faults", &faults));
  STATECHECK_RETURN_IF_ERROR(FaultsFromJson(faults, at + " faults", &p.faults));
  STATECHECK_RETURN_IF_ERROR(CountsFromJson(o, at, "evidence", &p.evidence));
  STATECHECK_RETURN_IF_ERROR(CountsFromJson(o, at, "rule_cases", &p.rule_cases));
  STATECHECK_RETURN_IF_ERROR(ArrayField(o, at, "batches", &batches));
  for (const Json& b : batches) {
    BatchResult r;
    const std::string bat = at + " batch";
    STATECHECK_RETURN_IF_ERROR(Field(b, bat, "number", &r.number));
    STATECHECK_RETURN_IF_ERROR(Field(b, bat, "seed", &r.seed));
    STATECHECK_RETURN_IF_ERROR(Field(b, bat, "cases", &r.cases));
    STATECHECK_RETURN_IF_ERROR(Field(b, bat, "operations", &r.operations));
    STATECHECK_RETURN_IF_ERROR(Field(b, bat, "seconds", &r.seconds));
    STATECHECK_RETURN_IF_ERROR(Field(b, bat, "passed", &r.passed));
    p.batches.push_back(r);
  }
  if (!p.passed) {
    Json f;
    STATECHECK_RETURN_IF_ERROR(Field(o, at, "failure", &f));
    STATECHECK_RETURN_IF_ERROR(Field(f, at + " failure", "rule", &p.failing_rule));
    STATECHECK_RETURN_IF_ERROR(Field(f, at + " failure", "message", &p.message));
    STATECHECK_RETURN_IF_ERROR(Field(f, at + " failure", "counterexample", &p.counterexample));
    STATECHECK_RETURN_IF_ERROR(Field(f, at + " failure", "trace", &p.trace_path));
    STATECHECK_RETURN_IF_ERROR(Field(f, at + " failure", "reproduce", &p.reproduce));
    STATECHECK_RETURN_IF_ERROR(Field(f, at + " failure", "replay_commands", &p.replay_commands));
  }
  *out = std::move(p);
  return Status::Ok();
}

}  // namespace

Status ReadReportJson(const std::string& text, RunReport* out) {
  // Read aside: a malformed report leaves `*out` as it was.
  RunReport parsed;
  RunReport* const report = &parsed;
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument("report.json: not a JSON object");
  }
  int version = 0;
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "statecheck_report", &version));
  if (version != kReportVersion) {
    return Status::InvalidArgument("report.json: version " + std::to_string(version) +
                                   "; this build reads version " + std::to_string(kReportVersion) +
                                   " (rerun the campaign)");
  }
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "seed", &report->seed));
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "elapsed_seconds", &report->elapsed_seconds));
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "started_at", &report->started_at));
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "commit", &report->commit));
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "command", &report->command));
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "merged_shards", &report->merged_shards));
  Json c;
  STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "configuration", &c));
  RunConfiguration& rc = report->configuration;
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "budget_seconds", &rc.budget_seconds));
  STATECHECK_RETURN_IF_ERROR(
      Field(c, "configuration", "batches_per_property", &rc.batches_per_property));
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "select", &rc.select));
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "families", &rc.families));
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "cases_per_batch", &rc.cases_per_batch));
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "max_size", &rc.max_size));
  Json shard;
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "shard", &shard));
  STATECHECK_RETURN_IF_ERROR(Field(shard, "configuration.shard", "index", &rc.shard_index));
  STATECHECK_RETURN_IF_ERROR(Field(shard, "configuration.shard", "count", &rc.shard_count));
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "require_evidence", &rc.require_evidence));
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "jobs", &rc.jobs));
  STATECHECK_RETURN_IF_ERROR(Field(c, "configuration", "workers_started", &rc.workers_started));
  Json props;
  STATECHECK_RETURN_IF_ERROR(ArrayField(j, "the report", "properties", &props));
  for (const Json& o : props) {
    PropertyResult p;
    STATECHECK_RETURN_IF_ERROR(ReadPropertyJson(o, "a property", &p));
    report->properties.push_back(std::move(p));
  }
  if (j.contains("regressions")) {
    Json r, traces;
    STATECHECK_RETURN_IF_ERROR(Field(j, "the report", "regressions", &r));
    RegressionSection section;
    STATECHECK_RETURN_IF_ERROR(Field(r, "regressions", "directory", &section.directory));
    STATECHECK_RETURN_IF_ERROR(ArrayField(r, "regressions", "traces", &traces));
    for (const Json& o : traces) {
      PropertyResult p;
      STATECHECK_RETURN_IF_ERROR(ReadPropertyJson(o, "a regression trace", &p));
      section.traces.push_back(std::move(p));
    }
    report->regressions = std::move(section);
  }
  Json points, progress;
  STATECHECK_RETURN_IF_ERROR(ArrayField(j, "the report", "fail_points", &points));
  for (const Json& o : points) {
    FailPointRow f;
    STATECHECK_RETURN_IF_ERROR(Field(o, "a fail point", "name", &f.name));
    STATECHECK_RETURN_IF_ERROR(Field(o, "fail point " + f.name, "reached", &f.reached));
    STATECHECK_RETURN_IF_ERROR(Field(o, "fail point " + f.name, "fired", &f.fired));
    STATECHECK_RETURN_IF_ERROR(Field(o, "fail point " + f.name, "reachable", &f.reachable));
    report->fail_points.push_back(std::move(f));
  }
  STATECHECK_RETURN_IF_ERROR(ArrayField(j, "the report", "progress", &progress));
  for (const Json& o : progress) {
    ProgressSample s;
    STATECHECK_RETURN_IF_ERROR(Field(o, "a progress sample", "seconds", &s.seconds));
    STATECHECK_RETURN_IF_ERROR(Field(o, "a progress sample", "cases", &s.cases));
    STATECHECK_RETURN_IF_ERROR(Field(o, "a progress sample", "operations", &s.operations));
    STATECHECK_RETURN_IF_ERROR(Field(o, "a progress sample", "findings", &s.findings));
    report->progress.push_back(s);
  }
  if (j.contains("selftest")) {
    STATECHECK_RETURN_IF_ERROR(SelftestFromJson(j["selftest"], &report->selftest.emplace()));
  }
  *out = std::move(parsed);
  return Status::Ok();
}

Status WriteReport(const std::string& dir, const RunReport& report,
                   const std::vector<RuleVerdict>& verdicts) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create report directory " + dir + ": " + ec.message());
  const std::filesystem::path d(dir);
  STATECHECK_RETURN_IF_ERROR(WriteFile(d / "report.json", ReportJson(report, verdicts)));
  STATECHECK_RETURN_IF_ERROR(WriteFile(d / "junit.xml", ReportJUnit(report, verdicts)));
  STATECHECK_RETURN_IF_ERROR(WriteFile(d / "summary.md", ReportMarkdown(report, verdicts)));
  return WriteFile(d / "report.html", ReportHtml(report, verdicts));
}

}  // namespace statecheck::reports
