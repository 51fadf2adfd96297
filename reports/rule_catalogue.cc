#include "reports/rule_catalogue.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "builtin_rules_json.h"  // Generated from rules.json by reports/CMakeLists.txt.
#include "nlohmann/json.hpp"

namespace statecheck::reports {
namespace {

using nlohmann::json;

constexpr const char* kStringFields[] = {"id", "family", "title", "statement"};
constexpr const char* kListFields[] = {"checks", "property_families"};

// "rule 3 (W3)", or "rule 3" while the id is not known yet; rules count from 0.
std::string RuleName(std::size_t index, const std::string& id) {
  std::string name = "rule " + std::to_string(index);
  if (!id.empty()) name += " (" + id + ")";
  return name;
}

Status Invalid(std::size_t index, const std::string& id, const std::string& problem) {
  return Status::InvalidArgument("rule catalogue: " + RuleName(index, id) + ": " + problem);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A line of at most kMaxStatementLength characters; `what` names it in the error.
Status CheckOneLine(std::size_t index, const std::string& id, const std::string& what,
                    const std::string& text) {
  if (text.empty()) return Invalid(index, id, what + " is empty");
  if (text.find_first_of("\r\n") != std::string::npos) {
    return Invalid(index, id, what + " must be one line");
  }
  if (text.size() > kMaxStatementLength) {
    return Invalid(index, id,
                   what + " is " + std::to_string(text.size()) + " characters, more than " +
                       std::to_string(kMaxStatementLength));
  }
  return Status::Ok();
}

// The optional "situations": [{"name": "<id>.<snake_case>", "text": "..."}, ...].
Status ParseSituations(const json& element, std::size_t index, Rule* rule) {
  auto it = element.find("situations");
  if (it == element.end()) return Status::Ok();
  const std::string& id = rule->id;
  if (!it->is_array()) {
    return Invalid(index, id,
                   std::string("field \"situations\" must be an array, got ") + it->type_name());
  }
  for (const json& item : *it) {
    if (!item.is_object() || item.size() != 2 || !item.contains("name") || !item.contains("text") ||
        !item["name"].is_string() || !item["text"].is_string()) {
      return Invalid(
          index, id,
          "a situation must be {\"name\": string, \"text\": string}, got " + item.dump());
    }
    Situation s{item["name"].get<std::string>(), item["text"].get<std::string>()};
    const std::string prefix = id + ".";
    const std::string_view suffix =
        std::string_view(s.name).substr(std::min(s.name.size(), prefix.size()));
    if (s.name.compare(0, prefix.size(), prefix) != 0 || suffix.empty() ||
        !std::all_of(suffix.begin(), suffix.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || IsDigit(c) || c == '_'; })) {
      return Invalid(index, id,
                     "situation \"" + s.name + "\" must be \"" + prefix +
                         "\" followed by lower-case letters, digits and '_'");
    }
    STATECHECK_RETURN_IF_ERROR(CheckOneLine(index, id, "situation " + s.name + "'s text", s.text));
    for (const Situation& other : rule->situations) {
      if (other.name == s.name) {
        return Invalid(index, id, "situation \"" + s.name + "\" is declared twice");
      }
    }
    rule->situations.push_back(std::move(s));
  }
  return Status::Ok();
}

// Reads one element of the catalogue array into `*rule`.
Status ParseRule(const json& element, std::size_t index, Rule* rule) {
  if (!element.is_object()) {
    return Invalid(index, "", std::string("expected an object, got ") + element.type_name());
  }
  // The id first, so that every later error can name the rule.
  if (auto it = element.find("id"); it != element.end() && it->is_string()) {
    rule->id = it->get<std::string>();
  }
  for (const auto& [key, value] : element.items()) {
    bool known =
        key == "situations" ||
        std::find(std::begin(kStringFields), std::end(kStringFields), key) !=
            std::end(kStringFields) ||
        std::find(std::begin(kListFields), std::end(kListFields), key) != std::end(kListFields);
    if (!known) return Invalid(index, rule->id, "unknown field \"" + key + "\"");
  }
  for (const char* field : kStringFields) {
    auto it = element.find(field);
    if (it == element.end()) {
      return Invalid(index, rule->id, std::string("missing field \"") + field + "\"");
    }
    if (!it->is_string()) {
      return Invalid(
          index, rule->id,
          std::string("field \"") + field + "\" must be a string, got " + it->type_name());
    }
    if (it->get_ref<const std::string&>().empty()) {
      return Invalid(index, rule->id, std::string("field \"") + field + "\" is empty");
    }
  }
  rule->family = element["family"].get<std::string>();
  rule->title = element["title"].get<std::string>();
  rule->statement = element["statement"].get<std::string>();

  const std::string& id = rule->id;
  if (id.size() <= rule->family.size() || id.compare(0, rule->family.size(), rule->family) != 0 ||
      !std::all_of(id.begin() + rule->family.size(), id.end(), IsDigit)) {
    return Invalid(index, id,
                   "id must be its family \"" + rule->family + "\" followed by a number");
  }
  STATECHECK_RETURN_IF_ERROR(CheckOneLine(index, id, "statement", rule->statement));

  for (const char* field : kListFields) {
    auto it = element.find(field);
    if (it == element.end()) {
      return Invalid(index, id, std::string("missing field \"") + field + "\"");
    }
    if (!it->is_array()) {
      return Invalid(index, id,
                     std::string("field \"") + field + "\" must be an array of strings, got " +
                         it->type_name());
    }
    std::vector<std::string>& list =
        std::string_view(field) == "checks" ? rule->checks : rule->property_families;
    for (const json& item : *it) {
      if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
        return Invalid(
            index, id,
            std::string("field \"") + field + "\" must hold non-empty strings, got " + item.dump());
      }
      const std::string& name = item.get_ref<const std::string&>();
      if (std::find(list.begin(), list.end(), name) != list.end()) {
        return Invalid(index, id,
                       std::string("field \"") + field + "\" lists \"" + name + "\" twice");
      }
      list.push_back(name);
    }
  }
  return ParseSituations(element, index, rule);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

const RuleCatalogue& RuleCatalogue::Builtin() {
  static const RuleCatalogue* const catalogue = [] {
    auto* parsed = new RuleCatalogue();
    Status status = Parse(kBuiltinRulesJson, parsed);
    if (!status.ok()) {
      // rules.json is part of the build; rule_catalogue_test keeps this from happening.
      std::fprintf(stderr, "statecheck: the built-in rule catalogue is invalid: %s\n",
                   status.ToString().c_str());
      std::abort();
    }
    return parsed;
  }();
  return *catalogue;
}

Status RuleCatalogue::AddPropertyFamily(std::string_view id, const std::string& family) {
  for (Rule& rule : rules_) {
    if (rule.id != id) continue;
    if (rule.situations.empty()) {
      return Status::InvalidArgument("rule " + rule.id + " declares no situations: family \"" +
                                     family + "\" cannot check it");
    }
    auto& f = rule.property_families;
    if (std::find(f.begin(), f.end(), family) == f.end()) f.push_back(family);
    return Status::Ok();
  }
  return Status::NotFound("no rule " + std::string(id) + " in the catalogue (family \"" + family +
                          "\" declares it)");
}

Status RuleCatalogue::Parse(std::string_view text, RuleCatalogue* out) {
  json document;
  try {
    document = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("rule catalogue: not valid JSON: ") + e.what());
  }
  if (!document.is_array()) {
    return Status::InvalidArgument(std::string("rule catalogue: expected a JSON array of rules, "
                                               "got ") +
                                   document.type_name());
  }
  std::vector<Rule> rules;
  rules.reserve(document.size());
  try {
    for (std::size_t i = 0; i < document.size(); ++i) {
      Rule rule;
      STATECHECK_RETURN_IF_ERROR(ParseRule(document[i], i, &rule));
      for (std::size_t j = 0; j < rules.size(); ++j) {
        if (rules[j].id == rule.id) {
          return Invalid(
              i, rule.id,
              "duplicate id \"" + rule.id + "\", first used by " + RuleName(j, rules[j].id));
        }
      }
      rules.push_back(std::move(rule));
    }
  } catch (const json::exception& e) {
    // Every access above is type-checked first; this is a last line of defence.
    return Status::InvalidArgument(std::string("rule catalogue: ") + e.what());
  }
  out->rules_ = std::move(rules);
  return Status::Ok();
}

const Rule* RuleCatalogue::Find(std::string_view id) const {
  for (const Rule& rule : rules_) {
    if (rule.id == id) return &rule;
  }
  return nullptr;
}

const Situation* RuleCatalogue::FindSituation(std::string_view name) const {
  const Rule* rule = Find(name.substr(0, name.find('.')));
  if (!rule) return nullptr;
  for (const Situation& s : rule->situations) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::vector<const Rule*> RuleCatalogue::Select(std::string_view selector) const {
  std::vector<const Rule*> selected;
  if (!Select(selector, &selected).ok()) return {};
  return selected;
}

Status RuleCatalogue::Select(std::string_view selector, std::vector<const Rule*>* out) const {
  std::vector<bool> chosen(rules_.size(), selector.empty());
  std::string_view rest = selector;
  while (!selector.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view term = Trim(rest.substr(0, comma));
    if (term.empty()) {
      return Status::InvalidArgument("rule selector \"" + std::string(selector) +
                                     "\" has an empty term");
    }
    bool matched = false;
    for (std::size_t i = 0; i < rules_.size(); ++i) {
      if (rules_[i].id == term || rules_[i].family == term) {
        chosen[i] = true;
        matched = true;
      }
    }
    if (!matched) {
      std::string families;
      for (const Rule& rule : rules_) {
        if (families.find(rule.family) == std::string::npos) {
          families += (families.empty() ? "" : ", ") + rule.family;
        }
      }
      return Status::InvalidArgument(
          "unknown rule or family \"" + std::string(term) + "\" in rule selector \"" +
          std::string(selector) + "\" (a term is a rule id such as W3, or a family: " + families +
          ")");
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::vector<const Rule*> selected;
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (chosen[i]) selected.push_back(&rules_[i]);
  }
  *out = std::move(selected);
  return Status::Ok();
}

}  // namespace statecheck::reports
