// A family's traces, generic over its vocabulary: the trace type, its parser and writer, trace
// files, and the fuzz target's invariants. No rapidcheck here, so that the fuzz build compiles
// the parsers alone (family.h holds what runs cases).
//
// A vocabulary V declares what a trace of its family says (docs/traces.md):
//
//   struct V {
//     static constexpr std::string_view kKind = "kv_store";   // the header's "kind"
//     using Config = ...;   // one point of the family's option matrix
//     using Op = ...;       // one operation
//     static Json ConfigToJson(const Config&);
//     static Status ConfigFromJson(const Json&, Config*);  // InvalidArgument naming the field
//     static Json OpToJson(const Op&);                     // {"op": "<name>", ...}
//     // Reads OpToJson's form; InvalidArgument naming the field, and an unknown key (CheckKeys).
//     static Status OpFromJson(const Json&, Op*);
//   };
//
// and optionally, for a family whose header says more than its config (the window store's
// "construction", the outcome its construction must have):
//
//     static const std::vector<std::string>& HeaderKeys();  // those keys, beside "config"
//     static Status HeaderFromJson(const Json& keys, Config*);  // the ones present, an object
//     static Json HeaderToJson(const Config&);                  // an object of those keys
//
// and, for a family whose expectations have a shape (the windowed family's "emitted" records):
//
//     static Status CheckExpect(const Op&, const Json& expect);  // InvalidArgument naming a key
//
// and, for a family whose steps depend on each other (an iterator opened before it is used):
//
//     template <class Trace> static Status CheckTrace(const Trace&);  // "line N: ..."
//
// A trace is the header (trace_header.h) and one operation per line, each optionally with
// "expect": the result the step must give (what the family's system under test compares).
#ifndef STATECHECK_PROPERTIES_KIT_TRACE_H_
#define STATECHECK_PROPERTIES_KIT_TRACE_H_

#include <charconv>
#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/kit/json_lines.h"
#include "properties/kit/trace_header.h"
#include "statecheck/status.h"

namespace statecheck::properties::kit {

template <class V>
concept Vocabulary = requires(const typename V::Config& config, const typename V::Op& op,
                              const Json& j, typename V::Config* config_out,
                              typename V::Op* op_out) {
  { V::kKind } -> std::convertible_to<std::string_view>;
  { V::ConfigToJson(config) } -> std::same_as<Json>;
  { V::ConfigFromJson(j, config_out) } -> std::same_as<Status>;
  { V::OpToJson(op) } -> std::same_as<Json>;
  { V::OpFromJson(j, op_out) } -> std::same_as<Status>;
};

template <Vocabulary V>
struct TraceStep {
  typename V::Op op;
  std::optional<Json> expect;
  int line = 0;  // 1-based line in the file it was read from (0: not read from a file).
};

template <Vocabulary V>
struct Trace {
  typename V::Config config;
  Json info = Json::object();  // The header's carried keys (trace_header.h).
  std::vector<TraceStep<V>> steps;
};

// Parses a trace of V's kind read from `source` (a file name, for the message of an empty
// trace). InvalidArgument "line N: <what is wrong>" for a malformed header (trace_header.h), a
// config V does not read, a line that is not an object, an op V does not read, or an "expect"
// that is not an object; "<source> is empty" for a text without a header. `*out` is left
// unchanged on any error.
template <Vocabulary V>
Status ParseTrace(std::string_view text, const std::string& source, Trace<V>* out) {
  Trace<V> trace;
  bool have_header = false;
  STATECHECK_RETURN_IF_ERROR(ForEachJsonLine(text, [&](int line, Json j) -> Status {
    if (!have_header) {
      TraceHeader header;
      std::vector<std::string> header_keys;
      if constexpr (requires { V::HeaderKeys(); }) header_keys = V::HeaderKeys();
      STATECHECK_RETURN_IF_ERROR(ParseTraceHeader(line, j, V::kKind, false, header_keys, &header));
      if (Status s = V::ConfigFromJson(header.config, &trace.config); !s.ok()) {
        return LineError(line, "config: " + s.message());
      }
      if constexpr (requires { V::HeaderKeys(); }) {
        if (Status s = V::HeaderFromJson(header.extra, &trace.config); !s.ok()) {
          return LineError(line, s.message());
        }
      }
      trace.info = std::move(header.info);
      have_header = true;
      return Status::Ok();
    }
    if (!j.is_object()) return LineError(line, "each line must be a JSON object");
    TraceStep<V> step;
    step.line = line;
    if (auto e = j.find("expect"); e != j.end()) {
      if (!e->is_object()) return LineError(line, "\"expect\" must be a JSON object");
      step.expect = *e;
      j.erase("expect");
    }
    if (Status s = V::OpFromJson(j, &step.op); !s.ok()) return LineError(line, s.message());
    if constexpr (requires { V::CheckExpect(step.op, *step.expect); }) {
      if (step.expect) {
        if (Status s = V::CheckExpect(step.op, *step.expect); !s.ok()) {
          return LineError(line, s.message());
        }
      }
    }
    trace.steps.push_back(std::move(step));
    return Status::Ok();
  }));
  if (!have_header) return Status::InvalidArgument(source + " is empty");
  if constexpr (requires { V::CheckTrace(trace); }) {
    STATECHECK_RETURN_IF_ERROR(V::CheckTrace(trace));
  }
  *out = std::move(trace);
  return Status::Ok();
}

// The JSON Lines text of a trace (ParseTrace reads it back to an equal trace).
template <Vocabulary V>
std::string FormatTrace(const Trace<V>& trace) {
  TraceHeader header;
  header.kind = std::string(V::kKind);
  header.config = V::ConfigToJson(trace.config);
  if constexpr (requires { V::HeaderToJson(trace.config); }) {
    header.extra = V::HeaderToJson(trace.config);
  }
  header.info = trace.info;
  std::string out = TraceHeaderJson(header).dump() + "\n";
  for (const TraceStep<V>& step : trace.steps) {
    Json j = V::OpToJson(step.op);
    if (step.expect) j["expect"] = *step.expect;
    out += j.dump() + "\n";
  }
  return out;
}

// The text of the file at `path`; InvalidArgument naming it when it cannot be read.
inline Status ReadTextFile(const std::string& path, std::string* text) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::InvalidArgument("cannot open trace file " + path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  *text = buffer.str();
  return Status::Ok();
}

template <Vocabulary V>
Status WriteTraceFile(const std::string& path, const Trace<V>& trace) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << FormatTrace(trace);
  file.flush();
  if (!file.good()) return Status::IOError("cannot write trace file " + path);
  return Status::Ok();
}

