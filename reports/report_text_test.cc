// Tests of the report writers' shared text helpers (report_text.h): making arbitrary strings
// safe for XML and HTML, and number formatting (part of report_writers_test).
#include "reports/report_text.h"

#include <gtest/gtest.h>

#include <string>

namespace statecheck::reports::writers_test {
namespace {

TEST(ReportText, SanitizeKeepsValidTextAndEscapesTheRest) {
  using report_text::SanitizeText;
  EXPECT_EQ(SanitizeText("plain ü ✓ 😀\t\n\r"), "plain ü ✓ 😀\t\n\r");
  EXPECT_EQ(SanitizeText(std::string("a\x01"
                                     "b\x1b"
                                     "c",
                                     5)),
            "a\\x01b\\x1Bc");
  EXPECT_EQ(SanitizeText(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(SanitizeText("\xff\xfe"), "\\xFF\\xFE");           // Not UTF-8.
  EXPECT_EQ(SanitizeText("\xc3"), "\\xC3");                    // Truncated.
  EXPECT_EQ(SanitizeText("\xc0\xaf"), "\\xC0\\xAF");           // Overlong '/'.
  EXPECT_EQ(SanitizeText("\xed\xa0\x80"), "\\xED\\xA0\\x80");  // A surrogate.
  EXPECT_EQ(SanitizeText("\xef\xbf\xbf"), "\\u{FFFF}");        // Not an XML character.
}

TEST(ReportText, EscapesForXmlAndHtml) {
  EXPECT_EQ(report_text::XmlText("a<b>&c]]>\r\n\"'"), "a&lt;b&gt;&amp;c]]&gt;&#13;\n\"'");
  EXPECT_EQ(report_text::XmlAttr("\"'<&>\t\n"), "&quot;&apos;&lt;&amp;&gt;&#9;&#10;");
  EXPECT_EQ(report_text::Html("<a href='x'>&\x01</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;\\x01&lt;/a&gt;");
}

TEST(ReportText, Numbers) {
  EXPECT_EQ(report_text::Grouped(0), "0");
  EXPECT_EQ(report_text::Grouped(1234567), "1,234,567");
  EXPECT_EQ(report_text::Grouped(-1000), "-1,000");
  EXPECT_EQ(report_text::Compact(987), "987");
  EXPECT_EQ(report_text::Compact(12345), "12.3k");
  EXPECT_EQ(report_text::Compact(4560000), "4.56M");
  const auto rates = report_text::OpsPerSecond({{1, 1, 100, 0}, {1, 1, 100, 0}, {3, 2, 500, 0}});
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_DOUBLE_EQ(rates[0].second, 100);
  EXPECT_DOUBLE_EQ(rates[1].second, 200);
}

}  // namespace
}  // namespace statecheck::reports::writers_test
