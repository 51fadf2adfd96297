#include "properties/harness_rocksdb.h"

#include <dlfcn.h>
#include <rocksdb/options.h>

#include <string>

// The process's count of online CPUs, read once (see the header). It interposes glibc's, for
// libstdc++'s std::thread::hardware_concurrency(), which calls it.
extern "C" int get_nprocs() {
  static const int count = [] {
    using GetNprocs = int (*)();
    const auto libc = reinterpret_cast<GetNprocs>(::dlsym(RTLD_NEXT, "get_nprocs"));
    return libc != nullptr ? libc() : 1;
  }();
  return count;
}

namespace statecheck::properties {

const RocksDBConfigSetter& HarnessRocksDBConfig() {
  static const auto* setter =
      new RocksDBConfigSetter([](const std::string& /*store*/, rocksdb::Options* options) {
        options->max_file_opening_threads = 1;
      });
  return *setter;
}

}  // namespace statecheck::properties
