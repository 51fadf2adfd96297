#include "statecheck/session_aggregation.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <vector>

#include "engine/aggregation/aggregation_internal.h"
#include "engine/base/planted.h"

namespace statecheck {
namespace {

using internal::BigEndian;
using internal::FromBigEndian;
using internal::SaturatingAdd;
using internal::SaturatingSub;

constexpr char kTimeIndex = 'T';
constexpr char kKeyIndex = 'K';
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// 'T'[end][key]: sessions by end, then key bytes (E4's order).
// Keeps: E4 — the time index orders sessions by end, then key bytes
std::string TimeKey(int64_t end, std::string_view key) {
  return kTimeIndex + BigEndian(end) + std::string(key);
}

// 'K'[key length, 4 bytes BE][key]: the prefix of all of a key's key-index records. The length
// keeps them contiguous: without it, key "a"'s range would take in the records of key "a\0...".
std::string KeyPrefix(std::string_view key) {
  const uint32_t n = static_cast<uint32_t>(key.size());
  std::string out(1, kKeyIndex);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((n >> shift) & 0xff));
  return out + std::string(key);
}

class SessionWindowedAggregation final : public internal::EmitFinalProcessor {
 public:
  explicit SessionWindowedAggregation(const SessionWindowedAggregationOptions& options)
      : EmitFinalProcessor(options.store, options.stats, options.logger), options_(options) {}

  std::vector<std::string> StoreNames() const override { return {options_.store}; }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    if (internal::DropUnkeyedOrUntimed(record, stats_.get(), logger_.get())) return Status::Ok();
    if (internal::Skips(options_.aggregator, record)) return Status::Ok();
    const int64_t ts = record.timestamp;
    const SessionWindows& windows = options_.windows;
    stream_time_ = std::max(stream_time_, ts);

    std::vector<Window> merged;
    STATECHECK_RETURN_IF_ERROR(FindSessions(record.key, ts, context, &merged));
    Window window{ts, ts};
    // Kafka's merge: the initializer's aggregate merged with each session's, or under reduce the
    // sessions' aggregates reduced.
    const Aggregator& agg = options_.aggregator;
    std::optional<std::string> aggregate;
    if (!agg.reducer) aggregate = agg.initializer();
    for (const Window& s : merged) {
      std::optional<std::string> stored;
      STATECHECK_RETURN_IF_ERROR(context->Get(options_.store, TimeKey(s.end, record.key), &stored));
      if (!stored || stored->size() < 8 || FromBigEndian(*stored) != s.start) {
        return Status::Corruption("session aggregation: store " + options_.store +
                                  ": the key index holds session [" + std::to_string(s.start) +
                                  "," + std::to_string(s.end) +
                                  "] of a key whose time-index record is missing or differs");
      }
      const std::string_view theirs = std::string_view(*stored).substr(8);
      if (!aggregate) {
        aggregate = std::string(theirs);
      } else {
        aggregate = agg.reducer ? agg.reducer(*aggregate, theirs)
                                : options_.merger(record.key, *aggregate, theirs);
      }
      window.start = std::min(window.start, s.start);
      window.end = std::max(window.end, s.end);
    }

    // Keeps: E1 — dropped iff the merged session's end < streamTime - grace - gap; counted
    if (!windows.Accepts(window, stream_time_)) {
      ++stats_->dropped_records;
      logger_->Log(LogLevel::kWarn,
                   "Skipping record for expired window. offset=[" + std::to_string(record.offset) +
                       "] timestamp=[" + std::to_string(ts) + "] window=[" +
                       std::to_string(window.start) + "," + std::to_string(window.end) +
                       "] expiration=[" + std::to_string(CloseTime()) + "] streamTime=[" +
                       std::to_string(stream_time_) + "]");
    } else {
      const bool eager = options_.emit == EmitStrategy::kOnWindowUpdate;
      // Kafka removes (and tombstones) the merged sessions only when the merge made a session
      // other than [t, t]; a lone [t, t] found again is simply overwritten by the put below.
      if (!(window == Window{ts, ts})) {
        for (const Window& s : merged) {
          if (!STATECHECK_PLANTED(SessionMergeKeepsMergedSessions)) {
            STATECHECK_RETURN_IF_ERROR(Remove(record.key, s, context));
          }
          if (eager) {
            STATECHECK_RETURN_IF_ERROR(
                context->Forward(WindowedKey(s, record.key), std::nullopt, s.end));
            ++stats_->emitted;
          }
        }
      }
      const std::string folded = internal::Fold(
          agg, record, aggregate ? std::optional<std::string_view>(*aggregate) : std::nullopt);
      STATECHECK_RETURN_IF_ERROR(Store(record.key, window, folded, context));
      // Keeps: E2 — eager: one output for the merged session, timestamped with its end
      if (eager) {
        STATECHECK_RETURN_IF_ERROR(
            context->Forward(WindowedKey(window, record.key), folded, window.end));
        ++stats_->emitted;
      }
    }
    if (options_.emit == EmitStrategy::kOnWindowClose) return MaybeEmitFinal(context);
    return Status::Ok();
  }

 private:
  // Sessions close when end < this (E3).
  int64_t CloseTime() const {
    return SaturatingSub(SaturatingSub(stream_time_, options_.windows.grace_ms()),
                         options_.windows.gap_ms());
  }

