// Clock: where the engine gets the time from. The engine is handed a Clock and never reads the
// system time itself, so that a run's timing (commit intervals, SPEC C5) replays from its seed.
#ifndef STATECHECK_CLOCK_H_
#define STATECHECK_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <memory>

namespace statecheck {

// Thread safety: implementations must accept calls from any thread.
class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since some fixed origin; never decreasing.
  virtual int64_t NowMs() const = 0;
};

// Time that moves only when told to: the harness's clock.
class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 0) : now_ms_(start_ms) {}
  int64_t NowMs() const override { return now_ms_.load(std::memory_order_relaxed); }
  // Moves the time forward by `ms` (a negative `ms` is ignored: time never goes back).
  void Advance(int64_t ms) {
    if (ms > 0) now_ms_.fetch_add(ms, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> now_ms_;
};

// The system's monotonic clock.
std::shared_ptr<Clock> SystemClock();

}  // namespace statecheck

#endif  // STATECHECK_CLOCK_H_
