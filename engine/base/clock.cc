#include "statecheck/clock.h"

#include <chrono>

namespace statecheck {

std::shared_ptr<Clock> SystemClock() {
  class Steady final : public Clock {
   public:
    int64_t NowMs() const override {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    }
  };
  static const auto clock = std::make_shared<Steady>();
  return clock;
}

}  // namespace statecheck
