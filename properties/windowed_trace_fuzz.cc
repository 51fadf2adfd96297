// libFuzzer target: any bytes as a windowed-aggregation trace (properties/windowed_trace.h,
// ParseWindowedTrace, which ReadWindowedTrace reads files with). Built only with
// -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// properties/fuzz_corpus/windowed_trace/.
//
// Beyond "no crash, no sanitizer report, no exception", each input must keep:
//   * An error is an InvalidArgument "line N: <what>" naming a line of the text (or "<source>
//     is empty"), and leaves the caller's trace as it was.
//   * On OK, ConfigToJson of the configuration reads back (ConfigFromJson) to an equal one; every
//     step reads as an op whose WOpToJson reads back to an equal op; and the trace rewritten
//     from them parses to the same configuration and ops.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "properties/trace_fuzz_util.h"
#include "properties/windowed_trace.h"

namespace {

using statecheck::Status;
using statecheck::properties::Json;
using statecheck::properties::WindowedAggregationConfig;
using statecheck::properties::WindowedTrace;
using statecheck::properties::WOp;
using statecheck::properties::fuzz::Check;

constexpr char kTarget[] = "windowed_trace_fuzz";
constexpr char kSource[] = "fuzz.jsonl";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  WindowedTrace trace;
  trace.config.label = "sentinel";
  const WindowedAggregationConfig sentinel = trace.config;
  trace.steps.push_back({42, Json::object()});
  const Status s = statecheck::properties::ParseWindowedTrace(text, kSource, &trace);
  if (!s.ok()) {
    statecheck::properties::fuzz::CheckTraceError(kTarget, s, text,
                                                  std::string(kSource) + " is empty");
    Check(trace.config == sentinel && trace.steps.size() == 1 && trace.steps[0].first == 42,
          kTarget, "an error changed the trace");
    return 0;
  }
  const Json config = statecheck::properties::ConfigToJson(trace.config);
  WindowedAggregationConfig again;
  const Status c = statecheck::properties::ConfigFromJson(config, &again);
  Check(c.ok() && again == trace.config, kTarget, "the configuration does not round-trip",
        c.ToString() + "\n" + config.dump());
  Json header = trace.info;
  header["config"] = config;
  std::string rewritten = header.dump() + "\n";
  std::vector<WOp> ops;
  for (const auto& [line, json] : trace.steps) {
    WOp op;
    const Status o = statecheck::properties::WOpFromJson(json, &op);
    Check(o.ok(), kTarget, "an accepted step does not read", o.ToString());
    WOp back;
    const Status b = statecheck::properties::WOpFromJson(WOpToJson(op), &back);
    Check(b.ok() && back == op, kTarget, "an op does not round-trip", WOpToString(op));
    Json step = WOpToJson(op);
    if (json.contains("expect")) step["expect"] = json["expect"];
    rewritten += step.dump() + "\n";
    ops.push_back(std::move(op));
  }
  WindowedTrace reread;
  const Status r = statecheck::properties::ParseWindowedTrace(rewritten, kSource, &reread);
  Check(r.ok(), kTarget, "the rewritten trace does not parse", r.ToString() + "\n" + rewritten);
  Check(reread.config == trace.config && reread.steps.size() == ops.size(), kTarget,
        "the rewritten trace parses to another trace", rewritten);
  for (size_t i = 0; i < ops.size(); ++i) {
    WOp op;
    Check(statecheck::properties::WOpFromJson(reread.steps[i].second, &op).ok() && op == ops[i],
          kTarget, "a rewritten step reads as another op", rewritten);
  }
  return 0;
}
