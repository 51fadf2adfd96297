// Tests of the HTML writer (html_report.cc), report.html also loaded in headless Chromium. Part
// of report_writers_test.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "reports/report_text.h"
#include "reports/report_writers_test_util.h"
#include "reports/run_report.h"

namespace statecheck::reports::writers_test {
namespace {

TEST(ReportHtml, IsOneSelfContainedPage) {
  const Sample s = RealisticSample();
  const std::string html = ReportHtml(s.report, s.verdicts);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  // Nothing to fetch: no URLs, no external resources.
  for (const char* banned :
       {"http:", "https:", "//cdn", " src=", "<link", "@import", "url(", "<img", "<iframe"}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
  EXPECT_EQ(Count(html, "<script>"), 1u);
  for (const char* id : {"id=\"rule-fault-matrix\"", "id=\"ops-chart\"",
                         "id=\"fail-point-coverage\"", "id=\"findings\"", "id=\"properties\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("data-overall=\"FAIL\""), std::string::npos);
}

TEST(ReportHtml, MatrixHasARowPerRuleAndAColumnPerFaultClass) {
  const Sample s = RealisticSample();
  const std::string html = ReportHtml(s.report, s.verdicts);
  const size_t begin = html.find("<table id=\"rule-fault-matrix\">");
  const size_t end = html.find("</table>", begin);
  ASSERT_NE(begin, std::string::npos);
  const std::string matrix = html.substr(begin, end - begin);
  EXPECT_EQ(Count(matrix, "<tr data-rule="), s.verdicts.size());
  for (const std::string& c : FaultClassNames()) {
    EXPECT_NE(matrix.find("<th scope=\"col\" class=\"num\">" + report_text::Html(c) + "</th>"),
              std::string::npos)
        << c;
  }
  // A row: the rule, its verdict, one cell per class; a failing rule's cells are red.
  const size_t t7 = matrix.find("<tr data-rule=\"T7\" data-verdict=\"fail\"");
  ASSERT_NE(t7, std::string::npos);
  const std::string row = matrix.substr(t7, matrix.find("</tr>", t7) - t7);
  EXPECT_EQ(Count(row, "<td class=\"cell\""), FaultClassNames().size());
  EXPECT_EQ(Count(row, "background:rgba(207,34,46,"), FaultClassNames().size());
  // A rule nothing ran for shows dashes.
  const size_t w10 = matrix.find("<tr data-rule=\"W10\" data-verdict=\"tests only\"");
  ASSERT_NE(w10, std::string::npos);
  EXPECT_EQ(Count(matrix.substr(w10, matrix.find("</tr>", w10) - w10), "cell na"),
            FaultClassNames().size());
}

TEST(ReportHtml, EvidenceShowsEachRulesSituationsReachedOfDeclared) {
  const Sample s = NastySample();
  const std::string html = ReportHtml(s.report, s.verdicts);
  const size_t begin = html.find("<table id=\"rule-evidence\">");
  ASSERT_NE(begin, std::string::npos);
  const std::string table = html.substr(begin, html.find("</table>", begin) - begin);
  // A row per rule that declares situations: W1 (both reached) and E1 (one of two).
  EXPECT_EQ(Count(table, "<tr data-rule="), 2u);
  EXPECT_NE(table.find("<tr data-rule=\"W1\" data-reached=\"2\" data-declared=\"2\">"),
            std::string::npos);
  EXPECT_NE(table.find("<tr data-rule=\"E1\" data-reached=\"1\" data-declared=\"2\">"),
            std::string::npos);
  EXPECT_NE(table.find("<li class=\"unreached\" data-situation=\"E1.never\" data-count=\"0\">"
                       "<code>E1.never</code> a case &lt;nobody&gt; generates: never reached</li>"),
            std::string::npos);
  EXPECT_NE(table.find("<li data-situation=\"W1.edge\" data-count=\"4\"><code>W1.edge</code> a "
                       "&lt;b&gt;case&lt;/b&gt; at the edge: 4 cases</li>"),
            std::string::npos);
  // The unreached situation is listed first.
  EXPECT_LT(table.find("E1.never"), table.find("E1.edge"));
  EXPECT_NE(html.find("1 rule not exercised"), std::string::npos);
  EXPECT_NE(html.find("Credited to <strong>T1</strong>"), std::string::npos);
}

TEST(ReportHtml, EscapesEverythingFromTheRun) {
  const Sample s = NastySample();
  const std::string html = ReportHtml(s.report, s.verdicts);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("</td></tr><script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<pre class=\"cmd\"><code>statecheck replay &#39;traces/g two &lt;1&gt;"
                      ".jsonl&#39;</code></pre>"),
            std::string::npos);
  EXPECT_NE(html.find("\\x01\\x02"), std::string::npos);
  for (unsigned char c : html) {
    ASSERT_TRUE(c >= 0x20 || c == '\n' || c == '\t' || c == '\r') << static_cast<int>(c);
  }
}

TEST(ReportHtml, OpsChartDerivesRatesFromProgress) {
  const Sample s = NastySample();
  const std::string html = ReportHtml(s.report, s.verdicts);
  const size_t begin = html.find("<svg id=\"ops-chart\"");
  ASSERT_NE(begin, std::string::npos);
  const std::string svg = html.substr(begin, html.find("</svg>", begin) - begin);
  EXPECT_NE(svg.find("<polyline points=\""), std::string::npos);
  EXPECT_NE(svg.find("seconds since the run started"), std::string::npos);
  EXPECT_NE(svg.find("operations per second"), std::string::npos);
  // Samples at 1, 2 and 2.5 s with 800, 1900 and 2030 operations: 800, 1100 and 260 ops/s.
  EXPECT_NE(svg.find("1.0 s: 800 ops/s"), std::string::npos);
  EXPECT_NE(svg.find("2.0 s: 1,100 ops/s"), std::string::npos);
  EXPECT_NE(svg.find("2.5 s: 260 ops/s"), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"finding-mark\""), 1u);

