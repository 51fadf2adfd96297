// The task family's vocabulary (kit/trace.h): its configurations (the matrix, by label, and a
// case's setup) and the operations of the task property (property.h) as the JSON of a task trace
// (docs/traces.md). Kept apart from the property so that the parser builds alone (the
// task_trace_fuzz target).
#ifndef STATECHECK_PROPERTIES_TASK_OPS_H_
#define STATECHECK_PROPERTIES_TASK_OPS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "faults/fail_points.h"
#include "properties/kit/json_lines.h"
#include "statecheck/log.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"
#include "statecheck/task.h"

namespace statecheck::properties::task {

enum class OpType {
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
inline constexpr const char* kOpNames[] = {
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

struct Op {
  OpType type = OpType::kCommit;
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
Json OpToJson(const Op& op);
std::string OpToString(const Op& op);
// The inverse of OpToString. InvalidArgument naming what is wrong; `*op` is reset first.
Status OpFromJson(const Json& j, Op* op);

// The task settings a case runs with, generated once per case (they shrink too).
struct Setup {
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
  // TaskOptions::store_max_unflushed_bytes (C7): past it a store commit starts a background
  // flush; 0 flushes after every commit, -1 never but at a clean close (what a store may lose
  // in a crash). Absent in a trace: the engine's default.
  int64_t max_unflushed_bytes = TaskOptions{}.store_max_unflushed_bytes;
  std::string ToString() const {
    return "commit_interval_records=" + std::to_string(commit_interval_records) +
           " commit_interval_ms=" + std::to_string(commit_interval_ms) +
           " statestore.uncommitted.max.bytes=" + std::to_string(uncommitted_max_bytes) +
           " changelog_compaction=" + (changelog_compaction ? "true" : "false") +
           " log_batch_bytes=" + std::to_string(log_batch_bytes) +
           " log_segment_bytes=" + std::to_string(log_segment_bytes) +
           " rocksdb_options_files=" + (rocksdb_options_files ? "true" : "false") +
           " max_unflushed_bytes=" + std::to_string(max_unflushed_bytes);
  }
};

Json SetupJson(const Setup& setup);
// InvalidArgument "setup: ..." naming the missing or mistyped field; `*setup` unchanged then.
Status SetupFromJson(const Json& j, Setup* setup);

struct Config {
  std::string label;                                  // e.g. "eos_rc": test and report ids.
  std::map<std::string, std::string> streams_config;  // The T1 keys.
  bool use_wal = false;                               // The stores' RocksDB WAL.
  bool power_loss = false;  // Crashes lose power, on the fault-injecting file system.
  // Without power loss: run on the real disk (a temporary directory) rather than on the
  // in-memory file system. A process crash loses nothing on either, so the property checks the
  // same thing; in memory no fsync waits for the disk, which makes the process-crash
  // configurations several times faster (they get a few seconds of a short campaign). The
  // matrix runs in memory; the crash runner (crash_runner.h) kills real processes on the disk.
  bool real_disk = false;
  // Starts in the legacy format and switches between the formats (SPEC U): the row's
  // configuration with state.format=legacy or current.
  bool format_switches = false;
  // The processor under test; null = NewKeyValueProcessor(), which the model describes. (Tests
  // plant a different one to see the property fail.)
  std::function<std::unique_ptr<Processor>()> processor;
  // False: the generator makes no step that crashes or loses power — no "crash", no
  // "faultyCommit", "faultyRestore", "faultyUpgrade" (each ends in a power loss) or
  // "faultyClose" (whose start is one after a crash for a store), and every
  // "restartAs" and "damageFile" starts after a clean close. The situations that need a crash
  // (C3's, C4's, F1–F4's, U2's, T10's after a crash ...) are then never reached; the others are.
  // The matrix's configurations all have it true; replays of their traces too.
  bool crashes = true;
  // A case's task settings: drawn for each case by the property, the header's "setup" in a trace.
  Setup setup;
};

// The T1 matrix: processing guarantee × isolation setting (6 rows, process crashes).
std::vector<Config> T1Rows();

// The T1 matrix: processing guarantee × isolation setting (6 rows), each with process crashes,
// with power loss (label suffix "_powerloss"), and switching formats under power loss
// ("_formats"): 18 configurations, interleaved (kinds and rows taking turns).
std::vector<Config> OptionMatrix();

// A task trace (JSON Lines): a header {"statecheck_trace": 1, "kind": "task", "config": LABEL,
// "setup": {commit_interval_records, commit_interval_ms, uncommitted_max_bytes and, optional,
// changelog_compaction (false when absent), log_batch_bytes (0 when absent) and
// log_segment_bytes (LogOptions' default when absent) and rocksdb_options_files (true when
// absent)}, and carried
// along: property, seed, reproduce, failure}, then one operation per line as the property
// prints them ({"op":"append","records":[["a",null]]}, {"op":"faultyCommit","process":1,
// "point":"fsync","n":2,"error":"EIO","tear_seed":0}, ...). docs/traces.md describes it.
struct Vocabulary {
  static constexpr std::string_view kKind = "task";
  using Config = task::Config;
  using Op = task::Op;
  // The label of one of OptionMatrix()'s configurations; ConfigFromJson reads it back to that
  // configuration (InvalidArgument naming the labels for another).
  static Json ConfigToJson(const Config& config) { return config.label; }
  static Status ConfigFromJson(const Json& j, Config* config);
  static Json OpToJson(const Op& op) { return task::OpToJson(op); }
  // OpToJson's form, and no key it does not write (optional ones included).
  static Status OpFromJson(const Json& j, Op* op);
  // The header's "setup" (SetupJson), beside "config": a task trace needs it.
  static const std::vector<std::string>& HeaderKeys();
  static Status HeaderFromJson(const Json& keys, Config* config);
  static Json HeaderToJson(const Config& config) {
    return Json{{"setup", SetupJson(config.setup)}};
  }
  // A task step has no "expect": its checks are the property's, against the model.
  static Status CheckExpect(const Op& op, const Json& expect);
};

}  // namespace statecheck::properties::task

#endif  // STATECHECK_PROPERTIES_TASK_OPS_H_
