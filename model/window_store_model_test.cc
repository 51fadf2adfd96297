// Unit tests of the window store model against hand-computed expectations (SPEC W1–W9).
#include "model/window_store_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "statecheck/logger.h"

namespace statecheck {

// Readable failure messages for the records the tests compare.
void PrintTo(const WindowedRecord& r, std::ostream* os) {
  *os << "{" << testing::PrintToString(r.key) << " [" << r.window.start << ", " << r.window.end
      << ") " << testing::PrintToString(r.value) << "}";
}

namespace model {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Keeps every log line.
class CapturingLogger : public Logger {
 public:
  void Log(LogLevel level, std::string_view message) override {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(level, std::string(message));
  }
  std::vector<std::pair<LogLevel, std::string>> lines() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

WindowStoreOptions Options(int64_t retention, int64_t size, bool duplicates = false,
                           std::shared_ptr<Logger> logger = NullLogger()) {
  WindowStoreOptions o;
  o.name = "s";
  o.retention_ms = retention;
  o.window_size_ms = size;
  o.retain_duplicates = duplicates;
  o.logger = std::move(logger);
  return o;
}

std::unique_ptr<WindowStore> MakeStore(int64_t retention, int64_t size, bool duplicates = false,
                                       std::shared_ptr<Logger> logger = NullLogger()) {
  std::unique_ptr<WindowStore> store;
  const Status s = NewWindowStoreModel(Options(retention, size, duplicates, logger), &store);
  EXPECT_TRUE(s.ok()) << s;
  return store;
}

WindowedRecord Rec(std::string key, int64_t start, int64_t end, std::string value) {
  return WindowedRecord{std::move(key), Window{start, end}, std::move(value)};
}

std::vector<WindowedRecord> Drain(WindowStoreIterator* it) {
  std::vector<WindowedRecord> out;
  while (it->HasNext()) {
    WindowedRecord r;
    EXPECT_TRUE(it->Next(&r).ok());
    out.push_back(r);
  }
  return out;
}

std::vector<WindowedRecord> Reversed(std::vector<WindowedRecord> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

std::optional<std::string> Get(WindowStore* store, std::string_view key, int64_t start) {
  std::optional<std::string> value;
  EXPECT_TRUE(store->Fetch(key, start, &value).ok());
  return value;
}

void Put(WindowStore* store, std::string_view key, std::optional<std::string_view> value,
         int64_t start) {
  EXPECT_TRUE(store->Put(key, value, start).ok());
}

// The range reads, each opened and drained.
std::vector<WindowedRecord> FetchKey(WindowStore* store, std::string_view key, int64_t from,
                                     int64_t to, bool forward = true) {
  std::unique_ptr<WindowStoreIterator> it;
  EXPECT_TRUE(
      (forward ? store->Fetch(key, from, to, &it) : store->BackwardFetch(key, from, to, &it)).ok());
  return it ? Drain(it.get()) : std::vector<WindowedRecord>{};
}

std::vector<WindowedRecord> FetchRange(WindowStore* store, std::optional<std::string_view> key_from,
                                       std::optional<std::string_view> key_to, int64_t from,
                                       int64_t to, bool forward = true) {
  std::unique_ptr<WindowStoreIterator> it;
  EXPECT_TRUE((forward ? store->Fetch(key_from, key_to, from, to, &it)
                       : store->BackwardFetch(key_from, key_to, from, to, &it))
                  .ok());
  return it ? Drain(it.get()) : std::vector<WindowedRecord>{};
}

std::vector<WindowedRecord> FetchAll(WindowStore* store, int64_t from, int64_t to,
                                     bool forward = true) {
  std::unique_ptr<WindowStoreIterator> it;
  EXPECT_TRUE(
      (forward ? store->FetchAll(from, to, &it) : store->BackwardFetchAll(from, to, &it)).ok());
  return it ? Drain(it.get()) : std::vector<WindowedRecord>{};
}

std::vector<WindowedRecord> All(WindowStore* store, bool forward = true) {
  std::unique_ptr<WindowStoreIterator> it;
  EXPECT_TRUE((forward ? store->All(&it) : store->BackwardAll(&it)).ok());
  return it ? Drain(it.get()) : std::vector<WindowedRecord>{};
}

// ---- W1 construction ----------------------------------------------------------------------

TEST(WindowStoreModel, RejectsInvalidOptionsInKafkaOrder) {
  struct Case {
    std::string name;
    int64_t retention;
    int64_t size;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", -1, -1, "name cannot be empty"},
      {"s", -1, -1, "retentionPeriod cannot be negative"},
      {"s", -1, 5, "retentionPeriod cannot be negative"},
      {"s", 5, -1, "windowSize cannot be negative"},
      {"win", 5, 6,
       "The retention period of the window store win must be no smaller than its window size. "
       "Got size=[6], retention=[5]"},
  };
  for (const Case& c : cases) {
    WindowStoreOptions o = Options(c.retention, c.size);
    o.name = c.name;
    std::unique_ptr<WindowStore> store = MakeStore(10, 1);  // Must be emptied by the failure.
    const Status s = NewWindowStoreModel(o, &store);
    EXPECT_EQ(s, Status::InvalidArgument(c.message));
    EXPECT_EQ(store, nullptr);
  }
}

TEST(WindowStoreModel, AcceptsZeroAndEqualSizes) {
  for (auto [retention, size] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {10, 10}, {10, 0}}) {
    std::unique_ptr<WindowStore> store;
    ASSERT_TRUE(NewWindowStoreModel(Options(retention, size, true), &store).ok());
    EXPECT_EQ(store->name(), "s");
    EXPECT_EQ(store->retention_ms(), retention);
    EXPECT_EQ(store->window_size_ms(), size);
    EXPECT_TRUE(store->retain_duplicates());
    EXPECT_TRUE(store->is_open());
    EXPECT_EQ(store->stream_time(), -1);
    EXPECT_EQ(store->metrics(), WindowStoreMetrics{});
  }
}

// ---- W2 stream time -----------------------------------------------------------------------

TEST(WindowStoreModel, StreamTimeIsTheLargestStartEverPut) {
  auto store = MakeStore(10, 0);
  EXPECT_EQ(store->stream_time(), -1);
  Put(store.get(), "a", "v", 5);
  EXPECT_EQ(store->stream_time(), 5);
  Put(store.get(), "a", "v", 3);
  EXPECT_EQ(store->stream_time(), 5);
  Put(store.get(), "a", std::nullopt, 9);  // A delete counts.
  EXPECT_EQ(store->stream_time(), 9);
  Put(store.get(), "a", "v", -100);  // Dropped, and below stream time: no change.
  EXPECT_EQ(store->stream_time(), 9);
  EXPECT_EQ(store->metrics().dropped_records, 1);

  auto zero = MakeStore(0, 0);  // Every put is dropped, yet advances stream time.
  Put(zero.get(), "a", "v", 7);
  EXPECT_EQ(zero->stream_time(), 7);
}

TEST(WindowStoreModel, StreamTimeStartsAtMinusOne) {
  // With stream time -1 and retention 10, the drop bound is -11.
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "v", -11);
  EXPECT_EQ(store->metrics().dropped_records, 1);
  Put(store.get(), "a", "w", -10);
  EXPECT_EQ(store->metrics().dropped_records, 1);
  EXPECT_EQ(store->stream_time(), -1);
  EXPECT_EQ(Get(store.get(), "a", -10), "w");
  EXPECT_EQ(All(store.get()), (std::vector{Rec("a", -10, -10, "w")}));
}

// ---- W3 drop rule -------------------------------------------------------------------------

TEST(WindowStoreModel, DropsExactlyAtStreamTimeMinusRetention) {
  auto logger = std::make_shared<CapturingLogger>();
  auto store = MakeStore(10, 5, false, logger);
  Put(store.get(), "a", "v", 100);  // Stream time 100, bound 90.
  Put(store.get(), "b", "v", 91);   // Kept.
  Put(store.get(), "c", "v", 90);   // Dropped.
  Put(store.get(), "d", "v", 89);   // Dropped.
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{2, 2, 2}));
  EXPECT_EQ(Get(store.get(), "b", 91), "v");
  EXPECT_EQ(Get(store.get(), "c", 90), std::nullopt);
  EXPECT_EQ(Get(store.get(), "d", 89), std::nullopt);
  const auto warn = std::make_pair(LogLevel::kWarn, std::string(kSkippingExpiredRecordMessage));
  EXPECT_EQ(logger->lines(), (std::vector{warn, warn}));
}

