// The in-memory window store's state (statecheck/in_memory_window_store.h): the key table, the
// segments of records by window start, the Core that the store and its iterators share, and the
// iterator (in_memory_window_store_iterator.cc). Internal to the engine.
#ifndef STATECHECK_ENGINE_STORE_IN_MEMORY_WINDOW_STORE_CORE_H_
#define STATECHECK_ENGINE_STORE_IN_MEMORY_WINDOW_STORE_CORE_H_

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/mutex.h"
#include "statecheck/in_memory_window_store.h"
#include "statecheck/logger.h"

namespace statecheck::internal::window_store {

inline constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMinTime = std::numeric_limits<int64_t>::min();

using KeyId = uint32_t;

// One window of a key: the start of a segment holding the key and, without retainDuplicates,
// the key's slot in that segment. Packed to 12 bytes: there is one per live (key, start).
struct KeyWindow {
  uint32_t start_lo;
  uint32_t start_hi;
  uint32_t slot;

  KeyWindow(int64_t start, uint32_t slot_index)
      : start_lo(static_cast<uint32_t>(static_cast<uint64_t>(start))),
        start_hi(static_cast<uint32_t>(static_cast<uint64_t>(start) >> 32)),
        slot(slot_index) {}
  int64_t start() const {
    return static_cast<int64_t>((static_cast<uint64_t>(start_hi) << 32) | start_lo);
  }
};

// A live key: its bytes, stored once, and its windows in ascending start (W10's index). One
// cache line, aligned to it: a put reads the bytes and the newest start together.
struct alignas(64) KeyEntry {
  std::string bytes;
  std::vector<KeyWindow> windows;
  // The start of the newest window (windows.back()) when there is one. Kept beside the bytes a
  // put has just compared, so that a put's usual case, a start after each of the key's windows,
  // does not read the windows: that read was the put's costliest cache miss.
  int64_t newest = kMinTime;

  // The window at `start`, or null.
  KeyWindow* FindWindow(int64_t start) {
    auto it = LowerBound(start);
    return it != windows.end() && it->start() == start ? &*it : nullptr;
  }
  // The first window at or after `start`.
  std::vector<KeyWindow>::iterator LowerBound(int64_t start) {
    // Streams mostly move forward: the newest window is the usual answer.
    if (windows.empty() || newest < start) return windows.end();
    if (newest == start) return windows.end() - 1;
    return std::lower_bound(windows.begin(), windows.end(), start,
                            [](const KeyWindow& w, int64_t t) { return w.start() < t; });
  }
  void InsertWindow(int64_t start, uint32_t slot) {
    const bool was_empty = windows.empty();
    windows.insert(LowerBound(start), KeyWindow(start, slot));
    newest = was_empty ? start : std::max(newest, start);
  }
  // Returns whether there was a window at `start`.
  bool EraseWindow(int64_t start) {
    // Expiry erases a key's oldest window: look there first.
    auto it =
        !windows.empty() && windows.front().start() == start ? windows.begin() : LowerBound(start);
    if (it == windows.end() || it->start() != start) return false;
    windows.erase(it);
    if (!windows.empty()) newest = windows.back().start();
    return true;
  }
};

static_assert(sizeof(KeyEntry) == 64);

// Interned keys: each live key's bytes are stored once and named by a small id, recycled once
// the key has no window left. Not movable: the hash set's functors point back at the table.
class KeyTable {
 public:
  KeyTable() : index_(0, Hash{this}, Eq{this}) {}
  KeyTable(const KeyTable&) = delete;
  KeyTable& operator=(const KeyTable&) = delete;

  std::optional<KeyId> Find(std::string_view key) const {
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    return *it;
  }

  // Finds or creates `key`. A new key has no windows; the caller gives it one.
  KeyId Intern(std::string_view key) {
    if (auto found = Find(key)) return *found;
    KeyId id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
      entries_[id].bytes.assign(key);
    } else {
      id = static_cast<KeyId>(entries_.size());
      entries_.push_back(KeyEntry{std::string(key), {}});
    }
    index_.insert(id);
    return id;
  }

