// Session-window aggregation with KIP-825's emit strategies (SPEC E1–E6, E9, E10; Kafka Streams'
// KStreamSessionWindowAggregate), as a task Processor (statecheck/task.h): its sessions live in a
// transactional store of the task, restored from its changelog, and the last emitted close time
// is committed with the input offset, so the aggregation survives crashes.
//
// For an input record (key, value, timestamp t):
//   * a null key (empty), or no timestamp, is dropped and counted (E1);
//   * stream time := max(stream time, t) — the largest record timestamp seen since the task
//     started (not restored); close time := stream time - grace - gap;
//   * the key's sessions within the gap of t (end >= t - gap and start <= t + gap) and [t, t]
//     merge into one session [smallest start, largest end] whose aggregate starts from
//     initializer() and is merger(key, aggregate, theirs) for each of them, by ascending end;
//   * if the merged session has end < close time, the record is dropped (the store is left
//     alone), counted, and a warning names the window, its expiration (the close time) and the
//     stream time (E1);
//   * otherwise, when the merged session is not [t, t] itself, every session it merged is
//     removed from the store and, under ON_WINDOW_UPDATE, a tombstone (null value) of it goes
//     out, by ascending end, with the removed session's end as its timestamp; then the merged
//     session's aggregate becomes aggregator(key, value, aggregate), is stored, and under
//     ON_WINDOW_UPDATE goes out with the merged session's end as its timestamp (E2; Kafka's
//     order and timestamps). When the merged session is [t, t] (no session, or only [t, t]
//     itself, was within the gap) nothing is removed and no tombstone goes out: the put
//     replaces [t, t];
//   * under ON_WINDOW_CLOSE — after a dropped record too —, when the close time has passed the
//     last emitted one and emit_interval_ms of wall-clock time have passed since the last attempt
//     (E5), every session that closed since — end in [last emitted close time, close time), as a
//     session closes when end < close time — is emitted once with its final aggregate, no old
//     value, and its end as the timestamp, by end, then key bytes, then start (E3, E4), read with
//     one range scan over exactly those sessions (E9). The last emitted close time becomes the
//     close time.
// An output record's key is "<start>:<end>:<key>" (WindowedKey; both bounds included).
//
// The SESSION STORE ("sessions" by default) is one transactional key-value store of the task
// holding two record kinds, told apart by their first byte:
//   time index  'T' [end, 8 bytes big-endian] [key bytes]   → [start, 8 bytes BE] [aggregate]
//   key index   'K' [key length, 4 bytes BE] [key bytes] [end, 8 bytes BE]  → [start, 8 bytes BE]
// The time index is the primary record: it orders sessions by end, then key bytes — E4's emit
// order — so emit-final reads the closing sessions with one range scan from 'T'[last close] to
// 'T'[close - 1] that touches nothing else (E9). A key has at most one session with a given end
// (its sessions are disjoint: any two are more than the gap apart, or a record between them would
// have merged them), so [end][key] identifies a session and the start can live in the value. The
// key index finds a key's sessions near t: its length prefix keeps a key's records contiguous
// (no other key's bytes can extend them), ordered by end, so the scan from 'K'[len][key][t - gap]
// meets exactly the sessions with end >= t - gap, in ascending end, which is also ascending
// start; it stops at the first start > t + gap. Both records of a session are written and removed
// together. Timestamps are >= 0, so big-endian bytes sort as the numbers do.
//
// Retention: retention_ms is validated (at least gap + grace, Kafka's error text) but sessions
// are never expired, unlike the time-window aggregation's windows. Expiring a session whose end is
// older than stream time - retention (under emit-final only once emitted) would be safe within one
// task object, since no record can merge into it any more; but stream time starts afresh after a
// restart (SPEC E), a record far behind the old stream time is then accepted, and whether it merges
// with an old session would depend on whether that session had been expired — the reference model
// would have to follow the store's expiry, not just the SPEC. Left out until a rule needs it.
//
// The processor's commit metadata (E10) is "<store>=<last emitted close time>"; a starting task
// takes the largest such value it finds.
#ifndef STATECHECK_SESSION_AGGREGATION_H_
#define STATECHECK_SESSION_AGGREGATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "statecheck/logger.h"
#include "statecheck/status.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck {

// Kafka's Merger: (key, aggregate 1, aggregate 2) → the aggregate of the two sessions together.
using SessionMerger =
    std::function<std::string(std::string_view, std::string_view, std::string_view)>;
// count()'s merger: the sum of the two decimal counts.
SessionMerger CountMerger();

struct SessionWindowedAggregationOptions {
  SessionWindows windows;
  EmitStrategy emit = EmitStrategy::kOnWindowUpdate;
  // Kafka's internal emit.interval.ms for emit-final (default 1000; tests set 0). >= 0.
  int64_t emit_interval_ms = 1000;
  std::string store = "sessions";  // A store name of the task: [A-Za-z0-9._-].
  int64_t retention_ms = -1;       // -1: the gap plus the grace period. Validated only.
  Aggregator aggregator = CountAggregator();
  SessionMerger merger = CountMerger();
  std::shared_ptr<AggregationStats> stats;  // Null: not reported.
  std::shared_ptr<Logger> logger;           // Null = StderrLogger().
};

// InvalidArgument with Kafka's text for a retention shorter than gap + grace, or naming the
// option for an empty store name, a negative emit interval, a missing aggregator or merger.
Status NewSessionWindowedAggregation(const SessionWindowedAggregationOptions& options,
                                     std::unique_ptr<Processor>* out);

// suppress(untilWindowCloses) over the emit-eager aggregation of `options` (SPEC E7; as
// NewSuppressedTimeWindowedAggregation, in "<store>.suppress"): a buffered session goes out once
// end + grace + gap <= the suppress's stream time (Kafka's window-end time definition, with the
// grace GraphGraceSearchUtil finds for sessions), by end, then key bytes, then start. A merge's
// tombstone removes the merged-away session's buffered update (Kafka buffers the tombstone and
// drops it when it would go out). Not emit-final's output either: a session ending at stream
// time - grace - gap has gone out but still merges records.
Status NewSuppressedSessionWindowedAggregation(const SessionWindowedAggregationOptions& options,
                                               std::unique_ptr<Processor>* out);

}  // namespace statecheck

#endif  // STATECHECK_SESSION_AGGREGATION_H_
