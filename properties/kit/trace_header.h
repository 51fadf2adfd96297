// The one header every trace starts with (docs/traces.md), whatever its family:
//
//   {"statecheck_trace": 1, "kind": "<family>", "config": <the family's config>,
//    ["setup": <the case's setup>], [family-specific keys], ["note": ...], ["property": ...],
//    ["seed": ...], ["reproduce": ...], ["failure": ...]}
//
// "statecheck_trace" is the format version, checked here once for every family; "note" (free
// text for a hand-written trace) and what the harness writes of the run that saved the trace
// (property, seed, reproduce, failure) are carried, never checked.
#ifndef STATECHECK_PROPERTIES_KIT_TRACE_HEADER_H_
#define STATECHECK_PROPERTIES_KIT_TRACE_HEADER_H_

#include <string>
#include <string_view>
#include <vector>

#include "properties/kit/json_lines.h"
#include "statecheck/status.h"

namespace statecheck::properties {

// The trace format this build reads and writes.
inline constexpr int kTraceFormatVersion = 1;

namespace kit {

struct TraceHeader {
  std::string kind;
  Json config;
  Json setup;                   // null when the header has none.
  Json extra = Json::object();  // The family-specific keys present, as written.
  Json info = Json::object();   // note, property, seed, reproduce, failure: carried along.
};

// Checks `j`, the first line (`line`) of a trace of `kind`, and splits it. InvalidArgument
// "line N: ..." when it is not an object, has no "statecheck_trace" or one that is not this
// build's version (naming both), names another kind, has no "config", has "setup" where the
// family takes none (`takes_setup` false) or misses it where it does, or has a key that is
// neither the grammar's nor one of `extra_keys`.
Status ParseTraceHeader(int line, const Json& j, std::string_view kind, bool takes_setup,
                        const std::vector<std::string>& extra_keys, TraceHeader* header);

// The header line of `header` (ParseTraceHeader reads it back).
Json TraceHeaderJson(const TraceHeader& header);

// The carried keys, in the order they are written.
inline const std::vector<std::string>& CarriedHeaderKeys() {
  static const std::vector<std::string> keys = {"note", "property", "seed", "reproduce", "failure"};
  return keys;
}

}  // namespace kit
}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_KIT_TRACE_HEADER_H_
