#include "statecheck/windowed_aggregation.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/aggregation/aggregation_internal.h"
#include "engine/base/planted.h"
#include "statecheck/session_aggregation.h"
#include "statecheck/sliding_aggregation.h"

namespace statecheck {
namespace {

using internal::BigEndian;
using internal::FromBigEndian;

// The store's key of `key`'s aggregate in the window starting at `start` (starts are >= 0, so
// big-endian bytes sort as the numbers do: time order, then key bytes).
// Keeps: E4 — keys sort by start, then key bytes: a scan emits in E4's order
std::string StoreKey(int64_t start, std::string_view key) {
  return BigEndian(start) + std::string(key);
}

// E11: the first window start a query of the persistent store sees at store stream time
// `store_time` (>= 0). Under emit-final the store is Kafka's time-ordered window store, whose
// reads keep a window starting exactly at store time - retention
// (AbstractDualSchemaRocksDBSegmentedBytesStore.getActualFrom: no + 1, so that retention = grace
// still returns the windows emit-final reads); under emit-eager, Kafka's key-ordered window store
// (AbstractRocksDBSegmentedBytesStore), which starts one past it.
int64_t FirstVisibleStart(EmitStrategy emit, int64_t store_time, int64_t retention) {
  const int64_t bound = store_time - retention;  // store_time >= 0: no overflow.
  // Keeps: E11 — emit-final's time-ordered store keeps the window at store time - retention
  if (emit == EmitStrategy::kOnWindowClose &&
      !STATECHECK_PLANTED(WindowedTimeFirstReadBoundOffByOne)) {
    return bound;
  }
  return bound + 1;
}

// The segment interval of Kafka's key-first window store behind an emit-eager aggregation
// (Stores.persistentWindowStore): max(retention / 2, 60000) ms.
int64_t KeyFirstSegmentInterval(int64_t retention) {
  return std::max<int64_t>(retention / 2, 60'000);
}

// The retention of the aggregation `options` describes: its option, or size + grace.
int64_t RetentionOf(const TimeWindowedAggregationOptions& options) {
  return options.retention_ms >= 0
             ? options.retention_ms
             : internal::SaturatingAdd(options.windows.size_ms(), options.windows.grace_ms());
}

Status Damaged(const std::string& store, size_t key_size) {
  return Status::Corruption("windowed aggregation: store " + store +
                            " holds a record that is not a window aggregate (key of " +
                            std::to_string(key_size) + " bytes)");
}

// One aggregate as the store holds it: value = [largest record timestamp, 8 bytes
// big-endian][aggregate], at least 8 bytes.
struct StoredAggregate {
  int64_t start = 0;
  std::string key;
  std::string value;
};

class AggregateIterator {
 public:
  virtual ~AggregateIterator() = default;
  virtual bool HasNext() = 0;
  // Corruption for a record that is not an aggregate.
  virtual Status Next(StoredAggregate* out) = 0;
};

// Where a TimeWindowedAggregation's aggregates live (AggregationStoreType): the one processor
// reads and writes them through this, whichever store holds them.
class AggregateStore {
 public:
  virtual ~AggregateStore() = default;
  // The task stores to declare (Processor::StoreNames, Processor::WindowStores).
  virtual std::vector<std::string> StoreNames() const = 0;
  virtual std::vector<WindowStoreSpec> WindowStores() const = 0;
  virtual Status Get(ProcessorContext* context, int64_t start, std::string_view key,
                     std::optional<std::string>* value) = 0;
  virtual Status Put(ProcessorContext* context, int64_t start, std::string_view key,
                     std::string_view value) = 0;
  // One time-ordered lookup (E9) from start `first`, by start then key bytes, up to start
  // `last` — possibly with one record past it, which the caller stops at.
  virtual Status Scan(ProcessorContext* context, int64_t first, int64_t last,
                      std::unique_ptr<AggregateIterator>* it) = 0;
  // Deletes the windows starting in [first, last], past their retention. A store that expires
  // windows itself (the in-memory window store) does nothing.
  virtual Status Expire(ProcessorContext* context, int64_t first, int64_t last) = 0;
};

// kPersistent: a key-value store of the task, keyed by StoreKey.
class PersistentAggregates final : public AggregateStore {
 public:
  explicit PersistentAggregates(std::string store) : store_(std::move(store)) {}
  std::vector<std::string> StoreNames() const override { return {store_}; }
  std::vector<WindowStoreSpec> WindowStores() const override { return {}; }
  Status Get(ProcessorContext* context, int64_t start, std::string_view key,
             std::optional<std::string>* value) override {
    return context->Get(store_, StoreKey(start, key), value);
  }
  Status Put(ProcessorContext* context, int64_t start, std::string_view key,
             std::string_view value) override {
    return context->Put(store_, StoreKey(start, key), value);
  }
  Status Scan(ProcessorContext* context, int64_t first, int64_t last,
              std::unique_ptr<AggregateIterator>* it) override {
    std::unique_ptr<KeyValueIterator> range;
    STATECHECK_RETURN_IF_ERROR(RangeOfStarts(context, first, last, &range));
    *it = std::make_unique<Iterator>(store_, std::move(range));
    return Status::Ok();
  }
  Status Expire(ProcessorContext* context, int64_t first, int64_t last) override {
    std::unique_ptr<KeyValueIterator> range;
    STATECHECK_RETURN_IF_ERROR(RangeOfStarts(context, first, last, &range));
    std::vector<std::string> expired;
    KeyValue kv;
    while (range->HasNext()) {
      STATECHECK_RETURN_IF_ERROR(range->Next(&kv));
      if (kv.key.size() < 8) return Damaged(store_, kv.key.size());
      if (FromBigEndian(kv.key) > last) break;
      expired.push_back(std::move(kv.key));
    }
    range.reset();
    for (const std::string& key : expired) {
      STATECHECK_RETURN_IF_ERROR(context->Put(store_, key, std::nullopt));
    }
    return Status::Ok();
  }

 private:
  // The windows starting in [first, last]: up to start last + 1, exclusive, or to the end of the
  // store when last is INT64_MAX.
  Status RangeOfStarts(ProcessorContext* context, int64_t first, int64_t last,
                       std::unique_ptr<KeyValueIterator>* range) const {
    if (last == std::numeric_limits<int64_t>::max()) {
      return context->Range(store_, BigEndian(first), std::nullopt, range);
    }
    return context->Range(store_, BigEndian(first), BigEndian(last + 1), range);
  }

  class Iterator final : public AggregateIterator {
   public:
    Iterator(const std::string& store, std::unique_ptr<KeyValueIterator> range)
        : store_(store), range_(std::move(range)) {}
    bool HasNext() override { return range_->HasNext(); }
    Status Next(StoredAggregate* out) override {
      STATECHECK_RETURN_IF_ERROR(range_->Next(&kv_));
      if (kv_.key.size() < 8 || kv_.value.size() < 8) return Damaged(store_, kv_.key.size());
      out->start = FromBigEndian(kv_.key);
      out->key = kv_.key.substr(8);
      out->value = std::move(kv_.value);
      return Status::Ok();
    }

   private:
    const std::string store_;
    std::unique_ptr<KeyValueIterator> range_;
    KeyValue kv_;
  };

  const std::string store_;
};

// kInMemory: an in-memory window store of the task; an aggregate is its key at its window's
// start.
class InMemoryAggregates final : public AggregateStore {
 public:
  explicit InMemoryAggregates(WindowStoreSpec spec) : spec_(std::move(spec)) {}
  std::vector<std::string> StoreNames() const override { return {}; }
  std::vector<WindowStoreSpec> WindowStores() const override { return {spec_}; }
  Status Get(ProcessorContext* context, int64_t start, std::string_view key,
             std::optional<std::string>* value) override {
    return context->WindowFetch(spec_.name, key, start, value);
  }
  Status Put(ProcessorContext* context, int64_t start, std::string_view key,
             std::string_view value) override {
    return context->WindowPut(spec_.name, key, value, start);
  }
  Status Scan(ProcessorContext* context, int64_t first, int64_t last,
              std::unique_ptr<AggregateIterator>* it) override {
    std::unique_ptr<WindowStoreIterator> fetch;
    STATECHECK_RETURN_IF_ERROR(context->WindowFetchAll(spec_.name, first, last, &fetch));
    *it = std::make_unique<Iterator>(spec_.name, std::move(fetch));
    return Status::Ok();
  }
  Status Expire(ProcessorContext*, int64_t, int64_t) override { return Status::Ok(); }

 private:
  class Iterator final : public AggregateIterator {
   public:
    Iterator(const std::string& store, std::unique_ptr<WindowStoreIterator> fetch)
        : store_(store), fetch_(std::move(fetch)) {}
    bool HasNext() override { return fetch_->HasNext(); }
    Status Next(StoredAggregate* out) override {
      STATECHECK_RETURN_IF_ERROR(fetch_->Next(&record_));
      if (record_.value.size() < 8) return Damaged(store_, record_.key.size());
      out->start = record_.window.start;
      out->key = std::move(record_.key);
      out->value = std::move(record_.value);
      return Status::Ok();
    }

   private:
    const std::string store_;
    std::unique_ptr<WindowStoreIterator> fetch_;
    WindowedRecord record_;
  };

  const WindowStoreSpec spec_;
};

class TimeWindowedAggregation final : public internal::EmitFinalProcessor {
 public:
  TimeWindowedAggregation(const TimeWindowedAggregationOptions& options, int64_t retention_ms,
                          std::unique_ptr<AggregateStore> store)
      : EmitFinalProcessor(options.store, options.stats, options.logger),
        options_(options),
        retention_ms_(retention_ms),
        store_(std::move(store)) {}

  std::vector<std::string> StoreNames() const override { return store_->StoreNames(); }
  std::vector<WindowStoreSpec> WindowStores() const override { return store_->WindowStores(); }

  Status Init(std::string_view metadata) override {
    expired_through_ = -1;
    store_time_ = -1;
    return EmitFinalProcessor::Init(metadata);
  }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    if (internal::DropUnkeyedOrUntimed(record, stats_.get(), logger_.get())) return Status::Ok();
    if (internal::Skips(options_.aggregator, record)) return Status::Ok();
    const int64_t ts = record.timestamp;
    stream_time_ = std::max(stream_time_, ts);
    const TimeWindows& windows = options_.windows;
    for (const Window& window : windows.WindowsFor(ts)) {
      // Keeps: E1 — a window takes the record iff end > streamTime - grace; else skipped, counted
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
      std::optional<std::string> stored;
      STATECHECK_RETURN_IF_ERROR(store_->Get(context, window.start, record.key, &stored));
      int64_t max_ts = ts;
      std::optional<std::string_view> current;
      if (stored) {
        if (stored->size() < 8) return Damaged(options_.store, 8 + record.key.size());
        max_ts = std::max(max_ts, FromBigEndian(*stored));
        current = std::string_view(*stored).substr(8);
      }
      const std::string aggregate = internal::Fold(options_.aggregator, record, current);
      STATECHECK_RETURN_IF_ERROR(
          store_->Put(context, window.start, record.key, BigEndian(max_ts) + aggregate));
      store_time_ = std::max(store_time_, window.start);
      // Keeps: E2 — eager: one output per updated window, by ascending start, at its max timestamp
      if (options_.emit == EmitStrategy::kOnWindowUpdate) {
        STATECHECK_RETURN_IF_ERROR(
            context->Forward(WindowedKey(window, record.key), aggregate, max_ts));
        ++stats_->emitted;
      }
    }
    if (options_.emit == EmitStrategy::kOnWindowClose) {
      STATECHECK_RETURN_IF_ERROR(MaybeEmitFinal(context));
    }
    return ExpireWindows(context);
  }

 private:
  // Retention (E11): a window is deleted once a query can no longer see it — start below the
  // store's stream time (the largest window start put since the task started) minus the
  // retention under emit-final, at or below it under emit-eager —, under emit-final only once it
  // has been emitted (its end is at or below the last emitted close time), so that no closed
  // window is lost while the emit interval holds emission back (E6).
  Status ExpireWindows(ProcessorContext* context) {
    if (store_time_ < 0) return Status::Ok();
    // Keeps: E11 — a window leaves the store only when the read bound hides it
    int64_t bound = FirstVisibleStart(options_.emit, store_time_, retention_ms_) - 1;
    // Keeps: E6 — under emit-final a window is deleted only once emitted: no closed window lost
    if (options_.emit == EmitStrategy::kOnWindowClose &&
        !STATECHECK_PLANTED(WindowedExpireBeforeEmit)) {
      bound = std::min(bound, last_emit_close_ - options_.windows.size_ms());
    }
    if (bound <= expired_through_) return Status::Ok();
    STATECHECK_RETURN_IF_ERROR(store_->Expire(context, expired_through_ + 1, bound));
    expired_through_ = bound;
    return Status::Ok();
  }

  // E3–E5, E9: emits every window that closed since the last emission, if it is time.
  Status MaybeEmitFinal(ProcessorContext* context) {
    const TimeWindows& windows = options_.windows;
    const int64_t close = stream_time_ - windows.grace_ms();  // Windows ending by it are closed.
    // Keeps: E5 — emit only when close time passed the last emitted, at most once per emit interval
    if (close <= last_emit_close_) return Status::Ok();
    const int64_t now = context->WallClockMs();
    if (last_emit_attempt_ms_ && (STATECHECK_PLANTED(EmitIntervalOffByOne)
                                      ? now - *last_emit_attempt_ms_ <= options_.emit_interval_ms
                                      : now - *last_emit_attempt_ms_ < options_.emit_interval_ms)) {
      return Status::Ok();
    }
    last_emit_attempt_ms_ = now;
    // Closed since the last emission: end in (last close, close], i.e. start in
    // (last close - size, close - size] — and, once close is INT64_MAX, every start up to it:
    // the windows whose end saturates at INT64_MAX (TimeWindows::WindowsFor) close then.
    const int64_t size = windows.size_ms();
    // Keeps: E3 — each closed window once: end in (last emitted close, streamTime - grace]
    const int64_t first = std::max<int64_t>(0, last_emit_close_ - size + 1);
    const int64_t last =
        close == std::numeric_limits<int64_t>::max()
            ? close
            : close - size + (STATECHECK_PLANTED(TimeEmitFinalUpperBoundOffByOne) ? 1 : 0);
    if (last >= first) {
      std::unique_ptr<AggregateIterator> it;
      // Keeps: E9 — one time-ordered range lookup over the closed windows, not the whole store
      STATECHECK_RETURN_IF_ERROR(store_->Scan(context, first, last, &it));
      StoredAggregate agg;
      while (it->HasNext()) {
        STATECHECK_RETURN_IF_ERROR(it->Next(&agg));
        ++stats_->windows_read;
        if (agg.start > last) break;
        const Window window{agg.start, internal::SaturatingAdd(agg.start, size)};
        // Keeps: E3 — the final aggregate, no old value, the window's max record timestamp
        STATECHECK_RETURN_IF_ERROR(context->Forward(WindowedKey(window, agg.key),
                                                    agg.value.substr(8), FromBigEndian(agg.value)));
        ++stats_->emitted;
      }
    }
    last_emit_close_ = close;
    return Status::Ok();
  }

  const TimeWindowedAggregationOptions options_;
  const int64_t retention_ms_;
  const std::unique_ptr<AggregateStore> store_;
  // Windows starting at or below this are deleted (since the task started: a restart scans
  // again from 0 and finds them gone).
  int64_t expired_through_ = -1;
  // The store's stream time (E11): the largest window start put since the task started, -1
  // before the first. (Kafka's store forgets it at a restart too: observedStreamTime.)
  int64_t store_time_ = -1;
  std::optional<int64_t> last_emit_attempt_ms_;
};

__extension__ typedef __int128 Wide;  // end + delay without overflow.

// What suppress keeps in memory (not restored, SPEC E: a new task starts it afresh).
struct SuppressState {
  int64_t stream_time = kNoTimestamp;
  // No buffered window ends before `lowest_end` (std::nullopt: the buffer is empty). An eviction
  // scan starts there and is skipped while that end has not closed, so an update costs no scan
  // of the buffer unless a window closes (the buffer is keyed by end: what closes is a prefix of
  // it). 0 after Init, where the buffer is restored, not known: window starts are >= 0, so ends
  // are too.
  std::optional<int64_t> lowest_end = 0;

