#include "statecheck/hooks/fail_points.h"

#ifdef STATECHECK_FAIL_POINTS
#include <fiu-local.h>
#endif

#include <array>
#include <atomic>

#include "engine/fail_point.h"

namespace statecheck {
namespace {

constexpr size_t kPoints = 8;

struct Counter {
  std::atomic<uint64_t> reached{0};
  std::atomic<uint64_t> fired{0};
};

std::array<Counter, kPoints>& Counters() {
  static std::array<Counter, kPoints> counters;
  return counters;
}

}  // namespace

const std::vector<EngineFailPoint>& EngineFailPoints() {
  static const std::vector<EngineFailPoint> points = {
      {kFailLogAfterDecision,
       "a log transaction's commit fails after its commit decision is durable, before its "
       "markers: the transaction is committed and recovery writes the markers"},
      {kFailStoreBeforeFlush,
       "a store commit without the WAL fails after its batch is written, before the flush that "
       "makes it durable"},
      {kFailStoreCommitWrite,
       "a store commit's batch write into RocksDB (data, offsets and position in one batch) "
       "fails as RocksDB's Write would: nothing of the batch is applied"},
      {kFailStoreGet,
       "a read of a key from RocksDB fails (a processor's Get): the read reports the error and "
       "the task stops"},
      {kFailTaskAfterLog,
       "a task commit fails after its log part (at-least-once: the changelog and output sync; "
       "exactly-once: the transaction commit), before the stores commit"},
      {kFailTaskBeforeOffsets,
       "an at-least-once task commit fails after the stores commit, before the input offset is "
       "written"},
      {kFailTaskRestoreBatch,
       "a restore fails after applying a batch of changelog records, before committing it"},
      {kFailTaskUpgradeBeforeDelete,
       "an upgrade from the legacy format fails after every store imported its offsets, before "
       "the .checkpoint and .position files are deleted"},
  };
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
  const auto& points = EngineFailPoints();
  const bool fires = fiu_fail(std::string(name).c_str()) != 0;
  for (size_t i = 0; i < points.size() && i < kPoints; ++i) {
    if (points[i].name == name) {
      ++Counters()[i].reached;
      if (fires) ++Counters()[i].fired;
    }
  }
  return fires ? Status::IOError("injected fault: " + std::string(name)) : Status::Ok();
}

}  // namespace internal
#endif  // STATECHECK_FAIL_POINTS
}  // namespace statecheck
