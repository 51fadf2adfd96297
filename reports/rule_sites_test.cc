#include "reports/rule_sites.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "reports/rule_catalogue.h"

namespace statecheck::reports {
namespace {

const RuleCatalogue& Catalogue() { return RuleCatalogue::Builtin(); }

std::vector<RuleSite> Parse(std::string_view path, std::string_view text, Status* status) {
  std::vector<RuleSite> sites;
  *status = ParseSiteLine(path, 7, text, Catalogue(), &sites);
  return sites;
}

TEST(RuleSites, ATagNamesItsRulesItsLineAndItsNote) {
  Status s;
  std::vector<RuleSite> sites = Parse(
      "engine/x.cc", "  if (expired) {  // Keeps: W3, W6 \xE2\x80\x94 dropped and counted", &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0], (RuleSite{SiteKind::kKeeps, "W3", "engine/x.cc", 7, "dropped and counted"}));
  EXPECT_EQ(sites[1].rule, "W6");
  sites = Parse("model/m.h", "// Encodes: T4", &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].kind, SiteKind::kEncodes);
  EXPECT_EQ(sites[0].note, "");
  sites = Parse("properties/p.cc", "//Checks:C3", &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].kind, SiteKind::kChecks);
}

TEST(RuleSites, ALineWithoutATagHasNoSite) {
  Status s;
  EXPECT_TRUE(Parse("engine/x.cc", "  // W3: dropped, as Kafka does", &s).empty());
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(Parse("engine/x.cc", "  const char* k = \"Keeps\";", &s).empty());
  EXPECT_TRUE(s.ok());
}

TEST(RuleSites, AMisplacedOrMalformedTagIsAnErrorNamingTheLine) {
  struct Case {
    const char* path;
    const char* text;
    const char* expected;
  };
  for (const Case& c : {
           Case{"model/m.cc", "// Keeps: W3", "model/m.cc:7: \"Keeps:\" tags belong in engine/"},
           Case{"engine/e.cc", "// Checks: W3", "\"Checks:\" tags belong in properties/"},
           Case{"properties/p_test.cc", "// Checks: W3",
                "properties/p_test.cc:7: a \"Checks:\" tag in a test file"},
           Case{"engine/e.cc", "// Keeps: W99", "\"Keeps: W99\" names no rule"},
           Case{"engine/e.cc", "// Keeps: the drop rule",
                "\"Keeps:\" is not followed by a rule id"},
           Case{"engine/e.cc", "// Keeps: W3 dropped",
                "comes \" \xE2\x80\x94 \" and a note, not \"dropped\""},
       }) {
    Status s;
    std::vector<RuleSite> sites = Parse(c.path, c.text, &s);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << c.text;
    EXPECT_NE(s.message().find(c.expected), std::string::npos) << s.message();
    EXPECT_TRUE(sites.empty());
  }
}

TEST(RuleSites, AScanFindsEveryTagAndMissingSitesNamesWhatIsLacking) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("rule-sites-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const char* dir : {"engine/include/statecheck", "model", "properties"}) {
    fs::create_directories(root / dir);
  }
  std::ofstream(root / "engine/store.cc") << "int a;\n// Keeps: W3\nint b;  // Keeps: T4\n";
  std::ofstream(root / "engine/include/statecheck/store.h")
      << "// Keeps: W3 \xE2\x80\x94 the contract\n";
  std::ofstream(root / "model/model.cc") << "// Encodes: W3\n";
  std::ofstream(root / "properties/property.cc") << "\n\n// Checks: W3\n";
  std::ofstream(root / "properties/notes.txt") << "// Keeps: W3\n";  // Not a source: not read.
  std::vector<RuleSite> sites;
  Status s = ScanRuleSites(root.string(), Catalogue(), &sites);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(sites.size(), 5u);
  EXPECT_EQ(sites[0], (RuleSite{SiteKind::kKeeps, "W3", "engine/include/statecheck/store.h", 1,
                                "the contract"}));
  EXPECT_EQ(sites[1], (RuleSite{SiteKind::kKeeps, "W3", "engine/store.cc", 2, ""}));
  EXPECT_EQ(sites[2], (RuleSite{SiteKind::kKeeps, "T4", "engine/store.cc", 3, ""}));
  EXPECT_EQ(sites[4], (RuleSite{SiteKind::kChecks, "W3", "properties/property.cc", 3, ""}));

  const std::vector<std::string> missing = MissingSites(Catalogue(), sites);
  auto lacks = [&](const std::string& line) {
    return std::find(missing.begin(), missing.end(), line) != missing.end();
  };
  EXPECT_TRUE(lacks("T4: no model site (// Encodes: T4 in model/)"));
  EXPECT_TRUE(lacks("T4: no property site (// Checks: T4 in properties/)"));
  EXPECT_FALSE(lacks("T4: no engine site (// Keeps: T4 in engine/)"));
  for (const std::string& line : missing) EXPECT_NE(line.rfind("W3:", 0), 0u) << line;
  // W10 has no campaign property: no site is required of it.
  for (const std::string& line : missing) EXPECT_NE(line.rfind("W10:", 0), 0u) << line;

  std::vector<const Rule*> w3 = Catalogue().Select("W3");
  const std::string text = FormatSitesText(w3, sites);
  EXPECT_NE(text.find("W3  drop rule\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  keeps    engine/store.cc:2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  checks   properties/property.cc:3\n"), std::string::npos) << text;
  const std::string json = FormatSitesJson(w3, sites);
  EXPECT_NE(json.find("\"path\": \"model/model.cc\""), std::string::npos) << json;

  std::ofstream(root / "model/bad.h") << "// Checks: W3\n";
  std::vector<RuleSite> unchanged = sites;
  s = ScanRuleSites(root.string(), Catalogue(), &unchanged);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("model/bad.h:1:"), std::string::npos) << s.message();
  EXPECT_EQ(unchanged, sites);

  s = ScanRuleSites((root / "model").string(), Catalogue(), &unchanged);
  EXPECT_NE(s.message().find("is not a statecheck source tree"), std::string::npos) << s.message();
  fs::remove_all(root);
}

// #18: from a rule id, where it is kept, encoded and checked. Every rule the campaign checks
// has a tagged site in the engine, the model and the properties.
TEST(RuleSites, EveryCampaignRuleHasAnEngineAModelAndAPropertySite) {
  std::vector<RuleSite> sites;
  const Status s = ScanRuleSites(STATECHECK_SOURCE_DIR, Catalogue(), &sites);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const std::string& line : MissingSites(Catalogue(), sites)) ADD_FAILURE() << line;
}

}  // namespace
}  // namespace statecheck::reports
