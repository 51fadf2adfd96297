// Unit tests of the key-value store model against hand-computed expectations (SPEC T3–T9).
#include "model/key_value_store_model.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace statecheck {

// Readable failure messages for the records the tests compare.
void PrintTo(const KeyValue& kv, std::ostream* os) {
  *os << "{" << testing::PrintToString(kv.key) << ": " << testing::PrintToString(kv.value) << "}";
}

namespace model {
namespace {

using Records = std::vector<KeyValue>;
using std::nullopt;

constexpr IsolationLevel kRC = IsolationLevel::kReadCommitted;
constexpr IsolationLevel kRU = IsolationLevel::kReadUncommitted;

const Status kClosed = Status::FailedPrecondition("Store s is currently closed.");

std::unique_ptr<KeyValueStore> MakeStore(IsolationLevel isolation) {
  return NewKeyValueStoreModel("s", isolation);
}

Records Drain(KeyValueIterator* it) {
  Records out;
  while (it->HasNext()) {
    KeyValue kv;
    EXPECT_TRUE(it->Next(&kv).ok());
    out.push_back(kv);
  }
  return out;
}

// Opens an iterator with `open` and drains it.
template <typename Open>
Records Read(Open open) {
  std::unique_ptr<KeyValueIterator> it;
  const Status s = open(&it);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return {};
  return Drain(it.get());
}

Records AllOf(ReadOnlyKeyValueStore& store) {
  return Read([&](auto* it) { return store.All(it); });
}

std::optional<std::string> GetOf(ReadOnlyKeyValueStore& store, std::string_view key) {
  std::optional<std::string> value;
  const Status s = store.Get(key, &value);
  EXPECT_TRUE(s.ok()) << s;
  return value;
}

void MustPut(KeyValueStore& store, std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context = nullptr) {
  const Status s = store.Put(key, value, context);
  ASSERT_TRUE(s.ok()) << s;
}

void MustCommit(KeyValueStore& store, const ChangelogOffsets& offsets = {}) {
  const Status s = store.Commit(offsets);
  ASSERT_TRUE(s.ok()) << s;
}

TEST(KeyValueStoreModel, ReportsWhatItWasMadeWith) {
  auto rc = NewKeyValueStoreModel("rc", kRC);
  EXPECT_EQ(rc->name(), "rc");
  EXPECT_EQ(rc->isolation(), kRC);
  EXPECT_TRUE(rc->persistent());
  EXPECT_TRUE(rc->is_open());
  auto ru = NewKeyValueStoreModel("ru", kRU, /*persistent=*/false);
  EXPECT_EQ(ru->isolation(), kRU);
  EXPECT_FALSE(ru->persistent());
}

// Kafka's stores differ here: RocksDBStore.putAll updates the position after its batch, whatever
// it holds; InMemoryKeyValueStore.putAll is one put per entry (T8). Found by the in_memory_kv
// family's first run: the engine's in-memory store followed Kafka's, the model the RocksDB one.
TEST(KeyValueStoreModel, AnEmptyPutAllMovesAPersistentStoresPositionOnly) {
  const RecordContext context{"in-0", 7};
  auto persistent = NewKeyValueStoreModel("p", kRU);
  ASSERT_TRUE(persistent->PutAll({}, &context).ok());
  EXPECT_EQ(persistent->UncommittedPosition(), (Position{{"in-0", 7}}));
  auto in_memory = NewKeyValueStoreModel("m", kRU, /*persistent=*/false);
  ASSERT_TRUE(in_memory->PutAll({}, &context).ok());
  EXPECT_TRUE(in_memory->UncommittedPosition().empty());
  ASSERT_TRUE(in_memory->PutAll({{"a", "1"}}, &context).ok());
  EXPECT_EQ(in_memory->UncommittedPosition(), (Position{{"in-0", 7}}));
}

TEST(KeyValueStoreModel, ReadYourWritesWithABufferedDeleteHidingTheCommittedValue) {
  auto store = MakeStore(kRC);
  MustPut(*store, "a", "1");
  MustPut(*store, "b", "2");
  MustCommit(*store);

  MustPut(*store, "a", "1x");
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("b", &old).ok());
  EXPECT_EQ(old, "2");
  MustPut(*store, "c", "3");

