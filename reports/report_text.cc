// Text helpers shared by the report writers; see report_text.h.
#include "reports/report_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <utility>

namespace statecheck::reports::report_text {
namespace {

void AppendByteEscape(std::string* out, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", b);
  *out += buf;
}

// The length of the valid UTF-8 sequence at text[i] and its code point, or 0 if there is none
// there (a stray continuation byte, a truncated or overlong sequence, a surrogate, or a code
// point beyond U+10FFFF).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t* cp) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  size_t len;
  uint32_t min;
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2, min = 0x80, *cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, min = 0x800, *cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, min = 0x10000, *cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    *cp = (*cp << 6) | (b & 0x3F);
  }
  if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

std::string SanitizeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t len = DecodeUtf8(text, i, &cp);
    if (len == 0) {
      AppendByteEscape(&out, static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') {
      AppendByteEscape(&out, static_cast<unsigned char>(cp));
    } else if (cp == 0xFFFE || cp == 0xFFFF) {
      out += cp == 0xFFFE ? "\\u{FFFE}" : "\\u{FFFF}";
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

namespace {

// `text`, cleaned (SanitizeText), with each character that has an entry in `entities` replaced
// by it.
std::string Escape(std::string_view text,
                   std::initializer_list<std::pair<char, std::string_view>> entities) {
  std::string out;
  for (char c : SanitizeText(text)) {
    auto it =
        std::find_if(entities.begin(), entities.end(), [c](const auto& e) { return e.first == c; });
    if (it == entities.end()) {
      out += c;
    } else {
      out += it->second;
    }
  }
  return out;
}

}  // namespace

// '>' too, which also keeps "]]>" out of character data.
std::string XmlText(std::string_view text) {
  return Escape(text, {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'\r', "&#13;"}});
}

// Whitespace as character references too, so that attribute normalisation keeps it.
std::string XmlAttr(std::string_view text) {
  return Escape(text, {{'&', "&amp;"},
                       {'<', "&lt;"},
                       {'>', "&gt;"},
                       {'"', "&quot;"},
                       {'\'', "&apos;"},
                       {'\t', "&#9;"},
                       {'\n', "&#10;"},
                       {'\r', "&#13;"}});
}

std::string Html(std::string_view text) {
  return Escape(text,
                {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}});
}

std::string Fixed(double v, int digits) {
  if (!std::isfinite(v)) v = 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Grouped(int64_t v) {
  // Via the unsigned magnitude: negating INT64_MIN would overflow.
  uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string digits = std::to_string(mag);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string Compact(double v) {
  if (!std::isfinite(v)) return "0";
  const double a = std::fabs(v);
  auto with = [&](double scale, const char* suffix) {
    const double s = v / scale;
    return Fixed(s, std::fabs(s) < 10 ? 2 : std::fabs(s) < 100 ? 1 : 0) + suffix;
  };
  if (a >= 1e9) return with(1e9, "G");
  if (a >= 1e6) return with(1e6, "M");
  if (a >= 1e4) return with(1e3, "k");
  return Fixed(v, a > 0 && a < 10 && v != std::floor(v) ? 1 : 0);
}

std::string FamilyTitle(std::string_view family) {
  // The headings of SPEC.md's rule families. The catalogue holds only the letter; the titles
  // change as rarely as the families do.
  if (family == "W") return "In-memory window store";
  if (family == "T") return "Transactional state stores";
  if (family == "C") return "Changelog and task runtime";
  if (family == "U") return "Upgrade and downgrade";
  if (family == "E") return "Windowed aggregation and emit strategies";
  if (family == "F") return "Faults";
  if (family == "L") return "Liveness";
  return std::string(family);
}

std::vector<int64_t> FaultClassCounts(int64_t no_fault_cases, const FaultCounts& f) {
  return {no_fault_cases, f.crashes, f.power_losses, f.io_errors, f.engine_faults};
}

std::vector<int64_t> FaultClassCounts(const RuleVerdict& v) {
  return FaultClassCounts(v.no_fault_cases, v.faults);
}

std::string ConfigurationSummary(const RunConfiguration& c) {
  std::string s =
      c.batches_per_property > 0
          ? std::to_string(c.batches_per_property) + " batches per property"
          : "budget " +
                Fixed(c.budget_seconds, c.budget_seconds == std::floor(c.budget_seconds) ? 0 : 1) +
                " s";
  if (c.cases_per_batch > 0) s += ", " + std::to_string(c.cases_per_batch) + " cases per batch";
  if (c.max_size > 0) s += ", max size " + std::to_string(c.max_size);
  s += ", rules " + (c.select.empty() ? std::string("all") : c.select);
  std::string families;
  for (const std::string& f : c.families) {
    if (f.empty()) continue;
    families += (families.empty() ? "" : ",") + f;
  }
  s += ", property families " + (families.empty() ? std::string("all") : families);
  if (c.shard_count > 1) {
    s += ", shard " + std::to_string(c.shard_index) + "/" + std::to_string(c.shard_count);
  }
  if (c.jobs > 1) s += ", " + std::to_string(c.jobs) + " worker processes";
  if (c.require_evidence) s += ", evidence required";
  return s;
}

Totals RunTotals(const RunReport& report) {
  Totals t;
  for (const PropertyResult& p : report.properties) {
    ++t.properties;
    t.failed_properties += p.passed ? 0 : 1;
    t.cases += p.cases;
    t.operations += p.operations;
  }
  if (report.regressions) {
    t.regression_traces = static_cast<int64_t>(report.regressions->traces.size());
    t.failed_regressions = report.regressions->Diverged();
  }
  if (report.elapsed_seconds > 0) {
    t.ops_per_second = static_cast<double>(t.operations) / report.elapsed_seconds;
  }
  return t;
}

std::vector<std::pair<std::string, int64_t>> VerdictCounts(const std::vector<RuleVerdict>& v) {
  std::vector<std::pair<std::string, int64_t>> out = {{"pass", 0},          {"fail", 0},
                                                      {"not exercised", 0}, {"not run", 0},
                                                      {"tests only", 0},    {"not checked", 0}};
  for (const RuleVerdict& r : v) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == r.verdict; });
    if (it == out.end()) {
      out.emplace_back(r.verdict, 1);
    } else {
      ++it->second;
    }
  }
  return out;
}

