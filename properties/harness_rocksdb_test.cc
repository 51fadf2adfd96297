// The harness's RocksDB settings (harness_rocksdb.h): what its config setter sets, and the count
// of online CPUs read once per process.
#include "properties/harness_rocksdb.h"

#include <gtest/gtest.h>
#include <rocksdb/options.h>

#include <fstream>
#include <string>
#include <thread>

namespace statecheck::properties {
namespace {

TEST(HarnessRocksDB, TheConfigSetterOpensTablesOnOneThread) {
  rocksdb::Options options;
  HarnessRocksDBConfig()("store", &options);
  EXPECT_EQ(options.max_file_opening_threads, 1);
}

// The read syscalls this process has made (/proc/self/io's syscr).
long ReadSyscalls() {
  std::ifstream io("/proc/self/io");
  for (std::string key; io >> key;) {
    long value = 0;
    io >> value;
    if (key == "syscr:") return value;
  }
  return -1;
}

// glibc 2.36 reads /sys/devices/system/cpu/online at each call; the harness's processes, once.
TEST(HarnessRocksDB, TheCountOfOnlineCpusIsReadOnce) {
  const unsigned first = std::thread::hardware_concurrency();
  EXPECT_GE(first, 1u);
  const long before = ReadSyscalls();
  if (before < 0) GTEST_SKIP() << "no /proc/self/io here";
  for (int i = 0; i < 100; ++i) EXPECT_EQ(std::thread::hardware_concurrency(), first);
  // The reads of /proc/self/io itself are the only ones.
  EXPECT_LT(ReadSyscalls() - before, 10) << "std::thread::hardware_concurrency() read a file";
}

}  // namespace
}  // namespace statecheck::properties
