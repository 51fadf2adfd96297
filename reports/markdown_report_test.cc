// Tests of the Markdown writer (markdown_report.cc): summary.md. Part of report_writers_test.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "reports/report_writers_test_util.h"
#include "reports/rule_catalogue.h"
#include "reports/run_report.h"

namespace statecheck::reports::writers_test {
namespace {

TEST(ReportMarkdown, HeaderRulesFailPointsAndFindings) {
  const Sample s = NastySample();
  const std::string md = ReportMarkdown(s.report, s.verdicts);
  EXPECT_EQ(md.rfind("# statecheck conformance report: ❌ FAIL\n", 0), 0u);
  EXPECT_NE(md.find("- seed: `18446744073709551615`"), std::string::npos);
  EXPECT_NE(md.find("- commit: `abc123\"<dirty>`"), std::string::npos);
  EXPECT_NE(md.find("- configuration: budget 2.5 s, 10 cases per batch, max size 50, rules W,T, "
                    "property families all, shard 1/3"),
            std::string::npos);
  EXPECT_NE(md.find("2 properties (1 failed), 23 cases, 2,030 operations in 2.5 s (812 ops/s)"),
            std::string::npos);
  EXPECT_NE(md.find("| rule | verdict | situations | cases | operations | no fault | crash | power "
                    "loss | I/O err | engine fp |"),
            std::string::npos);
  EXPECT_NE(md.find("| W1 construction \\<&\\> | ✅ pass | 2/2 | 20 | 2000 | 12 | 3 | 2 | 7 | 1 |"),
            std::string::npos);
  EXPECT_NE(md.find("| T1 fails \\\\x01 | ❌ **fail** |  | 3 | 30 | 1 | 1 | 1 | 0 | 0 |"),
            std::string::npos);
  EXPECT_NE(md.find("| W2 stream time | ⏭️ not run |  |  |  |"), std::string::npos);
  EXPECT_NE(md.find("| E1 short run | 🟡 not exercised | 1/2 | 2 | 2000 |"), std::string::npos);
  EXPECT_NE(md.find("### Not exercised\n\n- E1 short run: no case reached `E1.never` (a case "
                    "\\<nobody\\> generates)\n"),
            std::string::npos);
  EXPECT_NE(md.find("Credited to T1, the rule of the check that failed."), std::string::npos);
  EXPECT_NE(md.find("1 of 3 reachable fail points fired (2 reached; 1 more are unreachable by "
                    "construction)."),
            std::string::npos);
  EXPECT_NE(md.find("| `statecheck/fs/sync/wal` | 120 | 4 |"), std::string::npos);
  EXPECT_NE(md.find("\nNever reached: `statecheck/task/restore/batch`.\n"), std::string::npos);
  EXPECT_EQ(md.find("| `statecheck/task/restore/batch`"), std::string::npos);
  EXPECT_NE(md.find("## Findings\n\n### `g/two`\n"), std::string::npos);
  EXPECT_NE(md.find("```sh\nstatecheck replay 'traces/g two <1>.jsonl'\n```\n"), std::string::npos);
  EXPECT_NE(md.find("```sh\nstatecheck run --seed 18446744073709551615 --reproduce 'BASE64+/=='\n"
                    "```\n"),
            std::string::npos);
  // No line of the tables is wider than a job summary shows comfortably.
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| ", 0) == 0) {
      EXPECT_LE(line.size(), 120u) << line;
    }
  }
}

TEST(ReportMarkdown, CodeBlocksHoldAnyBackticks) {
  const Sample s = NastySample();
  const std::string md = ReportMarkdown(s.report, s.verdicts);
  // The counterexample has a run of three backticks, so its fence is four long.
  EXPECT_NE(md.find("````\n{\"op\":\"put\",\"key\":\"k\\u0001\"}\n```fence``` and `tick`\n"),
            std::string::npos);
  EXPECT_EQ(md.find('\x01'), std::string::npos);
  EXPECT_EQ(md.find('\x1b'), std::string::npos);
}

TEST(ReportMarkdown, PassingRunSaysPass) {
  Sample s = NastySample();
  s.report.properties.pop_back();
  std::vector<const Rule*> rules;
  for (const auto& r : s.rules) rules.push_back(r.get());
  s.verdicts = RuleVerdicts(rules, s.report);
  const std::string md = ReportMarkdown(s.report, s.verdicts);
  EXPECT_EQ(md.rfind("# statecheck conformance report: ✅ PASS\n", 0), 0u);
  EXPECT_EQ(md.find("## Findings"), std::string::npos);
}

TEST(ReportMarkdown, MutationScoreListsEveryBugAndExplainsTheMissedOnes) {
  const Sample s = SelftestSample();
  const std::string md = ReportMarkdown(s.report, s.verdicts);
  EXPECT_NE(md.find("## Mutation score"), std::string::npos);
  EXPECT_NE(md.find("**2 of 3 planted bugs caught (66.7%)**, 60 s budget per bug"),
            std::string::npos);
  EXPECT_NE(md.find("| `window_store/drop_rule_off_by_one` | W3,W6 | ✅ a check of W3 | 0.8 | 3 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Of the caught bugs, 1 of 2 were caught by a check of a rule they are "
                    "expected to break."),
            std::string::npos);
  EXPECT_NE(md.find("✅ unattributed: no check failed"), std::string::npos);
  EXPECT_NE(md.find("### Not caught: `windowed/emit_interval_ignored`"), std::string::npos);
  EXPECT_LT(md.find("## Mutation score"), md.find("## Rules"));
  // A campaign's report has no such section.
  const Sample c = RealisticSample();
  EXPECT_EQ(ReportMarkdown(c.report, c.verdicts).find("Mutation score"), std::string::npos);
}

}  // namespace
}  // namespace statecheck::reports::writers_test
