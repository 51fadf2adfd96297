// The campaign: sharding covers exactly the batches of the unsharded run, and the merge puts the
// shards back together.
#include "tools/campaign.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <tuple>

#include "reports/rule_catalogue.h"
#include "tools/catalogue.h"

namespace statecheck::tools {
namespace {

namespace fs = std::filesystem;

// (property, batch number, seed, cases, operations) of every batch a report ran.
using BatchKey = std::tuple<std::string, uint64_t, uint64_t, int64_t, int64_t>;
std::multiset<BatchKey> Batches(const reports::RunReport& report) {
  std::multiset<BatchKey> out;
  for (const reports::PropertyResult& p : report.properties) {
    for (const reports::BatchResult& b : p.batches) {
      out.insert({p.id, b.number, b.seed, b.cases, b.operations});
    }
  }
  return out;
}

class CampaignTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("statecheck_campaign_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CampaignOptions Options(const std::string& name) const {
    CampaignOptions o;
    o.seed = 7;
    o.batches_per_property = 3;
    o.families = {"window_store", "kv_store"};
    o.cases_per_batch = 4;
    o.max_size = 20;
    o.report_dir = (dir_ / name).string();
    o.command = "statecheck run --batches 3 --seed 7";
    return o;
  }

  fs::path dir_;
};

TEST_F(CampaignTest, ShardsCoverExactlyTheUnshardedRunsBatches) {
  CampaignResult whole;
  ASSERT_TRUE(RunCampaign(Options("whole"), &whole).ok());
  const std::multiset<BatchKey> expected = Batches(whole.report);
  ASSERT_FALSE(expected.empty());

  std::vector<std::string> shard_dirs;
  std::multiset<BatchKey> union_of_shards;
  for (int i = 0; i < 2; ++i) {
    CampaignOptions o = Options("shard" + std::to_string(i));
    o.shard_index = i;
    o.shard_count = 2;
    CampaignResult shard;
    ASSERT_TRUE(RunCampaign(o, &shard).ok());
    EXPECT_FALSE(Batches(shard.report).empty()) << "shard " << i << " ran nothing";
    EXPECT_LT(Batches(shard.report).size(), expected.size()) << "shard " << i << " ran all";
    for (const BatchKey& b : Batches(shard.report)) union_of_shards.insert(b);
    shard_dirs.push_back(o.report_dir);
  }
  EXPECT_EQ(union_of_shards, expected);  // Each batch exactly once, with the same cases.

  CampaignResult merged;
  const Status s = MergeReportFiles(shard_dirs, (dir_ / "merged").string(), &merged);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Batches(merged.report), expected);
  EXPECT_EQ(merged.report.merged_shards, (std::vector<std::string>{"0/2", "1/2"}));
  ASSERT_EQ(merged.verdicts.size(), whole.verdicts.size());
  for (size_t i = 0; i < whole.verdicts.size(); ++i) {
    EXPECT_EQ(merged.verdicts[i].verdict, whole.verdicts[i].verdict) << whole.verdicts[i].rule->id;
    EXPECT_EQ(merged.verdicts[i].cases, whole.verdicts[i].cases) << whole.verdicts[i].rule->id;
    EXPECT_EQ(merged.verdicts[i].operations, whole.verdicts[i].operations)
        << whole.verdicts[i].rule->id;
  }
  for (const char* file : {"report.json", "junit.xml", "summary.md", "report.html"}) {
    EXPECT_TRUE(fs::exists(dir_ / "merged" / file)) << file;
  }

  // A merge of one shard, or of a shard twice, is refused with the reason.
  CampaignResult partial;
  EXPECT_NE(MergeReportFiles({shard_dirs[0]}, (dir_ / "m2").string(), &partial)
                .message()
                .find("shard 1/2 is missing"),
            std::string::npos);
  EXPECT_NE(MergeReportFiles({shard_dirs[0], shard_dirs[0]}, (dir_ / "m3").string(), &partial)
                .message()
                .find("is given twice"),
            std::string::npos);
  EXPECT_NE(
      MergeReportFiles({(dir_ / "whole").string(), shard_dirs[1]}, (dir_ / "m4").string(), &partial)
          .message()
          .find("not shards of one campaign"),
      std::string::npos);
}

