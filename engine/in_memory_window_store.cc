#include "statecheck/in_memory_window_store.h"

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/mutex.h"
#include "engine/planted.h"

namespace statecheck {
namespace {

constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinTime = std::numeric_limits<int64_t>::min();

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

// A live key: its bytes, stored once, and its windows in ascending start (W10's index).
struct KeyEntry {
  std::string bytes;
  std::vector<KeyWindow> windows;

  // The window at `start`, or null.
  KeyWindow* FindWindow(int64_t start) {
    auto it = LowerBound(start);
    return it != windows.end() && it->start() == start ? &*it : nullptr;
  }
  // The first window at or after `start`.
  std::vector<KeyWindow>::iterator LowerBound(int64_t start) {
    // Streams mostly move forward: the newest window is the usual answer.
    if (windows.empty() || windows.back().start() < start) return windows.end();
    if (windows.back().start() == start) return windows.end() - 1;
    return std::lower_bound(windows.begin(), windows.end(), start,
                            [](const KeyWindow& w, int64_t t) { return w.start() < t; });
  }
  void InsertWindow(int64_t start, uint32_t slot) {
    windows.insert(LowerBound(start), KeyWindow(start, slot));
  }
  // Returns whether there was a window at `start`.
  bool EraseWindow(int64_t start) {
    auto it = LowerBound(start);
    if (it == windows.end() || it->start() != start) return false;
    windows.erase(it);
    return true;
  }
};

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
int64_t WindowEnd(int64_t start, int64_t size) {
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

  bool HasNext() override {
    if (closed_.load(std::memory_order_acquire) || exhausted_) return false;
    if (pos_ < buffer_.size()) return true;
    Core& c = *core_;
    internal::MutexLock lock(&c.mu);
    if (closed_.load(std::memory_order_relaxed)) return false;
    AdvanceLocked(c);
    return !exhausted_;
  }

  Status Next(WindowedRecord* record) override {
    // Keeps: W9 — reading past the end is OutOfRange, not undefined behaviour
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    *record = std::move(buffer_[pos_++]);
    return Status::Ok();
  }

  Status PeekNextKey(WindowedKey* key) override {
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    key->key = buffer_[pos_].key;
    key->window = buffer_[pos_].window;
    return Status::Ok();
  }

  // Keeps: W9 — closing releases its pins: it leaves the store's list of open iterators
  void Close() override {
    if (closed_.exchange(true)) return;
    {
      internal::MutexLock lock(&core_->mu);
      auto& its = core_->iterators;
      its.erase(std::remove(its.begin(), its.end(), this), its.end());
    }
    std::vector<WindowedRecord>().swap(buffer_);
  }

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
  void AdvanceLocked(Core& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
    buffer_.clear();
    pos_ = 0;
    std::optional<int64_t> next = single_key_ ? NextStartOfKeyLocked(c) : NextStartLocked(c);
    if (!next) {
      exhausted_ = true;
      return;
    }
    started_ = true;
    cur_ = *next;
  }

 private:
  // The next start at which the single key has a record, from the key's windows (W10).
  // Keeps: W10 — a single-key read steps through the key's own windows, never other segments
  std::optional<int64_t> NextStartOfKeyLocked(Core& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
    const std::optional<KeyId> id = c.keys.Find(*key_from_);
    if (!id) return std::nullopt;
    KeyEntry& entry = c.keys.Get(*id);
    std::optional<KeyWindow> window;
    if (forward_) {
      if (started_ && cur_ == kMaxTime) return std::nullopt;
      auto it = entry.LowerBound(started_ ? cur_ + 1 : lo_);
      if (it == entry.windows.end() || it->start() > hi_) return std::nullopt;
      window = *it;
    } else {
      if (started_ && cur_ == kMinTime) return std::nullopt;
      const int64_t bound = started_ ? cur_ - 1 : hi_;
      auto it = std::upper_bound(entry.windows.begin(), entry.windows.end(), bound,
                                 [](int64_t t, const KeyWindow& w) { return t < w.start(); });
      if (it == entry.windows.begin()) return std::nullopt;
      --it;
      if (it->start() < lo_) return std::nullopt;
      window = *it;
    }
    const int64_t start = window->start();
    ++c.segments_examined;
    Segment& seg = c.segments.find(start)->second;
    const Window w{start, WindowEnd(start, c.window_size)};
    if (!c.retain_duplicates) {
      const Slot& slot = seg.slots[window->slot];
      buffer_.push_back(WindowedRecord{*key_from_, w, std::string(seg.Value(slot))});
      return start;
    }
    seg.EnsureOrder(c.keys);
    auto [first, last] = seg.KeyRange(c.keys, key_from_, key_to_);
    CopyOut(c, seg, w, first, last);
    return start;
  }

  // The next segment with a matching record, walking the segments in range.
  std::optional<int64_t> NextStartLocked(Core& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
    auto& segs = c.segments;
    if (forward_) {
      // Keeps: W9 — each step re-seeks the live segments from cur_: later puts seen, nothing stale
      for (auto it = started_ ? segs.upper_bound(cur_) : segs.lower_bound(lo_);
           it != segs.end() && it->first <= hi_; ++it) {
        if (Snapshot(c, it)) return it->first;
      }
    } else {
      auto it = started_ ? segs.lower_bound(cur_) : segs.upper_bound(hi_);
      while (it != segs.begin()) {
        --it;
        if (it->first < lo_) break;
        if (Snapshot(c, it)) return it->first;
      }
    }
    return std::nullopt;
  }

  // Copies the segment's records within the key bounds into buffer_, in iteration order.
  // Returns whether there were any.
  bool Snapshot(Core& c, std::map<int64_t, Segment>::iterator seg_it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
    ++c.segments_examined;
    Segment& seg = seg_it->second;
    seg.EnsureOrder(c.keys);
    auto [first, last] = seg.KeyRange(c.keys, key_from_, key_to_);
    CopyOut(c, seg, Window{seg_it->first, WindowEnd(seg_it->first, c.window_size)}, first, last);
    return !buffer_.empty();
  }

  void CopyOut(const Core& c, const Segment& seg, const Window& w, size_t first, size_t last)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
    buffer_.reserve(last - first);
    for (size_t i = first; i < last; ++i) {
      const Slot& slot = seg.slots[seg.order[i]];
      buffer_.push_back(
          WindowedRecord{std::string(c.keys.Bytes(slot.key)), w, std::string(seg.Value(slot))});
    }
    // Keeps: W7 — a backward read reverses the records within a segment too
    if (STATECHECK_PLANTED(WindowStoreBackwardSegmentNotReversed)) {
      // Only the segments are walked backwards: a segment's records stay in forward order.
    } else if (!forward_) {
      std::reverse(buffer_.begin(), buffer_.end());
    }
  }

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
  std::vector<WindowedRecord> buffer_;
  size_t pos_ = 0;
};

void Core::RemoveExpired() {
  std::optional<int64_t> pinned_from;
  for (const IteratorImpl* it : iterators) {
    if (!it->PinsLocked()) continue;
    pinned_from = std::min(pinned_from.value_or(kMaxTime), it->PinFromLocked());
  }
  const int64_t bound = ExpiryBound();
  // Keeps: W8 — expire the segments at or below the bound, except from the earliest pin on
  while (!segments.empty() &&
         (STATECHECK_PLANTED(WindowStoreExpiryKeepsBoundarySegment)
              ? segments.begin()->first < bound
              : segments.begin()->first <= bound) &&
         (!pinned_from || segments.begin()->first < *pinned_from)) {
    EraseSegment(segments.begin());
  }
}

void Core::EraseSegment(std::map<int64_t, Segment>::iterator seg_it) {
  const int64_t start = seg_it->first;
  for (const Slot& slot : seg_it->second.slots) {
    --retained_records;
    // A duplicate's key already lost this window with its first slot.
    if (keys.Get(slot.key).EraseWindow(start)) keys.ReleaseIfUnused(slot.key);
  }
  if (last_put == seg_it) last_put = segments.end();
  segments.erase(seg_it);
}

std::map<int64_t, Segment>::iterator Core::SegmentForPut(int64_t start) {
  if (last_put != segments.end() && last_put->first == start) return last_put;
  auto it = segments.lower_bound(start);
  if (it == segments.end() || it->first != start) {
    // A new newest segment: the previous newest is mostly done growing, so shed its slack.
    if (it == segments.end() && !segments.empty()) {
      Segment& prev = segments.rbegin()->second;
      prev.slots.shrink_to_fit();
      prev.arena.shrink_to_fit();
    }
    it = segments.emplace_hint(it, start, Segment{});
  }
  last_put = it;
  return it;
}

Status Core::Append(Segment& seg, std::string_view value, Slot* slot) {
  constexpr size_t kMaxArena = std::numeric_limits<uint32_t>::max();
  if (seg.arena.size() + value.size() > kMaxArena) {
    MaybeCompact(seg);
    if (seg.arena.size() + value.size() > kMaxArena) {
      return Status::InvalidArgument("window store " + name +
                                     ": the values of one window start exceed 4 GiB");
    }
  }
  slot->offset = static_cast<uint32_t>(seg.arena.size());
  slot->size = static_cast<uint32_t>(value.size());
  seg.arena.append(value);
  return Status::Ok();
}

void Core::MaybeCompact(Segment& seg) {
  if (seg.garbage < 256 || seg.garbage * 2 < seg.arena.size()) return;
  std::string arena;
  arena.reserve(seg.arena.size() - seg.garbage);
  for (Slot& slot : seg.slots) {
    const uint32_t offset = static_cast<uint32_t>(arena.size());
    arena.append(seg.Value(slot));
    slot.offset = offset;
  }
  seg.arena = std::move(arena);
  seg.garbage = 0;
}

void Core::Clear() {
  segments.clear();
  last_put = segments.end();
  keys.Clear();
  retained_records = 0;
}

class InMemoryWindowStore final : public WindowStore {
 public:
  explicit InMemoryWindowStore(WindowStoreOptions options)
      : core_(std::make_shared<Core>(std::move(options))) {}
  ~InMemoryWindowStore() override { Close(); }