TEST(WindowStoreModel, DeleteAtAnExpiredStartIsADroppedPut) {
  auto logger = std::make_shared<CapturingLogger>();
  auto store = MakeStore(10, 0, false, logger);
  Put(store.get(), "a", "v", 20);
  Put(store.get(), "a", "v", 10);
  Put(store.get(), "a", std::nullopt, 10);  // At the bound: dropped, counted and logged.
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{2, 1, 1}));
  EXPECT_EQ(logger->lines().size(), 2u);
  EXPECT_EQ(Get(store.get(), "a", 20), "v");
}

// W3 is judged after the put's own start has advanced stream time: with retention 0 even a put
// ahead of stream time lands on the bound.
TEST(WindowStoreModel, RetentionZeroDropsEveryPut) {
  auto store = MakeStore(0, 0);
  Put(store.get(), "a", "v", 0);
  Put(store.get(), "a", "v", 5);
  Put(store.get(), "a", "v", 3);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{3, 0, 0}));
  EXPECT_EQ(Get(store.get(), "a", 5), std::nullopt);
  EXPECT_TRUE(All(store.get()).empty());
}

// ---- W4 delete ----------------------------------------------------------------------------

TEST(WindowStoreModel, OverwriteKeepsOneEntry) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "v1", 10);
  Put(store.get(), "a", "v2", 10);
  EXPECT_EQ(Get(store.get(), "a", 10), "v2");
  EXPECT_EQ(FetchKey(store.get(), "a", 0, 100), (std::vector{Rec("a", 10, 10, "v2")}));
  EXPECT_EQ(store->metrics().retained_records, 1);
}

