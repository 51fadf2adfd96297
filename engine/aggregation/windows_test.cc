#include "statecheck/windows.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace statecheck {
namespace {

// The error of a definition, which must be InvalidArgument with exactly Kafka's text.
void ExpectInvalid(const Status& s, std::string_view text) {
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
  EXPECT_EQ(s.message(), text);
}

TEST(Windows, TimeWindowsValidateAsKafkaDoes) {
  TimeWindows w;
  ExpectInvalid(TimeWindows::OfSizeWithNoGrace(0, &w),
                "Window size (sizeMs) must be larger than zero.");
  ExpectInvalid(TimeWindows::OfSizeAndGrace(-5, 0, &w),
                "Window size (sizeMs) must be larger than zero.");
  ExpectInvalid(TimeWindows::OfSizeAndGrace(10, -1, &w), "Grace period must not be negative.");
  ASSERT_OK(TimeWindows::OfSizeAndGrace(10, 3, &w));
  EXPECT_EQ(w.advance_ms(), 10);  // Tumbling.
  TimeWindows hopping;
  for (int64_t advance : {0, -1, 11}) {
    ExpectInvalid(w.AdvanceBy(advance, &hopping),
                  "Window advancement interval should be more than zero and less than window "
                  "duration which is 10 ms, but given advancement interval is: " +
                      std::to_string(advance) + " ms");
  }
  ASSERT_OK(w.AdvanceBy(4, &hopping));
  EXPECT_EQ(hopping.size_ms(), 10);
  EXPECT_EQ(hopping.advance_ms(), 4);
  EXPECT_EQ(hopping.grace_ms(), 3);
  EXPECT_EQ(w.advance_ms(), 10);  // A value: AdvanceBy made a new definition.
}

TEST(Windows, TimeWindowsForATimestampAreAlignedToTheEpoch) {
  TimeWindows tumbling, hopping;
  ASSERT_OK(TimeWindows::OfSizeWithNoGrace(10, &tumbling));
  EXPECT_EQ(tumbling.WindowsFor(0), (std::vector<Window>{{0, 10}}));
  EXPECT_EQ(tumbling.WindowsFor(9), (std::vector<Window>{{0, 10}}));
  EXPECT_EQ(tumbling.WindowsFor(10), (std::vector<Window>{{10, 20}}));  // [start, end).
  ASSERT_OK(tumbling.AdvanceBy(4, &hopping));
  // Kafka's example shape: size 10, advance 4 → [0,10), [4,14), [8,18) hold 9.
  EXPECT_EQ(hopping.WindowsFor(9), (std::vector<Window>{{0, 10}, {4, 14}, {8, 18}}));
  EXPECT_EQ(hopping.WindowsFor(10), (std::vector<Window>{{4, 14}, {8, 18}}));
  EXPECT_EQ(hopping.WindowsFor(2), (std::vector<Window>{{0, 10}}));  // None before 0.
}

// E1 and E3 at the boundary: exactly end + grace, and one either side.
TEST(Windows, TimeWindowsCloseWhenEndPlusGraceReachesStreamTime) {
  TimeWindows w;
  ASSERT_OK(TimeWindows::OfSizeAndGrace(10, 5, &w));
  const Window window{0, 10};
  EXPECT_TRUE(w.Accepts(window, 14));
  EXPECT_FALSE(w.Closed(window, 14));
  EXPECT_FALSE(w.Accepts(window, 15));  // end > streamTime - grace fails: 10 > 10.
  EXPECT_TRUE(w.Closed(window, 15));    // end + grace <= streamTime: 15 <= 15.
  EXPECT_TRUE(w.Closed(window, 16));
  EXPECT_FALSE(w.Closed({0, kUnlimitedEnd - 1}, std::numeric_limits<int64_t>::max()));
}

TEST(Windows, SlidingWindowsValidateAndCloseAfterEndPlusGrace) {
  SlidingWindows w;
  ExpectInvalid(SlidingWindows::OfTimeDifferenceWithNoGrace(-1, &w),
                "Window time difference must not be negative.");
  ExpectInvalid(SlidingWindows::OfTimeDifferenceAndGrace(5, -1, &w),
                "Window grace period must not be negative.");
  ASSERT_OK(SlidingWindows::OfTimeDifferenceWithNoGrace(0, &w));  // D = 0 is allowed.
  ASSERT_OK(SlidingWindows::OfTimeDifferenceAndGrace(5, 2, &w));
  const Window window{0, 5};          // [start, start + D], inclusive.
  EXPECT_TRUE(w.Accepts(window, 7));  // end >= streamTime - grace: 5 >= 5.
  EXPECT_FALSE(w.Closed(window, 7));
  EXPECT_FALSE(w.Accepts(window, 8));
  EXPECT_TRUE(w.Closed(window, 8));  // end < streamTime - grace: 5 < 6.
}

TEST(Windows, SessionWindowsValidateMergeAndClose) {
  SessionWindows w;
  ExpectInvalid(SessionWindows::OfInactivityGapWithNoGrace(0, &w),
                "Gap time cannot be zero or negative.");
  ExpectInvalid(SessionWindows::OfInactivityGapAndGrace(5, -1, &w),
                "Grace period must not be negative.");
  ASSERT_OK(SessionWindows::OfInactivityGapAndGrace(5, 2, &w));
  const Window session{10, 20};
  EXPECT_TRUE(w.Merges(session, 5));  // 10 - 5.
  EXPECT_FALSE(w.Merges(session, 4));
  EXPECT_TRUE(w.Merges(session, 25));  // 20 + 5.
  EXPECT_FALSE(w.Merges(session, 26));
  EXPECT_TRUE(w.Accepts(session, 27));  // end >= streamTime - grace - gap: 20 >= 20.
  EXPECT_FALSE(w.Closed(session, 27));
  EXPECT_FALSE(w.Accepts(session, 28));
  EXPECT_TRUE(w.Closed(session, 28));  // 20 < 21.
}

// E8.
TEST(Windows, UnlimitedWindowsRejectEmitFinal) {
  UnlimitedWindows w;
  ExpectInvalid(UnlimitedWindows::StartOn(-1, &w),
                "Window start time (startMs) cannot be negative.");
  ASSERT_OK(UnlimitedWindows::StartOn(100, &w));
  EXPECT_TRUE(w.WindowsFor(99).empty());
  EXPECT_EQ(w.WindowsFor(100), (std::vector<Window>{{100, kUnlimitedEnd}}));
  EXPECT_EQ(UnlimitedWindows::Of().WindowsFor(0), (std::vector<Window>{{0, kUnlimitedEnd}}));
  // Both of Kafka's texts: the DSL's and the processor's (KStreamWindowAggregateTest.
  // showThrowIfEmitFinalUsedWithUnlimitedWindow asserts the latter).
  ExpectInvalid(
      UnlimitedWindows::CheckEmitStrategy(EmitStrategy::kOnWindowClose),
      "ON_WINDOW_CLOSE emit strategy cannot be used for UnlimitedWindows: ON_WINDOW_CLOSE "
      "strategy is only supported for TimeWindows and SlidingWindows for "
      "TimeWindowedKStream (emit ON_WINDOW_UPDATE, or use time or sliding windows)");
  ASSERT_OK(UnlimitedWindows::CheckEmitStrategy(EmitStrategy::kOnWindowUpdate));
  EXPECT_EQ(EmitStrategyName(EmitStrategy::kOnWindowClose), "ON_WINDOW_CLOSE");
}

TEST(Windows, RetentionMustCoverTheWindowsAsKafkaRequires) {
  TimeWindows t;
  ASSERT_OK(TimeWindows::OfSizeAndGrace(10, 5, &t));
  ASSERT_OK(t.CheckRetention("agg", 15));
  ExpectInvalid(t.CheckRetention("agg", 14),
                "The retention period of the window store agg must be no smaller than its window "
                "size plus the grace period. Got size=[10], grace=[5], retention=[14]");
  SlidingWindows s;
  ASSERT_OK(SlidingWindows::OfTimeDifferenceAndGrace(10, 5, &s));
  ASSERT_OK(s.CheckRetention("agg", 25));
  ExpectInvalid(s.CheckRetention("agg", 24),
                "The retention period of the window store agg must be no smaller than 2 * time "
                "difference plus the grace period. Got time difference=[10], grace=[5], "
                "retention=[24]");
  SessionWindows g;
  ASSERT_OK(SessionWindows::OfInactivityGapAndGrace(10, 5, &g));
  ASSERT_OK(g.CheckRetention("sessions", 15));
  ExpectInvalid(g.CheckRetention("sessions", 14),
                "The retention period of the session store sessions must be no smaller than the "
                "session inactivity gap plus the grace period. Got gap=[10], grace=[5], "
                "retention=[14]");
}

}  // namespace
}  // namespace statecheck
