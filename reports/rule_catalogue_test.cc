#include "reports/rule_catalogue.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "reports/catalogue_format.h"

namespace statecheck::reports {
namespace {

// Whether `text` contains `part`; on failure says what it does contain.
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// Every rule of docs/spec.md, in its order: W1–W10, T1–T11, C1–C7, U1–U5, E1–E11,
// F1–F8 (F2 and F3 share one bullet), L1. 53 rules.
// clang-format off
const std::vector<std::string> kSpecRuleIds = {
    "W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "W10",
    "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11",
    "C1", "C2", "C3", "C4", "C5", "C6", "C7",
    "U1", "U2", "U3", "U4", "U5",
    "E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10", "E11",
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8",
    "L1",
};
// clang-format on

std::vector<std::string> Ids(const std::vector<const Rule*>& rules) {
  std::vector<std::string> ids;
  for (const Rule* rule : rules) ids.push_back(rule->id);
  return ids;
}

std::vector<std::string> Ids(const std::vector<Rule>& rules) {
  std::vector<std::string> ids;
  for (const Rule& rule : rules) ids.push_back(rule.id);
  return ids;
}

const RuleCatalogue& Builtin() { return RuleCatalogue::Builtin(); }

// A valid one-rule catalogue, with `field` set to `value` (or removed, if `remove`).
std::string OneRule(const std::string& field = "", nlohmann::json value = nullptr,
                    bool remove = false) {
  nlohmann::json rule = {{"id", "W3"},
                         {"family", "W"},
                         {"title", "drop rule"},
                         {"statement", "A put is dropped when its window has expired."},
                         {"checks", {"InMemoryWindowStore.DropRule"}},
                         {"property_families", {"window_store"}}};
  if (remove) {
    rule.erase(field);
  } else if (!field.empty()) {
    rule[field] = value;
  }
  return nlohmann::json::array({rule}).dump();
}

Status ParseError(const std::string& json) {
  RuleCatalogue catalogue;
  return RuleCatalogue::Parse(json, &catalogue);
}

TEST(RuleCatalogue, EverySpecRuleOnceInSpecOrder) {
  ASSERT_EQ(kSpecRuleIds.size(), 53u);
  EXPECT_EQ(Ids(Builtin().rules()), kSpecRuleIds);
  for (const std::string& id : kSpecRuleIds) {
    const Rule* rule = Builtin().Find(id);
    ASSERT_NE(rule, nullptr) << id;
    EXPECT_EQ(rule->id, id);
  }
}

TEST(RuleCatalogue, FamilySizesMatchSpec) {
  std::map<std::string, int> sizes;
  for (const Rule& rule : Builtin().rules()) ++sizes[rule.family];
  EXPECT_EQ(sizes, (std::map<std::string, int>{
                       {"W", 10}, {"T", 11}, {"C", 7}, {"U", 5}, {"E", 11}, {"F", 8}, {"L", 1}}));
}

TEST(RuleCatalogue, IdsAreUnique) {
  std::set<std::string> ids;
  for (const Rule& rule : Builtin().rules()) {
    EXPECT_TRUE(ids.insert(rule.id).second) << "duplicate " << rule.id;
  }
}

TEST(RuleCatalogue, StatementsAreOneShortLine) {
  for (const Rule& rule : Builtin().rules()) {
    EXPECT_FALSE(rule.statement.empty()) << rule.id;
    EXPECT_EQ(rule.statement.find_first_of("\r\n"), std::string::npos) << rule.id;
    EXPECT_LE(rule.statement.size(), kMaxStatementLength) << rule.id;
    EXPECT_FALSE(rule.title.empty()) << rule.id;
    EXPECT_EQ(rule.id.rfind(rule.family, 0), 0u) << rule.id;
  }
}

TEST(RuleCatalogue, WindowStoreRulesNameTheirChecks) {
  // Which tests exist is checked against CTest by RuleCatalogue.ChecksAreRegistered; here, the
  // shape: every W rule is checked, by the window_store property family among others.
  for (const Rule& rule : Builtin().rules()) {
    if (rule.family != "W") continue;
    EXPECT_FALSE(rule.checks.empty()) << rule.id;
    if (rule.id == "W10") continue;  // A cost bound: checked by a unit test, not the campaign.
    EXPECT_EQ(rule.property_families, std::vector<std::string>{"window_store"}) << rule.id;
  }
  const Rule* w10 = Builtin().Find("W10");
  ASSERT_NE(w10, nullptr);
  EXPECT_EQ(w10->checks,
            std::vector<std::string>{"InMemoryWindowStore.SingleKeyFetchSkipsOtherSegments"});
}

TEST(RuleCatalogue, FindUnknownIsNull) {
  EXPECT_EQ(Builtin().Find("W11"), nullptr);
  EXPECT_EQ(Builtin().Find("w1"), nullptr);
  EXPECT_EQ(Builtin().Find(""), nullptr);
  EXPECT_EQ(Builtin().Find("W"), nullptr) << "a family is not an id";
}

TEST(RuleCatalogue, SelectEmptyIsAll) { EXPECT_EQ(Ids(Builtin().Select("")), kSpecRuleIds); }

TEST(RuleCatalogue, SelectFamily) {
  EXPECT_EQ(Ids(Builtin().Select("U")), (std::vector<std::string>{"U1", "U2", "U3", "U4", "U5"}));
  EXPECT_EQ(Builtin().Select("W").size(), 10u);
  EXPECT_EQ(Builtin().Select("T").size(), 11u);
}

TEST(RuleCatalogue, SelectId) {
  EXPECT_EQ(Ids(Builtin().Select("W3")), std::vector<std::string>{"W3"});
  EXPECT_EQ(Ids(Builtin().Select("W10")), std::vector<std::string>{"W10"});
}

TEST(RuleCatalogue, SelectListIsInCatalogueOrderWithoutDuplicates) {
  EXPECT_EQ(Ids(Builtin().Select("W1,T4")), (std::vector<std::string>{"W1", "T4"}));
  EXPECT_EQ(Ids(Builtin().Select("T4,W1")), (std::vector<std::string>{"W1", "T4"}));
  EXPECT_EQ(Ids(Builtin().Select(" F2 , F2,F ")),
            (std::vector<std::string>{"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8"}));
  EXPECT_EQ(Ids(Builtin().Select("C,W10")),
            (std::vector<std::string>{"W10", "C1", "C2", "C3", "C4", "C5", "C6", "C7"}));
}

TEST(RuleCatalogue, SelectUnknownIsEmpty) {
  EXPECT_TRUE(Builtin().Select("W11").empty());
  EXPECT_TRUE(Builtin().Select("X").empty());
  EXPECT_TRUE(Builtin().Select("w3").empty());
  EXPECT_TRUE(Builtin().Select("W1,Q9").empty());
  EXPECT_TRUE(Builtin().Select("W1,").empty());
  EXPECT_TRUE(Builtin().Select(",").empty());
}

TEST(RuleCatalogue, SelectWithStatusNamesTheUnknownTerm) {
  std::vector<const Rule*> out = {nullptr};
  Status status = Builtin().Select("W1,Q9,T2", &out);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "\"Q9\""));
  EXPECT_EQ(out, std::vector<const Rule*>{nullptr}) << "left unchanged on error";