  void Buffered(int64_t end) { lowest_end = std::min(lowest_end.value_or(end), end); }
};

// suppress(untilWindowCloses) after an emit-eager aggregation (Kafka's KTableSuppressProcessor
// with the window-end time definition; SPEC E7).
struct SuppressSpec {
  std::string buffer;  // The task's store holding the buffer.
  // Whether a window ending at `end` has closed at the suppress's stream time: end + delay <=
  // stream time, the delay being the grace Kafka's GraphGraceSearchUtil finds for the window kind.
  std::function<bool(int64_t end, int64_t stream_time)> closed;
  // How the buffer keys a window: [end][the windowed key "<start>:<end>:<key>"] (false: time and
  // sliding windows, whose end fixes the start, so after the end the key's bytes order them), or
  // [end][key][start] (true: sessions, which can share an end: Kafka's order, end, then the
  // serialized windowed key, its key bytes before its start).
  bool key_then_start = false;
};

// The buffer of a SuppressSpec, over the task's stores through a processor context.
class SuppressBuffer {
 public:
  explicit SuppressBuffer(SuppressSpec spec) : spec_(std::move(spec)) {}

  const std::string& store() const { return spec_.buffer; }
  void Reset() { state_ = SuppressState{}; }  // Not restored (SPEC E); the buffer is.

