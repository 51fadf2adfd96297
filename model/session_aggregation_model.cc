#include "model/session_aggregation_model.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace statecheck::model {
namespace {

std::string Name(int64_t start, int64_t end, const std::string& key) {
  return WindowName(start, end, key);
}

}  // namespace

std::vector<SessionAggregationModel::Session> SessionAggregationModel::Sessions(
    const SessionModelState& s, const std::string& key) const {
  std::vector<int64_t> ts;
  for (const auto& [k, t] : s.accepted) {
    if (k == key) ts.push_back(t);
  }
  std::sort(ts.begin(), ts.end());
  std::vector<Session> out;
  for (int64_t t : ts) {
    if (!out.empty() && t - out.back().end <= config_.gap_ms) {
      out.back().end = t;
      ++out.back().count;
    } else {
      out.push_back({t, t, 1});
    }
  }
  return out;
}

void SessionAggregationModel::ProcessOne(const std::string& key, int64_t ts,
                                         const std::optional<std::string>& value, int64_t now_ms) {
  if (key.empty() || ts < 0) {
    Note(key.empty() ? "E1.null_key" : "E1.no_timestamp");
    Drop(/*late=*/false);
    return;
  }
  if (config_.aggregator == AggregatorKind::kReduce && !value) return;  // Skipped.
  const bool out_of_order = ts < stream_time_;
  stream_time_ = std::max(stream_time_, ts);
  const int64_t close = stream_time_ - config_.grace_ms - config_.gap_ms;
  // The sessions the record joins: those holding a timestamp within the gap of ts.
  std::vector<Session> joined;
  int64_t start = ts, end = ts, count = 1;
  for (const Session& s : Sessions(current_, key)) {
    if (ts >= s.start - config_.gap_ms && ts <= s.end + config_.gap_ms) {
      joined.push_back(s);
      start = std::min(start, s.start);
      end = std::max(end, s.end);
      count += s.count;
    }
  }
  // Encodes: E1 — dropped iff the merged session ends before streamTime - grace - gap
  if (end < close) {  // E1.
    if (end == close - 1) Note("E1.first_dropped");
    Drop(/*late=*/true, Name(start, end, key));
  } else {
    if (end == close) Note("E1.last_accepted");
    current_.accepted.emplace_back(key, ts);
    // Encodes: E2 — the merged session's aggregate: the initializer, each merged session's by
    // ascending end through the merger, then the record's value
    std::vector<std::string> theirs;
    for (const Session& s : joined) {
      theirs.push_back(current_.aggregates.at({key, s.end}));
      current_.aggregates.erase({key, s.end});
    }
    const std::string aggregate =
        FoldValue(config_.aggregator, MergeSessions(config_.aggregator, theirs), value);
    if (!theirs.empty() && config_.aggregator != AggregatorKind::kCount && !config_.emit_final) {
      Note("E2.merged_values");
    }
    current_.aggregates[{key, end}] = aggregate;
    // Encodes: E2 — tombstones for the merged sessions by end, then the session (timestamp end)
    if (!config_.emit_final) {  // E2.
      if (start != ts || end != ts) {
        for (const Session& s : joined) {
          Update(s.start, s.end, key, {Name(s.start, s.end, key), "null", s.end}, false,
                 /*tombstone=*/true);
        }
        if (!joined.empty()) Note("E2.session_merge");
      }
      if (count >= 2) Note("E2.updated_again");
      if (out_of_order && end > ts) Note("E2.out_of_order");
      Update(start, end, key, {Name(start, end, key), aggregate, end}, end == close);
    }
  }
  if (!config_.emit_final) return;
  // E3–E5.
  if (!StartAttempt(close, now_ms)) return;
  std::set<std::string> keys;
  for (const auto& [k, t] : current_.accepted) keys.insert(k);
  // Encodes: E4 — sessions closing together go out by end, then key, then start
  std::set<std::tuple<int64_t, std::string, int64_t, int64_t>> closing;  // (end, key, start) E4.
  for (const std::string& k : keys) {
    for (const Session& s : Sessions(current_, k)) {
      // Encodes: E3 — closed (end < streamTime - grace - gap) and not yet emitted
      if (s.end >= current_.last_emit_close && s.end < close) {
        closing.emplace(s.end, k, s.start, s.count);
      } else if (s.end >= close) {
        NoteOpen(s.start, s.end);
      }
    }
  }
  std::vector<Closing> batch;
  for (const auto& [e, k, s, n] : closing) {
    batch.push_back({s, e, k, n, current_.aggregates.at({k, e}), e});
  }
  EmitAttempt(batch, close, /*sessions=*/true);
}

bool SessionAggregationModel::ClosedAt(int64_t start, int64_t end, int64_t stream_time) const {
  (void)start;
  return end < stream_time - config_.grace_ms - config_.gap_ms;
}

bool SessionAggregationModel::HasWindow(const std::string& window) const {
  int64_t start = 0, end = 0;
  std::string key;
  if (!ParseWindowName(window, &start, &end, &key)) return false;
  for (const Session& s : Sessions(current_, key)) {
    if (s.start == start && s.end == end) return true;
  }
  return false;
}

std::map<std::string, std::string> SessionAggregationModel::WindowsIn(
    const SessionModelState& s) const {
  std::map<std::string, std::string> out;
  std::set<std::string> keys;
  for (const auto& [k, t] : s.accepted) keys.insert(k);
  for (const std::string& k : keys) {
    for (const Session& session : Sessions(s, k)) {
      out[Name(session.start, session.end, k)] =
          s.aggregates.at({k, session.end}) + "@" + std::to_string(session.end);
    }
  }
  return out;
}

}  // namespace statecheck::model
