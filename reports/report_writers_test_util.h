// Shared by report_writers_test's files (test-only): the sample reports the writers are tested
// on (built in report_writers_test_samples.cc) and the helpers for running the external tools.
#ifndef STATECHECK_REPORTS_REPORT_WRITERS_TEST_UTIL_H_
#define STATECHECK_REPORTS_REPORT_WRITERS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "reports/rule_catalogue.h"
#include "reports/run_report.h"

namespace statecheck::reports::writers_test {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Samples.

// A report with its verdicts. The rules the verdicts point to live in `rules` (or in the
// built-in catalogue).
struct Sample {
  std::vector<std::unique_ptr<Rule>> rules;
  RunReport report;
  std::vector<RuleVerdict> verdicts;
};

// The samples, each described where it is built (report_writers_test_samples.cc).
Sample NastySample();
Sample RealisticSample();
Sample RegressionSample();
Sample SelftestSample();

// ---------------------------------------------------------------------------------------------
// Helpers for running the external tools.

inline size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// A fresh directory for one test: under gtest's temp dir, named for the test and the process so
// that parallel ctest runs do not collide. Removed when the test passes; kept (for a look at
// what the tools were given and said) when it fails.
class TestDir {
 public:
  TestDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ =
        fs::path(::testing::TempDir()) / ("statecheck-" + std::string(info->test_suite_name()) +
                                          "-" + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TestDir() {
    std::error_code ec;
    if (!::testing::Test::HasFailure()) fs::remove_all(path_, ec);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;

  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// `s` in single quotes for sh.
inline std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command` with sh; returns its exit status (-1 if it could not be run).
inline int RunShell(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

inline bool HaveCommand(const std::string& name) {
  return RunShell("command -v " + Quote(name) + " >/dev/null 2>&1") == 0;
}

inline const std::string kSourceDir = STATECHECK_SOURCE_DIR;

}  // namespace statecheck::reports::writers_test

#endif  // STATECHECK_REPORTS_REPORT_WRITERS_TEST_UTIL_H_
