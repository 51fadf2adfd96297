// NewInMemoryKeyValueStore: Kafka Streams' InMemoryKeyValueStore under the KIP-892 interface.
//
// It writes through: there is no transaction buffer, so every write is visible to the writer
// and to every QueryView as soon as it returns (T3), ApproximateNumUncommittedBytes() is always
// 0 and never forces a commit (T6), and Rollback is FailedPrecondition. Commit only records the
// changelog offsets and sets the committed position to the uncommitted one (T7, T8).
//
// Reads that return an iterator copy the matching range when they open (a snapshot), so the
// writer may keep writing while an iterator is in use, on any thread. Closing the store closes
// every iterator: HasNext() turns false.
//
// Thread safety: `Core::mu` guards the map, the open flag and the positions and offsets against
// the views. Only the writer thread mutates them, and it takes `mu` exclusively to do so; its
// own reads take no lock, since no other thread can change what they read. A view takes `mu`
// shared for each read. A view's LastReadPosition() is the uncommitted position at the time of
// its last read: the data it read may have been applied from records at or beyond that position
// (under READ_UNCOMMITTED the data is ahead of any committed position).
//
// Departures from Kafka's InMemoryKeyValueStore: a range with from > to returns an empty
// iterator without logging (the store is given no Logger); PutIfAbsent that finds a value
// writes nothing and, as in Kafka, leaves the position alone.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/mutex.h"
#include "statecheck/key_value_store.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck {
namespace {

using internal::MutexLock;
using internal::SharedMutex;

// std::less<> lets lookups take a string_view; std::string compares bytes as unsigned char.
using Map = std::map<std::string, std::string, std::less<>>;

struct Core {
  explicit Core(std::string store_name) : name(std::move(store_name)) {}

  const std::string name;

  // Written under `mu` held exclusively; read by iterators without it.
  std::atomic<bool> open{true};

  mutable SharedMutex mu;
  Map data ABSL_GUARDED_BY(mu);
  Position uncommitted_position ABSL_GUARDED_BY(mu);
  Position committed_position ABSL_GUARDED_BY(mu);
  // Changelog partition → committed offset (T7).
  std::map<std::string, int64_t> offsets ABSL_GUARDED_BY(mu);

  Status ClosedError() const {
    return Status::FailedPrecondition("Store " + name + " is currently closed.");
  }

  void ApplyLocked(std::string_view key, std::optional<std::string_view> value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (!value) {
      auto it = data.find(key);
      if (it != data.end()) data.erase(it);
      return;
    }
    auto it = data.lower_bound(key);
    if (it != data.end() && it->first == key) {
      it->second.assign(*value);
    } else {
      data.emplace_hint(it, std::string(key), std::string(*value));
    }
  }

  // Kafka's Position.withComponent: a partition's offset only moves forward.
  void AdvanceLocked(const RecordContext* context) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (context == nullptr) return;
    auto [it, inserted] = uncommitted_position.try_emplace(context->partition, context->offset);
    if (!inserted) it->second = std::max(it->second, context->offset);
  }

  std::optional<std::string> Lookup(std::string_view key) const ABSL_SHARED_LOCKS_REQUIRED(mu) {
    auto it = data.find(key);
    if (it == data.end()) return std::nullopt;
    return it->second;
  }

  // The records with keys in [from, to] (an absent bound is unbounded), in the given order.
  std::vector<KeyValue> CopyRange(std::optional<std::string_view> from,
                                  std::optional<std::string_view> to, bool forward) const
      ABSL_SHARED_LOCKS_REQUIRED(mu) {
    std::vector<KeyValue> out;
    if (from && to && *from > *to) return out;
    auto first = from ? data.lower_bound(*from) : data.begin();
    auto last = to ? data.upper_bound(*to) : data.end();
    for (auto it = first; it != last; ++it) out.push_back(KeyValue{it->first, it->second});
    if (!forward) std::reverse(out.begin(), out.end());
    return out;
  }

  std::vector<KeyValue> CopyPrefix(std::string_view prefix) const ABSL_SHARED_LOCKS_REQUIRED(mu) {
    std::vector<KeyValue> out;
    for (auto it = data.lower_bound(prefix);
         it != data.end() && std::string_view(it->first).starts_with(prefix); ++it) {
      out.push_back(KeyValue{it->first, it->second});
    }
    return out;
  }
};

