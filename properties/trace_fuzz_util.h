// What the trace fuzz targets (properties/*_trace_fuzz.cc) share: the invariant check, and the
// shape every trace parser's error must have.
#ifndef STATECHECK_PROPERTIES_TRACE_FUZZ_UTIL_H_
#define STATECHECK_PROPERTIES_TRACE_FUZZ_UTIL_H_

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "statecheck/status.h"

namespace statecheck::properties::fuzz {

inline void Check(bool ok, const char* target, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "%s: invariant broken: %s\n%s\n", target, what, detail.c_str());
  std::abort();
}

// Lines as the parsers count them: 1 + the newlines.
inline int LineCount(std::string_view text) {
  int lines = 1;
  for (char c : text) lines += c == '\n';
  return lines;
}

// An InvalidArgument that says where: "line N: <what>" with N a line of `text` and a non-empty
// what, or exactly `empty` (the message for a trace without a header).
inline void CheckTraceError(const char* target, const Status& s, std::string_view text,
                            const std::string& empty) {
  Check(s.code() == Status::Code::kInvalidArgument, target, "an error that is not InvalidArgument",
        s.ToString());
  if (s.message() == empty) return;
  const std::string& m = s.message();
  Check(m.rfind("line ", 0) == 0, target, "an error not naming the line", m);
  int line = 0;
  const auto [ptr, ec] = std::from_chars(m.data() + 5, m.data() + m.size(), line);
  Check(ec == std::errc() && line >= 1 && line <= LineCount(text), target,
        "an error naming a line the text does not have", m);
  const std::string_view rest(ptr, m.data() + m.size() - ptr);
  Check(rest.size() > 2 && rest.substr(0, 2) == ": ", target, "an error that says nothing", m);
}

}  // namespace statecheck::properties::fuzz

#endif  // STATECHECK_PROPERTIES_TRACE_FUZZ_UTIL_H_