  status = Builtin().Select("W1,,T2", &out);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "empty term"));

  ASSERT_TRUE(Builtin().Select("E", &out).ok());
  EXPECT_EQ(out.size(), 11u);
}

TEST(RuleCatalogue, ParseAcceptsAValidCatalogue) {
  RuleCatalogue catalogue;
  ASSERT_TRUE(RuleCatalogue::Parse(OneRule(), &catalogue).ok());
  ASSERT_EQ(catalogue.rules().size(), 1u);
  const Rule& rule = catalogue.rules()[0];
  EXPECT_EQ(rule.id, "W3");
  EXPECT_EQ(rule.family, "W");
  EXPECT_EQ(rule.title, "drop rule");
  EXPECT_EQ(rule.checks, std::vector<std::string>{"InMemoryWindowStore.DropRule"});
  EXPECT_EQ(rule.property_families, std::vector<std::string>{"window_store"});

  ASSERT_TRUE(RuleCatalogue::Parse("[]", &catalogue).ok());
  EXPECT_TRUE(catalogue.rules().empty());
}

TEST(RuleCatalogue, ParseErrorsNameTheProblem) {
  struct Case {
    std::string json;
    std::vector<std::string> expected;  // Substrings of the error message.
  };
  const std::vector<Case> cases = {
      {"[{\"id\": ", {"not valid JSON"}},
      {"", {"not valid JSON"}},
      {"{}", {"expected a JSON array", "object"}},
      {"[1]", {"rule 0", "expected an object", "number"}},
      {OneRule("statement", nullptr, /*remove=*/true),
       {"rule 0 (W3)", "missing field \"statement\""}},
      {OneRule("id", nullptr, /*remove=*/true), {"rule 0:", "missing field \"id\""}},
      {OneRule("checks", nullptr, /*remove=*/true), {"W3", "missing field \"checks\""}},
      {OneRule("property_families", nullptr, /*remove=*/true),
       {"missing field \"property_families\""}},
      {OneRule("title", 7), {"W3", "\"title\" must be a string", "number"}},
      {OneRule("title", ""), {"W3", "\"title\" is empty"}},
      {OneRule("statement", ""), {"W3", "\"statement\" is empty"}},
      {OneRule("statement", "two\nlines"), {"W3", "one line"}},
      {OneRule("statement", std::string(kMaxStatementLength + 1, 'x')), {"W3", "201 characters"}},
      {OneRule("checks", "InMemoryWindowStore.DropRule"), {"W3", "\"checks\" must be an array"}},
      {OneRule("checks", {"A.B", 3}), {"W3", "non-empty strings", "3"}},
      {OneRule("checks", {"A.B", "A.B"}), {"W3", "\"A.B\" twice"}},
      {OneRule("family", "T"), {"W3", "family \"T\""}},
      {OneRule("id", "W"), {"family \"W\" followed by a number"}},
      {OneRule("id", "W3a"), {"W3a", "followed by a number"}},
      {OneRule("chekcs", nlohmann::json::array()), {"W3", "unknown field \"chekcs\""}},
  };
  for (const Case& c : cases) {
    Status status = ParseError(c.json);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArgument) << c.json;
    for (const std::string& expected : c.expected) {
      EXPECT_TRUE(Contains(status.message(), expected)) << c.json;
    }
  }
}

