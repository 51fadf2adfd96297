#include "properties/harness_rocksdb.h"

#include <dlfcn.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "faults/fault_fs.h"

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

const RocksDBConfigSetter& HarnessRocksDBConfig() {
  static const auto* setter =
      new RocksDBConfigSetter([](const std::string& /*store*/, rocksdb::Options* options) {
        options->max_file_opening_threads = 1;
      });
  return *setter;
}

}  // namespace statecheck::properties