  // One update of the aggregation: into the buffer, replacing the window's last (a tombstone —
  // a session merged away — removes it: Kafka buffers it and drops it when it would go out),
  // then out with every buffered update whose window has closed, as Kafka evicts after each.
  Status Update(std::string_view windowed_key, std::optional<std::string_view> value,
                int64_t timestamp, ProcessorContext* context) {
    int64_t start = 0, end = 0;
    std::string_view key;
    if (!ParseWindowedKey(windowed_key, &start, &end, &key)) {
      return Status::Corruption("suppress: \"" + std::string(windowed_key) +
                                "\" is not a window update");
    }
    state_.stream_time = std::max(state_.stream_time, timestamp);
    const std::string at = spec_.key_then_start
                               ? BigEndian(end) + std::string(key) + BigEndian(start)
                               : BigEndian(end) + std::string(windowed_key);
    // Keeps: E7 — suppress buffers each window by its end, every update replacing the last
    if (value) {
      state_.Buffered(end);
      STATECHECK_RETURN_IF_ERROR(
          context->Put(spec_.buffer, at, BigEndian(timestamp) + std::string(*value)));
    } else {
      STATECHECK_RETURN_IF_ERROR(context->Put(spec_.buffer, at, std::nullopt));
    }
    return Evict(context);
  }