TEST(WindowStoreModel, DeleteRemovesTheKeyAndAnEmptiedSegment) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "v", 10);
  Put(store.get(), "b", "v", 10);
  Put(store.get(), "a", "v", 20);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 3, 2}));
  Put(store.get(), "a", std::nullopt, 10);
  EXPECT_EQ(Get(store.get(), "a", 10), std::nullopt);
  EXPECT_EQ(Get(store.get(), "a", 20), "v");
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 2, 2}));
  Put(store.get(), "b", std::nullopt, 10);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 1, 1}));
  Put(store.get(), "c", std::nullopt, 30);  // Nothing to delete.
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 1, 1}));
  EXPECT_EQ(All(store.get()), (std::vector{Rec("a", 20, 20, "v")}));
}

// ---- W5 duplicates ------------------------------------------------------------------------

TEST(WindowStoreModel, DuplicatesComeBackInInsertionOrder) {
  auto store = MakeStore(100, 10, true);
  Put(store.get(), "a", "1", 10);
  Put(store.get(), "b", "x", 10);
  Put(store.get(), "a", "2", 10);
  Put(store.get(), "a", "3", 10);
  Put(store.get(), "a", "4", 5);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 5, 2}));
  const std::vector<WindowedRecord> a = {Rec("a", 5, 15, "4"), Rec("a", 10, 20, "1"),
                                         Rec("a", 10, 20, "2"), Rec("a", 10, 20, "3")};
  EXPECT_EQ(FetchKey(store.get(), "a", 0, 100), a);
  EXPECT_EQ(FetchKey(store.get(), "a", 0, 100, false), Reversed(a));
  const std::vector<WindowedRecord> all = {Rec("a", 5, 15, "4"), Rec("a", 10, 20, "1"),
                                           Rec("a", 10, 20, "2"), Rec("a", 10, 20, "3"),
                                           Rec("b", 10, 20, "x")};
  EXPECT_EQ(FetchAll(store.get(), 0, 100), all);
  EXPECT_EQ(FetchAll(store.get(), 0, 100, false), Reversed(all));
  EXPECT_EQ(All(store.get()), all);
  EXPECT_EQ(All(store.get(), false), Reversed(all));
}

TEST(WindowStoreModel, DuplicatesPointFetchReturnsNothing) {
  auto store = MakeStore(100, 0, true);
  Put(store.get(), "a", "1", 10);
  EXPECT_EQ(Get(store.get(), "a", 10), std::nullopt);
  EXPECT_EQ(FetchKey(store.get(), "a", 10, 10), (std::vector{Rec("a", 10, 10, "1")}));
}

TEST(WindowStoreModel, DuplicatesIgnoreDeletes) {
  auto store = MakeStore(100, 0, true);
  Put(store.get(), "a", "1", 10);
  Put(store.get(), "a", std::nullopt, 10);
  EXPECT_EQ(FetchKey(store.get(), "a", 0, 100), (std::vector{Rec("a", 10, 10, "1")}));
  Put(store.get(), "a", std::nullopt, 50);  // Still advances stream time.
  EXPECT_EQ(store->stream_time(), 50);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 1, 1}));
}

// ---- W6 read bound ------------------------------------------------------------------------

TEST(WindowStoreModel, ReadsSeeOnlyStartsAboveTheRetentionBound) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "91", 91);
  Put(store.get(), "a", "95", 95);
  Put(store.get(), "a", "100", 100);
  // A forward iterator on segment 91 pins it while stream time moves to 101 (bound 91).
  std::unique_ptr<WindowStoreIterator> pin;
  ASSERT_TRUE(store->FetchAll(0, 1000, &pin).ok());
  Put(store.get(), "a", "101", 101);
  EXPECT_EQ(store->metrics().retained_records, 4);
  // 91 is still held, yet no read sees it.
  EXPECT_EQ(Get(store.get(), "a", 91), std::nullopt);
  EXPECT_EQ(Get(store.get(), "a", 95), "95");
  EXPECT_EQ(
      FetchKey(store.get(), "a", 0, 200),
      (std::vector{Rec("a", 95, 95, "95"), Rec("a", 100, 100, "100"), Rec("a", 101, 101, "101")}));
  EXPECT_EQ(FetchKey(store.get(), "a", 96, 100), (std::vector{Rec("a", 100, 100, "100")}));
  EXPECT_TRUE(FetchKey(store.get(), "a", 50, 91).empty());
  EXPECT_EQ(FetchAll(store.get(), 92, 95), (std::vector{Rec("a", 95, 95, "95")}));
  EXPECT_EQ(All(store.get()).size(), 3u);
  EXPECT_EQ(All(store.get(), false).size(), 3u);
  // The pinning iterator itself still returns 91 (W9).
  WindowedRecord r;
  ASSERT_TRUE(pin->Next(&r).ok());
  EXPECT_EQ(r, Rec("a", 91, 91, "91"));
}

TEST(WindowStoreModel, EmptyTimeRangeIsAnEmptyIteratorWithoutWarning) {
  auto logger = std::make_shared<CapturingLogger>();
  auto store = MakeStore(100, 0, false, logger);
  Put(store.get(), "a", "v", 10);
  EXPECT_TRUE(FetchKey(store.get(), "a", 11, 10).empty());
  EXPECT_TRUE(FetchRange(store.get(), "a", "b", 11, 10, false).empty());
  EXPECT_TRUE(FetchAll(store.get(), 11, 10).empty());
  EXPECT_TRUE(logger->lines().empty());
}

// ---- W7 reads -----------------------------------------------------------------------------

