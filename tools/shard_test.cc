// ParseShard (tools/shard.h): regressions of what config_fuzz found; ResolveShard: the flag and
// each CI convention.
#include "tools/shard.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace statecheck::tools {
namespace {

TEST(ParseShard, ReadsIOfN) {
  int i = -1, n = -1;
  ASSERT_TRUE(ParseShard("2/5", &i, &n).ok());
  EXPECT_EQ(i, 2);
  EXPECT_EQ(n, 5);
}

// Regression (config_fuzz): sscanf's %d took spaces and signs (" 1/2", "+0/1", "1/ 2"), read
// past an embedded NUL ("0/1\0x" was 0/1), and overflowed (undefined) on "1/99999999999".
TEST(ParseShard, TakesPlainDigitsOnlyAndLeavesTheOutputOnError) {
  const std::vector<std::string> texts = {" 1/2",
                                          "+0/1",
                                          "1/ 2",
                                          "1/2 ",
                                          std::string("0/1\0x", 5),
                                          "1/99999999999",
                                          "99999999999/1",
                                          "2/2",
                                          "0/0",
                                          "-1/2",
                                          "1",
                                          ""};
  for (const std::string& text : texts) {
    int i = -7, n = -7;
    const Status s = ParseShard(text, &i, &n);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << text;
    EXPECT_NE(s.message().find("--shard takes i/n with 0 <= i < n"), std::string::npos) << s;
    EXPECT_EQ(i, -7) << text;
    EXPECT_EQ(n, -7) << text;
  }
}

// An environment of exactly these variables.
Environment Env(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

ShardChoice Resolved(const std::string& flag, std::map<std::string, std::string> vars) {
  ShardChoice c;
  const Status s = ResolveShard(flag, Env(std::move(vars)), &c);
  EXPECT_TRUE(s.ok()) << s;
  return c;
}

Status Refused(std::map<std::string, std::string> vars, ShardChoice* c) {
  return ResolveShard("", Env(std::move(vars)), c);
}

TEST(ResolveShard, NothingSetIsTheWholeCampaign) {
  const ShardChoice c = Resolved("", {});
  EXPECT_EQ(c.index, 0);
  EXPECT_EQ(c.count, 1);
  EXPECT_EQ(c.source, "");
  // GitLab sets CI_NODE_TOTAL=1 on every job that is not parallel.
  EXPECT_EQ(Resolved("", {{"CI_NODE_TOTAL", "1"}}).source, "");
}

TEST(ResolveShard, EachConventionNamesItsShard) {
  struct Case {
    std::map<std::string, std::string> vars;
    int index, count;
    std::string source;
  };
  const std::vector<Case> cases = {
      {{{"STATECHECK_SHARD", "2/5"}}, 2, 5, "STATECHECK_SHARD=2/5"},
      // GitLab counts its jobs from 1.
      {{{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "3"}},
       0,
       3,
       "CI_NODE_INDEX=1 CI_NODE_TOTAL=3 (GitLab CI)"},
      {{{"CI_NODE_INDEX", "3"}, {"CI_NODE_TOTAL", "3"}},
       2,
       3,
       "CI_NODE_INDEX=3 CI_NODE_TOTAL=3 (GitLab CI)"},
      {{{"BUILDKITE_PARALLEL_JOB", "0"}, {"BUILDKITE_PARALLEL_JOB_COUNT", "4"}},
       0,
       4,
       "BUILDKITE_PARALLEL_JOB=0 BUILDKITE_PARALLEL_JOB_COUNT=4 (Buildkite)"},
      {{{"JOB_COMPLETION_INDEX", "6"}, {"STATECHECK_SHARD_COUNT", "8"}},
       6,
       8,
       "JOB_COMPLETION_INDEX=6 STATECHECK_SHARD_COUNT=8 (a Kubernetes Indexed Job)"},
      {{{"GTEST_SHARD_INDEX", "1"}, {"GTEST_TOTAL_SHARDS", "2"}},
       1,
       2,
       "GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=2 (GoogleTest)"},
  };
  for (const Case& k : cases) {
    const ShardChoice c = Resolved("", k.vars);
    EXPECT_EQ(c.index, k.index) << k.source;
    EXPECT_EQ(c.count, k.count) << k.source;
    EXPECT_EQ(c.source, k.source);
  }
}

TEST(ResolveShard, TheFlagWins) {
  const ShardChoice c = Resolved("1/2", {{"STATECHECK_SHARD", "0/7"},
                                         {"CI_NODE_INDEX", "9"},  // Not even a shard: unread.
                                         {"CI_NODE_TOTAL", "3"}});
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.count, 2);
  EXPECT_EQ(c.source, "--shard");
  ShardChoice unchanged;
  const Status bad = ResolveShard("3/2", Env({}), &unchanged);
  EXPECT_NE(bad.message().find("--shard takes i/n"), std::string::npos) << bad;
  EXPECT_EQ(unchanged.count, 1);
}

TEST(ResolveShard, SourcesThatAgreeAreOneShard) {
  const ShardChoice c =
      Resolved("", {{"STATECHECK_SHARD", "1/4"}, {"CI_NODE_INDEX", "2"}, {"CI_NODE_TOTAL", "4"}});
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.count, 4);
  EXPECT_EQ(c.source, "STATECHECK_SHARD=1/4, CI_NODE_INDEX=2 CI_NODE_TOTAL=4 (GitLab CI)");
}

