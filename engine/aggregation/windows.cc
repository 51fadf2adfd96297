#include "statecheck/windows.h"

#include <algorithm>
#include <string>

#include "engine/base/planted.h"

namespace statecheck {
namespace {

// Sums of two int64 bounds never overflow in it (a GCC and Clang extension).
__extension__ typedef __int128 Wide;

std::string N(int64_t v) { return std::to_string(v); }

}  // namespace

std::string_view EmitStrategyName(EmitStrategy s) {
  return s == EmitStrategy::kOnWindowClose ? "ON_WINDOW_CLOSE" : "ON_WINDOW_UPDATE";
}

// TimeWindows ----------------------------------------------------------------------------------

Status TimeWindows::OfSizeAndGrace(int64_t size_ms, int64_t grace_ms, TimeWindows* out) {
  if (size_ms <= 0)
    return Status::InvalidArgument("Window size (sizeMs) must be larger than zero.");
  if (grace_ms < 0) return Status::InvalidArgument("Grace period must not be negative.");
  out->size_ms_ = size_ms;
  out->advance_ms_ = size_ms;
  out->grace_ms_ = grace_ms;
  return Status::Ok();
}

Status TimeWindows::OfSizeWithNoGrace(int64_t size_ms, TimeWindows* out) {
  return OfSizeAndGrace(size_ms, 0, out);
}

Status TimeWindows::AdvanceBy(int64_t advance_ms, TimeWindows* out) const {
  if (advance_ms <= 0 || advance_ms > size_ms_) {
    return Status::InvalidArgument(
        "Window advancement interval should be more than zero and less than window duration "
        "which is " +
        N(size_ms_) + " ms, but given advancement interval is: " + N(advance_ms) + " ms");
  }
  *out = *this;
  out->advance_ms_ = advance_ms;
  return Status::Ok();
}

std::vector<Window> TimeWindows::WindowsFor(int64_t timestamp) const {
  std::vector<Window> out;
  const Wide first = std::max<Wide>(0, Wide(timestamp) - size_ms_ + advance_ms_);
  for (Wide start = first / advance_ms_ * advance_ms_; start <= timestamp; start += advance_ms_) {
    const Wide end = start + size_ms_;
    out.push_back(
        {static_cast<int64_t>(start), static_cast<int64_t>(std::min<Wide>(end, kUnlimitedEnd))});
  }
  return out;
}

bool TimeWindows::Accepts(const Window& window, int64_t stream_time) const {
  return !Closed(window, stream_time);
}

bool TimeWindows::Closed(const Window& window, int64_t stream_time) const {
  if (STATECHECK_PLANTED(TimeWindowCloseOffByOne)) {
    return Wide(window.end) + grace_ms_ < stream_time;
  }
  return Wide(window.end) + grace_ms_ <= stream_time;
}

Status TimeWindows::CheckRetention(std::string_view store, int64_t retention_ms) const {
  if (Wide(size_ms_) + grace_ms_ <= retention_ms) return Status::Ok();
  return Status::InvalidArgument(
      "The retention period of the window store " + std::string(store) +
      " must be no smaller than its window size plus the grace period. Got size=[" + N(size_ms_) +
      "], grace=[" + N(grace_ms_) + "], retention=[" + N(retention_ms) + "]");
}

// SlidingWindows -------------------------------------------------------------------------------

Status SlidingWindows::OfTimeDifferenceAndGrace(int64_t time_difference_ms, int64_t grace_ms,
                                                SlidingWindows* out) {
  if (time_difference_ms < 0) {
    return Status::InvalidArgument("Window time difference must not be negative.");
  }
  if (grace_ms < 0) return Status::InvalidArgument("Window grace period must not be negative.");
  out->time_difference_ms_ = time_difference_ms;
  out->grace_ms_ = grace_ms;
  return Status::Ok();
}

Status SlidingWindows::OfTimeDifferenceWithNoGrace(int64_t time_difference_ms,
                                                   SlidingWindows* out) {
  return OfTimeDifferenceAndGrace(time_difference_ms, 0, out);
}

bool SlidingWindows::Accepts(const Window& window, int64_t stream_time) const {
  return !Closed(window, stream_time);
}

bool SlidingWindows::Closed(const Window& window, int64_t stream_time) const {
  return window.end < Wide(stream_time) - grace_ms_;
}

Status SlidingWindows::CheckRetention(std::string_view store, int64_t retention_ms) const {
  if (Wide(time_difference_ms_) * 2 + grace_ms_ <= retention_ms) return Status::Ok();
  return Status::InvalidArgument(
      "The retention period of the window store " + std::string(store) +
      " must be no smaller than 2 * time difference plus the grace period. Got time "
      "difference=[" +
      N(time_difference_ms_) + "], grace=[" + N(grace_ms_) + "], retention=[" + N(retention_ms) +
      "]");
}

// SessionWindows -------------------------------------------------------------------------------

Status SessionWindows::OfInactivityGapAndGrace(int64_t gap_ms, int64_t grace_ms,
                                               SessionWindows* out) {
  if (gap_ms <= 0) return Status::InvalidArgument("Gap time cannot be zero or negative.");
  if (grace_ms < 0) return Status::InvalidArgument("Grace period must not be negative.");
  out->gap_ms_ = gap_ms;
  out->grace_ms_ = grace_ms;
  return Status::Ok();
}

Status SessionWindows::OfInactivityGapWithNoGrace(int64_t gap_ms, SessionWindows* out) {
  return OfInactivityGapAndGrace(gap_ms, 0, out);
}

bool SessionWindows::Merges(const Window& session, int64_t timestamp) const {
  return Wide(timestamp) >= Wide(session.start) - gap_ms_ &&
         Wide(timestamp) <= Wide(session.end) + gap_ms_;
}

bool SessionWindows::Accepts(const Window& merged, int64_t stream_time) const {
  return !Closed(merged, stream_time);
}

bool SessionWindows::Closed(const Window& session, int64_t stream_time) const {
  if (STATECHECK_PLANTED(SessionCloseOffByOne)) {
    return session.end <= Wide(stream_time) - grace_ms_ - gap_ms_;
  }
  return session.end < Wide(stream_time) - grace_ms_ - gap_ms_;
}

Status SessionWindows::CheckRetention(std::string_view store, int64_t retention_ms) const {
  if (Wide(gap_ms_) + grace_ms_ <= retention_ms) return Status::Ok();
  return Status::InvalidArgument(
      "The retention period of the session store " + std::string(store) +
      " must be no smaller than the session inactivity gap plus the grace period. Got gap=[" +
      N(gap_ms_) + "], grace=[" + N(grace_ms_) + "], retention=[" + N(retention_ms) + "]");
}

// UnlimitedWindows -----------------------------------------------------------------------------

Status UnlimitedWindows::StartOn(int64_t start_ms, UnlimitedWindows* out) {
  if (start_ms < 0) {
    return Status::InvalidArgument("Window start time (startMs) cannot be negative.");
  }
  out->start_ms_ = start_ms;
  return Status::Ok();
}

std::vector<Window> UnlimitedWindows::WindowsFor(int64_t timestamp) const {
  if (timestamp < start_ms_) return {};
  return {{start_ms_, kUnlimitedEnd}};
}

Status UnlimitedWindows::CheckEmitStrategy(EmitStrategy strategy) {
  // Keeps: E8 — ON_WINDOW_CLOSE is rejected for unlimited windows, with Kafka's text
  if (strategy != EmitStrategy::kOnWindowClose) return Status::Ok();
  // Both of Kafka's texts: the DSL's (TimeWindowedKStreamImpl, what a user of windowedBy
  // meets) and the processor's (KStreamWindowAggregate's constructor, which
  // KStreamWindowAggregateTest.showThrowIfEmitFinalUsedWithUnlimitedWindow asserts).
  return Status::InvalidArgument(std::string(kEmitFinalUnlimitedDsl) + ": " +
                                 kEmitFinalUnlimitedProcessor +
                                 " (emit ON_WINDOW_UPDATE, or use time or sliding windows)");
}

}  // namespace statecheck
