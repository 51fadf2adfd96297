#include "statecheck/windowed_aggregation.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "aggregation_internal.h"

namespace statecheck {
namespace {

using internal::BigEndian;
using internal::FromBigEndian;
using internal::kNoCloseTime;

// The store's key of `key`'s aggregate in the window starting at `start` (starts are >= 0, so
// big-endian bytes sort as the numbers do: time order, then key bytes).
std::string StoreKey(int64_t start, std::string_view key) {
  return BigEndian(start) + std::string(key);
}

class TimeWindowedAggregation final : public Processor {
 public:
  explicit TimeWindowedAggregation(const TimeWindowedAggregationOptions& options)
      : options_(options),
        stats_(options.stats ? options.stats : std::make_shared<AggregationStats>()),
        logger_(options.logger ? options.logger : StderrLogger()) {}

  std::vector<std::string> StoreNames() const override { return {options_.store}; }

  Status Init(std::string_view metadata) override {
    STATECHECK_RETURN_IF_ERROR(
        internal::ParseLastEmitClose(metadata, options_.store, &last_emit_close_));
    stream_time_ = kNoTimestamp;
    return Status::Ok();
  }

  std::string CommitMetadata() const override {
    return internal::LastEmitCloseMetadata(options_.store, last_emit_close_);
  }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    if (record.key.empty() || record.timestamp == kNoTimestamp) {
      // Kafka's null key; the log has no null keys, so an empty one stands for it.
      ++stats_->dropped_records;
      logger_->Log(LogLevel::kWarn, std::string("Skipping record due to ") +
                                        (record.key.empty() ? "null key" : "no timestamp") +
                                        ". offset=[" + std::to_string(record.offset) + "]");
      return Status::Ok();
    }
    const int64_t ts = record.timestamp;
    stream_time_ = std::max(stream_time_, ts);
    const TimeWindows& windows = options_.windows;
    for (const Window& window : windows.WindowsFor(ts)) {
      if (!windows.Accepts(window, stream_time_)) {
        ++stats_->dropped_records;
        logger_->Log(LogLevel::kWarn, "Skipping record for expired window. offset=[" +
                                          std::to_string(record.offset) + "] timestamp=[" +
                                          std::to_string(ts) + "] window=[" +
                                          std::to_string(window.start) + "," +
                                          std::to_string(window.end) + ") expiration=[" +
                                          std::to_string(window.end + windows.grace_ms()) +
                                          "] streamTime=[" + std::to_string(stream_time_) + "]");
        continue;
      }
      const std::string key = StoreKey(window.start, record.key);
      std::optional<std::string> stored;
      STATECHECK_RETURN_IF_ERROR(context->Get(options_.store, key, &stored));
      int64_t max_ts = ts;
      std::string aggregate;
      if (stored) {
        if (stored->size() < 8) return Damaged(key);
        max_ts = std::max(max_ts, FromBigEndian(*stored));
        aggregate = stored->substr(8);
      } else {
        aggregate = options_.aggregator.initializer();
      }
      aggregate = options_.aggregator.aggregate(
          record.key, record.value ? std::optional<std::string_view>(*record.value) : std::nullopt,
          aggregate);
      STATECHECK_RETURN_IF_ERROR(context->Put(options_.store, key, BigEndian(max_ts) + aggregate));
      if (options_.emit == EmitStrategy::kOnWindowUpdate) {
        STATECHECK_RETURN_IF_ERROR(
            context->Forward(WindowedKey(window, record.key), aggregate, max_ts));
        ++stats_->emitted;
      }
    }
    if (options_.emit == EmitStrategy::kOnWindowClose) return MaybeEmitFinal(context);
    return Status::Ok();
  }

