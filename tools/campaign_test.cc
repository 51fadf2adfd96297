// The campaign: sharding covers exactly the batches of the unsharded run, and the merge puts the
// shards back together.
#include "tools/campaign.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <tuple>

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

TEST(Campaign, ShardsAndBadInputAreClearErrors) {
  int i = 0, n = 0;
  EXPECT_TRUE(ParseShard("1/3", &i, &n).ok());
  EXPECT_EQ(i, 1);
  EXPECT_EQ(n, 3);
  for (const char* bad : {"3/3", "-1/2", "1", "a/b", "1/0", "0/2x"}) {
    EXPECT_EQ(ParseShard(bad, &i, &n).code(), Status::Code::kInvalidArgument) << bad;
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
