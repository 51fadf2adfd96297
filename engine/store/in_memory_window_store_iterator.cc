// The in-memory window store's iterator (IteratorImpl, in_memory_window_store_core.h): it walks
// the segments by window start, copying one segment's matching records at a time (W9, W10).
#include <algorithm>
#include <utility>

#include "engine/base/planted.h"
#include "engine/store/in_memory_window_store_core.h"

namespace statecheck::internal::window_store {

bool IteratorImpl::HasNext() {
  if (closed_.load(std::memory_order_acquire) || exhausted_) return false;
  if (pos_ < buffer_.size()) return true;
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
  record->key.assign(bytes_, b.offset, b.key_size);
  record->window = window_;
  record->value.assign(bytes_, b.offset + b.key_size, b.value_size);
  return Status::Ok();
}

Status IteratorImpl::PeekNextKey(WindowedKey* key) {
  if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
  const Buffered& b = buffer_[pos_];
  key->key.assign(bytes_, b.offset, b.key_size);
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
  std::string().swap(bytes_);
}

void IteratorImpl::AdvanceLocked(Core& c) {
  buffer_.clear();
  bytes_.clear();
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
    Buffer(*key_from_, seg.Value(seg.slots[window->slot]));
    return start;
  }
  seg.EnsureOrder(c.keys);
  auto [first, last] = seg.KeyRange(c.keys, key_from_, key_to_);
  CopyOut(c, seg, start, first, last);
  return start;
}

std::optional<int64_t> IteratorImpl::NextStartLocked(Core& c) {
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

bool IteratorImpl::Snapshot(Core& c, std::map<int64_t, Segment>::iterator seg_it) {
  ++c.segments_examined;
  Segment& seg = seg_it->second;
  seg.EnsureOrder(c.keys);
  auto [first, last] = seg.KeyRange(c.keys, key_from_, key_to_);
  CopyOut(c, seg, seg_it->first, first, last);
  return !buffer_.empty();
}

void IteratorImpl::Buffer(std::string_view key, std::string_view value) {
  buffer_.push_back(Buffered{bytes_.size(), key.size(), static_cast<uint32_t>(value.size())});
  bytes_.append(key);
  bytes_.append(value);
}

void IteratorImpl::CopyOut(const Core& c, const Segment& seg, int64_t start, size_t first,
                           size_t last) {
  window_ = Window{start, WindowEnd(start, c.window_size)};
  buffer_.reserve(last - first);
  for (size_t i = first; i < last; ++i) {
    const Slot& slot = seg.slots[seg.order[i]];
    Buffer(c.keys.Bytes(slot.key), seg.Value(slot));
  }
  // Keeps: W7 — a backward read reverses the records within a segment too
  if (STATECHECK_PLANTED(WindowStoreBackwardSegmentNotReversed)) {
    // Only the segments are walked backwards: a segment's records stay in forward order.
  } else if (!forward_) {
    std::reverse(buffer_.begin(), buffer_.end());
  }
}

}  // namespace statecheck::internal::window_store
