#include "properties/kit/json_lines.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace statecheck::properties {
namespace {

// Two result strings that are the same bytes: equal, or both escaped byte strings (EscapeBytes)
// that unescape to the same bytes, so that an expectation's "\xFF" matches the output's "\xff".
bool SameBytes(const std::string& expected, const std::string& actual) {
  if (expected == actual) return true;
  std::string a, b;
  return UnescapeBytes(expected, &a).ok() && UnescapeBytes(actual, &b).ok() && a == b;
}

}  // namespace

std::string EscapeBytes(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Status UnescapeBytes(std::string_view text, std::string* bytes) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    if (c >= 0x80) {
      return Status::InvalidArgument("non-ASCII character at offset " + std::to_string(i) +
                                     ": write bytes above 0x7f as \\xNN");
    }
    if (c != '\\') {
      out += static_cast<char>(c);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (i + 3 < text.size() + 0 && text[i + 1] == 'x' && hex(text[i + 2]) >= 0 &&
               hex(text[i + 3]) >= 0) {
      out += static_cast<char>(hex(text[i + 2]) * 16 + hex(text[i + 3]));
      i += 3;
    } else {
      return Status::InvalidArgument("bad escape at offset " + std::to_string(i) +
                                     ": use \\\\ for a backslash and \\xNN for a byte");
    }
  }
  *bytes = std::move(out);
  return Status::Ok();
}

bool MatchesExpectation(const Json& expected, const Json& actual) {
  if (expected.is_string() && actual.is_string()) {
    return SameBytes(expected.get<std::string>(), actual.get<std::string>());
  }
  if (expected.is_array() && actual.is_array()) {
    if (expected.size() != actual.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!MatchesExpectation(expected[i], actual[i])) return false;
    }
    return true;
  }
  if (!expected.is_object() || !actual.is_object()) return expected == actual;
  for (auto& [k, v] : expected.items()) {
    auto it = actual.find(k);
    if (it == actual.end() || !MatchesExpectation(v, *it)) return false;
  }
  return true;
}

Status FieldOf(const Json& j, std::string_view name, const Json** out) {
  auto it = j.find(name);
  if (it == j.end()) {
    return Status::InvalidArgument("missing field \"" + std::string(name) + "\"");
  }
  *out = &*it;
  return Status::Ok();
}

Status ReadInt64(const Json& j, std::string_view what, int64_t* out) {
  if (!j.is_number_integer())
    return Status::InvalidArgument(std::string(what) + " must be an integer");
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()}) {
    return Status::InvalidArgument(std::string(what) + " is out of range");
  }
  *out = j.get<int64_t>();
  return Status::Ok();
}

Status ReadBytes(const Json& j, std::string_view what, std::string* out) {
  if (!j.is_string()) return Status::InvalidArgument(std::string(what) + " must be a string");
  std::string bytes;
  if (Status s = UnescapeBytes(j.get<std::string>(), &bytes); !s.ok()) {
    return Status::InvalidArgument(std::string(what) + ": " + s.message());
  }
  *out = std::move(bytes);
  return Status::Ok();
}

Status ReadNullableBytes(const Json& j, std::string_view what, std::optional<std::string>* out) {
  if (j.is_null()) {
    out->reset();
    return Status::Ok();
  }
  if (!j.is_string()) {
    return Status::InvalidArgument(std::string(what) + " must be a string or null");
  }
  std::string bytes;
  STATECHECK_RETURN_IF_ERROR(ReadBytes(j, what, &bytes));
  *out = std::move(bytes);
  return Status::Ok();
}

Json BytesJson(const std::optional<std::string>& bytes) {
  return bytes ? Json(EscapeBytes(*bytes)) : Json(nullptr);
}

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
