// Shared by the windowed aggregations (windowed_aggregation.cc and the sliding and session ones):
// the byte encodings of their stores and the parsing of their commit metadata. Internal to the
// engine.
#ifndef STATECHECK_ENGINE_AGGREGATION_INTERNAL_H_
#define STATECHECK_ENGINE_AGGREGATION_INTERNAL_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "statecheck/log.h"
#include "statecheck/logger.h"
#include "statecheck/processor_metadata.h"
#include "statecheck/status.h"
#include "statecheck/windowed_aggregation.h"

namespace statecheck::internal {

// a + b and a - b clamped to int64_t: sizes, gaps and grace periods may be as large as int64_t
// allows (Kafka's bounds saturate at Long.MAX_VALUE).
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}
inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  return r;
}

// 8 bytes, most significant first: for values >= 0 the bytes sort as the numbers do.
std::string BigEndian(int64_t v);
// The first 8 bytes of `s` (which must hold 8) as BigEndian wrote them.
int64_t FromBigEndian(std::string_view s);

// E1's first rule, for every aggregation: a record with Kafka's null key (the log has no null
// keys, so an empty one stands for it) or no timestamp is dropped, counted in `stats` and
// logged with Kafka's warning. True when `record` was dropped.
bool DropUnkeyedOrUntimed(const LogRecord& record, AggregationStats* stats, Logger* logger);

// OK when `a` is an aggregate (initializer and aggregate) or a reduce (reducer); else
// InvalidArgument naming `what`'s option.
Status CheckAggregator(const Aggregator& a, std::string_view what);
// Whether `a` skips `record` altogether: reduce() skips null values.
inline bool Skips(const Aggregator& a, const LogRecord& record) {
  return a.reducer && !record.value;
}
// The window's aggregate after `record`'s value, from `current` (none: a new window).
std::string Fold(const Aggregator& a, const LogRecord& record,
                 std::optional<std::string_view> current);

// What the windowed aggregations with emit-final share: their stats and logger (defaults when
// none is given), stream time (not restored: it starts afresh at Init), and the last emitted
// close time, committed with the input offset as "<store>=<close>" (E6, E10).
class EmitFinalProcessor : public Processor {
 public:
  Status Init(std::string_view metadata) override {
    STATECHECK_RETURN_IF_ERROR(ParseLastEmitClose(metadata, metadata_store_, &last_emit_close_));
    stream_time_ = kNoTimestamp;
    return Status::Ok();
  }
  std::string CommitMetadata() const override {
    return LastEmitCloseMetadata(metadata_store_, last_emit_close_);
  }

 protected:
  EmitFinalProcessor(std::string store, std::shared_ptr<AggregationStats> stats,
                     std::shared_ptr<Logger> logger)
      : metadata_store_(std::move(store)),
        stats_(stats ? std::move(stats) : std::make_shared<AggregationStats>()),
        logger_(logger ? std::move(logger) : StderrLogger()) {}

  const std::string metadata_store_;
  const std::shared_ptr<AggregationStats> stats_;
  const std::shared_ptr<Logger> logger_;
  int64_t stream_time_ = kNoTimestamp;
  int64_t last_emit_close_ = kNoCloseTime;
};

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_AGGREGATION_INTERNAL_H_
