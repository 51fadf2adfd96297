// The report model: verdicts, the JSON form both ways, and merging shards.
#include "reports/run_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace statecheck::reports {
namespace {

PropertyResult Property(std::string id, std::string family, bool passed, int64_t cases,
                        int64_t operations, uint64_t batch = 0) {
  PropertyResult p;
  p.id = std::move(id);
  p.family = std::move(family);
  p.config = "defaults";
  p.passed = passed;
  p.cases = cases;
  p.operations = operations;
  p.seconds = 1;
  p.no_fault_cases = cases / 2;
  p.faults = {1, 0, 2, 3};
  p.batches.push_back({batch, 1000 + batch, cases, operations, 1.0, passed});
  p.evidence = {{"X1.edge", cases / 2}, {"X1.middle", cases}};
  p.rule_cases = {{"X1", cases}};
  if (!passed) {
    p.message = "boom";
    p.trace_path = "dir/t.jsonl";
    p.reproduce = "REPRO";
    p.counterexample = {"{\"op\":\"put\"}"};
    p.replay_commands = {"statecheck replay dir/t.jsonl", "statecheck run --reproduce 'REPRO'"};
  }
  return p;
}

// Two situations of X1, declared.
std::vector<Situation> X1Situations() {
  return {{"X1.edge", "a case at the edge"}, {"X1.middle", "a case in the middle"}};
}

TEST(RunReport, AFailureIsCreditedToTheRuleOfItsCheck) {
  Rule x1{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}, X1Situations()};
  Rule x2{"X2", "X", "b", "Checked by family f too.", {"S.U"}, {"f"}, {}};
  Rule y1{"Y1", "Y", "c", "Checked by family g.", {"S.V"}, {"g"}, {}};
  RunReport report;
  report.properties.push_back(Property("f/one", "f", true, 10, 100));
  report.properties.push_back(Property("f/two", "f", false, 3, 30));
  report.properties.push_back(Property("g/one", "g", true, 4, 40));
  report.properties[1].failing_rule = "X2";
  auto v = RuleVerdicts({&x1, &x2, &y1}, report);
  EXPECT_EQ(v[0].verdict, "pass");  // Its checks held in f/two's cases too; all situations met.
  EXPECT_EQ(v[1].verdict, "fail");
  EXPECT_FALSE(v[1].unattributed);
  EXPECT_EQ(v[1].failing_properties, std::vector<std::string>{"f/two"});
  EXPECT_EQ(v[2].verdict, "pass");
  // A check in another family's property enforces Y1: Y1 fails, its family's property passed.
  report.properties[1].failing_rule = "Y1";
  v = RuleVerdicts({&x1, &x2, &y1}, report);
  EXPECT_EQ(v[1].verdict, "pass");
  EXPECT_EQ(v[2].verdict, "fail");
  EXPECT_EQ(v[2].failing_properties, std::vector<std::string>{"f/two"});
  EXPECT_TRUE(VerdictsFail(v, false));
}

TEST(RunReport, APassNeedsEverySituationTheRuleDeclares) {
  Rule x1{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}, X1Situations()};
  x1.situations.push_back({"X1.rare", "a case nobody generates"});
  RunReport report;
  report.properties.push_back(Property("f/one", "f", true, 10, 100));
  report.properties.push_back(Property("f/two", "f", true, 4, 40));
  auto v = RuleVerdicts({&x1}, report);
  EXPECT_EQ(v[0].verdict, "not exercised");
  EXPECT_EQ(v[0].evidence, (std::vector<std::pair<std::string, int64_t>>{
                               {"X1.edge", 7}, {"X1.middle", 14}, {"X1.rare", 0}}));
  EXPECT_EQ(v[0].MissingSituations(), std::vector<std::string>{"X1.rare"});
  EXPECT_EQ(v[0].EvidenceFraction(), "2/3");
  EXPECT_FALSE(VerdictsFail(v, false));
  EXPECT_TRUE(VerdictsFail(v, true));
  report.properties[1].evidence["X1.rare"] = 1;
  v = RuleVerdicts({&x1}, report);
  EXPECT_EQ(v[0].verdict, "pass");
  EXPECT_EQ(v[0].EvidenceFraction(), "3/3");
  EXPECT_FALSE(VerdictsFail(v, true));
}

