// Windowed aggregation over sliding windows (Kafka Streams' KStreamSlidingWindowAggregate, KIP-450)
// with KIP-825's emit strategies (SPEC E1–E6, E9, E10), as a task Processor (statecheck/task.h):
// its state lives in a transactional store of the task, restored from its changelog, and the last
// emitted close time is committed with the input offset, so the aggregation survives crashes.
//
// Windows are [start, start + D], both ends included (D: the time difference). Per key, the
// windows that exist are exactly those Kafka creates:
//   * the left window of each record at t: [t - D, t] — or, for an "early" record (t < D), the
//     window [0, D], since starts are never negative;
//   * the right window of each record at t: [t + 1, t + 1 + D], once a record of the key falls in
//     it (a window with no record is never created);
// and, as long as no window is skipped as late, each window aggregates the records of its key
// whose timestamps lie in it. New windows are made by copying an existing aggregate (the
// aggregator is not invertible), so with late records Kafka's results are kept even where they
// depart from that: a record no window took leaves no trace, and a window made by copying lacks
// what its source window skipped (see the "GraceBoundaries" test).
//
// For an input record (key, value, timestamp t):
//   * an empty key (Kafka's null key) or no timestamp: dropped and counted (E1);
//   * stream time := max(stream time, t) — the largest record timestamp seen since the task
//     started (not restored); close time := stream time - grace;
//   * if even the latest window holding t has closed (t + D < close time), the whole record is
//     dropped, counted once, and a warning names its left window, the close time and the stream
//     time (Kafka: "Skipping record for expired window");
//   * otherwise, as Kafka's processInOrder / processEarly: every existing window holding t, t's
//     left window and the previous record's right window (created if missing) each take the
//     record if they still accept it (SlidingWindows::Accepts: end >= close time) — a window
//     that does not is skipped, counted and logged (E1); and t's right window is created, as a
//     copy of the aggregate of the window that holds the later records, if a later record falls
//     in it and it does not exist yet;
//   * under ON_WINDOW_UPDATE one output per window updated or created, by ascending start (E2),
//     its timestamp the window's largest record timestamp;
//   * under ON_WINDOW_CLOSE, when the close time has passed the last emitted one and
//     emit_interval_ms of wall-clock time have passed since the last attempt (E5), every window
//     that closed since — end in [last emitted close time, close time) — is emitted once, with
//     its final aggregate, by window start, then key bytes (E3, E4), read with one time-ordered
//     range scan over exactly those windows (E9).
// An output record's key is "<start>:<end>:<key>" (WindowedKey; end = start + D, inclusive), its
// value the aggregate.
//
// The store ("sliding" by default) keys each window by [start, 8 bytes big-endian][key] and holds
// [the window's largest record timestamp, 8 bytes big-endian][aggregate] — the layout of the
// time-window aggregation's store. The time-first layout makes emit-final one range scan. Beside
// it the store keeps a key-first index, as Kafka's time-ordered window store with an index does:
// per window a record [0xFF][key length, 4 bytes big-endian][key][start, 8 bytes big-endian] with
// an empty value, written (and logged to the changelog) before the window's first write. The
// per-record lookup of a key's windows with starts in [t - 2D, t + 1] reads that key's index
// records in the range and then each window, so its cost does not grow with the number of keys
// (E9). The commit metadata (E10) is "<store>=<last emitted close time>" (a starting task takes
// the largest it finds) and "<store>+index=1" once the index holds every window. A store without
// that mark — written by an engine from before the index, or by one that went back to it — is
// indexed at its first record: one scan of its windows, their index records written and
// committed like any other write.
//
// Retention: retention_ms is validated (at least 2·D + grace, Kafka's rule and text) but windows
// are never deleted, unlike the time-window aggregation's (which deletes a window once stream
// time passes start + retention). Deleting needs care here: a late record's left window copies
// the aggregate of a window that can start up to 2·D before it.
//
// Where this differs from Kafka (the SPEC decides):
//   * outputs of one record go out by ascending window start (SPEC E2); Kafka forwards the
//     updated existing windows first, then the windows it creates;
//   * a window is written and forwarded once per record: when the previous record's right window
//     is the new record's left window (previous record at t - D - 1), Kafka forwards it twice;
//   * a null value (tombstone) is aggregated like any value (the aggregator decides; count counts
//     it, as the time-window aggregation does); Kafka drops records with a null value;
//   * the emit interval is only consulted once the close time has advanced (SPEC E5), as in the
//     time-window aggregation; Kafka spends an attempt on any record.
#ifndef STATECHECK_SLIDING_AGGREGATION_H_
#define STATECHECK_SLIDING_AGGREGATION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "statecheck/logger.h"
#include "statecheck/status.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck {

struct SlidingWindowedAggregationOptions {
  SlidingWindows windows;
  EmitStrategy emit = EmitStrategy::kOnWindowUpdate;
  // Kafka's internal emit.interval.ms for emit-final (default 1000; tests set 0). >= 0.
  int64_t emit_interval_ms = 1000;
  std::string store = "sliding";  // A store name of the task: [A-Za-z0-9._-].
  int64_t retention_ms = -1;      // -1: 2 * the time difference plus the grace period.
  Aggregator aggregator = CountAggregator();
  std::shared_ptr<AggregationStats> stats;  // Null: not reported.
  std::shared_ptr<Logger> logger;           // Null = StderrLogger().
};

// InvalidArgument with Kafka's text for a retention shorter than 2 * D + grace, or naming the
// option for an empty store name, a negative emit interval or a missing aggregator.
Status NewSlidingWindowedAggregation(const SlidingWindowedAggregationOptions& options,
                                     std::unique_ptr<Processor>* out);

// suppress(untilWindowCloses) over the emit-eager aggregation of `options` (SPEC E7; as
// NewSuppressedTimeWindowedAggregation, in "<store>.suppress"): a buffered window goes out once
// end + grace <= the suppress's stream time (Kafka's window-end time definition, with the end
// included in the window). That is not emit-final's output: a window still takes records at end
// = stream time - grace, which suppress has already let out, and such an update goes out again.
Status NewSuppressedSlidingWindowedAggregation(const SlidingWindowedAggregationOptions& options,
                                               std::unique_ptr<Processor>* out);

}  // namespace statecheck

#endif  // STATECHECK_SLIDING_AGGREGATION_H_
