#include "statecheck/sliding_aggregation.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "engine/aggregation/aggregation_internal.h"
#include "engine/base/planted.h"

namespace statecheck {
namespace {

using internal::BigEndian;
using internal::FromBigEndian;

// A window of the record's key as the store holds it.
struct StoredWindow {
  int64_t start = 0;
  int64_t max_ts = 0;  // The window's largest record timestamp.
  std::string aggregate;
};

// What one record writes to a window: the new aggregate and largest record timestamp.
struct WindowWrite {
  int64_t max_ts = 0;
  std::string aggregate;
  bool is_new = false;  // No window of the key started there: it needs its index record.
};

// The key-first index (E9): one record per window, [0xFF][key length, 4 bytes big-endian][key]
// [start, 8 bytes big-endian] with an empty value. 0xFF sorts after every window record (their
// first byte is a non-negative start's, at most 0x7F), so the time-ordered scans never reach
// the index; the length makes a key's records one contiguous range that no other key shares.
constexpr char kIndexByte = '\xff';

std::string IndexPrefix(std::string_view key) {
  const auto n = static_cast<uint32_t>(key.size());
  std::string out(1, kIndexByte);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(n >> shift));
  out.append(key);
  return out;
}

// The committed metadata's entry saying the store's index is complete: "<store>+index=1" ('+' is
// no store-name character, so it is no other store's entry). An engine without the index commits
// metadata without it, so a store that went back to such an engine is indexed again on its
// return.
std::string IndexMark(std::string_view store) { return std::string(store) + "+index"; }

class SlidingWindowedAggregation final : public internal::EmitFinalProcessor {
 public:
  explicit SlidingWindowedAggregation(const SlidingWindowedAggregationOptions& options)
      : EmitFinalProcessor(options.store, options.stats, options.logger),
        options_(options),
        d_(options.windows.time_difference_ms()) {}

  std::vector<std::string> StoreNames() const override { return {options_.store}; }

  Status Init(std::string_view metadata) override {
    STATECHECK_RETURN_IF_ERROR(EmitFinalProcessor::Init(metadata));
    int64_t mark = kNoCloseTime;
    STATECHECK_RETURN_IF_ERROR(ParseLastEmitClose(metadata, IndexMark(options_.store), &mark));
    indexed_ = mark == 1;
    return Status::Ok();
  }

  std::string CommitMetadata() const override {
    std::string out = EmitFinalProcessor::CommitMetadata();
    if (!indexed_) return out;
    return out + (out.empty() ? "" : ";") + IndexMark(options_.store) + "=1";
  }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    if (internal::DropUnkeyedOrUntimed(record, stats_.get(), logger_.get())) return Status::Ok();
    if (!indexed_) STATECHECK_RETURN_IF_ERROR(BuildIndex(context));
    if (internal::Skips(options_.aggregator, record)) return Status::Ok();
    const int64_t ts = record.timestamp;
    stream_time_ = std::max(stream_time_, ts);
    const int64_t close = stream_time_ - options_.windows.grace_ms();
    // The latest window holding ts is [ts, ts + D]; if it has closed, so has every other one
    // (Kafka: inputRecordTimestamp + 1 + timeDifference <= closeTime).
    if (STATECHECK_PLANTED(SlidingDropOffByOne) ? ts + d_ <= close : ts + d_ < close) {
      ++stats_->dropped_records;
      LogExpired(record, Window{ts - d_, ts}, close);
      return Status::Ok();
    }
    Pass pass{record, context, close, {}, {}};
    STATECHECK_RETURN_IF_ERROR(ts < d_ ? ProcessEarly(&pass) : ProcessInOrder(&pass));
    // Writes (and eager outputs) by ascending window start (SPEC E2). A new window's index record
    // goes first: a crash between the two (at-least-once, where writes reach the store as they
    // are made) leaves an index record without its window, which lookups skip, never a window
    // the index misses.
    const std::string prefix = IndexPrefix(record.key);
    for (const auto& [start, write] : pass.writes) {
      if (write.is_new) {
        STATECHECK_RETURN_IF_ERROR(context->Put(options_.store, prefix + BigEndian(start), ""));
      }
      STATECHECK_RETURN_IF_ERROR(context->Put(options_.store, StoreKey(start, record.key),
                                              BigEndian(write.max_ts) + write.aggregate));
      // Keeps: E2 — eager: one output per updated window, by ascending start, at its max timestamp
      if (options_.emit == EmitStrategy::kOnWindowUpdate) {
        STATECHECK_RETURN_IF_ERROR(context->Forward(
            WindowedKey(Window{start, start + d_}, record.key), write.aggregate, write.max_ts));
        ++stats_->emitted;
      }
    }
    if (options_.emit == EmitStrategy::kOnWindowClose) return MaybeEmitFinal(context);
    return Status::Ok();
  }

