// Concurrency histories of a key-value store (SPEC T2, T3, T4, T8), checked after the fact.
//
// rapidcheck has no parallel state testing, so this check is Jepsen-style: one writer thread
// and N interactive-query reader threads run for real against a KeyValueStore, every call is
// recorded as an event with an invocation and a response timestamp, and CheckHistory judges
// the whole history once the threads have stopped. Only the thread interleaving is left to
// chance; what the writer writes, what the readers ask and the writer's commit/rollback choices
// all come from the seed.
//
// How it differs from the model-based properties (kv_store/property.h): nothing is compared
// step by step. An operation took effect at some instant between its invocation and its
// response, so the checker accepts every result that some such instant explains, and reports
// the results no instant can explain.
//
// Timestamps are logical: one global counter, read with relaxed atomics so that recording a
// history adds no happens-before edge between the writer and the readers (an acquire/release
// counter would hide the very races ThreadSanitizer is run to find).
#ifndef STATECHECK_PROPERTIES_KV_HISTORY_H_
#define STATECHECK_PROPERTIES_KV_HISTORY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/finding.h"
#include "properties/kit/outcome.h"
#include "statecheck/key_value_store.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck::properties::kv_concurrency {

enum class EventKind {
  kPut,       // Writer: Put(key, value, context).
  kDelete,    // Writer: Delete(key, context).
  kCommit,    // Writer: Commit(offsets) ending an epoch.
  kRollback,  // Writer: Rollback() ending an epoch (READ_COMMITTED only).
  kGet,       // Reader: QueryView::Get(key).
  kRange,     // Reader: QueryView::Range/ReverseRange/All/ReverseAll, drained to the end.
};

std::string_view EventKindName(EventKind kind);
inline bool IsWriterEvent(EventKind kind) {
  return kind == EventKind::kPut || kind == EventKind::kDelete || kind == EventKind::kCommit ||
         kind == EventKind::kRollback;
}

struct Event {
  int thread = 0;  // 0 = the writer; 1..N = the readers.
  EventKind kind = EventKind::kGet;
  int64_t invoke = 0;    // Taken just before the call.
  int64_t response = 0;  // Taken just after it returned (for a range, after the last record).
  Status status;         // What the call returned; any error is itself a violation.

  int64_t epoch = 0;  // Writer events: the epoch (1, 2, ...) the event belongs to.
  // Put, Delete, Get: the key. Put: the value written. Get: the value read (nullopt = absent).
  std::string key;
  std::optional<std::string> value;
  // Range: the bounds asked for (nullopt = unbounded), the direction, and what was read, in
  // iteration order.
  std::optional<std::string> from, to;
  bool reverse = false;
  std::vector<KeyValue> records;
  // Put, Delete: the write's RecordContext as a one-entry position (empty = no context).
  // Commit: the store's CommittedPosition() once the commit returned.
  // Get, Range: the view's LastReadPosition() right after the read.
  Position position;
};

struct History {
  IsolationLevel isolation = IsolationLevel::kReadCommitted;
  uint64_t seed = 0;
  int readers = 0;
  std::vector<Event> events;  // Ordered by invocation.
};

struct WorkloadOptions {
  uint64_t seed = 1;
  int epochs = 200;
  int readers = 3;
  int keys = 8;                  // The key set: "k0" .. "k<keys-1>".
  int max_writes_per_epoch = 4;  // Each epoch writes 1..this many distinct keys.
  double delete_probability = 0.25;
  // Under READ_COMMITTED, the chance that an epoch ends in Rollback instead of Commit.
  double rollback_probability = 0.2;
  std::string partition = "input-0";      // The RecordContext partition of every write.
  std::string changelog = "changelog-0";  // Commit(offsets) stores {changelog: epoch}.
  // A reader stops after this many reads even if the writer is still running (bounds the
  // history's size on a slow machine); 0 = no limit.
  int max_reads_per_reader = 20000;
  // A reader sleeps up to this long (uniformly) after each read; 0 = it spins.
  int reader_pause_us = 100;
};

// A range result longer than this means a broken iterator, not a big store: the workload and the
// checker stop draining there.
size_t MaxRangeRecords(const WorkloadOptions& o);
// Reads `it` into `ev`'s records (up to `limit`; more is an Aborted status), or its error into
// `ev`'s status.
void DrainInto(KeyValueIterator& it, size_t limit, Event* ev);

// Runs the workload on `store`, which must be open, empty and at an empty position.
//
// The calling thread is the writer: it creates one QueryView per reader, starts the readers,
// then runs `epochs` epochs. In epoch e it writes 1..max_writes_per_epoch distinct keys, each a
// Put of "e<e>:<key>" or a Delete, all with RecordContext{partition, e}, then commits with
// offsets {changelog: e}, or (READ_COMMITTED only, with rollback_probability) rolls back.
// Readers loop on Get, All, ReverseAll, Range and ReverseRange over the key set until the
// writer is done. The store is left open.
//
// Returns the first error of a writer call (the history then ends with the failed event) or
// InvalidArgument for bad options; reader errors are only recorded, for the checker to report.
Status RunWorkload(KeyValueStore& store, const WorkloadOptions& options, History* history);

