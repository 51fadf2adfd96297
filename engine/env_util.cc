#include "engine/env_util.h"

namespace statecheck::internal {

rocksdb::Status CreateDirs(rocksdb::Env* env, const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    rocksdb::Status s = env->CreateDirIfMissing(path.substr(0, slash));
    if (!s.ok()) return s;
  }
  return env->CreateDirIfMissing(path);
}

}  // namespace statecheck::internal
