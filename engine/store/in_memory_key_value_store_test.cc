#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "statecheck/key_value_store.h"

namespace statecheck {
namespace {

using Kvs = std::vector<std::pair<std::string, std::string>>;

// "<prefix><n>". (Not `"k" + std::to_string(n)`: GCC 12 warns falsely on it, -Wrestrict.)
std::string Numbered(std::string_view prefix, int64_t n) {
  std::string s(prefix);
  s.append(std::to_string(n));
  return s;
}

// Drains an iterator into (key, value) pairs, checking PeekNextKey along the way.
Kvs Drain(KeyValueIterator& it) {
  Kvs out;
  while (it.HasNext()) {
    std::string peeked;
    EXPECT_TRUE(it.PeekNextKey(&peeked).ok());
    KeyValue kv;
    EXPECT_TRUE(it.Next(&kv).ok());
    EXPECT_EQ(peeked, kv.key);
    out.emplace_back(kv.key, kv.value);
  }
  return out;
}

Kvs Drain(std::unique_ptr<KeyValueIterator> it) { return Drain(*it); }

Kvs RangeOf(ReadOnlyKeyValueStore& s, std::optional<std::string_view> from,
            std::optional<std::string_view> to) {
  std::unique_ptr<KeyValueIterator> it;
  EXPECT_TRUE(s.Range(from, to, &it).ok());
  return it ? Drain(std::move(it)) : Kvs{};
}

Kvs ReverseRangeOf(ReadOnlyKeyValueStore& s, std::optional<std::string_view> from,
                   std::optional<std::string_view> to) {
  std::unique_ptr<KeyValueIterator> it;
  EXPECT_TRUE(s.ReverseRange(from, to, &it).ok());
  return it ? Drain(std::move(it)) : Kvs{};
}

Kvs PrefixOf(ReadOnlyKeyValueStore& s, std::string_view prefix) {
  std::unique_ptr<KeyValueIterator> it;
  EXPECT_TRUE(s.PrefixScan(prefix, &it).ok());
  return it ? Drain(std::move(it)) : Kvs{};
}

Kvs AllOf(ReadOnlyKeyValueStore& s) {
  std::unique_ptr<KeyValueIterator> it;
  EXPECT_TRUE(s.All(&it).ok());
  return it ? Drain(std::move(it)) : Kvs{};
}

Kvs ReverseAllOf(ReadOnlyKeyValueStore& s) {
  std::unique_ptr<KeyValueIterator> it;
  EXPECT_TRUE(s.ReverseAll(&it).ok());
  return it ? Drain(std::move(it)) : Kvs{};
}

std::optional<std::string> GetOf(ReadOnlyKeyValueStore& s, std::string_view key) {
  std::optional<std::string> v;
  EXPECT_TRUE(s.Get(key, &v).ok());
  return v;
}

TEST(InMemoryKeyValueStore, Properties) {
  auto store = NewInMemoryKeyValueStore("kv");
  EXPECT_EQ(store->name(), "kv");
  EXPECT_FALSE(store->persistent());
  EXPECT_TRUE(store->is_open());
  EXPECT_EQ(store->isolation(), IsolationLevel::kReadUncommitted);
}

TEST(InMemoryKeyValueStore, PutGetDelete) {
  auto store = NewInMemoryKeyValueStore("kv");
  EXPECT_EQ(GetOf(*store, "a"), std::nullopt);
  ASSERT_TRUE(store->Put("a", "1").ok());
  EXPECT_EQ(GetOf(*store, "a"), "1");
  ASSERT_TRUE(store->Put("a", "2").ok());  // Overwrite.
  EXPECT_EQ(GetOf(*store, "a"), "2");
  ASSERT_TRUE(store->Put("empty", "").ok());  // An empty value is a value, not a delete.
  EXPECT_EQ(GetOf(*store, "empty"), "");
  ASSERT_TRUE(store->Put("", "empty key").ok());
  EXPECT_EQ(GetOf(*store, ""), "empty key");

  ASSERT_TRUE(store->Put("a", std::nullopt).ok());  // A null value deletes.
  EXPECT_EQ(GetOf(*store, "a"), std::nullopt);
  ASSERT_TRUE(store->Put("never", std::nullopt).ok());

  std::optional<std::string> old = "sentinel";
  ASSERT_TRUE(store->Delete("empty", &old).ok());
  EXPECT_EQ(old, "");
  ASSERT_TRUE(store->Delete("empty", &old).ok());
  EXPECT_EQ(old, std::nullopt);
  EXPECT_EQ(AllOf(*store), (Kvs{{"", "empty key"}}));
}

TEST(InMemoryKeyValueStore, PutIfAbsentAndPutAll) {
  auto store = NewInMemoryKeyValueStore("kv");
  std::optional<std::string> existing = "sentinel";
  ASSERT_TRUE(store->PutIfAbsent("k", "first", &existing).ok());
  EXPECT_EQ(existing, std::nullopt);
  ASSERT_TRUE(store->PutIfAbsent("k", "second", &existing).ok());
  EXPECT_EQ(existing, "first");
  EXPECT_EQ(GetOf(*store, "k"), "first");

  ASSERT_TRUE(store->PutAll({{"x", "1"}, {"y", "2"}, {"k", std::nullopt}, {"x", "3"}}).ok());
  EXPECT_EQ(AllOf(*store), (Kvs{{"x", "3"}, {"y", "2"}}));  // Applied in order.
  ASSERT_TRUE(store->PutAll({}).ok());
  EXPECT_EQ(AllOf(*store), (Kvs{{"x", "3"}, {"y", "2"}}));
}

TEST(InMemoryKeyValueStore, RangesAndPrefixes) {
  auto store = NewInMemoryKeyValueStore("kv");
  for (std::string k : {"b", "a", "ab", "abc", "ac", "c"}) ASSERT_TRUE(store->Put(k, "v" + k).ok());

  EXPECT_EQ(
      AllOf(*store),
      (Kvs{{"a", "va"}, {"ab", "vab"}, {"abc", "vabc"}, {"ac", "vac"}, {"b", "vb"}, {"c", "vc"}}));
  EXPECT_EQ(
      ReverseAllOf(*store),
      (Kvs{{"c", "vc"}, {"b", "vb"}, {"ac", "vac"}, {"abc", "vabc"}, {"ab", "vab"}, {"a", "va"}}));
  // Both bounds inclusive.
  EXPECT_EQ(RangeOf(*store, "ab", "b"),
            (Kvs{{"ab", "vab"}, {"abc", "vabc"}, {"ac", "vac"}, {"b", "vb"}}));
  EXPECT_EQ(ReverseRangeOf(*store, "ab", "b"),
            (Kvs{{"b", "vb"}, {"ac", "vac"}, {"abc", "vabc"}, {"ab", "vab"}}));
  // Bounds that are not keys.
  EXPECT_EQ(RangeOf(*store, "aa", "abz"), (Kvs{{"ab", "vab"}, {"abc", "vabc"}}));
  // A missing bound is unbounded.
  EXPECT_EQ(RangeOf(*store, std::nullopt, "ab"), (Kvs{{"a", "va"}, {"ab", "vab"}}));
  EXPECT_EQ(RangeOf(*store, "b", std::nullopt), (Kvs{{"b", "vb"}, {"c", "vc"}}));
  EXPECT_EQ(ReverseRangeOf(*store, "b", std::nullopt), (Kvs{{"c", "vc"}, {"b", "vb"}}));
  EXPECT_EQ(RangeOf(*store, std::nullopt, std::nullopt).size(), 6u);
  // A one-key range.
  EXPECT_EQ(RangeOf(*store, "ac", "ac"), (Kvs{{"ac", "vac"}}));
  // from > to: empty, whatever lies between.
  EXPECT_EQ(RangeOf(*store, "c", "a"), Kvs{});
  EXPECT_EQ(ReverseRangeOf(*store, "c", "a"), Kvs{});
  EXPECT_EQ(RangeOf(*store, "x", "y"), Kvs{});

  // Prefix scan: a key equal to the prefix is included; "a" covers "ab" but not "b".
  EXPECT_EQ(PrefixOf(*store, "a"),
            (Kvs{{"a", "va"}, {"ab", "vab"}, {"abc", "vabc"}, {"ac", "vac"}}));
  EXPECT_EQ(PrefixOf(*store, "ab"), (Kvs{{"ab", "vab"}, {"abc", "vabc"}}));
  EXPECT_EQ(PrefixOf(*store, "b"), (Kvs{{"b", "vb"}}));
  EXPECT_EQ(PrefixOf(*store, "abcd"), Kvs{});
  EXPECT_EQ(PrefixOf(*store, "d"), Kvs{});
  EXPECT_EQ(PrefixOf(*store, "").size(), 6u);  // The empty prefix is every key.
}

TEST(InMemoryKeyValueStore, KeysCompareAsUnsignedBytes) {
  auto store = NewInMemoryKeyValueStore("kv");
  const std::string zero("\x00", 1);
  const std::string ff("\xff", 1);
  const std::string a_zero("a\x00", 2);
  const std::string a_ff("a\xff", 2);
  for (const std::string& k : {ff, zero, std::string("a"), a_ff, a_zero, std::string("\x7f")}) {
    ASSERT_TRUE(store->Put(k, "v").ok());
  }
  std::vector<std::string> keys;
  for (const auto& [k, v] : AllOf(*store)) keys.push_back(k);
  // 0x00 < "a" < "a\x00" < "a\xff" < 0x7f < 0xff: a prefix first, 0xff last.
  EXPECT_EQ(keys, (std::vector<std::string>{zero, "a", a_zero, a_ff, "\x7f", ff}));

  keys.clear();
  for (const auto& [k, v] : RangeOf(*store, "\x7f", ff)) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"\x7f", ff}));
  EXPECT_EQ(RangeOf(*store, ff, zero), Kvs{});  // 0xff > 0x00: from > to.
  EXPECT_EQ(PrefixOf(*store, ff).size(), 1u);
  EXPECT_EQ(PrefixOf(*store, "a").size(), 3u);
  EXPECT_EQ(GetOf(*store, zero), "v");
  EXPECT_EQ(GetOf(*store, ""), std::nullopt);  // "" is not "\0".
}

