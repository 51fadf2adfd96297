#include "statecheck/status.h"

#include <gtest/gtest.h>
#include <rocksdb/status.h>

#include "engine/base/rocksdb_status.h"

namespace statecheck {
namespace {

TEST(Status, CodesAndNames) {
  EXPECT_TRUE(Status().ok());
  EXPECT_EQ(Status().ToString(), "OK");
  const Status s = Status::Corruption("bad block");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "Corruption: bad block");
  for (int c = 0; c <= static_cast<int>(Status::Code::kUnimplemented); ++c) {
    Status::Code parsed;
    ASSERT_TRUE(CodeFromName(CodeName(static_cast<Status::Code>(c)), &parsed));
    EXPECT_EQ(static_cast<int>(parsed), c);
  }
  Status::Code unused;
  EXPECT_FALSE(CodeFromName("NoSuchCode", &unused));
}

TEST(Status, FromRocksDB) {
  using internal::FromRocksDB;
  EXPECT_TRUE(FromRocksDB(rocksdb::Status::OK()).ok());
  EXPECT_EQ(FromRocksDB(rocksdb::Status::IOError("disk")).code(), Status::Code::kIOError);
  EXPECT_EQ(FromRocksDB(rocksdb::Status::Corruption("x")).code(), Status::Code::kCorruption);
  EXPECT_EQ(FromRocksDB(rocksdb::Status::NotFound()).code(), Status::Code::kNotFound);
  EXPECT_EQ(FromRocksDB(rocksdb::Status::Busy()).code(), Status::Code::kAborted);
  EXPECT_NE(FromRocksDB(rocksdb::Status::IOError("disk")).message().find("disk"),
            std::string::npos);
}

}  // namespace
}  // namespace statecheck
