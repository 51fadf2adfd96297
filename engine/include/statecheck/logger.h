// Logger: where the engine says what it did that a user may want to know (a dropped record, an
// empty result for a reversed range). The engine is handed a Logger; it never picks one itself.
#ifndef STATECHECK_LOGGER_H_
#define STATECHECK_LOGGER_H_

#include <memory>
#include <string_view>

namespace statecheck {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

std::string_view LogLevelName(LogLevel level);

// Thread safety: implementations must accept calls from any thread.
class Logger {
 public:
  virtual ~Logger() = default;
  virtual void Log(LogLevel level, std::string_view message) = 0;
};

// Writes "[WARN] message" lines to stderr for `min_level` and above.
std::shared_ptr<Logger> StderrLogger(LogLevel min_level = LogLevel::kWarn);
// Discards everything.
std::shared_ptr<Logger> NullLogger();

}  // namespace statecheck

#endif  // STATECHECK_LOGGER_H_
