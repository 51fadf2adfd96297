// Tests of the report writers (junit_report.cc, markdown_report.cc, html_report.cc, and
// report.json against its schema), each also checked by the tool that reads it in practice:
// junit.xml by xmllint against reports/schemas/junit.xsd (the Jenkins xUnit plugin's JUnit
// schema), report.html by headless Chromium, report.json by python3's jsonschema against
// docs/report-schema.json. A missing tool fails its test rather than skipping it: ci/setup.sh
// installs them (libxml2-utils, chromium, python3-jsonschema), and a check that silently stops
// running is worse than none.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "reports/report_text.h"
#include "reports/rule_catalogue.h"
#include "reports/run_report.h"

namespace statecheck::reports {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Samples.

// A report with its verdicts. The rules the verdicts point to live in `rules` (or in the
// built-in catalogue).
struct Sample {
  std::vector<std::unique_ptr<Rule>> rules;
  RunReport report;
  std::vector<RuleVerdict> verdicts;
};

std::vector<BatchResult> Batches(int n, int64_t cases, int64_t ops, double seconds, bool passed) {
  std::vector<BatchResult> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({static_cast<uint64_t>(i), 1000003u * (i + 1), cases / n, ops / n, seconds / n,
                   passed || i + 1 < n});
  }
  return out;
}

// A small report with text meant to break writers: markup, quotes, ampersands, C0 control
// characters XML 1.0 forbids, invalid UTF-8, a CDATA terminator, backtick runs, non-ASCII.
Sample NastySample() {
  Sample s;
  auto rule = [&](std::string id, std::string family, std::string title, std::string statement,
                  std::vector<std::string> checks, std::vector<std::string> families,
                  std::vector<Situation> situations = {}) {
    s.rules.push_back(std::make_unique<Rule>(Rule{id, family, title, statement, std::move(checks),
                                                  std::move(families), std::move(situations)}));
    return s.rules.back().get();
  };
  std::vector<const Rule*> rules = {
      rule("W1", "W", "construction <&>", "Checked by \"f\" & 'g'.", {"S.T"}, {"f"},
           {{"W1.edge", "a <b>case</b> at the edge"}, {"W1.middle", "one in the middle"}}),
      rule("W2", "W", "stream time", "Checked by h, which does not run.", {"S.U"}, {"h"}),
      rule("T1", "T", "fails \x01", "Checked by family g.", {"S.V"}, {"g"}),
      rule("T2", "T", "tests only", "Checked by a unit test.", {"S.W"}, {}),
      rule("E1", "E", "short run", "Checked by family f, which never gets there.", {"S.X"}, {"f"},
           {{"E1.edge", "reached"}, {"E1.never", "a case <nobody> generates"}}),
      rule("F5", "F", "not checked", "Not checked yet.", {}, {}),
  };
  RunReport& r = s.report;
  r.seed = 18446744073709551615u;  // The largest seed: JSON readers must keep it exact.
  r.commit = "abc123\"<dirty>";
  r.command = "statecheck run --seed 18446744073709551615 --select 'W,T' && echo \"<done>\"";
  r.started_at = "2024-05-01T12:00:00Z";
  r.elapsed_seconds = 2.5;
  r.configuration.budget_seconds = 2.5;
  r.configuration.cases_per_batch = 10;
  r.configuration.max_size = 50;
  r.configuration.select = "W,T";
  r.configuration.shard_index = 1;
  r.configuration.shard_count = 3;

  PropertyResult pass;
  pass.id = "f/one";
  pass.family = "f";
  pass.config = "a=1, b=\"<x>\"";
  pass.cases = 20;
  pass.operations = 2000;
  pass.seconds = 1.25;
  pass.no_fault_cases = 12;
  pass.faults = {3, 2, 7, 1};
  pass.batches = Batches(2, 20, 2000, 1.25, true);
  pass.evidence = {{"W1.edge", 4}, {"W1.middle", 20}, {"E1.edge", 2}};
  pass.rule_cases = {{"W1", 20}, {"E1", 2}};
  r.properties.push_back(pass);

  PropertyResult fail;
  fail.id = "g/two";
  fail.family = "g";
  fail.config = "eos, </td></tr><script>alert(1)</script>";
  fail.passed = false;
  fail.cases = 3;
  fail.operations = 30;
  fail.seconds = 0.5;
  fail.no_fault_cases = 1;
  fail.faults = {1, 1, 0, 0};
  fail.batches = Batches(1, 3, 30, 0.5, false);
  fail.failing_rule = "T1";
  fail.rule_cases = {{"T1", 3}};
  fail.message = std::string(
                     "get(k\x01\x02) returned \"v\" & <nothing>\r\nexpected ]]> \xff\xfe "
                     "end\x1b[0m ü ✓") +
                 std::string(1, '\0') + "after NUL";
  fail.trace_path = "traces/g two <1>.jsonl";
  fail.reproduce = "BASE64+/==";
  fail.counterexample = {"{\"op\":\"put\",\"key\":\"k\\u0001\"}", "```fence``` and `tick`",
                         "</pre><script>alert(2)</script>", "\t tabbed \x7f"};
  fail.replay_commands = {"statecheck replay 'traces/g two <1>.jsonl'",
                          "statecheck run --seed 18446744073709551615 --reproduce 'BASE64+/=='"};
  r.properties.push_back(fail);

  r.fail_points = {{"statecheck/fs/sync/wal", 120, 4, true},
                   {"statecheck/task/commit/after_log", 30, 0, true},
                   {"statecheck/task/restore/batch", 0, 0, true},
                   {"statecheck/fs/truncate/other", 0, 0, false}};
  r.progress = {{1.0, 8, 800, 0}, {2.0, 20, 1900, 1}, {2.5, 23, 2030, 1}};
  s.verdicts = RuleVerdicts(rules, r);
  return s;
}

