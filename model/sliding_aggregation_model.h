// SlidingAggregationModel: the reference model of a windowed count over sliding windows (time
// difference D, grace) with KIP-825's emit strategies, run as an exactly-once or at-least-once task
// (SPEC E1–E6, E10; engine: statecheck/sliding_aggregation.h).
//
// How it differs from the engine: no store, no byte encodings, no range scans. A window is the
// list of the timestamps and values of the records it took; its aggregate folds the values in
// that order (model::FoldValues: a window made as a copy starts with its source's list, so its
// aggregate is Kafka's copied aggregate folded on), its timestamp is the largest. A reduce skips
// a record with a null value altogether. For a record (key, ts), with close time = stream time -
// grace:
//   * an empty key, no timestamp, or ts + D < close time (even [ts, ts + D] has closed): dropped,
//     counted once;
//   * the windows holding ts are: every existing window of the key with start <= ts <= end; ts's
//     left window [max(0, ts - D), +D]; and the right window [p + 1, p + 1 + D] of the record
//     before ts, p, if ts lies in it. Each takes ts if end >= close time, else is skipped and
//     counted (E1);
//   * a missing left window [ts - D, ts] starts as a copy of the window that ends last before ts
//     if that window's latest record lies in [ts - D, ts); every other missing window starts
//     empty;
//   * ts's right window [ts + 1, ts + 1 + D], if missing, is made as a copy of the window holding
//     ts that ends after it and starts last (as it was before ts), if that holds a later record;
//   * p, "the record before ts", is what the windows show: the latest timestamp of the window that
//     ends last before ts (starting at ts - 2D or later), or of ts's left window ([0, D] for an
//     early record) if that is earlier than ts.
// These are Kafka's rules (KStreamSlidingWindowAggregate processInOrder / processEarly), stated
// on timestamp lists. When no window is ever skipped they give each window exactly the records
// of its key that lie in it, the windows being the left window of each record and the right
// window of each record that has a later record within D + 1; model unit tests check that by
// hand. With late records they follow Kafka where it departs from that: a record no window took
// leaves no trace, and a window made by copying misses the records its source window skipped.
// Commits happen only when told. What a crash leaves is model::CrashTo's rule
// (model/aggregation_model.h); stream time and the emit-interval clock start afresh (they are not
// restored, SPEC E).
#ifndef STATECHECK_MODEL_SLIDING_AGGREGATION_MODEL_H_
#define STATECHECK_MODEL_SLIDING_AGGREGATION_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/aggregation_model.h"

namespace statecheck::model {

struct SlidingModelConfig {
  int64_t time_difference_ms = 10;  // D: windows are [start, start + D], both ends included.
  int64_t grace_ms = 0;
  bool emit_final = false;
  int64_t emit_interval_ms = 0;
  bool at_least_once = false;  // Else exactly_once_v2 (see CrashTo).
  AggregatorKind aggregator = AggregatorKind::kCount;
  // suppress(untilWindowCloses) after the emit-eager aggregation (emit_final false): a window
  // goes out of the buffer once end + grace <= the suppress's stream time (E7,
  // AggregationModelBase::Update).
  bool suppress = false;
};

// SlidingAggregationModel's state: what a commit keeps and a crash returns to (model::CrashTo).
struct SlidingModelState {
  int64_t next = 0;                                                         // Input index.
  std::map<std::pair<int64_t, std::string>, std::vector<int64_t>> windows;  // (start, key) →
                                                                            // timestamps taken.
  // (start, key) → the values the window took, in order (a copied window starts with its
  // source's): its aggregate is FoldValues of them, as Kafka folds a copied aggregate on.
  std::map<std::pair<int64_t, std::string>, std::vector<std::optional<std::string>>> values;
  int64_t last_emit_close = -1;
  std::vector<WindowedOutput> output;
  std::vector<EmitInfo> emits;  // Of each output record.
  SuppressBuffer buffer;        // suppress: a store of the task.
};

class SlidingAggregationModel final : public AggregationModelBase<SlidingModelState> {
 public:
  explicit SlidingAggregationModel(SlidingModelConfig config)
      : AggregationModelBase(config.at_least_once, config.emit_interval_ms), config_(config) {
    if (config.suppress) SuppressAfter(config.grace_ms);
  }

  bool HasWindow(const std::string& window) const override;

 private:
  // "<start>:<start + D>:<key>" → "<count>@<largest record timestamp>".
  std::map<std::string, std::string> WindowsIn(const SlidingModelState& s) const override;
  bool ClosedAt(int64_t start, int64_t end, int64_t stream_time) const override;
  void ProcessOne(const std::string& key, int64_t ts, const std::optional<std::string>& value,
                  int64_t now_ms) override;
  // The output record of a window of `s`.
  WindowedOutput Output(const SlidingModelState& s, int64_t start, const std::string& key) const;

  const SlidingModelConfig config_;
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_SLIDING_AGGREGATION_MODEL_H_
