#include "properties/trace_replay.h"

#include <utility>

#include "properties/kit/json_lines.h"
#include "properties/kit/trace.h"
#include "properties/property_registry.h"

namespace statecheck::properties {
namespace {

constexpr const char* kFormatHint = "\n(the trace format is described in docs/traces.md)";

// The registry's entry for the kind of `text` (its header's; a text with none is read as a
// window-store trace, whose reader names what is wrong). InvalidArgument naming the kinds there
// are for another.
Status FindKind(std::string_view text, TraceKindSpec* out) {
  std::string kind = TraceKind(text);
  if (kind.empty()) kind = "window_store";
  std::string kinds;
  for (TraceKindSpec& spec : AllTraceKinds()) {
    if (spec.kind == kind) {
      *out = std::move(spec);
      return Status::Ok();
    }
    kinds += std::string(kinds.empty() ? "" : ", ") + spec.kind;
  }
  return Status::InvalidArgument("line 1: header \"kind\" names no kind this statecheck reads: \"" +
                                 kind + "\" (it reads " + kinds + ")");
}

// `s` as bad input of the file at `path`: named once, with where the format is described.
Status OfFile(const std::string& path, const Status& s) {
  if (s.ok()) return s;
  const std::string message = s.message() + kFormatHint;
  return Status::InvalidArgument(s.message().starts_with(path + ": ") ? message
                                                                      : path + ": " + message);
}

}  // namespace

Status ReplayTraceFile(const std::string& path, ReplayTarget target, TraceReplay* out) {
  *out = TraceReplay();
  std::string text;
  STATECHECK_RETURN_IF_ERROR(kit::ReadTextFile(path, &text));
  return ReplayTraceText(text, path, target, out);
}

Status ReplayTraceText(std::string_view text, const std::string& path, ReplayTarget target,
                       TraceReplay* out) {
  *out = TraceReplay();
  TraceKindSpec spec;
  if (Status s = FindKind(text, &spec); !s.ok()) return OfFile(path, s);
  out->kind = spec.kind;
  out->family = spec.family;
  return OfFile(path, spec.replay(text, path, target, out));
}

Status EmitGTestFile(const std::string& path, std::string test_name, std::string* out) {
  std::string text;
  STATECHECK_RETURN_IF_ERROR(kit::ReadTextFile(path, &text));
  TraceKindSpec spec;
  if (Status s = FindKind(text, &spec); !s.ok()) return OfFile(path, s);
  if (!spec.emit_gtest) {
    return OfFile(path, Status::InvalidArgument("a " + spec.kind + " trace has no test form"));
  }
  return OfFile(path, spec.emit_gtest(text, path, std::move(test_name), out));
}

}  // namespace statecheck::properties
