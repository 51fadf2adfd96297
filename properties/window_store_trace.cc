#include "properties/window_store_trace.h"

#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "properties/kit/json_lines.h"
#include "properties/kit/trace_header.h"

namespace statecheck::properties {
namespace {

// `s` as an error of line `line`: "line N: <message>".
Status AtLine(int line, const Status& s) { return s.ok() ? s : LineError(line, s.message()); }

}  // namespace

Status ParseTrace(std::string_view text, Trace* out) {
  Trace trace;
  std::set<int> open, used;
  bool have_header = false;
  STATECHECK_RETURN_IF_ERROR(ForEachJsonLine(text, [&](int line_no, Json j) {
    if (!j.is_object()) return LineError(line_no, "each line must be a JSON object");
    if (!have_header) {
      kit::TraceHeader h;
      STATECHECK_RETURN_IF_ERROR(
          kit::ParseTraceHeader(line_no, j, "window_store", false, {"construction"}, &h));
      Status s = OptionsFromJson(h.config, &trace.config);
      if (!s.ok()) return LineError(line_no, s.message());
      if (auto c = j.find("construction"); c != j.end()) {
        if (!c->is_object() || !c->contains("status") || !(*c)["status"].is_string()) {
          return LineError(line_no, "\"construction\" must be an object with a \"status\"");
        }
        STATECHECK_RETURN_IF_ERROR(
            AtLine(line_no, CheckKeys(*c, {"status", "message"}, "\"construction\"")));
        trace.construction = *c;
      }
      trace.info = std::move(h.info);
      have_header = true;
      return Status::Ok();
    }
    TraceStep step;
    step.line = line_no;
    Status s = OpFromJson(j, &step.op);
    if (!s.ok()) return LineError(line_no, s.message());
    STATECHECK_RETURN_IF_ERROR(
        AtLine(line_no, CheckKeys(j, KeysOf(OpToJson(step.op), {"expect"}),
                                  "a " + std::string(OpTypeName(step.op.type)) + " step")));
    if (auto e = j.find("expect"); e != j.end()) {
      if (!e->is_object()) return LineError(line_no, "\"expect\" must be a JSON object");
      step.expect = *e;
    }
    const int id = step.op.iterator;
    if (step.op.type == OpType::kOpen) {
      if (!used.insert(id).second) {
        return LineError(line_no, "iterator " + std::to_string(id) +
                                      " was opened before: give each open a new id");
      }
      open.insert(id);
    } else if (OpUsesIterator(step.op.type)) {
      if (!open.count(id)) {
        return LineError(line_no, "iterator " + std::to_string(id) +
                                      (used.count(id) ? " is closed" : " was never opened"));
      }
      if (step.op.type == OpType::kCloseIterator) open.erase(id);
    }
    trace.steps.push_back(std::move(step));
    return Status::Ok();
  }));
  if (!have_header) return Status::InvalidArgument("line 1: the trace is empty: no header");
  if (trace.construction && (*trace.construction)["status"] != "OK" && !trace.steps.empty()) {
    return Status::InvalidArgument(
        "line " + std::to_string(trace.steps.front().line) +
        ": the header expects construction to fail, so no operation can follow");
  }
  *out = std::move(trace);
  return Status::Ok();
}

Status ReadTraceFile(const std::string& path, Trace* trace) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open trace file " + path);
  std::stringstream buf;
  buf << in.rdbuf();
  Status s = ParseTrace(buf.str(), trace);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  return Status::Ok();
}

std::string FormatTrace(const Trace& trace) {
  Json header{{"statecheck_trace", kTraceFormatVersion},
              {"kind", "window_store"},
              {"config", OptionsToJson(trace.config)}};
  if (trace.construction) header["construction"] = *trace.construction;
  for (auto& [k, v] : trace.info.items()) header[k] = v;
  std::string out = header.dump() + "\n";
  for (const TraceStep& step : trace.steps) {
    Json j = OpToJson(step.op);
    if (step.expect) j["expect"] = *step.expect;
    out += j.dump() + "\n";
  }
  return out;
}

Status WriteTraceFile(const std::string& path, const Trace& trace) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IOError("cannot write trace file " + path);
  out << FormatTrace(trace);
  out.close();
  if (!out) return Status::IOError("failed writing trace file " + path);
  return Status::Ok();
}

Json StepResult(OpRunner& runner, const Op& op) {
  Json j = runner.Apply(op);
  j["after"] = runner.Metrics();
  return j;
}

}  // namespace statecheck::properties
