// JSON Lines, as every trace file is written (docs/traces.md): one JSON value per line, its
// object keys kept in the file's order. Shared by the three trace parsers (window_store_trace.h,
// task_trace.h, windowed_trace.h).
#ifndef STATECHECK_PROPERTIES_JSON_LINES_H_
#define STATECHECK_PROPERTIES_JSON_LINES_H_

#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/status.h"

namespace statecheck::properties {

// InvalidArgument "line <line>: <what>".
Status LineError(int line, const std::string& what);

// Calls row(line number, value) for each line of `text` that is not blank (a trailing '\r' is
// dropped, so CRLF files read the same), in order, and stops at the first error it returns. A
// line that is not JSON is LineError(line, "not valid JSON").
Status ForEachJsonLine(std::string_view text,
                       const std::function<Status(int line, nlohmann::ordered_json value)>& row);

// OK when every key of the object `j` is one of `known`, else InvalidArgument "unknown key \"K\"
// in <where> (it takes: a, b, c)": a misspelled key in a trace is an error, never ignored.
Status CheckKeys(const nlohmann::ordered_json& j, const std::vector<std::string>& known,
                 std::string_view where);
// The keys of the object `j`, then `more`: the keys an object written as `j` may have.
std::vector<std::string> KeysOf(const nlohmann::ordered_json& j,
                                std::initializer_list<std::string> more = {});

// The "kind" of a trace's header — its first line that is not blank — or "" when that line is
// not a JSON object with a string "kind" (or there is none).
std::string TraceKind(std::string_view text);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_JSON_LINES_H_