TEST(InMemoryKeyValueStore, NeverReportsUncommittedBytes) {
  auto store = NewInMemoryKeyValueStore("kv");
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(store->Put(Numbered("key", i), std::string(1000, 'x')).ok());
  }
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  ASSERT_TRUE(store->Commit({}).ok());
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
}

TEST(InMemoryKeyValueStore, CommitOffsets) {
  auto store = NewInMemoryKeyValueStore("kv");
  EXPECT_EQ(store->CommittedOffset("cl-0"), std::nullopt);
  ASSERT_TRUE(store->Commit({{"cl-0", 5}, {"cl-1", 7}}).ok());
  EXPECT_EQ(store->CommittedOffset("cl-0"), 5);
  EXPECT_EQ(store->CommittedOffset("cl-1"), 7);
  EXPECT_EQ(store->CommittedOffset("cl-2"), std::nullopt);

  // Partitions not named are kept; a value replaces, even with a smaller offset.
  ASSERT_TRUE(store->Commit({{"cl-0", 3}}).ok());
  EXPECT_EQ(store->CommittedOffset("cl-0"), 3);
  EXPECT_EQ(store->CommittedOffset("cl-1"), 7);

  // A null value clears that partition only; clearing an unknown one is harmless.
  ASSERT_TRUE(store->Commit({{"cl-1", std::nullopt}, {"cl-9", std::nullopt}}).ok());
  EXPECT_EQ(store->CommittedOffset("cl-0"), 3);
  EXPECT_EQ(store->CommittedOffset("cl-1"), std::nullopt);

  // An empty map clears every offset.
  ASSERT_TRUE(store->Commit({{"cl-1", 8}}).ok());
  ASSERT_TRUE(store->Commit({}).ok());
  EXPECT_EQ(store->CommittedOffset("cl-0"), std::nullopt);
  EXPECT_EQ(store->CommittedOffset("cl-1"), std::nullopt);

  // Commit does not touch the data.
  ASSERT_TRUE(store->Put("k", "v").ok());
  ASSERT_TRUE(store->Commit({{"cl-0", 1}}).ok());
  EXPECT_EQ(GetOf(*store, "k"), "v");
}