  Sample empty = NastySample();
  empty.report.progress.clear();
  const std::string no_chart = ReportHtml(empty.report, empty.verdicts);
  EXPECT_NE(no_chart.find("No progress samples"), std::string::npos);
}

// Opens report.html in headless Chromium (--dump-dom) and checks that it loads, that the
// browser's DOM has the matrix with a row per rule, that the page's script ran to its end
// (body[data-loaded="ok"]), and that nothing reached the console (an uncaught exception or a
// console message is logged on stderr as "...:CONSOLE(line)] ...").
TEST(ReportHtml, LoadsInHeadlessChromium) {
  ASSERT_TRUE(HaveCommand("chromium"))
      << "chromium is missing: install Debian's chromium package (ci/setup.sh does)";
  ASSERT_TRUE(HaveCommand("timeout")) << "coreutils' timeout is missing";
  const TestDir dir;
  const Sample s = SelftestSample();  // A campaign's report, with a selftest's section.
  const fs::path html = dir / "report.html";
  WriteFile(html, ReportHtml(s.report, s.verdicts));
  const fs::path dom = dir / "dom.html", log = dir / "chromium-stderr.txt";
  // Its own profile directory: no state from (or for) another run, and parallel runs coexist.
  const std::string command =
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr "
      "--v=0 --user-data-dir=" +
      Quote((dir / "profile").string()) + " --dump-dom " + Quote("file://" + html.string()) + " >" +
      Quote(dom.string()) + " 2>" + Quote(log.string());
  ASSERT_EQ(RunShell(command), 0) << command << "\n" << ReadFile(log);
  const std::string stderr_text = ReadFile(log);
  std::istringstream lines(stderr_text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.find(":CONSOLE"), std::string::npos) << line;
    EXPECT_EQ(line.find("Uncaught"), std::string::npos) << line;
  }
  const std::string out = ReadFile(dom);
  EXPECT_NE(out.find("data-loaded=\"ok\""), std::string::npos) << "the page's script did not run "
                                                                  "to its end";
  EXPECT_NE(out.find("data-matrix-rows=\"" + std::to_string(s.verdicts.size()) + "\""),
            std::string::npos);
  const size_t begin = out.find("<table id=\"rule-fault-matrix\">");
  ASSERT_NE(begin, std::string::npos) << out.substr(0, 2000);
  const std::string matrix = out.substr(begin, out.find("</table>", begin) - begin);
  EXPECT_EQ(Count(matrix, "<tr data-rule="), s.verdicts.size());
  for (const RuleVerdict& v : s.verdicts) {
    EXPECT_NE(matrix.find("<tr data-rule=\"" + v.rule->id + "\""), std::string::npos) << v.rule->id;
  }
  EXPECT_NE(out.find("<table id=\"rule-evidence\">"), std::string::npos);
  // The script's copy buttons: one per replay command.
  EXPECT_EQ(Count(out, "<button type=\"button\">copy</button>"), 2u);
  // The mutation score: a row and a bar per planted bug; the injected markup stayed text.
  EXPECT_EQ(Count(out, "<tr data-bug="), 3u);
  EXPECT_NE(out.find("2 of 3 planted bugs caught (66.7%)"), std::string::npos);
  EXPECT_EQ(out.find("<script>alert(1)"), std::string::npos);
}

}  // namespace
}  // namespace statecheck::reports::writers_test