 private:
  // "<start>:<end>:<key>" (WindowedKey).
  static bool ParseWindowedKey(std::string_view s, int64_t* start, int64_t* end,
                               std::string_view* key) {
    const char* last = s.data() + s.size();
    auto [p1, e1] = std::from_chars(s.data(), last, *start);
    if (e1 != std::errc() || p1 == last || *p1 != ':') return false;
    auto [p2, e2] = std::from_chars(p1 + 1, last, *end);
    if (e2 != std::errc() || p2 == last || *p2 != ':') return false;
    *key = std::string_view(p2 + 1, static_cast<size_t>(last - p2 - 1));
    return true;
  }

  bool Closed(int64_t end) const { return spec_.closed(end, state_.stream_time); }

  // Every buffered window that has closed, oldest end first.
  Status Evict(ProcessorContext* context) {
    if (!state_.lowest_end || !Closed(*state_.lowest_end)) {
      return Status::Ok();  // Nothing buffered has closed.
    }
    std::unique_ptr<KeyValueIterator> it;
    STATECHECK_RETURN_IF_ERROR(
        context->Range(spec_.buffer, BigEndian(*state_.lowest_end), std::nullopt, &it));
    KeyValue kv;
    std::vector<std::string> evicted;
    std::optional<int64_t> lowest_left;  // The end of the first window still buffered.
    while (it->HasNext()) {
      STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
      if (kv.key.size() < (spec_.key_then_start ? 16u : 8u) || kv.value.size() < 8) {
        return Status::Corruption("suppress: store " + spec_.buffer + " holds a damaged record");
      }
      // Keeps: E7 — suppress emits a window once end + the window kind's delay <= its stream
      // time (without overflow), by end, then key bytes, then start
      const int64_t end = FromBigEndian(kv.key);
      if (!Closed(end)) {
        lowest_left = end;
        break;
      }
      const std::string windowed_key =
          spec_.key_then_start
              ? WindowedKey(
                    Window{FromBigEndian(std::string_view(kv.key).substr(kv.key.size() - 8)), end},
                    std::string_view(kv.key).substr(8, kv.key.size() - 16))
              : kv.key.substr(8);
      STATECHECK_RETURN_IF_ERROR(
          context->Forward(windowed_key, kv.value.substr(8), FromBigEndian(kv.value)));
      evicted.push_back(kv.key);
    }
    it.reset();
    for (const std::string& key : evicted) {
      STATECHECK_RETURN_IF_ERROR(context->Put(spec_.buffer, key, std::nullopt));
    }
    // Only once every closed window is out: a failed step leaves the older, lower bound.
    state_.lowest_end = lowest_left;
    return Status::Ok();
  }

