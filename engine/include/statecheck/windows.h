// Window definitions for windowed aggregations (SPEC E; Kafka Streams' TimeWindows,
// SlidingWindows, SessionWindows and UnlimitedWindows), validated as Kafka validates them, with
// Kafka's error texts, and the rules that say when a window takes a record (E1) and when it
// closes (E3).
//
//   time windows      [start, end), end = start + size, aligned to the epoch: tumbling when
//                     advance == size, hopping when advance < size.
//   sliding windows   [start, start + D], both ends included (D: the time difference).
//   session windows   [first, last] record timestamps, both included, merged when within the
//                     inactivity gap G.
//   unlimited windows [start, no end): never close.
//
// Stream time is the largest record timestamp the processor has seen. Every method is pure;
// the objects are values.
#ifndef STATECHECK_WINDOWS_H_
#define STATECHECK_WINDOWS_H_

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "statecheck/status.h"

namespace statecheck {

// KIP-825's emit strategies.
enum class EmitStrategy {
  kOnWindowUpdate,  // Emit eagerly: one output per window a record updates (E2). Kafka's default.
  kOnWindowClose,   // Emit final: one output per window, once it closes (E3).
};
std::string_view EmitStrategyName(EmitStrategy s);  // "ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE".

// Kafka's two refusals of ON_WINDOW_CLOSE for unlimited windows (E8): the DSL's
// (TimeWindowedKStreamImpl) and the processor's (KStreamWindowAggregate). This engine's
// aggregation is both the user's entry point and the processor, so its message holds both.
inline constexpr char kEmitFinalUnlimitedDsl[] =
    "ON_WINDOW_CLOSE emit strategy cannot be used for UnlimitedWindows";
inline constexpr char kEmitFinalUnlimitedProcessor[] =
    "ON_WINDOW_CLOSE strategy is only supported for TimeWindows and SlidingWindows for "
    "TimeWindowedKStream";

// A window's bounds. For time windows `end` is exclusive; for sliding and session windows it is
// inclusive; for unlimited windows it is kUnlimitedEnd.
struct Window {
  int64_t start = 0;
  int64_t end = 0;
  friend bool operator==(const Window&, const Window&) = default;
};
inline constexpr int64_t kUnlimitedEnd = std::numeric_limits<int64_t>::max();

class TimeWindows {
 public:
  // Tumbling windows of `size_ms` with a grace period. InvalidArgument "Window size (sizeMs)
  // must be larger than zero." or "Grace period must not be negative.".
  static Status OfSizeAndGrace(int64_t size_ms, int64_t grace_ms, TimeWindows* out);
  static Status OfSizeWithNoGrace(int64_t size_ms, TimeWindows* out);
  // These windows hopping by `advance_ms`. InvalidArgument "Window advancement interval should
  // be more than zero and less than window duration which is <size> ms, but given advancement
  // interval is: <advance> ms" unless 0 < advance <= size.
  Status AdvanceBy(int64_t advance_ms, TimeWindows* out) const;

  int64_t size_ms() const { return size_ms_; }
  int64_t advance_ms() const { return advance_ms_; }
  int64_t grace_ms() const { return grace_ms_; }

  // The windows holding `timestamp`, by ascending start (Kafka's windowsFor; none start below
  // 0).
  std::vector<Window> WindowsFor(int64_t timestamp) const;
  // E1: whether `window` still takes records at `stream_time`: end > stream time - grace.
  bool Accepts(const Window& window, int64_t stream_time) const;
  // E3: whether `window` has closed at `stream_time`: end + grace <= stream time.
  bool Closed(const Window& window, int64_t stream_time) const;
  // OK when a window store keeping `retention_ms` can hold these windows; else InvalidArgument
  // "The retention period of the window store <store> must be no smaller than its window size
  // plus the grace period. Got size=[..], grace=[..], retention=[..]".
  Status CheckRetention(std::string_view store, int64_t retention_ms) const;

  friend bool operator==(const TimeWindows&, const TimeWindows&) = default;

 private:
  int64_t size_ms_ = 1;
  int64_t advance_ms_ = 1;
  int64_t grace_ms_ = 0;
};

class SlidingWindows {
 public:
  // Windows of records at most `time_difference_ms` apart. InvalidArgument "Window time
  // difference must not be negative." or "Window grace period must not be negative.".
  static Status OfTimeDifferenceAndGrace(int64_t time_difference_ms, int64_t grace_ms,
                                         SlidingWindows* out);
  static Status OfTimeDifferenceWithNoGrace(int64_t time_difference_ms, SlidingWindows* out);

  int64_t time_difference_ms() const { return time_difference_ms_; }
  int64_t grace_ms() const { return grace_ms_; }

  // E1: end >= stream time - grace.
  bool Accepts(const Window& window, int64_t stream_time) const;
  // E3: end < stream time - grace.
  bool Closed(const Window& window, int64_t stream_time) const;
  // "... must be no smaller than 2 * time difference plus the grace period. Got time
  // difference=[..], grace=[..], retention=[..]".
  Status CheckRetention(std::string_view store, int64_t retention_ms) const;

  friend bool operator==(const SlidingWindows&, const SlidingWindows&) = default;

 private:
  int64_t time_difference_ms_ = 0;
  int64_t grace_ms_ = 0;
};

class SessionWindows {
 public:
  // Sessions closed by `gap_ms` of inactivity. InvalidArgument "Gap time cannot be zero or
  // negative." or "Grace period must not be negative.".
  static Status OfInactivityGapAndGrace(int64_t gap_ms, int64_t grace_ms, SessionWindows* out);
  static Status OfInactivityGapWithNoGrace(int64_t gap_ms, SessionWindows* out);

  int64_t gap_ms() const { return gap_ms_; }
  int64_t grace_ms() const { return grace_ms_; }

  // Whether a record at `timestamp` belongs to (merges into) `session`: within the gap of it.
  bool Merges(const Window& session, int64_t timestamp) const;
  // E1: a record whose merged session is `merged` is dropped iff its end < stream time - grace
  // - gap; this says the opposite.
  bool Accepts(const Window& merged, int64_t stream_time) const;
  // E3: end < stream time - grace - gap.
  bool Closed(const Window& session, int64_t stream_time) const;
  // "The retention period of the session store <store> must be no smaller than the session
  // inactivity gap plus the grace period. Got gap=[..], grace=[..], retention=[..]".
  Status CheckRetention(std::string_view store, int64_t retention_ms) const;

  friend bool operator==(const SessionWindows&, const SessionWindows&) = default;

 private:
  int64_t gap_ms_ = 1;
  int64_t grace_ms_ = 0;
};

class UnlimitedWindows {
 public:
  // One window from `start_ms` on. InvalidArgument "Window start time (startMs) cannot be
  // negative.".
  static Status StartOn(int64_t start_ms, UnlimitedWindows* out);
  static UnlimitedWindows Of() { return UnlimitedWindows(); }

  int64_t start_ms() const { return start_ms_; }
  // The window holding `timestamp`, if any (none before the start).
  std::vector<Window> WindowsFor(int64_t timestamp) const;
  // E8: unlimited windows never close, so they cannot emit final. InvalidArgument
  // InvalidArgument for kOnWindowClose, its message holding both of Kafka's texts (below).
  static Status CheckEmitStrategy(EmitStrategy strategy);

  friend bool operator==(const UnlimitedWindows&, const UnlimitedWindows&) = default;

 private:
  int64_t start_ms_ = 0;
};

}  // namespace statecheck

#endif  // STATECHECK_WINDOWS_H_