TEST(InMemoryKeyValueStore, Positions) {
  auto store = NewInMemoryKeyValueStore("kv");
  EXPECT_EQ(store->UncommittedPosition(), Position{});
  EXPECT_EQ(store->CommittedPosition(), Position{});

  const RecordContext p0_10{"in-0", 10};
  const RecordContext p0_4{"in-0", 4};
  const RecordContext p1_2{"in-1", 2};
  ASSERT_TRUE(store->Put("a", "1", &p0_10).ok());
  ASSERT_TRUE(store->Put("b", "1").ok());         // No context: no move.
  ASSERT_TRUE(store->Put("a", "2", &p0_4).ok());  // Positions never go back.
  ASSERT_TRUE(store->Put("c", "1", &p1_2).ok());
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 10}, {"in-1", 2}}));
  EXPECT_EQ(store->CommittedPosition(), Position{});
  EXPECT_EQ(GetOf(*store, "a"), "2");  // The write itself still applies.

  ASSERT_TRUE(store->Commit({}).ok());
  EXPECT_EQ(store->CommittedPosition(), (Position{{"in-0", 10}, {"in-1", 2}}));

  // Every kind of write moves the uncommitted position; the committed one waits for a commit.
  const RecordContext p0_11{"in-0", 11};
  const RecordContext p0_12{"in-0", 12};
  const RecordContext p0_13{"in-0", 13};
  const RecordContext p0_14{"in-0", 14};
  const RecordContext p0_15{"in-0", 15};
  std::optional<std::string> out;
  ASSERT_TRUE(store->Delete("b", &out, &p0_11).ok());
  EXPECT_EQ(store->UncommittedPosition().at("in-0"), 11);
  ASSERT_TRUE(store->Delete("absent", &out, &p0_12).ok());  // As Kafka: a no-op delete too.
  EXPECT_EQ(store->UncommittedPosition().at("in-0"), 12);
  ASSERT_TRUE(store->PutAll({{"d", "1"}}, &p0_13).ok());
  EXPECT_EQ(store->UncommittedPosition().at("in-0"), 13);
  ASSERT_TRUE(store->PutIfAbsent("e", "1", &out, &p0_14).ok());
  EXPECT_EQ(store->UncommittedPosition().at("in-0"), 14);
  ASSERT_TRUE(store->PutIfAbsent("e", "2", &out, &p0_15).ok());  // As Kafka: no write, no move.
  EXPECT_EQ(store->UncommittedPosition().at("in-0"), 14);
  ASSERT_TRUE(store->Put("f", std::nullopt, &p0_15).ok());
  EXPECT_EQ(store->UncommittedPosition().at("in-0"), 15);
  EXPECT_EQ(store->CommittedPosition().at("in-0"), 10);

  ASSERT_TRUE(store->Commit({{"cl", 3}}).ok());
  EXPECT_EQ(store->CommittedPosition(), store->UncommittedPosition());
}

