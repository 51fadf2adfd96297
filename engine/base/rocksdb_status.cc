#include "engine/base/rocksdb_status.h"

namespace statecheck::internal {

Status FromRocksDB(const rocksdb::Status& s) {
  if (s.ok()) return Status::Ok();
  const std::string msg = "rocksdb: " + s.ToString();
  switch (s.code()) {
    case rocksdb::Status::kNotFound:
      return Status::NotFound(msg);
    case rocksdb::Status::kCorruption:
      return Status::Corruption(msg);
    case rocksdb::Status::kNotSupported:
      return Status::Unimplemented(msg);
    case rocksdb::Status::kInvalidArgument:
      return Status::InvalidArgument(msg);
    case rocksdb::Status::kIOError:
      return Status::IOError(msg);
    case rocksdb::Status::kAborted:
    case rocksdb::Status::kBusy:
    case rocksdb::Status::kTryAgain:
    case rocksdb::Status::kTimedOut:
      return Status::Aborted(msg);
    case rocksdb::Status::kIncomplete:
    case rocksdb::Status::kShutdownInProgress:
    case rocksdb::Status::kColumnFamilyDropped:
      return Status::FailedPrecondition(msg);
    default:
      return Status::IOError(msg);
  }
}

}  // namespace statecheck::internal
