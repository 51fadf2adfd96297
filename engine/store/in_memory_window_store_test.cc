#include "statecheck/in_memory_window_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/store/in_memory_window_store_internal.h"
#include "testing/test_util.h"

namespace statecheck {
namespace {

using testing::CapturingLogger;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

struct Fixture {
  std::shared_ptr<CapturingLogger> logger = std::make_shared<CapturingLogger>();
  std::unique_ptr<WindowStore> store;

  explicit Fixture(int64_t retention, int64_t size = 0, bool dups = false) {
    Status s = NewInMemoryWindowStore({"store", retention, size, dups, logger}, &store);
    EXPECT_TRUE(s.ok()) << s;
  }
};

// Drains an iterator into "key@start=value" strings.
std::vector<std::string> Drain(WindowStoreIterator& it) {
  std::vector<std::string> out;
  WindowedRecord r;
  while (it.HasNext()) {
    EXPECT_TRUE(it.Next(&r).ok());
    out.push_back(r.key + "@" + std::to_string(r.window.start) + "=" + r.value);
  }
  return out;
}

std::vector<std::string> Drain(std::unique_ptr<WindowStoreIterator> it) { return Drain(*it); }

// Drain through NextView.
std::vector<std::string> DrainViews(WindowStoreIterator& it) {
  std::vector<std::string> out;
  WindowedRecordView r;
  while (it.HasNext()) {
    EXPECT_TRUE(it.NextView(&r).ok());
    out.push_back(std::string(r.key) + "@" + std::to_string(r.window.start) + "=" +
                  std::string(r.value));
  }
  return out;
}

std::unique_ptr<WindowStoreIterator> AllOf(WindowStore& s) {
  std::unique_ptr<WindowStoreIterator> it;
  EXPECT_TRUE(s.All(&it).ok());
  return it;
}

TEST(InMemoryWindowStore, ConstructionErrors) {
  std::unique_ptr<WindowStore> store;
  auto make = [&](std::string name, int64_t retention, int64_t size) {
    return NewInMemoryWindowStore({std::move(name), retention, size, false, nullptr}, &store);
  };
  EXPECT_EQ(make("", -1, -1), Status::InvalidArgument("name cannot be empty"));
  EXPECT_EQ(store, nullptr);
  EXPECT_EQ(make("s", -1, -1), Status::InvalidArgument("retentionPeriod cannot be negative"));
  EXPECT_EQ(make("s", 5, -1), Status::InvalidArgument("windowSize cannot be negative"));
  EXPECT_EQ(make("win", 5, 6),
            Status::InvalidArgument("The retention period of the window store win must be no "
                                    "smaller than its window size. Got size=[6], retention=[5]"));
  EXPECT_EQ(store, nullptr);
  EXPECT_TRUE(make("s", 0, 0).ok());
  EXPECT_TRUE(make("s", 7, 7).ok());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->name(), "s");

