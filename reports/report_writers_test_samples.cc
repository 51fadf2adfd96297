// The sample reports report_writers_test's files check the writers on (report_writers_test_util.h):
// one meant to break writers, a realistic campaign, and that campaign with a regression corpus
// and as a selftest's control run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reports/report_writers_test_util.h"
#include "reports/rule_catalogue.h"
#include "reports/run_report.h"

namespace statecheck::reports::writers_test {
namespace {

std::vector<BatchResult> Batches(int n, int64_t cases, int64_t ops, double seconds, bool passed) {
  std::vector<BatchResult> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({static_cast<uint64_t>(i), 1000003u * (i + 1), cases / n, ops / n, seconds / n,
                   passed || i + 1 < n});
  }
  return out;
}

}  // namespace

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
                    "engine/store/in_memory_window_store.cc",
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
                    {"W3"},
                    "/tmp/t.jsonl"});
  t.bugs.push_back({"task/<script>alert(1)</script>",
                    "C3",
                    "Bytes \x01 & <b>\"quotes\"</b> ]]>",
                    "KAFKA-9999 `tick`",
                    "engine/runtime/task.cc",
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
                    {},
                    ""});
  t.bugs.push_back({"windowed/emit_interval_ignored",
                    "E5",
                    "The emit interval is not kept.",
                    "KAFKA-13785",
                    "engine/aggregation/windowed_aggregation.cc",
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
                    {},
                    ""});
  return s;
}

}  // namespace statecheck::reports::writers_test
