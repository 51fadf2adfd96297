// What the RocksDB store's files share (engine/store/): the open database its store and
// iterators hold, the read options of every read, key-range bounds, and the iterator that merges
// a transaction's buffered writes over a snapshot. Internal to the engine.
#ifndef STATECHECK_ENGINE_STORE_ROCKSDB_STORE_INTERNAL_H_
#define STATECHECK_ENGINE_STORE_ROCKSDB_STORE_INTERNAL_H_

#include <rocksdb/db.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "statecheck/key_value_store.h"
#include "statecheck/status.h"

namespace statecheck::internal {

// The smallest key greater than every key starting with `prefix`, or nullopt if none
// (a prefix of only 0xff bytes).
std::optional<std::string> PrefixEnd(std::string prefix);

// An inclusive key range as RocksDB bounds: [lower, upper_exclusive). A reversed range
// (from > to) becomes [from, from), which admits nothing.
void RangeBounds(std::optional<std::string_view> from, std::optional<std::string_view> to,
                 std::optional<std::string>* lower, std::optional<std::string>* upper);

// The open database, shared by the store and every iterator over it, so that an iterator a
// reader still holds keeps the database alive after the store is closed.
struct Db {
  ~Db() {
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    delete db;
  }
  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // [data, meta]
  // Set when the store closes: its open iterators end (as Kafka's RocksDBStore closes them).
  std::atomic<bool> store_closed{false};
  rocksdb::ColumnFamilyHandle* data() const { return handles[0]; }
  rocksdb::ColumnFamilyHandle* meta() const { return handles[1]; }
};

// The read options of every read of a store. The engine never writes a range deletion, so reads
// ignore them — which also keeps RocksDB 7.8's iterators from losing a read error: with range
// deletions considered, a level's iterator that fails to read the next table file it moves
// into is dropped without its status, and the scan ends early with OK, a silently short
// result (facebook/rocksdb#11782, fixed in 8.6; found here by statecheck crash --io-errors).
rocksdb::ReadOptions StoreReadOptions();

// Iterates the union of a copy of buffered writes in a key range and a RocksDB iterator at a
// snapshot, the buffer winning on equal keys and its deletes hiding the database's values.
// Either source may be empty. Thread-compatible: one thread at a time.
class MergingIterator final : public KeyValueIterator {
 public:
  MergingIterator(std::shared_ptr<Db> db, const rocksdb::Snapshot* snapshot,
                  std::vector<std::pair<std::string, std::optional<std::string>>> buffered,
                  std::optional<std::string> from, std::optional<std::string> to_exclusive,
                  bool forward);
  ~MergingIterator() override { Close(); }

  // True also when reading failed: Next() then returns the error (F1: never a silently short
  // result).
  bool HasNext() override;
  Status Next(KeyValue* kv) override;
  Status PeekNextKey(std::string* key) override;
  void Close() override;

 private:
  // Finds the next visible record into next_.
  void Settle();
  void Step() { forward_ ? it_->Next() : it_->Prev(); }

  std::shared_ptr<Db> db_;
  const rocksdb::Snapshot* snapshot_;
  std::unique_ptr<rocksdb::Iterator> it_;
  std::vector<std::pair<std::string, std::optional<std::string>>> buffered_;
  size_t pos_ = 0;
  std::optional<std::string> lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  const bool forward_;
  std::optional<KeyValue> next_;
  Status status_;
};

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_STORE_ROCKSDB_STORE_INTERNAL_H_
