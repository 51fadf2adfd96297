// The transactional key-value store property over the T1 matrix and RocksDB variants.
#include "properties/kv_store_property.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace statecheck::properties {

void PrintTo(const KvStoreConfig& config, std::ostream* os) { *os << config.label; }

namespace {

class KvStoreProperty : public ::testing::TestWithParam<KvStoreConfig> {};

TEST_P(KvStoreProperty, MatchesModel) {
  PropertyParams p;
  p.seed = 20261130;
  p.max_success = 60;
  p.max_size = 60;
  if (const char* seed = std::getenv("STATECHECK_SEED")) p.seed = std::strtoull(seed, nullptr, 10);
  if (const char* cases = std::getenv("STATECHECK_KV_PROPERTY_CASES")) {
    p.max_success = std::atoi(cases);
  }
  const PropertyOutcome out = CheckKvStoreMatchesModel(EngineKvStoreFactory(), GetParam(), p);
  EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases (seed "
                          << p.seed << "):\n"
                          << out.message << "\nreproduce: statecheck run --reproduce '"
                          << out.reproduce << "'";
  EXPECT_EQ(out.cases, p.max_success);
}

INSTANTIATE_TEST_SUITE_P(Matrix, KvStoreProperty, ::testing::ValuesIn(KvStoreOptionMatrix()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace statecheck::properties
