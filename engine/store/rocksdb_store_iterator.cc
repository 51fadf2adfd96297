// The RocksDB store's reads: the iterator that merges buffered writes over a snapshot, key-range
// bounds, and the read options every read uses (engine/store/rocksdb_store_internal.h).
#include <algorithm>
#include <utility>

#include "engine/base/fail_point.h"
#include "engine/base/planted.h"
#include "engine/base/rocksdb_status.h"
#include "engine/store/rocksdb_store_internal.h"
#include "statecheck/hooks/fail_points.h"

namespace statecheck::internal {

std::optional<std::string> PrefixEnd(std::string prefix) {
  while (!prefix.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(prefix.back());
    if (last != 0xff) {
      ++last;
      return prefix;
    }
    prefix.pop_back();
  }
  return std::nullopt;
}

void RangeBounds(std::optional<std::string_view> from, std::optional<std::string_view> to,
                 std::optional<std::string>* lower, std::optional<std::string>* upper) {
  if (from) *lower = std::string(*from);
  if (from && to && *from > *to) {
    *upper = *lower;
  } else if (to) {
    *upper = std::string(*to) + '\0';  // The successor of `to`: makes it inclusive.
  }
}

// Keeps: F1 — a read that fails says so: never a silently short scan
rocksdb::ReadOptions StoreReadOptions() {
  rocksdb::ReadOptions ro;
  ro.ignore_range_deletions = true;
  return ro;
}

MergingIterator::MergingIterator(
    std::shared_ptr<Db> db, const rocksdb::Snapshot* snapshot,
    std::vector<std::pair<std::string, std::optional<std::string>>> buffered,
    std::optional<std::string> from, std::optional<std::string> to_exclusive, bool forward)
    : db_(std::move(db)),
      snapshot_(snapshot),
      buffered_(std::move(buffered)),
      lower_(std::move(from)),
      upper_(std::move(to_exclusive)),
      forward_(forward) {
  rocksdb::ReadOptions ro = StoreReadOptions();
  ro.snapshot = snapshot_;
  if (lower_) {
    lower_slice_ = rocksdb::Slice(*lower_);
    ro.iterate_lower_bound = &lower_slice_;
  }
  if (upper_) {
    upper_slice_ = rocksdb::Slice(*upper_);
    ro.iterate_upper_bound = &upper_slice_;
  }
  it_.reset(db_->db->NewIterator(ro, db_->data()));
  if (forward_) {
    it_->SeekToFirst();
  } else {
    it_->SeekToLast();
    std::reverse(buffered_.begin(), buffered_.end());
  }
  Settle();
}

// Keeps: F1 — a read error is never a silent end: HasNext stays true and Next returns it
bool MergingIterator::HasNext() {
  if (db_ && db_->store_closed.load(std::memory_order_acquire)) Close();
  return next_.has_value() || !status_.ok();
}

Status MergingIterator::Next(KeyValue* kv) {
  if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
  if (!next_) return status_;
  *kv = std::move(*next_);
  next_.reset();
  Settle();
  return Status::Ok();
}

Status MergingIterator::PeekNextKey(std::string* key) {
  if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
  if (!next_) return status_;
  *key = next_->key;
  return Status::Ok();
}

void MergingIterator::Close() {
  if (!db_) return;
  it_.reset();
  if (snapshot_) db_->db->ReleaseSnapshot(snapshot_);
  snapshot_ = nullptr;
  next_.reset();
  status_ = Status::Ok();
  db_.reset();
}

void MergingIterator::Settle() {
  while (db_) {
    const bool db_has = it_->Valid();
    // RocksDB's step failed (it is then not Valid), or the engine's point as if it had.
    // Keeps: F8 — a failed step fails this read only: the iterator keeps the error
    Status step = db_has ? internal::FailPoint(kFailStoreIterate) : FromRocksDB(it_->status());
    if (!step.ok()) {
      if (!STATECHECK_PLANTED(StoreIteratorErrorEndsScan)) status_ = std::move(step);
      return;
    }
    const bool buf_has = pos_ < buffered_.size();
    if (!db_has && !buf_has) return;
    int order;  // < 0: the database's key comes first in iteration order.
    if (!db_has) {
      order = 1;
    } else if (!buf_has) {
      order = -1;
    } else {
      const int c = it_->key().compare(rocksdb::Slice(buffered_[pos_].first));
      order = forward_ ? c : -c;
    }
    if (order < 0) {
      next_ = KeyValue{it_->key().ToString(), it_->value().ToString()};
      Step();
      return;
    }
    // Keeps: T5 — on equal keys the buffer's write wins; a buffered delete hides the value
    auto& [key, value] = buffered_[pos_++];
    if (order == 0) Step();  // The buffer's write replaces the database's value.
    if (value) {
      next_ = KeyValue{std::move(key), std::move(*value)};
      return;
    }
  }
}

}  // namespace statecheck::internal
