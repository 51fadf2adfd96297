// The HTML report's chart, drawn as SVG (html_chart.cc). Internal to reports/: html_report.cc
// puts it in the page.
#ifndef STATECHECK_REPORTS_HTML_CHART_H_
#define STATECHECK_REPORTS_HTML_CHART_H_

#include <string>

#include "reports/run_report.h"

namespace statecheck::reports::internal {

// report.html's section#ops: operations per second over the run (svg#ops-chart).
std::string OpsChart(const RunReport& report);

}  // namespace statecheck::reports::internal

#endif  // STATECHECK_REPORTS_HTML_CHART_H_