  const std::string& name() const override { return core_->name; }
  int64_t retention_ms() const override { return core_->retention; }
  int64_t window_size_ms() const override { return core_->window_size; }
  bool retain_duplicates() const override { return core_->retain_duplicates; }

  bool is_open() const override {
    internal::MutexLock lock(&core_->mu);
    return core_->open;
  }

  int64_t stream_time() const override {
    internal::MutexLock lock(&core_->mu);
    return core_->stream_time;
  }

  WindowStoreMetrics metrics() const override {
    internal::MutexLock lock(&core_->mu);
    return WindowStoreMetrics{core_->dropped_records, core_->retained_records,
                              static_cast<int64_t>(core_->segments.size())};
  }

  Status Put(std::string_view key, std::optional<std::string_view> value,
             int64_t window_start) override {
    bool dropped = false;
    Status status;
    {
      Core& c = *core_;
      internal::MutexLock lock(&c.mu);
      status = PutLocked(c, key, value, window_start, &dropped);
    }
    // Keeps: W3 — a dropped put logs "Skipping record for expired segment."
    if (dropped) core_->logger->Log(LogLevel::kWarn, kSkippingExpiredRecordMessage);
    return status;
  }

  Status Fetch(std::string_view key, int64_t window_start,
               std::optional<std::string>* value) override {
    Core& c = *core_;
    internal::MutexLock lock(&c.mu);
    if (!c.open) return c.ClosedError();
    c.RemoveExpired();
    value->reset();
    // A retainDuplicates store answers no single-point fetch (W5, as Kafka does).
    // Keeps: W5, W6 — none on a retainDuplicates store (Kafka), none at t <= streamTime - retention
    if (c.retain_duplicates || window_start <= c.ExpiryBound()) return Status::Ok();
    const std::optional<KeyId> id = c.keys.Find(key);
    if (!id) return Status::Ok();
    const KeyWindow* w = c.keys.Get(*id).FindWindow(window_start);
    if (!w) return Status::Ok();
    const Segment& seg = c.segments.find(window_start)->second;
    value->emplace(seg.Value(seg.slots[w->slot]));
    return Status::Ok();
  }