  KeyEntry& Get(KeyId id) { return entries_[id]; }
  std::string_view Bytes(KeyId id) const { return entries_[id].bytes; }
  // A hint that Bytes(id) is about to be read: its entry (which holds a short key's bytes).
  void Prefetch(KeyId id) const { __builtin_prefetch(&entries_[id]); }
  // A hint that the windows of `id` are about to be read. Reads its entry: Prefetch it first.
  void PrefetchWindows(KeyId id) const { __builtin_prefetch(entries_[id].windows.data()); }

  // Frees `id` if its key has no window left.
  void ReleaseIfUnused(KeyId id) {
    KeyEntry& e = entries_[id];
    if (!e.windows.empty()) return;
    index_.erase(id);  // Before the bytes go: the hash reads them.
    std::string().swap(e.bytes);
    std::vector<KeyWindow>().swap(e.windows);
    free_.push_back(id);
  }

  void Clear() {
    index_.clear();
    entries_.clear();
    free_.clear();
  }

 private:
  struct Hash {
    using is_transparent = void;
    const KeyTable* table;
    size_t operator()(KeyId id) const { return (*this)(table->Bytes(id)); }
    size_t operator()(std::string_view s) const { return absl::Hash<std::string_view>()(s); }
  };
  struct Eq {
    using is_transparent = void;
    const KeyTable* table;
    std::string_view View(KeyId id) const { return table->Bytes(id); }
    std::string_view View(std::string_view s) const { return s; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return View(a) == View(b);
    }
  };

  std::vector<KeyEntry> entries_;
  std::vector<KeyId> free_;
  absl::flat_hash_set<KeyId, Hash, Eq> index_;
};

// A record in its segment: the key and where the value's bytes are in the segment's arena.
struct Slot {
  KeyId key;
  uint32_t offset;
  uint32_t size;
};

// All records of one window start.
//
// Invariants: without retainDuplicates a key has at most one slot, and a key's KeyWindow names
// it; with retainDuplicates slots are in insertion order (that order is W5's) and are never
// removed one by one. `order` lists slot indexes sorted by (key bytes, index); it covers the
// slots below `ordered` unless `order_stale` (set when a delete moved a slot).
struct Segment {
  std::vector<Slot> slots;
  std::vector<uint32_t> order;
  uint32_t ordered = 0;
  bool order_stale = false;
  std::string arena;  // Overwritten and deleted values stay as garbage until compacted.
  size_t garbage = 0;

  std::string_view Value(const Slot& s) const { return {arena.data() + s.offset, s.size}; }

  // Brings `order` up to date: new slots are sorted and merged in; after a delete, all again.
  void EnsureOrder(const KeyTable& keys) {
    if (order_stale) {
      order.clear();
      ordered = 0;
      order_stale = false;
    }
    if (ordered == slots.size()) return;
    const size_t old_size = order.size();
    for (uint32_t i = ordered; i < slots.size(); ++i) order.push_back(i);
    // Keeps: W7, W5 — a segment's order: unsigned key bytes, then insertion (slot index)
    auto less = [&](uint32_t a, uint32_t b) {
      const int c = keys.Bytes(slots[a].key).compare(keys.Bytes(slots[b].key));
      return c < 0 || (c == 0 && a < b);
    };
    std::sort(order.begin() + old_size, order.end(), less);
    std::inplace_merge(order.begin(), order.begin() + old_size, order.end(), less);
    ordered = static_cast<uint32_t>(slots.size());
  }

