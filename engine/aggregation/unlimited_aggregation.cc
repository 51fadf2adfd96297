#include "statecheck/unlimited_aggregation.h"

#include <algorithm>

#include "engine/aggregation/aggregation_internal.h"

namespace statecheck {
namespace {

using internal::BigEndian;
using internal::FromBigEndian;

class UnlimitedWindowedAggregation final : public Processor {
 public:
  explicit UnlimitedWindowedAggregation(const UnlimitedWindowedAggregationOptions& options)
      : options_(options),
        stats_(options.stats ? options.stats : std::make_shared<AggregationStats>()),
        logger_(options.logger ? options.logger : StderrLogger()) {}

  std::vector<std::string> StoreNames() const override { return {options_.store}; }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    if (internal::DropUnkeyedOrUntimed(record, stats_.get(), logger_.get())) return Status::Ok();
    if (internal::Skips(options_.aggregator, record)) return Status::Ok();
    for (const Window& window : options_.windows.WindowsFor(record.timestamp)) {
      std::optional<std::string> stored;
      STATECHECK_RETURN_IF_ERROR(context->Get(options_.store, record.key, &stored));
      int64_t max_ts = record.timestamp;
      std::optional<std::string_view> current;
      if (stored) {
        if (stored->size() < 8) {
          return Status::Corruption("unlimited windowed aggregation: store " + options_.store +
                                    " holds a value of " + std::to_string(stored->size()) +
                                    " bytes, not a window aggregate");
        }
        max_ts = std::max(max_ts, FromBigEndian(*stored));
        current = std::string_view(*stored).substr(8);
      }
      const std::string aggregate = internal::Fold(options_.aggregator, record, current);
      STATECHECK_RETURN_IF_ERROR(
          context->Put(options_.store, record.key, BigEndian(max_ts) + aggregate));
      STATECHECK_RETURN_IF_ERROR(
          context->Forward(WindowedKey(window, record.key), aggregate, max_ts));
      ++stats_->emitted;
    }
    return Status::Ok();
  }

 private:
  const UnlimitedWindowedAggregationOptions options_;
  const std::shared_ptr<AggregationStats> stats_;
  const std::shared_ptr<Logger> logger_;
};

}  // namespace

Status NewUnlimitedWindowedAggregation(const UnlimitedWindowedAggregationOptions& options,
                                       std::unique_ptr<Processor>* out) {
  out->reset();
  // Keeps: E8 — an unlimited aggregation refuses emit-final before anything else
  STATECHECK_RETURN_IF_ERROR(UnlimitedWindows::CheckEmitStrategy(options.emit));  // E8.
  if (options.store.empty()) {
    return Status::InvalidArgument("unlimited windowed aggregation option store cannot be empty");
  }
  STATECHECK_RETURN_IF_ERROR(
      internal::CheckAggregator(options.aggregator, "unlimited windowed aggregation"));
  *out = std::make_unique<UnlimitedWindowedAggregation>(options);
  return Status::Ok();
}

}  // namespace statecheck