TEST(WindowStoreModel, MultiKeyReadsAreOrderedByStartThenKey) {
  auto store = MakeStore(100, 3);
  Put(store.get(), "b", "b1", 1);
  Put(store.get(), "a", "a2", 2);
  Put(store.get(), "c", "c1", 1);
  Put(store.get(), "a", "a1", 1);
  const std::vector<WindowedRecord> all = {Rec("a", 1, 4, "a1"), Rec("b", 1, 4, "b1"),
                                           Rec("c", 1, 4, "c1"), Rec("a", 2, 5, "a2")};
  EXPECT_EQ(FetchAll(store.get(), 0, 10), all);
  EXPECT_EQ(FetchAll(store.get(), 0, 10, false), Reversed(all));
  EXPECT_EQ(All(store.get()), all);
  EXPECT_EQ(All(store.get(), false), Reversed(all));
  const std::vector<WindowedRecord> ab = {Rec("a", 1, 4, "a1"), Rec("b", 1, 4, "b1"),
                                          Rec("a", 2, 5, "a2")};
  EXPECT_EQ(FetchRange(store.get(), "a", "b", 0, 10), ab);
  EXPECT_EQ(FetchRange(store.get(), "a", "b", 0, 10, false), Reversed(ab));
  EXPECT_EQ(FetchAll(store.get(), 2, 2), (std::vector{Rec("a", 2, 5, "a2")}));
}

TEST(WindowStoreModel, MissingKeyBoundIsUnbounded) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "v", 1);
  Put(store.get(), "b", "v", 1);
  Put(store.get(), "c", "v", 1);
  const auto a = Rec("a", 1, 1, "v");
  const auto b = Rec("b", 1, 1, "v");
  const auto c = Rec("c", 1, 1, "v");
  EXPECT_EQ(FetchRange(store.get(), std::nullopt, "b", 0, 10), (std::vector{a, b}));
  EXPECT_EQ(FetchRange(store.get(), "b", std::nullopt, 0, 10), (std::vector{b, c}));
  EXPECT_EQ(FetchRange(store.get(), std::nullopt, std::nullopt, 0, 10), (std::vector{a, b, c}));
  EXPECT_EQ(FetchRange(store.get(), std::nullopt, "b", 0, 10, false), (std::vector{b, a}));
}

TEST(WindowStoreModel, PrefixKeysNeverLeak) {
  auto store = MakeStore(100, 0);
  const std::string a_nul("a\0", 2);
  Put(store.get(), "a", "a5", 5);
  Put(store.get(), "ab", "ab5", 5);
  Put(store.get(), a_nul, "anul5", 5);
  Put(store.get(), "b", "b5", 5);
  Put(store.get(), "a", "a6", 6);
  Put(store.get(), "ab", "ab6", 6);
  const std::vector<WindowedRecord> a = {Rec("a", 5, 5, "a5"), Rec("a", 6, 6, "a6")};
  EXPECT_EQ(FetchKey(store.get(), "a", 0, 100), a);
  EXPECT_EQ(FetchKey(store.get(), "a", 0, 100, false), Reversed(a));
  EXPECT_EQ(FetchRange(store.get(), "a", "a", 0, 100), a);
  EXPECT_EQ(FetchKey(store.get(), "ab", 0, 100),
            (std::vector{Rec("ab", 5, 5, "ab5"), Rec("ab", 6, 6, "ab6")}));
  EXPECT_EQ(Get(store.get(), "a", 5), "a5");
  EXPECT_EQ(Get(store.get(), "a", 7), std::nullopt);
  // "a" < "a\0" < "ab" < "b": a prefix sorts first.
  EXPECT_EQ(FetchAll(store.get(), 5, 5),
            (std::vector{Rec("a", 5, 5, "a5"), Rec(a_nul, 5, 5, "anul5"), Rec("ab", 5, 5, "ab5"),
                         Rec("b", 5, 5, "b5")}));
  EXPECT_EQ(FetchRange(store.get(), std::nullopt, "a", 5, 5), (std::vector{Rec("a", 5, 5, "a5")}));
  EXPECT_EQ(FetchRange(store.get(), "ab", std::nullopt, 5, 5),
            (std::vector{Rec("ab", 5, 5, "ab5"), Rec("b", 5, 5, "b5")}));
}

TEST(WindowStoreModel, KeysCompareAsUnsignedBytes) {
  auto logger = std::make_shared<CapturingLogger>();
  auto store = MakeStore(100, 0, false, logger);
  Put(store.get(), "\xff", "ff", 1);
  Put(store.get(), "\x80", "80", 1);
  Put(store.get(), "a", "a", 1);
  Put(store.get(), "\x01", "01", 1);
  EXPECT_EQ(FetchAll(store.get(), 0, 10),
            (std::vector{Rec("\x01", 1, 1, "01"), Rec("a", 1, 1, "a"), Rec("\x80", 1, 1, "80"),
                         Rec("\xff", 1, 1, "ff")}));
  EXPECT_EQ(FetchRange(store.get(), "a", "\x90", 0, 10),
            (std::vector{Rec("a", 1, 1, "a"), Rec("\x80", 1, 1, "80")}));
  EXPECT_TRUE(logger->lines().empty());
  // "\x80" sorts after "a", so this range is reversed.
  EXPECT_TRUE(FetchRange(store.get(), "\x80", "a", 0, 10).empty());
  EXPECT_EQ(logger->lines().size(), 1u);
}

