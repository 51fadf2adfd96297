// Helpers the benchmark programs share: failing loudly, a temp directory per run, the records.
#ifndef STATECHECK_BENCH_BENCH_UTIL_H_
#define STATECHECK_BENCH_BENCH_UTIL_H_

#include <stdlib.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

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

// The benchmarks' records: key i is "key-%012d" (16 bytes) for i in [0, key_space); value n is
// one of 1,024 strings of 100 random letters, drawn from `rng` (which the caller goes on using,
// so the draw order is part of the workload).
class KeysAndValues {
 public:
  static constexpr int64_t kKeySize = 16;
  static constexpr int64_t kValueSize = 100;
  static constexpr int64_t kNumValues = 1'024;

  KeysAndValues(int64_t key_space, std::mt19937_64& rng) {
    keys_.resize(key_space * kKeySize);
    char buf[32];
    for (int64_t i = 0; i < key_space; ++i) {
      const int n = std::snprintf(buf, sizeof(buf), "key-%012" PRId64, i);
      if (n != kKeySize) Die("a key is not 16 bytes");
      std::memcpy(keys_.data() + i * kKeySize, buf, kKeySize);
    }
    values_.resize(kNumValues * kValueSize);
    for (char& c : values_) c = static_cast<char>('a' + rng() % 26);
  }

  std::string_view Key(int64_t i) const {
    return {keys_.data() + i * kKeySize, static_cast<size_t>(kKeySize)};
  }
  std::string_view Value(int64_t n) const {
    return {values_.data() + (n % kNumValues) * kValueSize, static_cast<size_t>(kValueSize)};
  }

 private:
  std::vector<char> keys_;
  std::vector<char> values_;
};

}  // namespace statecheck::bench

#endif  // STATECHECK_BENCH_BENCH_UTIL_H_