TEST(InMemoryKeyValueStore, RollbackIsAnError) {
  auto store = NewInMemoryKeyValueStore("kv");
  ASSERT_TRUE(store->Put("a", "1").ok());
  EXPECT_EQ(store->Rollback(),
            Status::FailedPrecondition("store kv writes through: there is nothing to roll back"));
  EXPECT_EQ(GetOf(*store, "a"), "1");  // Nothing was discarded.
}

TEST(InMemoryKeyValueStore, IteratorIsASnapshot) {
  auto store = NewInMemoryKeyValueStore("kv");
  for (std::string k : {"a", "b", "c", "d"}) ASSERT_TRUE(store->Put(k, "old").ok());

  std::unique_ptr<KeyValueIterator> forward, backward, prefix;
  ASSERT_TRUE(store->All(&forward).ok());
  ASSERT_TRUE(store->ReverseAll(&backward).ok());
  ASSERT_TRUE(store->PrefixScan("", &prefix).ok());
  KeyValue kv;
  ASSERT_TRUE(forward->Next(&kv).ok());
  EXPECT_EQ(kv, (KeyValue{"a", "old"}));

  // The writer keeps writing: deletes, overwrites, inserts before and after the cursor.
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("b", &old).ok());
  ASSERT_TRUE(store->Put("c", "new").ok());
  ASSERT_TRUE(store->Put("aa", "new").ok());
  ASSERT_TRUE(store->Put("e", "new").ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store->Put(Numbered("z", i), "x").ok());

  EXPECT_EQ(Drain(*forward), (Kvs{{"b", "old"}, {"c", "old"}, {"d", "old"}}));
  EXPECT_EQ(Drain(*backward), (Kvs{{"d", "old"}, {"c", "old"}, {"b", "old"}, {"a", "old"}}));
  prefix->Close();
  EXPECT_FALSE(prefix->HasNext());
  prefix->Close();  // Idempotent.

  // Past the end.
  EXPECT_FALSE(forward->HasNext());
  kv = KeyValue{"untouched", "untouched"};
  EXPECT_EQ(forward->Next(&kv).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(kv, (KeyValue{"untouched", "untouched"}));
  std::string key = "untouched";
  EXPECT_EQ(forward->PeekNextKey(&key).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(key, "untouched");

  // An empty range is an iterator with nothing in it.
  std::unique_ptr<KeyValueIterator> empty;
  ASSERT_TRUE(store->Range("z", "a", &empty).ok());
  ASSERT_NE(empty, nullptr);
  EXPECT_FALSE(empty->HasNext());
  EXPECT_EQ(empty->Next(&kv).code(), Status::Code::kOutOfRange);
}

TEST(InMemoryKeyValueStore, ClosedStore) {
  auto store = NewInMemoryKeyValueStore("kv");
  ASSERT_TRUE(store->Put("a", "1").ok());
  ASSERT_TRUE(store->Put("b", "2").ok());
  auto view = store->NewQueryView();
  std::unique_ptr<KeyValueIterator> open_it;
  ASSERT_TRUE(store->All(&open_it).ok());
  std::unique_ptr<KeyValueIterator> view_it;
  ASSERT_TRUE(view->All(&view_it).ok());

  store->Close();
  EXPECT_FALSE(store->is_open());
  store->Close();  // Idempotent.
  EXPECT_FALSE(store->is_open());

  const Status closed = Status::FailedPrecondition("Store kv is currently closed.");
  std::optional<std::string> v = "untouched";
  std::unique_ptr<KeyValueIterator> it;
  for (ReadOnlyKeyValueStore* reader : {static_cast<ReadOnlyKeyValueStore*>(store.get()),
                                        static_cast<ReadOnlyKeyValueStore*>(view.get())}) {
    EXPECT_EQ(reader->Get("a", &v), closed);
    EXPECT_EQ(v, "untouched");
    EXPECT_EQ(reader->Range("a", "b", &it), closed);
    EXPECT_EQ(reader->ReverseRange("a", "b", &it), closed);
    EXPECT_EQ(reader->PrefixScan("a", &it), closed);
    EXPECT_EQ(reader->All(&it), closed);
    EXPECT_EQ(reader->ReverseAll(&it), closed);
    EXPECT_EQ(it, nullptr);
  }
  EXPECT_EQ(store->Put("a", "x"), closed);
  EXPECT_EQ(store->PutIfAbsent("c", "x", &v), closed);
  EXPECT_EQ(store->PutAll({{"c", "x"}}), closed);
  EXPECT_EQ(store->Delete("a", &v), closed);
  EXPECT_EQ(v, "untouched");
  EXPECT_EQ(store->Commit({{"cl", 1}}), closed);
  EXPECT_EQ(store->Rollback(), closed);
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);

  // A view made after the close is closed too.
  auto late_view = store->NewQueryView();
  EXPECT_EQ(late_view->Get("a", &v), closed);

  // Closing the store closes its open iterators.
  EXPECT_FALSE(open_it->HasNext());
  KeyValue kv;
  EXPECT_EQ(open_it->Next(&kv).code(), Status::Code::kOutOfRange);
  EXPECT_FALSE(view_it->HasNext());

  // The store outlives nothing: iterators and views may outlive the store object.
  store.reset();
  EXPECT_EQ(view->Get("a", &v), closed);
  EXPECT_FALSE(view_it->HasNext());
}