  EXPECT_EQ(GetOf(*store, "a"), "1x");
  EXPECT_EQ(GetOf(*store, "b"), nullopt);
  EXPECT_EQ(GetOf(*store, "c"), "3");
  EXPECT_EQ(AllOf(*store), (Records{{"a", "1x"}, {"c", "3"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->ReverseAll(it); }),
            (Records{{"c", "3"}, {"a", "1x"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->Range("b", nullopt, it); }), (Records{{"c", "3"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->ReverseRange(nullopt, "b", it); }),
            (Records{{"a", "1x"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->PrefixScan("b", it); }), Records{});

  // A view still sees the committed state.
  auto view = store->NewQueryView();
  EXPECT_EQ(GetOf(*view, "b"), "2");
  EXPECT_EQ(AllOf(*view), (Records{{"a", "1"}, {"b", "2"}}));
}

TEST(KeyValueStoreModel, QueryViewNeverSeesPendingWrites) {
  auto store = MakeStore(kRC);
  auto view = store->NewQueryView();
  EXPECT_EQ(view->LastReadPosition(), Position{});  // No read yet.

  const RecordContext ctx{"in-0", 5};
  MustPut(*store, "x", "1", &ctx);
  EXPECT_EQ(GetOf(*view, "x"), nullopt);
  EXPECT_EQ(AllOf(*view), Records{});
  EXPECT_EQ(Read([&](auto* it) { return view->PrefixScan("x", it); }), Records{});
  EXPECT_EQ(view->LastReadPosition(), Position{});  // The committed position.
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 5}}));
  EXPECT_EQ(store->CommittedPosition(), Position{});

  // A buffered delete does not hide the committed value from a view either.
  MustCommit(*store);
  MustPut(*store, "x", nullopt);
  EXPECT_EQ(GetOf(*view, "x"), "1");
  EXPECT_EQ(view->LastReadPosition(), (Position{{"in-0", 5}}));
}

TEST(KeyValueStoreModel, CommitMakesEveryWriteVisibleAtOnce) {
  auto store = MakeStore(kRC);
  auto view = store->NewQueryView();
  const RecordContext c0{"in-0", 0}, c1{"in-0", 1}, c2{"in-1", 9};
  MustPut(*store, "a", "1", &c0);
  MustPut(*store, "b", "2", &c1);
  MustPut(*store, "c", "3", &c2);
  EXPECT_EQ(AllOf(*view), Records{});

  MustCommit(*store, {{"changelog-0", 2}});
  EXPECT_EQ(AllOf(*view), (Records{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(view->LastReadPosition(), (Position{{"in-0", 1}, {"in-1", 9}}));
  EXPECT_EQ(store->CommittedPosition(), store->UncommittedPosition());
  EXPECT_EQ(store->CommittedOffset("changelog-0"), 2);
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
}

// Each commit writes a = b = i at position i; a concurrent reader must never see a != b, and
// what it sees must be exactly the state at the position it reports (T4, T8).
TEST(KeyValueStoreModel, ConcurrentViewSeesWholeCommitsAtTheirPosition) {
  auto store = MakeStore(kRC);
  auto view = store->NewQueryView();
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread reader([&] {
    while (!done.load()) {
      const Records got = AllOf(*view);
      const Position at = view->LastReadPosition();
      if (at.empty()) {
        if (!got.empty()) ++bad;
        continue;
      }
      const std::string i = std::to_string(at.at("in"));
      if (got != Records{{"a", i}, {"b", i}}) ++bad;
    }
  });
  for (int64_t i = 0; i < 2000; ++i) {
    const RecordContext ctx{"in", i};
    MustPut(*store, "a", std::to_string(i), &ctx);
    MustPut(*store, "b", std::to_string(i), &ctx);
    MustCommit(*store);
  }
  done = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(KeyValueStoreModel, RollbackRestoresTheCommittedStateAndPosition) {
  auto store = MakeStore(kRC);
  const RecordContext c1{"in-0", 1}, c7{"in-0", 7}, c3{"in-1", 3};
  MustPut(*store, "a", "1", &c1);
  MustCommit(*store, {{"cl", 1}});

  MustPut(*store, "a", "2", &c7);
  MustPut(*store, "b", "2", &c3);
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("a", &old).ok());
  EXPECT_EQ(old, "2");
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 7}, {"in-1", 3}}));

