// ReportHtml: report.html, the report as one self-contained HTML5 page (its chart: html_chart.cc).
//
// Self-contained means it opens from a CI artifact or a mail attachment with no network: the CSS
// is inline, the charts are SVG written here, the fonts are the viewer's own, and there are no
// images, external scripts or links out. Sections: a header with the run's identity and an
// overall PASS/FAIL banner; the rule × fault-class matrix (table#rule-fault-matrix); the evidence
// per rule (table#rule-evidence: situations reached of those declared, a bar, and on expansion
// each situation with the cases that reached it, the unreached ones marked); operations
// per second over the run (svg#ops-chart); fail-point coverage (#fail-point-coverage); the
// properties that ran; the findings (#findings) with their replay commands.
//
// The one script, at the end, adds copy buttons to the replay commands and then marks the page
// loaded (body[data-loaded="ok"]) once it has found the matrix: the headless-browser test
// (report_writers_test) reads that marker to know the page's script ran without errors.
//
// Every string from the report goes through report_text::Html: counterexamples hold arbitrary
// bytes, and a key such as "</pre><script>" must show as text.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "reports/html_chart.h"
#include "reports/report_text.h"
#include "reports/run_report.h"

namespace statecheck::reports {
namespace {

using internal::OpsChart;
using report_text::Compact;
using report_text::Fixed;
using report_text::Grouped;
using report_text::Html;

constexpr const char* kStyle = R"css(
:root{--fg:#1f2328;--muted:#656d76;--bg:#fff;--panel:#f6f8fa;--border:#d0d7de;--pass:#1a7f37;
--fail:#cf222e;--warn:#9a6700;--accent:#0969da}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,
sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1240px;margin:0 auto;padding:0 24px 48px}
.banner{color:#fff;padding:18px 24px}
.banner.pass{background:var(--pass)}.banner.fail{background:var(--fail)}
.banner h1{margin:0;font-size:22px;font-weight:600}
.banner .verdict{font-size:28px;font-weight:700;letter-spacing:.04em;margin-right:12px}
.banner p{margin:4px 0 0;opacity:.95}
nav{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--border);
padding:8px 24px;z-index:1}
nav a{color:var(--accent);text-decoration:none;margin-right:18px}
h2{margin:32px 0 8px;font-size:19px;border-bottom:1px solid var(--border);padding-bottom:4px}
h3{margin:20px 0 6px;font-size:16px}
h4{margin:12px 0 4px;font-size:13px;color:var(--muted);text-transform:uppercase;
letter-spacing:.04em}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:16px 0}
.meta dt{color:var(--muted)}.meta dd{margin:0;overflow-wrap:anywhere}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
pre{background:var(--panel);border:1px solid var(--border);border-radius:6px;padding:8px 10px;
overflow:auto;max-height:360px;margin:4px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.chips span{display:inline-block;border-radius:12px;padding:1px 10px;margin:2px 6px 2px 0;
border:1px solid var(--border);background:var(--panel)}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;
white-space:nowrap}
.v-pass{background:#dafbe1;color:var(--pass)}.v-fail{background:#ffebe9;color:var(--fail)}
.v-caught{background:#dafbe1;color:var(--pass)}.v-not-caught{background:#ffebe9;color:var(--fail)}
.score.pass strong{color:var(--pass)}.score.fail strong{color:var(--fail)}
.v-not-exercised{background:#fff8c5;color:var(--warn)}
#rule-evidence td.sit{min-width:360px}
#rule-evidence details summary{cursor:pointer}
#rule-evidence ul{margin:4px 0 2px;padding-left:18px}
#rule-evidence li.unreached{color:var(--warn);font-weight:600}
#rule-evidence .ev{display:inline-block;vertical-align:middle;width:120px;height:10px;
background:var(--panel);border:1px solid var(--border);border-radius:3px;overflow:hidden;
margin-right:8px}
#rule-evidence .ev span{display:block;height:100%;background:var(--pass)}
#rule-evidence .ev.short span{background:var(--warn)}
.cited.other{color:var(--warn)}
.v-not-run{background:#eaeef2;color:var(--muted)}.v-tests-only{background:#ddf4ff;
color:var(--accent)}.v-not-checked{background:#fff8c5;color:var(--warn)}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid var(--border);padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:var(--panel);font-weight:600;position:sticky;top:37px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
#rule-fault-matrix td.cell{text-align:right;min-width:92px;font-variant-numeric:tabular-nums}
#rule-fault-matrix td.na{color:var(--muted);text-align:center}
#rule-fault-matrix tr.family th{background:#fff;border-left:none;border-right:none;
padding-top:12px;color:var(--muted);font-weight:600}
#rule-fault-matrix tr.rule-fail th{color:var(--fail)}
.rid{font-weight:600;display:inline-block;min-width:34px}
.legend{color:var(--muted);font-size:12.5px}
svg text{font:12px system-ui,sans-serif;fill:var(--muted)}
.chart{width:100%;max-width:1000px;height:auto;border:1px solid var(--border);border-radius:6px}
.bar{position:relative;width:240px;height:12px;background:var(--panel);border-radius:3px;
overflow:hidden;border:1px solid var(--border)}
.bar span{position:absolute;left:0;top:0;bottom:0}
.bar .reached{background:#9ecbff}.bar .fired{background:var(--accent)}
.fp-never td.name{color:var(--fail)}
.stack{display:flex;width:100%;max-width:720px;height:18px;border-radius:4px;overflow:hidden;
margin:6px 0}
.stack span{display:block;height:100%}
.scroll{overflow-x:auto}
table.properties{width:100%}
td.config{min-width:200px;max-width:420px;overflow-wrap:anywhere}
td.faults{min-width:160px}
.finding{border:1px solid #ff8182;border-left:4px solid var(--fail);border-radius:6px;
padding:4px 16px 12px;margin:12px 0}
.cmd{position:relative}
.cmd code{user-select:all}
.cmd button{position:absolute;top:4px;right:4px;font-size:11px;padding:1px 8px;cursor:pointer;
border:1px solid var(--border);border-radius:4px;background:#fff}
.muted{color:var(--muted)}
)css";

// The verdict as a CSS class suffix: "not run" -> "not-run".
std::string VerdictClass(const std::string& verdict) {
  std::string s;
  for (char c : verdict) s += (c >= 'a' && c <= 'z') ? c : '-';
  return s;
}

std::string Badge(const std::string& verdict) {
  return "<span class=\"badge v-" + VerdictClass(verdict) + "\">" + Html(verdict) + "</span>";
}

// A number in a table cell, with its exact value on hover when shown short.
std::string NumCell(int64_t n, bool compact = false) {
  if (!compact) return "<td class=\"num\">" + Grouped(n) + "</td>";
  return "<td class=\"num\" title=\"" + Grouped(n) + "\">" + Compact(static_cast<double>(n)) +
         "</td>";
}

std::string Header(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  const report_text::Totals t = report_text::RunTotals(report);
  const bool require = report.configuration.require_evidence;
  int64_t failed_rules = 0, unexercised = 0;
  for (const RuleVerdict& v : verdicts) {
    failed_rules += v.verdict == "fail";
    unexercised += v.verdict == "not exercised";
  }
  const bool failed = VerdictsFail(verdicts, require) || t.failed_properties > 0;

  std::string h = "<header class=\"banner " + std::string(failed ? "fail" : "pass") +
                  "\" id=\"overall\" data-overall=\"" + (failed ? "FAIL" : "PASS") +
                  "\">\n<h1><span class=\"verdict\">" + (failed ? "FAIL" : "PASS") +
                  "</span>statecheck conformance report</h1>\n<p>";
  h += failed ? Grouped(failed_rules) + " of " + Grouped(static_cast<int64_t>(verdicts.size())) +
                    " rules failed; " + Grouped(t.failed_properties) + " of " +
                    Grouped(t.properties) + " properties failed."
              : "No rule failed: every property that ran passed (" + Grouped(t.properties) +
                    " properties).";
  if (unexercised > 0) {
    h += " " + Grouped(unexercised) + (unexercised == 1 ? " rule" : " rules") +
         " not exercised: the checks held, but not every situation was reached" +
         (require ? " (the run required evidence)." : ".");
  }
  h += "</p>\n</header>\n";
  h += "<nav>";
  if (report.selftest) h += "<a href=\"#mutation-score\">Mutation score</a>";
  h += "<a href=\"#matrix\">Rule × fault class</a><a href=\"#evidence\">Evidence</a>"
       "<a href=\"#ops\">Operations/s</a>"
       "<a href=\"#fail-point-coverage\">Fail points</a><a href=\"#properties\">Properties</a>";
  if (report.regressions) h += "<a href=\"#regressions\">Regressions</a>";
  h += "<a href=\"#findings\">Findings</a></nav>\n<main>\n";

  h += "<dl class=\"meta\">\n";
  auto row = [&](const std::string& k, const std::string& html_value) {
    h += "<dt>" + k + "</dt><dd>" + html_value + "</dd>\n";
  };
  row("seed", "<code>" + std::to_string(report.seed) + "</code>");
  row("commit", "<code>" + Html(report.commit) + "</code>");
  if (!report.started_at.empty()) row("started", Html(report.started_at));
  row("command", "<code>" + Html(report.command) + "</code>");
  row("configuration", Html(report_text::ConfigurationSummary(report.configuration)));
  if (!report.merged_shards.empty()) {
    std::string shards;
    for (const std::string& s : report.merged_shards) shards += (shards.empty() ? "" : ", ") + s;
    row("merged shards", Html(shards));
  }
  std::string totals = Grouped(t.properties) + " properties, " + Grouped(t.cases) + " cases, " +
                       Grouped(t.operations) + " operations in " +
                       Fixed(report.elapsed_seconds, 1) + " s";
  if (t.ops_per_second > 0) totals += " (" + Grouped(std::llround(t.ops_per_second)) + " ops/s)";
  row("totals", totals);
  std::string chips = "<div class=\"chips\">";
  for (const auto& [verdict, n] : report_text::VerdictCounts(verdicts)) {
    if (n > 0) chips += "<span>" + Badge(verdict) + " " + Grouped(n) + "</span>";
  }
  row("rules", chips + "</div>");
  return h + "</dl>\n";
}

// The rule × fault-class matrix: one row per rule (grouped under its family), one column per
// fault class. A cell's shade grows with the log of its count relative to the largest count,
// so that classes with a handful of cases still show; a failing rule's cells are red.
std::string Matrix(const std::vector<RuleVerdict>& verdicts) {
  const std::vector<std::string>& classes = FaultClassNames();
  int64_t max_count = 0;
  for (const RuleVerdict& v : verdicts) {
    for (int64_t n : report_text::FaultClassCounts(v)) max_count = std::max(max_count, n);
  }
  std::string h =
      "<section id=\"matrix\">\n<h2>Rule × fault class</h2>\n<p class=\"legend\">Cases that "
      "checked each rule, by what they went through. \"no fault\" counts cases that ran with none "
      "of the faults; a case with several faults counts in each of their columns. Darker is "
      "more; red marks a failing rule.</p>\n<table id=\"rule-fault-matrix\">\n<thead><tr>"
      "<th scope=\"col\">rule</th><th scope=\"col\">verdict</th>";
  for (const std::string& c : classes) h += "<th scope=\"col\" class=\"num\">" + Html(c) + "</th>";
  h += "</tr></thead>\n";
  std::string family;
  for (const RuleVerdict& v : verdicts) {
    if (v.rule->family != family || family.empty()) {
      if (!family.empty()) h += "</tbody>\n";
      family = v.rule->family;
      h += "<tbody><tr class=\"family\"><th colspan=\"" + std::to_string(classes.size() + 2) +
           "\">" + Html(family) + " — " + Html(report_text::FamilyTitle(family)) + "</th></tr>\n";
    }
    const bool fail = v.verdict == "fail";
    h += "<tr data-rule=\"" + Html(v.rule->id) + "\" data-verdict=\"" + Html(v.verdict) +
         "\" class=\"rule-" + VerdictClass(v.verdict) + "\"><th scope=\"row\" title=\"" +
         Html(v.rule->statement) + "\"><span class=\"rid\">" + Html(v.rule->id) + "</span> " +
         Html(v.rule->title) + "</th><td>" + Badge(v.verdict) + "</td>";
    const bool checked = !v.properties.empty();
    for (int64_t n : report_text::FaultClassCounts(v)) {
      if (!checked) {
        h += "<td class=\"cell na\">–</td>";
        continue;
      }
      double shade = 0;
      if (n > 0 && max_count > 0) {
        shade = 0.1 + 0.65 * std::log1p(static_cast<double>(n)) /
                          std::log1p(static_cast<double>(max_count));
      }
      std::string style;
      if (fail) {
        style = "background:rgba(207,34,46," + Fixed(std::max(shade, 0.18), 2) + ")";
      } else if (shade > 0) {
        style = "background:rgba(9,105,218," + Fixed(shade, 2) + ")";
      }
      if (shade > 0.5) style += ";color:#fff";
      h += "<td class=\"cell\"" + (style.empty() ? "" : " style=\"" + style + "\"") + " title=\"" +
           Html(v.rule->id) + ", " + Grouped(n) + " cases\">" + Grouped(n) + "</td>";
    }
    h += "</tr>\n";
  }
  if (!family.empty()) h += "</tbody>\n";
  return h + "</table>\n</section>\n";
}

// The evidence per rule: which of the situations it declares its cases reached (and checked). A
// row per rule with campaign properties: the verdict, reached / declared with a bar, and a
// <details> that lists each situation, its text and its case count, the unreached ones first
// and marked.
std::string EvidenceSection(const std::vector<RuleVerdict>& verdicts) {
  std::string h =
      "<section id=\"evidence\">\n<h2>Evidence</h2>\n<p class=\"legend\">A rule passes only when "
      "its checks held and its cases reached every situation it declares (docs/spec.md; "
      "<code>statecheck list rules</code>), each followed by the check that depends on it. "
      "Counts are cases; <em>cases</em> counts those that reached any of the rule's "
      "situations.</p>\n<table id=\"rule-evidence\">\n<thead><tr><th scope=\"col\">rule</th>"
      "<th scope=\"col\">verdict</th><th scope=\"col\" class=\"num\">cases</th>"
      "<th scope=\"col\">situations reached</th></tr></thead>\n<tbody>\n";
  for (const RuleVerdict& v : verdicts) {
    if (v.evidence.empty()) continue;
    const std::vector<std::string> missing = v.MissingSituations();
    const size_t reached = v.evidence.size() - missing.size();
    const double share = static_cast<double>(reached) / static_cast<double>(v.evidence.size());
    h += "<tr data-rule=\"" + Html(v.rule->id) + "\" data-reached=\"" + std::to_string(reached) +
         "\" data-declared=\"" + std::to_string(v.evidence.size()) +
         "\"><th scope=\"row\">"
         "<span class=\"rid\">" +
         Html(v.rule->id) + "</span> " + Html(v.rule->title) + "</th><td>" + Badge(v.verdict) +
         "</td>" + NumCell(v.cases) + "<td class=\"sit\"><details><summary><span class=\"ev" +
         (missing.empty() ? "" : " short") + "\"><span style=\"width:" + Fixed(100 * share, 0) +
         "%\"></span></span>" + std::to_string(reached) + " of " +
         std::to_string(v.evidence.size()) + "</summary><ul>";
    // Unreached first: they are what the reader looks for.
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = 0; i < v.evidence.size(); ++i) {
        const auto& [name, count] = v.evidence[i];
        if ((count == 0) != (pass == 0)) continue;
        const std::string text = i < v.rule->situations.size() ? v.rule->situations[i].text : "";
        h += "<li" + std::string(count == 0 ? " class=\"unreached\"" : "") + " data-situation=\"" +
             Html(name) + "\" data-count=\"" + std::to_string(count) + "\"><code>" + Html(name) +
             "</code> " + Html(text) + ": " +
             (count == 0 ? std::string("never reached") : Grouped(count) + " cases") + "</li>";
      }
    }
    h += "</ul></details></td></tr>\n";
  }
  return h + "</tbody>\n</table>\n</section>\n";
}

std::string FailPoints(const RunReport& report) {
  std::string h = "<section id=\"fail-point-coverage\">\n<h2>Fail-point coverage</h2>\n";
  if (report.fail_points.empty()) {
    return h + "<p class=\"muted\">No fail points were recorded.</p>\n</section>\n";
  }
  int64_t fired = 0, reached_only = 0, never = 0;
  uint64_t max_reached = 0;
  std::vector<const FailPointRow*> unreachable;
  for (const FailPointRow& f : report.fail_points) {
    if (!f.reachable) {
      unreachable.push_back(&f);
      continue;
    }
    max_reached = std::max(max_reached, f.reached);
    if (f.fired > 0) {
      ++fired;
    } else if (f.reached > 0) {
      ++reached_only;
    } else {
      ++never;
    }
  }
  const int64_t reachable = fired + reached_only + never;
  h += "<p>" + Html(FailPointCoverage(report.fail_points)) + ".</p>\n";
  if (reachable > 0) {
    auto part = [&](int64_t n, const char* colour, const char* what) {
      if (n == 0) return std::string();
      return "<span style=\"width:" + Fixed(100.0 * n / reachable, 2) + "%;background:" + colour +
             "\" title=\"" + std::to_string(n) + " " + what + "\"></span>";
    };
    h += "<div class=\"stack\" role=\"img\" aria-label=\"reachable fail points by state\">" +
         part(fired, "#0969da", "fired") + part(reached_only, "#9ecbff", "reached, never fired") +
         part(never, "#ff8182", "never reached") + "</div>\n";
    h += "<p class=\"legend\"><span style=\"color:#0969da\">■</span> fired " +
         std::to_string(fired) +
         " &nbsp; <span style=\"color:#9ecbff\">■</span> reached, never "
         "fired " +
         std::to_string(reached_only) +
         " &nbsp; <span style=\"color:#ff8182\">■"
         "</span> never reached " +
         std::to_string(never) +
         ". Bars: times reached (light, log "
         "scale) and fired (dark).</p>\n";
    h += "<table class=\"fail-points\">\n<thead><tr><th scope=\"col\">fail point</th>"
         "<th scope=\"col\" class=\"num\">reached</th><th scope=\"col\" class=\"num\">fired</th>"
         "<th scope=\"col\"></th></tr></thead>\n<tbody>\n";
    const double log_max = std::log1p(static_cast<double>(max_reached));
    auto width = [&](uint64_t n) {
      return n == 0 || log_max <= 0 ? 0.0 : 100.0 * std::log1p(static_cast<double>(n)) / log_max;
    };
    for (const FailPointRow& f : report.fail_points) {
      if (!f.reachable) continue;
      const char* state = f.fired > 0 ? "fired" : f.reached > 0 ? "reached" : "never";
      h += "<tr class=\"fp-" + std::string(state) + "\"><td class=\"name\"><code>" + Html(f.name) +
           "</code></td>" + NumCell(static_cast<int64_t>(f.reached)) +
           NumCell(static_cast<int64_t>(f.fired)) +
           "<td><div class=\"bar\"><span class=\"reached\" "
           "style=\"width:" +
           Fixed(width(f.reached), 1) +
           "%\"></span><span class=\"fired\" "
           "style=\"width:" +
           Fixed(width(f.fired), 1) + "%\"></span></div></td></tr>\n";
    }
    h += "</tbody>\n</table>\n";
  }
  if (!unreachable.empty()) {
    h += "<details><summary>" + std::to_string(unreachable.size()) +
         " fail points are unreachable by construction (the engine never performs their "
         "operation)</summary>\n<ul>\n";
    for (const FailPointRow* f : unreachable) h += "<li><code>" + Html(f->name) + "</code></li>\n";
    h += "</ul>\n</details>\n";
  }
  return h + "</section>\n";
}

// A property id that may wrap after its slashes ("task/<wbr>MatchesModel/<wbr>...").
std::string BreakableId(const std::string& id) {
  std::string out;
  size_t from = 0;
  for (size_t slash = id.find('/'); slash != std::string::npos; slash = id.find('/', from)) {
    out += Html(id.substr(from, slash + 1 - from)) + "<wbr>";
    from = slash + 1;
  }
  return out + Html(id.substr(from));
}

std::string Properties(const RunReport& report) {
  std::string h = "<section id=\"properties\">\n<h2>Properties</h2>\n";
  if (report.properties.empty()) {
    return h + "<p class=\"muted\">No property ran.</p>\n</section>\n";
  }
  h += "<div class=\"scroll\"><table class=\"properties\">\n<thead><tr><th "
       "scope=\"col\">property</th>"
       "<th scope=\"col\">configuration</th><th scope=\"col\" class=\"num\">batches</th>"
       "<th scope=\"col\" class=\"num\">cases</th><th scope=\"col\" class=\"num\">operations</th>"
       "<th scope=\"col\" class=\"num\">seconds</th><th scope=\"col\">faults</th>"
       "<th scope=\"col\">verdict</th></tr></thead>\n<tbody>\n";
  const std::vector<std::string>& classes = FaultClassNames();
  for (const PropertyResult& p : report.properties) {
    std::string faults;
    const auto counts = report_text::FaultClassCounts(p.no_fault_cases, p.faults);
    for (size_t i = 0; i < counts.size() && i < classes.size(); ++i) {
      if (counts[i] == 0) continue;
      faults += (faults.empty() ? "" : " · ") + Html(classes[i]) + " " + Grouped(counts[i]);
    }
    h += "<tr data-property=\"" + Html(p.id) + "\"><td><code>" + BreakableId(p.id) +
         "</code></td><td class=\"config\">" + Html(p.config) + "</td>" +
         NumCell(static_cast<int64_t>(p.batches.size())) + NumCell(p.cases) +
         NumCell(p.operations, true) + "<td class=\"num\">" + Fixed(p.seconds, 1) +
         "</td><td class=\"faults\">" +
         (faults.empty() ? "<span class=\"muted\">none</span>" : faults) + "</td><td>" +
         (!p.passed           ? "<a href=\"#finding-" + Html(p.id) + "\">" + Badge("fail") + "</a>"
          : p.batches.empty() ? Badge("not run")
                              : Badge("pass")) +
         "</td></tr>\n";
  }
  return h + "</tbody>\n</table></div>\n</section>\n";
}

// The regression corpus the run replayed first: one row per trace.
std::string Regressions(const RunReport& report) {
  if (!report.regressions) return "";
  const RegressionSection& r = *report.regressions;
  std::string h = "<section id=\"regressions\">\n<h2>Regression corpus</h2>\n<p>" +
                  Grouped(static_cast<int64_t>(r.traces.size())) + " traces from <code>" +
                  Html(r.directory) +
                  "</code>, one per fixed bug, replayed on the engine and the "
                  "model before the batches: " +
                  (r.Diverged() == 0 ? std::string("every one replayed")
                                     : Grouped(r.Diverged()) + " diverged") +
                  ".</p>\n";
  if (r.traces.empty()) return h + "</section>\n";
  h += "<div class=\"scroll\"><table class=\"properties\">\n<thead><tr><th "
       "scope=\"col\">trace</th><th scope=\"col\">family</th>"
       "<th scope=\"col\" class=\"num\">steps</th><th scope=\"col\" class=\"num\">seconds</th>"
       "<th scope=\"col\">verdict</th></tr></thead>\n<tbody>\n";
  for (const PropertyResult& p : r.traces) {
    h += "<tr data-regression=\"" + Html(p.id) + "\"><td><code>" + BreakableId(p.id) +
         "</code></td><td>" + Html(p.family) + "</td>" + NumCell(p.operations) +
         "<td class=\"num\">" + Fixed(p.seconds, 2) + "</td><td>" +
         (p.passed ? Badge("pass")
                   : "<a href=\"#finding-" + Html(p.id) + "\">" + Badge("fail") + "</a>") +
         "</td></tr>\n";
  }
  return h + "</tbody>\n</table></div>\n</section>\n";
}

std::string Findings(const RunReport& report) {
  std::string h = "<section id=\"findings\">\n<h2>Findings</h2>\n";
  bool any = false;
  for (const PropertyResult& p : FailedResults(report)) {
    any = true;
    h += "<article class=\"finding\" id=\"finding-" + Html(p.id) + "\">\n<h3><code>" + Html(p.id) +
         "</code></h3>\n";
    if (!p.config.empty()) h += "<p>Configuration: " + Html(p.config) + "</p>\n";
    h += p.failing_rule.empty()
             ? std::string(
                   "<p class=\"credit\">Unattributed: no check failed (a crash or an "
                   "unexpected error), so every rule of its family fails.</p>\n")
             : "<p class=\"credit\" data-rule=\"" + Html(p.failing_rule) +
                   "\">Credited to <strong>" + Html(p.failing_rule) +
                   "</strong>, the rule of the check that failed.</p>\n";
    h += "<h4>Message</h4>\n<pre class=\"message\">" + Html(p.message) + "</pre>\n";
    if (!p.counterexample.empty()) {
      h += "<h4>Shrunk counterexample (" + std::to_string(p.counterexample.size()) +
           " steps)</h4>\n<pre class=\"counterexample\">";
      for (const std::string& line : p.counterexample) h += Html(line) + "\n";
      h += "</pre>\n";
    }
    if (!p.trace_path.empty()) h += "<p>Trace: <code>" + Html(p.trace_path) + "</code></p>\n";
    if (!p.reproduce.empty()) {
      h += "<p>rapidcheck reproduce string: <code>" + Html(p.reproduce) + "</code></p>\n";
    }
    if (!p.replay_commands.empty()) {
      h += "<h4>Replay</h4>\n";
      for (const std::string& c : p.replay_commands) {
        h += "<pre class=\"cmd\"><code>" + Html(c) + "</code></pre>\n";
      }
    }
    h += "</article>\n";
  }
  if (!any) h += "<p>No findings: every property that ran passed.</p>\n";
  return h + "</section>\n";
}

// A selftest's mutation score: the score, a chart of how long each planted bug took to be caught
// (its bar's length against the budget; red across the whole budget when it was not caught),
// and a table with what each bug is, what it is modelled on and what caught it.
std::string MutationScore(const RunReport& report) {
  if (!report.selftest) return "";
  const SelftestSection& t = *report.selftest;
  const bool full = t.Caught() == static_cast<int64_t>(t.bugs.size());
  std::string h = "<section id=\"mutation-score\">\n<h2>Mutation score</h2>\n<p class=\"score " +
                  std::string(full ? "pass" : "fail") + "\"><strong>" + Grouped(t.Caught()) +
                  " of " + Grouped(static_cast<int64_t>(t.bugs.size())) + " planted bugs caught (" +
                  Fixed(t.Score(), 1) + "%)</strong>, " + Fixed(t.budget_seconds, 0) +
                  " s budget per bug, " +
                  (t.scope == "all" ? "the whole campaign each"
                                    : "each campaign checking the rules its bug breaks") +
                  ". <span id=\"citing-expected\">Of the caught bugs, " +
                  Grouped(t.CitingExpected()) + " of " + Grouped(t.Caught()) +
                  " were caught by a check of a rule they are expected to break.</span> The rest "
                  "of this report is the control run, with no bug planted.</p>\n";
  const int row = 18, label = 330, width = 360, right = 90;
  const double budget = t.budget_seconds > 0 ? t.budget_seconds : 1;
  h += "<svg class=\"chart\" role=\"img\" aria-label=\"seconds until each planted bug was "
       "caught\" viewBox=\"0 0 " +
       std::to_string(label + width + right) + " " +
       std::to_string(row * static_cast<int>(t.bugs.size()) + 24) + "\" width=\"" +
       std::to_string(label + width + right) + "\">\n";
  for (size_t i = 0; i < t.bugs.size(); ++i) {
    const PlantedBugResult& b = t.bugs[i];
    const int y = static_cast<int>(i) * row;
    const double frac = b.caught ? std::clamp(b.seconds / budget, 0.0, 1.0) : 1.0;
    const int w = std::max(2, static_cast<int>(std::lround(frac * width)));
    h += "<text x=\"" + std::to_string(label - 6) + "\" y=\"" + std::to_string(y + 13) +
         "\" text-anchor=\"end\" font-size=\"12\">" + Html(b.name) + "</text>";
    h += "<rect x=\"" + std::to_string(label) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
         std::to_string(w) + "\" height=\"" + std::to_string(row - 6) + "\" fill=\"" +
         (b.caught ? "#1a7f37" : "#cf222e") + "\"><title>" + Html(b.name) + ": " +
         (b.caught ? "caught in " + Fixed(b.seconds, 1) + " s" : "not caught") + "</title></rect>";
    h += "<text x=\"" + std::to_string(label + w + 4) + "\" y=\"" + std::to_string(y + 13) +
         "\" font-size=\"11\" fill=\"#656d76\">" +
         (b.caught ? (b.seconds < 0.05 ? "<0.1" : Fixed(b.seconds, 1)) + " s, " +
                         report_text::StepsText(b.counterexample_steps)
                   : std::string("not caught")) +
         "</text>\n";
  }
  const int axis = row * static_cast<int>(t.bugs.size()) + 16;
  h += "<text x=\"" + std::to_string(label) + "\" y=\"" + std::to_string(axis) +
       "\" font-size=\"11\" fill=\"#656d76\">0 s</text><text x=\"" + std::to_string(label + width) +
       "\" y=\"" + std::to_string(axis) +
       "\" font-size=\"11\" fill=\"#656d76\" text-anchor=\"end\">" + Fixed(budget, 0) +
       " s (the budget)</text>\n</svg>\n";
  h += "<div class=\"scroll\"><table class=\"properties\" id=\"planted-bugs\">\n<thead><tr>"
       "<th scope=\"col\">planted bug</th><th scope=\"col\">expected rules</th><th "
       "scope=\"col\">what "
       "it does</th><th scope=\"col\">modelled on</th><th scope=\"col\">verdict</th><th "
       "scope=\"col\" class=\"num\">seconds</th><th scope=\"col\" class=\"num\">steps</th>"
       "<th scope=\"col\">caught by</th></tr></thead>\n<tbody>\n";
  for (const PlantedBugResult& b : t.bugs) {
    const std::string rules = report_text::CaughtBy(b);
    h += "<tr data-bug=\"" + Html(b.name) + "\"><td><code>" + BreakableId(b.name) +
         "</code><br><span class=\"muted\">" + Html(b.file) + "</span></td><td>" + Html(b.rules) +
         "</td><td class=\"config\">" + Html(b.description) + "</td><td class=\"config\">" +
         Html(b.modelled_on) + "</td><td>" + Badge(b.caught ? "caught" : "not caught") +
         "</td><td class=\"num\">" + Fixed(b.seconds, 1) + "</td><td class=\"num\">" +
         (b.caught ? report_text::StepsText(b.counterexample_steps) : "") + "</td><td>" +
         (b.caught ? "<code>" + BreakableId(b.property) + "</code><br><span class=\"" +
                         (b.CitesExpectedRule() ? "cited" : "cited other") + "\">" + Html(rules) +
                         "</span>"
                   : "") +
         "</td></tr>\n";
  }
  return h + "</tbody>\n</table></div>\n</section>\n";
}

// Copy buttons on the replay commands (clipboard API where allowed, selecting the text where
// not), then the loaded marker the browser test looks for.
constexpr const char* kScript = R"js(
(function () {
  "use strict";
  document.querySelectorAll("pre.cmd").forEach(function (pre) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = "copy";
    button.addEventListener("click", function () {
      var text = pre.querySelector("code").textContent;
      var select = function () {
        var range = document.createRange();
        range.selectNodeContents(pre.querySelector("code"));
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () {
          button.textContent = "copied";
        }, select);
      } else {
        select();
      }
    });
    pre.appendChild(button);
  });
  var matrix = document.getElementById("rule-fault-matrix");
  var rows = matrix ? matrix.querySelectorAll("tr[data-rule]").length : 0;
  document.body.dataset.matrixRows = String(rows);
  document.body.dataset.loaded = rows > 0 ? "ok" : "no-matrix";
})();
)js";

}  // namespace

std::string ReportHtml(const RunReport& report, const std::vector<RuleVerdict>& verdicts) {
  const report_text::Totals t = report_text::RunTotals(report);
  const bool failed =
      t.failed_properties > 0 || VerdictsFail(verdicts, report.configuration.require_evidence);
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>statecheck report: " + std::string(failed ? "FAIL" : "PASS") + ", seed " +
       std::to_string(report.seed) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += Header(report, verdicts);
  h += MutationScore(report);
  h += Matrix(verdicts);
  h += EvidenceSection(verdicts);
  h += OpsChart(report);
  h += FailPoints(report);
  h += Properties(report);
  h += Regressions(report);
  h += Findings(report);
  h += "<p class=\"legend\">statecheck report version " + std::to_string(kReportVersion) +
       ".</p>\n</main>\n<script>" + kScript + "</script>\n</body>\n</html>\n";
  return h;
}

}  // namespace statecheck::reports