TEST(RunReport, VerdictsFollowTheFamiliesThatRan) {
  Rule checked{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}, {}};
  Rule other{"X2", "X", "b", "Checked by family g.", {"S.U"}, {"g"}, {}};
  Rule tests_only{"X3", "X", "c", "Checked by a unit test.", {"S.V"}, {}, {}};
  Rule unchecked{"X4", "X", "d", "Not checked yet.", {}, {}, {}};
  RunReport report;
  report.properties.push_back(Property("f/one", "f", true, 10, 100));
  report.properties.push_back(Property("f/two", "f", false, 3, 30));
  PropertyResult idle = Property("g/one", "g", true, 0, 0);
  idle.batches.clear();  // In another shard: no batch of it ran here.
  report.properties.push_back(idle);
  const auto v = RuleVerdicts({&checked, &other, &tests_only, &unchecked}, report);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].verdict, "fail");  // f/two failed with no check to credit: unattributed.
  EXPECT_TRUE(v[0].unattributed);
  EXPECT_EQ(v[0].cases, 13);  // The cases that reached X1's situations.
  EXPECT_EQ(v[0].operations, 130);
  EXPECT_EQ(v[0].faults, (FaultCounts{2, 0, 4, 6}));
  EXPECT_EQ(v[0].no_fault_cases, 6);
  EXPECT_EQ(v[0].properties, (std::vector<std::string>{"f/one", "f/two"}));
  EXPECT_EQ(v[0].failing_properties, std::vector<std::string>{"f/two"});
  EXPECT_EQ(v[1].verdict, "not run");
  EXPECT_EQ(v[2].verdict, "tests only");
  EXPECT_EQ(v[3].verdict, "not checked");

  report.properties.erase(report.properties.begin() + 1);
  EXPECT_EQ(RuleVerdicts({&checked}, report)[0].verdict, "pass");
}

RunReport Sample(int shard, int count) {
  RunReport report;
  report.seed = 42;
  report.commit = "abc";
  report.started_at = "2026-11-30T12:00:0" + std::to_string(shard) + "Z";
  report.command = "statecheck run --seed 42 --shard " + std::to_string(shard) + "/2";
  report.elapsed_seconds = 2.5 + shard;
  report.configuration.budget_seconds = 3;
  report.configuration.cases_per_batch = 40;
  report.configuration.max_size = 80;
  report.configuration.shard_index = shard;
  report.configuration.shard_count = count;
  report.properties.push_back(Property("f/one", "f", true, 10, 100, shard));
  report.properties.push_back(Property("f/two", "f", shard == 0, 3, 30, 2 + shard));
  report.fail_points.push_back({"statecheck/fs/sync/wal", 10, 1, true});
  report.fail_points.push_back({"statecheck/fs/pwrite/wal", 0, 0, false});
  report.progress = {{0, 0, 0, 0}, {1.0, 5, 50, 0}, {2.5 + shard, 13, 130, shard}};
  return report;
}

TEST(RunReport, JsonRoundTrips) {
  Rule rule{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}, X1Situations()};
  RunReport report = Sample(1, 2);
  report.configuration.require_evidence = true;
  const auto verdicts = RuleVerdicts({&rule}, report);
  const std::string text = ReportJson(report, verdicts);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["statecheck_report"], kReportVersion);
  EXPECT_EQ(j["configuration"]["shard"]["index"], 1);
  EXPECT_EQ(j["rules"][0]["verdict"], "fail");
  EXPECT_EQ(j["rules"][0]["faults"]["io_errors"], 4);
  EXPECT_EQ(j["properties"][1]["failure"]["replay_commands"][0], "statecheck replay dir/t.jsonl");
  EXPECT_EQ(j["properties"][1]["failure"]["rule"], "");
  EXPECT_EQ(j["properties"][0]["evidence"]["X1.middle"], 10);
  EXPECT_EQ(j["rules"][0]["evidence"]["X1.edge"], 6);
  EXPECT_EQ(j["rules"][0]["missing_situations"], nlohmann::json::array());
  EXPECT_EQ(j["configuration"]["require_evidence"], true);
  RunReport back;
  ASSERT_TRUE(ReadReportJson(text, &back).ok());
  EXPECT_EQ(ReportJson(back, RuleVerdicts({&rule}, back)), text);

  RunReport bad;
  EXPECT_NE(ReadReportJson("{\"statecheck_report\":1}", &bad).message().find("version 1"),
            std::string::npos);
  EXPECT_NE(ReadReportJson("[]", &bad).message().find("not a JSON object"), std::string::npos);
  auto broken = nlohmann::json::parse(text);
  broken["properties"][0].erase("cases");
  EXPECT_NE(ReadReportJson(broken.dump(), &bad).message().find("property f/one has no \"cases\""),
            std::string::npos);
  broken = nlohmann::json::parse(text);
  broken["properties"][0]["evidence"]["X1.edge"] = -1;
  EXPECT_NE(ReadReportJson(broken.dump(), &bad).message().find("\"X1.edge\" is negative"),
            std::string::npos);
  broken["properties"][0]["evidence"]["X1.edge"] = "2";
  EXPECT_NE(ReadReportJson(broken.dump(), &bad).message().find("wrong type"), std::string::npos);
  broken = nlohmann::json::parse(text);
  broken["properties"][1]["failure"].erase("rule");
  EXPECT_NE(ReadReportJson(broken.dump(), &bad).message().find("has no \"rule\""),
            std::string::npos);
}