  const SuppressSpec spec_;
  SuppressState state_;
};

// Sends the updates the inner processor forwards into the suppress buffer; the rest through.
class BufferingContext final : public ProcessorContext {
 public:
  BufferingContext(ProcessorContext* inner, SuppressBuffer* buffer)
      : inner_(inner), buffer_(buffer) {}
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
  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override {
    return buffer_->Update(key, value, timestamp, inner_);
  }
  int64_t RecordTimestamp() const override { return inner_->RecordTimestamp(); }
  int64_t WallClockMs() const override { return inner_->WallClockMs(); }
  // The eager aggregation's aggregates may live in an in-memory window store.
  Status WindowPut(std::string_view store, std::string_view key,
                   std::optional<std::string_view> value, int64_t window_start) override {
    return inner_->WindowPut(store, key, value, window_start);
  }
  Status WindowFetch(std::string_view store, std::string_view key, int64_t window_start,
                     std::optional<std::string>* value) override {
    return inner_->WindowFetch(store, key, window_start, value);
  }
  Status WindowFetchAll(std::string_view store, int64_t time_from, int64_t time_to,
                        std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->WindowFetchAll(store, time_from, time_to, it);
  }

 private:
  ProcessorContext* inner_;
  SuppressBuffer* buffer_;
};

class SuppressedAggregation final : public Processor {
 public:
  SuppressedAggregation(std::unique_ptr<Processor> eager, SuppressSpec spec)
      : eager_(std::move(eager)), buffer_(std::move(spec)) {}

