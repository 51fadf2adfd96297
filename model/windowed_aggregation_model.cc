#include "model/windowed_aggregation_model.h"

#include <algorithm>
#include <set>

namespace statecheck::model {

std::pair<int64_t, int64_t> WindowedAggregationModel::Aggregate(const WindowedModelState& s,
                                                                int64_t start,
                                                                const std::string& key) const {
  int64_t count = 0, max_ts = -1;
  for (size_t i = 0; i < s.taken.size(); ++i) {
    if (s.taken[i] == std::make_pair(start, key)) {
      ++count;
      max_ts = std::max(max_ts, s.taken_ts[i]);
    }
  }
  return {count, max_ts};
}

void WindowedAggregationModel::ProcessOne(const std::string& key, int64_t ts, int64_t now_ms) {
  if (key.empty() || ts < 0) {
    ++dropped_;
    return;
  }
  stream_time_ = std::max(stream_time_, ts);
  // The windows holding ts: every start (a multiple of the advance, from 0) with
  // start <= ts < start + size.
  for (int64_t start = 0; start <= ts; start += config_.advance_ms) {
    if (ts >= start + config_.size_ms) continue;
    const int64_t end = start + config_.size_ms;
    if (!(end > stream_time_ - config_.grace_ms)) {  // E1.
      ++dropped_;
      continue;
    }
    current_.taken.emplace_back(start, key);
    current_.taken_ts.push_back(ts);
    if (!config_.emit_final) {  // E2.
      const auto [count, max_ts] = Aggregate(current_, start, key);
      current_.output.push_back({std::to_string(start) + ":" + std::to_string(end) + ":" + key,
                                 std::to_string(count), max_ts});
    }
  }
  if (config_.emit_final) EmitFinal(now_ms);
  // Retention: the windows past it are gone from the store (under emit-final, once emitted).
  const int64_t retention =
      config_.retention_ms >= 0 ? config_.retention_ms : config_.size_ms + config_.grace_ms;
  auto expired = [&](int64_t start) {
    return start <= stream_time_ - retention &&
           (!config_.emit_final || start + config_.size_ms <= current_.last_emit_close);
  };
  for (size_t i = current_.taken.size(); i-- > 0;) {
    if (expired(current_.taken[i].first)) {
      current_.taken.erase(current_.taken.begin() + static_cast<std::ptrdiff_t>(i));
      current_.taken_ts.erase(current_.taken_ts.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

void WindowedAggregationModel::EmitFinal(int64_t now_ms) {
  // E3–E5.
  const int64_t close = stream_time_ - config_.grace_ms;
  if (close <= current_.last_emit_close) return;
  if (last_attempt_ms_ && now_ms - *last_attempt_ms_ < config_.emit_interval_ms) return;
  last_attempt_ms_ = now_ms;
  std::set<std::pair<int64_t, std::string>> closing;  // By start, then key (E4).
  for (const auto& w : current_.taken) {
    const int64_t end = w.first + config_.size_ms;
    if (end > current_.last_emit_close && end <= close) closing.insert(w);
  }
  for (const auto& [start, k] : closing) {
    const auto [count, max_ts] = Aggregate(current_, start, k);
    current_.output.push_back(
        {std::to_string(start) + ":" + std::to_string(start + config_.size_ms) + ":" + k,
         std::to_string(count), max_ts});
  }
  current_.last_emit_close = close;
}

std::map<std::string, std::string> WindowedAggregationModel::CommittedWindows() const {
  std::map<std::string, std::string> out;
  for (const auto& [start, key] : committed_.taken) {
    const auto [count, max_ts] = Aggregate(committed_, start, key);
    out[std::to_string(start) + ":" + std::to_string(start + config_.size_ms) + ":" + key] =
        std::to_string(count) + "@" + std::to_string(max_ts);
  }
  return out;
}

}  // namespace statecheck::model
