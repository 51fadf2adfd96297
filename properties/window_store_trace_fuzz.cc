// libFuzzer target: any bytes as a window-store trace (properties/window_store_trace.h,
// ParseTrace). Built only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// properties/fuzz_corpus/window_store_trace/.
//
// Beyond "no crash, no sanitizer report, no exception", each input must keep:
//   * An error is an InvalidArgument "line N: <what>" naming a line of the text (or the empty
//     trace's message), and leaves the caller's trace as it was.
//   * On OK, FormatTrace's text parses back to a trace that formats to the same text, with the
//     same steps on the same lines of it (one step per line after the header).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "properties/trace_fuzz_util.h"
#include "properties/window_store_trace.h"

namespace {

using statecheck::Status;
using statecheck::properties::Trace;
using statecheck::properties::fuzz::Check;

constexpr char kTarget[] = "window_store_trace_fuzz";

Trace Sentinel() {
  Trace t;
  t.config.name = "sentinel";
  t.steps.emplace_back();
  t.steps.back().line = 42;
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Trace trace = Sentinel();
  const Status s = statecheck::properties::ParseTrace(text, &trace);
  if (!s.ok()) {
    statecheck::properties::fuzz::CheckTraceError(kTarget, s, text,
                                                  "line 1: the trace is empty: no header");
    Check(FormatTrace(trace) == FormatTrace(Sentinel()), kTarget, "an error changed the trace");
    return 0;
  }
  const std::string formatted = FormatTrace(trace);
  Trace again = Sentinel();
  const Status r = statecheck::properties::ParseTrace(formatted, &again);
  Check(r.ok(), kTarget, "FormatTrace's text does not parse", r.ToString() + "\n" + formatted);
  Check(FormatTrace(again) == formatted, kTarget, "formatting is not stable", formatted);
  Check(again.steps.size() == trace.steps.size(), kTarget, "another number of steps", formatted);
  for (size_t i = 0; i < again.steps.size(); ++i) {
    Check(again.steps[i].line == static_cast<int>(i) + 2, kTarget, "a step on another line",
          formatted);
  }
  return 0;
}
