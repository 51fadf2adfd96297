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

#include "engine/base/mutex.h"
#include "engine/base/planted.h"
#include "engine/store/in_memory_window_store_core.h"

namespace statecheck {
namespace internal::window_store {

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
  const std::vector<Slot>& slots = seg_it->second.slots;
  // The slots' keys are spread over the key table: fetch their entries, then their windows,
  // a few slots ahead.
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (i + kAhead < slots.size()) keys.Prefetch(slots[i + kAhead].key);
    if (i + kAhead / 2 < slots.size()) keys.PrefetchWindows(slots[i + kAhead / 2].key);
    --retained_records;
    // A duplicate's key already lost this window with its first slot.
    if (keys.Get(slots[i].key).EraseWindow(start)) keys.ReleaseIfUnused(slots[i].key);
  }
  if (last_put == seg_it) last_put = segments.end();
  segment_at.erase(start);
  segments.erase(seg_it);
}

std::map<int64_t, Segment>::iterator Core::SegmentForPut(int64_t start) {
  if (last_put != segments.end() && last_put->first == start) return last_put;
  auto it = segments.lower_bound(start);
  if (it == segments.end() || it->first != start) {
    // A new newest segment: the previous newest is mostly done growing, so shed its slack,
    // and size the new one like it (streams fill their windows alike): no growth on the way.
    Segment fresh;
    if (it == segments.end() && !segments.empty()) {
      Segment& prev = segments.rbegin()->second;
      prev.slots.shrink_to_fit();
      prev.arena.shrink_to_fit();
      fresh.slots.reserve(prev.slots.size());
      fresh.arena.reserve(prev.arena.size() - prev.garbage);
    }
    it = segments.emplace_hint(it, start, std::move(fresh));
    segment_at[start] = &it->second;
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
  segment_at.clear();
  last_put = segments.end();
  keys.Clear();
  retained_records = 0;
}

}  // namespace internal::window_store

namespace {

using internal::window_store::Core;
using internal::window_store::IteratorImpl;
using internal::window_store::KeyEntry;
using internal::window_store::KeyId;
using internal::window_store::KeyWindow;
using internal::window_store::kMaxTime;
using internal::window_store::kMinTime;
using internal::window_store::Segment;
using internal::window_store::Slot;

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
    const Segment& seg = c.SegmentAt(window_start);
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
