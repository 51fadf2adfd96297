#include "bench/seed_window_store.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace statecheck::bench {

bool SeedWindowStore::KeyIterator::Next(RecordView* record) {
  // The seed's single-key fetch: one key lookup in every segment of the range, whether or not
  // the segment holds the key.
  while (segment_ != end_) {
    const auto current = segment_++;
    const auto it = current->second.find(key_);
    if (it != current->second.end()) {
      record->window_start = current->first;
      record->key = it->first;
      record->value = it->second;
      return true;
    }
  }
  return false;
}

SeedWindowStore::AllIterator::AllIterator(SegmentMap::const_iterator segment,
                                          SegmentMap::const_iterator end)
    : segment_(segment), end_(end) {
  if (segment_ != end_) record_ = segment_->second.begin();
}

bool SeedWindowStore::AllIterator::Next(RecordView* record) {
  while (segment_ != end_) {
    if (record_ != segment_->second.end()) {
      record->window_start = segment_->first;
      record->key = record_->first;
      record->value = record_->second;
      ++record_;
      return true;
    }
    if (++segment_ != end_) record_ = segment_->second.begin();
  }
  return false;
}

void SeedWindowStore::RemoveExpiredSegments() {
  // stream_time_ >= -1 and retention_ms_ >= 0, so this neither overflows nor underflows.
  const int64_t min_live = stream_time_ - retention_ms_ + 1;
  segments_.erase(segments_.begin(), segments_.lower_bound(min_live));
}

void SeedWindowStore::Put(std::string_view key, std::optional<std::string_view> value,
                          int64_t window_start) {
  RemoveExpiredSegments();
  stream_time_ = std::max(stream_time_, window_start);
  if (window_start <= stream_time_ - retention_ms_) {
    ++dropped_records_;
    return;
  }
  if (value.has_value()) {
    auto seg = segments_.lower_bound(window_start);
    if (seg == segments_.end() || seg->first != window_start) {
      seg = segments_.emplace_hint(seg, std::piecewise_construct,
                                   std::forward_as_tuple(window_start), std::forward_as_tuple());
    }
    Segment& records = seg->second;
    auto it = records.lower_bound(key);
    if (it != records.end() && it->first == key) {
      it->second.assign(value->data(), value->size());
    } else {
      records.emplace_hint(it, std::piecewise_construct, std::forward_as_tuple(key),
                           std::forward_as_tuple(*value));
    }
    return;
  }
  const auto seg = segments_.find(window_start);
  if (seg == segments_.end()) return;
  const auto it = seg->second.find(key);
  if (it == seg->second.end()) return;
  seg->second.erase(it);
  if (seg->second.empty()) segments_.erase(seg);
}

const std::string* SeedWindowStore::Fetch(std::string_view key, int64_t window_start) {
  RemoveExpiredSegments();
  if (window_start <= stream_time_ - retention_ms_) return nullptr;
  const auto seg = segments_.find(window_start);
  if (seg == segments_.end()) return nullptr;
  const auto it = seg->second.find(key);
  return it == seg->second.end() ? nullptr : &it->second;
}

void SeedWindowStore::SegmentRange(int64_t time_from, int64_t time_to,
                                   SegmentMap::const_iterator* first,
                                   SegmentMap::const_iterator* last) const {
  const int64_t from = std::max(time_from, stream_time_ - retention_ms_ + 1);
  if (from > time_to) {
    *first = *last = segments_.end();
    return;
  }
  *first = segments_.lower_bound(from);
  *last = segments_.upper_bound(time_to);
}

SeedWindowStore::KeyIterator SeedWindowStore::Fetch(std::string_view key, int64_t time_from,
                                                    int64_t time_to) {
  RemoveExpiredSegments();
  SegmentMap::const_iterator first;
  SegmentMap::const_iterator last;
  SegmentRange(time_from, time_to, &first, &last);
  return KeyIterator(first, last, key);
}

SeedWindowStore::AllIterator SeedWindowStore::FetchAll(int64_t time_from, int64_t time_to) {
  RemoveExpiredSegments();
  SegmentMap::const_iterator first;
  SegmentMap::const_iterator last;
  SegmentRange(time_from, time_to, &first, &last);
  return AllIterator(first, last);
}

size_t SeedWindowStore::num_records() const {
  size_t n = 0;
  for (const auto& [start, records] : segments_) n += records.size();
  return n;
}

}  // namespace statecheck::bench