  Status Fetch(std::string_view key, int64_t time_from, int64_t time_to,
               std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(std::string(key), std::string(key), time_from, time_to, true, it);
  }
  Status BackwardFetch(std::string_view key, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(std::string(key), std::string(key), time_from, time_to, false, it);
  }
  Status Fetch(std::optional<std::string_view> key_from, std::optional<std::string_view> key_to,
               int64_t time_from, int64_t time_to,
               std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(Own(key_from), Own(key_to), time_from, time_to, true, it);
  }
  Status BackwardFetch(std::optional<std::string_view> key_from,
                       std::optional<std::string_view> key_to, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(Own(key_from), Own(key_to), time_from, time_to, false, it);
  }
  Status FetchAll(int64_t time_from, int64_t time_to,
                  std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(std::nullopt, std::nullopt, time_from, time_to, true, it);
  }
  Status BackwardFetchAll(int64_t time_from, int64_t time_to,
                          std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(std::nullopt, std::nullopt, time_from, time_to, false, it);
  }
  Status All(std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(std::nullopt, std::nullopt, kMinTime, kMaxTime, true, it);
  }
  Status BackwardAll(std::unique_ptr<WindowStoreIterator>* it) override {
    return Open(std::nullopt, std::nullopt, kMinTime, kMaxTime, false, it);
  }

