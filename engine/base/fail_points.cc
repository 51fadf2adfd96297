#include "statecheck/hooks/fail_points.h"

#ifdef STATECHECK_FAIL_POINTS
#include <fiu-local.h>
#endif

#include <array>
#include <atomic>
#include <iterator>
#include <string>

#include "engine/base/fail_point.h"

namespace statecheck {
namespace {

// Every engine fail point, in a fixed order; the counters are sized from it, so a point added here
// is counted (and a name looked up here is a literal, null-terminated for libfiu).
constexpr EngineFailPoint kPoints[] = {
    {kFailLogAfterDecision,
     "a log transaction's commit fails after its commit decision is durable, before its "
     "markers: the transaction is committed and recovery writes the markers"},
    {kFailLogCompactBeforeSync,
     "a log compaction fails after writing the compacted file, before its fsync: the partition "
     "keeps its file, the task its commit, and a later commit compacts again"},
    {kFailLogCompactBeforeRename,
     "a log compaction fails after the compacted file is durable, before it replaces the "
     "partition's file: the partition keeps its file and the task its commit"},
    {kFailLogCompactBeforeDirSync,
     "a log compaction fails after the compacted file replaced the partition's, before the "
     "directory fsync: the rename is durable with the partition's next sync; a power loss first "
     "brings back the old file, which reads the same"},
    {kFailLogCompactBeforeDelete,
     "a log compaction that replaces several closed segments fails after its swap file is "
     "durable, before it deletes them: the partition refuses writes until the log is reopened, "
     "and recovery completes the compaction"},
    {kFailStoreBeforeFlush,
     "an upgrade's first commit without the WAL (U1) fails after its batch is written, before "
     "the flush that makes it durable: the store refuses every call until reopened, and the "
     "upgrade is found done or not done"},
    {kFailStoreBackgroundFlush,
     "the background flush a commit starts past max_unflushed_bytes fails (C7): the commit "
     "stands, the store's next call reports the failure, and after a reopen the store holds "
     "some commit between its last flush and its last"},
    {kFailStoreCommitWrite,
     "a store commit's batch write into RocksDB (data, offsets and position in one batch; a "
     "legacy store's durable write) fails as RocksDB's Write would: nothing of the batch is "
     "applied"},
    {kFailStoreWrite,
     "a READ_UNCOMMITTED store's direct write into RocksDB (a processor's Put or Delete) fails as "
     "RocksDB's Write would: nothing of it is applied, the write reports the error and the task "
     "stops"},
    {kFailStoreGet,
     "a read of a key from RocksDB fails (a processor's Get): the read reports the error and "
     "the task stops"},
    {kFailStoreIterate,
     "a store iterator's step over RocksDB fails as Iterator::status() reports one (a range or "
     "scan read, the writer's or a query view's): that read returns the error, never fewer "
     "records, and the store and the task go on"},
    {kFailStoreOpenMarker,
     "a store open's durable write of its open-status marker and format mark fails: the open "
     "reports the error and the task's start fails (the store holds what it held)"},
    {kFailStoreCloseMarker,
     "a clean close's write that clears a store's open-status marker fails as RocksDB's Write "
     "would: the close logs an error naming the store and goes on; the next start treats that "
     "store as crashed (T7, T10) and the one after a clean close as clean (L1)"},
    {kFailTaskAfterLog,
     "a task commit fails after its log part (at-least-once: the changelog and output sync; "
     "exactly-once: the transaction commit), before the stores commit"},
    {kFailTaskBeforeOffsets,
     "an at-least-once task commit fails after the stores commit, before the input offset is "
     "written"},
    {kFailTaskRestoreBatch,
     "a restore fails after applying a batch of changelog records, before committing it"},
    {kFailTaskUpgradeBeforeImport,
     "an upgrade from the legacy format fails after a store opened in the current format, "
     "before it imports its offsets from the .checkpoint and .position files (the store keeps "
     "its legacy mark)"},
    {kFailTaskUpgradeBeforeDelete,
     "an upgrade from the legacy format fails after every store imported its offsets, before "
     "the .checkpoint and .position files are deleted"},
};
constexpr size_t kNumPoints = std::size(kPoints);

struct Counter {
  std::atomic<uint64_t> reached{0};
  std::atomic<uint64_t> fired{0};
};

std::array<Counter, kNumPoints>& Counters() {
  static std::array<Counter, kNumPoints> counters;
  return counters;
}

}  // namespace

const std::vector<EngineFailPoint>& EngineFailPoints() {
  static const std::vector<EngineFailPoint> points(std::begin(kPoints), std::end(kPoints));
  return points;
}

std::vector<FailPointCount> EngineFailPointCounts() {
  std::vector<FailPointCount> out;
  const auto& points = EngineFailPoints();
  for (size_t i = 0; i < points.size(); ++i) {
    out.push_back(
        {std::string(points[i].name), Counters()[i].reached.load(), Counters()[i].fired.load()});
  }
  return out;
}

void ResetEngineFailPointCounts() {
  for (Counter& c : Counters()) {
    c.reached = 0;
    c.fired = 0;
  }
}

#ifdef STATECHECK_FAIL_POINTS
namespace internal {

Status FailPoint(std::string_view name) {
  size_t i = 0;
  while (i < kNumPoints && kPoints[i].name != name) ++i;
  // A point of the table is a literal (no copy on the hot path: a store's Get passes here).
  const bool fires = (i < kNumPoints ? fiu_fail(kPoints[i].name.data())
                                     : fiu_fail(std::string(name).c_str())) != 0;
  if (i < kNumPoints) {
    ++Counters()[i].reached;
    if (fires) ++Counters()[i].fired;
  }
  return fires ? Status::IOError("injected fault: " + std::string(name)) : Status::Ok();
}

}  // namespace internal
#endif  // STATECHECK_FAIL_POINTS
}  // namespace statecheck
