// The engine's RocksDB store for the kv_store family (property.h), opened in a scratch
// directory on the harness's file system without preallocation (harness_rocksdb.h).
#include <memory>
#include <string>

#include "properties/harness_rocksdb.h"
#include "properties/kv_store/property.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck::properties::kv_store {

Factory EngineFactory() {
  return [](const std::string& directory, IsolationLevel isolation, const Config& config,
            std::unique_ptr<KeyValueStore>* store) {
    RocksDBStoreOptions o;
    o.name = "kv";
    o.directory = directory;
    o.isolation = isolation;
    o.use_wal = config.use_wal;
    o.write_buffer_size = config.write_buffer_size;
    o.env = KvScratchEnv();
    o.logger = NullLogger();
    o.config_setter = HarnessRocksDBConfig();
    std::unique_ptr<RocksDBStore> s;
    STATECHECK_RETURN_IF_ERROR(OpenRocksDBStore(o, &s));
    *store = std::move(s);
    return Status::Ok();
  };
}

}  // namespace statecheck::properties::kv_store