  int64_t ms = 0;
  EXPECT_TRUE(DurationToMillis(std::chrono::hours(1), "retentionPeriod", &ms).ok());
  EXPECT_EQ(ms, 3'600'000);
  const Status too_big = DurationToMillis(
      std::chrono::duration<int64_t, std::ratio<86400>>(kMax / 1000), "retentionPeriod", &ms);
  EXPECT_EQ(too_big.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(too_big.message().find("\"retentionPeriod\""), std::string::npos);
}

TEST(InMemoryWindowStore, DropRule) {
  Fixture f(/*retention=*/10);
  ASSERT_TRUE(f.store->Put("a", "v100", 100).ok());
  EXPECT_EQ(f.store->stream_time(), 100);
  // 90 == streamTime - retention: dropped. 91: kept.
  ASSERT_TRUE(f.store->Put("a", "v90", 90).ok());
  ASSERT_TRUE(f.store->Put("a", "v91", 91).ok());
  EXPECT_EQ(f.store->metrics().dropped_records, 1);
  EXPECT_EQ(f.logger->lines(),
            std::vector<std::string>{std::string(kSkippingExpiredRecordMessage)});
  EXPECT_EQ(Drain(AllOf(*f.store)), (std::vector<std::string>{"a@91=v91", "a@100=v100"}));
  // A dropped put still moves stream time (W2); here it cannot, so move it with a delete.
  ASSERT_TRUE(f.store->Put("zz", std::nullopt, 101).ok());
  EXPECT_EQ(f.store->stream_time(), 101);
  EXPECT_EQ(Drain(AllOf(*f.store)), (std::vector<std::string>{"a@100=v100"}));

  Fixture zero(/*retention=*/0);
  ASSERT_TRUE(zero.store->Put("a", "v", 5).ok());
  ASSERT_TRUE(zero.store->Put("a", "v", 6).ok());
  EXPECT_EQ(zero.store->metrics().dropped_records, 2);
  EXPECT_EQ(zero.store->metrics().retained_records, 0);
}

TEST(InMemoryWindowStore, DeleteAndDuplicates) {
  Fixture f(100);
  ASSERT_TRUE(f.store->Put("a", "1", 5).ok());
  ASSERT_TRUE(f.store->Put("a", "2", 5).ok());  // Overwrite.
  std::optional<std::string> v;
  ASSERT_TRUE(f.store->Fetch("a", 5, &v).ok());
  EXPECT_EQ(v, "2");
  ASSERT_TRUE(f.store->Put("a", std::nullopt, 5).ok());
  ASSERT_TRUE(f.store->Fetch("a", 5, &v).ok());
  EXPECT_EQ(v, std::nullopt);
  EXPECT_EQ(f.store->metrics().retained_segments, 0);  // W4: the emptied segment went.

  Fixture d(100, 0, /*dups=*/true);
  ASSERT_TRUE(d.store->Put("b", "x", 5).ok());
  ASSERT_TRUE(d.store->Put("a", "2", 5).ok());
  ASSERT_TRUE(d.store->Put("a", "1", 5).ok());
  ASSERT_TRUE(d.store->Put("a", std::nullopt, 5).ok());  // No-op with duplicates.
  ASSERT_TRUE(d.store->Fetch("a", 5, &v).ok());
  EXPECT_EQ(v, std::nullopt);  // W5 quirk.
  EXPECT_EQ(Drain(AllOf(*d.store)), (std::vector<std::string>{"a@5=2", "a@5=1", "b@5=x"}));
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(d.store->BackwardAll(&it).ok());
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"b@5=x", "a@5=1", "a@5=2"}));
}

TEST(InMemoryWindowStore, ReadsOrderAndPrefixKeys) {
  Fixture f(1000, 10);
  ASSERT_TRUE(f.store->Put("ab", "1", 3).ok());
  ASSERT_TRUE(f.store->Put("a", "2", 3).ok());
  ASSERT_TRUE(f.store->Put("", "3", 1).ok());
  ASSERT_TRUE(f.store->Put(std::string("\xff", 1), "4", 1).ok());
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(f.store->Fetch("a", 0, 10, &it).ok());
  EXPECT_EQ(Drain(*it), std::vector<std::string>{"a@3=2"});
  ASSERT_TRUE(f.store->Fetch(std::nullopt, std::nullopt, 0, 10, &it).ok());
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"@1=3", "\xff@1=4", "a@3=2", "ab@3=1"}));
  ASSERT_TRUE(f.store->BackwardFetch(std::string_view("a"), std::nullopt, 0, 10, &it).ok());
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"ab@3=1", "a@3=2", "\xff@1=4"}));
  ASSERT_TRUE(f.store->Fetch(std::string_view("b"), std::string_view("a"), 0, 10, &it).ok());
  EXPECT_FALSE(it->HasNext());
  EXPECT_EQ(f.logger->lines(), std::vector<std::string>{std::string(kInvalidKeyRangeMessage)});
  WindowedRecord r;
  EXPECT_EQ(it->Next(&r).code(), Status::Code::kOutOfRange);
  WindowedKey k;
  EXPECT_EQ(it->PeekNextKey(&k).code(), Status::Code::kOutOfRange);

  ASSERT_TRUE(f.store->Put("e", "end", kMax - 3).ok());
  ASSERT_TRUE(f.store->Fetch("e", kMax - 3, kMax, &it).ok());
  ASSERT_TRUE(it->Next(&r).ok());
  EXPECT_EQ(r.window, (Window{kMax - 3, kMax}));  // End saturates.
}

