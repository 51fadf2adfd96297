#include "model/windowed_aggregation_model.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace statecheck::model {
namespace {

// a + b for b >= 0, at most INT64_MAX: window ends and retention saturate, as Kafka's do.
int64_t AddSaturating(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace

WindowedAggregationModel::WindowAggregate WindowedAggregationModel::Aggregate(
    const WindowedModelState& s, int64_t start, const std::string& key) const {
  const auto it = s.taken.find({start, key});
  if (it == s.taken.end()) return {};
  WindowAggregate a;
  std::vector<std::optional<std::string>> values;
  for (const auto& [ts, value] : it->second) {
    a.max_ts = std::max(a.max_ts, ts);
    values.push_back(value);
  }
  a.count = static_cast<int64_t>(values.size());
  a.value = FoldValues(config_.aggregator, values);
  return a;
}

void WindowedAggregationModel::ProcessOne(const std::string& key, int64_t ts,
                                          const std::optional<std::string>& value, int64_t now_ms) {
  if (key.empty() || ts < 0) {
    Note(key.empty() ? "E1.null_key" : "E1.no_timestamp");
    Drop(/*late=*/false);
    return;
  }
  // Kafka's reduce skips a null value before the record counts for anything: no stream time.
  if (config_.aggregator == AggregatorKind::kReduce && !value) return;
  const bool out_of_order = ts < stream_time_;
  stream_time_ = std::max(stream_time_, ts);
  int updated = 0, skipped = 0;
  for (const int64_t start : StartsFor(ts)) {
    const int64_t end = End(start);
    const std::string name = WindowName(start, end, key);
    // Encodes: E1 — a time window is updated iff end > streamTime - grace; else it alone drops
    if (!(end > stream_time_ - config_.grace_ms)) {  // E1.
      if (end == stream_time_ - config_.grace_ms) Note("E1.first_dropped");
      Drop(/*late=*/true, name);
      ++skipped;
      continue;
    }
    const bool at_bound = end - 1 == stream_time_ - config_.grace_ms;
    if (at_bound) Note("E1.last_accepted");
    ++updated;
    current_.taken[{start, key}].emplace_back(ts, value);
    store_time_ = std::max(store_time_, start);
    // Encodes: E2 — one update per window taken, by ascending start, timestamp its max record
    if (!config_.emit_final) {  // E2.
      if (ts >= 1'000'000'000'000 && end < std::numeric_limits<int64_t>::max()) {
        Note("E2.epoch_timestamps");
      }
      if (end == std::numeric_limits<int64_t>::max()) Note("E2.end_at_int64_max");
      const WindowAggregate a = Aggregate(current_, start, key);
      if (config_.suppress) {
        Update(start, end, key, {name, a.value, a.max_ts}, at_bound);
        continue;
      }
      if (a.count >= 2) Note("E2.updated_again");
      if (out_of_order && a.max_ts > ts) Note("E2.out_of_order");
      EmitUpdate({name, a.value, a.max_ts}, at_bound);
    }
  }
  if (updated > 0 && skipped > 0) Note("E1.one_window_only");
  if (updated >= 2 && !config_.emit_final && !config_.suppress) Note("E2.several_windows");
  if (config_.emit_final) EmitFinal(now_ms);
  // Encodes: E11 — a window leaves the store once a query cannot see it (emit-final: emitted)
  const int64_t first_visible = FirstVisibleStart(store_time_);
  auto expired = [&](int64_t start) {
    return store_time_ >= 0 && start < first_visible &&
           (!config_.emit_final || End(start) <= current_.last_emit_close);
  };
  std::erase_if(current_.taken, [&](const auto& window) { return expired(window.first.first); });
}

void WindowedAggregationModel::EmitFinal(int64_t now_ms) {
  // E3–E5.
  const int64_t close = stream_time_ - config_.grace_ms;
  if (!StartAttempt(close, now_ms)) return;
  // Encodes: E4 — windows closing together go out by start, then key bytes
  std::set<std::pair<int64_t, std::string>> closing;  // By start, then key (E4).
  for (const auto& [w, records] : current_.taken) {
    const int64_t end = End(w.first);
    // Encodes: E3, E6 — closed (end + grace <= stream time) and not emitted before: once only
    if (end > current_.last_emit_close && end <= close) {
      closing.insert(w);
    } else if (end > close) {
      NoteOpen(w.first, end);
    }
  }
  std::vector<Closing> batch;
  for (const auto& [start, k] : closing) {
    // Encodes: E7 — the final record is the window's last eager update: the same taken records
    const WindowAggregate a = Aggregate(current_, start, k);
    batch.push_back({start, End(start), k, a.count, a.value, a.max_ts});
  }
  EmitAttempt(batch, close, /*sessions=*/false);
}

bool WindowedAggregationModel::ClosedAt(int64_t start, int64_t end, int64_t stream_time) const {
  (void)start;
  return end <= stream_time - config_.grace_ms;  // end + grace <= stream time, without overflow.
}

int64_t WindowedAggregationModel::FirstVisibleStart(int64_t store_time) const {
  // Encodes: E11 — emit-final's time-ordered store reads from store time - retention, inclusive
  const bool time_ordered = config_.emit_final && !config_.in_memory_store;
  return store_time - Retention() + (time_ordered ? 0 : 1);
}

int64_t WindowedAggregationModel::KeyFirstSegmentInterval() const {
  if (config_.emit_final || config_.in_memory_store) return 0;
  return std::max<int64_t>(Retention() / 2, 60'000);
}

std::vector<std::string> WindowedAggregationModel::OrderForQuery(
    std::vector<std::string> names) const {
  const int64_t segment = KeyFirstSegmentInterval();
  if (segment == 0) return names;
  // Encodes: E11 — emit-eager's key-first store: by segment, then key bytes, then start
  std::vector<std::tuple<int64_t, std::string, int64_t, std::string>> order;
  for (std::string& name : names) {
    int64_t start = 0, end = 0;
    std::string key;
    ParseWindowName(name, &start, &end, &key);
    order.emplace_back(start / segment, std::move(key), start, std::move(name));
  }
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (auto& entry : order) out.push_back(std::move(std::get<3>(entry)));
  return out;
}

int64_t WindowedAggregationModel::StoreTimeOf(const std::map<std::string, std::string>& windows) {
  int64_t store_time = -1;
  for (const auto& [name, held] : windows) {
    int64_t start = 0, end = 0;
    std::string key;
    if (ParseWindowName(name, &start, &end, &key)) store_time = std::max(store_time, start);
  }
  return store_time;
}

std::map<std::string, std::string> WindowedAggregationModel::Queryable(
    std::map<std::string, std::string> windows) const {
  const int64_t store_time = StoreTimeOf(windows);
  if (store_time < 0) return windows;
  const int64_t first = FirstVisibleStart(store_time);
  std::erase_if(windows, [first](const auto& window) {
    int64_t start = 0, end = 0;
    std::string key;
    return ParseWindowName(window.first, &start, &end, &key) && start < first;
  });
  return windows;
}

int64_t WindowedAggregationModel::End(int64_t start) const {
  return AddSaturating(start, config_.size_ms);
}

int64_t WindowedAggregationModel::Retention() const {
  if (config_.retention_ms >= 0) return config_.retention_ms;
  return AddSaturating(config_.size_ms, config_.grace_ms);
}

std::vector<int64_t> WindowedAggregationModel::StartsFor(int64_t ts) const {
  // Every start that is a multiple of the advance, from 0, with start <= ts < start + size
  // (Kafka's TimeWindows.windowsFor): from the last multiple at or below ts back, as long as the
  // window still reaches ts. Neither step overflows: start >= 0 and ts - start >= 0.
  std::vector<int64_t> starts;
  for (int64_t start = ts - ts % config_.advance_ms; start >= 0 && ts - start < config_.size_ms;
       start -= config_.advance_ms) {
    starts.push_back(start);
  }
  std::reverse(starts.begin(), starts.end());
  return starts;
}

bool WindowedAggregationModel::HasWindow(const std::string& window) const {
  int64_t start = 0, end = 0;
  std::string key;
  if (!ParseWindowName(window, &start, &end, &key) || end != End(start)) return false;
  return current_.taken.count({start, key}) != 0;
}

std::map<std::string, std::string> WindowedAggregationModel::WindowsIn(
    const WindowedModelState& s) const {
  std::map<std::string, std::string> out;
  for (const auto& [window, records] : s.taken) {
    const auto& [start, key] = window;
    const WindowAggregate a = Aggregate(s, start, key);
    out[WindowName(start, End(start), key)] = a.value + "@" + std::to_string(a.max_ts);
  }
  return out;
}

}  // namespace statecheck::model