TEST(InMemoryKeyValueStore, QueryViewSeesWritesAtOnce) {
  auto store = NewInMemoryKeyValueStore("kv");
  auto view = store->NewQueryView();
  EXPECT_EQ(view->LastReadPosition(), Position{});
  const RecordContext ctx{"in-0", 7};
  ASSERT_TRUE(store->Put("a", "1", &ctx).ok());
  EXPECT_EQ(GetOf(*view, "a"), "1");  // Visible before any commit (T3).
  EXPECT_EQ(view->LastReadPosition(), (Position{{"in-0", 7}}));
  EXPECT_EQ(store->CommittedPosition(), Position{});

  const RecordContext ctx2{"in-0", 8};
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("a", &old, &ctx2).ok());
  EXPECT_EQ(view->LastReadPosition(), (Position{{"in-0", 7}}));  // Until the next read.
  EXPECT_EQ(AllOf(*view), Kvs{});
  EXPECT_EQ(view->LastReadPosition(), (Position{{"in-0", 8}}));

  ASSERT_TRUE(store->PutAll({{"p1", "x"}, {"p2", "y"}, {"q", "z"}}).ok());
  EXPECT_EQ(RangeOf(*view, "p", "p3"), (Kvs{{"p1", "x"}, {"p2", "y"}}));
  EXPECT_EQ(ReverseRangeOf(*view, "p", "p3"), (Kvs{{"p2", "y"}, {"p1", "x"}}));
  EXPECT_EQ(PrefixOf(*view, "p"), (Kvs{{"p1", "x"}, {"p2", "y"}}));
  EXPECT_EQ(ReverseAllOf(*view).size(), 3u);
}

