// The RocksDB settings the harness's stores open with: a config setter (RocksDBConfigSetter,
// Kafka Streams' rocksdb.config.setter) that changes how much an open costs and nothing a rule
// is about. The engine keeps RocksDB's defaults for users; this is the harness's choice:
//   * max_file_opening_threads = 1. RocksDB's 16 starts 15 threads at every recovery to load the
//     table handlers in parallel, and joins them; the harness's stores have a handful of tables,
//     and a case opens its stores many times. It changes which thread reads the table files'
//     footers at an open, not what is read or what an error does.
// Measured on the task family (`task_property_test --gtest_filter='Matrix/*'`, Release, 2 cores,
// with the engine's ERROR info-log level): 82.6 s → 48.0–53.9 s of wall time, 33.3 s → 4.4–7.2 s
// of system time.
//
// And one process-wide choice, made by linking this file: the count of online CPUs is read once.
// RocksDB 7.8 asks std::thread::hardware_concurrency() at every new memtable (its arena's
// per-core shards), and glibc 2.36 answers by opening and reading /sys/devices/system/cpu/online
// each time: about 44 times per task case, 5% of a campaign worker's CPU in `perf` (openat on
// sysfs). The harness's processes answer from the first reading (get_nprocs, interposed). It
// changes how many shards an arena has only if CPUs come online or go offline during a run.
// Measured with `statecheck run --family task --budget 20 --seed 7`, alternated: 1,915-2,105
// cases without, 2,225-2,275 with.
#ifndef STATECHECK_PROPERTIES_HARNESS_ROCKSDB_H_
#define STATECHECK_PROPERTIES_HARNESS_ROCKSDB_H_

#include <rocksdb/env.h>

#include <string>

#include "statecheck/rocksdb_store.h"

namespace statecheck::properties {

// The setter above; set it as RocksDBStoreOptions::config_setter or
// TaskOptions::store_config_setter of every store the harness opens.
const RocksDBConfigSetter& HarnessRocksDBConfig();

// A fresh path (not created) for one case's key-value store: under $STATECHECK_SCRATCH_DIR if
// set, else under /dev/shm when it is a writable directory, else under the system's temp
// directory. The key-value families check the stores' logic, crashes being process crashes
// (Abandon), not power losses: on a RAM file system a case costs no fsync, which on a loaded disk
// is ten times the rest of the case, and a short campaign gets ten times the cases.
std::string KvScratchDirectory(const std::string& tag);
// The file system those directories are opened on: the process's default one, without RocksDB's
// file preallocation or OPTIONS files (harness_rocksdb.cc says why). Lives as long as the process.
rocksdb::Env* KvScratchEnv();

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_HARNESS_ROCKSDB_H_