const PropertyResult* FindProperty(const RunReport& report, std::string_view id) {
  for (const PropertyResult& p : report.properties) {
    if (p.id == id) return &p;
  }
  if (report.regressions) {
    for (const PropertyResult& p : report.regressions->traces) {
      if (p.id == id) return &p;
    }
  }
  return nullptr;
}

std::vector<std::pair<double, double>> OpsPerSecond(const std::vector<ProgressSample>& progress) {
  std::vector<std::pair<double, double>> out;
  // The run starts at (0 s, 0 operations): the first sample's rate is over its first second.
  double t0 = 0;
  int64_t ops0 = 0;
  for (const ProgressSample& s : progress) {
    const double dt = s.seconds - t0;
    if (!(dt > 0)) continue;
    out.emplace_back(s.seconds, std::max(0.0, static_cast<double>(s.operations - ops0) / dt));
    t0 = s.seconds;
    ops0 = s.operations;
  }
  return out;
}

std::string StepsText(int64_t steps) {
  return steps == 0 ? "no sequence" : steps == 1 ? "1 step" : std::to_string(steps) + " steps";
}

std::string JoinIds(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

std::string CaughtBy(const PlantedBugResult& bug) {
  if (bug.cited_rules.empty()) return "unattributed: no check failed";
  return "a check of " + JoinIds(bug.cited_rules) +
         (bug.CitesExpectedRule() ? "" : ", not of the expected " + bug.rules);
}

}  // namespace statecheck::reports::report_text
