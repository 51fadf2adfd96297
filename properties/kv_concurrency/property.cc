// The concurrency check as a campaign property (history.h): each workload recorded, its
// history judged, then the writer's view of the final committed state checked.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/harness_rocksdb.h"
#include "properties/kv_concurrency/history.h"
#include "properties/kv_concurrency/history_file.h"
#include "properties/kv_concurrency/history_internal.h"
#include "properties/rapidcheck_runner.h"

namespace statecheck::properties::kv_concurrency {
namespace {

// The history checker's helpers (history_internal.h): the property judges the final state too.
using namespace internal;  // NOLINT(google-build-using-namespace)

// The state the writer's events leave committed: each epoch's ok writes, applied by its
// commit, dropped by its rollback. A workload ends every epoch, so nothing is pending after it.
State FinalCommittedState(const History& h) {
  State committed;
  std::vector<const Event*> pending;
  for (const Event& ev : h.events) {
    if (ev.thread != 0 || !ev.status.ok()) continue;
    switch (ev.kind) {
      case EventKind::kPut:
      case EventKind::kDelete:
        pending.push_back(&ev);
        break;
      case EventKind::kCommit:
        for (const Event* w : pending) {
          if (w->kind == EventKind::kPut) {
            committed[w->key] = *w->value;
          } else {
            committed.erase(w->key);
          }
        }
        pending.clear();
        break;
      case EventKind::kRollback:
        pending.clear();
        break;
      default:
        break;
    }
  }
  return committed;
}

Status ReadAllOf(ReadOnlyKeyValueStore& store, size_t limit, std::vector<KeyValue>* out) {
  std::unique_ptr<KeyValueIterator> it;
  STATECHECK_RETURN_IF_ERROR(store.All(&it));
  Event ev;
  DrainInto(*it, limit, &ev);
  it->Close();
  *out = std::move(ev.records);
  return ev.status;
}

// T2: once the readers have stopped, the writer's own reads (All and a Get of each key) and a
// fresh view return exactly the final committed state.
// Checks: T2 — after the readers, the writer's view and a fresh view hold the committed state
CheckResult CheckWriterViewIntact(KeyValueStore& store, const History& h,
                                  const WorkloadOptions& o) {
  const State expected = FinalCommittedState(h);
  std::vector<KeyValue> want;
  for (const auto& [k, v] : expected) want.push_back({k, v});
  const std::string after =
      "after " + std::to_string(h.readers) + " reader threads read concurrently with the writer, ";
  auto differs = [&](const std::string& who, const Status& s, const std::vector<KeyValue>& got) {
    return Finding("T2",
                   after + who +
                       (s.ok() ? " returns " + FormatRecords(got) : " fails: " + s.ToString()) +
                       ", but the writer's events committed " + FormatRecords(want));
  };
  std::vector<KeyValue> got;
  Status s = ReadAllOf(store, MaxRangeRecords(o), &got);
  if (!s.ok() || got != want) return differs("the writer's All()", s, got);
  for (int k = 0; k < o.keys; ++k) {
    // Appended, not "k" + std::to_string(...): that trips gcc 12's -Wrestrict at -O3 (a false
    // positive, GCC bug 105329).
    std::string key = "k";
    key += std::to_string(k);
    std::optional<std::string> value;
    s = store.Get(key, &value);
    const std::optional<std::string> expected_value = Lookup(expected, key);
    if (!s.ok() || value != expected_value) {
      return Finding("T2", after + "the writer's Get(" + Quote(key) + ") returns " +
                               (s.ok() ? QuoteOptional(value) : "an error: " + s.ToString()) +
                               ", but the writer's events committed " +
                               QuoteOptional(expected_value));
    }
  }
  const std::shared_ptr<QueryView> view = store.NewQueryView();
  s = ReadAllOf(*view, MaxRangeRecords(o), &got);
  if (!s.ok() || got != want) return differs("a fresh view's All()", s, got);
  return std::nullopt;
}

}  // namespace

PropertyOutcome Check(IsolationLevel isolation, const PropertyParams& params,
                      const StoreFactory& factory) {
  PropertyOutcome out;
  out.property = "kv_concurrency/" + std::string(IsolationLevelName(isolation));
  out.passed = true;
  (void)TakeEvidence();
  const int workloads = std::max(1, params.max_success / 20);
  for (int i = 0; i < workloads; ++i) {
    const CaseScope scope;  // One workload, one case: its evidence counts once.
    const uint64_t seed = params.seed + static_cast<uint64_t>(i);
    const std::string dir = KvScratchDirectory("conc");
    std::filesystem::remove_all(dir);
    WorkloadOptions w;
    w.seed = seed;
    w.epochs = 50;
    std::unique_ptr<KeyValueStore> store;
    History history;
    HistoryVerdict verdict;
    const Status opened = factory(dir, isolation, &store);
    if (!opened.ok()) {
      verdict.status = opened;  // Not a finding: the check could not run.
      verdict.report = "the store could not be opened in " + dir;
    } else if (Status run = RunWorkload(*store, w, &history); !run.ok()) {
      verdict.status = run;
      verdict.report =
          "the writer's call failed: " + DescribeKvEvent(history, history.events.size() - 1);
      // The workload's own calls are valid: a writer call that fails while readers read is
      // the concurrency breaking the writer's view (T2).
      // Checks: T2 — a writer call that fails while readers read
      if (run.code() != Status::Code::kInvalidArgument) {
        verdict.finding = Finding(
            "T2", "a writer call failed with " + run.ToString() + " while reader threads read");
      }
    } else {
      verdict = JudgeKvHistory(history, isolation);
      if (verdict.status.ok()) {
        verdict.finding = CheckWriterViewIntact(*store, history, w);
        if (verdict.finding) verdict.status = Status::Aborted(verdict.finding->message);
      }
    }
    store.reset();
    std::filesystem::remove_all(dir);
    out.operations += static_cast<int64_t>(history.events.size());
    if (!verdict.status.ok()) {
      out.passed = false;
      out.rule = verdict.finding ? verdict.finding->rule : "";
      out.message = (verdict.finding ? verdict.finding->ToString() : verdict.status.ToString()) +
                    "\nworkload seed " + std::to_string(seed) + " (" + std::to_string(w.epochs) +
                    " epochs, " + std::to_string(w.readers) + " readers)\n" + verdict.report;
      // The history, for `statecheck replay` to judge again (history_file.h).
      if (!params.trace_dir.empty() && !history.events.empty()) {
        Json info{{"property", out.property}, {"seed", params.seed}, {"failure", out.message}};
        SaveTraceText(kv_concurrency::FormatHistory(history, info), params, &out);
      }
      break;
    }
    // Everything the history reached was judged, and held.
    for (const std::string& situation : verdict.situations) Reached(situation);
    Reached("T2.writer_view_intact");
    HeldAll();
    ++out.cases;
  }
  out.evidence = TakeEvidence();
  return out;
}

}  // namespace statecheck::properties::kv_concurrency
