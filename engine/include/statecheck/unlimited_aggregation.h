// Aggregation over unlimited windows (Kafka: windowedBy(UnlimitedWindows.of())): one window per
// key, from the windows' start on, that never ends and never closes. So it can only emit
// eagerly; the builder rejects emit-final with Kafka's text (SPEC E8).
//
// For an input record (key, value, timestamp): a null (empty) key or no timestamp is dropped and
// counted (E1); a timestamp before the start falls in no window and is ignored (Kafka's
// windowsFor gives none; nothing is counted); otherwise the key's aggregate becomes
// aggregator(key, value, aggregate or initializer()) and one output follows (E2), keyed
// "<start>:<kUnlimitedEnd>:<key>" and timestamped with the largest record timestamp of the
// window. No record is ever late: the window never ends.
//
// The store ("unlimited" by default), a transactional store of the task, keys each aggregate by
// the key's bytes and holds [largest record timestamp, 8 bytes big-endian][aggregate].
#ifndef STATECHECK_UNLIMITED_AGGREGATION_H_
#define STATECHECK_UNLIMITED_AGGREGATION_H_

#include <memory>
#include <string>

#include "statecheck/status.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck {

struct UnlimitedWindowedAggregationOptions {
  UnlimitedWindows windows = UnlimitedWindows::Of();
  EmitStrategy emit = EmitStrategy::kOnWindowUpdate;
  std::string store = "unlimited";  // A store name of the task: [A-Za-z0-9._-].
  Aggregator aggregator = CountAggregator();
  std::shared_ptr<AggregationStats> stats;  // Null: not reported.
  std::shared_ptr<Logger> logger;           // Null = StderrLogger().
};

// InvalidArgument for emit-final, holding both of Kafka's texts (E8, statecheck/windows.h);
// naming the option for an empty store name or a missing aggregator.
Status NewUnlimitedWindowedAggregation(const UnlimitedWindowedAggregationOptions& options,
                                       std::unique_ptr<Processor>* out);

}  // namespace statecheck

#endif  // STATECHECK_UNLIMITED_AGGREGATION_H_
