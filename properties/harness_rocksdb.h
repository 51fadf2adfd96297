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
#ifndef STATECHECK_PROPERTIES_HARNESS_ROCKSDB_H_
#define STATECHECK_PROPERTIES_HARNESS_ROCKSDB_H_

#include "statecheck/rocksdb_store.h"

namespace statecheck::properties {

// The setter above; set it as RocksDBStoreOptions::config_setter or
// TaskOptions::store_config_setter of every store the harness opens.
const RocksDBConfigSetter& HarnessRocksDBConfig();

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_HARNESS_ROCKSDB_H_
