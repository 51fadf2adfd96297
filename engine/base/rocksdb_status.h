// The one conversion from RocksDB's status to ours. Internal to the engine.
#ifndef STATECHECK_ENGINE_ROCKSDB_STATUS_H_
#define STATECHECK_ENGINE_ROCKSDB_STATUS_H_

#include <rocksdb/status.h>

#include "statecheck/status.h"

namespace statecheck::internal {

Status FromRocksDB(const rocksdb::Status& s);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_ROCKSDB_STATUS_H_
