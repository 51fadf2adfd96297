#include "reports/run_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace statecheck::reports {
namespace {

TEST(RunReport, VerdictsFollowTheFamiliesThatRan) {
  Rule checked{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}};
  Rule other{"X2", "X", "b", "Checked by family g.", {"S.U"}, {"g"}};
  Rule tests_only{"X3", "X", "c", "Checked by a unit test.", {"S.V"}, {}};
  Rule unchecked{"X4", "X", "d", "Not checked yet.", {}, {}};
  RunReport report;
  report.properties.push_back({"f/one", "f", true, 10, 100, 1.0, "", "", "", {}});
  report.properties.push_back({"f/two", "f", false, 3, 30, 1.0, "boom", "t.jsonl", "R", {"op"}});
  const auto v = RuleVerdicts({&checked, &other, &tests_only, &unchecked}, report);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].verdict, "fail");
  EXPECT_EQ(v[0].cases, 13);
  EXPECT_EQ(v[0].operations, 130);
  EXPECT_EQ(v[0].failing_properties, std::vector<std::string>{"f/two"});
  EXPECT_EQ(v[1].verdict, "not run");
  EXPECT_EQ(v[2].verdict, "tests only");
  EXPECT_EQ(v[3].verdict, "not checked");

  report.properties.pop_back();
  EXPECT_EQ(RuleVerdicts({&checked}, report)[0].verdict, "pass");
}

TEST(RunReport, JsonAndMarkdownCarryFindings) {
  Rule rule{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}};
  RunReport report;
  report.seed = 42;
  report.commit = "abc";
  report.elapsed_seconds = 2;
  report.properties.push_back(
      {"f/two", "f", false, 3, 30, 1.0, "boom", "dir/t.jsonl", "REPRO", {"{\"op\":\"put\"}"}});
  const auto verdicts = RuleVerdicts({&rule}, report);
  const auto j = nlohmann::json::parse(ReportJson(report, verdicts));
  EXPECT_EQ(j["statecheck_report"], 1);
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["rules"][0]["verdict"], "fail");
  EXPECT_EQ(j["properties"][0]["trace"], "dir/t.jsonl");
  EXPECT_EQ(j["properties"][0]["reproduce"], "REPRO");
  const std::string md = ReportMarkdown(report, verdicts);
  EXPECT_NE(md.find("statecheck replay dir/t.jsonl"), std::string::npos);
  EXPECT_NE(md.find("statecheck run --reproduce 'REPRO'"), std::string::npos);
  EXPECT_NE(md.find("1 property failed"), std::string::npos);
}

}  // namespace
}  // namespace statecheck::reports
