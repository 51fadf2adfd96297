// SessionAggregationModel: the reference model of a session-windowed count with KIP-825's emit
// strategies, run as an exactly-once or at-least-once task (SPEC E1–E6, E10; engine:
// statecheck/session_aggregation.h).
//
// How it differs from the engine: no store, no key encoding, no range scans, no incremental
// merging. It keeps every accepted input record, and a key's sessions are recomputed from
// scratch each time they are needed: its accepted timestamps, sorted, split wherever two
// neighbours are more than the gap apart; a session's count is its number of records and its
// end its largest timestamp. A record at t is dropped iff the session it would make — t with
// every session holding a timestamp within the gap of t — ends before stream time - grace - gap.
// Emit-eager outputs, when that session is not [t, t], a tombstone ("null", timestamp = its end)
// for each session it swallows, by ascending end, then the session (timestamp = its end).
// Emit-final outputs each session with end in [last emitted close time, close time) when the
// close time has passed the last emitted one and the emit interval has passed, by end, key,
// start. Commits happen only when told. What a crash leaves is model::CrashTo's rule
// (model/aggregation_model.h); stream time and the emit-interval clock start afresh.
#ifndef STATECHECK_MODEL_SESSION_AGGREGATION_MODEL_H_
#define STATECHECK_MODEL_SESSION_AGGREGATION_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/aggregation_model.h"

namespace statecheck::model {

struct SessionModelConfig {
  int64_t gap_ms = 10;
  int64_t grace_ms = 0;
  bool emit_final = false;
  int64_t emit_interval_ms = 0;
  bool at_least_once = false;  // Else exactly_once_v2 (see CrashTo).
};

class SessionAggregationModel final : public AggregationModel {
 public:
  explicit SessionAggregationModel(SessionModelConfig config) : config_(config) {}

  void AppendInput(std::string key, int64_t timestamp) override;
  int64_t Process(int64_t max_records, int64_t now_ms) override;
  void Commit() override;
  void Crash() override;
  void Restart() override;

  const std::vector<WindowedOutput>& committed_output() const override { return committed_.output; }
  const std::vector<WindowedOutput>& written_output() const override { return current_.output; }
  int64_t committed_input_offset() const override { return committed_.next; }
  int64_t next_input_offset() const override { return current_.next; }
  // Records dropped by the task object running now (null key, no timestamp, late: E1); a late
  // record counts once.
  int64_t dropped_records() const override { return dropped_; }
  // "<start>:<end>:<key>" → "<count>@<end>".
  std::map<std::string, std::string> CommittedWindows() const override;

 private:
  struct Session {
    int64_t start = 0;
    int64_t end = 0;
    int64_t count = 0;
  };
  struct State {
    int64_t next = 0;                                       // Input index.
    std::vector<std::pair<std::string, int64_t>> accepted;  // (key, timestamp) of accepted records.
    int64_t last_emit_close = -1;
    std::vector<WindowedOutput> output;
  };
  // `key`'s sessions in `s`, by ascending start.
  std::vector<Session> Sessions(const State& s, const std::string& key) const;
  void ProcessOne(const std::string& key, int64_t ts, int64_t now_ms);

  const SessionModelConfig config_;
  std::vector<std::pair<std::string, int64_t>> input_;
  State current_;
  State committed_;
  int64_t stream_time_ = -1;
  std::optional<int64_t> last_attempt_ms_;
  int64_t dropped_ = 0;
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_SESSION_AGGREGATION_MODEL_H_
