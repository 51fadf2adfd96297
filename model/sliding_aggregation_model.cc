#include "model/sliding_aggregation_model.h"

#include <algorithm>
#include <set>

namespace statecheck::model {

WindowedOutput SlidingAggregationModel::Output(const SlidingModelState& s, int64_t start,
                                               const std::string& key) const {
  const std::vector<int64_t>& taken = s.windows.at({start, key});
  return {WindowName(start, start + config_.time_difference_ms, key),
          FoldValues(config_.aggregator, s.values.at({start, key})),
          *std::max_element(taken.begin(), taken.end())};
}

void SlidingAggregationModel::ProcessOne(const std::string& key, int64_t ts,
                                         const std::optional<std::string>& value, int64_t now_ms) {
  const int64_t d = config_.time_difference_ms;
  if (key.empty() || ts < 0) {
    Note(key.empty() ? "E1.null_key" : "E1.no_timestamp");
    Drop(/*late=*/false);
    return;
  }
  if (config_.aggregator == AggregatorKind::kReduce && !value) return;  // Skipped.
  const bool out_of_order = ts < stream_time_;
  stream_time_ = std::max(stream_time_, ts);
  const int64_t close = stream_time_ - config_.grace_ms;
  if (ts + d < close) {  // Even [ts, ts + D] has closed.
    if (ts + d == close - 1) Note("E1.first_dropped");
    const int64_t left = std::max<int64_t>(0, ts - d);
    Drop(/*late=*/true, WindowName(left, left + d, key));
    return;
  }
  // ts's right window [ts + 1, ts + 1 + D], if it is missing, starts as a copy of the window
  // holding ts that ends after it and starts last, as that window was before ts (Kafka's
  // rightWinAgg): the records after ts. Only when that window holds a later record.
  // Its timestamps and values, copied from the source window as it was before ts.
  std::optional<std::pair<std::vector<int64_t>, std::vector<std::optional<std::string>>>> right;
  if (!current_.windows.count({ts + 1, key})) {
    const std::pair<int64_t, std::string>* source = nullptr;
    for (const auto& [window, timestamps] : current_.windows) {
      if (window.second == key && window.first <= ts && ts < window.first + d) {
        source = &window;  // By ascending start: the last is the latest.
      }
    }
    if (source) {
      const std::vector<int64_t>& later = current_.windows.at(*source);
      if (*std::max_element(later.begin(), later.end()) > ts) {
        right.emplace(later, current_.values.at(*source));
      }
    }
  }
  // The windows holding ts, by start: those of the key that exist, ts's left window, and the
  // right window of the record before it, which ts may be the first to fall in.
  std::set<int64_t> starts = {std::max<int64_t>(0, ts - d)};
  for (const auto& [window, timestamps] : current_.windows) {
    if (window.second == key && window.first <= ts && ts <= window.first + d) {
      starts.insert(window.first);
    }
  }
  // The record before ts, as the windows show it (Kafka's previousRecordTimestamp): the latest
  // record of the window that ends last before ts, or of ts's left window if it is earlier than
  // ts. (A record no window took, or whose windows were never made, does not show.)
  std::optional<int64_t> previous;
  for (const auto& [window, timestamps] : current_.windows) {
    if (window.second != key || window.first < ts - 2 * d) continue;
    const int64_t latest = *std::max_element(timestamps.begin(), timestamps.end());
    const bool before = window.first + d < ts ||
                        (ts < d ? window.first == 0 : window.first + d == ts);  // Left window.
    if (before && (window.first + d < ts || latest < ts)) previous = latest;
  }
  if (previous && ts <= *previous + 1 + d) starts.insert(*previous + 1);
  // ts's left window [ts - D, ts], if it is missing, starts as a copy of the window that ends
  // last before ts (Kafka's leftWinAgg) if its latest record lies in [ts - D, ts), else empty.
  // (Early windows, and the right window of the record before ts, start empty.)
  std::vector<int64_t> left;
  std::vector<std::optional<std::string>> left_values;  // Its values, in the order taken.
  {
    const std::pair<int64_t, std::string>* source = nullptr;
    for (const auto& [window, timestamps] : current_.windows) {
      if (window.second == key && window.first + d < ts && window.first >= ts - 2 * d) {
        source = &window;
      }
    }
    if (source) {
      const std::vector<int64_t>& earlier = current_.windows.at(*source);
      if (*std::max_element(earlier.begin(), earlier.end()) >= ts - d) {
        left = earlier;
        left_values = current_.values.at(*source);
      }
    }
  }
  std::vector<int64_t> changed;
  std::set<int64_t> at_bound;
  int skipped = 0;
  for (const int64_t start : starts) {
    // Encodes: E1 — a sliding window takes a record iff end >= streamTime - grace
    if (start + d < close) {  // E1: this window no longer takes records.
      if (start + d == close - 1) Note("E1.first_dropped");
      Drop(/*late=*/true, WindowName(start, start + d, key));
      ++skipped;
      continue;
    }
    if (start + d == close) {
      Note("E1.last_accepted");
      at_bound.insert(start);
    }
    auto [it, created] = current_.windows.try_emplace({start, key});
    std::vector<std::optional<std::string>>& values = current_.values[{start, key}];
    if (created && start == ts - d) {
      it->second = left;
      values = left_values;
      if (!left.empty() && config_.aggregator != AggregatorKind::kCount && !config_.emit_final) {
        Note("E2.copied_values");
      }
    }
    it->second.push_back(ts);
    values.push_back(value);
    changed.push_back(start);
  }
  if (right) {
    if (config_.aggregator != AggregatorKind::kCount && !config_.emit_final) {
      Note("E2.copied_values");
    }
    current_.windows[{ts + 1, key}] = std::move(right->first);
    current_.values[{ts + 1, key}] = std::move(right->second);
    changed.push_back(ts + 1);
  }
  if (!changed.empty() && skipped > 0) Note("E1.one_window_only");
  // Encodes: E2 — one update per window changed, by ascending start, timestamp its max record
  if (!config_.emit_final) {  // E2: by ascending start (ts + 1 is the largest).
    if (changed.size() >= 2) Note("E2.several_windows");
    for (const int64_t start : changed) {
      WindowedOutput o = Output(current_, start, key);
      if (current_.windows.at({start, key}).size() >= 2) Note("E2.updated_again");
      if (out_of_order && o.timestamp > ts) Note("E2.out_of_order");
      Update(start, start + d, key, std::move(o), at_bound.count(start) > 0);
    }
    return;
  }
  // E3–E5.
  if (!StartAttempt(close, now_ms)) return;
  std::vector<Closing> batch;
  // Encodes: E4 — windows closing together go out by start, then key bytes
  for (const auto& [window, taken] : current_.windows) {  // By start, then key (E4).
    const int64_t end = window.first + d;
    // Encodes: E3 — closed (end < streamTime - grace) and not yet emitted
    if (end >= current_.last_emit_close && end < close) {
      const WindowedOutput o = Output(current_, window.first, window.second);
      batch.push_back({window.first, end, window.second, static_cast<int64_t>(taken.size()),
                       o.value, o.timestamp});
    } else if (end >= close) {
      NoteOpen(window.first, end);
    }
  }
  EmitAttempt(batch, close, /*sessions=*/false);
}

bool SlidingAggregationModel::ClosedAt(int64_t start, int64_t end, int64_t stream_time) const {
  (void)start;
  return end < stream_time - config_.grace_ms;
}

bool SlidingAggregationModel::HasWindow(const std::string& window) const {
  int64_t start = 0, end = 0;
  std::string key;
  return ParseWindowName(window, &start, &end, &key) && end == start + config_.time_difference_ms &&
         current_.windows.count({start, key}) > 0;
}

std::map<std::string, std::string> SlidingAggregationModel::WindowsIn(
    const SlidingModelState& s) const {
  std::map<std::string, std::string> out;
  for (const auto& [window, taken] : s.windows) {
    const WindowedOutput o = Output(s, window.first, window.second);
    out[o.key] = o.value + "@" + std::to_string(o.timestamp);
  }
  return out;
}

}  // namespace statecheck::model
