// WindowedAggregationModel: the reference model of a windowed aggregation (a count, a reduce or an
// aggregate: AggregatorKind) over time windows with
// KIP-825's emit strategies, run as an exactly-once or at-least-once task (SPEC E1–E6, E10;
// engine: statecheck/windowed_aggregation.h).
//
// How it differs from the engine: no store, no key encoding, no range scans. It keeps every
// input record; a window's aggregate is recomputed from the values it took, and the windows of
// a timestamp are its multiples of the advance, walked down from the last one at or below it.
// Window ends saturate at INT64_MAX (Kafka's Long.MAX_VALUE), as does the default retention.
// Commits happen only when told (the harness commits explicitly). What a crash leaves is
// model::CrashTo's rule (model/aggregation_model.h).
#ifndef STATECHECK_MODEL_WINDOWED_AGGREGATION_MODEL_H_
#define STATECHECK_MODEL_WINDOWED_AGGREGATION_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/aggregation_model.h"

namespace statecheck::model {

struct WindowedModelConfig {
  int64_t size_ms = 10;
  int64_t advance_ms = 10;
  int64_t grace_ms = 0;
  bool emit_final = false;
  int64_t emit_interval_ms = 0;
  bool at_least_once = false;  // Else exactly_once_v2 (see CrashTo).
  // The store's retention (-1: size + grace). E11: the store's stream time is the largest window
  // start taken since the task started; a query sees windows starting at or after it minus the
  // retention under emit-final on the persistent store (Kafka's time-ordered store), after it
  // otherwise; a window leaves the store once a query cannot see it (emit-final: once emitted).
  int64_t retention_ms = -1;
  // The in-memory window store (W6's bound, whatever the emit strategy), not the persistent one.
  bool in_memory_store = false;
  AggregatorKind aggregator = AggregatorKind::kCount;
  // suppress(untilWindowCloses) after the emit-eager aggregation (emit_final false): each
  // update replaces its window's last in a buffer, and a buffered update goes out once its window
  // has closed by the suppress's own stream time — the largest timestamp of the updates it
  // received (not restored after a restart) —, end + grace <= it, by end, then output key.
  bool suppress = false;
};

// WindowedAggregationModel's state: what a commit keeps and a crash returns to (model::CrashTo).
struct WindowedModelState {
  int64_t next = 0;  // Input index.
  // (window start, key) → the records the window took, in order: (timestamp, value).
  std::map<std::pair<int64_t, std::string>,
           std::vector<std::pair<int64_t, std::optional<std::string>>>>
      taken;
  int64_t last_emit_close = -1;
  std::vector<WindowedOutput> output;
  std::vector<EmitInfo> emits;  // Of each output record.
  // suppress: the buffered updates. A store of the task: committed and restored as the
  // aggregates are.
  SuppressBuffer buffer;
};

class WindowedAggregationModel final : public AggregationModelBase<WindowedModelState> {
 public:
  explicit WindowedAggregationModel(WindowedModelConfig config)
      : AggregationModelBase(config.at_least_once, config.emit_interval_ms), config_(config) {
    if (config.suppress) SuppressAfter(config.grace_ms);
  }

  bool HasWindow(const std::string& window) const override;
  std::map<std::string, std::string> Queryable(
      std::map<std::string, std::string> windows) const override;
  int64_t Retention() const;  // retention_ms, or size + grace (saturating).
  // E11: the first window start a query sees when the store's stream time is `store_time`.
  int64_t FirstVisibleStart(int64_t store_time) const;
  // The store's stream time as a query of `windows` sees it: their largest start; -1 if none.
  static int64_t StoreTimeOf(const std::map<std::string, std::string>& windows);
  // E11: the segment interval of Kafka's key-first store behind emit-eager: max(retention / 2,
  // 60000); 0 where the store keeps time order (emit-final's time-first store, the in-memory
  // store).
  int64_t KeyFirstSegmentInterval() const;
  // The store's stream time starts afresh too.
  void Crash() override {
    AggregationModelBase::Crash();
    store_time_ = -1;
  }

 private:
  // "<start>:<end>:<key>" → "<aggregate>@<largest record timestamp>".
  std::map<std::string, std::string> WindowsIn(const WindowedModelState& s) const override;
  // E11: the key-first store's order, by segment, then key, then start.
  std::vector<std::string> OrderForQuery(std::vector<std::string> names) const override;
  bool ClosedAt(int64_t start, int64_t end, int64_t stream_time) const override;
  int64_t End(int64_t start) const;  // start + size, saturating at INT64_MAX.
  // The starts of the windows holding `ts` (>= 0), in increasing order.
  std::vector<int64_t> StartsFor(int64_t ts) const;
  void ProcessOne(const std::string& key, int64_t ts, const std::optional<std::string>& value,
                  int64_t now_ms) override;
  void EmitFinal(int64_t now_ms);
  // A window's records taken, aggregate and largest record timestamp (0, "", -1 if none).
  struct WindowAggregate {
    int64_t count = 0;
    std::string value;
    int64_t max_ts = -1;
  };
  WindowAggregate Aggregate(const WindowedModelState& s, int64_t start,
                            const std::string& key) const;

  const WindowedModelConfig config_;
  int64_t store_time_ = -1;  // E11: the largest window start taken since the task started.
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_WINDOWED_AGGREGATION_MODEL_H_