 private:
  // E3–E5, E9: emits every window that closed since the last emission, if it is time.
  Status MaybeEmitFinal(ProcessorContext* context) {
    const TimeWindows& windows = options_.windows;
    const int64_t close = stream_time_ - windows.grace_ms();  // Windows ending by it are closed.
    if (close <= last_emit_close_) return Status::Ok();
    const int64_t now = context->WallClockMs();
    if (last_emit_attempt_ms_ && now - *last_emit_attempt_ms_ < options_.emit_interval_ms) {
      return Status::Ok();
    }
    last_emit_attempt_ms_ = now;
    // Closed since the last emission: end in (last close, close], i.e. start in
    // (last close - size, close - size].
    const int64_t size = windows.size_ms();
    const int64_t first = std::max<int64_t>(0, last_emit_close_ - size + 1);
    const int64_t last = close - size;
    if (last >= first) {
      std::unique_ptr<KeyValueIterator> it;
      STATECHECK_RETURN_IF_ERROR(
          context->Range(options_.store, BigEndian(first), BigEndian(last + 1), &it));
      KeyValue kv;
      while (it->HasNext()) {
        STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
        if (kv.key.size() < 8 || kv.value.size() < 8) return Damaged(kv.key);
        const int64_t start = FromBigEndian(kv.key);
        if (start > last) break;
        const Window window{start, start + size};
        STATECHECK_RETURN_IF_ERROR(context->Forward(WindowedKey(window, kv.key.substr(8)),
                                                    kv.value.substr(8), FromBigEndian(kv.value)));
        ++stats_->emitted;
      }
    }
    last_emit_close_ = close;
    return Status::Ok();
  }

  Status Damaged(std::string_view key) const {
    return Status::Corruption("windowed aggregation: store " + options_.store +
                              " holds a record that is not a window aggregate (key of " +
                              std::to_string(key.size()) + " bytes)");
  }

  const TimeWindowedAggregationOptions options_;
  const std::shared_ptr<AggregationStats> stats_;
  const std::shared_ptr<Logger> logger_;
  int64_t stream_time_ = kNoTimestamp;
  int64_t last_emit_close_ = kNoCloseTime;
  std::optional<int64_t> last_emit_attempt_ms_;
};

// Captures the records the inner processor forwards into the suppress buffer.
class BufferingContext final : public ProcessorContext {
 public:
  BufferingContext(ProcessorContext* inner, std::string buffer, int64_t size_ms,
                   int64_t* stream_time)
      : inner_(inner), buffer_(std::move(buffer)), size_ms_(size_ms), stream_time_(stream_time) {}
  Status Get(std::string_view store, std::string_view key,
             std::optional<std::string>* value) override {
    return inner_->Get(store, key, value);
  }
  Status Put(std::string_view store, std::string_view key,
             std::optional<std::string_view> value) override {
    return inner_->Put(store, key, value);
  }
  Status Range(std::string_view store, std::optional<std::string_view> from,
               std::optional<std::string_view> to, std::unique_ptr<KeyValueIterator>* it) override {
    return inner_->Range(store, from, to, it);
  }
  // "<start>:<end>:<key>" → buffered under [end][windowed key], replacing the window's last.
  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override {
    int64_t start = 0;
    auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), start);
    if (ec != std::errc() || ptr == key.data() + key.size() || *ptr != ':' || !value) {
      return Status::Corruption("suppress: \"" + std::string(key) + "\" is not a window update");
    }
    *stream_time_ = std::max(*stream_time_, timestamp);
    return inner_->Put(buffer_, BigEndian(start + size_ms_) + std::string(key),
                       BigEndian(timestamp) + std::string(*value));
  }
  int64_t RecordTimestamp() const override { return inner_->RecordTimestamp(); }
  int64_t WallClockMs() const override { return inner_->WallClockMs(); }

 private:
  ProcessorContext* inner_;
  const std::string buffer_;
  const int64_t size_ms_;
  int64_t* stream_time_;
};

class SuppressedAggregation final : public Processor {
 public:
  SuppressedAggregation(const TimeWindowedAggregationOptions& options,
                        std::unique_ptr<Processor> eager)
      : options_(options), eager_(std::move(eager)), buffer_(options.store + ".suppress") {}

