// The HTML report's chart (report.html's svg#ops-chart): operations per second over the run,
// drawn as SVG. The page around it: html_report.cc.
#include "reports/html_chart.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "reports/report_text.h"
#include "reports/run_report.h"

namespace statecheck::reports::internal {
namespace {

using report_text::Compact;
using report_text::Fixed;
using report_text::Grouped;

// A "nice" axis maximum and step for values up to `max` (1, 2 or 5 times a power of ten).
void NiceAxis(double max, int ticks, double* top, double* step) {
  if (!(max > 0)) max = 1;
  const double raw = max / ticks;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  *step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  *top = std::ceil(max / *step) * *step;
}

}  // namespace

// Operations per second over the run, an SVG line chart. Long runs are thinned to about 600
// intervals (each rate is then over a longer interval, so nothing is lost, only smoothed);
// dashed red lines mark where findings were made.
std::string OpsChart(const RunReport& report) {
  std::vector<ProgressSample> samples;
  const size_t n = report.progress.size();
  const size_t stride = n > 600 ? (n + 599) / 600 : 1;
  for (size_t i = 0; i < n; ++i) {
    if ((i + 1) % stride == 0 || i + 1 == n) samples.push_back(report.progress[i]);
  }
  const auto rates = report_text::OpsPerSecond(samples);

  const double W = 960, H = 300, L = 78, R = 20, T = 16, B = 48;
  const double pw = W - L - R, ph = H - T - B;
  std::string s = "<section id=\"ops\">\n<h2>Operations per second</h2>\n";
  s += "<svg id=\"ops-chart\" class=\"chart\" viewBox=\"0 0 960 300\" role=\"img\" "
       "aria-labelledby=\"ops-title\">\n"
       "<title id=\"ops-title\">Operations per second over the run</title>\n";
  if (rates.empty()) {
    s += "<text x=\"480\" y=\"150\" text-anchor=\"middle\">No progress samples: the run was "
         "too short to sample.</text>\n</svg>\n</section>\n";
    return s;
  }
  double max_t = rates.back().first, max_rate = 0;
  for (const auto& [t, r] : rates) max_rate = std::max(max_rate, r);
  double y_top, y_step, x_top, x_step;
  NiceAxis(max_rate, 5, &y_top, &y_step);
  NiceAxis(max_t, 8, &x_top, &x_step);
  auto X = [&](double t) { return L + pw * t / x_top; };
  auto Y = [&](double r) { return T + ph - ph * r / y_top; };

  // Grid and axes.
  for (double v = 0; v <= y_top * 1.0001; v += y_step) {
    s += "<line x1=\"" + Fixed(L, 1) + "\" x2=\"" + Fixed(L + pw, 1) + "\" y1=\"" + Fixed(Y(v), 1) +
         "\" y2=\"" + Fixed(Y(v), 1) + "\" stroke=\"#d0d7de\" stroke-width=\"1\"/>\n";
    s += "<text x=\"" + Fixed(L - 8, 1) + "\" y=\"" + Fixed(Y(v) + 4, 1) +
         "\" text-anchor=\"end\">" + Compact(v) + "</text>\n";
  }
  for (double v = 0; v <= x_top * 1.0001; v += x_step) {
    s += "<line x1=\"" + Fixed(X(v), 1) + "\" x2=\"" + Fixed(X(v), 1) + "\" y1=\"" +
         Fixed(T + ph, 1) + "\" y2=\"" + Fixed(T + ph + 5, 1) + "\" stroke=\"#656d76\"/>\n";
    s += "<text x=\"" + Fixed(X(v), 1) + "\" y=\"" + Fixed(T + ph + 19, 1) +
         "\" text-anchor=\"middle\">" + Compact(v) + "</text>\n";
  }
  s += "<line x1=\"" + Fixed(L, 1) + "\" x2=\"" + Fixed(L + pw, 1) + "\" y1=\"" + Fixed(T + ph, 1) +
       "\" y2=\"" + Fixed(T + ph, 1) + "\" stroke=\"#656d76\"/>\n";
  s += "<line x1=\"" + Fixed(L, 1) + "\" x2=\"" + Fixed(L, 1) + "\" y1=\"" + Fixed(T, 1) +
       "\" y2=\"" + Fixed(T + ph, 1) + "\" stroke=\"#656d76\"/>\n";
  s += "<text x=\"" + Fixed(L + pw / 2, 1) + "\" y=\"" + Fixed(H - 8, 1) +
       "\" text-anchor=\"middle\">seconds since the run started</text>\n";
  s += "<text transform=\"translate(16 " + Fixed(T + ph / 2, 1) +
       ") rotate(-90)\" text-anchor=\"middle\">operations per second</text>\n";

  // Findings: where the count went up.
  int64_t findings = 0;
  for (const ProgressSample& p : report.progress) {
    if (p.findings > findings) {
      s += "<line class=\"finding-mark\" x1=\"" + Fixed(X(p.seconds), 1) + "\" x2=\"" +
           Fixed(X(p.seconds), 1) + "\" y1=\"" + Fixed(T, 1) + "\" y2=\"" + Fixed(T + ph, 1) +
           "\" stroke=\"#cf222e\" stroke-dasharray=\"4 3\"><title>finding at " +
           Fixed(p.seconds, 1) + " s</title></line>\n";
      findings = p.findings;
    }
  }

  // The line (starting from the first interval's start) and the area under it.
  std::string pts;
  for (const auto& [t, r] : rates) pts += Fixed(X(t), 1) + "," + Fixed(Y(r), 1) + " ";
  s += "<polygon points=\"" + Fixed(X(rates.front().first), 1) + "," + Fixed(Y(0), 1) + " " + pts +
       Fixed(X(rates.back().first), 1) + "," + Fixed(Y(0), 1) +
       "\" fill=\"rgba(9,105,218,0.12)\" stroke=\"none\"/>\n";
  s += "<polyline points=\"" + pts +
       "\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.8\" stroke-linejoin=\"round\"/>\n";
  if (rates.size() <= 120) {
    for (const auto& [t, r] : rates) {
      s += "<circle cx=\"" + Fixed(X(t), 1) + "\" cy=\"" + Fixed(Y(r), 1) +
           "\" r=\"2.5\" fill=\"#0969da\"><title>" + Fixed(t, 1) +
           " s: " + Grouped(std::llround(r)) + " ops/s</title></circle>\n";
    }
  }
  s += "</svg>\n";
  const report_text::Totals totals = report_text::RunTotals(report);
  s += "<p class=\"legend\">" + Grouped(static_cast<int64_t>(report.progress.size())) +
       " samples; mean " + Grouped(std::llround(totals.ops_per_second)) + " ops/s, peak " +
       Grouped(std::llround(max_rate)) + " ops/s" +
       (findings > 0 ? "; dashed red lines mark findings" : "") + ".</p>\n</section>\n";
  return s;
}

}  // namespace statecheck::reports::internal
