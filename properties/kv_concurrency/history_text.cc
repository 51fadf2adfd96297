// The text form of a concurrency history (history.h): quoted bytes and records, event
// kinds, positions, and one line per event.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/kit/json_lines.h"
#include "properties/kv_concurrency/history.h"
#include "properties/kv_concurrency/history_internal.h"

namespace statecheck::properties::kv_concurrency {
namespace internal {

// The bytes as a quoted string in the trace escapes (EscapeBytes), with '"' escaped too.
std::string Quote(std::string_view bytes) {
  std::string out = "\"";
  for (char c : EscapeBytes(bytes)) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string QuoteOptional(const std::optional<std::string>& v) { return v ? Quote(*v) : "absent"; }

std::string FormatRecords(const std::vector<KeyValue>& records) {
  std::string out = "[";
  for (size_t i = 0; i < records.size(); ++i) {
    if (i) out += ", ";
    out += Quote(records[i].key) + "=" + Quote(records[i].value);
  }
  return out + "]";
}

}  // namespace internal

namespace {

using internal::FormatRecords;
using internal::Quote;
using internal::QuoteOptional;

std::string ThreadName(int thread) {
  return thread == 0 ? "writer" : "reader-" + std::to_string(thread);
}

}  // namespace

std::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kPut:
      return "Put";
    case EventKind::kDelete:
      return "Delete";
    case EventKind::kCommit:
      return "Commit";
    case EventKind::kRollback:
      return "Rollback";
    case EventKind::kGet:
      return "Get";
    case EventKind::kRange:
      return "Range";
  }
  return "Unknown";
}

std::string FormatPosition(const Position& position) {
  std::string out = "{";
  for (auto it = position.begin(); it != position.end(); ++it) {
    if (it != position.begin()) out += ", ";
    out += it->first + "=" + std::to_string(it->second);
  }
  return out + "}";
}

std::string DescribeKvEvent(const History& history, size_t index) {
  // Appended piece by piece: "#" + std::to_string(...) trips gcc 12's -Wrestrict at -O3 (a false
  // positive, GCC bug 105329).
  std::string out = "#";
  out += std::to_string(index);
  if (index >= history.events.size()) return out + " (no such event)";
  const Event& ev = history.events[index];
  out += " ";
  out += ThreadName(ev.thread);
  out += " ";
  switch (ev.kind) {
    case EventKind::kPut:
      out += "Put(" + Quote(ev.key) + ", " + QuoteOptional(ev.value) + ")";
      break;
    case EventKind::kDelete:
      out += "Delete(" + Quote(ev.key) + ")";
      break;
    case EventKind::kCommit:
      out += "Commit -> " + FormatPosition(ev.position);
      break;
    case EventKind::kRollback:
      out += "Rollback";
      break;
    case EventKind::kGet:
      out += "Get(" + Quote(ev.key) + ") -> " + QuoteOptional(ev.value) + " at " +
             FormatPosition(ev.position);
      break;
    case EventKind::kRange: {
      const bool all = !ev.from && !ev.to;
      out += ev.reverse ? (all ? "ReverseAll(" : "ReverseRange(") : (all ? "All(" : "Range(");
      if (!all) {
        out += (ev.from ? Quote(*ev.from) : std::string("-inf")) + ".." +
               (ev.to ? Quote(*ev.to) : std::string("+inf"));
      }
      out += ") -> " + FormatRecords(ev.records) + " at " + FormatPosition(ev.position);
      break;
    }
  }
  if (IsWriterEvent(ev.kind)) out += " epoch " + std::to_string(ev.epoch);
  out += " [t=" + std::to_string(ev.invoke) + ".." + std::to_string(ev.response) + "]";
  if (!ev.status.ok()) out += " FAILED: " + ev.status.ToString();
  return out;
}

}  // namespace statecheck::properties::kv_concurrency