TEST(RuleCatalogue, ParseRejectsDuplicateIds) {
  nlohmann::json rules = nlohmann::json::parse(OneRule());
  rules.push_back(rules[0]);
  rules[1]["title"] = "another";
  Status status = ParseError(rules.dump());
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "duplicate id \"W3\""));
  EXPECT_TRUE(Contains(status.message(), "rule 1"));
  EXPECT_TRUE(Contains(status.message(), "rule 0"));
}

TEST(RuleCatalogue, ParseErrorLeavesOutputUnchanged) {
  RuleCatalogue catalogue;
  ASSERT_TRUE(RuleCatalogue::Parse(OneRule(), &catalogue).ok());
  EXPECT_FALSE(RuleCatalogue::Parse(OneRule("statement", ""), &catalogue).ok());
  ASSERT_EQ(catalogue.rules().size(), 1u);
  EXPECT_EQ(catalogue.rules()[0].statement, "A put is dropped when its window has expired.");
}

TEST(RuleCatalogue, JsonOutputParsesBack) {
  std::vector<const Rule*> all = Builtin().Select("");
  std::string json = FormatRulesJson(all);
  nlohmann::json parsed = nlohmann::json::parse(json);
  ASSERT_TRUE(parsed.is_array());
  ASSERT_EQ(parsed.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(parsed[i]["id"], all[i]->id);
    EXPECT_EQ(parsed[i]["statement"], all[i]->statement);
    EXPECT_EQ(parsed[i]["checks"].get<std::vector<std::string>>(), all[i]->checks);
  }

  RuleCatalogue round_trip;
  Status status = RuleCatalogue::Parse(json, &round_trip);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(round_trip.rules(), Builtin().rules());
}

