#include "properties/json_lines.h"

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

}  // namespace statecheck::properties
