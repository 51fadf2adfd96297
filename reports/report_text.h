// Text helpers shared by the report writers (junit_report.cc, markdown_report.cc,
// html_report.cc): making arbitrary strings safe for XML and HTML, number formatting, and the
// per-rule and per-run figures every view shows the same way.
//
// Report text comes from anywhere: a counterexample holds the store's keys and values, which are
// arbitrary bytes; a check's message may quote them. XML 1.0 forbids most C0 control characters
// outright (a parser rejects the whole file, so a CI system would drop the report), and neither
// XML nor HTML can carry invalid UTF-8. SanitizeText maps such input to visible, valid text.
#ifndef STATECHECK_REPORTS_REPORT_TEXT_H_
#define STATECHECK_REPORTS_REPORT_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reports/run_report.h"

namespace statecheck::reports::report_text {

// `text` as valid UTF-8 holding only characters XML 1.0 allows: each byte of an invalid UTF-8
// sequence and each forbidden character (C0 controls other than tab, line feed and carriage
// return; U+FFFE, U+FFFF) is replaced by its escape "\xNN" (bytes) or "\u{FFFE}" (characters),
// so the reader still sees what was there.
std::string SanitizeText(std::string_view text);

// Sanitized, then escaped for XML character data (&, <, >; a carriage return as &#13; so that
// XML's line-end normalisation keeps it).
std::string XmlText(std::string_view text);
// Sanitized, then escaped for a double- or single-quoted XML attribute value; tab, line feed and
// carriage return as character references, since attribute normalisation would turn them into
// spaces.
std::string XmlAttr(std::string_view text);
// Sanitized, then escaped for HTML text and (quoted) attribute values alike.
std::string Html(std::string_view text);

// `v` with `digits` digits after the point ("12.35"); NaN and infinities as "0".
std::string Fixed(double v, int digits);
// `v` with thousands separators: "1,234,567".
std::string Grouped(int64_t v);
// A short form for tight spaces: "987", "12.3k", "4.56M", "7.8G".
std::string Compact(double v);

// The SPEC family's heading for a family letter ("W" -> "In-memory window store"); the letter
// itself for one SPEC.md does not list.
std::string FamilyTitle(std::string_view family);

// A rule verdict's figures in FaultClassNames() order: no-fault cases, then the FaultCounts.
std::vector<int64_t> FaultClassCounts(const RuleVerdict& v);
std::vector<int64_t> FaultClassCounts(int64_t no_fault_cases, const FaultCounts& f);

// How the run was asked for, in words: "budget 60 s" or "3 batches per property", cases per
// batch, max size, rule and family selection, shard "i/n" when sharded.
std::string ConfigurationSummary(const RunConfiguration& c);

// The run's totals over its properties.
struct Totals {
  int64_t properties = 0;
  int64_t failed_properties = 0;
  int64_t regression_traces = 0;  // Of the corpus the run replayed (RunReport::regressions).
  int64_t failed_regressions = 0;
  int64_t cases = 0;
  int64_t operations = 0;
  double ops_per_second = 0;  // Over the run's elapsed time; 0 when it is unknown.
};
Totals RunTotals(const RunReport& report);

// How many rules have each verdict, in this order: pass, fail, not run, tests only, not
// checked (then any other verdict string, in order of first appearance).
std::vector<std::pair<std::string, int64_t>> VerdictCounts(const std::vector<RuleVerdict>& v);

// A shrunk counterexample's length in words: "1 step", "4 steps"; 0 is a finding that is not an
// operation sequence (the concurrency check's recorded history, T1's table): "no sequence".
std::string StepsText(int64_t steps);

// The ids, ", "-joined.
std::string JoinIds(const std::vector<std::string>& ids);

// What caught a planted bug, in words: "the check cites E3, E6", or, when its message names no
// rule, "its family fails W3, W6".
std::string CaughtBy(const PlantedBugResult& bug);

// The property (or regression trace) of the report with this id, or nullptr.
const PropertyResult* FindProperty(const RunReport& report, std::string_view id);

// Operations per second between consecutive progress samples: (time at the end of the interval,
// rate). Samples that do not move forward in time are skipped.
std::vector<std::pair<double, double>> OpsPerSecond(const std::vector<ProgressSample>& progress);

}  // namespace statecheck::reports::report_text

#endif  // STATECHECK_REPORTS_REPORT_TEXT_H_