TEST(RuleCatalogue, JsonOutputOfASelection) {
  nlohmann::json parsed = nlohmann::json::parse(FormatRulesJson(Builtin().Select("C1,W3")));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0]["id"], "W3");
  EXPECT_EQ(parsed[0]["family"], "W");
  EXPECT_EQ(parsed[0]["title"], "drop rule");
  EXPECT_EQ(parsed[0]["checks"].size(), Builtin().Find("W3")->checks.size());
  EXPECT_EQ(parsed[1]["id"], "C1");
  EXPECT_EQ(FormatRulesJson({}), "[]\n");
}

TEST(RuleCatalogue, TextOutputListsEveryRule) {
  std::string text = FormatRulesText(Builtin().Select(""));
  std::istringstream lines(text);
  std::string line;
  std::set<std::string> first_words;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_LE(line.size(), 100u) << line;
    EXPECT_TRUE(line.empty() || line.back() != ' ') << "trailing space: " << line;
    first_words.insert(line.substr(0, line.find(' ')));
  }
  for (const std::string& id : kSpecRuleIds) EXPECT_EQ(first_words.count(id), 1u) << id;
  EXPECT_GT(count, 54) << "a header, 53 rules and a summary";
  EXPECT_EQ(text.back(), '\n');
  int checked = 0;
  for (const Rule& rule : Builtin().rules()) checked += rule.checks.empty() ? 0 : 1;
  EXPECT_TRUE(Contains(text, "53 rules: " + std::to_string(checked) + " checked, " +
                                 std::to_string(53 - checked) + " not yet checked;"));
}

TEST(RuleCatalogue, TextOutputShowsCheckCounts) {
  const Rule* w1 = Builtin().Find("W1");
  ASSERT_NE(w1, nullptr);
  std::string text = FormatRulesText(Builtin().Select("W1"));
  EXPECT_TRUE(Contains(text, std::to_string(w1->checks.size()) + " checks")) << text;
  EXPECT_TRUE(Contains(text, "construction"));
  Rule one{"X1", "X", "one", "A rule with one check.", {"Suite.Test"}, {}, {}};
  EXPECT_TRUE(Contains(FormatRulesText({&one}), "1 check "));
  Rule none{"X2", "X", "none", "A rule nothing checks yet.", {}, {}, {}};
  std::string text_none = FormatRulesText({&none});
  EXPECT_TRUE(Contains(text_none, "not yet checked"));
  EXPECT_TRUE(Contains(text_none, "1 rule: 0 checked, 1 not yet checked; 0 situations"));
}

TEST(RuleCatalogue, TextOutputWrapsStatementsAtWords) {
  Rule rule{"X1", "X", "a title", std::string(), {}, {}, {}};
  for (int i = 0; i < 40; ++i) rule.statement += "word" + std::to_string(i) + " ";
  rule.statement.pop_back();
  std::string text = FormatRulesText({&rule});
  std::string rejoined;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // The header.
  std::size_t column = line.find("STATEMENT");
  ASSERT_NE(column, std::string::npos);
  while (std::getline(lines, line)) {
    if (line.find("1 rule:") == 0) break;
    EXPECT_LE(line.size(), 100u);
    if (!rejoined.empty()) rejoined += ' ';
    rejoined += line.substr(column);
  }
  EXPECT_EQ(rejoined, rule.statement);
}

TEST(RuleCatalogue, TextOutputListsEachSituationUnderItsRule) {
  Rule rule{"X1",
            "X",
            "a",
            "A rule.",
            {"S.T"},
            {"f"},
            {{"X1.edge", "a case at the edge"}, {"X1.middle", "a case in the middle"}}};
  const std::string text = FormatRulesText({&rule});
  EXPECT_TRUE(Contains(text, "- X1.edge: a case at the edge\n"));
  EXPECT_TRUE(Contains(text, "- X1.middle: a case in the middle\n"));
  EXPECT_TRUE(Contains(text, "2 situations"));
  EXPECT_TRUE(Contains(text, "docs/spec.md"));
  RuleCatalogue back;
  ASSERT_TRUE(RuleCatalogue::Parse(FormatRulesJson({&rule}), &back).ok());
  EXPECT_EQ(back.rules()[0].situations, rule.situations);
}