TEST(WindowStoreModel, ReversedKeyRangeIsEmptyWithAWarning) {
  auto logger = std::make_shared<CapturingLogger>();
  auto store = MakeStore(100, 0, false, logger);
  Put(store.get(), "a", "v", 1);
  Put(store.get(), "b", "v", 1);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->Fetch("b", "a", 0, 10, &it).ok());
  ASSERT_NE(it, nullptr);
  EXPECT_FALSE(it->HasNext());
  ASSERT_TRUE(store->BackwardFetch("b", "a", 0, 10, &it).ok());
  ASSERT_NE(it, nullptr);
  EXPECT_FALSE(it->HasNext());
  const auto warn = std::make_pair(LogLevel::kWarn, std::string(kInvalidKeyRangeMessage));
  EXPECT_EQ(logger->lines(), (std::vector{warn, warn}));
  // Equal bounds are a valid range.
  EXPECT_EQ(FetchRange(store.get(), "b", "b", 0, 10), (std::vector{Rec("b", 1, 1, "v")}));
  EXPECT_EQ(logger->lines().size(), 2u);
}

TEST(WindowStoreModel, WindowEndSaturatesAtInt64Max) {
  auto store = MakeStore(kMax, 100);
  Put(store.get(), "a", "low", 1);  // Stream time will be INT64_MAX: bound 0.
  Put(store.get(), "a", "exact", kMax - 100);
  Put(store.get(), "a", "high", kMax - 50);
  Put(store.get(), "a", "top", kMax);
  EXPECT_EQ(FetchKey(store.get(), "a", 0, kMax),
            (std::vector{Rec("a", 1, 101, "low"), Rec("a", kMax - 100, kMax, "exact"),
                         Rec("a", kMax - 50, kMax, "high"), Rec("a", kMax, kMax, "top")}));
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->BackwardFetch("a", kMax, kMax, &it).ok());
  WindowedKey k;
  ASSERT_TRUE(it->PeekNextKey(&k).ok());
  EXPECT_EQ(k, (WindowedKey{"a", Window{kMax, kMax}}));
}

TEST(WindowStoreModel, ExtremeTimestampsDoNotOverflow) {
  // Stream time -1, retention INT64_MAX: the bound is INT64_MIN, so INT64_MIN itself is dropped.
  auto store = MakeStore(kMax, 0);
  Put(store.get(), "a", "min", kMin);
  EXPECT_EQ(store->metrics().dropped_records, 1);
  Put(store.get(), "a", "min1", kMin + 1);
  EXPECT_EQ(store->metrics().dropped_records, 1);
  EXPECT_EQ(All(store.get()), (std::vector{Rec("a", kMin + 1, kMin + 1, "min1")}));
  EXPECT_EQ(FetchAll(store.get(), kMin, kMax).size(), 1u);
  EXPECT_EQ(Get(store.get(), "a", kMin), std::nullopt);
  Put(store.get(), "b", "max", kMax);  // Bound now 0: kMin + 1 expires at the next read.
  EXPECT_EQ(All(store.get()), (std::vector{Rec("b", kMax, kMax, "max")}));
  EXPECT_EQ(store->metrics().retained_records, 1);
}

// ---- W8 expiry ----------------------------------------------------------------------------

TEST(WindowStoreModel, ExpiryRunsBeforeThePutAdvancesStreamTime) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "v", 0);
  Put(store.get(), "b", "v", 100);  // Expires with stream time 0, so "a" stays for now.
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 2, 2}));
  EXPECT_EQ(Get(store.get(), "b", 100), "v");  // A read expires with stream time 100.
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 1, 1}));
}

TEST(WindowStoreModel, ForwardIteratorPinsItsSegmentAndLaterOnes) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "1", 1);
  Put(store.get(), "a", "5", 5);
  Put(store.get(), "a", "10", 10);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 100, &it).ok());  // On segment 1.
  Put(store.get(), "b", "30", 30);
  Put(store.get(), "c", "31", 31);  // Bound 21, but segment 1 and later are pinned.
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 5, 5}));
  WindowedRecord r;
  ASSERT_TRUE(it->Next(&r).ok());
  EXPECT_EQ(r, Rec("a", 1, 1, "1"));
  ASSERT_TRUE(it->HasNext());  // Enters segment 5: segment 1 is no longer pinned.
  Put(store.get(), "d", "32", 32);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 5, 5}));  // -a@1, +d@32.
  EXPECT_EQ(Drain(it.get()),
            (std::vector{Rec("a", 5, 5, "5"), Rec("a", 10, 10, "10"), Rec("b", 30, 30, "30"),
                         Rec("c", 31, 31, "31"), Rec("d", 32, 32, "32")}));
  // Exhausted: pins nothing, though still open.
  EXPECT_EQ(Get(store.get(), "d", 32), "32");
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 3, 3}));
  it->Close();
}

