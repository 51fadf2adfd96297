#include "properties/json_lines.h"

#include <algorithm>

namespace statecheck::properties {

Status LineError(int line, const std::string& what) {
  return Status::InvalidArgument("line " + std::to_string(line) + ": " + what);
}

Status ForEachJsonLine(std::string_view text,
                       const std::function<Status(int line, nlohmann::ordered_json value)>& row) {
  int line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view s = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::ordered_json j =
        nlohmann::ordered_json::parse(s, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return LineError(line, "not valid JSON");
    STATECHECK_RETURN_IF_ERROR(row(line, std::move(j)));
  }
  return Status::Ok();
}

Status CheckKeys(const nlohmann::ordered_json& j, const std::vector<std::string>& known,
                 std::string_view where) {
  for (const auto& [key, value] : j.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return Status::InvalidArgument("unknown key " + nlohmann::ordered_json(key).dump() + " in " +
                                   std::string(where) + " (it takes: " + list + ")");
  }
  return Status::Ok();
}

std::vector<std::string> KeysOf(const nlohmann::ordered_json& j,
                                std::initializer_list<std::string> more) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

std::string TraceKind(std::string_view text) {
  std::string kind;
  // The first non-blank line decides; ForEachJsonLine's error stops the walk after it.
  (void)ForEachJsonLine(text, [&](int, nlohmann::ordered_json header) {
    if (header.is_object() && header.contains("kind") && header["kind"].is_string()) {
      kind = header["kind"].get<std::string>();
    }
    return Status::Aborted("header read");
  });
  return kind;
}

}  // namespace statecheck::properties