// A read of `core`'s data: a view holds `mu` shared for it; the writer thread, which makes
// every change, reads without it (no other thread can change what it reads), and says so to
// the thread-safety analysis by constructing this with `lock` false.
// Keeps: T2 — views read under mu shared; only the writer mutates, under mu exclusive
class ABSL_SCOPED_LOCKABLE ReadAccess {
 public:
  ReadAccess(const Core& core, bool lock)
      ABSL_SHARED_LOCK_FUNCTION(core.mu) ABSL_NO_THREAD_SAFETY_ANALYSIS
      : mu_(lock ? &core.mu : nullptr) {
    if (mu_ != nullptr) mu_->ReaderLock();
  }
  ReadAccess(const ReadAccess&) = delete;
  ReadAccess& operator=(const ReadAccess&) = delete;
  ~ReadAccess() ABSL_UNLOCK_FUNCTION() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (mu_ != nullptr) mu_->ReaderUnlock();
  }

 private:
  SharedMutex* const mu_;
};

class SnapshotIterator final : public KeyValueIterator {
 public:
  SnapshotIterator(std::shared_ptr<const Core> core, std::vector<KeyValue> records)
      : core_(std::move(core)), records_(std::move(records)) {}
  ~SnapshotIterator() override { Close(); }

  bool HasNext() override {
    return !closed_ && pos_ < records_.size() && core_->open.load(std::memory_order_acquire);
  }

  Status Next(KeyValue* kv) override {
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    *kv = std::move(records_[pos_++]);
    return Status::Ok();
  }

  Status PeekNextKey(std::string* key) override {
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    *key = records_[pos_].key;
    return Status::Ok();
  }

  void Close() override {
    if (closed_) return;
    closed_ = true;
    std::vector<KeyValue>().swap(records_);
  }

 private:
  const std::shared_ptr<const Core> core_;
  std::vector<KeyValue> records_;
  size_t pos_ = 0;
  bool closed_ = false;
};

// The read methods, shared by the store (the writer: no lock) and its views (shared lock).
template <class Interface>
class Reads : public Interface {
 public:
  Status Get(std::string_view key, std::optional<std::string>* value) override {
    const Core& c = *core_;
    ReadAccess access(c, shared_lock_);
    if (!c.open.load(std::memory_order_relaxed)) return c.ClosedError();
    *value = c.Lookup(key);
    Observed(c.uncommitted_position);
    return Status::Ok();
  }
  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override {
    const Core& c = *core_;
    ReadAccess access(c, shared_lock_);
    if (!c.open.load(std::memory_order_relaxed)) return c.ClosedError();
    *it = Snapshot(c.CopyRange(from, to, /*forward=*/true));
    Observed(c.uncommitted_position);
    return Status::Ok();
  }
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override {
    const Core& c = *core_;
    ReadAccess access(c, shared_lock_);
    if (!c.open.load(std::memory_order_relaxed)) return c.ClosedError();
    *it = Snapshot(c.CopyRange(from, to, /*forward=*/false));
    Observed(c.uncommitted_position);
    return Status::Ok();
  }
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override {
    const Core& c = *core_;
    ReadAccess access(c, shared_lock_);
    if (!c.open.load(std::memory_order_relaxed)) return c.ClosedError();
    *it = Snapshot(c.CopyPrefix(prefix));
    Observed(c.uncommitted_position);
    return Status::Ok();
  }
  Status All(std::unique_ptr<KeyValueIterator>* it) override {
    return Range(std::nullopt, std::nullopt, it);
  }
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
    return ReverseRange(std::nullopt, std::nullopt, it);
  }

 protected:
  Reads(std::shared_ptr<Core> core, bool shared_lock)
      : core_(std::move(core)), shared_lock_(shared_lock) {}

  // Called by a view with its read lock still held, after each successful read.
  virtual void ObservedLocked(const Position& uncommitted) {}

  const std::shared_ptr<Core> core_;

 private:
  void Observed(const Position& uncommitted) {
    if (shared_lock_) ObservedLocked(uncommitted);
  }

  std::unique_ptr<KeyValueIterator> Snapshot(std::vector<KeyValue> records) const {
    return std::make_unique<SnapshotIterator>(core_, std::move(records));
  }

  const bool shared_lock_;
};

class View final : public Reads<QueryView> {
 public:
  explicit View(std::shared_ptr<Core> core) : Reads(std::move(core), /*shared_lock=*/true) {}

  Position LastReadPosition() const override {
    MutexLock lock(&position_mu_);
    return last_position_;
  }

 private:
  void ObservedLocked(const Position& uncommitted) override {
    MutexLock lock(&position_mu_);
    last_position_ = uncommitted;
  }

  mutable internal::Mutex position_mu_;  // Views are called from many threads at once.
  Position last_position_ ABSL_GUARDED_BY(position_mu_);
};