// A reader thread hammers a view while the writer writes: no crash, no torn read, and every
// value it reads is one the writer wrote. Brief: ~200 ms. Most useful under the sanitizers.
TEST(InMemoryKeyValueStore, QueryViewFromAnotherThread) {
  auto store = NewInMemoryKeyValueStore("kv");
  auto view = store->NewQueryView();
  std::atomic<bool> stop{false};
  std::atomic<int64_t> reads{0};
  std::atomic<int> bad{0};

  auto reader = [&] {
    int64_t last_offset = -1;
    while (!stop.load()) {
      std::optional<std::string> v;
      if (!view->Get("counter", &v).ok()) ++bad;
      // The writer stores "value-<n>" only.
      if (v && v->rfind("value-", 0) != 0) ++bad;
      std::unique_ptr<KeyValueIterator> it;
      if (!view->PrefixScan("k", &it).ok()) {
        ++bad;
        continue;
      }
      std::string prev;
      KeyValue kv;
      while (it->HasNext()) {
        if (!it->Next(&kv).ok() || (!prev.empty() && kv.key <= prev)) ++bad;
        prev = kv.key;
      }
      // The position a view reports never goes back.
      const Position p = view->LastReadPosition();
      if (auto found = p.find("in-0"); found != p.end()) {
        if (found->second < last_offset) ++bad;
        last_offset = found->second;
      }
      ++reads;
    }
  };
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i) readers.emplace_back(reader);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  int64_t n = 0;
  while (std::chrono::steady_clock::now() < deadline || reads.load() < 10) {
    const RecordContext ctx{"in-0", n};
    ASSERT_TRUE(store->Put("counter", Numbered("value-", n), &ctx).ok());
    ASSERT_TRUE(store->Put(Numbered("k", n % 64), std::to_string(n), &ctx).ok());
    if (n % 3 == 0) {
      std::optional<std::string> old;
      ASSERT_TRUE(store->Delete(Numbered("k", (n * 7) % 64), &old, &ctx).ok());
    }
    if (n % 100 == 0) {
      ASSERT_TRUE(store->Commit({{"cl", n}}).ok());
    }
    ++n;
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);

  // The writer closes while a reader is still reading: reads turn into the closed error.
  std::atomic<bool> saw_closed{false};
  std::thread late([&] {
    std::optional<std::string> v;
    while (true) {
      const Status s = view->Get("counter", &v);
      if (!s.ok()) {
        saw_closed = s.code() == Status::Code::kFailedPrecondition;
        return;
      }
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  store->Close();
  late.join();
  EXPECT_TRUE(saw_closed.load());
}

}  // namespace
}  // namespace statecheck