  ASSERT_TRUE(store->Rollback().ok());
  EXPECT_EQ(AllOf(*store), (Records{{"a", "1"}}));
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 1}}));
  EXPECT_EQ(store->CommittedPosition(), (Position{{"in-0", 1}}));
  EXPECT_EQ(store->CommittedOffset("cl"), 1);

  // Rolling back with nothing buffered is fine and changes nothing.
  ASSERT_TRUE(store->Rollback().ok());
  EXPECT_EQ(AllOf(*store), (Records{{"a", "1"}}));
}

TEST(KeyValueStoreModel, EmptyOffsetsClearAllAndANullOffsetClearsOne) {
  auto store = MakeStore(kRC);
  MustCommit(*store, {{"x", 1}, {"y", 2}});
  EXPECT_EQ(store->CommittedOffset("x"), 1);
  EXPECT_EQ(store->CommittedOffset("y"), 2);
  EXPECT_EQ(store->CommittedOffset("z"), nullopt);

  MustCommit(*store, {{"x", nullopt}});
  EXPECT_EQ(store->CommittedOffset("x"), nullopt);
  EXPECT_EQ(store->CommittedOffset("y"), 2);

  MustCommit(*store, {{"x", 5}, {"z", nullopt}});  // Clearing an absent partition is a no-op.
  EXPECT_EQ(store->CommittedOffset("x"), 5);
  EXPECT_EQ(store->CommittedOffset("y"), 2);

  MustCommit(*store, {});
  EXPECT_EQ(store->CommittedOffset("x"), nullopt);
  EXPECT_EQ(store->CommittedOffset("y"), nullopt);
}

TEST(KeyValueStoreModel, UncommittedBytesAreKeyPlusValueOverPendingEntries) {
  auto store = MakeStore(kRC);
  MustPut(*store, "ab", "cde");
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 2 + 3);
  MustPut(*store, "ab", "z");  // Replaces the entry: counted once, with its last value.
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 2 + 1);
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("k", &old).ok());  // A delete of an absent key is buffered too.
  EXPECT_EQ(old, nullopt);
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 3 + 1);
  MustPut(*store, "ab", nullopt);  // Now a buffered delete: the key alone.
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 2 + 1);
  ASSERT_TRUE(store->PutAll({{"q", "rs"}, {"", "v"}}).ok());  // An empty key counts 0.
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 3 + 3 + 1);
  MustPut(*store, "e", "");  // An empty value is a value, not a delete.
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 7 + 1);
  EXPECT_EQ(GetOf(*store, "e"), "");

  MustCommit(*store);
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  EXPECT_EQ(AllOf(*store), (Records{{"", "v"}, {"e", ""}, {"q", "rs"}}));
}

TEST(KeyValueStoreModel, ReadUncommittedWritesAreVisibleAtOnce) {
  auto store = MakeStore(kRU);
  auto view = store->NewQueryView();
  const RecordContext ctx{"in-0", 4};
  MustPut(*store, "a", "1", &ctx);
  EXPECT_EQ(GetOf(*view, "a"), "1");
  EXPECT_EQ(view->LastReadPosition(), (Position{{"in-0", 4}}));  // The uncommitted position.
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  EXPECT_EQ(store->CommittedPosition(), Position{});

  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("a", &old).ok());
  EXPECT_EQ(old, "1");
  EXPECT_EQ(AllOf(*view), Records{});

  MustPut(*store, "b", "2");
  MustCommit(*store, {{"cl", 0}});
  EXPECT_EQ(store->CommittedOffset("cl"), 0);
  EXPECT_EQ(store->CommittedPosition(), (Position{{"in-0", 4}}));
  EXPECT_EQ(AllOf(*view), (Records{{"b", "2"}}));
}

