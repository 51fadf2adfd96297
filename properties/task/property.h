// The task property (SPEC C1–C6, T6, T7, T9, T10): random sequences of input appends,
// processing, clock advances, explicit commits, crashes and clean restarts run a task of the
// key-value processor (statecheck/task.h) on a real log and real RocksDB stores (on the
// in-memory file system, see Config::real_disk), in lockstep with the task model
// (model/task_model.h).
//
// After every step: the committed input offset and the committed output in the log equal the
// model's last commit (C1), each store as an IQ reader sees it equals the model's view (T3, T4),
// the uncommitted bytes equal the model's (T6), and the commits so far, by reason, equal the
// model's (C5). After every restart: how each store was wiped and restored (C2, T10), and the
// committed output and stores against what the model allows (C3 under exactly_once_v2, C4 under
// at_least_once, T9).
//
// A crash abandons the task (no commit, stores dropped with their open markers set) and the
// log, as the death of the process would, then opens both again on the same directories. In the
// power-loss configurations everything runs on the fault-injecting file system
// (faults/fault_fs.h, in memory): a crash also loses every byte and directory entry not yet
// made durable, tearing unsynced tails at seeded points (F3, F4). A "faultyCommit" step arms
// a fault — the n-th fsync or directory fsync, or one of the engine's named steps
// (statecheck/hooks/fail_points.h) — then processes a few records and commits: a failure must be
// the injected error, reported (F1), and stop the task (C6); the machine then loses power, and
// the task must restart with each failed commit in one of its two outcomes, never in between,
// and a record that failed half-way at most partly visible, as at-least-once prefixes allow.
// "faultyRestore" crashes, fails the restart's restore half-way, and crashes again.
// "faultyClose" closes cleanly while a store's write clearing its open-status marker fails: the
// next start must take that store (only) for crashed, and the one after the next clean close
// none (F8, L1: recovery converges).
//
// The format-switching configurations (SPEC U) start in the legacy format and add three steps:
// "restartAs" (a clean close or a crash, then a start in either format: an upgrade, a
// downgrade or neither), "damageFile" (the same, with a legacy file damaged in between: U5)
// and, in the legacy format, "faultyUpgrade" (a clean close, then an upgrade that fails at an
// armed fault, power loss, and a start in either format: U2). After every start they check that
// a legacy store restored after its .checkpoint offset with its .position (U1, U2), that no
// legacy file outlives a current-format start (U1), and the model's wipes (U3, U5) and states
// (C3, C4 across every switch: U4).
//
// Attribution. Every check returns a model::Finding carrying the one rule it enforces, and a
// failing case fails with it (properties::Fail), so PropertyOutcome::rule names that rule; the
// configuration check before the cases (T1's row in each format) sets it too. Where one
// comparison can fail in several ways the rule is decided from what differs: the commit counts
// by reason first (interval, explicit, close: C5; too few uncommitted-bytes commits: T11, too
// many: T6), then the committed offset (C1) and output (C3/C4), the IQ and writer views
// (T3/T4, T5), the uncommitted bytes (T6); after a restart the restore ranges (C2), the legacy
// imports (U1, or U2 after an interrupted upgrade), the open markers (T7), a legacy file left
// behind (U1; T10 for legacy exactly-once), committed data a power loss lost (F3), and then the
// model's verdict: each store's wipe by the rule that decides it (T10, U3, U4, U5), its state
// (C3, C4; T9 for buffered writes an at-least-once READ_COMMITTED crash kept), and after a
// failed commit the outcome its committed input offset shows. An engine call that fails where
// no fault was armed is C1 (commit, close, process, append) or C2 (a start); after a crash F2,
// after a power loss F3, and F4 when the log is damaged by a torn tail.
//
// Evidence. Each step notes the situations it reaches (the names reports/rules.json declares
// for T10, T11, C1–C6, U1–U5 and F1–F4) and counts them when every check of the step held.
#ifndef STATECHECK_PROPERTIES_TASK_PROPERTY_H_
#define STATECHECK_PROPERTIES_TASK_PROPERTY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/task_model.h"
#include "properties/kit/outcome.h"
#include "properties/kit/trace.h"
#include "properties/store_state.h"
#include "properties/task/ops.h"
#include "statecheck/status.h"
#include "statecheck/task.h"

namespace statecheck::properties::task {

using properties::ReadStoreState;  // properties/store_state.h

// Runs the property. A failure's shrunk case is also written to `params.trace_dir` (if set) as
// a task trace, and `trace_path` names it.
PropertyOutcome CheckMatchesModel(const Config& config, const PropertyParams& params);

// Replays `trace` on the engine and the task model, checking as the property does (the kit's
// replay, kit/family.h); `processor` (tests) replaces the configuration's. InvalidArgument when
// the configuration cannot run (bad input).
Status Replay(const kit::Trace<Vocabulary>& trace, TraceReplay* out,
              std::function<std::unique_ptr<Processor>()> processor = nullptr);

// The registry's entry: the matrix's properties and the traces.
FamilyEntry Entry();

// The fault sweep (F1–F8 coverage): every fail point in `points` in turn, in a fixed scenario
// per configuration (eos and alos, with and without the WAL, and switching formats) that arms
// it at its first reach in a commit (faultyCommit: once followed by a crash, once by the process
// going on, F8), in a start (faultyRestore), in a clean close (faultyClose: the close's marker
// point) and, switching formats, in an upgrade (faultyUpgrade); each damage kind of a log
// partition twice per configuration (damageLog, F6) and of two of a store's files (damageStore:
// a MANIFEST, a table file; in the legacy format the .checkpoint and, after a legacy commit, a
// .position file) — each step checked as the property checks it. The
// fail-point counters (EngineFailPointCounts, faults::FsFailPointCounts) say what fired.
// `configs` chooses some of FaultSweepConfigs() (empty: all of them).
struct FaultSweepOutcome {
  int runs = 0;              // Scenarios run (configurations x points).
  int keep_going_steps = 0;  // Faulty commits the process went on after (F8) ...
  int damage_steps = 0;  // ... and damageLog and damageStore steps (F6), each checked as replayed.
  std::vector<std::string> failures;  // "<config>, <point>: step N <op>: <what the check said>".
};
const std::vector<std::string>& FaultSweepConfigs();
FaultSweepOutcome RunFaultSweep(const std::vector<std::string>& points,
                                const std::vector<std::string>& configs = {});

}  // namespace statecheck::properties::task

#endif  // STATECHECK_PROPERTIES_TASK_PROPERTY_H_
