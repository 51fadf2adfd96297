// SlidingAggregationModel: the reference model of a windowed count over sliding windows (time
// difference D, grace) with KIP-825's emit strategies, run as an exactly-once or at-least-once task
// (SPEC E1–E6, E10; engine: statecheck/sliding_aggregation.h).
//
// How it differs from the engine: no store, no byte encodings, no range scans, no aggregator. A
// window is the list of the timestamps of the records it took; its count is their number, its
// timestamp the largest. For a record (key, ts), with close time = stream time - grace:
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
};

class SlidingAggregationModel final : public AggregationModel {
 public:
  explicit SlidingAggregationModel(SlidingModelConfig config) : config_(config) {}

  void AppendInput(std::string key, int64_t timestamp) override;
  int64_t Process(int64_t max_records, int64_t now_ms) override;
  void Commit() override;
  void Crash() override;
  void Restart() override;

  const std::vector<WindowedOutput>& committed_output() const override { return committed_.output; }
  const std::vector<WindowedOutput>& written_output() const override { return current_.output; }
  int64_t committed_input_offset() const override { return committed_.next; }
  int64_t next_input_offset() const override { return current_.next; }
  // Records dropped by the task object running now; a late record counts once per window that
  // no longer took it (once in all when it is dropped whole).
  int64_t dropped_records() const override { return dropped_; }
  // "<start>:<start + D>:<key>" → "<count>@<largest record timestamp>".
  std::map<std::string, std::string> CommittedWindows() const override;

 private:
  struct State {
    int64_t next = 0;                                                         // Input index.
    std::map<std::pair<int64_t, std::string>, std::vector<int64_t>> windows;  // (start, key) →
                                                                              // timestamps taken.
    int64_t last_emit_close = -1;
    std::vector<WindowedOutput> output;
  };
  void ProcessOne(const std::string& key, int64_t ts, int64_t now_ms);
  // The output record of a window of `s`.
  WindowedOutput Output(const State& s, int64_t start, const std::string& key) const;

  const SlidingModelConfig config_;
  std::vector<std::pair<std::string, int64_t>> input_;
  State current_;
  State committed_;
  int64_t stream_time_ = -1;
  std::optional<int64_t> last_attempt_ms_;
  int64_t dropped_ = 0;
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_SLIDING_AGGREGATION_MODEL_H_
