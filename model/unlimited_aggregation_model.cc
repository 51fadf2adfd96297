#include "model/unlimited_aggregation_model.h"

#include <algorithm>
#include <limits>

namespace statecheck::model {

std::string UnlimitedAggregationModel::Name(const std::string& key) const {
  return WindowName(config_.start_ms, std::numeric_limits<int64_t>::max(), key);
}

std::pair<std::string, int64_t> UnlimitedAggregationModel::Aggregate(const UnlimitedModelState& s,
                                                                     const std::string& key) const {
  std::vector<std::optional<std::string>> values;
  int64_t max_ts = -1;
  for (const auto& [ts, value] : s.taken.at(key)) {
    max_ts = std::max(max_ts, ts);
    values.push_back(value);
  }
  return {FoldValues(config_.aggregator, values), max_ts};
}

void UnlimitedAggregationModel::ProcessOne(const std::string& key, int64_t ts,
                                           const std::optional<std::string>& value,
                                           int64_t /*now_ms*/) {
  if (key.empty() || ts < 0) {
    Note(key.empty() ? "E1.null_key" : "E1.no_timestamp");
    Drop(/*late=*/false);
    return;
  }
  if (config_.aggregator == AggregatorKind::kReduce && !value) return;  // Skipped.
  // Encodes: E2 — unlimited windows: from the start on, one window per key, updated eagerly
  if (ts < config_.start_ms) return;  // In no window: ignored, not dropped.
  stream_time_ = std::max(stream_time_, ts);
  std::vector<std::pair<int64_t, std::optional<std::string>>>& taken = current_.taken[key];
  const bool out_of_order = !taken.empty() && ts < stream_time_;
  taken.emplace_back(ts, value);
  const auto [aggregate, max_ts] = Aggregate(current_, key);
  if (taken.size() >= 2) Note("E2.updated_again");
  if (out_of_order && max_ts > ts) Note("E2.out_of_order");
  EmitUpdate({Name(key), aggregate, max_ts}, /*at_grace_bound=*/false);
}

bool UnlimitedAggregationModel::HasWindow(const std::string& window) const {
  int64_t start = 0, end = 0;
  std::string key;
  return ParseWindowName(window, &start, &end, &key) && window == Name(key) &&
         current_.taken.count(key) > 0;
}

std::map<std::string, std::string> UnlimitedAggregationModel::WindowsIn(
    const UnlimitedModelState& s) const {
  std::map<std::string, std::string> out;
  for (const auto& [key, records] : s.taken) {
    const auto [aggregate, max_ts] = Aggregate(s, key);
    out[Name(key)] = aggregate + "@" + std::to_string(max_ts);
  }
  return out;
}

}  // namespace statecheck::model