class InMemoryKeyValueStore final : public Reads<KeyValueStore> {
 public:
  explicit InMemoryKeyValueStore(std::string name)
      : Reads(std::make_shared<Core>(std::move(name)), /*shared_lock=*/false) {}
  ~InMemoryKeyValueStore() override { Close(); }

  const std::string& name() const override { return core_->name; }
  bool persistent() const override { return false; }
  bool is_open() const override { return core_->open.load(std::memory_order_relaxed); }
  IsolationLevel isolation() const override { return IsolationLevel::kReadUncommitted; }

  Status Put(std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context) override {
    Core& c = *core_;
    MutexLock lock(&c.mu);
    if (!c.open) return c.ClosedError();
    // Keeps: T3 — writes through: every view sees the write as soon as Put returns
    c.ApplyLocked(key, value);
    c.AdvanceLocked(context);
    return Status::Ok();
  }

  Status PutIfAbsent(std::string_view key, std::string_view value,
                     std::optional<std::string>* existing, const RecordContext* context) override {
    Core& c = *core_;
    if (!c.open) return c.ClosedError();
    std::optional<std::string> found;
    {
      ReadAccess access(c, /*lock=*/false);
      found = c.Lookup(key);
    }
    if (!found) {
      MutexLock lock(&c.mu);
      c.ApplyLocked(key, value);
      c.AdvanceLocked(context);
    }
    *existing = std::move(found);
    return Status::Ok();
  }

  Status PutAll(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
                const RecordContext* context) override {
    Core& c = *core_;
    MutexLock lock(&c.mu);
    if (!c.open) return c.ClosedError();
    for (const auto& [key, value] : kvs) {
      c.ApplyLocked(key, value ? std::optional<std::string_view>(*value) : std::nullopt);
    }
    if (!kvs.empty()) c.AdvanceLocked(context);  // Kafka's putAll: one put per entry.
    return Status::Ok();
  }

  Status Delete(std::string_view key, std::optional<std::string>* old,
                const RecordContext* context) override {
    Core& c = *core_;
    MutexLock lock(&c.mu);
    if (!c.open) return c.ClosedError();
    std::optional<std::string> previous;
    if (auto it = c.data.find(key); it != c.data.end()) {
      previous = std::move(it->second);
      c.data.erase(it);
    }
    c.AdvanceLocked(context);  // Kafka's delete moves the position even when nothing was there.
    *old = std::move(previous);
    return Status::Ok();
  }

  // Keeps: T6 — a store that writes through reports 0 and never forces a commit
  int64_t ApproximateNumUncommittedBytes() const override { return 0; }

  Status Commit(const ChangelogOffsets& offsets) override {
    Core& c = *core_;
    MutexLock lock(&c.mu);
    if (!c.open) return c.ClosedError();
    if (offsets.empty()) c.offsets.clear();
    for (const auto& [partition, offset] : offsets) {
      if (offset) {
        c.offsets[partition] = *offset;
      } else {
        c.offsets.erase(partition);
      }
    }
    c.committed_position = c.uncommitted_position;
    return Status::Ok();
  }

  // Still answers after Close: the last offsets committed before it.
  std::optional<int64_t> CommittedOffset(const std::string& partition) const override {
    const Core& c = *core_;
    ReadAccess access(c, /*lock=*/false);
    auto it = c.offsets.find(partition);
    if (it == c.offsets.end()) return std::nullopt;
    return it->second;
  }

  Status Rollback() override {
    if (!core_->open) return core_->ClosedError();
    return Status::FailedPrecondition("store " + core_->name +
                                      " writes through: there is nothing to roll back");
  }

  Position UncommittedPosition() const override {
    const Core& c = *core_;
    ReadAccess access(c, /*lock=*/false);
    return c.uncommitted_position;
  }
  Position CommittedPosition() const override {
    const Core& c = *core_;
    ReadAccess access(c, /*lock=*/false);
    return c.committed_position;
  }

  std::shared_ptr<QueryView> NewQueryView() override { return std::make_shared<View>(core_); }

  // Drops the data (an in-memory store keeps nothing across a close, as in Kafka); positions
  // and offsets stay readable.
  void Close() override {
    Core& c = *core_;
    MutexLock lock(&c.mu);
    if (!c.open) return;
    c.open.store(false, std::memory_order_release);
    Map().swap(c.data);
  }
};

}  // namespace

std::unique_ptr<KeyValueStore> NewInMemoryKeyValueStore(std::string name) {
  return std::make_unique<InMemoryKeyValueStore>(std::move(name));
}

}  // namespace statecheck