  std::vector<std::string> StoreNames() const override {
    std::vector<std::string> names = eager_->StoreNames();
    names.push_back(buffer_.store());
    return names;
  }
  std::vector<WindowStoreSpec> WindowStores() const override { return eager_->WindowStores(); }
  Status Init(std::string_view metadata) override {
    buffer_.Reset();
    return eager_->Init(metadata);
  }
  std::string CommitMetadata() const override { return eager_->CommitMetadata(); }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    BufferingContext buffering(context, &buffer_);
    return eager_->Process(record, &buffering);
  }

 private:
  const std::unique_ptr<Processor> eager_;
  SuppressBuffer buffer_;
};

// The emit strategy suppress goes after: emit-eager.
Status CheckSuppressible(EmitStrategy emit) {
  if (emit == EmitStrategy::kOnWindowUpdate) return Status::Ok();
  return Status::InvalidArgument(
      "suppress(untilWindowCloses) suppresses an emit-eager (ON_WINDOW_UPDATE) aggregation; "
      "this one emits ON_WINDOW_CLOSE already");
}

// suppress(untilWindowCloses) over the emit-eager aggregation `make_eager` makes of `options`,
// in "<store>.suppress", with the window kind's close rule and buffer order (SuppressSpec).
template <class Options>
Status NewSuppressed(const Options& options,
                     Status (*make_eager)(const Options&, std::unique_ptr<Processor>*),
                     std::function<bool(int64_t, int64_t)> closed, bool key_then_start,
                     std::unique_ptr<Processor>* out) {
  out->reset();
  STATECHECK_RETURN_IF_ERROR(CheckSuppressible(options.emit));
  std::unique_ptr<Processor> eager;
  STATECHECK_RETURN_IF_ERROR(make_eager(options, &eager));
  *out = std::make_unique<SuppressedAggregation>(
      std::move(eager),
      SuppressSpec{options.store + ".suppress", std::move(closed), key_then_start});
  return Status::Ok();
}

}  // namespace

