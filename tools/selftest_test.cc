// The planted-bug catalogue and `statecheck selftest`. In the default build: no bug is compiled
// in and the selftest says where to find them. In the planted build (ci/build.sh planted): the
// catalogue is well formed — enough bugs over every SPEC family, each tied to rules the
// catalogue knows and planted where it says — and a selftest of one bug catches it.
#include "tools/selftest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "properties/trace_replay.h"
#include "reports/rule_catalogue.h"
#include "statecheck/hooks/planted_bugs.h"

namespace statecheck::tools {
namespace {

namespace fs = std::filesystem;

TEST(PlantedBugs, OnlyThePlantedBuildHasThem) {
  SelftestOptions o;
  o.budget_seconds = 1;
  o.report_dir = (fs::temp_directory_path() / "statecheck-selftest-none").string();
  SelftestResult r;
  if (planted::Compiled()) {
    EXPECT_FALSE(planted::Catalogue().empty());
    EXPECT_EQ(planted::ActiveName(), "");
    EXPECT_NE(planted::Activate("no/such_bug").message().find("no planted bug \"no/such_bug\""),
              std::string::npos);
    return;
  }
  EXPECT_TRUE(planted::Catalogue().empty());
  EXPECT_NE(planted::Activate("window_store/drop_rule_off_by_one")
                .message()
                .find("compiled only into the planted build"),
            std::string::npos);
  const Status s = RunSelftest(o, &r);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("ci/build.sh planted"), std::string::npos) << s.message();
}

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::string(STATECHECK_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PlantedBugs, CatalogueIsWellFormed) {
  if (!planted::Compiled()) GTEST_SKIP() << "the planted build only (ci/build.sh planted)";
  const auto& catalogue = planted::Catalogue();
  EXPECT_GE(catalogue.size(), 25u);
  std::set<std::string> names;
  std::map<char, int> per_family;
  for (const planted::PlantedBug& b : catalogue) {
    const std::string name(b.name);
    SCOPED_TRACE(name);
    EXPECT_TRUE(names.insert(name).second) << "two bugs are named " << name;
    EXPECT_NE(name.find('/'), std::string::npos) << "names are <area>/<what>";
    EXPECT_FALSE(b.description.empty());
    EXPECT_FALSE(b.modelled_on.empty());
    std::vector<const reports::Rule*> rules;
    ASSERT_TRUE(reports::RuleCatalogue::Builtin().Select(b.rules, &rules).ok()) << b.rules;
    std::set<char> families;
    for (const reports::Rule* r : rules) families.insert(r->family[0]);
    for (char f : families) ++per_family[f];
    // Planted where the catalogue says: the file tests its id.
    const std::string source = ReadSource(std::string(b.file));
    ASSERT_FALSE(source.empty()) << "cannot read " << b.file;
    EXPECT_NE(source.find("STATECHECK_PLANTED(" + std::string(b.id) + ")"), std::string::npos)
        << b.file << " has no plant site for " << b.id;
  }
  for (char family : std::string("WTCUEF")) {
    EXPECT_GE(per_family[family], 3) << "family " << family << " has too few planted bugs";
  }
}

TEST(PlantedBugs, SelftestCatchesAPlantedBugAndReportsIt) {
  if (!planted::Compiled()) GTEST_SKIP() << "the planted build only (ci/build.sh planted)";
  SelftestOptions o;
  o.budget_seconds = 20;
  o.control_seconds = 2;
  o.seed = 1;
  o.bugs = {"window_store/drop_rule_off_by_one"};
  o.report_dir = (fs::temp_directory_path() / "statecheck-selftest-test").string();
  fs::remove_all(o.report_dir);
  SelftestResult r;
  ASSERT_TRUE(RunSelftest(o, &r).ok());
  EXPECT_TRUE(r.control_passed);
  EXPECT_TRUE(r.passed);
  ASSERT_TRUE(r.report.selftest.has_value());
  ASSERT_EQ(r.report.selftest->bugs.size(), 1u);
  const reports::PlantedBugResult& b = r.report.selftest->bugs[0];
  EXPECT_TRUE(b.caught);
  EXPECT_LT(b.seconds, 20);
  EXPECT_GT(b.counterexample_steps, 0);
  EXPECT_NE(std::find(b.failing_rules.begin(), b.failing_rules.end(), "W3"), b.failing_rules.end());
  ASSERT_FALSE(b.replay_commands.empty());
  EXPECT_EQ(b.replay_commands[0].rfind("STATECHECK_PLANTED_BUG=", 0), 0u) << b.replay_commands[0];
  EXPECT_EQ(planted::ActiveName(), "");  // Deactivated again.
  EXPECT_TRUE(fs::exists(fs::path(o.report_dir) / "report.html"));
  EXPECT_TRUE(fs::exists(fs::path(b.report_dir) / "report.json"));
  fs::remove_all(o.report_dir);
}

// A planted bug of each family with traces is caught, and the trace its campaign saved replays,
// with the bug still active, to a divergence credited to the rule the campaign credited.
TEST(PlantedBugs, EachFamilysSavedTraceReplaysToTheSameRule) {
  if (!planted::Compiled()) GTEST_SKIP() << "the planted build only (ci/build.sh planted)";
  SelftestOptions o;
  o.budget_seconds = 30;
  o.control_seconds = 1;
  o.seed = 1;
  o.bugs = {"window_store/key_range_prefix_leak", "txn/get_misses_buffered_delete",
            "task/commit_interval_off_by_one", "windowed/session_close_off_by_one"};
  o.report_dir = (fs::temp_directory_path() / "statecheck-selftest-replay").string();
  fs::remove_all(o.report_dir);
  SelftestResult r;
  ASSERT_TRUE(RunSelftest(o, &r).ok());
  ASSERT_TRUE(r.report.selftest.has_value());
  ASSERT_EQ(r.report.selftest->bugs.size(), o.bugs.size());
  for (const reports::PlantedBugResult& b : r.report.selftest->bugs) {
    SCOPED_TRACE(b.name);
    ASSERT_TRUE(b.caught);
    ASSERT_FALSE(b.trace_path.empty()) << b.property << " saved no trace";
    ASSERT_FALSE(b.cited_rules.empty()) << b.message;
    ASSERT_TRUE(planted::Activate(b.name).ok());
    properties::TraceReplay replay;
    const Status s =
        properties::ReplayTraceFile(b.trace_path, properties::ReplayTarget::kBoth, &replay);
    planted::DeactivateAll();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(replay.diverged) << b.trace_path;
    EXPECT_EQ(replay.rule, b.cited_rules.front()) << replay.verdict;
  }
  fs::remove_all(o.report_dir);
}

}  // namespace
}  // namespace statecheck::tools
