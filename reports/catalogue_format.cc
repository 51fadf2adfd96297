#include "reports/catalogue_format.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"

namespace statecheck::reports {
namespace {

constexpr std::size_t kTableWidth = 100;
constexpr std::size_t kColumnGap = 2;
// Below this the statement column would be too narrow to read; the table grows instead.
constexpr std::size_t kMinStatementWidth = 30;
constexpr std::string_view kNotChecked = "not yet checked";

std::string ChecksCell(const Rule& rule) {
  if (rule.checks.empty()) return std::string(kNotChecked);
  return std::to_string(rule.checks.size()) + (rule.checks.size() == 1 ? " check" : " checks");
}

// Splits `text` at spaces into lines of at most `width` characters; a word longer than `width`
// gets a line of its own.
std::vector<std::string> Wrap(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

void AppendPadded(std::string* out, std::string_view cell, std::size_t width) {
  out->append(cell);
  out->append(width - std::min(width, cell.size()) + kColumnGap, ' ');
}

void TrimTrailingSpaces(std::string* line) {
  while (!line->empty() && line->back() == ' ') line->pop_back();
}

}  // namespace

std::string FormatRulesText(const std::vector<const Rule*>& rules) {
  std::size_t id_width = 2;     // "ID"
  std::size_t title_width = 5;  // "TITLE"
  std::size_t checks_width = kNotChecked.size();
  for (const Rule* rule : rules) {
    id_width = std::max(id_width, rule->id.size());
    title_width = std::max(title_width, rule->title.size());
    checks_width = std::max(checks_width, ChecksCell(*rule).size());
  }
  const std::size_t indent = id_width + title_width + checks_width + 3 * kColumnGap;
  const std::size_t statement_width =
      std::max(kMinStatementWidth, kTableWidth - std::min(kTableWidth, indent));

  std::string out;
  auto append_row = [&](std::string_view id, std::string_view title, std::string_view checks,
                        std::string_view statement) {
    std::string line;
    AppendPadded(&line, id, id_width);
    AppendPadded(&line, title, title_width);
    AppendPadded(&line, checks, checks_width);
    line += statement;
    TrimTrailingSpaces(&line);
    out += line;
    out += '\n';
  };
  append_row("ID", "TITLE", "CHECKS", "STATEMENT");
  std::size_t checked = 0;
  for (const Rule* rule : rules) {
    if (!rule->checks.empty()) ++checked;
    std::vector<std::string> lines = Wrap(rule->statement, statement_width);
    append_row(rule->id, rule->title, ChecksCell(*rule), lines.front());
    for (std::size_t i = 1; i < lines.size(); ++i) append_row("", "", "", lines[i]);
    // Its situations, each as "- W3.at_boundary: text" with wrapped lines indented under it.
    for (const Situation& sit : rule->situations) {
      const std::vector<std::string> sl = Wrap(sit.name + ": " + sit.text, statement_width - 2);
      append_row("", "", "", "- " + sl.front());
      for (std::size_t i = 1; i < sl.size(); ++i) append_row("", "", "", "  " + sl[i]);
    }
  }
  std::size_t situations = 0;
  for (const Rule* rule : rules) situations += rule->situations.size();
  out += std::to_string(rules.size()) + (rules.size() == 1 ? " rule: " : " rules: ") +
         std::to_string(checked) + " checked, " + std::to_string(rules.size() - checked) +
         " not yet checked; " + std::to_string(situations) +
         " situations (\"- \" lines) a campaign must reach.\nEach rule in full: docs/spec.md.\n";
  return out;
}

std::string FormatRulesJson(const std::vector<const Rule*>& rules) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const Rule* rule : rules) {
    nlohmann::ordered_json object;
    object["id"] = rule->id;
    object["family"] = rule->family;
    object["title"] = rule->title;
    object["statement"] = rule->statement;
    object["checks"] = rule->checks;
    object["property_families"] = rule->property_families;
    nlohmann::ordered_json situations = nlohmann::ordered_json::array();
    for (const Situation& sit : rule->situations) {
      situations.push_back({{"name", sit.name}, {"text", sit.text}});
    }
    object["situations"] = std::move(situations);
    array.push_back(std::move(object));
  }
  // Strict UTF-8 would throw on a bad byte; replace it instead, so nothing escapes as an
  // exception (Parse accepts only valid JSON, so catalogue strings are valid UTF-8 anyway).
  return array.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string FormatCheckNames(const std::vector<const Rule*>& rules) {
  std::vector<std::string_view> seen;
  std::string out;
  for (const Rule* rule : rules) {
    for (const std::string& check : rule->checks) {
      if (std::find(seen.begin(), seen.end(), check) != seen.end()) continue;
      seen.push_back(check);
      out += check;
      out += '\n';
    }
  }
  return out;
}

}  // namespace statecheck::reports
