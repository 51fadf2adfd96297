#include "statecheck/logger.h"

#include <cstdio>
#include <mutex>
#include <string>

namespace statecheck {
namespace {

class StderrLoggerImpl : public Logger {
 public:
  explicit StderrLoggerImpl(LogLevel min_level) : min_level_(min_level) {}
  void Log(LogLevel level, std::string_view message) override {
    if (level < min_level_) return;
    // One fprintf per line keeps lines from different threads whole.
    std::fprintf(stderr, "[%s] %.*s\n", std::string(LogLevelName(level)).c_str(),
                 static_cast<int>(message.size()), message.data());
  }

 private:
  const LogLevel min_level_;
};

class NullLoggerImpl : public Logger {
 public:
  void Log(LogLevel, std::string_view) override {}
};

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
  }
  return "UNKNOWN";
}

std::shared_ptr<Logger> StderrLogger(LogLevel min_level) {
  return std::make_shared<StderrLoggerImpl>(min_level);
}

std::shared_ptr<Logger> NullLogger() { return std::make_shared<NullLoggerImpl>(); }

}  // namespace statecheck
