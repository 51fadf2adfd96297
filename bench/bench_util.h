// Helpers the benchmark programs share: failing loudly, and a temp directory per run.
#ifndef STATECHECK_BENCH_BENCH_UTIL_H_
#define STATECHECK_BENCH_BENCH_UTIL_H_

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "statecheck/status.h"

namespace statecheck::bench {

// Prints "<program>: what" and aborts: a benchmark whose setup failed measures nothing.
[[noreturn]] inline void Die(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  std::abort();
}

// Dies naming `what` unless `status` is OK (a statecheck::Status or a rocksdb::Status).
template <class S>
void Check(const S& status, const char* what) {
  if (!status.ok()) Die(std::string(what) + ": " + status.ToString());
}

// A fresh directory under the system temp directory ("<prefix>.XXXXXX"), removed with
// everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string path = (std::filesystem::temp_directory_path() / (prefix + ".XXXXXX")).string();
    if (mkdtemp(path.data()) == nullptr) Die("mkdtemp failed for " + path);
    path_ = std::move(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace statecheck::bench

#endif  // STATECHECK_BENCH_BENCH_UTIL_H_
