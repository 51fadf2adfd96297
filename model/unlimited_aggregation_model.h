// UnlimitedAggregationModel: the reference model of an aggregation over unlimited windows
// (Kafka's UnlimitedWindows; SPEC E2, E8; engine: statecheck/unlimited_aggregation.h), run as an
// exactly-once or at-least-once task.
//
// How it differs from the engine: no store, no key encoding. A key has one window, [start,
// INT64_MAX], that never ends and never closes: it keeps every value the window took, and the
// aggregate is recomputed from them. A record before the start falls in no window and is
// ignored (not dropped); nothing is ever late. Emit-eager only: emit-final is refused (E8)
// before a model would be made. What a crash leaves is model::CrashTo's rule.
#ifndef STATECHECK_MODEL_UNLIMITED_AGGREGATION_MODEL_H_
#define STATECHECK_MODEL_UNLIMITED_AGGREGATION_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/aggregation_model.h"

namespace statecheck::model {

struct UnlimitedModelConfig {
  int64_t start_ms = 0;
  bool at_least_once = false;  // Else exactly_once_v2 (see CrashTo).
  AggregatorKind aggregator = AggregatorKind::kCount;
};

// UnlimitedAggregationModel's state: what a commit keeps and a crash returns to.
struct UnlimitedModelState {
  int64_t next = 0;  // Input index.
  // key → the records its window took, in order: (timestamp, value).
  std::map<std::string, std::vector<std::pair<int64_t, std::optional<std::string>>>> taken;
  int64_t last_emit_close = -1;  // Never set: nothing closes.
  std::vector<WindowedOutput> output;
  std::vector<EmitInfo> emits;
};

class UnlimitedAggregationModel final : public AggregationModelBase<UnlimitedModelState> {
 public:
  explicit UnlimitedAggregationModel(UnlimitedModelConfig config)
      : AggregationModelBase(config.at_least_once, /*emit_interval_ms=*/0), config_(config) {}

  bool HasWindow(const std::string& window) const override;

 private:
  void ProcessOne(const std::string& key, int64_t ts, const std::optional<std::string>& value,
                  int64_t now_ms) override;
  // "<start>:<INT64_MAX>:<key>" → "<aggregate>@<largest record timestamp>".
  std::map<std::string, std::string> WindowsIn(const UnlimitedModelState& s) const override;
  bool ClosedAt(int64_t, int64_t, int64_t) const override { return false; }
  // The window of `key` in `s`: its aggregate and largest record timestamp.
  std::pair<std::string, int64_t> Aggregate(const UnlimitedModelState& s,
                                            const std::string& key) const;
  std::string Name(const std::string& key) const;

  const UnlimitedModelConfig config_;
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_UNLIMITED_AGGREGATION_MODEL_H_