TEST(WindowStoreModel, BackwardIteratorPinsFromItsLowerBound) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "1", 1);
  Put(store.get(), "a", "5", 5);
  Put(store.get(), "a", "10", 10);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->BackwardFetchAll(0, 100, &it).ok());  // Lower bound 1, on segment 10.
  Put(store.get(), "b", "40", 40);
  Put(store.get(), "c", "41", 41);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 5, 5}));
  WindowedRecord r;
  ASSERT_TRUE(it->Next(&r).ok());
  EXPECT_EQ(r, Rec("a", 10, 10, "10"));
  ASSERT_TRUE(it->HasNext());  // Segment 5; still pins from 1.
  Put(store.get(), "d", "42", 42);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 6, 6}));
  // Segments 40..42 lie behind it; 5 and 1 expired after it opened, yet it returns them.
  EXPECT_EQ(Drain(it.get()), (std::vector{Rec("a", 5, 5, "5"), Rec("a", 1, 1, "1")}));
  Put(store.get(), "e", "43", 43);  // Exhausted: everything below 33 goes.
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 4, 4}));
}

TEST(WindowStoreModel, ClosingAnIteratorReleasesItsPinAtTheNextOperation) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "1", 1);
  Put(store.get(), "a", "2", 2);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 100, &it).ok());
  Put(store.get(), "b", "50", 50);
  Put(store.get(), "c", "51", 51);
  EXPECT_EQ(store->metrics().retained_records, 4);
  it->Close();
  it->Close();  // Idempotent.
  EXPECT_EQ(store->metrics().retained_records, 4);
  EXPECT_FALSE(it->HasNext());
  WindowedRecord r;
  EXPECT_EQ(it->Next(&r).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(Get(store.get(), "b", 50), "50");
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{0, 2, 2}));
}

TEST(WindowStoreModel, DestroyingAnIteratorReleasesItsPin) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "1", 1);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->All(&it).ok());
  Put(store.get(), "b", "50", 50);
  Put(store.get(), "c", "51", 51);
  EXPECT_EQ(store->metrics().retained_records, 3);
  it.reset();
  Put(store.get(), "d", "52", 52);
  EXPECT_EQ(store->metrics().retained_records, 3);  // -a@1, +d@52.
  EXPECT_EQ(Get(store.get(), "a", 1), std::nullopt);
}

// ---- W9 iterators -------------------------------------------------------------------------

TEST(WindowStoreModel, ForwardIteratorSnapshotsOnlyItsCurrentSegment) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "a1", 1);
  Put(store.get(), "b", "b1", 1);
  Put(store.get(), "a", "a2", 2);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 100, &it).ok());  // Snapshot of segment 1.
  Put(store.get(), "c", "c1", 1);                  // Current segment: unseen.
  Put(store.get(), "b", "b1-new", 1);              // Unseen.
  Put(store.get(), "b", "b2", 2);                  // Later segment: seen.
  Put(store.get(), "a", std::nullopt, 2);          // Seen as gone.
  Put(store.get(), "c", "c3", 3);                  // New later segment: seen.
  EXPECT_EQ(Drain(it.get()), (std::vector{Rec("a", 1, 1, "a1"), Rec("b", 1, 1, "b1"),
                                          Rec("b", 2, 2, "b2"), Rec("c", 3, 3, "c3")}));
}

TEST(WindowStoreModel, IteratorEntersTheNextSegmentOnlyWhenItNeedsIt) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "a1", 1);
  Put(store.get(), "a", "a2", 2);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->Fetch("a", 0, 100, &it).ok());
  WindowedRecord r;
  ASSERT_TRUE(it->Next(&r).ok());  // Segment 1 used up; segment 2 not entered yet.
  Put(store.get(), "a", "a2-new", 2);
  ASSERT_TRUE(it->HasNext());  // Enters segment 2 now, seeing the new value.
  Put(store.get(), "a", "a2-newer", 2);
  ASSERT_TRUE(it->Next(&r).ok());
  EXPECT_EQ(r, Rec("a", 2, 2, "a2-new"));
}

TEST(WindowStoreModel, BackwardIteratorSnapshotsOnlyItsCurrentSegment) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "a1", 1);
  Put(store.get(), "a", "a2", 2);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->BackwardAll(&it).ok());  // Snapshot of segment 2.
  Put(store.get(), "b", "b2", 2);             // Current segment: unseen.
  Put(store.get(), "z", "z3", 3);             // Already behind it: unseen.
  Put(store.get(), "b", "b1", 1);             // Ahead of it: seen.
  EXPECT_EQ(Drain(it.get()),
            (std::vector{Rec("a", 2, 2, "a2"), Rec("b", 1, 1, "b1"), Rec("a", 1, 1, "a1")}));
}

TEST(WindowStoreModel, IteratorTimeRangeIsFixedAtOpen) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "5", 5);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 20, &it).ok());  // [0, 20]
  Put(store.get(), "a", "20", 20);
  Put(store.get(), "a", "21", 21);  // Beyond its upper bound.
  EXPECT_EQ(Drain(it.get()), (std::vector{Rec("a", 5, 5, "5"), Rec("a", 20, 20, "20")}));
}

TEST(WindowStoreModel, ExhaustedIteratorStaysExhausted) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "v", 1);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 100, &it).ok());
  EXPECT_EQ(Drain(it.get()).size(), 1u);
  Put(store.get(), "a", "v", 5);
  EXPECT_FALSE(it->HasNext());

  ASSERT_TRUE(store->FetchAll(50, 100, &it).ok());  // Found nothing at open.
  Put(store.get(), "a", "v", 60);
  EXPECT_FALSE(it->HasNext());
}