// The fuzz target's body for V's traces (every family's <kind>_trace_fuzz): beyond "no crash,
// no sanitizer report, no exception", an error is an InvalidArgument "line N: <what>" naming a
// line of the text (or "<source> is empty") and leaves the caller's trace as it was; an
// accepted text formats to a trace that parses back and formats the same.
template <Vocabulary V>
int FuzzTraceText(const char* target, const uint8_t* data, size_t size) {
  auto check = [target](bool ok, const char* what, const std::string& detail = "") {
    if (ok) return;
    std::fprintf(stderr, "%s: invariant broken: %s\n%s\n", target, what, detail.c_str());
    std::abort();
  };
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.jsonl";
  Trace<V> trace;
  trace.info["sentinel"] = true;
  const Status s = ParseTrace(text, source, &trace);
  if (!s.ok()) {
    check(s.code() == Status::Code::kInvalidArgument, "an error that is not InvalidArgument",
          s.ToString());
    check(trace.info.contains("sentinel") && trace.steps.empty(), "an error changed the trace");
    const std::string& m = s.message();
    if (m == source + " is empty") return 0;
    check(m.rfind("line ", 0) == 0, "an error not naming the line", m);
    int line = 0;
    const auto [ptr, ec] = std::from_chars(m.data() + 5, m.data() + m.size(), line);
    int lines = 1;
    for (char c : text) lines += c == '\n';
    check(ec == std::errc() && line >= 1 && line <= lines,
          "an error naming a line the text does not have", m);
    const std::string_view rest(ptr, m.data() + m.size() - ptr);
    check(rest.size() > 2 && rest.substr(0, 2) == ": ", "an error that says nothing", m);
    return 0;
  }
  const std::string once = FormatTrace(trace);
  Trace<V> again;
  const Status r = ParseTrace(once, source, &again);
  check(r.ok(), "the formatted trace does not parse", r.ToString() + "\n" + once);
  check(FormatTrace(again) == once, "the trace does not format the same after a round trip", once);
  check(again.steps.size() == trace.steps.size(), "the round trip changed the step count", once);
  return 0;
}

}  // namespace statecheck::properties::kit

#endif  // STATECHECK_PROPERTIES_KIT_TRACE_H_
