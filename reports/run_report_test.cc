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
  if (!passed) {
    p.message = "boom";
    p.trace_path = "dir/t.jsonl";
    p.reproduce = "REPRO";
    p.counterexample = {"{\"op\":\"put\"}"};
    p.replay_commands = {"statecheck replay dir/t.jsonl", "statecheck run --reproduce 'REPRO'"};
  }
  return p;
}

TEST(RunReport, VerdictsFollowTheFamiliesThatRan) {
  Rule checked{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}};
  Rule other{"X2", "X", "b", "Checked by family g.", {"S.U"}, {"g"}};
  Rule tests_only{"X3", "X", "c", "Checked by a unit test.", {"S.V"}, {}};
  Rule unchecked{"X4", "X", "d", "Not checked yet.", {}, {}};
  RunReport report;
  report.properties.push_back(Property("f/one", "f", true, 10, 100));
  report.properties.push_back(Property("f/two", "f", false, 3, 30));
  PropertyResult idle = Property("g/one", "g", true, 0, 0);
  idle.batches.clear();  // In another shard: no batch of it ran here.
  report.properties.push_back(idle);
  const auto v = RuleVerdicts({&checked, &other, &tests_only, &unchecked}, report);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].verdict, "fail");
  EXPECT_EQ(v[0].cases, 13);
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
  Rule rule{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}};
  const RunReport report = Sample(1, 2);
  const auto verdicts = RuleVerdicts({&rule}, report);
  const std::string text = ReportJson(report, verdicts);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["statecheck_report"], kReportVersion);
  EXPECT_EQ(j["configuration"]["shard"]["index"], 1);
  EXPECT_EQ(j["rules"][0]["verdict"], "fail");
  EXPECT_EQ(j["rules"][0]["faults"]["io_errors"], 4);
  EXPECT_EQ(j["properties"][1]["failure"]["replay_commands"][0], "statecheck replay dir/t.jsonl");
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
}

// A selftest's report: the mutation score (one bug caught, one not) round-trips through
// report.json, and is never merged as a shard.
TEST(RunReport, SelftestSectionRoundTripsAndIsNotMerged) {
  Rule rule{"X1", "X", "a", "Checked by family f.", {"S.T"}, {"f"}};
  RunReport report = Sample(0, 1);
  SelftestSection& t = report.selftest.emplace();
  t.budget_seconds = 60;
  t.scope = "rules";
  PlantedBugResult caught{
      "area/caught", "X1",   "does x", "KAFKA-1",   "engine/a.cc", true,         1.5,   40, 900,
      "f/two",       {"X1"}, 4,        "X1: wrong", {"replay it"}, "out/bugs/a", {"X1"}};
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
                          {}};
  t.bugs = {caught, missed};
  EXPECT_EQ(t.Caught(), 1);
  EXPECT_EQ(t.Score(), 50);
  const std::string text = ReportJson(report, RuleVerdicts({&rule}, report));
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["selftest"]["mutation_score"], 50.0);
  EXPECT_EQ(j["selftest"]["bugs"][0]["counterexample_steps"], 4);
  EXPECT_EQ(j["selftest"]["bugs"][0]["cited_rules"][0], "X1");
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

TEST(RunReport, MergeSumsTheShardsAndKeepsTheFailure) {
  RunReport merged;
  ASSERT_TRUE(MergeReports({Sample(1, 2), Sample(0, 2)}, &merged).ok());
  EXPECT_EQ(merged.merged_shards, (std::vector<std::string>{"0/2", "1/2"}));
  EXPECT_EQ(merged.configuration.shard_count, 1);
  ASSERT_EQ(merged.properties.size(), 2u);
  EXPECT_EQ(merged.properties[0].cases, 20);
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
