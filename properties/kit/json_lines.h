// JSON Lines, as every trace file is written (docs/traces.md): one JSON value per line, its
// object keys kept in the file's order; byte strings escaped into JSON text; a recorded
// expectation matched against a result. Shared by every family's traces (the kit, family.h).
#ifndef STATECHECK_PROPERTIES_KIT_JSON_LINES_H_
#define STATECHECK_PROPERTIES_KIT_JSON_LINES_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/status.h"

namespace statecheck::properties {

using Json = nlohmann::ordered_json;

// Byte strings in JSON: printable ASCII stands for itself, a backslash is written "\\" and any
// other byte "\xNN" (two lowercase hex digits) — so a trace stays valid UTF-8 and readable.
std::string EscapeBytes(std::string_view bytes);
// The inverse; InvalidArgument naming the problem for a bad escape or a non-ASCII character.
Status UnescapeBytes(std::string_view text, std::string* bytes);

// Whether `actual` has every field of `expected` with an equal value (arrays element by element,
// strings as the bytes they escape: "\xFF" matches "\xff"). Expectations are partial: a
// hand-written trace may check one field of a step's result.
bool MatchesExpectation(const Json& expected, const Json& actual);

// Reading a trace's fields, each error an InvalidArgument naming the field (`what`):
//   FieldOf: "missing field \"<name>\"";
//   ReadInt64: "<what> must be an integer" / "<what> is out of range";
//   ReadBytes: "<what> must be a string", or what UnescapeBytes says;
//   ReadNullableBytes: as ReadBytes, null reading as std::nullopt.
Status FieldOf(const Json& j, std::string_view name, const Json** out);
Status ReadInt64(const Json& j, std::string_view what, int64_t* out);
Status ReadBytes(const Json& j, std::string_view what, std::string* out);
Status ReadNullableBytes(const Json& j, std::string_view what, std::optional<std::string>* out);
// Bytes as a trace writes them: escaped (EscapeBytes), or null.
Json BytesJson(const std::optional<std::string>& bytes);

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

#endif  // STATECHECK_PROPERTIES_KIT_JSON_LINES_H_
