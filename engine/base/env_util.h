// File-system helpers over a rocksdb::Env, so that every engine file operation goes through
// the Env it is handed (the faults layer wraps it). Internal to the engine.
#ifndef STATECHECK_ENGINE_ENV_UTIL_H_
#define STATECHECK_ENGINE_ENV_UTIL_H_

#include <rocksdb/env.h>

#include <string>

namespace statecheck::internal {

// Creates `path` and any missing parents, each with env->CreateDirIfMissing.
rocksdb::Status CreateDirs(rocksdb::Env* env, const std::string& path);

// Fsyncs the directory holding the file at `path`, making its creates, renames and deletes
// there durable.
rocksdb::Status SyncParentDirectory(rocksdb::Env* env, const std::string& path);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_ENV_UTIL_H_