  // The positions in `order` of the slots whose keys lie in [from, to] (absent = unbounded).
  // REQUIRES: EnsureOrder.
  std::pair<size_t, size_t> KeyRange(const KeyTable& keys, const std::optional<std::string>& from,
                                     const std::optional<std::string>& to) const {
    auto key_of = [&](uint32_t i) { return keys.Bytes(slots[i].key); };
    auto first =
        from ? std::lower_bound(order.begin(), order.end(), std::string_view(*from),
                                [&](uint32_t i, std::string_view k) { return key_of(i) < k; })
             : order.begin();
    // Keeps: W7 — the upper bound compares whole keys: "ab" never leaks into a read up to "a"
    auto last =
        !to ? order.end()
        : STATECHECK_PLANTED(WindowStoreKeyRangePrefixLeak)
            // Compares the upper bound with the key's first |to| bytes only.
            ? std::upper_bound(
                  first, order.end(), std::string_view(*to),
                  [&](std::string_view k, uint32_t i) { return k < key_of(i).substr(0, k.size()); })
            : std::upper_bound(first, order.end(), std::string_view(*to),
                               [&](std::string_view k, uint32_t i) { return k < key_of(i); });
    return {static_cast<size_t>(first - order.begin()), static_cast<size_t>(last - order.begin())};
  }
};

// Keeps: W7 — a window is [start, start + size), its end saturating at INT64_MAX
inline int64_t WindowEnd(int64_t start, int64_t size) {
  return start > kMaxTime - size ? kMaxTime : start + size;
}

class IteratorImpl;

// The store's state, shared with its iterators so that an iterator outliving the store object
// stays safe. Everything below `mu` is guarded by it.
struct Core {
  Core(WindowStoreOptions opts)
      : name(std::move(opts.name)),
        retention(opts.retention_ms),
        window_size(opts.window_size_ms),
        retain_duplicates(opts.retain_duplicates),
        logger(opts.logger ? std::move(opts.logger) : StderrLogger()) {}

  const std::string name;
  const int64_t retention;
  const int64_t window_size;
  const bool retain_duplicates;
  const std::shared_ptr<Logger> logger;

  mutable internal::Mutex mu;
  bool open ABSL_GUARDED_BY(mu) = true;
  int64_t stream_time ABSL_GUARDED_BY(mu) = -1;  // Keeps: W2 — it starts at -1
  int64_t dropped_records ABSL_GUARDED_BY(mu) = 0;
  int64_t retained_records ABSL_GUARDED_BY(mu) = 0;
  KeyTable keys ABSL_GUARDED_BY(mu);
  std::map<int64_t, Segment> segments ABSL_GUARDED_BY(mu);
  // The same segments by start, for the reads that know theirs (a key's window names it): one
  // probe instead of a walk down the map's tree, whose cache misses dominated a key's range read.
  absl::flat_hash_map<int64_t, Segment*> segment_at ABSL_GUARDED_BY(mu);
  // The segment the last put went to: consecutive puts mostly share a window start.
  std::map<int64_t, Segment>::iterator last_put ABSL_GUARDED_BY(mu) = segments.end();
  // Open ones, registered at open.
  std::vector<IteratorImpl*> iterators ABSL_GUARDED_BY(mu);
  // By iterators looking for their next segment.
  int64_t segments_examined ABSL_GUARDED_BY(mu) = 0;