// The same batches, with the same results, whether one worker runs them or several: a batch's
// cases depend on its seed alone.
TEST_F(CampaignTest, OneWorkerOrSeveralRunTheSameBatches) {
  CampaignOptions one = Options("jobs1");
  one.jobs = 1;
  CampaignOptions three = Options("jobs3");
  three.jobs = 3;
  CampaignResult a, b;
  ASSERT_TRUE(RunCampaign(one, &a).ok());
  ASSERT_TRUE(RunCampaign(three, &b).ok());
  EXPECT_EQ(a.report.configuration.jobs, 1);
  EXPECT_EQ(b.report.configuration.jobs, 3);
  EXPECT_EQ(b.report.configuration.workers_started, 3);
  ASSERT_FALSE(Batches(a.report).empty());
  EXPECT_EQ(Batches(a.report), Batches(b.report));
  ASSERT_EQ(a.report.properties.size(), b.report.properties.size());
  for (size_t i = 0; i < a.report.properties.size(); ++i) {
    EXPECT_EQ(a.report.properties[i].evidence, b.report.properties[i].evidence)
        << a.report.properties[i].id;
    EXPECT_EQ(a.report.properties[i].faults, b.report.properties[i].faults)
        << a.report.properties[i].id;
  }
  ASSERT_EQ(a.report.fail_points.size(), b.report.fail_points.size());
  for (size_t i = 0; i < a.report.fail_points.size(); ++i) {
    EXPECT_EQ(a.report.fail_points[i].reached, b.report.fail_points[i].reached)
        << a.report.fail_points[i].name;
    EXPECT_EQ(a.report.fail_points[i].fired, b.report.fail_points[i].fired)
        << a.report.fail_points[i].name;
  }
  for (size_t i = 0; i < a.verdicts.size(); ++i) {
    EXPECT_EQ(a.verdicts[i].verdict, b.verdicts[i].verdict) << a.verdicts[i].rule->id;
  }
}

// A worker killed with SIGKILL in the middle of a batch: the batch is a finding of its property,
// naming the batch and its seed, with a command that runs it alone; the run goes on (every other
// batch runs, in a new worker) and writes its report.
TEST_F(CampaignTest, AWorkerKilledMidBatchIsAFindingAndTheRunGoesOn) {
  CampaignOptions o = Options("killed");
  o.families = {"window_store"};
  o.jobs = 2;
  const std::string victim = "window_store/MatchesModel/ret10_size3";
  o.test_kill_worker_property = victim;
  o.test_kill_worker_batch = 1;
  std::ostringstream progress;
  o.progress = &progress;
  CampaignResult r;
  ASSERT_TRUE(RunCampaign(o, &r).ok());
  EXPECT_EQ(r.findings, 1);
  // As it happens, the failure says how to repeat the batch; it has no trace to name.
  EXPECT_NE(progress.str().find("  repeat it: "), std::string::npos) << progress.str();
  EXPECT_EQ(progress.str().find("shrunk to"), std::string::npos) << progress.str();
  EXPECT_TRUE(r.Failed());
  EXPECT_EQ(r.report.configuration.workers_started, 3);  // Two, and the dead one's successor.
  uint64_t seed = 0;
  for (const reports::PropertyResult& p : r.report.properties) {
    if (p.id != victim) {
      EXPECT_TRUE(p.passed) << p.id;
      EXPECT_EQ(p.batches.size(), 3u) << p.id;
      continue;
    }
    EXPECT_FALSE(p.passed);
    EXPECT_EQ(p.failing_rule, "");  // No check failed: unattributed.
    // Batch 0, the one that died, and perhaps batch 2 if the other worker had it already.
    ASSERT_GE(p.batches.size(), 2u);
    for (const reports::BatchResult& b : p.batches) {
      EXPECT_EQ(b.passed, b.number != 1) << b.number;
      if (b.number == 1) seed = b.seed;
    }
    EXPECT_NE(p.message.find("batch 1 (seed " + std::to_string(seed) + ") of " + victim +
                             " died: it was killed by signal 9 (SIGKILL)"),
              std::string::npos)
        << p.message;
    ASSERT_EQ(p.replay_commands.size(), 1u);
    EXPECT_NE(p.replay_commands[0].find("run --seed 7 --batch " + victim + ":1"), std::string::npos)
        << p.replay_commands[0];
  }
  EXPECT_NE(seed, 0u);
  EXPECT_TRUE(fs::exists(fs::path(o.report_dir) / "report.json"));
  bool unattributed = false;
  for (const reports::RuleVerdict& v : r.verdicts) unattributed |= v.unattributed;
  EXPECT_TRUE(unattributed);

  // The batch alone, in this process, is the batch the worker ran.
  CampaignOptions alone = Options("alone");
  alone.batches_per_property = 0;
  alone.only_batch_property = victim;
  alone.only_batch = 1;
  CampaignResult one;
  ASSERT_TRUE(RunCampaign(alone, &one).ok());
  ASSERT_EQ(one.report.properties.size(), 1u);
  ASSERT_EQ(one.report.properties[0].batches.size(), 1u);
  EXPECT_EQ(one.report.properties[0].batches[0].seed, seed);
  EXPECT_TRUE(one.report.properties[0].passed);
  EXPECT_EQ(one.report.configuration.workers_started, 0);
}

