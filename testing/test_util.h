// Helpers for the gtest files of every folder (testing/: test-only, like Abseil's TESTONLY
// targets): nothing in a library includes it.
#ifndef STATECHECK_TESTING_TEST_UTIL_H_
#define STATECHECK_TESTING_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <rocksdb/env.h>

#include <atomic>
#include <memory>
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
#define EXPECT_OK(expr)                          \
  do {                                           \
    const ::statecheck::Status _s = (expr);      \
    EXPECT_TRUE(_s.ok()) << #expr << ": " << _s; \
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

// Wraps the files whose name ends with `suffix`: counts their appends (write calls), fails
// their appends with an I/O error while `fail_append` is set and their fsyncs while `fail_sync`
// is.
class FaultyFileEnv : public rocksdb::EnvWrapper {
 public:
  explicit FaultyFileEnv(std::string suffix)
      : EnvWrapper(rocksdb::Env::Default()), suffix_(std::move(suffix)) {}

  rocksdb::Status ReopenWritableFile(const std::string& fname,
                                     std::unique_ptr<rocksdb::WritableFile>* result,
                                     const rocksdb::EnvOptions& options) override {
    rocksdb::Status s = target()->ReopenWritableFile(fname, result, options);
    if (s.ok() && fname.size() >= suffix_.size() &&
        fname.compare(fname.size() - suffix_.size(), suffix_.size(), suffix_) == 0) {
      *result = std::make_unique<File>(std::move(*result), this);
    }
    return s;
  }

  std::atomic<int> appends{0};
  std::atomic<bool> fail_append{false};
  std::atomic<bool> fail_sync{false};

 private:
  class File : public rocksdb::WritableFileWrapper {
   public:
    File(std::unique_ptr<rocksdb::WritableFile> target, FaultyFileEnv* env)
        : WritableFileWrapper(target.get()), owned_(std::move(target)), env_(env) {}
    rocksdb::Status Append(const rocksdb::Slice& data) override {
      ++env_->appends;
      if (env_->fail_append) return rocksdb::Status::IOError("injected write failure");
      return WritableFileWrapper::Append(data);
    }
    rocksdb::Status Sync() override {
      if (env_->fail_sync) return rocksdb::Status::IOError("injected fsync failure");
      return WritableFileWrapper::Sync();
    }

   private:
    std::unique_ptr<rocksdb::WritableFile> owned_;
    FaultyFileEnv* env_;
  };

  std::string suffix_;
};

}  // namespace statecheck::testing

#endif  // STATECHECK_TESTING_TEST_UTIL_H_