  void Close() override {
    Core& c = *core_;
    internal::MutexLock lock(&c.mu);
    if (!c.open) return;
    c.open = false;
    // Keeps: W9 — closing the store closes its open iterators: their HasNext is then false
    if (!STATECHECK_PLANTED(WindowStoreCloseLeavesIteratorsOpen)) {
      for (IteratorImpl* it : c.iterators) it->MarkClosedLocked();
    }
    c.iterators.clear();
    c.Clear();
  }

 private:
  static std::optional<std::string> Own(std::optional<std::string_view> s) {
    return s ? std::optional<std::string>(std::string(*s)) : std::nullopt;
  }

  // `c` is *core_.
  static Status PutLocked(Core& c, std::string_view key, std::optional<std::string_view> value,
                          int64_t window_start, bool* dropped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
    if (!c.open) return c.ClosedError();
    // Keeps: W8 — expiry runs first in every put (and in Fetch and Open: every read)
    c.RemoveExpired();  // Before stream time moves, as Kafka does: see W8.
    // Keeps: W2 — every put moves stream time up to its start: deletes and dropped puts too
    if (!STATECHECK_PLANTED(WindowStoreStreamTimeSkipsDeletes) || value) {
      c.stream_time = std::max(c.stream_time, window_start);
    }
    // Keeps: W3 — the drop test, after W2: windowStart <= streamTime - retention
    const bool expired = STATECHECK_PLANTED(WindowStoreDropRuleOffByOne)
                             ? window_start < c.ExpiryBound()
                             : window_start <= c.ExpiryBound();
    if (expired) {  // Keeps: W3 — dropped-records + 1, nothing stored
      ++c.dropped_records;
      *dropped = true;
      return Status::Ok();
    }
    // Keeps: W4 — a null value deletes the key at that start; with retainDuplicates, nothing
    if (!value) return c.retain_duplicates ? Status::Ok() : DeleteLocked(c, key, window_start);

    auto seg_it = c.SegmentForPut(window_start);
    Segment& seg = seg_it->second;
    Slot slot;
    if (Status s = c.Append(seg, *value, &slot); !s.ok()) {
      if (seg.slots.empty()) c.EraseSegment(seg_it);
      return s;
    }
    const KeyId id = c.keys.Intern(key);
    slot.key = id;
    KeyEntry& entry = c.keys.Get(id);
    KeyWindow* window = entry.FindWindow(window_start);
    // Keeps: W5 — an overwrite only without retainDuplicates; with it every put is a new entry
    if (window && !c.retain_duplicates) {  // An overwrite.
      Slot& old = seg.slots[window->slot];
      seg.garbage += old.size;
      old = slot;
      c.MaybeCompact(seg);
      return Status::Ok();
    }
    const auto index = static_cast<uint32_t>(seg.slots.size());
    seg.slots.push_back(slot);
    ++c.retained_records;
    if (!window) entry.InsertWindow(window_start, index);
    return Status::Ok();
  }

