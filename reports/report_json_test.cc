// Tests of report.json (ReportJson, run_report.cc) against docs/report-schema.json, checked by
// python3's jsonschema. Part of report_writers_test.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "reports/report_text.h"
#include "reports/report_writers_test_util.h"
#include "reports/run_report.h"

namespace statecheck::reports::writers_test {
namespace {

// Validates `doc` against `schema` (JSON Schema draft 2020-12) with python3's jsonschema. Exit
// status 0: valid; 3: invalid (the errors are printed); anything else: the check itself failed.
constexpr const char* kValidateJson = R"py(
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1], encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
# One line per document: its path, a tab, the number of errors, a tab, the errors.
for doc in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(doc, encoding="utf-8"))), key=str)
    print(doc + "\t" + str(len(errors)) + "\t" + "; ".join(
        "/".join(str(p) for p in e.absolute_path) + ": " + e.message for e in errors))
)py";

// Validates every document in one python3 (each start costs a second): per document, its
// schema errors ("" when valid); an absent entry when python did not get to it. `*output`: the
// command and what it printed.
std::map<std::string, std::string> ValidateJson(const std::vector<fs::path>& docs,
                                                std::string* output) {
  const fs::path log = docs.front().string() + ".log";
  std::string command =
      "python3 -c " + Quote(kValidateJson) + " " + Quote(kSourceDir + "/docs/report-schema.json");
  for (const fs::path& doc : docs) command += " " + Quote(doc.string());
  command += " >" + Quote(log.string()) + " 2>&1";
  RunShell(command);
  const std::string text = ReadFile(log);
  *output = command + "\n" + text;
  std::map<std::string, std::string> errors;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t tab = line.find('\t'), tab2 = line.find('\t', tab + 1);
    if (tab == std::string::npos || tab2 == std::string::npos) continue;
    errors[line.substr(0, tab)] =
        line.substr(tab, tab2 - tab) == "\t0" ? "" : line.substr(tab2 + 1);
  }
  return errors;
}

TEST(ReportJson, ValidatesAgainstTheDocumentedSchema) {
  ASSERT_TRUE(HaveCommand("python3")) << "python3 is missing";
  ASSERT_EQ(RunShell("python3 -c 'import jsonschema' >/dev/null 2>&1"), 0)
      << "python3's jsonschema is missing: install Debian's python3-jsonschema (ci/setup.sh does)";
  const TestDir dir;
  // The nasty sample, but for its invalid UTF-8: nlohmann::json refuses to write that.
  Sample nasty = NastySample();
  for (PropertyResult& p : nasty.report.properties) {
    p.message = report_text::SanitizeText(p.message);
  }
  Sample realistic = RealisticSample();
  // A merged report of a campaign run by batches rather than a budget.
  Sample merged = RealisticSample();
  merged.report.merged_shards = {"0/2", "1/2"};
  merged.report.configuration.budget_seconds = 0;
  merged.report.configuration.batches_per_property = 4;
  merged.report.configuration.families = {"task", "kv_store"};
  // A selftest's report, its text made valid UTF-8 as above.
  Sample selftest = SelftestSample();
  for (PlantedBugResult& b : selftest.report.selftest->bugs) {
    b.description = report_text::SanitizeText(b.description);
    b.message = report_text::SanitizeText(b.message);
  }
  const Sample regressions = RegressionSample();
  const std::pair<const char*, const Sample*> samples[] = {{"nasty", &nasty},
                                                           {"realistic", &realistic},
                                                           {"merged", &merged},
                                                           {"selftest", &selftest},
                                                           {"regressions", &regressions}};
  std::vector<fs::path> valid_docs;
  for (const auto& [name, sample] : samples) {
    valid_docs.push_back(dir / (std::string(name) + "-report.json"));
    WriteFile(valid_docs.back(), ReportJson(sample->report, sample->verdicts));
  }

  // The schema is not vacuous: each of these breaks of the format is caught.
  const nlohmann::json valid =
      nlohmann::json::parse(ReportJson(realistic.report, realistic.verdicts));
  ASSERT_TRUE(valid["properties"][11]["passed"] == false);  // eos_rc_powerloss.
  const std::pair<const char*, void (*)(nlohmann::json&)> breaks[] = {
      {"another version", [](nlohmann::json& j) { j["statecheck_report"] = 1; }},
      {"no seed", [](nlohmann::json& j) { j.erase("seed"); }},
      {"a negative seed", [](nlohmann::json& j) { j["seed"] = -1; }},
      {"an unknown field", [](nlohmann::json& j) { j["extra"] = true; }},
      {"no shard", [](nlohmann::json& j) { j["configuration"].erase("shard"); }},
      {"a failure without its details",
       [](nlohmann::json& j) { j["properties"][11].erase("failure"); }},
      {"details of a pass",
       [](nlohmann::json& j) { j["properties"][0]["failure"] = j["properties"][11]["failure"]; }},
      {"a batch's cases as a string",
       [](nlohmann::json& j) { j["properties"][0]["batches"][0]["cases"] = "100"; }},
      {"an unknown verdict", [](nlohmann::json& j) { j["rules"][0]["verdict"] = "maybe"; }},
      {"a rule without evidence", [](nlohmann::json& j) { j["rules"][0].erase("evidence"); }},
      {"a situation's count as a string",
       [](nlohmann::json& j) { j["properties"][0]["evidence"]["W1.x"] = "3"; }},
      {"a negative count", [](nlohmann::json& j) { j["properties"][0]["rule_cases"]["W1"] = -1; }},
      {"a failure without its rule",
       [](nlohmann::json& j) { j["properties"][11]["failure"].erase("rule"); }},
      {"no require_evidence",
       [](nlohmann::json& j) { j["configuration"].erase("require_evidence"); }},
      {"a rule without faults", [](nlohmann::json& j) { j["rules"][0].erase("faults"); }},
      {"a fail point without reachable",
       [](nlohmann::json& j) { j["fail_points"][0].erase("reachable"); }},
      {"a malformed shard name", [](nlohmann::json& j) { j["merged_shards"] = {"first"}; }},
      {"a selftest without its score",
       [](nlohmann::json& j) {
         j["selftest"] = nlohmann::json{{"budget_seconds", 60}};
       }},
      {"a regression corpus without its traces",
       [](nlohmann::json& j) {
         j["regressions"] = nlohmann::json{{"directory", "regressions"}};
       }},
  };
  std::vector<fs::path> broken_docs;
  for (const auto& [what, change] : breaks) {
    nlohmann::json broken = valid;
    change(broken);
    broken_docs.push_back(dir / ("broken-" + std::to_string(broken_docs.size()) + ".json"));
    WriteFile(broken_docs.back(), broken.dump(2));
  }
  std::vector<fs::path> docs = valid_docs;
  docs.insert(docs.end(), broken_docs.begin(), broken_docs.end());
  std::string output;
  const std::map<std::string, std::string> errors = ValidateJson(docs, &output);
  for (size_t i = 0; i < valid_docs.size(); ++i) {
    auto it = errors.find(valid_docs[i].string());
    ASSERT_NE(it, errors.end()) << samples[i].first << " was not validated: " << output;
    EXPECT_EQ(it->second, "") << samples[i].first;
  }
  for (size_t i = 0; i < broken_docs.size(); ++i) {
    auto it = errors.find(broken_docs[i].string());
    ASSERT_NE(it, errors.end()) << breaks[i].first << " was not validated: " << output;
    EXPECT_NE(it->second, "") << breaks[i].first << " passed the schema";
  }
}

}  // namespace
}  // namespace statecheck::reports::writers_test