// A selftest's report: the mutation score (one bug caught, one not) round-trips through
// report.json, and is never merged as a shard.
TEST(RunReport, SelftestSectionRoundTripsAndIsNotMerged) {
  Rule rule{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}, {}};
  RunReport report = Sample(0, 1);
  SelftestSection& t = report.selftest.emplace();
  t.budget_seconds = 60;
  t.scope = "rules";
  PlantedBugResult caught{
      "area/caught", "X1",   "does x", "KAFKA-1",   "engine/a.cc", true,         1.5,    40, 900,
      "f/two",       {"X1"}, 4,        "X1: wrong", {"replay it"}, "out/bugs/a", {"X1"}, ""};
  PlantedBugResult missed{"area/missed",
                          "X1",
                          "does y",
                          "KAFKA-2",
                          "engine/b.cc",
                          false,
                          60,
                          5000,
                          90000,
                          "",
                          {},
                          0,
                          "",
                          {},
                          "out/bugs/b",
                          {},
                          ""};
  t.bugs = {caught, missed};
  EXPECT_EQ(t.Caught(), 1);
  EXPECT_EQ(t.Score(), 50);
  EXPECT_TRUE(caught.CitesExpectedRule());
  EXPECT_FALSE(missed.CitesExpectedRule());
  EXPECT_EQ(t.CitingExpected(), 1);
  PlantedBugResult elsewhere = caught;
  elsewhere.rules = "X2, X3";
  EXPECT_EQ(elsewhere.ExpectedRules(), (std::vector<std::string>{"X2", "X3"}));
  EXPECT_FALSE(elsewhere.CitesExpectedRule());
  const std::string text = ReportJson(report, RuleVerdicts({&rule}, report));
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["selftest"]["mutation_score"], 50.0);
  EXPECT_EQ(j["selftest"]["bugs"][0]["counterexample_steps"], 4);
  EXPECT_EQ(j["selftest"]["bugs"][0]["cited_rules"][0], "X1");
  EXPECT_EQ(j["selftest"]["bugs"][0]["cites_expected_rule"], true);
  EXPECT_EQ(j["selftest"]["citing_expected_rule"], 1);
  RunReport back;
  ASSERT_TRUE(ReadReportJson(text, &back).ok());
  ASSERT_TRUE(back.selftest.has_value());
  EXPECT_EQ(ReportJson(back, RuleVerdicts({&rule}, back)), text);
  // A campaign's report has no selftest section and reads back without one.
  ASSERT_TRUE(ReadReportJson(ReportJson(Sample(0, 1), {}), &back).ok());
  EXPECT_FALSE(back.selftest.has_value());

  auto broken = nlohmann::json::parse(text);
  broken["selftest"]["bugs"][1].erase("caught");
  EXPECT_NE(ReadReportJson(broken.dump(), &back).message().find("planted bug area/missed has no"),
            std::string::npos);
  RunReport merged;
  EXPECT_NE(MergeReports({report}, &merged).message().find("is a selftest's report"),
            std::string::npos);
}

