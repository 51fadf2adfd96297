// The in-memory window store's iterator (IteratorImpl, in_memory_window_store_core.h): it walks
// the segments by window start, copying one segment's matching records at a time (W9, W10).
#include <algorithm>
#include <utility>

#include "engine/base/planted.h"
#include "engine/store/in_memory_window_store_core.h"

namespace statecheck::internal::window_store {

bool IteratorImpl::EnterNextSegment() {
  Core& c = *core_;
  internal::MutexLock lock(&c.mu);
  if (closed_.load(std::memory_order_relaxed)) return false;
  AdvanceLocked(c);
  return !exhausted_;
}

Status IteratorImpl::Next(WindowedRecord* record) {
  // Keeps: W9 — reading past the end is OutOfRange, not undefined behaviour
  if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
  const Buffered& b = buffer_[pos_++];
  record->key.assign(keys_, b.key_offset, b.key_size);
  record->window = window_;
  record->value.assign(values_, b.value_offset, b.value_size);
  return Status::Ok();
}

// Keeps: W9 — the views are the snapshot's bytes, which stay put until the iterator's next call
Status IteratorImpl::NextView(WindowedRecordView* record) {
  if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
  const Buffered& b = buffer_[pos_++];
  record->key = std::string_view(keys_.data() + b.key_offset, b.key_size);
  record->window = window_;
  record->value = std::string_view(values_.data() + b.value_offset, b.value_size);
  return Status::Ok();
}

Status IteratorImpl::PeekNextKey(WindowedKey* key) {
  if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
  const Buffered& b = buffer_[pos_];
  key->key.assign(keys_, b.key_offset, b.key_size);
  key->window = window_;
  return Status::Ok();
}

// Keeps: W9 — closing releases its pins: it leaves the store's list of open iterators
void IteratorImpl::Close() {
  if (closed_.exchange(true)) return;
  {
    internal::MutexLock lock(&core_->mu);
    auto& its = core_->iterators;
    its.erase(std::remove(its.begin(), its.end(), this), its.end());
  }
  std::vector<Buffered>().swap(buffer_);
  std::string().swap(keys_);
  std::string().swap(values_);
}

void IteratorImpl::AdvanceLocked(Core& c) {
  buffer_.clear();
  keys_.clear();
  values_.clear();
  pos_ = 0;
  std::optional<int64_t> next = single_key_ ? NextStartOfKeyLocked(c) : NextStartLocked(c);
  if (!next) {
    exhausted_ = true;
    return;
  }
  started_ = true;
  cur_ = *next;
}

// Keeps: W10 — a single-key read steps through the key's own windows, never other segments
std::optional<int64_t> IteratorImpl::NextStartOfKeyLocked(Core& c) {
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
  Segment& seg = c.SegmentAt(start);
  if (!c.retain_duplicates) {
    window_ = Window{start, WindowEnd(start, c.window_size)};
    Buffer(*key_from_, seg.Value(seg.slots[window->slot]), std::string::npos);
    return start;
  }
  seg.EnsureOrder(c.keys);
  auto [first, last] = seg.KeyRange(c.keys, key_from_, key_to_);
  CopyOut(c, seg, start, first, last);
  return start;
}

std::optional<int64_t> IteratorImpl::NextStartLocked(Core& c) {
  auto& segs = c.segments;
  // Dense starts (a segment every ms) are the common case: the neighbouring start first, with
  // one hash probe instead of a seek down the map's tree.
  std::optional<int64_t> probed;
  if (started_ && (forward_ ? cur_ < hi_ : cur_ > lo_)) {
    probed = forward_ ? cur_ + 1 : cur_ - 1;
    auto hit = c.segment_at.find(*probed);
    if (hit == c.segment_at.end()) {
      probed.reset();
    } else if (Snapshot(c, *probed, *hit->second)) {
      return probed;
    }
  }
  // Keeps: W9 — each step re-seeks the live segments from cur_: later puts seen, nothing stale
  const int64_t from = probed.value_or(cur_);
  if (forward_) {
    for (auto it = started_ ? segs.upper_bound(from) : segs.lower_bound(lo_);
         it != segs.end() && it->first <= hi_; ++it) {
      if (Snapshot(c, it->first, it->second)) return it->first;
    }
  } else {
    auto it = started_ ? segs.lower_bound(from) : segs.upper_bound(hi_);
    while (it != segs.begin()) {
      --it;
      if (it->first < lo_) break;
      if (Snapshot(c, it->first, it->second)) return it->first;
    }
  }
  return std::nullopt;
}

bool IteratorImpl::Snapshot(Core& c, int64_t start, Segment& seg) {
  ++c.segments_examined;
  seg.EnsureOrder(c.keys);
  auto [first, last] = seg.KeyRange(c.keys, key_from_, key_to_);
  CopyOut(c, seg, start, first, last);
  return !buffer_.empty();
}

void IteratorImpl::Buffer(std::string_view key, std::string_view value, size_t value_offset) {
  if (value_offset == std::string::npos) {
    value_offset = values_.size();
    values_.append(value);
  }
  buffer_.push_back(Buffered{keys_.size(), key.size(), static_cast<uint32_t>(value_offset),
                             static_cast<uint32_t>(value.size())});
  keys_.append(key);
}

void IteratorImpl::CopyOut(const Core& c, const Segment& seg, int64_t start, size_t first,
                           size_t last) {
  window_ = Window{start, WindowEnd(start, c.window_size)};
  buffer_.reserve(last - first);
  // Most of the segment: its values in one copy, at their offsets.
  const bool whole_arena = 2 * (last - first) >= seg.slots.size();
  if (whole_arena) values_.assign(seg.arena);
  // The keys' entries are spread over the key table: fetch a few records ahead.
  constexpr size_t kAhead = 8;
  for (size_t i = first; i < last; ++i) {
    if (i + kAhead < last) c.keys.Prefetch(seg.slots[seg.order[i + kAhead]].key);
    const Slot& slot = seg.slots[seg.order[i]];
    Buffer(c.keys.Bytes(slot.key), seg.Value(slot), whole_arena ? slot.offset : std::string::npos);
  }
  // Keeps: W7 — a backward read reverses the records within a segment too
  if (STATECHECK_PLANTED(WindowStoreBackwardSegmentNotReversed)) {
    // Only the segments are walked backwards: a segment's records stay in forward order.
  } else if (!forward_) {
    std::reverse(buffer_.begin(), buffer_.end());
  }
}

}  // namespace statecheck::internal::window_store