TEST(WindowStoreModel, ReadingPastTheEndIsOutOfRange) {
  auto store = MakeStore(100, 7);
  Put(store.get(), "a", "v", 1);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->Fetch("a", 0, 10, &it).ok());
  WindowedKey k;
  ASSERT_TRUE(it->PeekNextKey(&k).ok());
  EXPECT_EQ(k, (WindowedKey{"a", Window{1, 8}}));
  ASSERT_TRUE(it->PeekNextKey(&k).ok());  // Peeking does not consume.
  WindowedRecord r;
  ASSERT_TRUE(it->Next(&r).ok());
  EXPECT_EQ(r, Rec("a", 1, 8, "v"));
  const WindowedRecord sentinel_record = Rec("x", 42, 43, "y");
  const WindowedKey sentinel_key{"x", Window{42, 43}};
  r = sentinel_record;
  k = sentinel_key;
  EXPECT_EQ(it->Next(&r).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(it->PeekNextKey(&k).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(r, sentinel_record);
  EXPECT_EQ(k, sentinel_key);
}

TEST(WindowStoreModel, ClosingTheStoreClosesItsIterators) {
  auto store = MakeStore(10, 0);
  Put(store.get(), "a", "v", 1);
  Put(store.get(), "a", "v", 2);
  Put(store.get(), "a", "v", -100);  // Dropped.
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 100, &it).ok());
  ASSERT_TRUE(it->HasNext());
  store->Close();
  EXPECT_FALSE(store->is_open());
  EXPECT_FALSE(it->HasNext());
  WindowedRecord r;
  EXPECT_EQ(it->Next(&r).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{1, 0, 0}));
  EXPECT_EQ(store->stream_time(), 2);

  const Status closed = Status::FailedPrecondition("Store s is currently closed.");
  EXPECT_EQ(store->Put("a", "v", 3), closed);
  std::optional<std::string> value = "stale";
  EXPECT_EQ(store->Fetch("a", 2, &value), closed);
  EXPECT_EQ(value, std::nullopt);
  std::unique_ptr<WindowStoreIterator> other;
  EXPECT_EQ(store->Fetch("a", 0, 10, &other), closed);
  EXPECT_EQ(store->BackwardFetch("a", 0, 10, &other), closed);
  EXPECT_EQ(store->Fetch("a", "b", 0, 10, &other), closed);
  EXPECT_EQ(store->BackwardFetch("a", "b", 0, 10, &other), closed);
  EXPECT_EQ(store->FetchAll(0, 10, &other), closed);
  EXPECT_EQ(store->BackwardFetchAll(0, 10, &other), closed);
  EXPECT_EQ(store->All(&other), closed);
  EXPECT_EQ(store->BackwardAll(&other), closed);
  EXPECT_EQ(other, nullptr);

  store->Close();  // Idempotent.
  it->Close();
  EXPECT_EQ(store->metrics(), (WindowStoreMetrics{1, 0, 0}));
}

TEST(WindowStoreModel, IteratorMayOutliveTheStore) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "v", 1);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->All(&it).ok());
  store.reset();  // Without Close.
  EXPECT_FALSE(it->HasNext());
  WindowedKey k;
  EXPECT_EQ(it->PeekNextKey(&k).code(), Status::Code::kOutOfRange);
  it->Close();
}

TEST(WindowStoreModel, ReplacingAnIteratorOfTheSameStoreIsSafe) {
  auto store = MakeStore(100, 0);
  Put(store.get(), "a", "v", 1);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->All(&it).ok());
  ASSERT_TRUE(store->All(&it).ok());  // The old one is destroyed first.
  EXPECT_EQ(Drain(it.get()).size(), 1u);
}

// ---- The call report and the entries (what the properties explain a difference with) -------

WindowStoreModel& AsModel(const std::unique_ptr<WindowStore>& store) {
  return dynamic_cast<WindowStoreModel&>(*store);
}

using Effect = WindowStoreModelCallReport::PutEffect;

TEST(WindowStoreModel, ReportsWhatEachPutDid) {
  auto store = MakeStore(10, 0);
  WindowStoreModel& m = AsModel(store);
  EXPECT_EQ(m.last_call().put, Effect::kNone);
  Put(store.get(), "a", "1", 20);
  EXPECT_EQ(m.last_call().put, Effect::kInserted);
  EXPECT_EQ(m.last_call().same_key_and_start_before, 0);
  Put(store.get(), "a", "2", 20);
  EXPECT_EQ(m.last_call().put, Effect::kOverwritten);
  EXPECT_EQ(m.last_call().same_key_and_start_before, 1);
  Put(store.get(), "b", "3", 20);
  Put(store.get(), "a", std::nullopt, 20);
  EXPECT_EQ(m.last_call().put, Effect::kDeleted);
  EXPECT_FALSE(m.last_call().emptied_segment);  // "b" is still at 20.
  Put(store.get(), "b", std::nullopt, 20);
  EXPECT_EQ(m.last_call().put, Effect::kDeleted);
  EXPECT_TRUE(m.last_call().emptied_segment);
  Put(store.get(), "b", std::nullopt, 20);
  EXPECT_EQ(m.last_call().put, Effect::kDeletedNothing);
  Put(store.get(), "c", "4", 10);  // 10 <= 20 - 10.
  EXPECT_EQ(m.last_call().put, Effect::kDropped);
  store->Close();
  EXPECT_FALSE(store->Put("c", "5", 30).ok());
  EXPECT_EQ(m.last_call().put, Effect::kNone);
}

