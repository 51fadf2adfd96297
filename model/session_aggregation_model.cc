#include "model/session_aggregation_model.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace statecheck::model {
namespace {

std::string Name(int64_t start, int64_t end, const std::string& key) {
  return std::to_string(start) + ":" + std::to_string(end) + ":" + key;
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

void SessionAggregationModel::ProcessOne(const std::string& key, int64_t ts, int64_t now_ms) {
  if (key.empty() || ts < 0) {
    ++dropped_;
    return;
  }
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
  if (end < close) {  // E1.
    ++dropped_;
  } else {
    current_.accepted.emplace_back(key, ts);
    if (!config_.emit_final) {  // E2.
      if (start != ts || end != ts) {
        for (const Session& s : joined) {
          current_.output.push_back({Name(s.start, s.end, key), "null", s.end});
        }
      }
      current_.output.push_back({Name(start, end, key), std::to_string(count), end});
    }
  }
  if (!config_.emit_final) return;
  // E3–E5.
  if (close <= current_.last_emit_close) return;
  if (last_attempt_ms_ && now_ms - *last_attempt_ms_ < config_.emit_interval_ms) return;
  last_attempt_ms_ = now_ms;
  std::set<std::string> keys;
  for (const auto& [k, t] : current_.accepted) keys.insert(k);
  std::set<std::tuple<int64_t, std::string, int64_t, int64_t>> closing;  // (end, key, start) E4.
  for (const std::string& k : keys) {
    for (const Session& s : Sessions(current_, k)) {
      if (s.end >= current_.last_emit_close && s.end < close) {
        closing.emplace(s.end, k, s.start, s.count);
      }
    }
  }
  for (const auto& [e, k, s, n] : closing) {
    current_.output.push_back({Name(s, e, k), std::to_string(n), e});
  }
  current_.last_emit_close = close;
}

std::map<std::string, std::string> SessionAggregationModel::CommittedWindows() const {
  std::map<std::string, std::string> out;
  std::set<std::string> keys;
  for (const auto& [k, t] : committed_.accepted) keys.insert(k);
  for (const std::string& k : keys) {
    for (const Session& s : Sessions(committed_, k)) {
      out[Name(s.start, s.end, k)] = std::to_string(s.count) + "@" + std::to_string(s.end);
    }
  }
  return out;
}

}  // namespace statecheck::model