TEST(ResolveShard, SourcesThatDisagreeAreAnErrorNamingBoth) {
  ShardChoice c;
  c.index = 5;
  const Status s = Refused(
      {{"STATECHECK_SHARD", "1/4"}, {"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "4"}}, &c);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "two shards are named: STATECHECK_SHARD=1/4 says shard 1/4, GTEST_SHARD_INDEX=0 "
            "GTEST_TOTAL_SHARDS=4 (GoogleTest) says 0/4; unset one, or pass --shard i/n, which "
            "wins");
  EXPECT_EQ(c.index, 5);
}

TEST(ResolveShard, AHalfSetOrMalformedConventionIsAnErrorNamingIt) {
  ShardChoice c;
  EXPECT_EQ(Refused({{"JOB_COMPLETION_INDEX", "2"}}, &c).message(),
            "JOB_COMPLETION_INDEX=2 (a Kubernetes Indexed Job) names a shard without its "
            "STATECHECK_SHARD_COUNT: set both, or neither (or pass --shard i/n, which wins)");
  EXPECT_EQ(Refused({{"BUILDKITE_PARALLEL_JOB_COUNT", "3"}}, &c).message(),
            "BUILDKITE_PARALLEL_JOB_COUNT=3 (Buildkite) names a shard without its "
            "BUILDKITE_PARALLEL_JOB: set both, or neither (or pass --shard i/n, which wins)");
  EXPECT_EQ(Refused({{"CI_NODE_INDEX", "0"}, {"CI_NODE_TOTAL", "3"}}, &c).message(),
            "CI_NODE_INDEX=0 CI_NODE_TOTAL=3 (GitLab CI) is not a shard: CI_NODE_INDEX counts "
            "from 1 to CI_NODE_TOTAL, both whole numbers");
  EXPECT_EQ(Refused({{"GTEST_SHARD_INDEX", "2"}, {"GTEST_TOTAL_SHARDS", "2"}}, &c).message(),
            "GTEST_SHARD_INDEX=2 GTEST_TOTAL_SHARDS=2 (GoogleTest) is not a shard: "
            "GTEST_SHARD_INDEX counts from 0 to GTEST_TOTAL_SHARDS - 1, both whole numbers");
  EXPECT_EQ(Refused({{"GTEST_SHARD_INDEX", "x"}, {"GTEST_TOTAL_SHARDS", "2"}}, &c).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(Refused({{"STATECHECK_SHARD", "4/4"}}, &c).message(),
            "STATECHECK_SHARD=4/4 is not a shard: it takes i/n with 0 <= i < n");
}

}  // namespace
}  // namespace statecheck::tools