// Judges `history` against `isolation`. Returns OK, or Aborted whose message counts the
// violations by kind; `*report` (always written) says what was checked and, on failure, names
// every violating event with the writer events that prove it wrong. InvalidArgument for a
// history that cannot be judged (overlapping writer events, a Put value written twice to one
// key, two commits at one position with different states).
//
// READ_COMMITTED (T4, T8). The committed state after each commit is rebuilt from the writer
// events; a commit takes effect at some instant of its call. Each read must:
//   * "dirty read": never return a value whose epoch had not begun to commit when the read
//     returned (still open, committed later, or rolled back later);
//   * "rolled-back read": never return a value of an epoch rolled back before the read;
//   * "unknown position": report a position that some commit (or the empty initial state) has;
//   * "torn read" / "position mismatch": return exactly the committed state at the position it
//     reports (restricted to its range, in its order) — all of a commit or none, one snapshot
//     per range read. "torn" when the result equals no committed state at all;
//   * "position from the future": report a commit that had begun before the read returned;
//   * "stale read": report no commit older than the last one that returned before the read
//     was invoked;
//   * "position went backwards": a reader's successive reads never report an older commit.
// And each commit must report the position its writes advanced to ("commit position", T8).
//
// READ_UNCOMMITTED (T3). Each read, for each key it covers, must return the value of the last
// write to that key that returned before the read was invoked, or of a later write invoked
// before the read returned ("stale read" otherwise), and never a value no Put wrote to that
// key ("never written").
Status CheckHistory(const History& history, IsolationLevel isolation, std::string* report);

// The rule a violation kind of CheckHistory breaks:
//   T4 (READ_COMMITTED isolation): "dirty read", "rolled-back read", "torn read";
//   T8 (positions): "unknown position", "position mismatch", "position from the future",
//       "position went backwards", "commit position", and "stale read" under READ_COMMITTED
//       (the read reports a position older than a commit that had returned);
//   T3 (READ_UNCOMMITTED visibility): "stale read" under READ_UNCOMMITTED (a write that had
//       returned is not visible), "read from the future";
//   T2 (nothing a reader does corrupts the store): "never written", "malformed range",
//       "operation failed".
std::string_view RuleOfKvViolation(std::string_view kind, IsolationLevel isolation);

// CheckHistory's verdict with what the property needs besides: the finding and the
// situations of T2, T3, T4 and T8 (reports/rules.json) the history reached.
struct HistoryVerdict {
  Status status;  // As CheckHistory returns.
  std::string report;
  // The first violation (in invocation order), credited to RuleOfKvViolation of its kind, with
  // the summary as its message; for a history that cannot be judged because two commits report
  // one position with different states, a T8 finding. Otherwise nullopt (held, or the history
  // is malformed: a harness bug, credited to no rule).
  model::CheckResult finding;
  // Filled only when no violation was found: every situation some read reached, e.g.
  // "T4.read_while_epoch_open" (a read ran entirely while the writer held uncommitted writes),
  // "T2.concurrent_readers" (two readers' reads were in flight at once).
  std::set<std::string> situations;
};
HistoryVerdict JudgeKvHistory(const History& history, IsolationLevel isolation);

// Opens the store the concurrency check runs against: open, empty, at an empty position, in
// `directory` (fresh, removed afterwards by the caller).
using StoreFactory = std::function<Status(const std::string& directory, IsolationLevel isolation,
                                          std::unique_ptr<KeyValueStore>*)>;

// The engine's RocksDB store (no WAL), on KvScratchEnv() (harness_rocksdb.h).
StoreFactory EngineKvConcurrencyStoreFactory();

// The concurrency check as a campaign property (family kv_concurrency): max(1, max_success /
// 20) workloads, each of 50 epochs from seed params.seed + i, one writer and three readers, each
// workload one case (a CaseScope: its evidence counts per workload). A workload passes when
// its history is clean (JudgeKvHistory) and, once the readers have stopped, the writer's own
// reads and a fresh view return exactly the final committed state the writer's events built
// (T2: the readers corrupted nothing). The first failing workload ends the run; its finding's
// rule is PropertyOutcome::rule, its message starts with the finding ("T4: ...").
PropertyOutcome Check(IsolationLevel isolation, const PropertyParams& params,
                      const StoreFactory& factory = EngineKvConcurrencyStoreFactory());

// One line naming an event, e.g.
//   #512 reader-1 Get("k3") -> "e17:k3" at {input-0=16} [t=1030..1034]
std::string DescribeKvEvent(const History& history, size_t index);
std::string FormatPosition(const Position& position);

}  // namespace statecheck::properties::kv_concurrency

#endif  // STATECHECK_PROPERTIES_KV_HISTORY_H_
