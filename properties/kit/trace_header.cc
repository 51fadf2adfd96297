#include "properties/kit/trace_header.h"

#include <algorithm>
#include <utility>

namespace statecheck::properties::kit {

Status ParseTraceHeader(int line, const Json& j, std::string_view kind, bool takes_setup,
                        const std::vector<std::string>& extra_keys, TraceHeader* header) {
  const std::string shape = "{\"statecheck_trace\": " + std::to_string(kTraceFormatVersion) +
                            ", \"kind\": \"" + std::string(kind) + "\", \"config\": ...}";
  if (!j.is_object() || !j.contains("statecheck_trace")) {
    return LineError(line, "the first line must be the trace's header, " + shape);
  }
  const Json& version = j["statecheck_trace"];
  if (!version.is_number_integer()) {
    return LineError(line, "\"statecheck_trace\" is the trace format's version, a number (" +
                               std::to_string(kTraceFormatVersion) + "), not " + version.dump());
  }
  if (version != kTraceFormatVersion) {
    return LineError(line, "unsupported trace version " + version.dump() +
                               " (this statecheck reads version " +
                               std::to_string(kTraceFormatVersion) + ")");
  }
  auto k = j.find("kind");
  if (k == j.end() || !k->is_string() || *k != kind) {
    return LineError(line, "header \"kind\" must be \"" + std::string(kind) + "\"" +
                               (k == j.end() ? std::string() : ", not " + k->dump()));
  }
  std::vector<std::string> known = {"statecheck_trace", "kind", "config"};
  if (takes_setup) known.push_back("setup");
  known.insert(known.end(), extra_keys.begin(), extra_keys.end());
  known.insert(known.end(), CarriedHeaderKeys().begin(), CarriedHeaderKeys().end());
  if (Status s = CheckKeys(j, known, "the header"); !s.ok()) return LineError(line, s.message());
  if (!j.contains("config")) return LineError(line, "the header needs \"config\": " + shape);
  if (takes_setup && !j.contains("setup")) {
    return LineError(line, "the header needs \"setup\": the case's settings");
  }
  TraceHeader h;
  h.kind = std::string(kind);
  h.config = j["config"];
  if (takes_setup) h.setup = j["setup"];
  for (const auto& [key, value] : j.items()) {
    if (std::find(extra_keys.begin(), extra_keys.end(), key) != extra_keys.end()) {
      h.extra[key] = value;
    } else if (std::find(CarriedHeaderKeys().begin(), CarriedHeaderKeys().end(), key) !=
               CarriedHeaderKeys().end()) {
      h.info[key] = value;
    }
  }
  *header = std::move(h);
  return Status::Ok();
}

Json TraceHeaderJson(const TraceHeader& header) {
  Json j{
      {"statecheck_trace", kTraceFormatVersion}, {"kind", header.kind}, {"config", header.config}};
  if (!header.setup.is_null()) j["setup"] = header.setup;
  for (const auto& [key, value] : header.extra.items()) j[key] = value;
  for (const std::string& key : CarriedHeaderKeys()) {
    if (header.info.contains(key)) j[key] = header.info[key];
  }
  return j;
}

}  // namespace statecheck::properties::kit