TEST(InMemoryWindowStore, IteratorPinsSegments) {
  Fixture f(/*retention=*/10);
  for (int t = 0; t < 5; ++t) ASSERT_TRUE(f.store->Put("k", "v" + std::to_string(t), t).ok());
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(f.store->All(&it).ok());
  WindowedRecord r;
  ASSERT_TRUE(it->Next(&r).ok());  // On segment 0.
  ASSERT_TRUE(f.store->Put("k", "late", 100).ok());
  ASSERT_TRUE(f.store->Put("k", "later", 101).ok());  // Expiry runs: 0..4 are pinned.
  EXPECT_EQ(f.store->metrics().retained_records, 7);
  // The iterator still returns the expired records (W9), and sees the new segments (W9).
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"k@1=v1", "k@2=v2", "k@3=v3", "k@4=v4",
                                                  "k@100=late", "k@101=later"}));
  // Exhausted: the pin is gone at the next put or read.
  std::optional<std::string> v;
  ASSERT_TRUE(f.store->Fetch("k", 101, &v).ok());
  EXPECT_EQ(f.store->metrics().retained_records, 2);
  // A backward iterator pins from its lower bound (92 here) up.
  ASSERT_TRUE(f.store->BackwardFetch("k", 0, kMax, &it).ok());  // On segment 101.
  ASSERT_TRUE(f.store->Put("k", "x", 120).ok());
  ASSERT_TRUE(f.store->Put("k", "y", 121).ok());  // Expiry runs: 100 and 101 are pinned.
  EXPECT_EQ(f.store->metrics().retained_records, 4);
  std::unique_ptr<WindowStoreIterator> fresh;  // A new read never sees pinned segments.
  ASSERT_TRUE(f.store->Fetch("k", 0, kMax, &fresh).ok());
  EXPECT_EQ(Drain(*fresh), (std::vector<std::string>{"k@120=x", "k@121=y"}));
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"k@101=later", "k@100=late"}));
  it->Close();
  ASSERT_TRUE(f.store->Fetch("k", 121, &v).ok());
  EXPECT_EQ(f.store->metrics().retained_records, 2);
}

