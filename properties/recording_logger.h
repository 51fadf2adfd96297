// RecordingLogger: a Logger that keeps what the engine logs, for a property step to check.
#ifndef STATECHECK_PROPERTIES_RECORDING_LOGGER_H_
#define STATECHECK_PROPERTIES_RECORDING_LOGGER_H_

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/logger.h"

namespace statecheck::properties {

// Keeps the lines the engine logs, for the step that made them (a window store's W3 and W7
// warnings; a task's errors: U5's damaged legacy file, a close's lost marker).
class RecordingLogger : public Logger {
 public:
  void Log(LogLevel level, std::string_view message) override;
  // The lines since the last call, as "[WARN] text".
  std::vector<std::string> Take();

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_RECORDING_LOGGER_H_
