// The file-system fail points by name, what each does, which the engine never reaches, and how
// often each was reached and fired (faults/fault_fs.h).
#include <array>
#include <atomic>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "faults/fault_fs.h"
#include "faults/fault_fs_state.h"

namespace statecheck::faults {
namespace {

constexpr std::string_view kMarkerPrefix = "injected fault: statecheck/";

constexpr std::array<const char*, kNumFsOps> kOpNames = {"open",       "append",  "pwrite", "sync",
                                                         "range_sync", "rename",  "delete", "read",
                                                         "dir_fsync",  "truncate"};
constexpr std::array<const char*, kNumFsOps> kOpDescriptions = {
    "opening the file (any mode, a lock, or a directory handle) fails",
    "an append fails and writes nothing",
    "a positioned write (PositionedAppend, RandomRWFile::Write) fails and writes nothing",
    "a Sync/Fsync fails and makes nothing durable",
    "a RangeSync fails",
    "renaming onto the file fails; both names stay as they were",
    "deleting the file fails; it stays",
    "a read fails",
    "a directory fsync fails; no pending create, rename or delete in it becomes durable",
    "truncating the file fails; its size stays"};
constexpr std::array<const char*, kNumFileKinds> kKindNames = {
    "wal", "sst", "manifest", "current", "options", "log", "checkpoint", "other"};
constexpr std::array<const char*, kNumFileKinds> kKindDescriptions = {
    "RocksDB WAL (<digits>.log)",
    "RocksDB table file (*.sst)",
    "RocksDB MANIFEST-*",
    "RocksDB CURRENT and its <digits>.dbtmp temp file",
    "RocksDB OPTIONS-*",
    "the embedded log (files under a registered log directory)",
    ".checkpoint and *.position files",
    "any other file (IDENTITY, LOCK, LOG, ...)"};

const std::array<std::array<std::string, kNumFileKinds>, kNumFsOps>& NameTable() {
  static const auto* table = [] {
    auto* t = new std::array<std::array<std::string, kNumFileKinds>, kNumFsOps>;
    for (int op = 0; op < kNumFsOps; ++op) {
      for (int kind = 0; kind < kNumFileKinds; ++kind) {
        (*t)[op][kind] = std::string("statecheck/fs/") + kOpNames[op] + "/" + kKindNames[kind];
      }
    }
    return t;
  }();
  return *table;
}

}  // namespace

namespace internal {
const char* FsOpName(FsOp op) { return kOpNames[static_cast<int>(op)]; }
}  // namespace internal

bool IsInjectedFault(std::string_view message) {
  return message.find(kMarkerPrefix) != std::string_view::npos;
}
bool IsInjectedFault(const rocksdb::Status& status) {
  return !status.ok() && IsInjectedFault(status.ToString());
}
bool IsInjectedFault(const Status& status) {
  return !status.ok() && IsInjectedFault(status.message());
}

bool IsRocksDBOptionsFile(std::string_view path) {
  return internal::Basename(path).starts_with("OPTIONS-");
}

rocksdb::IOStatus RocksDBOptionsFileSkipped(const std::string& path) {
  return rocksdb::IOStatus::IOError(path +
                                    ": not created: this harness file system skips RocksDB's "
                                    "OPTIONS files (FaultFileSystem::SkipRocksDBOptionsFiles)");
}

const std::string& FsFailPointName(FsOp op, FileKind kind) {
  return NameTable()[static_cast<int>(op)][static_cast<int>(kind)];
}

// Why the engine never performs `op` on a file of `kind` ("" when it does), as the fault sweep
// measures (RocksDB 7.8 as the engine configures it, the log, the legacy files).
std::string UnreachableBecause(FsOp op, FileKind kind) {
  switch (op) {
    case FsOp::kPwrite:
      return "RocksDB writes with PositionedAppend only under direct I/O, which the engine never "
             "enables; the log and the legacy files append";
    case FsOp::kRangeSync:
      return "RocksDB calls RangeSync only with bytes_per_sync or wal_bytes_per_sync set; the "
             "engine leaves both at 0";
    case FsOp::kRename:
      if (kind == FileKind::kWal || kind == FileKind::kSst || kind == FileKind::kManifest) {
        return "nothing renames a file of this kind (RocksDB renames only its CURRENT and "
               "OPTIONS temp files, the legacy files their .tmp, the log a compacted partition)";
      }
      return "";
    case FsOp::kDelete:
      return "";  // The log deletes the segments a compaction replaced.
    case FsOp::kDirFsync:
      if (kind == FileKind::kLog || kind == FileKind::kOther) return "";
      return "a directory fsync is of the log's directory (log) or of a store's or the state "
             "directory (other): RocksDB 7.8 names no renamed file that would make it this kind";
    case FsOp::kTruncate:
      if (kind == FileKind::kLog || kind == FileKind::kWal) return "";
      return "only the log (a torn tail) and RocksDB's WAL files are ever truncated";
    default:
      return "";
  }
}

std::vector<FailPointInfo> FsFailPointCatalogue() {
  std::vector<FailPointInfo> out;
  for (int op = 0; op < kNumFsOps; ++op) {
    for (int kind = 0; kind < kNumFileKinds; ++kind) {
      out.push_back({NameTable()[op][kind],
                     std::string(kOpDescriptions[op]) + " (" + kKindDescriptions[kind] + ")",
                     UnreachableBecause(static_cast<FsOp>(op), static_cast<FileKind>(kind))});
    }
  }
  return out;
}

std::vector<std::string> AllFailPointNames() {
  std::vector<std::string> out;
  for (const FailPointInfo& info : FsFailPointCatalogue()) out.push_back(info.name);
  return out;
}

std::vector<std::pair<std::string, FailPointCounts>> FsFailPointCounts() {
  std::vector<std::pair<std::string, FailPointCounts>> out;
  for (int op = 0; op < kNumFsOps; ++op) {
    for (int kind = 0; kind < kNumFileKinds; ++kind) {
      const internal::FsCounter& c = internal::FsCounters()[op * kNumFileKinds + kind];
      out.emplace_back(FsFailPointName(static_cast<FsOp>(op), static_cast<FileKind>(kind)),
                       FailPointCounts{c.reached.load(), c.fired.load()});
    }
  }
  return out;
}

std::map<std::string, uint64_t> DurableDamageCounts() {
  std::map<std::string, uint64_t> out;
  for (int kind = 0; kind < kNumFileKinds; ++kind) {
    if (const uint64_t n = internal::DamageCounters()[kind].load()) out[kKindNames[kind]] = n;
  }
  if (const uint64_t n = internal::DamageCounters()[internal::kPositionDamageSlot].load()) {
    out["position"] = n;
  }
  return out;
}

void ResetFsFailPointCounts() {
  for (internal::FsCounter& c : internal::FsCounters()) {
    c.reached = 0;
    c.fired = 0;
  }
  for (std::atomic<uint64_t>& n : internal::DamageCounters()) n = 0;
}

}  // namespace statecheck::faults