Status NewSuppressedTimeWindowedAggregation(const TimeWindowedAggregationOptions& options,
                                            std::unique_ptr<Processor>* out) {
  const TimeWindows windows = options.windows;
  return NewSuppressed(
      options, &NewTimeWindowedAggregation,
      [windows](int64_t end, int64_t stream_time) {
        return windows.Closed(Window{kNoTimestamp, end}, stream_time);
      },
      /*key_then_start=*/false, out);
}

Status NewSuppressedSlidingWindowedAggregation(const SlidingWindowedAggregationOptions& options,
                                               std::unique_ptr<Processor>* out) {
  const int64_t grace = options.windows.grace_ms();
  return NewSuppressed(
      options, &NewSlidingWindowedAggregation,
      [grace](int64_t end, int64_t stream_time) { return Wide(end) + grace <= stream_time; },
      /*key_then_start=*/false, out);
}

Status NewSuppressedSessionWindowedAggregation(const SessionWindowedAggregationOptions& options,
                                               std::unique_ptr<Processor>* out) {
  // Keeps: E7 — a session goes out of suppress's buffer once end + grace + gap <= stream time
  const Wide delay = Wide(options.windows.grace_ms()) +
                     (STATECHECK_PLANTED(SessionSuppressWithoutGap) ? 0 : options.windows.gap_ms());
  return NewSuppressed(
      options, &NewSessionWindowedAggregation,
      [delay](int64_t end, int64_t stream_time) { return Wide(end) + delay <= stream_time; },
      /*key_then_start=*/true, out);
}

Aggregator CountAggregator() {
  Aggregator a;
  a.initializer = [] { return std::string("0"); };
  a.aggregate = [](std::string_view, std::optional<std::string_view>, std::string_view aggregate) {
    int64_t n = 0;
    std::from_chars(aggregate.data(), aggregate.data() + aggregate.size(), n);
    return std::to_string(n + 1);
  };
  return a;
}