 private:
  // The state of processing one record.
  struct Pass {
    const LogRecord& record;
    ProcessorContext* context;
    int64_t close;                          // Windows ending before it no longer take records.
    std::map<int64_t, WindowWrite> writes;  // By window start.
    std::set<int64_t> handled;              // Starts already updated, created or skipped.
  };

  // The store's key of `key`'s aggregate in the window starting at `start` (starts are >= 0, so
  // big-endian bytes sort as the numbers do: time order, then key bytes).
  // Keeps: E4 — keys sort by start, then key bytes: a scan emits in E4's order
  static std::string StoreKey(int64_t start, std::string_view key) {
    return BigEndian(start) + std::string(key);
  }

  // The windows of the record's key with a start in [from, to], ascending (Kafka's fetch(key,
  // key, from, to)): the key's index records in that range, then each window by its key (E9).
  // Other keys' windows are not read.
  Status FetchWindows(const Pass& pass, int64_t from, int64_t to,
                      std::vector<StoredWindow>* out) const {
    out->clear();
    const std::string prefix = IndexPrefix(pass.record.key);
    std::vector<int64_t> starts;
    {
      std::unique_ptr<KeyValueIterator> it;
      STATECHECK_RETURN_IF_ERROR(pass.context->Range(options_.store, prefix + BigEndian(from),
                                                     prefix + BigEndian(to), &it));
      KeyValue kv;
      while (it->HasNext()) {
        STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
        if (kv.key.size() != prefix.size() + 8 || !kv.value.empty()) return Damaged(kv.key);
        starts.push_back(FromBigEndian(std::string_view(kv.key).substr(prefix.size())));
      }
    }
    std::optional<std::string> value;
    for (const int64_t start : starts) {
      STATECHECK_RETURN_IF_ERROR(
          pass.context->Get(options_.store, StoreKey(start, pass.record.key), &value));
      if (!value) continue;  // An index record a crash left without its window.
      if (value->size() < 8) return Damaged(StoreKey(start, pass.record.key));
      out->push_back({start, FromBigEndian(*value), value->substr(8)});
    }
    return Status::Ok();
  }

  // Indexes a store an engine without the index wrote (its committed metadata has no index
  // mark), before the first lookup: an index record for every window, written and committed
  // like any other write, then the mark with the next commit's metadata. Index records already
  // there are written again, unchanged.
  Status BuildIndex(ProcessorContext* context) {
    std::vector<std::string> windows;
    {
      std::unique_ptr<KeyValueIterator> it;
      STATECHECK_RETURN_IF_ERROR(context->Range(options_.store, std::nullopt, std::nullopt, &it));
      KeyValue kv;
      while (it->HasNext()) {
        STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
        if (!kv.key.empty() && kv.key[0] == kIndexByte) break;  // The index: past the windows.
        if (kv.key.size() < 8 || kv.value.size() < 8) return Damaged(kv.key);
        windows.push_back(std::move(kv.key));
      }
    }
    for (const std::string& w : windows) {
      STATECHECK_RETURN_IF_ERROR(context->Put(
          options_.store, IndexPrefix(std::string_view(w).substr(8)) + w.substr(0, 8), ""));
    }
    if (!windows.empty()) {
      logger_->Log(LogLevel::kInfo, "sliding windowed aggregation: indexed the " +
                                        std::to_string(windows.size()) + " windows of store " +
                                        options_.store + " by key");
    }
    indexed_ = true;
    return Status::Ok();
  }

