#include "statecheck/in_memory_window_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <mutex>
#include <string>
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

}  // namespace
}  // namespace statecheck
