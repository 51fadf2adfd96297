// `--shard i/n`: which slice of a campaign's batches a run covers — from the flag or from the
// environment a CI system gives each of its parallel jobs —, and `--batch PROPERTY:K`: the one
// batch a run repeats (tools/campaign.h).
#ifndef STATECHECK_TOOLS_SHARD_H_
#define STATECHECK_TOOLS_SHARD_H_

#include <cstdint>
#include <functional>
#include <string>

#include "statecheck/status.h"

namespace statecheck::tools {

// "i/n" → index and count: two decimal numbers (digits only, no sign or spaces, each fitting in
// an int) with 0 <= i < n. InvalidArgument naming the text otherwise, `*index` and `*count`
// unchanged.
Status ParseShard(const std::string& text, int* index, int* count);

// The shard a run covers and where it was found.
struct ShardChoice {
  int index = 0;
  int count = 1;
  // "--shard" or the variables it was read from ("CI_NODE_INDEX=2 CI_NODE_TOTAL=4 (GitLab CI)");
  // "" when nothing names a shard (the whole campaign).
  std::string source;
};

// One CI system's pair of variables: the job's index (counted from `base`) and the job count.
struct ShardConvention {
  const char* index;
  const char* count;
  int base;
  const char* system;
};

// The conventions ResolveShard reads besides STATECHECK_SHARD, in the order it reads them.
inline constexpr ShardConvention kShardConventions[] = {
    {"CI_NODE_INDEX", "CI_NODE_TOTAL", 1, "GitLab CI"},
    {"BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0, "Buildkite"},
    {"JOB_COMPLETION_INDEX", "STATECHECK_SHARD_COUNT", 0, "a Kubernetes Indexed Job"},
    {"GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", 0, "GoogleTest"},
};

// An environment: the value of a variable, or nullptr when it is unset (std::getenv in the CLI;
// tests hand their own).
using Environment = std::function<const char*(const char*)>;

// The shard from `flag` (the --shard text; "" = not given), which wins, or else from the
// environment, by any of these conventions:
//   STATECHECK_SHARD=i/n                                    statecheck's own (ci/nightly.sh)
//   CI_NODE_INDEX (1 … n), CI_NODE_TOTAL                    GitLab CI's `parallel:`
//   BUILDKITE_PARALLEL_JOB (0 … n-1), BUILDKITE_PARALLEL_JOB_COUNT   Buildkite's `parallelism`
//   JOB_COMPLETION_INDEX (0 … n-1), STATECHECK_SHARD_COUNT  a Kubernetes Indexed Job (it gives a
//                                                           pod no completion count: set it)
//   GTEST_SHARD_INDEX (0 … n-1), GTEST_TOTAL_SHARDS         GoogleTest's sharding protocol
// A count of 1 with no index (GitLab sets CI_NODE_TOTAL=1 on every job) names no shard.
// InvalidArgument naming the variables when a convention has an index without its count (or a
// count above 1 without its index), a value is not a number or is out of range, or two
// conventions name different shards; `*out` unchanged then.
Status ResolveShard(const std::string& flag, const Environment& env, ShardChoice* out);

// "window_store/MatchesModel/ret10_size3:7" → the property id and the batch number (the digits
// after the last ':'). InvalidArgument naming the text otherwise, outputs unchanged.
Status ParseBatch(const std::string& text, std::string* property, uint64_t* number);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_SHARD_H_