TEST(KeyValueStoreModel, ReadUncommittedRollbackIsFailedPrecondition) {
  auto store = MakeStore(kRU);
  MustPut(*store, "a", "1");
  const RecordContext ctx{"in-0", 3};
  MustPut(*store, "b", "2", &ctx);
  EXPECT_EQ(store->Rollback().code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(AllOf(*store), (Records{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 3}}));
}

TEST(KeyValueStoreModel, PutIfAbsentAndDeleteReturnTheWriterVisibleOldValue) {
  auto store = MakeStore(kRC);
  MustPut(*store, "a", "1");
  MustCommit(*store);

  const RecordContext ctx{"in-0", 8};
  std::optional<std::string> existing;
  ASSERT_TRUE(store->PutIfAbsent("a", "2", &existing, &ctx).ok());
  EXPECT_EQ(existing, "1");
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);  // Nothing was written...
  EXPECT_EQ(store->UncommittedPosition(), Position{});    // ...so the position stays.

  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("a", &old).ok());
  EXPECT_EQ(old, "1");
  ASSERT_TRUE(store->PutIfAbsent("a", "3", &existing, &ctx).ok());  // Absent to the writer.
  EXPECT_EQ(existing, nullopt);
  EXPECT_EQ(GetOf(*store, "a"), "3");
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 8}}));
  ASSERT_TRUE(store->Delete("a", &old).ok());
  EXPECT_EQ(old, "3");  // The pending value, not the committed one.
  ASSERT_TRUE(store->Delete("a", &old).ok());
  EXPECT_EQ(old, nullopt);
}

TEST(KeyValueStoreModel, PutAllAppliesInOrder) {
  auto store = MakeStore(kRC);
  const RecordContext ctx{"in-0", 2};
  ASSERT_TRUE(store->PutAll({{"k", "1"}, {"k", nullopt}, {"j", "2"}, {"k", "3"}}, &ctx).ok());
  EXPECT_EQ(AllOf(*store), (Records{{"j", "2"}, {"k", "3"}}));
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 2}}));
  ASSERT_TRUE(store->PutAll({{"j", nullopt}}).ok());
  EXPECT_EQ(AllOf(*store), (Records{{"k", "3"}}));
}

TEST(KeyValueStoreModel, PositionKeepsTheLargestOffsetPerPartition) {
  auto store = MakeStore(kRC);
  const RecordContext a5{"a", 5}, a3{"a", 3}, b7{"b", 7}, a6{"a", 6};
  MustPut(*store, "k", "1", &a5);
  MustPut(*store, "k", "2", &a3);
  MustPut(*store, "k", "3", &b7);
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"a", 5}, {"b", 7}}));
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("k", &old, &a6).ok());
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"a", 6}, {"b", 7}}));
  MustPut(*store, "k", "4");  // No context: no change.
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"a", 6}, {"b", 7}}));
}

