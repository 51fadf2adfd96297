#include "model/sliding_aggregation_model.h"

#include <algorithm>
#include <set>

namespace statecheck::model {

WindowedOutput SlidingAggregationModel::Output(const SlidingModelState& s, int64_t start,
                                               const std::string& key) const {
  const std::vector<int64_t>& taken = s.windows.at({start, key});
  return {
      std::to_string(start) + ":" + std::to_string(start + config_.time_difference_ms) + ":" + key,
      std::to_string(taken.size()), *std::max_element(taken.begin(), taken.end())};
}

void SlidingAggregationModel::ProcessOne(const std::string& key, int64_t ts, int64_t now_ms) {
  const int64_t d = config_.time_difference_ms;
  if (key.empty() || ts < 0) {
    ++dropped_;
    return;
  }
  stream_time_ = std::max(stream_time_, ts);
  const int64_t close = stream_time_ - config_.grace_ms;
  if (ts + d < close) {  // Even [ts, ts + D] has closed.
    ++dropped_;
    return;
  }
  // ts's right window [ts + 1, ts + 1 + D], if it is missing, starts as a copy of the window
  // holding ts that ends after it and starts last, as that window was before ts (Kafka's
  // rightWinAgg): the records after ts. Only when that window holds a later record.
  std::optional<std::vector<int64_t>> right;
  if (!current_.windows.count({ts + 1, key})) {
    const std::vector<int64_t>* source = nullptr;
    for (const auto& [window, timestamps] : current_.windows) {
      if (window.second == key && window.first <= ts && ts < window.first + d) {
        source = &timestamps;  // By ascending start: the last is the latest.
      }
    }
    if (source && *std::max_element(source->begin(), source->end()) > ts) right = *source;
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
  {
    const std::vector<int64_t>* source = nullptr;
    for (const auto& [window, timestamps] : current_.windows) {
      if (window.second == key && window.first + d < ts && window.first >= ts - 2 * d) {
        source = &timestamps;
      }
    }
    if (source && *std::max_element(source->begin(), source->end()) >= ts - d) left = *source;
  }
  std::vector<int64_t> changed;
  for (const int64_t start : starts) {
    if (start + d < close) {  // E1: this window no longer takes records.
      ++dropped_;
      continue;
    }
    auto [it, created] = current_.windows.try_emplace({start, key});
    if (created && start == ts - d) it->second = left;
    it->second.push_back(ts);
    changed.push_back(start);
  }
  if (right) {
    current_.windows[{ts + 1, key}] = std::move(*right);
    changed.push_back(ts + 1);
  }
  if (!config_.emit_final) {  // E2: by ascending start (ts + 1 is the largest).
    for (const int64_t start : changed) current_.output.push_back(Output(current_, start, key));
    return;
  }
  // E3–E5.
  if (close <= current_.last_emit_close) return;
  if (last_attempt_ms_ && now_ms - *last_attempt_ms_ < config_.emit_interval_ms) return;
  last_attempt_ms_ = now_ms;
  for (const auto& [window, taken] : current_.windows) {  // By start, then key (E4).
    const int64_t end = window.first + d;
    if (end >= current_.last_emit_close && end < close) {
      current_.output.push_back(Output(current_, window.first, window.second));
    }
  }
  current_.last_emit_close = close;
}

std::map<std::string, std::string> SlidingAggregationModel::CommittedWindows() const {
  std::map<std::string, std::string> out;
  for (const auto& [window, taken] : committed_.windows) {
    const WindowedOutput o = Output(committed_, window.first, window.second);
    out[o.key] = o.value + "@" + std::to_string(o.timestamp);
  }
  return out;
}

}  // namespace statecheck::model
