// ReadReportJson on malformed report.json files: regressions of what config_fuzz found.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "reports/run_report.h"

namespace statecheck::reports {
namespace {

using Json = nlohmann::ordered_json;

// A valid report.json (no rules: they are derived again when read).
Json ValidReport() {
  RunReport report;
  report.seed = 7;
  report.commit = "abc";
  PropertyResult p;
  p.id = "task/MatchesModel/eos_rc";
  p.family = "task";
  p.batches.push_back(BatchResult{});
  report.properties.push_back(p);
  report.progress.push_back(ProgressSample{});
  return Json::parse(ReportJson(report, {}));
}

void ExpectError(const Json& j, const std::string& message) {
  RunReport report;
  report.commit = "mine";
  const Status s = ReadReportJson(j.dump(), &report);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(message), std::string::npos) << s;
  EXPECT_EQ(report.commit, "mine") << "an error changed the report";
}

TEST(ReadReportJson, ReadsWhatReportJsonWrites) {
  RunReport report;
  ASSERT_TRUE(ReadReportJson(ValidReport().dump(), &report).ok());
  EXPECT_EQ(report.seed, 7u);
  EXPECT_EQ(report.properties.size(), 1u);
}

// Regression (config_fuzz): a float where an integer belongs was cast (1e300 into the uint64
// seed: undefined behaviour), a boolean or a fraction became a number.
TEST(ReadReportJson, NumbersMustFitTheirField) {
  Json j = ValidReport();
  j["seed"] = 1e300;
  ExpectError(j, "report.json: the report field \"seed\" has the wrong type: 1e+300");
  j = ValidReport();
  j["seed"] = -1;
  ExpectError(j, "field \"seed\" has the wrong type: -1");
  j = ValidReport();
  j["configuration"]["shard"]["count"] = true;
  ExpectError(j, "configuration.shard field \"count\" has the wrong type: true");
  j = ValidReport();
  j["configuration"]["max_size"] = 1.5;
  ExpectError(j, "configuration field \"max_size\" has the wrong type: 1.5");
  j = ValidReport();
  j["configuration"]["max_size"] = 4294967296;
  ExpectError(j, "configuration field \"max_size\" has the wrong type: 4294967296");
}

// Regression (config_fuzz): "properties" objects' "batches", "fail_points" and "progress" that
// were not arrays were iterated anyway (an object's values, a number as itself).
TEST(ReadReportJson, ListsMustBeArrays) {
  Json j = ValidReport();
  j["progress"] = Json{{"a", j["progress"][0]}};
  ExpectError(j, "the report field \"progress\" is not an array");
  j = ValidReport();
  j["properties"][0]["batches"] = 3;
  ExpectError(j, "field \"batches\" is not an array");
}

// Regression (config_fuzz): a report that failed half-way was left half-read in the output.
TEST(ReadReportJson, AnErrorLeavesTheReportUntouched) {
  Json j = ValidReport();
  j.erase("progress");
  ExpectError(j, "the report has no \"progress\"");
}

}  // namespace
}  // namespace statecheck::reports
