// Helpers for the engine's and tools' gtest files. Test-only: nothing in a library includes it.
#ifndef STATECHECK_ENGINE_TEST_UTIL_H_
#define STATECHECK_ENGINE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "statecheck/logger.h"
#include "statecheck/status.h"

#define ASSERT_OK(expr)                          \
  do {                                           \
    const ::statecheck::Status _s = (expr);      \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s; \
  } while (0)

namespace statecheck::testing {

// Keeps every line logged to it, from any thread.
class CapturingLogger : public Logger {
 public:
  void Log(LogLevel level, std::string_view message) override {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.emplace_back(level, std::string(message));
  }
  // The messages, in order.
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& [level, message] : lines_) out.push_back(message);
    return out;
  }
  // Every line as "LEVEL message\n", for substring checks.
  std::string All() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const auto& [level, message] : lines_) {
      out += std::string(LogLevelName(level)) + " " + message + "\n";
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

}  // namespace statecheck::testing

#endif  // STATECHECK_ENGINE_TEST_UTIL_H_