TEST(RuleCatalogue, CheckNamesOncePerLine) {
  Rule a{"X1", "X", "a", "First.", {"S.A", "S.B"}, {}, {}};
  Rule b{"X2", "X", "b", "Second.", {"S.B", "S.C"}, {}, {}};
  Rule c{"X3", "X", "c", "Third.", {}, {}, {}};
  EXPECT_EQ(FormatCheckNames({&a, &b, &c}), "S.A\nS.B\nS.C\n");
  EXPECT_EQ(FormatCheckNames({&c}), "");
}

// The rules docs/spec.md states: "**W3 drop rule.**" (or "**F1 I/O errors**"), id and title, in
// the document's order.
std::vector<std::pair<std::string, std::string>> DocsSpecRules() {
  std::ifstream file(std::string(STATECHECK_SOURCE_DIR) + "/docs/spec.md");
  std::stringstream text;
  text << file.rdbuf();
  const std::string spec = text.str();
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex bold(R"(\*\*([A-Z]+[0-9]+) ([^*]+?)\.?\*\*)");
  for (auto it = std::sregex_iterator(spec.begin(), spec.end(), bold); it != std::sregex_iterator();
       ++it) {
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  }
  return out;
}

// The catalogue and docs/spec.md cannot drift: the same rules, ids, families and titles, in the
// same order.
TEST(RuleCatalogue, MatchesDocsSpec) {
  const auto spec = DocsSpecRules();
  ASSERT_FALSE(spec.empty()) << "docs/spec.md not found or it states no rule";
  std::vector<std::pair<std::string, std::string>> catalogue;
  for (const Rule& rule : Builtin().rules()) {
    catalogue.emplace_back(rule.id, rule.title);
    EXPECT_EQ(rule.id.substr(0, rule.family.size()), rule.family) << rule.id;
  }
  EXPECT_EQ(catalogue, spec) << "reports/rules.json and docs/spec.md disagree: add or change a "
                                "rule in both";
}

// Every rule a campaign checks declares the situations it is about (3 to 8), each a line of
// text; a rule the campaign does not check declares none (nothing would count them).
TEST(RuleCatalogue, CampaignRulesDeclareTheirSituations) {
  std::set<std::string> names;
  for (const Rule& rule : Builtin().rules()) {
    if (rule.property_families.empty()) {
      EXPECT_TRUE(rule.situations.empty()) << rule.id << " has no campaign property";
      continue;
    }
    EXPECT_GE(rule.situations.size(), kMinSituations) << rule.id;
    EXPECT_LE(rule.situations.size(), kMaxSituations) << rule.id;
    for (const Situation& s : rule.situations) {
      EXPECT_TRUE(names.insert(s.name).second) << s.name;
      EXPECT_EQ(Builtin().FindSituation(s.name), &s);
    }
  }
  EXPECT_EQ(Builtin().FindSituation("W3.no_such_situation"), nullptr);
  EXPECT_EQ(Builtin().FindSituation("nothing"), nullptr);
}

TEST(RuleCatalogue, ParseChecksSituations) {
  auto with = [](nlohmann::json situations) { return OneRule("situations", situations); };
  EXPECT_TRUE(ParseError(with(nlohmann::json::array(
                             {{{"name", "W3.at_boundary"}, {"text", "A put at the bound."}}})))
                  .ok());
  EXPECT_TRUE(Contains(ParseError(with({{{"name", "W4.at_boundary"}, {"text", "x"}}})).message(),
                       "must be \"W3.\" followed by"));
  EXPECT_TRUE(Contains(ParseError(with({{{"name", "W3.At"}, {"text", "x"}}})).message(),
                       "lower-case letters"));
  EXPECT_TRUE(
      Contains(ParseError(with({{{"name", "W3."}, {"text", "x"}}})).message(), "followed by"));
  EXPECT_TRUE(Contains(
      ParseError(with({{{"name", "W3.a"}, {"text", "x"}}, {{"name", "W3.a"}, {"text", "y"}}}))
          .message(),
      "declared twice"));
  EXPECT_TRUE(Contains(ParseError(with({{{"name", "W3.a"}, {"text", ""}}})).message(), "empty"));
  EXPECT_TRUE(Contains(ParseError(with({{{"name", "W3.a"}}})).message(), "a situation must be"));
  EXPECT_TRUE(Contains(ParseError(with("W3.a")).message(), "must be an array"));
}

}  // namespace
}  // namespace statecheck::reports
