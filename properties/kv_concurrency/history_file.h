// A concurrency history as a file (docs/traces.md, "Concurrency histories"): what the
// kv_concurrency family saves when a workload's history breaks a rule, and what `statecheck
// replay` judges again offline, with the same checker (CheckHistory), without running a store.
//
//   {"statecheck_trace":1,"kind":"kv_concurrency",
//    "config":{"isolation":"READ_COMMITTED","readers":3,"seed":42},
//    "expect":{"rule":"T4"},                       (optional: the violation the checker must find)
//    "note":..., "property":..., "seed":..., "failure":...}
//   {"thread":0,"event":"put","invoke":1,"response":2,"status":"OK","epoch":1,"key":"k0",
//    "value":"e1:k0","position":{"input-0":1}}
//   {"thread":1,"event":"get","invoke":3,"response":4,"status":"OK","key":"k0","value":"e1:k0",
//    "position":{}}
//   ...
//
// One line per event, in invocation order, as Jepsen and Elle keep their histories: who called
// what, when it was invoked and when it returned (logical times), and what it returned.
#ifndef STATECHECK_PROPERTIES_KV_CONCURRENCY_HISTORY_FILE_H_
#define STATECHECK_PROPERTIES_KV_CONCURRENCY_HISTORY_FILE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/kit/json_lines.h"
#include "properties/kit/outcome.h"
#include "properties/kv_concurrency/history.h"
#include "statecheck/status.h"

namespace statecheck::properties::kv_concurrency {

struct HistoryFile {
  History history;
  // The rule of the violation the checker must find ("" : the history must be clean).
  std::string expect_rule;
  Json info = Json::object();  // The header's carried keys.
  std::vector<int> lines;      // The line each event was read from.
};

// The history's text: the header (with `info`'s carried keys) and one line per event.
std::string FormatHistory(const History& history, const Json& info);

// Parses a history read from `source`. InvalidArgument "line N: <what>" for a malformed header
// or event: an unknown key or event, a field of the wrong type, a writer event on a reader's
// thread or the other way round, a response before its invocation, events out of invocation
// order; "<source> is empty" for a text without a header. `*out` is unchanged on error.
Status ParseHistory(std::string_view text, const std::string& source, HistoryFile* out);

// `statecheck replay` of a history: judged again with CheckHistory. A violation is a
// divergence credited to its rule, unless the header expects exactly that rule; a clean history
// whose header expects a violation diverges too. A history the checker cannot judge (writer
// events that overlap, ...) is bad input naming the lines of the events at fault.
TraceKindSpec HistoryKind();

}  // namespace statecheck::properties::kv_concurrency

#endif  // STATECHECK_PROPERTIES_KV_CONCURRENCY_HISTORY_FILE_H_