  // Kafka's updateWindowAndForward: the window starting at `start`, whose current aggregate is
  // `base` (std::nullopt: a new window, from the initializer), takes the record if it still
  // accepts records; else it is skipped, counted and logged (E1). A window is handled once per
  // record.
  void Update(Pass* pass, int64_t start, const std::optional<StoredWindow>& base) {
    if (!pass->handled.insert(start).second) return;
    const Window window{start, start + d_};
    // Keeps: E1 — a sliding window takes the record iff end >= streamTime - grace; else counted
    if (window.end < pass->close) {  // !SlidingWindows::Accepts.
      ++stats_->dropped_records;
      LogExpired(pass->record, window, pass->close);
      return;
    }
    const LogRecord& r = pass->record;
    const std::string aggregate =
        internal::Fold(options_.aggregator, r,
                       base ? std::optional<std::string_view>(base->aggregate) : std::nullopt);
    const int64_t max_ts = base ? std::max(base->max_ts, r.timestamp) : r.timestamp;
    pass->writes[start] = {max_ts, aggregate, !base || base->start != start};
  }

  // Kafka's createCurrentRecordRightWindow: [t + 1, t + 1 + D] holds exactly the records of
  // `source` (which are all later than t), so it starts as a copy of it. It never has closed:
  // t + D >= close time, or the record would have been dropped.
  void CreateRightWindow(Pass* pass, const StoredWindow& source) {
    const int64_t start = pass->record.timestamp + 1;
    if (!pass->handled.insert(start).second) return;
    pass->writes[start] = {source.max_ts, source.aggregate, /*is_new=*/true};
  }

  // Kafka's processInOrder (t >= D), with createWindows.
  Status ProcessInOrder(Pass* pass) {
    const int64_t t = pass->record.timestamp;
    std::vector<StoredWindow> windows;
    // Up to t + 1 to see the record's right window, if it exists.
    STATECHECK_RETURN_IF_ERROR(
        FetchWindows(*pass, std::max<int64_t>(0, t - 2 * d_), t + 1, &windows));
    std::set<int64_t> starts;
    std::optional<StoredWindow> left_agg;   // The latest window ending before t.
    std::optional<StoredWindow> right_agg;  // The latest window holding t that ends after it.
    bool left_exists = false, right_exists = false;
    std::optional<int64_t> previous;  // The largest record timestamp before t.
    for (const StoredWindow& w : windows) {
      starts.insert(w.start);
      const int64_t end = w.start + d_;
      if (end < t) {
        left_agg = w;
        previous = w.max_ts;
      } else if (end == t) {
        left_exists = true;
        if (w.max_ts < t) previous = w.max_ts;
        Update(pass, w.start, w);
      } else if (w.start <= t) {
        right_agg = w;
        Update(pass, w.start, w);
      } else if (w.start == t + 1) {
        right_exists = true;
      } else {
        return Status::Corruption("sliding windowed aggregation: store " + options_.store +
                                  " holds a window starting at " + std::to_string(w.start) +
                                  " while processing a record at " + std::to_string(t));
      }
    }
    // The previous record's right window, if this record is the first to fall in it.
    if (previous && !starts.count(*previous + 1) && *previous + 1 + d_ >= t) {
      Update(pass, *previous + 1, std::nullopt);
    }
    if (!left_exists) {
      // The left window [t - D, t] holds the records of the latest window ending before t when
      // the previous record lies in it; else only this one.
      if (previous && t - d_ <= *previous) {
        StoredWindow base = *left_agg;
        base.max_ts = t;
        Update(pass, t - d_, base);
      } else {
        Update(pass, t - d_, std::nullopt);
      }
    }
    if (!right_exists && right_agg && right_agg->max_ts > t) CreateRightWindow(pass, *right_agg);
    return Status::Ok();
  }

  // Kafka's processEarly (t < D): the left windows of early records would start before 0, so
  // they all fold into [0, D].
  Status ProcessEarly(Pass* pass) {
    const int64_t t = pass->record.timestamp;
    std::vector<StoredWindow> windows;
    STATECHECK_RETURN_IF_ERROR(FetchWindows(*pass, 0, t + 1, &windows));
    std::set<int64_t> starts;
    std::optional<StoredWindow> combined;  // [0, D].
    std::optional<StoredWindow> right_agg;
    bool right_exists = false;
    std::optional<int64_t> previous;
    for (const StoredWindow& w : windows) {
      starts.insert(w.start);
      if (w.start == 0) {
        combined = w;
        // When [0, D] holds a record at or after t, that record's left window holds the
        // previous record's, and that right window exists already.
        if (w.max_ts < t) previous = w.max_ts;
      } else if (w.start <= t) {
        right_agg = w;
        Update(pass, w.start, w);
      } else {  // w.start == t + 1.
        right_exists = true;
      }
    }
    // With no window starting in (0, t], [0, D] can hold records after t only if it holds none
    // before t (those would have right windows holding the later records), so it is the source
    // of the right window.
    if (!right_agg && combined && combined->max_ts > t) right_agg = combined;
    if (!right_exists && right_agg && right_agg->max_ts > t) CreateRightWindow(pass, *right_agg);
    if (previous && !starts.count(*previous + 1)) Update(pass, *previous + 1, std::nullopt);
    Update(pass, 0, combined);
    return Status::Ok();
  }

