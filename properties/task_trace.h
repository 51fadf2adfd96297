// Task traces (docs/traces.md): the operations of the task property (task_property.h) as JSON,
// and the JSON Lines trace a failing case is saved as, parsed from text. Kept apart from the
// property so that the parser builds alone (the task_trace_fuzz target).
#ifndef STATECHECK_PROPERTIES_TASK_TRACE_H_
#define STATECHECK_PROPERTIES_TASK_TRACE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faults/fail_points.h"
#include "statecheck/log.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck::properties {

using Json = nlohmann::ordered_json;

enum class TaskOpType {
  kAppend,
  kProcess,
  kAdvanceClock,
  kCommit,
  kCrash,
  kRestart,
  kFaultyCommit,   // Power-loss configurations only.
  kFaultyRestore,  // Power-loss configurations only.
  kRestartAs,      // Format-switching configurations only (SPEC U), as the two below.
  kDamageFile,
  kFaultyUpgrade,  // In the legacy format only.
  kDamageLog,      // On the fault file system (F6) ...
  kDamageStore,    // ... as this one (legacy format: the .checkpoint and .position files).
  kFaultyRead,     // Every configuration.
  kFaultyClose,    // Configurations with crashes.
};
inline constexpr const char* kTaskOpNames[] = {
    "append",        "process",      "advanceClock",  "commit",     "crash",
    "restart",       "faultyCommit", "faultyRestore", "restartAs",  "damageFile",
    "faultyUpgrade", "damageLog",    "damageStore",   "faultyRead", "faultyClose"};

// The legacy files a damageFile step may damage, and how.
inline constexpr const char* kLegacyFiles[] = {".checkpoint", "kv.position", "counts.position"};
inline constexpr const char* kDamages[] = {"version",  "count",    "malformed",
                                           "negative", "truncate", "empty"};
// How a damageLog or damageStore step damages durable bytes of a log partition, a store's table
// file or MANIFEST, or a legacy file (F6): one bit flipped, or a run of bytes zeroed.
inline constexpr const char* kLogDamages[] = {"flip", "zero"};

// A faultyCommit's point that fills the disk (F7): `n` bytes are left, every write that does not
// fit fails with ENOSPC until the step ends and the space comes back.
inline constexpr char kFullDisk[] = "statecheck/fs/full";

struct TaskOp {
  TaskOpType type = TaskOpType::kCommit;
  std::vector<std::pair<std::string, std::optional<std::string>>> records;  // kAppend.
  // kProcess: records; kAdvanceClock: ms; kFaultyCommit: the fsync that fails; kDamageLog,
  // kDamageStore: where (the file, the byte, the bit or the run's length, all drawn from it).
  int64_t n = 0;
  // kFaultyCommit: "fsync" (the n-th fsync or directory fsync fails), a family of file-system
  // fail points ("statecheck/fs/append/*": the n-th append fails, ...), an engine fail point
  // (statecheck/hooks/fail_points.h) that fails the n-th time it is reached, or kFullDisk (n
  // bytes left).
  std::string point;
  int64_t k = 0;  // kFaultyCommit: records processed (with the fault armed) before the commit.
  // kFaultyCommit: what a file-system point reports: EIO, ENOSPC or a short write (F1).
  faults::FaultSpec::Error error = faults::FaultSpec::Error::kIO;
  uint64_t tear_seed = 0;  // kCrash, kFaulty* under power loss: where unsynced tails tear.
  // kFaultyCommit: what follows a failure. False: a crash (a power loss under power-loss
  // configurations). True: the process keeps going (F8) — the failed task is abandoned and opened
  // again in the same process, on the same log unless the log says it must be reopened.
  bool keep_going = false;
  // kRestartAs, kDamageFile: a clean close (else a crash) first; then the format the task
  // starts in (kFaultyUpgrade: the format of the start after the failed upgrade).
  bool clean = false;
  StateFormat format = StateFormat::kCurrent;
  std::string file;    // kDamageFile: one of kLegacyFiles ...
  std::string damage;  // ... damaged as one of kDamages; kDamageLog/Store: one of kLogDamages.
};

// The op as a trace line writes it: "op" and every field the op takes (optional ones included),
// and as one line of that JSON ({"op":"append","records":[["a",null]]}, ...).
Json TaskOpToJson(const TaskOp& op);
std::string TaskOpToString(const TaskOp& op);
// The inverse of TaskOpToString. InvalidArgument naming what is wrong; `*op` is reset first.
Status TaskOpFromJson(const Json& j, TaskOp* op);

// The task settings a case runs with, generated once per case (they shrink too).
struct TaskSetup {
  int64_t commit_interval_records = 0;
  int64_t commit_interval_ms = -1;
  int64_t uncommitted_max_bytes = kDefaultUncommittedMaxBytes;
  // Compact the changelogs after every commit that leaves something to remove (the task's
  // changelog_compaction_min_bytes 0 and min_dirty_ratio 0); false: never.
  bool changelog_compaction = false;
  // TaskOptions::log_batch_bytes: 0 writes each changelog and output record as it is produced
  // (as every trace from before the field did).
  int64_t log_batch_bytes = 0;
  // LogOptions::segment_bytes of the case's log (its default when absent: one segment a
  // partition in any case a trace holds).
  int64_t log_segment_bytes = LogOptions{}.segment_bytes;
  // Whether RocksDB writes its OPTIONS file at each open of a store, as every trace from before
  // the field did; false: the fault file system skips it (FaultFileSystem::SkipRocksDBOptionsFiles,
  // a harness-only saving that no rule observes).
  bool rocksdb_options_files = true;
  std::string ToString() const {
    return "commit_interval_records=" + std::to_string(commit_interval_records) +
           " commit_interval_ms=" + std::to_string(commit_interval_ms) +
           " statestore.uncommitted.max.bytes=" + std::to_string(uncommitted_max_bytes) +
           " changelog_compaction=" + (changelog_compaction ? "true" : "false") +
           " log_batch_bytes=" + std::to_string(log_batch_bytes) +
           " log_segment_bytes=" + std::to_string(log_segment_bytes) +
           " rocksdb_options_files=" + (rocksdb_options_files ? "true" : "false");
  }
};

Json SetupJson(const TaskSetup& setup);
// InvalidArgument "setup: ..." naming the missing or mistyped field; `*setup` unchanged then.
Status SetupFromJson(const Json& j, TaskSetup* setup);

// A task trace (JSON Lines): a header {"statecheck_trace": 1, "kind": "task", "config": LABEL,
// "setup": {commit_interval_records, commit_interval_ms, uncommitted_max_bytes and, optional,
// changelog_compaction (false when absent), log_batch_bytes (0 when absent) and
// log_segment_bytes (LogOptions' default when absent) and rocksdb_options_files (true when
// absent)}, and carried
// along: property, seed, reproduce, failure}, then one operation per line as the property
// prints them ({"op":"append","records":[["a",null]]}, {"op":"faultyCommit","process":1,
// "point":"fsync","n":2,"error":"EIO","tear_seed":0}, ...). docs/traces.md describes it.
struct TaskTrace {
  std::string config;
  Json setup;
  Json info;                                // The header.
  std::vector<std::pair<int, Json>> steps;  // (line, operation).
};

// Parses a task trace read from `source` (a file name, for the message of an empty trace).
// InvalidArgument "line N: <what is wrong>" for a malformed one, "<source> is empty" for one
// without a header; `*trace` is left unchanged on any error.
Status ParseTaskTrace(std::string_view text, const std::string& source, TaskTrace* trace);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_TASK_TRACE_H_