Aggregator ReduceAggregator(
    std::function<std::string(std::string_view, std::string_view)> reducer) {
  Aggregator a;
  a.reducer = std::move(reducer);
  return a;
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
  STATECHECK_RETURN_IF_ERROR(internal::CheckAggregator(options.aggregator, "windowed aggregation"));
  const int64_t retention = RetentionOf(options);
  STATECHECK_RETURN_IF_ERROR(options.windows.CheckRetention(options.store, retention));
  std::unique_ptr<AggregateStore> store;
  if (options.store_type == AggregationStoreType::kInMemory) {
    store = std::make_unique<InMemoryAggregates>(
        WindowStoreSpec{options.store, retention, options.windows.size_ms()});
  } else {
    store = std::make_unique<PersistentAggregates>(options.store);
  }
  *out = std::make_unique<TimeWindowedAggregation>(options, retention, std::move(store));
  return Status::Ok();
}

Status FetchTimeWindowAggregates(ReadOnlyKeyValueStore& store,
                                 const TimeWindowedAggregationOptions& options,
                                 const WindowAggregateQuery& query,
                                 std::vector<WindowedAggregate>* out) {
  out->clear();
  if (query.key_from && query.key_to && *query.key_from > *query.key_to) return Status::Ok();
  if (options.store_type != AggregationStoreType::kPersistent) {
    return Status::InvalidArgument("windowed aggregation " + options.store +
                                   ": its aggregates are in an in-memory window store; query it "
                                   "with Task::GetWindowStore");
  }
  // The store's stream time, as this reader sees it: the largest window start it holds.
  std::unique_ptr<KeyValueIterator> last;
  STATECHECK_RETURN_IF_ERROR(store.ReverseAll(&last));
  if (!last->HasNext()) return Status::Ok();
  KeyValue kv;
  STATECHECK_RETURN_IF_ERROR(last->Next(&kv));
  const int64_t store_time = kv.key.size() < 8 ? -1 : FromBigEndian(kv.key);
  if (store_time < 0) return Damaged(options.store, kv.key.size());  // Starts are >= 0.
  last.reset();
  // Keeps: E11 — a query reads from the first start the store's read bound lets through
  const int64_t retention = RetentionOf(options);
  const int64_t from =
      std::max(query.time_from, FirstVisibleStart(options.emit, store_time, retention));
  if (from > query.time_to) return Status::Ok();
  std::unique_ptr<KeyValueIterator> range;
  STATECHECK_RETURN_IF_ERROR(
      store.Range(BigEndian(std::max<int64_t>(from, 0)), std::nullopt, &range));
  while (range->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(range->Next(&kv));
    if (kv.key.size() < 8 || kv.value.size() < 8) return Damaged(options.store, kv.key.size());
    const int64_t start = FromBigEndian(kv.key);
    if (start > query.time_to) break;
    std::string record_key = kv.key.substr(8);
    if ((query.key_from && record_key < *query.key_from) ||
        (query.key_to && record_key > *query.key_to)) {
      continue;
    }
    out->push_back({Window{start, internal::SaturatingAdd(start, options.windows.size_ms())},
                    std::move(record_key), kv.value.substr(8), FromBigEndian(kv.value)});
  }
  range.reset();
  // Keeps: E11 — emit-eager's store orders by segment, then key, then start (Kafka's key-first)
  if (options.emit == EmitStrategy::kOnWindowUpdate) {
    const int64_t segment = KeyFirstSegmentInterval(retention);
    std::stable_sort(out->begin(), out->end(),
                     [segment](const WindowedAggregate& a, const WindowedAggregate& b) {
                       const int64_t sa = a.window.start / segment, sb = b.window.start / segment;
                       return std::tie(sa, a.key) < std::tie(sb, b.key);
                     });
  }
  if (query.backward) std::reverse(out->begin(), out->end());
  return Status::Ok();
}

}  // namespace statecheck