// A realistic campaign over the built-in catalogue: the property families of the option matrix,
// two minutes of progress, the fail-point catalogue's kind of names, and one finding.
Sample RealisticSample() {
  Sample s;
  RunReport& r = s.report;
  r.seed = 7318249905129;
  r.commit = "4f2c9e1a7b3d";
  r.started_at = "2024-05-01T12:00:00Z";
  r.elapsed_seconds = 120.4;
  r.command = "statecheck run --seed 7318249905129 --budget 120s --report-dir out/report";
  r.configuration.budget_seconds = 120;
  r.configuration.cases_per_batch = 100;
  r.configuration.max_size = 60;

  // A deterministic pseudo-random sequence, so the sample (and the screenshot) never changes.
  uint64_t x = 88172645463325252u;
  auto next = [&](uint64_t mod) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return static_cast<int64_t>(x % mod);
  };
  struct Spec {
    const char* id;
    const char* family;
    const char* config;
    bool faults;
  };
  const Spec specs[] = {
      {"window_store/ConstructionMatchesModel", "window_store", "defaults", false},
      {"window_store/MatchesModel/r1000_w100", "window_store",
       "retention_ms=1000, window_size_ms=100, retain_duplicates=false", false},
      {"window_store/MatchesModel/r1000_w100_dup", "window_store",
       "retention_ms=1000, window_size_ms=100, retain_duplicates=true", false},
      {"window_store/MatchesModel/r60000_w5000", "window_store",
       "retention_ms=60000, window_size_ms=5000, retain_duplicates=false", false},
      {"kv_store/MatchesModel/alos", "kv_store", "processing.guarantee=at_least_once", true},
      {"kv_store/MatchesModel/eos_rc_wal", "kv_store",
       "processing.guarantee=exactly_once_v2, isolation.level=read_committed, WAL", true},
      {"kv_store/MatchesModel/eos_ru", "kv_store",
       "processing.guarantee=exactly_once_v2, isolation.level=read_uncommitted", true},
      {"kv_concurrency/ReadersMatchHistory/rc", "kv_concurrency",
       "one writer and three reader threads, read_committed", false},
      {"kv_concurrency/ReadersMatchHistory/ru", "kv_concurrency",
       "one writer and three reader threads, read_uncommitted", false},
      {"task/MatchesModel/alos_crash", "task",
       "processing.guarantee=at_least_once, WAL, process crashes", true},
      {"task/MatchesModel/eos_rc_crash", "task",
       "processing.guarantee=exactly_once_v2, isolation.level=read_committed, process crashes",
       true},
      {"task/MatchesModel/eos_rc_powerloss", "task",
       "processing.guarantee=exactly_once_v2, isolation.level=read_committed, crashes lose power",
       true},
      {"task/MatchesModel/eos_ru_upgrade", "task",
       "processing.guarantee=exactly_once_v2, WAL, process crashes, switching state.format", true},
      {"windowed/MatchesModel/tumbling_eager", "windowed",
       R"({"emit_final":false,"grace_ms":50,"window":{"kind":"tumbling","size_ms":100}})", false},
      {"windowed/MatchesModel/hopping_final", "windowed",
       R"({"emit_final":true,"grace_ms":0,"window":{"advance_ms":50,"kind":"hopping","size_ms":200}})",
       false},
      {"windowed/MatchesModel/sliding_eager", "windowed",
       R"({"emit_final":false,"grace_ms":20,"window":{"kind":"sliding","size_ms":100}})", false},
      {"windowed/EmitFinalEqualsSuppressedEager/tumbling_eager", "windowed",
       R"({"kind":"tumbling","size_ms":100})", false},
  };
  for (const Spec& spec : specs) {
    PropertyResult p;
    p.id = spec.id;
    p.family = spec.family;
    p.config = spec.config;
    const int batches = 3 + static_cast<int>(next(6));
    p.cases = batches * 100;
    p.operations = p.cases * (40 + next(60));
    p.seconds = 3 + static_cast<double>(next(5000)) / 1000;
    if (spec.faults) {
      p.faults.crashes = next(p.cases / 2);
      p.faults.power_losses = p.id.find("powerloss") != std::string::npos ? next(p.cases / 3) : 0;
      p.faults.io_errors = next(p.cases / 4);
      p.faults.engine_faults = p.family == "task" ? next(p.cases / 5) : 0;
      p.no_fault_cases = p.cases / 3;
    } else {
      p.no_fault_cases = p.cases;
    }
    p.batches = Batches(batches, p.cases, p.operations, p.seconds, true);
    if (p.id == "task/MatchesModel/eos_rc_powerloss") {
      p.passed = false;
      p.failing_rule = "T7";
      p.batches.back().passed = false;
      p.message =
          "T7 offsets with the data: after a power loss during commit 4 the store reopened with "
          "changelog offset 812 but holds the records of offset 815 (key \"k7\" = \"v\\x01\")";
      p.counterexample = {
          R"({"op":"put","key":"k7","value":"v\u0001"})",
          R"({"op":"commit"})",
          R"({"op":"put","key":"k7","value":"w"})",
          R"({"op":"fail_point","name":"statecheck/fs/sync/wal","after":1})",
          R"({"op":"commit"})",
          R"({"op":"power_loss"})",
          R"({"op":"reopen"})",
      };
      p.trace_path = "out/report/traces/task-MatchesModel-eos_rc_powerloss-3.jsonl";
      p.reproduce = "BwAAAAAAAAAXDa8x0YwEAAAAAAA";
      p.replay_commands = {
          "statecheck replay out/report/traces/task-MatchesModel-eos_rc_powerloss-3.jsonl",
          "statecheck run --seed 7318249905129 --reproduce 'BwAAAAAAAAAXDa8x0YwEAAAAAAA'"};
    }
    r.properties.push_back(std::move(p));
  }
  const char* points[] = {
      "statecheck/fs/append/log",
      "statecheck/fs/append/sst",
      "statecheck/fs/sync/wal",
      "statecheck/fs/sync",
      "statecheck/fs/dir_fsync/current",
      "statecheck/fs/open/wal",
      "statecheck/fs/down",
      "statecheck/task/commit/after_log",
      "statecheck/task/commit/before_offsets",
      "statecheck/task/restore/batch",
      "statecheck/task/upgrade/before_delete",
      "statecheck/fs/rename/manifest",
      "statecheck/fs/truncate/other",
      "statecheck/fs/link/sst",
  };
  for (const char* name : points) {
    FailPointRow f;
    f.name = name;
    const std::string n = name;
    f.reachable = n != "statecheck/fs/truncate/other" && n != "statecheck/fs/link/sst";
    if (f.reachable && n != "statecheck/task/upgrade/before_delete") {
      f.reached = static_cast<uint64_t>(next(200000));
      if (n != "statecheck/fs/down") f.fired = static_cast<uint64_t>(next(400));
    }
    r.fail_points.push_back(f);
  }
  // Progress: a rate that warms up and wanders, scaled so that the last sample's totals are the
  // properties' (the chart and the header's ops/s then agree).
  int64_t total_ops = 0, total_cases = 0;
  for (const PropertyResult& p : r.properties) {
    total_ops += p.operations;
    total_cases += p.cases;
  }
  std::vector<double> shape;
  double shape_sum = 0;
  for (int t = 1; t <= 120; ++t) {
    shape.push_back(52 + 9 * ((t / 15) % 3) - (t < 4 ? 30 : 0) + next(6000) / 1000.0);
    shape_sum += shape.back();
  }
  double acc = 0;
  for (int t = 1; t <= 120; ++t) {
    acc += shape[t - 1] / shape_sum;
    r.progress.push_back({static_cast<double>(t), std::llround(acc * total_cases),
                          std::llround(acc * total_ops), t >= 74 ? 1 : 0});
  }
  // Evidence: every situation of the catalogue reached by the first property of its rule's
  // families, but one of U2's (so that one rule is "not exercised").
  for (const Rule& rule : RuleCatalogue::Builtin().rules()) {
    for (PropertyResult& p : r.properties) {
      const auto& f = rule.property_families;
      if (std::find(f.begin(), f.end(), p.family) == f.end()) continue;
      int64_t any = 0;
      for (const Situation& sit : rule.situations) {
        const int64_t n = rule.id == "U2" && &sit == &rule.situations.front() ? 0 : 1 + next(90);
        if (n > 0) p.evidence[sit.name] = n;
        any = std::max(any, n);
      }
      if (any > 0) p.rule_cases[rule.id] = any + next(10);
      break;
    }
  }
  std::vector<const Rule*> rules;
  for (const Rule& rule : RuleCatalogue::Builtin().rules()) rules.push_back(&rule);
  s.verdicts = RuleVerdicts(rules, r);
  return s;
}