  // Starts at or below this bound are expired (W3, W6). No overflow: stream_time >= -1 and
  // retention >= 0. (Its successor can overflow, so the code compares with `<=` this.)
  int64_t ExpiryBound() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return stream_time - retention; }

  Status ClosedError() const {
    return Status::FailedPrecondition("Store " + name + " is currently closed.");
  }

  void RemoveExpired() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void EraseSegment(std::map<int64_t, Segment>::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // The segment at `start`, which a live key window names (so it exists).
  Segment& SegmentAt(int64_t start) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return *segment_at.find(start)->second;
  }
  std::map<int64_t, Segment>::iterator SegmentForPut(int64_t start)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // `seg` is one of `segments`.
  Status Append(Segment& seg, std::string_view value, Slot* slot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void MaybeCompact(Segment& seg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void Clear() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
};

class IteratorImpl final : public WindowStoreIterator {
 public:
  IteratorImpl(std::shared_ptr<Core> core, std::optional<std::string> key_from,
               std::optional<std::string> key_to, int64_t lo, int64_t hi, bool forward)
      : core_(std::move(core)),
        key_from_(std::move(key_from)),
        key_to_(std::move(key_to)),
        lo_(lo),
        hi_(hi),
        forward_(forward),
        single_key_(key_from_ && key_to_ && *key_from_ == *key_to_) {}

  ~IteratorImpl() override { Close(); }

  // Inline: a drain calls it once per record, and mostly the snapshot still has one.
  bool HasNext() override {
    if (closed_.load(std::memory_order_acquire) || exhausted_) return false;
    return pos_ < buffer_.size() || EnterNextSegment();
  }

  Status Next(WindowedRecord* record) override;

  Status NextView(WindowedRecordView* record) override;

  Status PeekNextKey(WindowedKey* key) override;

  void Close() override;

  void MarkExhaustedLocked() { exhausted_ = true; }

  // Store close: the iterator's owner may be using it on another thread, so only the flag.
  void MarkClosedLocked() { closed_.store(true, std::memory_order_release); }

  // Keeps: W8 — an open, unexhausted iterator pins: forward from its segment, backward from lo
  bool PinsLocked() const { return !exhausted_ && !closed_.load(std::memory_order_relaxed); }
  int64_t PinFromLocked() const { return forward_ ? cur_ : lo_; }

  // Enters the next segment in the iterator's direction that holds a matching record, taking
  // a snapshot of its matching records; or marks the iterator exhausted. `c` is the
  // iterator's store (*core_): the functions below take it so that the thread-safety analysis
  // sees which lock they need.
  void AdvanceLocked(Core& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu);

 private:
  // HasNext's slow path: the snapshot is used up. Enters the next segment under the lock.
  bool EnterNextSegment();

  // The next start at which the single key has a record, from the key's windows (W10).
  std::optional<int64_t> NextStartOfKeyLocked(Core& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu);

  // The next segment with a matching record, walking the segments in range.
  std::optional<int64_t> NextStartLocked(Core& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu);

  // Copies the segment's records within the key bounds into the snapshot, in iteration order.
  // Returns whether there were any.
  bool Snapshot(Core& c, int64_t start, Segment& seg) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu);

  void CopyOut(const Core& c, const Segment& seg, int64_t start, size_t first, size_t last)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu);
  // Adds one record to the snapshot, its value at `value_offset` in values_ (npos: appended).
  void Buffer(std::string_view key, std::string_view value, size_t value_offset);

  const std::shared_ptr<Core> core_;
  const std::optional<std::string> key_from_;
  const std::optional<std::string> key_to_;
  const int64_t lo_;
  const int64_t hi_;
  const bool forward_;
  const bool single_key_;

  std::atomic<bool> closed_{false};
  bool exhausted_ = false;
  bool started_ = false;
  int64_t cur_ = 0;  // The start of the segment the iterator is on, once started_.
  // The snapshot of the segment the iterator is on: its window (every record of a segment has
  // the same), and its records' key bytes back to back in `keys_` and value bytes in `values_`,
  // buffers that the snapshots reuse. A read of most of a segment copies its value arena whole
  // (one copy, garbage included) and only the keys record by record; a narrower one copies the
  // values it selects. Next copies a record out again; NextView hands out views of these.
  struct Buffered {
    size_t key_offset;
    size_t key_size;
    uint32_t value_offset;  // A segment's values fit in 4 GiB (Core::Append).
    uint32_t value_size;
  };
  Window window_{};
  std::vector<Buffered> buffer_;
  std::string keys_;
  std::string values_;
  size_t pos_ = 0;
};

}  // namespace statecheck::internal::window_store

#endif  // STATECHECK_ENGINE_STORE_IN_MEMORY_WINDOW_STORE_CORE_H_
