#include "properties/recording_logger.h"

#include <utility>

namespace statecheck::properties {

void RecordingLogger::Log(LogLevel level, std::string_view message) {
  std::lock_guard<std::mutex> lock(mu_);
  // Appended piece by piece: "[" + std::string(...) trips gcc 12's -Wrestrict (a false
  // positive, GCC bug 105329) at -O3.
  std::string line = "[";
  line += LogLevelName(level);
  line += "] ";
  line += message;
  lines_.push_back(std::move(line));
}

std::vector<std::string> RecordingLogger::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(lines_, {});
}

}  // namespace statecheck::properties
