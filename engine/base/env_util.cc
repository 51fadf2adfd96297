#include "engine/base/env_util.h"

#include <memory>

namespace statecheck::internal {

rocksdb::Status CreateDirs(rocksdb::Env* env, const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    rocksdb::Status s = env->CreateDirIfMissing(path.substr(0, slash));
    if (!s.ok()) return s;
  }
  return env->CreateDirIfMissing(path);
}

rocksdb::Status SyncParentDirectory(rocksdb::Env* env, const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::unique_ptr<rocksdb::Directory> directory;
  rocksdb::Status s = env->NewDirectory(dir.empty() ? "/" : dir, &directory);
  if (s.ok()) s = directory->Fsync();
  return s;
}

}  // namespace statecheck::internal
