#include "properties/rapidcheck_runner.h"

#include <rapidcheck.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "properties/evidence.h"

// rapidcheck keeps these two in its library without a public header; they turn the reproduce
// information of a failure into the string RC_PARAMS="reproduce=..." takes, and back.
namespace rc::detail {
std::string reproduceMapToString(const std::unordered_map<std::string, Reproduce>& map);
std::unordered_map<std::string, Reproduce> stringToReproduceMap(const std::string& str);
}  // namespace rc::detail

namespace statecheck::properties {
namespace {

// Prints nothing; keeps the first failure and the last accepted shrink, whose messages are lost
// when re-running the final counterexample does not fail again (a nondeterministic failure).
class RecordingListener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    if (d.result.type == rc::detail::CaseResult::Type::Failure && first_failure.empty()) {
      first_failure = d.result.description;
    }
  }
  void onShrinkTried(const rc::detail::CaseDescription& d, bool accepted) override {
    if (accepted) last_shrink = d.result.description;
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}

  std::string first_failure;
  std::string last_shrink;
};

}  // namespace

std::string SafeFileName(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '-';
  }
  return s;
}

std::string TracePathFor(const PropertyParams& params, const PropertyOutcome& out) {
  std::error_code ec;
  std::filesystem::create_directories(params.trace_dir, ec);
  return (std::filesystem::path(params.trace_dir) /
          (SafeFileName(out.property) + "-seed" + std::to_string(params.seed) + ".jsonl"))
      .string();
}

void SaveTraceText(const std::string& text, const PropertyParams& params, PropertyOutcome* out) {
  const std::string path = TracePathFor(params, *out);
  std::ofstream file(path);
  file << text;
  if (file.good()) {
    out->trace_path = path;
  } else {
    out->message += "\n(the trace could not be saved to " + path + ")";
  }
}

std::string ScratchDirectory(const std::string& tag) {
  static std::atomic<uint64_t> counter{0};
  return (std::filesystem::temp_directory_path() /
          ("statecheck-" + tag + "-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++)))
      .string();
}

void RunProperty(const std::function<void()>& property, const PropertyParams& params,
                 PropertyOutcome* out) {
  rc::detail::TestMetadata metadata;
  metadata.id = out->property;
  metadata.description = out->property;
  rc::detail::TestParams test_params;
  test_params.seed = params.seed;
  test_params.maxSuccess = params.max_success;
  test_params.maxSize = params.max_size;
  test_params.disableShrinking = !params.shrink;
  std::unordered_map<std::string, rc::detail::Reproduce> reproduce;
  if (params.reproduce) {
    try {
      reproduce = rc::detail::stringToReproduceMap(*params.reproduce);
    } catch (const std::exception& e) {
      out->message = std::string("the reproduce string is not valid: ") + e.what();
      return;
    }
    if (!reproduce.count(metadata.id)) {
      out->message = "the reproduce string is for another property than " + metadata.id;
      return;
    }
  }
  RecordingListener listener;
  ResetLastFinding();
  (void)TakeEvidence();
  const rc::detail::TestResult result =
      rc::detail::checkTestable(property, metadata, test_params, listener, reproduce);
  out->evidence = TakeEvidence();

  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    out->passed = true;
    out->cases = success.numSuccess;
  } else if (result.match(gave_up)) {
    out->cases = gave_up.numSuccess;
    out->message = "gave up: " + gave_up.description;
  } else if (result.match(error)) {
    out->message = "error: " + error.description;
  } else if (result.match(failure)) {
    out->cases = failure.numSuccess;
    out->message = failure.description;
    // rapidcheck re-runs the final counterexample to describe it; a run that then passes says
    // "no exceptions thrown". Say what happened instead, with the messages it did fail with.
    // Checks: F5 — a shrunk failure that does not replay is reported NONDETERMINISTIC
    if (!listener.first_failure.empty() && failure.description == "no exceptions thrown") {
      out->message =
          "NONDETERMINISTIC: the counterexample passed when re-run. It failed first "
          "with:\n  " +
          listener.first_failure;
      if (!listener.last_shrink.empty() && listener.last_shrink != listener.first_failure) {
        out->message += "\nand its last failing shrink with:\n  " + listener.last_shrink;
      }
    }
    if (const std::optional<Finding> finding = LastFinding()) out->rule = finding->rule;
    out->reproduce = rc::detail::reproduceMapToString({{metadata.id, failure.reproduce}});
    for (const auto& [type, value] : failure.counterExample) {
      std::istringstream lines(value);
      for (std::string line; std::getline(lines, line);) out->counterexample.push_back(line);
    }
  }
}

}  // namespace statecheck::properties