  // E3–E5, E9: emits every window that closed since the last emission, if it is time.
  Status MaybeEmitFinal(ProcessorContext* context) {
    const int64_t close = stream_time_ - options_.windows.grace_ms();  // Ends before it: closed.
    // Keeps: E5 — emit only when close time passed the last emitted, at most once per emit interval
    if (close <= last_emit_close_) return Status::Ok();
    const int64_t now = context->WallClockMs();
    if (last_emit_attempt_ms_ && now - *last_emit_attempt_ms_ < options_.emit_interval_ms) {
      return Status::Ok();
    }
    last_emit_attempt_ms_ = now;
    // Closed since the last emission: end in [last close, close), i.e. start in
    // [last close - D, close - D - 1] (Kafka's emitRangeLowerBound / emitRangeUpperBound for
    // sliding windows; both ends of a sliding window are included).
    // Keeps: E3 — each closed window once: end in [last emitted close, streamTime - grace)
    const int64_t first =
        last_emit_close_ == kNoCloseTime ? 0 : std::max<int64_t>(0, last_emit_close_ - d_);
    const int64_t last =
        STATECHECK_PLANTED(SlidingEmitFinalUpperBoundOffByOne) ? close - d_ : close - d_ - 1;
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
        STATECHECK_RETURN_IF_ERROR(
            context->Forward(WindowedKey(Window{start, start + d_}, kv.key.substr(8)),
                             kv.value.substr(8), FromBigEndian(kv.value)));
        ++stats_->emitted;
      }
    }
    last_emit_close_ = close;
    return Status::Ok();
  }

  void LogExpired(const LogRecord& record, const Window& window, int64_t close) const {
    logger_->Log(LogLevel::kWarn,
                 "Skipping record for expired window. offset=[" + std::to_string(record.offset) +
                     "] timestamp=[" + std::to_string(record.timestamp) + "] window=[" +
                     std::to_string(window.start) + "," + std::to_string(window.end) +
                     "] expiration=[" + std::to_string(close) + "] streamTime=[" +
                     std::to_string(stream_time_) + "]");
  }

  Status Damaged(std::string_view key) const {
    return Status::Corruption("sliding windowed aggregation: store " + options_.store +
                              " holds a record that is not a window aggregate (key of " +
                              std::to_string(key.size()) + " bytes)");
  }

  const SlidingWindowedAggregationOptions options_;
  const int64_t d_;       // The time difference.
  bool indexed_ = false;  // Every window of the store has its index record (E9).
  std::optional<int64_t> last_emit_attempt_ms_;
};

}  // namespace

Status NewSlidingWindowedAggregation(const SlidingWindowedAggregationOptions& options,
                                     std::unique_ptr<Processor>* out) {
  out->reset();
  if (options.store.empty()) {
    return Status::InvalidArgument("sliding windowed aggregation option store cannot be empty");
  }
  if (options.emit_interval_ms < 0) {
    return Status::InvalidArgument(
        "sliding windowed aggregation option emit_interval_ms must be >= 0, got " +
        std::to_string(options.emit_interval_ms));
  }
  STATECHECK_RETURN_IF_ERROR(
      internal::CheckAggregator(options.aggregator, "sliding windowed aggregation"));
  const SlidingWindows& w = options.windows;
  const int64_t retention =
      options.retention_ms >= 0 ? options.retention_ms : 2 * w.time_difference_ms() + w.grace_ms();
  STATECHECK_RETURN_IF_ERROR(w.CheckRetention(options.store, retention));
  *out = std::make_unique<SlidingWindowedAggregation>(options);
  return Status::Ok();
}

}  // namespace statecheck
