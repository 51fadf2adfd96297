// `statecheck replay`: a trace replayed step by step, or with --emit-gtest printed as a
// GoogleTest.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "properties/trace_replay.h"
#include "statecheck/status.h"
#include "tools/cli.h"

namespace statecheck::cli {
namespace {

// ---------------------------------------------------------------------------------------------
// replay

// `replay --emit-gtest`: the trace at `path` as a GoogleTest, in its kind's test form.
int EmitGTest(const std::string& path, const std::string& test_name) {
  std::string test;
  const Status s = properties::EmitGTestFile(path, test_name, &test);
  if (!s.ok()) return UsageError(s.message());
  std::cout << test;
  return kExitOk;
}

int Replay(const std::string& path, const std::string& against) {
  properties::ReplayTarget target;
  if (against == "engine") {
    target = properties::ReplayTarget::kEngine;
  } else if (against == "model") {
    target = properties::ReplayTarget::kModel;
  } else if (against == "both") {
    target = properties::ReplayTarget::kBoth;
  } else {
    return UsageError("--against takes engine, model or both, not \"" + against + "\"");
  }
  properties::TraceReplay replay;
  const Status s = properties::ReplayTraceFile(path, target, &replay);
  if (!s.ok()) return UsageError(s.message());
  std::cout << "replaying " << path << ": " << replay.description << "\n";
  if (!replay.recorded_failure.empty()) {
    std::cout << "recorded failure: " << replay.recorded_failure << "\n";
  }
  std::cout << replay.verdict;
  return replay.diverged ? kExitFailed : kExitOk;
}

}  // namespace

Subcommand AddReplay(CLI::App& app) {
  auto* replay = app.add_subcommand("replay", "Replay a trace file step by step");
  struct Flags {
    std::string trace, against = "both", test_name;
    bool emit_gtest = false;
  };
  auto f = std::make_shared<Flags>();
  replay->add_option("trace", f->trace, "The trace (JSON Lines)")->required();
  replay->add_option("--against", f->against, "engine, model or both (default both)");
  replay->add_flag("--emit-gtest", f->emit_gtest,
                   "Print the trace as a GoogleTest instead of replaying it: a window-store "
                   "trace on the engine's public API, a kv_store trace through the harness");
  replay->add_option("--test-name", f->test_name,
                     "With --emit-gtest: the test's name (default: from the file name)");
  return {replay, [f, replay] {
            if (!f->emit_gtest && replay->count("--test-name") > 0) {
              return UsageError("--test-name is read with --emit-gtest only");
            }
            if (!f->emit_gtest) return Replay(f->trace, f->against);
            if (replay->count("--against") > 0) {
              return UsageError("--emit-gtest prints a test of the engine: drop --against");
            }
            return EmitGTest(f->trace, f->test_name);
          }};
}

}  // namespace statecheck::cli