// A batch that never ends (its worker sleeps instead of running it): the watchdog kills the
// worker once the batch is past --hang-seconds, the batch is a finding of L1 that says "hang" and
// names its seed, with a command that runs it alone, and the run goes on and writes its report.
TEST_F(CampaignTest, AHungBatchIsKilledByTheWatchdogAndIsAFinding) {
  CampaignOptions o = Options("hung");
  o.families = {"window_store"};
  o.jobs = 2;
  o.hang_seconds = 1;
  const std::string victim = "window_store/MatchesModel/ret10_size3";
  o.test_kill_worker_property = victim;
  o.test_kill_worker_batch = 1;
  o.test_hang_worker = true;
  CampaignResult r;
  ASSERT_TRUE(RunCampaign(o, &r).ok());
  EXPECT_EQ(r.findings, 1);
  EXPECT_TRUE(r.Failed());
  EXPECT_EQ(r.report.configuration.workers_started, 3);  // Two, and the hung one's successor.
  for (const reports::PropertyResult& p : r.report.properties) {
    if (p.id != victim) {
      EXPECT_TRUE(p.passed) << p.id;
      continue;
    }
    EXPECT_FALSE(p.passed);
    EXPECT_EQ(p.failing_rule, "L1");
    uint64_t seed = 0;
    for (const reports::BatchResult& b : p.batches) {
      if (b.number == 1) seed = b.seed;
    }
    ASSERT_NE(seed, 0u);
    EXPECT_NE(
        p.message.find("hang: no case of batch 1 (seed " + std::to_string(seed) + ") of " + victim +
                       " ended within 1 s (--hang-seconds), and its worker was killed by "
                       "the campaign's watchdog (SIGKILL)"),
        std::string::npos)
        << p.message;
    ASSERT_EQ(p.replay_commands.size(), 1u);
    EXPECT_NE(p.replay_commands[0].find("--batch " + victim + ":1"), std::string::npos)
        << p.replay_commands[0];
  }
  EXPECT_TRUE(fs::exists(r.report_dir + "/report.json"));
}