  static Status DeleteLocked(Core& c, std::string_view key, int64_t window_start)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) {
    const std::optional<KeyId> id = c.keys.Find(key);
    if (!id) return Status::Ok();
    KeyEntry& entry = c.keys.Get(*id);
    const KeyWindow* window = entry.FindWindow(window_start);
    if (!window) return Status::Ok();
    const uint32_t index = window->slot;
    auto seg_it = c.segments.find(window_start);
    Segment& seg = seg_it->second;
    seg.garbage += seg.slots[index].size;
    entry.EraseWindow(window_start);
    c.keys.ReleaseIfUnused(*id);
    --c.retained_records;
    // Without duplicates slot order carries no meaning: move the last slot into the hole.
    if (index + 1 != seg.slots.size()) {
      seg.slots[index] = seg.slots.back();
      c.keys.Get(seg.slots[index].key).FindWindow(window_start)->slot = index;
    }
    seg.slots.pop_back();
    seg.order_stale = true;
    if (seg.slots.empty() && !STATECHECK_PLANTED(WindowStoreDeleteKeepsEmptySegment)) {
      c.EraseSegment(seg_it);  // Keeps: W4 — an emptied segment goes
    } else {
      c.MaybeCompact(seg);
    }
    return Status::Ok();
  }

  Status Open(std::optional<std::string> key_from, std::optional<std::string> key_to,
              int64_t time_from, int64_t time_to, bool forward,
              std::unique_ptr<WindowStoreIterator>* out) {
    Core& c = *core_;
    bool invalid_keys = false;
    // Replaced outside the lock: destroying the old iterator takes the lock.
    std::unique_ptr<IteratorImpl> it;
    {
      internal::MutexLock lock(&c.mu);
      if (!c.open) return c.ClosedError();
      c.RemoveExpired();
      const int64_t bound = c.ExpiryBound();  // W6: the range starts above it.
      const bool all_expired = bound == kMaxTime;
      // Keeps: W6 — a range read starts at max(from, streamTime - retention + 1)
      const int64_t lo = all_expired ? kMaxTime : std::max(time_from, bound + 1);
      // Keeps: W7 — keyFrom > keyTo: an exhausted iterator plus the warning, no error
      invalid_keys = key_from && key_to && *key_from > *key_to;
      it = std::make_unique<IteratorImpl>(core_, std::move(key_from), std::move(key_to), lo,
                                          time_to, forward);
      c.iterators.push_back(it.get());
      if (invalid_keys || all_expired || lo > time_to) {
        it->MarkExhaustedLocked();
      } else {
        it->AdvanceLocked(c);
      }
    }
    *out = std::move(it);
    if (invalid_keys) c.logger->Log(LogLevel::kWarn, kInvalidKeyRangeMessage);
    return Status::Ok();
  }

 public:
  int64_t SegmentsExamined() const {
    internal::MutexLock lock(&core_->mu);
    return core_->segments_examined;
  }

 private:
  const std::shared_ptr<Core> core_;
};

}  // namespace

namespace internal {

int64_t SegmentsExaminedForTesting(const WindowStore& store) {
  const auto* s = dynamic_cast<const InMemoryWindowStore*>(&store);
  return s ? s->SegmentsExamined() : -1;
}

}  // namespace internal

// Keeps: W1 — empty name, retention < 0, size < 0, size > retention: the first, in Kafka's text
Status ValidateWindowStoreOptions(const WindowStoreOptions& options) {
  if (options.name.empty()) return Status::InvalidArgument("name cannot be empty");
  if (options.retention_ms < 0) {
    return Status::InvalidArgument("retentionPeriod cannot be negative");
  }
  if (options.window_size_ms < 0) return Status::InvalidArgument("windowSize cannot be negative");
  if (options.window_size_ms > options.retention_ms) {
    return Status::InvalidArgument("The retention period of the window store " + options.name +
                                   " must be no smaller than its window size. Got size=[" +
                                   std::to_string(options.window_size_ms) + "], retention=[" +
                                   std::to_string(options.retention_ms) + "]");
  }
  return Status::Ok();
}

Status NewInMemoryWindowStore(const WindowStoreOptions& options,
                              std::unique_ptr<WindowStore>* store) {
  store->reset();
  STATECHECK_RETURN_IF_ERROR(ValidateWindowStoreOptions(options));
  *store = std::make_unique<InMemoryWindowStore>(options);
  return Status::Ok();
}

}  // namespace statecheck