// The realistic report with the regression corpus it replayed first: one trace passed, one
// diverged with its check citing W3.
Sample RegressionSample() {
  Sample s = RealisticSample();
  RegressionSection& corpus = s.report.regressions.emplace();
  corpus.directory = "/src/statecheck/regressions";
  PropertyResult ok;
  ok.id = "regressions/window-store-drop-rule.jsonl";
  ok.family = "window_store";
  ok.config = "6 steps against both";
  ok.cases = 1;
  ok.operations = 6;
  ok.seconds = 0.01;
  ok.batches = Batches(1, 1, 6, 0.01, true);
  PropertyResult bad = ok;
  bad.id = "regressions/windowed-emit-final-<max>.jsonl";
  bad.family = "windowed";
  bad.passed = false;
  bad.operations = 4;
  bad.batches = Batches(1, 1, 4, 0.01, false);
  bad.failing_rule = "E5";
  bad.message = "DIVERGED at step 5 (line 6)\n  op: {\"op\":\"process\"}\n  E5: emitted none\n";
  bad.counterexample = {"{\"op\":\"process\",\"max_records\":1}"};
  bad.trace_path = "/src/statecheck/regressions/windowed-emit-final-<max>.jsonl";
  bad.replay_commands = {"statecheck replay '" + bad.trace_path + "'"};
  corpus.traces = {ok, bad};
  std::vector<const Rule*> rules;
  for (const Rule& rule : RuleCatalogue::Builtin().rules()) rules.push_back(&rule);
  s.verdicts = RuleVerdicts(rules, s.report);
  return s;
}

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