// The bound is on a case, not on a batch: batches that run longer than --hang-seconds while
// their cases keep ending (each worker's heartbeat) are no hang.
TEST_F(CampaignTest, ABatchLongerThanTheBoundWhoseCasesEndIsNoHang) {
  CampaignOptions o = Options("long");
  o.families = {"window_store"};
  o.batches_per_property = 1;
  o.jobs = 2;
  o.hang_seconds = 0.5;  // Twice a worker's heartbeat interval.
  // Batches long enough that one outlives the bound, grown until one does: from 1,500 cases,
  // doubling. (A fixed 12,000 was most of a second a batch in release and made the test take
  // 121 s under ASan, where far fewer cases already outlive the bound.)
  double longest = 0;
  for (o.cases_per_batch = 1500; longest <= o.hang_seconds && o.cases_per_batch <= 48000;
       o.cases_per_batch *= 2) {
    CampaignResult r;
    ASSERT_TRUE(RunCampaign(o, &r).ok());
    EXPECT_EQ(r.findings, 0);
    for (const reports::PropertyResult& p : r.report.properties) {
      EXPECT_TRUE(p.passed) << p.id << ": " << p.message;
      for (const reports::BatchResult& b : p.batches) longest = std::max(longest, b.seconds);
    }
  }
  EXPECT_GT(longest, o.hang_seconds) << "no batch outlived the bound: the test shows nothing";
}

TEST(Campaign, ShardsAndBadInputAreClearErrors) {
  int i = 0, n = 0;
  EXPECT_TRUE(ParseShard("1/3", &i, &n).ok());
  EXPECT_EQ(i, 1);
  EXPECT_EQ(n, 3);
  for (const char* bad : {"3/3", "-1/2", "1", "a/b", "1/0", "0/2x"}) {
    EXPECT_EQ(ParseShard(bad, &i, &n).code(), Status::Code::kInvalidArgument) << bad;
  }
  std::string property;
  uint64_t k = 0;
  ASSERT_TRUE(ParseBatch("windowed/MatchesModel/x:12", &property, &k).ok());
  EXPECT_EQ(property, "windowed/MatchesModel/x");
  EXPECT_EQ(k, 12u);
  for (const char* bad : {"x", ":3", "x:", "x:-1", "x:1a"}) {
    EXPECT_EQ(ParseBatch(bad, &property, &k).code(), Status::Code::kInvalidArgument) << bad;
  }
  std::set<int> seen;
  for (uint64_t k = 0; k < 64; ++k) seen.insert(ShardOf("task/MatchesModel/eos_rc", k, 4));
  EXPECT_EQ(seen, (std::set<int>{0, 1, 2, 3}));
  CampaignOptions o;
  o.families = {"no_such_family"};
  CampaignResult r;
  const Status s = RunCampaign(o, &r);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("no property family \"no_such_family\" (one of"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace statecheck::tools

namespace statecheck::tools {
namespace {

// A family in a folder of its own declares its rules in its code, not in rules.json: the
// campaign's catalogue lists it among their families all the same, and the rules rules.json
// lists no family for stay as they are.
TEST(CampaignCatalogue, AFamilyDeclaringItsRulesInCodeIsAmongTheirFamilies) {
  const reports::RuleCatalogue& builtin = reports::RuleCatalogue::Builtin();
  const reports::RuleCatalogue& merged = Catalogue();
  ASSERT_EQ(merged.rules().size(), builtin.rules().size());
  for (const char* id : {"T3", "T5", "T6", "T7", "T8", "T9"}) {
    const auto& in_json = builtin.Find(id)->property_families;
    const auto& merged_families = merged.Find(id)->property_families;
    EXPECT_EQ(std::count(in_json.begin(), in_json.end(), "in_memory_kv"), 0) << id;
    EXPECT_EQ(std::count(merged_families.begin(), merged_families.end(), "in_memory_kv"), 1) << id;
  }
  EXPECT_EQ(merged.Find("W3")->property_families, builtin.Find("W3")->property_families);
  reports::RuleCatalogue copy = builtin;
  EXPECT_EQ(copy.AddPropertyFamily("T99", "x").code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace statecheck::tools