TEST(InMemoryWindowStore, IteratorUnderMutation) {
  Fixture f(1000);
  ASSERT_TRUE(f.store->Put("a", "1", 1).ok());
  ASSERT_TRUE(f.store->Put("b", "1", 1).ok());
  ASSERT_TRUE(f.store->Put("a", "1", 2).ok());
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(f.store->All(&it).ok());                   // Snapshot of segment 1 taken.
  ASSERT_TRUE(f.store->Put("c", "new", 1).ok());         // Not seen: segment 1 is snapshotted.
  ASSERT_TRUE(f.store->Put("b", std::nullopt, 1).ok());  // Not seen either.
  ASSERT_TRUE(f.store->Put("z", "new", 2).ok());         // Seen: segment 2 not reached yet.
  ASSERT_TRUE(f.store->Put("a", std::nullopt, 2).ok());  // Seen: deleted before reached.
  ASSERT_TRUE(f.store->Put("n", "new", 3).ok());         // Seen: a new segment ahead.
  WindowedKey k;
  ASSERT_TRUE(it->PeekNextKey(&k).ok());
  EXPECT_EQ(k, (WindowedKey{"a", {1, 1}}));
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"a@1=1", "b@1=1", "z@2=new", "n@3=new"}));
  ASSERT_TRUE(f.store->Put("q", "after", 4).ok());
  EXPECT_FALSE(it->HasNext());  // Exhausted for good.

  ASSERT_TRUE(f.store->All(&it).ok());
  f.store->Close();
  EXPECT_FALSE(it->HasNext());
  WindowedRecord r;
  EXPECT_EQ(it->Next(&r).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(f.store->Put("a", "1", 1).code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(f.store->All(&it).message(), "Store store is currently closed.");
  EXPECT_EQ(f.store->metrics().retained_records, 0);
  // An iterator that outlives its store is still safe.
  Fixture g(1000);
  ASSERT_TRUE(g.store->Put("a", "1", 1).ok());
  ASSERT_TRUE(g.store->All(&it).ok());
  g.store.reset();
  EXPECT_FALSE(it->HasNext());
}

TEST(InMemoryWindowStore, SingleKeyFetchSkipsOtherSegments) {
  Fixture f(1'000'000);
  for (int t = 0; t < 10'000; ++t) ASSERT_TRUE(f.store->Put("other", "v", t).ok());
  ASSERT_TRUE(f.store->Put("k", "first", 17).ok());
  ASSERT_TRUE(f.store->Put("k", "second", 9'000).ok());
  const int64_t before = internal::SegmentsExaminedForTesting(*f.store);
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(f.store->Fetch("k", 0, 20'000, &it).ok());
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"k@17=first", "k@9000=second"}));
  ASSERT_TRUE(f.store->BackwardFetch("k", 0, 20'000, &it).ok());
  EXPECT_EQ(Drain(*it), (std::vector<std::string>{"k@9000=second", "k@17=first"}));
  // Only the two segments holding "k" were examined, not the 10,000 in the range.
  EXPECT_EQ(internal::SegmentsExaminedForTesting(*f.store) - before, 4);
}

TEST(InMemoryWindowStore, OverwritesCompactTheArena) {
  Fixture f(100);
  const std::string big(1000, 'x');
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(f.store->Put("a", big + std::to_string(i), 1).ok());
    ASSERT_TRUE(f.store->Put("b", std::to_string(i), 1).ok());
  }
  std::optional<std::string> v;
  ASSERT_TRUE(f.store->Fetch("a", 1, &v).ok());
  EXPECT_EQ(v, big + "999");
  ASSERT_TRUE(f.store->Fetch("b", 1, &v).ok());
  EXPECT_EQ(v, "999");
  EXPECT_EQ(f.store->metrics().retained_records, 2);
}

// Next and NextView both return exactly the records put, in every kind of read: whole segments
// (their value arena copied at once, overwritten values' garbage in it) and narrow key ranges
// (values copied one by one), dense and sparse starts, both directions, short and long keys,
// duplicates. The expectation is a plain map of what was put.
TEST(InMemoryWindowStore, NextAndNextViewReadWhatWasPut) {
  for (const bool dups : {false, true}) {
    Fixture f(1'000'000, 0, dups);
    std::map<std::pair<int64_t, std::string>, std::vector<std::string>> put;
    const std::string long_key(40, 'k');
    for (int t = 0; t < 60; ++t) {
      const int64_t start = t < 40 ? t : 40 + 7 * t;  // Dense, then sparse.
      for (int k = 0; k < 12; ++k) {
        const std::string key = k == 5 ? long_key : "key" + std::to_string(k % 10);
        const std::string value = "v" + std::to_string(t * 100 + k);
        ASSERT_TRUE(f.store->Put(key, value, start).ok());
        auto& values = put[{start, key}];
        if (!dups) values.clear();  // k = 10, 11 overwrite keys 0 and 1.
        values.push_back(value);
      }
      ASSERT_TRUE(f.store->Put("key3", std::nullopt, start).ok());
      if (!dups) put.erase({start, "key3"});
    }
    struct Read {
      std::optional<std::string> from, to;
      int64_t lo, hi;
      bool forward;
    };
    const std::vector<Read> reads = {
        {std::nullopt, std::nullopt, 0, kMax, true},
        {std::nullopt, std::nullopt, 0, kMax, false},
        {std::nullopt, std::nullopt, 10, 300, true},
        {"key1", "key2", 0, 500, true},
        {"key8", std::nullopt, 0, 500, false},
        {long_key, long_key, 0, 500, true},
        {"key0", "key0", 0, 500, false},
    };
    for (size_t i = 0; i < reads.size(); ++i) {
      const Read& read = reads[i];
      std::vector<std::string> expected;
      for (const auto& [at, values] : put) {
        if (at.first < read.lo || at.first > read.hi) continue;
        if ((read.from && at.second < *read.from) || (read.to && at.second > *read.to)) continue;
        for (const std::string& v : values) {
          expected.push_back(at.second + "@" + std::to_string(at.first) + "=" + v);
        }
      }
      if (!read.forward) std::reverse(expected.begin(), expected.end());
      ASSERT_FALSE(expected.empty()) << "read " << i;
      auto open = [&](std::unique_ptr<WindowStoreIterator>* it) {
        return read.forward ? f.store->Fetch(read.from, read.to, read.lo, read.hi, it)
                            : f.store->BackwardFetch(read.from, read.to, read.lo, read.hi, it);
      };
      std::unique_ptr<WindowStoreIterator> copied, viewed;
      ASSERT_TRUE(open(&copied).ok());
      ASSERT_TRUE(open(&viewed).ok());
      EXPECT_EQ(Drain(*copied), expected) << "read " << i << (dups ? ", duplicates" : "");
      EXPECT_EQ(DrainViews(*viewed), expected) << "read " << i << (dups ? ", duplicates" : "");
      WindowedRecordView r;
      EXPECT_EQ(viewed->NextView(&r).code(), Status::Code::kOutOfRange);
    }
  }
}

// A view is of the iterator's snapshot: writes to its segment, even ones that move the store's
// own bytes, leave it as it was until the iterator's next call.
TEST(InMemoryWindowStore, AViewOutlivesWritesToItsSegment) {
  Fixture f(1'000);
  ASSERT_TRUE(f.store->Put("a", "first", 1).ok());
  ASSERT_TRUE(f.store->Put("b", "second", 1).ok());
  std::unique_ptr<WindowStoreIterator> it;
  ASSERT_TRUE(f.store->All(&it).ok());
  WindowedRecordView r;
  ASSERT_TRUE(it->NextView(&r).ok());
  const std::string big(100'000, 'x');
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(f.store->Put("a", big + std::to_string(i), 1).ok());
  ASSERT_TRUE(f.store->Put("b", std::nullopt, 1).ok());
  EXPECT_EQ(r.key, "a");
  EXPECT_EQ(r.value, "first");
  EXPECT_EQ(r.window, (Window{1, 1}));
  ASSERT_TRUE(it->NextView(&r).ok());
  EXPECT_EQ(r.key, "b");
  EXPECT_EQ(r.value, "second");
}

// Dense starts are entered with a probe of the next start; a read still examines each segment of
// its range once.
TEST(InMemoryWindowStore, AMultiKeyReadExaminesEachSegmentOnce) {
  Fixture f(1'000'000);
  for (int t = 0; t < 100; ++t) ASSERT_TRUE(f.store->Put("a", "v", t < 50 ? t : 3 * t).ok());
  ASSERT_TRUE(f.store->Put("b", "v", 10).ok());
  for (const bool forward : {true, false}) {
    const int64_t before = internal::SegmentsExaminedForTesting(*f.store);
    std::unique_ptr<WindowStoreIterator> it;
    ASSERT_TRUE((forward ? f.store->Fetch("b", "b", 0, kMax, &it)
                         : f.store->BackwardFetch("b", "b", 0, kMax, &it))
                    .ok());
    EXPECT_EQ(Drain(*it), (std::vector<std::string>{"b@10=v"}));
    // A single key steps through its own windows: one segment.
    EXPECT_EQ(internal::SegmentsExaminedForTesting(*f.store) - before, 1);
    const int64_t all_before = internal::SegmentsExaminedForTesting(*f.store);
    ASSERT_TRUE((forward ? f.store->All(&it) : f.store->BackwardAll(&it)).ok());
    EXPECT_EQ(Drain(*it).size(), 101u);
    EXPECT_EQ(internal::SegmentsExaminedForTesting(*f.store) - all_before, 100);
    // A key range that matches in one segment examines all 100 once, probed or sought.
    const int64_t range_before = internal::SegmentsExaminedForTesting(*f.store);
    ASSERT_TRUE((forward ? f.store->Fetch("b", std::nullopt, 0, kMax, &it)
                         : f.store->BackwardFetch("b", std::nullopt, 0, kMax, &it))
                    .ok());
    EXPECT_EQ(Drain(*it), (std::vector<std::string>{"b@10=v"}));
    EXPECT_EQ(internal::SegmentsExaminedForTesting(*f.store) - range_before, 100);
  }
}

}  // namespace
}  // namespace statecheck