// A selftest's report: the realistic campaign as its control run, and a mutation score of two
// of three planted bugs, one of them with text meant to break writers.
Sample SelftestSample() {
  Sample s = RealisticSample();
  SelftestSection& t = s.report.selftest.emplace();
  t.budget_seconds = 60;
  t.scope = "rules";
  t.bugs.push_back({"window_store/drop_rule_off_by_one",
                    "W3,W6",
                    "A put is dropped only when windowStart < streamTime - retention.",
                    "KAFKA-13143",
                    "engine/in_memory_window_store.cc",
                    true,
                    0.8,
                    120,
                    3400,
                    "window_store/MatchesModel/ret10_size3",
                    {"W3", "W6"},
                    3,
                    "W3: fetch(a, 0) returned [x], the model []",
                    {"STATECHECK_PLANTED_BUG=window_store/drop_rule_off_by_one statecheck replay "
                     "/tmp/t.jsonl"},
                    "out/bugs/window_store-drop_rule_off_by_one",
                    {"W3"}});
  t.bugs.push_back({"task/<script>alert(1)</script>",
                    "C3",
                    "Bytes \x01 & <b>\"quotes\"</b> ]]>",
                    "KAFKA-9999 `tick`",
                    "engine/task.cc",
                    true,
                    12.25,
                    800,
                    90000,
                    "task/MatchesModel/eos_rc",
                    {"C3"},
                    7,
                    "C3: committed output differs\x02",
                    {},
                    "out/bugs/task",
                    {}});
  t.bugs.push_back({"windowed/emit_interval_ignored",
                    "E5",
                    "The emit interval is not kept.",
                    "KAFKA-13785",
                    "engine/windowed_aggregation.cc",
                    false,
                    60,
                    5000,
                    400000,
                    "",
                    {},
                    0,
                    "",
                    {},
                    "out/bugs/windowed",
                    {}});
  return s;
}

