#include "faults/fail_points.h"

#include <fiu.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace statecheck::faults {
namespace {

constexpr char kPoint[] = "statecheck/test/point";

std::vector<bool> Reach(int times) {
  std::vector<bool> fired;
  for (int i = 0; i < times; ++i) fired.push_back(fiu_fail(kPoint) != 0);
  return fired;
}

FailPointCounts CountsOf(const std::string& name) {
  for (const auto& [n, c] : FailPoints::Counts()) {
    if (n == name) return c;
  }
  return {};
}

class FailPointsTest : public ::testing::Test {
 protected:
  void TearDown() override { FailPoints::Reset(); }
};

TEST_F(FailPointsTest, OnceFiresAtTheNthReach) {
  ASSERT_TRUE(FailPoints::Enable(kPoint, {FaultSpec::Mode::kOnce, 3, 0}, 1).ok());
  EXPECT_EQ(Reach(5), (std::vector<bool>{false, false, true, false, false}));
  EXPECT_EQ(CountsOf(kPoint).reached, 5u);
  EXPECT_EQ(CountsOf(kPoint).fired, 1u);
}

TEST_F(FailPointsTest, EveryNthAndNever) {
  ASSERT_TRUE(FailPoints::Enable(kPoint, {FaultSpec::Mode::kEveryNth, 2, 0}, 1).ok());
  EXPECT_EQ(Reach(4), (std::vector<bool>{false, true, false, true}));
  ASSERT_TRUE(FailPoints::Enable(kPoint, {FaultSpec::Mode::kNever, 1, 0}, 1).ok());
  EXPECT_EQ(Reach(3), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(CountsOf(kPoint).reached, 7u);  // Counts survive a new schedule.
  ASSERT_TRUE(FailPoints::Disable(kPoint).ok());
  EXPECT_EQ(Reach(2), (std::vector<bool>{false, false}));
  EXPECT_EQ(CountsOf(kPoint).reached, 7u);  // Disabled points are not evaluated.
  EXPECT_EQ(FailPoints::Disable(kPoint).code(), Status::Code::kNotFound);
}

TEST_F(FailPointsTest, ProbabilityIsDeterministicPerSeed) {
  auto run = [](uint64_t seed) {
    FailPoints::Reset();
    EXPECT_TRUE(FailPoints::Enable(kPoint, {FaultSpec::Mode::kProbability, 1, 0.3}, seed).ok());
    return Reach(200);
  };
  const std::vector<bool> a = run(7), b = run(7), c = run(8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const auto fired = std::count(a.begin(), a.end(), true);
  EXPECT_GT(fired, 30);  // ~60 expected of 200.
  EXPECT_LT(fired, 100);
}

TEST_F(FailPointsTest, BadSpecsAreRejected) {
  EXPECT_EQ(FailPoints::Enable(kPoint, {FaultSpec::Mode::kOnce, 0, 0}, 1).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(FailPoints::Enable(kPoint, {FaultSpec::Mode::kProbability, 1, 1.5}, 1).code(),
            Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace statecheck::faults
