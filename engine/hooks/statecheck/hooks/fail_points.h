// The engine's named fail points: places between the steps of a commit or a restore where a
// harness can make the engine fail (libfiu: fiu_enable, fiu-ctrl) or die (an external callback
// that kills the process). Each fires as an IOError whose message starts "injected fault: " and
// names the point. File-level faults — every open, append, sync, rename, ... of every file —
// are the fault file system's (faults/fault_fs.h, statecheck/fs/<op>/<kind>); these are the
// engine's own steps, which no file operation marks.
//
// The points are compiled in only with STATECHECK_FAIL_POINTS (the harness builds: release,
// sanitizers, planted); a point nobody enabled costs one libfiu lookup. A product build
// (ci/build.sh product) compiles every point to nothing and links no libfiu; the counts are then
// all 0.
#ifndef STATECHECK_HOOKS_FAIL_POINTS_H_
#define STATECHECK_HOOKS_FAIL_POINTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace statecheck {

struct EngineFailPoint {
  std::string_view name;
  std::string_view description;
};

inline constexpr std::string_view kFailLogAfterDecision = "statecheck/log/commit/after_decision";
// The steps of a log compaction (Log::Compact): after the compacted file is written, before its
// fsync; before the rename over the partition's first segment (or to its swap file); after the
// last rename, before the directory's fsync.
inline constexpr std::string_view kFailLogCompactBeforeSync = "statecheck/log/compact/before_sync";
inline constexpr std::string_view kFailLogCompactBeforeRename =
    "statecheck/log/compact/before_rename";
inline constexpr std::string_view kFailLogCompactBeforeDirSync =
    "statecheck/log/compact/before_dir_sync";
// A compaction that replaces several closed segments: after its swap file is durable, before the
// segments it replaces are deleted.
inline constexpr std::string_view kFailLogCompactBeforeDelete =
    "statecheck/log/compact/before_delete";
// A store's flushes without the WAL: before the flush an upgrade's commit waits for (U1), and
// before the background flush a commit starts past max_unflushed_bytes (C7; it then fails to
// start, as a failed background flush, reported by the store's next call).
inline constexpr std::string_view kFailStoreBeforeFlush = "statecheck/store/commit/before_flush";
inline constexpr std::string_view kFailStoreBackgroundFlush = "statecheck/store/flush/background";
// The engine's own calls into RocksDB: a store commit's batch write, a direct write (a
// READ_UNCOMMITTED store's Put, Delete, PutAll), a read of a key, a step of a store iterator (a
// range or scan read, the writer's or a query view's), the open's write that sets the
// open-status marker (an open that finds it set already writes nothing) and a clean close's
// write that clears it.
inline constexpr std::string_view kFailStoreCommitWrite = "statecheck/store/commit/write";
inline constexpr std::string_view kFailStoreWrite = "statecheck/store/write";
inline constexpr std::string_view kFailStoreGet = "statecheck/store/get";
inline constexpr std::string_view kFailStoreIterate = "statecheck/store/iterate";
inline constexpr std::string_view kFailStoreOpenMarker = "statecheck/store/open/marker";
inline constexpr std::string_view kFailStoreCloseMarker = "statecheck/store/close/marker";
inline constexpr std::string_view kFailTaskAfterLog = "statecheck/task/commit/after_log";
inline constexpr std::string_view kFailTaskBeforeOffsets = "statecheck/task/commit/before_offsets";
inline constexpr std::string_view kFailTaskRestoreBatch = "statecheck/task/restore/batch";
// An upgrade's steps: a store opened in the current format over legacy content, before it
// imports the legacy files' offsets; every store imported, before the files are deleted.
inline constexpr std::string_view kFailTaskUpgradeBeforeImport =
    "statecheck/task/upgrade/before_import";
inline constexpr std::string_view kFailTaskUpgradeBeforeDelete =
    "statecheck/task/upgrade/before_delete";

// Every engine fail point, in a fixed order.
const std::vector<EngineFailPoint>& EngineFailPoints();

// How often each engine fail point was reached and how often it fired, since the process
// started or the last ResetEngineFailPointCounts; in EngineFailPoints() order. Thread-safe.
struct FailPointCount {
  std::string name;
  uint64_t reached = 0;
  uint64_t fired = 0;
};
std::vector<FailPointCount> EngineFailPointCounts();
void ResetEngineFailPointCounts();

}  // namespace statecheck

#endif  // STATECHECK_HOOKS_FAIL_POINTS_H_
