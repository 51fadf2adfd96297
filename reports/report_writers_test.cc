// Tests of the report writers (junit_report.cc, markdown_report.cc, html_report.cc, and
// report.json against its schema), each also checked by the tool that reads it in practice:
// junit.xml by xmllint against reports/schemas/junit.xsd (the Jenkins xUnit plugin's JUnit
// schema), report.html by headless Chromium, report.json by python3's jsonschema against
// docs/report-schema.json. A missing tool fails its test rather than skipping it: ci/setup.sh
// installs them (libxml2-utils, chromium, python3-jsonschema), and a check that silently stops
// running is worse than none.
//
// The tests, by writer: junit_report_test.cc, markdown_report_test.cc, html_report_test.cc,
// report_json_test.cc, report_text_test.cc (the writers' shared text helpers); here, what spans
// every writer. The samples and the tool helpers: report_writers_test_util.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "reports/report_writers_test_util.h"
#include "reports/run_report.h"

namespace statecheck::reports::writers_test {
namespace {

// The regression corpus is a section of each report, and its divergence a finding.
TEST(ReportWriters, TheRegressionCorpusIsASectionOfItsOwn) {
  const Sample s = RegressionSample();
  const std::string md = ReportMarkdown(s.report, s.verdicts);
  EXPECT_NE(md.find("## Regression corpus\n\n2 traces from `/src/statecheck/regressions`"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**1 diverged.**"), std::string::npos);
  EXPECT_NE(md.find("### `regressions/windowed-emit-final-<max>.jsonl`"), std::string::npos);
  const std::string html = ReportHtml(s.report, s.verdicts);
  EXPECT_NE(html.find("<section id=\"regressions\">"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#regressions\">Regressions</a>"), std::string::npos);
  EXPECT_NE(html.find("id=\"finding-regressions/windowed-emit-final-&lt;max&gt;.jsonl\""),
            std::string::npos);
  EXPECT_NE(html.find("data-overall=\"FAIL\""), std::string::npos);
  const std::string xml = ReportJUnit(s.report, s.verdicts);
  EXPECT_NE(xml.find("<testsuite name=\"statecheck.regressions\" tests=\"2\" failures=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("type=\"regression trace diverged\""), std::string::npos);
  // E5 fails, the trace among its failing properties.
  auto e5 = std::find_if(s.verdicts.begin(), s.verdicts.end(),
                         [](const RuleVerdict& v) { return v.rule->id == "E5"; });
  ASSERT_NE(e5, s.verdicts.end());
  EXPECT_EQ(e5->verdict, "fail");
  EXPECT_NE(std::find(e5->failing_properties.begin(), e5->failing_properties.end(),
                      "regressions/windowed-emit-final-<max>.jsonl"),
            e5->failing_properties.end());
  // A run without a corpus has no such section.
  const Sample plain = RealisticSample();
  EXPECT_EQ(ReportMarkdown(plain.report, plain.verdicts).find("Regression corpus"),
            std::string::npos);
  EXPECT_EQ(ReportHtml(plain.report, plain.verdicts).find("id=\"regressions\""), std::string::npos);
}

}  // namespace
}  // namespace statecheck::reports::writers_test
