// The campaign's regression corpus (regressions/: one trace per fixed bug), replayed before its
// batches, each trace in a process of its own: Campaign::ReplayRegressions.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "properties/kit/json_lines.h"
#include "properties/property_registry.h"
#include "properties/trace_replay.h"
#include "tools/campaign_internal.h"
#include "tools/campaign_workers.h"

namespace statecheck::tools::internal {
namespace {

namespace fs = std::filesystem;

using Json = nlohmann::json;

// A regression trace's replay (`replay`: what ReplayRegressions' child sent back, or ForkEach's
// {"died": ...}) as a property result; `exe` starts its replay command.
reports::PropertyResult RegressionResult(const fs::path& file, const std::string& family,
                                         const Json& replay, const std::string& exe) {
  reports::PropertyResult r;
  r.id = "regressions/" + file.filename().string();
  r.family = family;
  r.cases = 1;
  const bool died = replay.contains("died");
  if (!died) {
    r.config = replay["description"].get<std::string>();
    r.operations = replay["steps_run"].get<int64_t>();
    r.seconds = replay["seconds"].get<double>();
  }
  r.passed = !died && !replay["diverged"].get<bool>();
  r.batches.push_back(reports::BatchResult{0, 0, 1, r.operations, r.seconds, r.passed});
  if (r.passed) return r;
  std::error_code ec;
  r.trace_path = fs::absolute(file, ec).string();
  r.replay_commands = {exe + " replay " + ShellQuote(r.trace_path)};
  if (died) {
    r.message = "the process replaying it died: it was " + replay["died"].get<std::string>() +
                ". No check failed, so the failure is unattributed.\n";
  } else {
    r.failing_rule = replay["rule"].get<std::string>();
    r.message = replay["verdict"].get<std::string>();
    r.counterexample = {replay["op"].get<std::string>()};
  }
  return r;
}

}  // namespace

Status Campaign::ReplayRegressions() {
  if (options_.regressions_dir.empty() || !options_.reproduce.empty() ||
      !options_.only_batch_property.empty() || options_.shard_index != 0) {
    return Status::Ok();
  }
  const fs::path dir(options_.regressions_dir);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::InvalidArgument("--regressions " + options_.regressions_dir +
                                   ": not a directory (give the corpus directory, such as the "
                                   "source tree's regressions/, or \"\" for none)");
  }
  // The traces of the families this run checks, by file name.
  std::set<std::string> families;
  for (const properties::PropertySpec& spec : specs_) families.insert(spec.family);
  std::vector<std::pair<fs::path, std::string>> traces;  // (file, family)
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string kind = properties::TraceKind(text.str());
    if (kind.empty()) kind = "window_store";  // Its reader says what is wrong.
    if (families.count(kind) != 0) traces.emplace_back(e.path(), kind);
  }
  std::sort(traces.begin(), traces.end());
  // Each in a process of its own, as the batches are: the engine's threads stay out of this
  // process (the workers are forked from it), and a replay that dies is a finding.
  const std::vector<Json> replays = ForkEach(traces.size(), std::max(1, jobs_), [&](size_t i) {
    const auto started = Clock::now();
    properties::TraceReplay r;
    const Status s =
        properties::ReplayTraceFile(traces[i].first.string(), properties::ReplayTarget::kBoth, &r);
    return Json{{"error", s.ok() ? "" : s.message()},
                {"description", r.description},
                {"steps_run", r.steps_run},
                {"diverged", r.diverged},
                {"rule", r.rule},
                {"op", r.op},
                {"verdict", r.verdict},
                {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}};
  });
  reports::RegressionSection section;
  section.directory = options_.regressions_dir;
  const std::string exe = ReplayExecutable();
  for (size_t i = 0; i < traces.size(); ++i) {
    const Json& j = replays[i];
    if (j.contains("error") && !j["error"].get<std::string>().empty()) {
      return Status::InvalidArgument("the regression corpus holds a trace that cannot run: " +
                                     j["error"].get<std::string>());
    }
    reports::PropertyResult r = RegressionResult(traces[i].first, traces[i].second, j, exe);
    if (!r.passed) {
      ++result_->findings;
      if (result_->first_finding_seconds < 0) result_->first_finding_seconds = Elapsed();
      if (options_.stop_at_first_finding) stop_ = true;
      if (options_.progress) {
        *options_.progress << (options_.progress_is_tty ? "\r\033[K" : "") << "FAIL " << r.id
                           << " (the regression corpus)\n"
                           << r.message;
      }
    }
    section.traces.push_back(std::move(r));
  }
  if (options_.progress) {
    *options_.progress << "regression corpus: " << section.traces.size() << " traces from "
                       << section.directory << ", " << section.Diverged() << " diverged\n";
  }
  result_->report.regressions = std::move(section);
  return Status::Ok();
}

}  // namespace statecheck::tools::internal