// A regression corpus: its traces fail the rule their check cites (or their family's rules,
// unattributed), round-trip through report.json, and a merge keeps shard 0's.
TEST(RunReport, RegressionTracesFailTheirRuleAndRoundTrip) {
  Rule x1{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}, X1Situations()};
  Rule x2{"X2", "X", "b", "Checked by family f too.", {"S.U"}, {"f"}, {}};
  Rule y1{"Y1", "Y", "c", "Checked by family g.", {"S.V"}, {"g"}, {}};
  RunReport report = Sample(0, 2);
  RegressionSection& corpus = report.regressions.emplace();
  corpus.directory = "regressions";
  corpus.traces.push_back(Property("regressions/ok.jsonl", "f", true, 1, 6));
  corpus.traces.push_back(Property("regressions/cites.jsonl", "f", false, 1, 3));
  corpus.traces[1].failing_rule = "X2";
  EXPECT_EQ(corpus.Diverged(), 1);
  auto v = RuleVerdicts({&x1, &x2, &y1}, report);
  EXPECT_EQ(v[1].verdict, "fail");
  EXPECT_EQ(v[1].failing_properties, std::vector<std::string>{"regressions/cites.jsonl"});
  EXPECT_FALSE(v[1].unattributed);
  EXPECT_NE(v[0].verdict, "fail");
  EXPECT_NE(v[2].verdict, "fail");
  // A trace whose check cites no rule fails its family's rules, unattributed.
  report.regressions->traces.push_back(Property("regressions/none.jsonl", "g", false, 1, 2));
  v = RuleVerdicts({&x1, &x2, &y1}, report);
  EXPECT_EQ(v[2].verdict, "fail");
  EXPECT_TRUE(v[2].unattributed);
  const std::vector<PropertyResult> failed = FailedResults(report);
  ASSERT_GE(failed.size(), 2u);
  EXPECT_EQ(failed[failed.size() - 2].id, "regressions/cites.jsonl");

  const std::string text = ReportJson(report, v);
  RunReport back;
  ASSERT_TRUE(ReadReportJson(text, &back).ok());
  ASSERT_TRUE(back.regressions.has_value());
  EXPECT_EQ(back.regressions->directory, "regressions");
  EXPECT_EQ(ReportJson(back, RuleVerdicts({&x1, &x2, &y1}, back)), text);
  ASSERT_TRUE(ReadReportJson(ReportJson(Sample(0, 1), {}), &back).ok());
  EXPECT_FALSE(back.regressions.has_value());

  RunReport merged;
  ASSERT_TRUE(MergeReports({Sample(1, 2), report}, &merged).ok());
  ASSERT_TRUE(merged.regressions.has_value());
  EXPECT_EQ(merged.regressions->traces.size(), 3u);
}

TEST(RunReport, MergeSumsTheShardsAndKeepsTheFailure) {
  RunReport merged;
  ASSERT_TRUE(MergeReports({Sample(1, 2), Sample(0, 2)}, &merged).ok());
  EXPECT_EQ(merged.merged_shards, (std::vector<std::string>{"0/2", "1/2"}));
  EXPECT_EQ(merged.configuration.shard_count, 1);
  ASSERT_EQ(merged.properties.size(), 2u);
  EXPECT_EQ(merged.properties[0].cases, 20);
  EXPECT_EQ(merged.properties[0].evidence.at("X1.edge"), 10);  // Situation counts add up.
  EXPECT_EQ(merged.properties[0].rule_cases.at("X1"), 20);
  EXPECT_EQ(merged.properties[0].batches.size(), 2u);
  EXPECT_EQ(merged.properties[0].batches[0].number, 0u);  // By batch number.
  EXPECT_FALSE(merged.properties[1].passed);
  EXPECT_EQ(merged.properties[1].replay_commands.size(), 2u);
  EXPECT_EQ(merged.properties[1].faults, (FaultCounts{2, 0, 4, 6}));
  EXPECT_EQ(merged.fail_points[0].reached, 20u);
  EXPECT_EQ(merged.fail_points[0].fired, 2u);
  EXPECT_EQ(merged.elapsed_seconds, 3.5);
  EXPECT_EQ(merged.started_at, "2026-11-30T12:00:00Z");
  ASSERT_FALSE(merged.progress.empty());
  EXPECT_EQ(merged.progress.back().operations, 260);  // Both shards' last samples.
  EXPECT_EQ(merged.progress.back().findings, 1);
  RunReport strict = Sample(1, 2);
  strict.configuration.require_evidence = true;
  EXPECT_NE(MergeReports({Sample(0, 2), strict}, &merged).message().find("another configuration"),
            std::string::npos);

  RunReport other = Sample(1, 2);
  other.seed = 43;
  EXPECT_NE(MergeReports({Sample(0, 2), other}, &merged).message().find("has seed 43"),
            std::string::npos);
  EXPECT_NE(MergeReports({Sample(0, 2)}, &merged).message().find("shard 1/2 is missing"),
            std::string::npos);
  EXPECT_NE(MergeReports({Sample(0, 2), Sample(0, 2)}, &merged).message().find("given twice"),
            std::string::npos);
  EXPECT_NE(MergeReports({}, &merged).message().find("no shard reports"), std::string::npos);
}

}  // namespace
}  // namespace statecheck::reports
