#include "properties/trace_replay.h"

#include <fstream>
#include <sstream>

#include "properties/kit/json_lines.h"
#include "properties/kit/trace.h"
#include "properties/property_registry.h"
#include "properties/task_property.h"

namespace statecheck::properties {
namespace {

constexpr const char* kFormatHint = "\n(the trace format is described in docs/traces.md)";

// A task or windowed trace: parsed with `parse`, run by `replay` on the engine and the model.
template <class Trace, class Outcome>
Status ReplayOnBoth(std::string_view text, const std::string& path, ReplayTarget target,
                    Status (*parse)(std::string_view, const std::string&, Trace*),
                    Status (*replay)(const Trace&, Outcome*), std::string (*describe)(const Trace&),
                    TraceReplay* out) {
  if (target != ReplayTarget::kBoth) {
    return Status::InvalidArgument("a " + out->kind +
                                   " trace replays against the engine and the model together; "
                                   "drop --against");
  }
  Trace trace;
  Status s = parse(text, path, &trace);
  if (!s.ok()) return Status::InvalidArgument(s.message() + kFormatHint);
  out->steps = static_cast<int>(trace.steps.size());
  out->description = std::to_string(out->steps) + " steps of " + describe(trace);
  if (trace.info.contains("failure") && trace.info["failure"].is_string()) {
    out->recorded_failure = trace.info["failure"].template get<std::string>();
  }
  Outcome o;
  STATECHECK_RETURN_IF_ERROR(replay(trace, &o));
  out->steps_run = o.steps_run;
  out->diverged = o.diverged;
  if (!o.diverged) {
    out->verdict = "OK: all " + std::to_string(o.steps_run) + " steps passed every check\n";
    return Status::Ok();
  }
  out->step = o.step;
  out->line = o.line;
  out->op = o.op;
  out->message = o.message;
  out->rule = o.rule;
  out->verdict = "DIVERGED at step " + std::to_string(o.step) + " (line " + std::to_string(o.line) +
                 ")\n  op: " + o.op + "\n  " + o.message + "\n";
  return Status::Ok();
}

}  // namespace

Status ReplayTraceFile(const std::string& path, ReplayTarget target, TraceReplay* out) {
  *out = TraceReplay();
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::InvalidArgument("cannot open trace file " + path);
  std::stringstream text;
  text << file.rdbuf();
  return ReplayTraceText(text.str(), path, target, out);
}

namespace {

// Replays `text` by its kind (the header's).
Status ReplayByKind(std::string_view text, const std::string& path, ReplayTarget target,
                    TraceReplay* out) {
  out->kind = TraceKind(text);
  if (out->kind.empty()) out->kind = "window_store";  // Its reader names what is wrong.
  out->family = out->kind;
  for (const TraceKindSpec& spec : AllTraceKinds()) {
    if (spec.kind != out->kind) continue;
    out->family = spec.family;
    const Status s = spec.replay(text, path, target, out);
    return s.ok() ? s : Status::InvalidArgument(s.message() + kFormatHint);
  }
  if (out->kind == "task") {
    return ReplayOnBoth<TaskTrace, TaskReplayOutcome>(
        text, path, target, &ParseTaskTrace,
        +[](const TaskTrace& t, TaskReplayOutcome* o) { return ReplayTaskTrace(t, o); },
        +[](const TaskTrace& t) {
          return "task configuration " + t.config + ", setup " + t.setup.dump();
        },
        out);
  }
  std::string kinds;
  for (const TraceKindSpec& spec : AllTraceKinds()) kinds += spec.kind + ", ";
  return Status::InvalidArgument("line 1: header \"kind\" names no kind this statecheck reads: \"" +
                                 out->kind + "\" (it reads " + kinds + "task)");
}

}  // namespace

Status ReplayTraceText(std::string_view text, const std::string& path, ReplayTarget target,
                       TraceReplay* out) {
  *out = TraceReplay();
  const Status s = ReplayByKind(text, path, target, out);
  // Every kind's bad input names the file, once.
  if (s.ok() || s.message().starts_with(path + ": ")) return s;
  return Status::InvalidArgument(path + ": " + s.message());
}

Status EmitGTestFile(const std::string& path, std::string test_name, std::string* out) {
  std::string text;
  STATECHECK_RETURN_IF_ERROR(kit::ReadTextFile(path, &text));
  std::string kind = TraceKind(text);
  if (kind.empty()) kind = "window_store";  // Its reader names what is wrong.
  for (const TraceKindSpec& spec : AllTraceKinds()) {
    if (spec.kind != kind) continue;
    if (!spec.emit_gtest) break;
    const Status s = spec.emit_gtest(text, path, std::move(test_name), out);
    if (s.ok() || s.message().starts_with(path + ": ")) return s;
    return Status::InvalidArgument(path + ": " + s.message() + kFormatHint);
  }
  return Status::InvalidArgument(
      path + ": --emit-gtest takes the kinds on the harness's state-machine kit; a " + kind +
      " trace is not on it yet: run it with `statecheck replay " + path + "`");
}

}  // namespace statecheck::properties
