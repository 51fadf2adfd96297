#include "model/legacy_file_model.h"

#include <charconv>
#include <vector>

namespace statecheck::model {
namespace {

bool JavaSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Integer.parseInt / Long.parseLong: an optional sign, then decimal digits only, in range.
template <typename T>
std::optional<T> JavaNumber(std::string_view s) {
  if (s.starts_with('+')) s.remove_prefix(1);
  const size_t digits = s.starts_with('-') ? 1 : 0;
  if (s.size() == digits || s[digits] < '0' || s[digits] > '9') return std::nullopt;
  T value{};
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = at;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
    if (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n') ++at;
  }
  return lines;
}

// line.split("\\s+"): a leading run gives an empty first field, a trailing run nothing.
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t at = 0;
  while (at < line.size()) {
    size_t end = at;
    while (end < line.size() && !JavaSpace(line[end])) ++end;
    fields.push_back(line.substr(at, end - at));
    at = end;
    while (at < line.size() && JavaSpace(line[at])) ++at;
  }
  return fields;
}

}  // namespace

std::optional<KafkaCheckpoint> ReadKafkaCheckpoint(std::string_view text) {
  const std::vector<std::string_view> lines = Lines(text);
  if (lines.size() < 2) return std::nullopt;
  const std::optional<int32_t> version = JavaNumber<int32_t>(lines[0]);
  const std::optional<int32_t> count = JavaNumber<int32_t>(lines[1]);
  if (version != 0 || !count || *count != static_cast<int64_t>(lines.size()) - 2) {
    return std::nullopt;
  }
  KafkaCheckpoint entries;
  for (size_t i = 2; i < lines.size(); ++i) {
    const std::vector<std::string_view> f = Fields(lines[i]);
    if (f.size() != 3 || f[0].empty()) return std::nullopt;
    const std::optional<int32_t> partition = JavaNumber<int32_t>(f[1]);
    const std::optional<int64_t> offset = JavaNumber<int64_t>(f[2]);
    if (!partition || *partition < 0 || !offset || (*offset < 0 && *offset != -4)) {
      return std::nullopt;
    }
    if (!entries.emplace(std::pair{std::string(f[0]), *partition}, *offset).second) {
      return std::nullopt;
    }
  }
  return entries;
}

// Encodes: F6, U5 — damage a legacy file's format can see is untrusted; other damage is invisible
LegacyFileDamage ExpectedLegacyFileDamage(std::string_view before, std::string_view after) {
  const std::optional<KafkaCheckpoint> damaged = ReadKafkaCheckpoint(after);
  if (!damaged) return LegacyFileDamage::kUntrusted;
  return damaged == ReadKafkaCheckpoint(before) ? LegacyFileDamage::kUnchanged
                                                : LegacyFileDamage::kUndetectable;
}

}  // namespace statecheck::model