// ---------------------------------------------------------------------------------------------
// Helpers for running the external tools.

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// A fresh directory for one test: under gtest's temp dir, named for the test and the process so
// that parallel ctest runs do not collide. Removed when the test passes; kept (for a look at
// what the tools were given and said) when it fails.
class TestDir {
 public:
  TestDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ =
        fs::path(::testing::TempDir()) / ("statecheck-" + std::string(info->test_suite_name()) +
                                          "-" + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TestDir() {
    std::error_code ec;
    if (!::testing::Test::HasFailure()) fs::remove_all(path_, ec);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;

  fs::path operator/(const std::string& name) const { return path_ / name; }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// `s` in single quotes for sh.
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `command` with sh; returns its exit status (-1 if it could not be run).
int RunShell(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

bool HaveCommand(const std::string& name) {
  return RunShell("command -v " + Quote(name) + " >/dev/null 2>&1") == 0;
}

const std::string kSourceDir = STATECHECK_SOURCE_DIR;

// ---------------------------------------------------------------------------------------------
// Shared text helpers.

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

// ---------------------------------------------------------------------------------------------
// JUnit XML.

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

// ---------------------------------------------------------------------------------------------
// Markdown.

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

// ---------------------------------------------------------------------------------------------
// HTML.

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

// ---------------------------------------------------------------------------------------------
// report.json against docs/report-schema.json.

// Validates `doc` against `schema` (JSON Schema draft 2020-12) with python3's jsonschema. Exit
// status 0: valid; 3: invalid (the errors are printed); anything else: the check itself failed.
constexpr const char* kValidateJson = R"py(
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1], encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
# One line per document: its path, a tab, the number of errors, a tab, the errors.
for doc in sys.argv[2:]:
    errors = sorted(validator.iter_errors(json.load(open(doc, encoding="utf-8"))), key=str)
    print(doc + "\t" + str(len(errors)) + "\t" + "; ".join(
        "/".join(str(p) for p in e.absolute_path) + ": " + e.message for e in errors))
)py";

// Validates every document in one python3 (each start costs a second): per document, its
// schema errors ("" when valid); an absent entry when python did not get to it. `*output`: the
// command and what it printed.
std::map<std::string, std::string> ValidateJson(const std::vector<fs::path>& docs,
                                                std::string* output) {
  const fs::path log = docs.front().string() + ".log";
  std::string command =
      "python3 -c " + Quote(kValidateJson) + " " + Quote(kSourceDir + "/docs/report-schema.json");
  for (const fs::path& doc : docs) command += " " + Quote(doc.string());
  command += " >" + Quote(log.string()) + " 2>&1";
  RunShell(command);
  const std::string text = ReadFile(log);
  *output = command + "\n" + text;
  std::map<std::string, std::string> errors;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t tab = line.find('\t'), tab2 = line.find('\t', tab + 1);
    if (tab == std::string::npos || tab2 == std::string::npos) continue;
    errors[line.substr(0, tab)] =
        line.substr(tab, tab2 - tab) == "\t0" ? "" : line.substr(tab2 + 1);
  }
  return errors;
}

TEST(ReportJson, ValidatesAgainstTheDocumentedSchema) {
  ASSERT_TRUE(HaveCommand("python3")) << "python3 is missing";
  ASSERT_EQ(RunShell("python3 -c 'import jsonschema' >/dev/null 2>&1"), 0)
      << "python3's jsonschema is missing: install Debian's python3-jsonschema (ci/setup.sh does)";
  const TestDir dir;
  // The nasty sample, but for its invalid UTF-8: nlohmann::json refuses to write that.
  Sample nasty = NastySample();
  for (PropertyResult& p : nasty.report.properties) {
    p.message = report_text::SanitizeText(p.message);
  }
  Sample realistic = RealisticSample();
  // A merged report of a campaign run by batches rather than a budget.
  Sample merged = RealisticSample();
  merged.report.merged_shards = {"0/2", "1/2"};
  merged.report.configuration.budget_seconds = 0;
  merged.report.configuration.batches_per_property = 4;
  merged.report.configuration.families = {"task", "kv_store"};
  // A selftest's report, its text made valid UTF-8 as above.
  Sample selftest = SelftestSample();
  for (PlantedBugResult& b : selftest.report.selftest->bugs) {
    b.description = report_text::SanitizeText(b.description);
    b.message = report_text::SanitizeText(b.message);
  }
  const Sample regressions = RegressionSample();
  const std::pair<const char*, const Sample*> samples[] = {{"nasty", &nasty},
                                                           {"realistic", &realistic},
                                                           {"merged", &merged},
                                                           {"selftest", &selftest},
                                                           {"regressions", &regressions}};
  std::vector<fs::path> valid_docs;
  for (const auto& [name, sample] : samples) {
    valid_docs.push_back(dir / (std::string(name) + "-report.json"));
    WriteFile(valid_docs.back(), ReportJson(sample->report, sample->verdicts));
  }

  // The schema is not vacuous: each of these breaks of the format is caught.
  const nlohmann::json valid =
      nlohmann::json::parse(ReportJson(realistic.report, realistic.verdicts));
  ASSERT_TRUE(valid["properties"][11]["passed"] == false);  // eos_rc_powerloss.
  const std::pair<const char*, void (*)(nlohmann::json&)> breaks[] = {
      {"another version", [](nlohmann::json& j) { j["statecheck_report"] = 1; }},
      {"no seed", [](nlohmann::json& j) { j.erase("seed"); }},
      {"a negative seed", [](nlohmann::json& j) { j["seed"] = -1; }},
      {"an unknown field", [](nlohmann::json& j) { j["extra"] = true; }},
      {"no shard", [](nlohmann::json& j) { j["configuration"].erase("shard"); }},
      {"a failure without its details",
       [](nlohmann::json& j) { j["properties"][11].erase("failure"); }},
      {"details of a pass",
       [](nlohmann::json& j) { j["properties"][0]["failure"] = j["properties"][11]["failure"]; }},
      {"a batch's cases as a string",
       [](nlohmann::json& j) { j["properties"][0]["batches"][0]["cases"] = "100"; }},
      {"an unknown verdict", [](nlohmann::json& j) { j["rules"][0]["verdict"] = "maybe"; }},
      {"a rule without evidence", [](nlohmann::json& j) { j["rules"][0].erase("evidence"); }},
      {"a situation's count as a string",
       [](nlohmann::json& j) { j["properties"][0]["evidence"]["W1.x"] = "3"; }},
      {"a negative count", [](nlohmann::json& j) { j["properties"][0]["rule_cases"]["W1"] = -1; }},
      {"a failure without its rule",
       [](nlohmann::json& j) { j["properties"][11]["failure"].erase("rule"); }},
      {"no require_evidence",
       [](nlohmann::json& j) { j["configuration"].erase("require_evidence"); }},
      {"a rule without faults", [](nlohmann::json& j) { j["rules"][0].erase("faults"); }},
      {"a fail point without reachable",
       [](nlohmann::json& j) { j["fail_points"][0].erase("reachable"); }},
      {"a malformed shard name", [](nlohmann::json& j) { j["merged_shards"] = {"first"}; }},
      {"a selftest without its score",
       [](nlohmann::json& j) {
         j["selftest"] = nlohmann::json{{"budget_seconds", 60}};
       }},
      {"a regression corpus without its traces",
       [](nlohmann::json& j) {
         j["regressions"] = nlohmann::json{{"directory", "regressions"}};
       }},
  };
  std::vector<fs::path> broken_docs;
  for (const auto& [what, change] : breaks) {
    nlohmann::json broken = valid;
    change(broken);
    broken_docs.push_back(dir / ("broken-" + std::to_string(broken_docs.size()) + ".json"));
    WriteFile(broken_docs.back(), broken.dump(2));
  }
  std::vector<fs::path> docs = valid_docs;
  docs.insert(docs.end(), broken_docs.begin(), broken_docs.end());
  std::string output;
  const std::map<std::string, std::string> errors = ValidateJson(docs, &output);
  for (size_t i = 0; i < valid_docs.size(); ++i) {
    auto it = errors.find(valid_docs[i].string());
    ASSERT_NE(it, errors.end()) << samples[i].first << " was not validated: " << output;
    EXPECT_EQ(it->second, "") << samples[i].first;
  }
  for (size_t i = 0; i < broken_docs.size(); ++i) {
    auto it = errors.find(broken_docs[i].string());
    ASSERT_NE(it, errors.end()) << breaks[i].first << " was not validated: " << output;
    EXPECT_NE(it->second, "") << breaks[i].first << " passed the schema";
  }
}

}  // namespace
}  // namespace statecheck::reports
