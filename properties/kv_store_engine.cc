// The engine's RocksDB store for the key-value properties (kv_store_property.h), opened in a
// scratch directory on a file system without preallocation.
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "faults/fault_fs.h"
#include "properties/harness_rocksdb.h"
#include "properties/kv_store_property.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck::properties {
namespace {

// The default file system without preallocation: RocksDB fallocates each new WAL file to 1.1 x
// the write buffer (70 MB by default), which is free on a disk's file system and costs a page
// zeroing on a RAM one, ten times a case. Preallocation changes no file's contents. Nor RocksDB's
// OPTIONS files (harness-only, as in the task family: faults/fault_fs.h): these cases arm no
// file-system fault, and RocksDB 7.8 writing the file and parsing it back at every open was a
// third of a case (`statecheck run --family kv_store --budget 20 --seed 7`: 9,560 and 9,600
// cases with them, 13,360 and 14,040 without).
class NoPreallocationFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  static const char* kClassName() { return "NoPreallocationFileSystem"; }
  const char* Name() const override { return kClassName(); }

  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    if (faults::IsRocksDBOptionsFile(fname)) return faults::RocksDBOptionsFileSkipped(fname);
    return target()->NewWritableFile(fname, Without(options), result, dbg);
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname,
                                       const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override {
    return target()->ReopenWritableFile(fname, Without(options), result, dbg);
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override {
    return target()->ReuseWritableFile(fname, old_fname, Without(options), result, dbg);
  }

 private:
  static rocksdb::FileOptions Without(const rocksdb::FileOptions& options) {
    rocksdb::FileOptions o(options);
    o.allow_fallocate = false;
    return o;
  }
};

}  // namespace

// Lives as long as the process: stores may be open until its end.
rocksdb::Env* KvScratchEnv() {
  static rocksdb::Env* const env =
      rocksdb::NewCompositeEnv(
          std::make_shared<NoPreallocationFileSystem>(rocksdb::FileSystem::Default()))
          .release();
  return env;
}

std::string KvScratchDirectory(const std::string& tag) {
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path root;
  if (const char* dir = std::getenv("STATECHECK_SCRATCH_DIR"); dir && *dir) {
    root = dir;
  } else if (std::error_code ec; std::filesystem::is_directory("/dev/shm", ec) &&
                                 ::access("/dev/shm", W_OK | X_OK) == 0) {
    root = "/dev/shm";
  } else {
    root = std::filesystem::temp_directory_path();
  }
  return (root / ("statecheck-" + tag + "-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter++)))
      .string();
}

KvStoreFactory EngineKvStoreFactory() {
  return [](const std::string& directory, IsolationLevel isolation, const KvStoreConfig& config,
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

}  // namespace statecheck::properties
