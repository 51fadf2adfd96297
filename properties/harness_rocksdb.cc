#include "properties/harness_rocksdb.h"

#include <rocksdb/options.h>

#include <string>

namespace statecheck::properties {

const RocksDBConfigSetter& HarnessRocksDBConfig() {
  static const auto* setter =
      new RocksDBConfigSetter([](const std::string& /*store*/, rocksdb::Options* options) {
        options->max_file_opening_threads = 1;
      });
  return *setter;
}

}  // namespace statecheck::properties