  std::vector<std::string> StoreNames() const override {
    std::vector<std::string> names = eager_->StoreNames();
    names.push_back(buffer_);
    return names;
  }
  Status Init(std::string_view metadata) override {
    stream_time_ = kNoTimestamp;  // Not restored (SPEC E); the buffer is, from its changelog.
    return eager_->Init(metadata);
  }
  std::string CommitMetadata() const override { return eager_->CommitMetadata(); }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    BufferingContext buffering(context, buffer_, options_.windows.size_ms(), &stream_time_);
    STATECHECK_RETURN_IF_ERROR(eager_->Process(record, &buffering));
    // Evict every buffered window that has closed, oldest end first.
    std::unique_ptr<KeyValueIterator> it;
    STATECHECK_RETURN_IF_ERROR(context->Range(buffer_, std::nullopt, std::nullopt, &it));
    KeyValue kv;
    std::vector<std::string> evicted;
    while (it->HasNext()) {
      STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
      if (kv.key.size() < 8 || kv.value.size() < 8) {
        return Status::Corruption("suppress: store " + buffer_ + " holds a damaged record");
      }
      if (FromBigEndian(kv.key) + options_.windows.grace_ms() > stream_time_) break;
      STATECHECK_RETURN_IF_ERROR(
          context->Forward(kv.key.substr(8), kv.value.substr(8), FromBigEndian(kv.value)));
      evicted.push_back(kv.key);
    }
    it.reset();
    for (const std::string& key : evicted) {
      STATECHECK_RETURN_IF_ERROR(context->Put(buffer_, key, std::nullopt));
    }
    return Status::Ok();
  }

 private:
  const TimeWindowedAggregationOptions options_;
  const std::unique_ptr<Processor> eager_;
  const std::string buffer_;
  int64_t stream_time_ = kNoTimestamp;
};

}  // namespace

Status NewSuppressedTimeWindowedAggregation(const TimeWindowedAggregationOptions& options,
                                            std::unique_ptr<Processor>* out) {
  out->reset();
  if (options.emit != EmitStrategy::kOnWindowUpdate) {
    return Status::InvalidArgument(
        "suppress(untilWindowCloses) suppresses an emit-eager (ON_WINDOW_UPDATE) aggregation; "
        "this one emits ON_WINDOW_CLOSE already");
  }
  std::unique_ptr<Processor> eager;
  STATECHECK_RETURN_IF_ERROR(NewTimeWindowedAggregation(options, &eager));
  *out = std::make_unique<SuppressedAggregation>(options, std::move(eager));
  return Status::Ok();
}

Aggregator CountAggregator() {
  return {[] { return std::string("0"); },
          [](std::string_view, std::optional<std::string_view>, std::string_view aggregate) {
            int64_t n = 0;
            std::from_chars(aggregate.data(), aggregate.data() + aggregate.size(), n);
            return std::to_string(n + 1);
          }};
}

std::string WindowedKey(const Window& window, std::string_view key) {
  return std::to_string(window.start) + ":" + std::to_string(window.end) + ":" + std::string(key);
}

Status NewTimeWindowedAggregation(const TimeWindowedAggregationOptions& options,
                                  std::unique_ptr<Processor>* out) {
  out->reset();
  if (options.store.empty()) {
    return Status::InvalidArgument("windowed aggregation option store cannot be empty");
  }
  if (options.emit_interval_ms < 0) {
    return Status::InvalidArgument(
        "windowed aggregation option emit_interval_ms must be >= 0, got " +
        std::to_string(options.emit_interval_ms));
  }
  if (!options.aggregator.initializer || !options.aggregator.aggregate) {
    return Status::InvalidArgument(
        "windowed aggregation option aggregator needs an initializer and an aggregate function");
  }
  const int64_t retention = options.retention_ms >= 0
                                ? options.retention_ms
                                : options.windows.size_ms() + options.windows.grace_ms();
  STATECHECK_RETURN_IF_ERROR(options.windows.CheckRetention(options.store, retention));
  *out = std::make_unique<TimeWindowedAggregation>(options);
  return Status::Ok();
}

}  // namespace statecheck