TEST(KeyValueStoreModel, IteratorsAreSnapshotsTakenAtOpen) {
  auto store = MakeStore(kRC);
  MustPut(*store, "a", "1");
  MustPut(*store, "b", "2");
  MustCommit(*store);
  MustPut(*store, "c", "3");

  std::unique_ptr<KeyValueIterator> writer_it;
  ASSERT_TRUE(store->All(&writer_it).ok());
  auto view = store->NewQueryView();
  std::unique_ptr<KeyValueIterator> view_it;
  ASSERT_TRUE(view->ReverseAll(&view_it).ok());

  KeyValue kv;
  ASSERT_TRUE(writer_it->Next(&kv).ok());
  EXPECT_EQ(kv, (KeyValue{"a", "1"}));
  MustPut(*store, "b", "changed");
  MustPut(*store, "a0", "new");
  std::optional<std::string> old;
  ASSERT_TRUE(store->Delete("c", &old).ok());
  MustCommit(*store);
  MustPut(*store, "z", "later");
  ASSERT_TRUE(store->Rollback().ok());

  EXPECT_EQ(Drain(writer_it.get()), (Records{{"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(Drain(view_it.get()), (Records{{"b", "2"}, {"a", "1"}}));
}

TEST(KeyValueStoreModel, IteratorPastTheEndIsOutOfRange) {
  auto store = MakeStore(kRC);
  MustPut(*store, "a", "1");
  std::unique_ptr<KeyValueIterator> it;
  ASSERT_TRUE(store->All(&it).ok());
  std::string key;
  ASSERT_TRUE(it->PeekNextKey(&key).ok());
  EXPECT_EQ(key, "a");
  KeyValue kv;
  ASSERT_TRUE(it->Next(&kv).ok());
  EXPECT_FALSE(it->HasNext());
  kv = KeyValue{"untouched", "x"};
  EXPECT_EQ(it->Next(&kv).code(), Status::Code::kOutOfRange);
  EXPECT_EQ(kv, (KeyValue{"untouched", "x"}));
  EXPECT_EQ(it->PeekNextKey(&key).code(), Status::Code::kOutOfRange);

  // Closing early ends the iteration; closing twice is fine.
  ASSERT_TRUE(store->All(&it).ok());
  it->Close();
  it->Close();
  EXPECT_FALSE(it->HasNext());
  EXPECT_EQ(it->Next(&kv).code(), Status::Code::kOutOfRange);
}

TEST(KeyValueStoreModel, KeysOrderAsUnsignedBytesAPrefixFirst) {
  const std::string zero("\0", 1);
  const std::string ff("\xff", 1);
  auto store = MakeStore(kRC);
  // Half committed, half pending, so the merge is ordered too.
  MustPut(*store, ff, "ff");
  MustPut(*store, "ab", "ab");
  MustCommit(*store);
  MustPut(*store, "b", "b");
  MustPut(*store, "a", "a");
  MustPut(*store, zero, "00");

  const Records all{{zero, "00"}, {"a", "a"}, {"ab", "ab"}, {"b", "b"}, {ff, "ff"}};
  EXPECT_EQ(AllOf(*store), all);
  EXPECT_EQ(Read([&](auto* it) { return store->ReverseAll(it); }),
            Records(all.rbegin(), all.rend()));
  EXPECT_EQ(Read([&](auto* it) { return store->PrefixScan("a", it); }),
            (Records{{"a", "a"}, {"ab", "ab"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->PrefixScan(ff, it); }), (Records{{ff, "ff"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->PrefixScan(zero, it); }), (Records{{zero, "00"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->PrefixScan("", it); }), all);
  EXPECT_EQ(Read([&](auto* it) { return store->PrefixScan("abc", it); }), Records{});

  // Bounds are inclusive; a missing one is unbounded; from > to is empty.
  EXPECT_EQ(Read([&](auto* it) { return store->Range("a", "ab", it); }),
            (Records{{"a", "a"}, {"ab", "ab"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->Range(nullopt, "a", it); }),
            (Records{{zero, "00"}, {"a", "a"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->ReverseRange("ab", nullopt, it); }),
            (Records{{ff, "ff"}, {"b", "b"}, {"ab", "ab"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->Range("aa", "az", it); }), (Records{{"ab", "ab"}}));
  EXPECT_EQ(Read([&](auto* it) { return store->Range("b", "a", it); }), Records{});
  EXPECT_EQ(Read([&](auto* it) { return store->ReverseRange(ff, zero, it); }), Records{});
  EXPECT_EQ(Read([&](auto* it) { return store->Range(nullopt, nullopt, it); }), all);

  // A view orders the committed keys the same way.
  auto view = store->NewQueryView();
  EXPECT_EQ(AllOf(*view), (Records{{"ab", "ab"}, {ff, "ff"}}));
}

TEST(KeyValueStoreModel, ClosedStoreAndItsViewsAreFailedPrecondition) {
  auto store = MakeStore(kRC);
  const RecordContext c1{"in-0", 1}, c2{"in-0", 2};
  MustPut(*store, "a", "1", &c1);
  MustCommit(*store, {{"cl", 1}});
  MustPut(*store, "b", "2", &c2);  // Pending: lost on close.
  auto view = store->NewQueryView();
  ASSERT_EQ(GetOf(*view, "a"), "1");
  std::unique_ptr<KeyValueIterator> open_it;
  ASSERT_TRUE(store->All(&open_it).ok());

  store->Close();
  EXPECT_FALSE(store->is_open());
  EXPECT_EQ(store->ApproximateNumUncommittedBytes(), 0);
  EXPECT_EQ(store->UncommittedPosition(), (Position{{"in-0", 1}}));
  EXPECT_EQ(store->CommittedPosition(), (Position{{"in-0", 1}}));
  EXPECT_EQ(store->CommittedOffset("cl"), 1);  // Metadata still answers.
  EXPECT_FALSE(open_it->HasNext());            // Closing the store closed its iterators.

  std::optional<std::string> value = "untouched";
  EXPECT_EQ(store->Get("a", &value), kClosed);
  EXPECT_EQ(value, nullopt);
  std::unique_ptr<KeyValueIterator> it;
  EXPECT_EQ(store->Range("a", "b", &it), kClosed);
  EXPECT_EQ(it, nullptr);
  EXPECT_EQ(store->ReverseRange("a", "b", &it), kClosed);
  EXPECT_EQ(store->PrefixScan("a", &it), kClosed);
  EXPECT_EQ(store->All(&it), kClosed);
  EXPECT_EQ(store->ReverseAll(&it), kClosed);
  EXPECT_EQ(store->Put("a", "2"), kClosed);
  EXPECT_EQ(store->PutIfAbsent("c", "2", &value), kClosed);
  EXPECT_EQ(store->PutAll({{"c", "2"}}), kClosed);
  EXPECT_EQ(store->Delete("a", &value), kClosed);
  EXPECT_EQ(store->Commit({}), kClosed);
  EXPECT_EQ(store->Rollback(), kClosed);

  const Position before = view->LastReadPosition();
  EXPECT_EQ(view->Get("a", &value), kClosed);
  EXPECT_EQ(view->Range(nullopt, nullopt, &it), kClosed);
  EXPECT_EQ(view->ReverseRange(nullopt, nullopt, &it), kClosed);
  EXPECT_EQ(view->PrefixScan("", &it), kClosed);
  EXPECT_EQ(view->All(&it), kClosed);
  EXPECT_EQ(view->ReverseAll(&it), kClosed);
  EXPECT_EQ(view->LastReadPosition(), before);  // A failed read leaves it.
  EXPECT_EQ(store->NewQueryView()->All(&it), kClosed);

  store->Close();  // Idempotent.
  EXPECT_FALSE(store->is_open());
  EXPECT_EQ(store->CommittedOffset("cl"), 1);
}

// The snapshot the properties read their situations from is the state the behaviour above
// implies: committed data, the buffer (a delete as nullopt), offsets and both positions.
TEST(KeyValueStoreModel, SnapshotIsTheWholeState) {
  KeyValueStoreModel store("s", kRC, /*persistent=*/true);
  const RecordContext c1{"in-0", 1}, c2{"in-0", 2};
  MustPut(store, "a", "1", &c1);
  MustPut(store, "b", "2", &c1);
  MustCommit(store, {{"cl-0", 7}});
  MustPut(store, "a", "1x", &c2);
  std::optional<std::string> old;
  ASSERT_TRUE(store.Delete("b", &old).ok());

  KeyValueStoreModelSnapshot s = store.Snapshot();
  EXPECT_EQ(s.committed, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(s.pending,
            (std::map<std::string, std::optional<std::string>>{{"a", "1x"}, {"b", nullopt}}));
  EXPECT_EQ(s.offsets, (std::map<std::string, int64_t>{{"cl-0", 7}}));
  EXPECT_EQ(s.committed_position, (Position{{"in-0", 1}}));
  EXPECT_EQ(s.uncommitted_position, (Position{{"in-0", 2}}));
  EXPECT_FALSE(s.closed);

  ASSERT_TRUE(store.Rollback().ok());
  s = store.Snapshot();
  EXPECT_TRUE(s.pending.empty());
  EXPECT_EQ(s.uncommitted_position, (Position{{"in-0", 1}}));
  store.Close();
  EXPECT_TRUE(store.Snapshot().closed);
}

TEST(KeyValueStoreModel, ViewOutlivesTheStore) {
  std::shared_ptr<QueryView> view;
  {
    auto store = MakeStore(kRU);
    MustPut(*store, "a", "1");
    view = store->NewQueryView();
  }  // The destructor closes.
  std::optional<std::string> value;
  EXPECT_EQ(view->Get("a", &value), kClosed);
}

// C7: a crash may go back to any commit since the last durable one (what the open found, or a
// clean close), with that commit's data, offsets and position together; a clean close loses none.
TEST(KeyValueStoreModel, ACrashMayGoBackToAnyCommitSinceTheLastDurableOne) {
  KeyValueStoreModel store("kv", IsolationLevel::kReadCommitted, /*persistent=*/true);
  EXPECT_EQ(store.CrashCandidates(), 1u);
  const RecordContext first{"in", 1}, second{"in", 2};
  ASSERT_TRUE(store.Put("a", "1", &first).ok());
  ASSERT_TRUE(store.Commit({{"cl", 10}}).ok());
  store.Close();
  store.Reopen();
  EXPECT_EQ(store.CrashCandidates(), 1u);  // The clean close made it durable.
  ASSERT_TRUE(store.Put("a", "2", &second).ok());
  ASSERT_TRUE(store.Commit({{"cl", 20}}).ok());
  ASSERT_TRUE(store.Put("b", "3").ok());
  ASSERT_TRUE(store.Commit({{"cl", 30}}).ok());
  EXPECT_EQ(store.CrashCandidates(), 3u);
  std::unique_ptr<KeyValueStoreModel> copy = store.Copy();
  copy->Abandon();
  copy->Reopen(/*commits_back=*/1);
  EXPECT_FALSE(copy->was_closed_cleanly());
  EXPECT_EQ(GetOf(*copy, "a"), "2");
  EXPECT_EQ(GetOf(*copy, "b"), std::nullopt);
  EXPECT_EQ(copy->CommittedOffset("cl"), 20);
  EXPECT_EQ(copy->CommittedPosition(), (Position{{"in", 2}}));
  EXPECT_EQ(copy->CrashCandidates(), 1u);  // What the restart found is on disk.
  store.Abandon();
  store.Reopen(/*commits_back=*/5);  // Never further back than the last durable commit.
  EXPECT_EQ(GetOf(store, "a"), "1");
  EXPECT_EQ(store.CommittedOffset("cl"), 10);
  EXPECT_EQ(store.CommittedPosition(), (Position{{"in", 1}}));
  // With durable commits (a synced WAL) a crash loses none.
  store.set_durable_commits(true);
  ASSERT_TRUE(store.Put("c", "4").ok());
  ASSERT_TRUE(store.Commit({{"cl", 40}}).ok());
  EXPECT_EQ(store.CrashCandidates(), 1u);
  store.Abandon();
  store.Reopen(/*commits_back=*/1);
  EXPECT_EQ(GetOf(store, "c"), "4");
}

}  // namespace
}  // namespace model
}  // namespace statecheck
