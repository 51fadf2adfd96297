// libFuzzer target: any bytes as a task trace (properties/task_trace.h, ParseTaskTrace, which
// ReadTaskTrace reads files with). Built only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh
// runs it over properties/fuzz_corpus/task_trace/.
//
// Beyond "no crash, no sanitizer report, no exception", each input must keep:
//   * An error is an InvalidArgument "line N: <what>" naming a line of the text (or "<source>
//     is empty"), and leaves the caller's trace as it was.
//   * On OK, the header's setup reads (SetupFromJson); every step reads as an op whose
//     TaskOpToString reads back to an op that prints the same; and the trace rewritten from the
//     header and those lines parses to the same configuration and steps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "properties/task_trace.h"
#include "properties/trace_fuzz_util.h"

namespace {

using statecheck::Status;
using statecheck::properties::Json;
using statecheck::properties::TaskOp;
using statecheck::properties::TaskTrace;
using statecheck::properties::fuzz::Check;

constexpr char kTarget[] = "task_trace_fuzz";
constexpr char kSource[] = "fuzz.jsonl";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  TaskTrace trace;
  trace.config = "sentinel";
  trace.steps.push_back({42, Json::object()});
  const Status s = statecheck::properties::ParseTaskTrace(text, kSource, &trace);
  if (!s.ok()) {
    statecheck::properties::fuzz::CheckTraceError(kTarget, s, text,
                                                  std::string(kSource) + " is empty");
    Check(trace.config == "sentinel" && trace.steps.size() == 1 && trace.steps[0].first == 42,
          kTarget, "an error changed the trace");
    return 0;
  }
  Check(!trace.config.empty(), kTarget, "a trace without a configuration");
  statecheck::properties::TaskSetup setup;
  Check(statecheck::properties::SetupFromJson(trace.setup, &setup).ok(), kTarget,
        "a header whose setup does not read", trace.setup.dump());
  std::string rewritten = trace.info.dump() + "\n";
  for (const auto& [line, json] : trace.steps) {
    TaskOp op;
    const Status o = statecheck::properties::TaskOpFromJson(json, &op);
    Check(o.ok(), kTarget, "an accepted step does not read", o.ToString());
    const std::string printed = statecheck::properties::TaskOpToString(op);
    const Json back = Json::parse(printed, nullptr, /*allow_exceptions=*/false);
    TaskOp again;
    const Status a = statecheck::properties::TaskOpFromJson(back, &again);
    Check(a.ok(), kTarget, "TaskOpToString's text does not read", a.ToString() + "\n" + printed);
    Check(statecheck::properties::TaskOpToString(again) == printed, kTarget,
          "an op does not print the same after a round trip", printed);
    rewritten += printed + "\n";
  }
  TaskTrace reread;
  const Status r = statecheck::properties::ParseTaskTrace(rewritten, kSource, &reread);
  Check(r.ok(), kTarget, "the rewritten trace does not parse", r.ToString() + "\n" + rewritten);
  Check(reread.config == trace.config && reread.setup == trace.setup &&
            reread.steps.size() == trace.steps.size(),
        kTarget, "the rewritten trace parses to another trace", rewritten);
  return 0;
}
