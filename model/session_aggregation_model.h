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
  AggregatorKind aggregator = AggregatorKind::kCount;
  // suppress(untilWindowCloses) after the emit-eager aggregation (emit_final false): a session
  // goes out of the buffer once end + grace + gap <= the suppress's stream time, and a merge's
  // tombstone removes the merged-away session's update (E7, AggregationModelBase::Update).
  bool suppress = false;
};

// SessionAggregationModel's state: what a commit keeps and a crash returns to (model::CrashTo).
struct SessionModelState {
  int64_t next = 0;                                       // Input index.
  std::vector<std::pair<std::string, int64_t>> accepted;  // (key, timestamp) of accepted records.
  // (key, session end) → the session's aggregate, merged and folded as Kafka does
  // (MergeSessions, FoldValue): its value depends on the order of the merges, not only on
  // the records the session holds.
  std::map<std::pair<std::string, int64_t>, std::string> aggregates;
  int64_t last_emit_close = -1;
  std::vector<WindowedOutput> output;
  std::vector<EmitInfo> emits;  // Of each output record.
  SuppressBuffer buffer;        // suppress: a store of the task.
};

class SessionAggregationModel final : public AggregationModelBase<SessionModelState> {
 public:
  explicit SessionAggregationModel(SessionModelConfig config)
      : AggregationModelBase(config.at_least_once, config.emit_interval_ms), config_(config) {
    if (config.suppress) SuppressAfter(config.grace_ms, config.gap_ms);
  }

  bool HasWindow(const std::string& window) const override;

 private:
  struct Session {
    int64_t start = 0;
    int64_t end = 0;
    int64_t count = 0;
  };
  // `key`'s sessions in `s`, by ascending start.
  std::vector<Session> Sessions(const SessionModelState& s, const std::string& key) const;
  void ProcessOne(const std::string& key, int64_t ts, const std::optional<std::string>& value,
                  int64_t now_ms) override;
  // "<start>:<end>:<key>" → "<count>@<end>".
  std::map<std::string, std::string> WindowsIn(const SessionModelState& s) const override;
  bool ClosedAt(int64_t start, int64_t end, int64_t stream_time) const override;

  const SessionModelConfig config_;
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_SESSION_AGGREGATION_MODEL_H_