  // `key`'s sessions with end >= ts - gap and start <= ts + gap, by ascending end, from the key
  // index (their aggregates are in the time index).
  Status FindSessions(std::string_view key, int64_t ts, ProcessorContext* context,
                      std::vector<Window>* out) {
    const int64_t gap = options_.windows.gap_ms();
    const int64_t latest_start = SaturatingAdd(ts, gap);
    const std::string prefix = KeyPrefix(key);
    std::unique_ptr<KeyValueIterator> it;
    STATECHECK_RETURN_IF_ERROR(context->Range(options_.store,
                                              prefix + BigEndian(std::max<int64_t>(0, ts - gap)),
                                              prefix + BigEndian(kMax), &it));
    KeyValue kv;
    while (it->HasNext()) {
      STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
      if (kv.key.size() != prefix.size() + 8 || kv.value.size() != 8) return Damaged(kv.key);
      // The key's sessions are disjoint, so by ascending end they are by ascending start too:
      // once one starts after ts + gap, all the rest do.
      const Window w{FromBigEndian(kv.value),
                     FromBigEndian(std::string_view(kv.key).substr(prefix.size()))};
      if (w.start > latest_start) break;
      out->push_back(w);
    }
    return Status::Ok();
  }

  // Writes both records of `key`'s session `window`.
  Status Store(std::string_view key, const Window& window, std::string_view aggregate,
               ProcessorContext* context) {
    STATECHECK_RETURN_IF_ERROR(context->Put(options_.store, TimeKey(window.end, key),
                                            BigEndian(window.start) + std::string(aggregate)));
    return context->Put(options_.store, KeyPrefix(key) + BigEndian(window.end),
                        BigEndian(window.start));
  }

  // Deletes both records of `key`'s session `window`.
  Status Remove(std::string_view key, const Window& window, ProcessorContext* context) {
    STATECHECK_RETURN_IF_ERROR(
        context->Put(options_.store, TimeKey(window.end, key), std::nullopt));
    return context->Put(options_.store, KeyPrefix(key) + BigEndian(window.end), std::nullopt);
  }

  // E3–E5, E9: emits every session that closed since the last emission, if it is time.
  Status MaybeEmitFinal(ProcessorContext* context) {
    const int64_t close = CloseTime();
    // Keeps: E5 — emit only when close time passed the last emitted, at most once per emit interval
    if (close <= last_emit_close_) return Status::Ok();
    const int64_t now = context->WallClockMs();
    if (last_emit_attempt_ms_ && now - *last_emit_attempt_ms_ < options_.emit_interval_ms) {
      return Status::Ok();
    }
    last_emit_attempt_ms_ = now;
    // Closed since the last emission: end in [last close, close) — a session ending at the last
    // close time was still open then (closed means end < close time). Ends are >= 0.
    // Keeps: E3 — each closed session once: end in [last emitted close, close time)
    const int64_t first = std::max<int64_t>(0, STATECHECK_PLANTED(SessionEmitFinalSkipsBoundary)
                                                   ? last_emit_close_ + 1
                                                   : last_emit_close_);
    if (close - 1 >= first) {
      std::unique_ptr<KeyValueIterator> it;
      // Keeps: E9 — one range lookup on the time index, over the closed sessions only
      STATECHECK_RETURN_IF_ERROR(
          context->Range(options_.store, TimeKey(first, ""), TimeKey(close, ""), &it));
      KeyValue kv;
      while (it->HasNext()) {
        STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
        ++stats_->windows_read;
        if (kv.key.size() < 9 || kv.key[0] != kTimeIndex || kv.value.size() < 8) {
          return Damaged(kv.key);
        }
        const int64_t end = FromBigEndian(std::string_view(kv.key).substr(1));
        if (end >= close) break;
        const Window window{FromBigEndian(kv.value), end};
        STATECHECK_RETURN_IF_ERROR(
            context->Forward(WindowedKey(window, kv.key.substr(9)), kv.value.substr(8), end));
        ++stats_->emitted;
      }
    }
    last_emit_close_ = close;
    return Status::Ok();
  }

  Status Damaged(std::string_view key) const {
    return Status::Corruption("session aggregation: store " + options_.store +
                              " holds a record that is not a session (key of " +
                              std::to_string(key.size()) + " bytes)");
  }

  const SessionWindowedAggregationOptions options_;
  std::optional<int64_t> last_emit_attempt_ms_;
};

}  // namespace

SessionMerger CountMerger() {
  return [](std::string_view, std::string_view a, std::string_view b) {
    int64_t x = 0, y = 0;
    std::from_chars(a.data(), a.data() + a.size(), x);
    std::from_chars(b.data(), b.data() + b.size(), y);
    return std::to_string(x + y);
  };
}

Status NewSessionWindowedAggregation(const SessionWindowedAggregationOptions& options,
                                     std::unique_ptr<Processor>* out) {
  out->reset();
  if (options.store.empty()) {
    return Status::InvalidArgument("session aggregation option store cannot be empty");
  }
  if (options.emit_interval_ms < 0) {
    return Status::InvalidArgument(
        "session aggregation option emit_interval_ms must be >= 0, got " +
        std::to_string(options.emit_interval_ms));
  }
  STATECHECK_RETURN_IF_ERROR(internal::CheckAggregator(options.aggregator, "session aggregation"));
  if (!options.merger && !options.aggregator.reducer) {
    return Status::InvalidArgument(
        "session aggregation option merger cannot be empty: merging sessions merges their "
        "aggregates");
  }
  const int64_t retention = options.retention_ms >= 0 ? options.retention_ms
                                                      : SaturatingAdd(options.windows.gap_ms(),
                                                                      options.windows.grace_ms());
  STATECHECK_RETURN_IF_ERROR(options.windows.CheckRetention(options.store, retention));
  *out = std::make_unique<SessionWindowedAggregation>(options);
  return Status::Ok();
}

}  // namespace statecheck
