// The values every family's property, trace and replay share: how a property is run
// (PropertyParams), what it found (PropertyOutcome), what a replay runs on (ReplayTarget) and
// what it found (TraceReplay). The generic machinery over a family is family.h.
#ifndef STATECHECK_PROPERTIES_KIT_OUTCOME_H_
#define STATECHECK_PROPERTIES_KIT_OUTCOME_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/evidence.h"
#include "statecheck/status.h"

namespace statecheck::properties {

struct PropertyParams {
  uint64_t seed = 0;
  int max_success = 100;  // Cases (operation sequences) to run.
  int max_size = 60;      // Upper bound on a sequence's length.
  bool shrink = true;
  // Re-runs exactly the case a failure printed (rapidcheck's reproduce string).
  std::optional<std::string> reproduce;
  // Where a failing case's shrunk trace is written ("" = not written).
  std::string trace_dir;
};

struct PropertyOutcome {
  std::string property;  // "window_store/MatchesModel/<label>"
  bool passed = false;
  int cases = 0;           // Sequences run to the end (shrinking attempts excluded).
  int64_t operations = 0;  // Every op executed, shrinking included.
  std::string message;     // Why it failed; empty on success.
  // The rule the failing check enforces (its Finding's); "" when the failure came from no check
  // (an unexpected exception, a crash): the report then says it is unattributed.
  std::string rule;
  Evidence evidence;  // The situations its cases reached and checked (evidence.h).
  std::string trace_path;
  std::string reproduce;
  std::vector<std::string> counterexample;  // The shrunk sequence, one op per line.
};

// What a replay runs a trace on: the implementation under test, the model, or both in lockstep
// (then the two must also agree with each other). Families whose system under test is the
// engine and the model together take kBoth only.
enum class ReplayTarget { kEngine, kModel, kBoth };
// Every target: the family's start takes the implementation and the model apart.
inline const std::vector<ReplayTarget>& EveryReplayTarget() {
  static const std::vector<ReplayTarget> targets = {ReplayTarget::kEngine, ReplayTarget::kModel,
                                                    ReplayTarget::kBoth};
  return targets;
}
inline const char* ReplayTargetName(ReplayTarget target) {
  static const char* const kNames[] = {"engine", "model", "both"};
  return kNames[static_cast<int>(target)];
}

struct TraceReplay {
  std::string kind;              // The header's: "window_store", "kv_store", "task", ...
  std::string family;            // The property family it belongs to.
  std::string description;       // "9 steps against both", "6 steps of task configuration ...".
  std::string recorded_failure;  // The header's "failure", if any.
  int steps = 0;                 // In the trace.
  int steps_run = 0;             // That passed every check.
  bool diverged = false;
  // On divergence: the step's 1-based index and line, its operation, what the check said and
  // the rule it cites ("" when the difference is not the implementation's: a trace whose
  // expectation the model does not meet either).
  int step = 0;
  int line = 0;
  std::string op;
  std::string message;
  std::string rule;
  // What `statecheck replay` prints after its header: "OK: all N steps ..." or "DIVERGED at
  // step N (line L)..." and the details, ending with a newline.
  std::string verdict;
};

// "k=v, k=v" of a streams configuration, or "defaults": how a registry entry names its
// configuration (PropertySpec::config).
inline std::string DescribeStreamsConfig(const std::map<std::string, std::string>& props) {
  std::string out;
  for (const auto& [k, v] : props) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out.empty() ? "defaults" : out;
}

// One property the harness can run, by id and family, for `statecheck run` and the tests.
struct PropertySpec {
  std::string id;      // "window_store/MatchesModel/ret10_size3"
  std::string family;  // "window_store": the rule catalogue's property_families name it.
  std::string
      check;  // The CTest name the catalogue lists, e.g. "WindowStoreProperty.MatchesModel".
  std::function<PropertyOutcome(const PropertyParams&)> run;
  // A batch runs cases_per_batch / batch_divisor cases: the slow families (a real log and
  // RocksDB per case) take smaller batches so that a time budget is kept to within a batch.
  int batch_divisor = 1;
  // Its row of the option matrix, in words: the configuration it runs ("" for none).
  std::string config = "";
  // Its cases run threads of their own that must run in parallel (kv_concurrency's writer and
  // readers): a pinned campaign worker (tools::WorkerPool::Pinned) runs its batches on every
  // CPU, not on the worker's own.
  bool threads = false;
};

// How `statecheck replay` reads and runs the traces of one kind (the header's "kind"). `replay`
// returns InvalidArgument for bad input (malformed, a config that cannot run, a target the kind
// does not take), naming the line; a divergence is a result, not an error.
struct TraceKindSpec {
  std::string kind;
  std::string family;
  std::function<Status(std::string_view text, const std::string& path, ReplayTarget target,
                       TraceReplay* out)>
      replay;
  // `statecheck replay --emit-gtest`: the trace's `text`, read from `source`, as a GoogleTest
  // named `test_name` (empty: from the file's name); InvalidArgument for bad input. Null: the
  // kind has no test form.
  std::function<Status(std::string_view text, const std::string& source, std::string test_name,
                       std::string* out)>
      emit_gtest;
};

// What a family contributes to the registry (property_registry.h): its properties, in a fixed
// order, and the trace kinds `statecheck replay` reads for it.
struct FamilyEntry {
  std::vector<PropertySpec> properties;
  std::vector<TraceKindSpec> trace_kinds;
  // The rules its checks enforce, declared here rather than in reports/rules.json's
  // property_families (which a family in its own folder need not touch): the campaign counts
  // the family's cases and findings for them (tools/catalogue.h).
  std::vector<std::string> rules;
};

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_KIT_OUTCOME_H_
