// The process-crash runner (SPEC C3, C4, F2): kill-and-recover cycles of a real task in child
// processes.
//
// Each cycle forks a child that opens the log and the task on the run's directories — which
// recovers the log and restores the stores, exactly as after a real crash — appends the cycle's
// input, checks what it recovered against the task model, and then processes input until its
// seeded kill point, where it dies by SIGKILL: nothing is flushed, closed or unwound. A kill
// point is the n-th processor operation (a store read or write, or an output record) of the
// cycle, counted before and after each, so kills land between any two of them — or, for half
// of the kills, the n-th reach of a fail point: one of the engine's steps inside a commit or a
// restore (statecheck/hooks/fail_points.h), or any fsync of the log or the stores (the child does
// its I/O through the fault file system on the real disk). A cycle whose
// kill point lies beyond its work ends by itself, half of the time with a clean close and half
// of the time by _exit without one. The parent only forks, waits and reads the child's verdict:
// it never opens RocksDB, whose background threads do not survive fork().
//
// What a recovering child checks, with c the committed input offset it finds:
//   * c never goes backwards from one cycle to the next (C1: nothing committed is lost);
//   * exactly_once_v2 (C3): the stores and the committed output are exactly those of
//     processing input[0, c) once;
//   * at_least_once (C4): per key, store kv holds the effect of the key's last record before c
//     or of a later record (re-processing may apply later records, and re-apply some, but never
//     loses a committed one); every count in store counts is at least its exactly-once value;
//     and the committed output, each value stripped of its "#count", holds the exactly-once
//     output of input[0, c) as a subsequence (nothing lost, duplicates allowed).
// Every random choice — input, commit interval, kill point, clean or not — comes from the seed,
// so `statecheck crash --seed S --cycles N` replays a run (RocksDB's own background timing
// aside).
#ifndef STATECHECK_PROPERTIES_CRASH_CRASH_RUNNER_H_
#define STATECHECK_PROPERTIES_CRASH_CRASH_RUNNER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "model/finding.h"
#include "statecheck/status.h"
#include "statecheck/task.h"

namespace statecheck::properties {

struct CrashRunOptions {
  uint64_t seed = 1;
  int cycles = 200;
  std::string label = "alos_unset";                   // Names the configuration in messages.
  std::map<std::string, std::string> streams_config;  // The T1 keys.
  // Where the log and the state live (created; must not exist or be empty). Removed after a
  // passing run unless `keep`.
  std::string directory;
  // Keep the directories as the last cycle left them — killed, usually — for statecheck
  // inspect: the final check then runs on a copy.
  bool keep = false;
  int records_per_cycle = 40;  // Input appended by each cycle.
  // Smoke mode under libfiu's POSIX preload (fiu-run -x), where real system calls fail: a cycle
  // whose engine call fails with an I/O error (or that cannot write its verdict) counts as a
  // crash, not a failure; so does an abort (SIGABRT): Debian's RocksDB 7.8 is built with
  // assertions, and after a failed write some of its own asserts fire
  // (WritableFileWriter::AssertFalseAndGetStatusForPrevError; fixed upstream later, see
  // facebook/rocksdb#10555 and #12448). The next cycle's recovery is checked as after any crash.
  // A failed check is a failure still.
  bool tolerate_io_errors = false;
  // Seeded random I/O errors, the replayable form of the smoke mode: with p > 0 every read,
  // write (append), fsync and truncate of the fault file system the children run on fails with
  // EIO with probability p, each decision from the seed and the cycle (the final check runs
  // without). Implies tolerate_io_errors.
  double io_error_probability = 0;
  int keys = 12;  // Distinct input keys.
  // The task compacts its changelogs after every commit that leaves something to remove, so that
  // kills land in compactions too (their fail points are among the kill points).
  bool changelog_compaction = true;
  // LogOptions::segment_bytes of the children's log: small, so that a cycle's changelog spans
  // several segments and its compactions replace them (the swap file, the deletions), with kills
  // among those steps too.
  int64_t log_segment_bytes = 400;
  // The processor the children run; null = NewKeyValueProcessor(), which the checks describe.
  // (Tests plant a different one to see a check fail.)
  std::function<std::unique_ptr<Processor>()> processor;
};

struct CrashCycleReport {
  int cycle = 0;
  bool killed = false;          // Died by SIGKILL at its kill point.
  int64_t committed_input = 0;  // What the cycle recovered.
};

struct CrashRunResult {
  int cycles = 0;     // Cycles run.
  int kills = 0;      // Of which ended by SIGKILL.
  int io_errors = 0;  // Of which ended by an I/O error (tolerate_io_errors).
  int aborts = 0;     // Of which ended by SIGABRT (tolerate_io_errors).
  std::map<std::string, int> kills_by_point;  // "processor step", or the fail point's name.
  int64_t final_committed_input = 0;
  int64_t input_records = 0;
  double seconds = 0;
  bool passed = false;
  int failed_cycle = -1;
  std::string failure;  // What the failing check said: finding->ToString().
  // The failing check's finding: C1, C3 or C4 for a check of the recovered state; F2 when a
  // child could not recover at all (an engine error, or death before its verdict).
  std::optional<model::Finding> finding;
};

// Runs the cycles, then one last recovery that checks the final state. `progress` (optional)
// is called after each cycle. InvalidArgument for bad options (a directory that holds files,
// cycles < 1, ...); IOError if fork or the directory fails. A failed check is not an error: it
// is `result->passed` false with the cycle and the message; the directory is then kept.
Status RunCrashCycles(const CrashRunOptions& options,
                      const std::function<void(const CrashCycleReport&)>& progress,
                      CrashRunResult* result);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_CRASH_CRASH_RUNNER_H_