TEST(WindowStoreModel, ReportsDuplicatesAndTheirIgnoredDeletes) {
  auto store = MakeStore(10, 0, /*duplicates=*/true);
  WindowStoreModel& m = AsModel(store);
  Put(store.get(), "a", "1", 5);
  Put(store.get(), "a", "2", 5);
  EXPECT_EQ(m.last_call().put, Effect::kInserted);
  EXPECT_EQ(m.last_call().same_key_and_start_before, 1);
  Put(store.get(), "a", std::nullopt, 5);
  EXPECT_EQ(m.last_call().put, Effect::kNullWithDuplicates);
  EXPECT_EQ(m.last_call().same_key_and_start_before, 2);
  EXPECT_EQ(Get(store.get(), "a", 5), std::nullopt);
  EXPECT_TRUE(m.last_call().point_hidden_by_duplicates);
  EXPECT_EQ(Get(store.get(), "b", 5), std::nullopt);
  EXPECT_FALSE(m.last_call().point_hidden_by_duplicates);
}

TEST(WindowStoreModel, ReportsWhatAnExpiryRemovedKeptAndReleased) {
  auto store = MakeStore(10, 0);
  WindowStoreModel& m = AsModel(store);
  Put(store.get(), "a", "1", 1);
  Put(store.get(), "b", "1", 1);
  Put(store.get(), "a", "2", 2);
  Put(store.get(), "a", "12", 12);  // Bound 2: nothing expires before this put moves it.
  EXPECT_EQ(m.last_call().expired_records, 0);
  Put(store.get(), "a", "13", 13);  // Removes starts 1 and 2 (2 is exactly 12 - 10).
  EXPECT_EQ(m.last_call().expired_records, 3);
  EXPECT_EQ(m.last_call().expired_segments, 2);
  EXPECT_TRUE(m.last_call().expired_boundary);
  EXPECT_EQ(m.last_call().pinned_records, 0);

  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 100, &it).ok());  // On segment 12.
  Put(store.get(), "a", "30", 30);
  Put(store.get(), "a", "31", 31);  // Bound 20: 12 and 13 are kept for the iterator.
  EXPECT_EQ(m.last_call().expired_records, 0);
  EXPECT_EQ(m.last_call().pinned_records, 2);
  EXPECT_EQ(m.last_call().released_records, 0);
}

TEST(WindowStoreModel, ReportsRecordsTheBoundHidesAndReleasesAfterClose) {
  auto store = MakeStore(10, 0);
  WindowStoreModel& m = AsModel(store);
  Put(store.get(), "a", "1", 1);
  Put(store.get(), "b", "2", 2);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(store->FetchAll(0, 100, &it).ok());  // On segment 1: pins 1 and later.
  Put(store.get(), "c", "40", 40);
  Put(store.get(), "c", "41", 41);
  EXPECT_EQ(m.last_call().pinned_records, 2);  // a@1 and b@2, below the bound 31.
  EXPECT_EQ(FetchAll(store.get(), 0, 100),
            (std::vector{Rec("c", 40, 40, "40"), Rec("c", 41, 41, "41")}));
  // The fetch's own iterator is exhausted and closed; the first one still pins.
  EXPECT_EQ(Get(store.get(), "a", 1), std::nullopt);
  EXPECT_EQ(m.last_call().hidden_by_bound, 1);
  EXPECT_EQ(FetchRange(store.get(), "a", "b", 0, 100), std::vector<WindowedRecord>{});
  EXPECT_EQ(m.last_call().hidden_by_bound, 2);
  it->Close();
  Put(store.get(), "c", "42", 42);
  EXPECT_EQ(m.last_call().expired_records, 2);  // a@1 and b@2, no longer pinned.
  EXPECT_EQ(m.last_call().released_records, 2);
  EXPECT_EQ(m.last_call().pinned_records, 0);
}

TEST(WindowStoreModel, EntriesAreOrderedByStartKeyBytesAndInsertion) {
  auto store = MakeStore(100, 0, /*duplicates=*/true);
  Put(store.get(), "b", "1", 5);
  Put(store.get(), "\xff", "2", 3);
  Put(store.get(), "a", "3", 5);
  Put(store.get(), "b", "4", 5);
  Put(store.get(), "\x7f", "5", 3);
  std::vector<std::pair<std::string, int64_t>> got;
  for (const WindowStoreModelEntry& e : AsModel(store).Entries()) {
    got.emplace_back(e.key + "=" + e.value, e.start);
  }
  EXPECT_EQ(got, (std::vector<std::pair<std::string, int64_t>>{
                     {"\x7f=5", 3}, {"\xff=2", 3}, {"a=3", 5}, {"b=1", 5}, {"b=4", 5}}));
}

}  // namespace
}  // namespace model
}  // namespace statecheck
