// Tests of the JUnit XML writer (junit_report.cc), junit.xml also checked by xmllint against
// reports/schemas/junit.xsd (the Jenkins xUnit plugin's JUnit schema). Part of report_writers_test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>

#include "reports/report_writers_test_util.h"
#include "reports/run_report.h"

namespace statecheck::reports::writers_test {
namespace {

TEST(ReportJUnit, OneTestCasePerRuleInASuitePerFamily) {
  const Sample s = NastySample();
  const std::string xml = ReportJUnit(s.report, s.verdicts);
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ", 0), 0u);
  EXPECT_EQ(Count(xml, "<testcase "), s.verdicts.size());
  EXPECT_EQ(Count(xml, "<testsuite "), 4u);  // W, T, E, F.
  EXPECT_NE(xml.find("<testsuites name=\"statecheck\" tests=\"6\" failures=\"1\" errors=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"statecheck.W\" tests=\"2\" failures=\"0\" errors=\"0\" "
                     "skipped=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"statecheck.T\" tests=\"2\" failures=\"1\" errors=\"0\" "
                     "skipped=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase name=\"W1 construction &lt;&amp;&gt;\" classname=\"statecheck.W\" "
                     "time=\"1.250\">"),
            std::string::npos);
  EXPECT_EQ(Count(xml, "<failure "), 1u);
  EXPECT_EQ(Count(xml, "<skipped "), 4u);
  EXPECT_NE(xml.find("<skipped message=\"not exercised: the checks held, but no case reached "
                     "E1.never (1/2 situations reached"),
            std::string::npos);
  EXPECT_NE(xml.find("situations (2/2 reached; cases):\n  W1.edge: 4\n  W1.middle: 20\n"),
            std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"not run: "), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"tests only: "), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"not checked: "), std::string::npos);
  // The failure names the property and carries what reproduces it.
  EXPECT_NE(xml.find("<failure message=\"g/two: get(k\\x01\\x02) returned &quot;v&quot; &amp; "
                     "&lt;nothing&gt;&#13;\" type=\"property failed\">"),
            std::string::npos);
  EXPECT_NE(xml.find("statecheck replay 'traces/g two &lt;1&gt;.jsonl'"), std::string::npos);
  EXPECT_NE(xml.find("--reproduce 'BASE64+/=='"), std::string::npos);
  EXPECT_NE(xml.find("&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;"), std::string::npos);
  // The run's properties.
  EXPECT_NE(xml.find("<property name=\"seed\" value=\"18446744073709551615\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<property name=\"shard\" value=\"1/3\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"commit\" value=\"abc123&quot;&lt;dirty&gt;\"/>"),
            std::string::npos);
}

// Under --require-evidence a rule not exercised is a failing test case, not a skipped one.
TEST(ReportJUnit, RequiredEvidenceFailsTheRulesNotExercised) {
  Sample s = NastySample();
  s.report.configuration.require_evidence = true;
  const std::string xml = ReportJUnit(s.report, s.verdicts);
  EXPECT_NE(xml.find("<testsuites name=\"statecheck\" tests=\"6\" failures=\"2\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"statecheck.E\" tests=\"1\" failures=\"1\" errors=\"0\" "
                     "skipped=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("type=\"evidence required\""), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"require_evidence\" value=\"true\"/>"), std::string::npos);
}

TEST(ReportJUnit, HoldsOnlyCharactersXmlAllows) {
  const Sample s = NastySample();
  const std::string xml = ReportJUnit(s.report, s.verdicts);
  for (unsigned char c : xml) {
    ASSERT_TRUE(c >= 0x20 || c == '\n' || c == '\t') << "byte " << static_cast<int>(c);
  }
  EXPECT_EQ(xml.find("\xff"), std::string::npos);
  EXPECT_NE(xml.find("\\xFF\\xFE"), std::string::npos);
  EXPECT_NE(xml.find("\\x00after NUL"), std::string::npos);
  EXPECT_NE(xml.find("end\\x1B[0m ü ✓"), std::string::npos);
  EXPECT_EQ(xml.find("]]>"), std::string::npos);
}

// Validates junit.xml with `xmllint --noout --schema reports/schemas/junit.xsd`, for the nasty
// sample (a pass, a failure full of forbidden characters, all three kinds of skip) and for a
// realistic one.
TEST(ReportJUnit, ValidatesAgainstTheJenkinsJUnitSchema) {
  ASSERT_TRUE(HaveCommand("xmllint"))
      << "xmllint is missing: install Debian's libxml2-utils (ci/setup.sh does)";
  const TestDir dir;
  const std::string xsd = kSourceDir + "/reports/schemas/junit.xsd";
  ASSERT_TRUE(fs::exists(xsd)) << xsd;
  const Sample nasty = NastySample();
  const Sample realistic = RealisticSample();
  const Sample selftest = SelftestSample();
  const Sample regressions = RegressionSample();
  const std::pair<const char*, const Sample*> samples[] = {{"nasty", &nasty},
                                                           {"realistic", &realistic},
                                                           {"selftest", &selftest},
                                                           {"regressions", &regressions}};
  for (const auto& [name, sample] : samples) {
    const fs::path xml = dir / (std::string(name) + "-junit.xml");
    WriteFile(xml, ReportJUnit(sample->report, sample->verdicts));
    const fs::path log = dir / (std::string(name) + "-xmllint.txt");
    const std::string command = "xmllint --noout --schema " + Quote(xsd) + " " +
                                Quote(xml.string()) + " >" + Quote(log.string()) + " 2>&1";
    EXPECT_EQ(RunShell(command), 0) << command << "\n" << ReadFile(log);
  }
}

TEST(ReportJUnit, SelftestSuiteFailsTheBugsNotCaught) {
  const Sample s = SelftestSample();
  const std::string xml = ReportJUnit(s.report, s.verdicts);
  const size_t suite =
      xml.find("<testsuite name=\"statecheck.selftest\" tests=\"3\" failures=\"1\"");
  ASSERT_NE(suite, std::string::npos) << xml.substr(xml.size() - 3000);
  EXPECT_EQ(Count(xml.substr(suite), "<failure "), 1u);
  EXPECT_NE(xml.find("type=\"planted bug not caught\""), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"mutation_score\" value=\"66.7\"/>"), std::string::npos);
}

}  // namespace
}  // namespace statecheck::reports::writers_test
