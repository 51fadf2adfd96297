// JSON Lines, as every trace file is written (docs/traces.md): one JSON value per line, its
// object keys kept in the file's order. Shared by the three trace parsers (window_store_trace.h,
// task_trace.h, windowed_trace.h).
#ifndef STATECHECK_PROPERTIES_JSON_LINES_H_
#define STATECHECK_PROPERTIES_JSON_LINES_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "statecheck/status.h"

namespace statecheck::properties {

// InvalidArgument "line <line>: <what>".
Status LineError(int line, const std::string& what);

// Calls row(line number, value) for each line of `text` that is not blank (a trailing '\r' is
// dropped, so CRLF files read the same), in order, and stops at the first error it returns. A
// line that is not JSON is LineError(line, "not valid JSON").
Status ForEachJsonLine(std::string_view text,
                       const std::function<Status(int line, nlohmann::ordered_json value)>& row);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_JSON_LINES_H_
