// Checks "my" window store (metered_window_store.h) with statecheck's window-store property:
// every configuration of the property's option matrix, the same the campaign runs, against the
// reference model. Exit 0 when each passes; 1 when one fails, after printing the rule it broke,
// the shrunk counterexample and where its trace was saved (`statecheck replay TRACE` runs it
// again); 2 on bad arguments.
//
//   verify_my_store [--planted] [--seed N] [--cases N] [--traces DIR]
//   verify_my_store [--planted] --replay TRACE
//
// --planted checks the variant with the bug planted in it (it forgets deletes): it must fail.
// --replay runs a saved trace step by step against this store (and the model beside it), as
// `statecheck replay` runs one against the engine's: exit 1 at the first divergence.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "metered_window_store.h"
#include "properties/window_store/property.h"

namespace ws = statecheck::properties::window_store;

int main(int argc, char** argv) {
  bool planted = false;
  std::optional<std::string> replay;
  statecheck::properties::PropertyParams params;
  params.seed = 1;
  params.max_success = 200;
  params.trace_dir = "counterexamples";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--planted") {
      planted = true;
    } else if (arg == "--replay" && i + 1 < argc) {
      replay = argv[++i];
    } else if ((arg == "--seed" || arg == "--cases" || arg == "--traces") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--traces") {
        params.trace_dir = value;
      } else {
        char* end = nullptr;
        const unsigned long long n = std::strtoull(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || (arg == "--cases" && (n == 0 || n > 1000000))) {
          std::cerr << "verify_my_store: " << arg << " takes a whole number"
                    << (arg == "--cases" ? " from 1 to 1000000" : "") << ", not \"" << value
                    << "\"\n";
          return 2;
        }
        if (arg == "--seed") params.seed = n;
        if (arg == "--cases") params.max_success = static_cast<int>(n);
      }
    } else {
      std::cerr << "verify_my_store: unknown argument \"" << arg
                << "\" (usage: verify_my_store [--planted] [--seed N] [--cases N] "
                   "[--traces DIR] | [--planted] --replay TRACE)\n";
      return 2;
    }
  }

  my_store::Meter meter;
  const ws::Factory factory = [&meter, planted](const statecheck::WindowStoreOptions& options,
                                                std::unique_ptr<statecheck::WindowStore>* out) {
    return my_store::NewMeteredWindowStore(options, &meter, planted, out);
  };
  if (replay) {
    std::string text;
    statecheck::properties::kit::Trace<ws::Vocabulary> trace;
    statecheck::Status s = statecheck::properties::kit::ReadTextFile(*replay, &text);
    if (s.ok()) s = statecheck::properties::kit::ParseTrace(text, *replay, &trace);
    statecheck::properties::TraceReplay out;
    if (s.ok()) s = ws::Replay(trace, statecheck::properties::ReplayTarget::kBoth, factory, &out);
    if (!s.ok()) {
      std::cerr << "verify_my_store: " << s.ToString() << "\n";
      return 2;
    }
    std::cout << "replaying " << *replay << " against the metered window store"
              << (planted ? " (planted)" : "") << "\n"
              << out.verdict;
    return out.diverged ? 1 : 0;
  }
  std::cout << "checking the metered window store" << (planted ? " (planted: forgets deletes)" : "")
            << ", seed " << params.seed << ", " << params.max_success << " cases a configuration\n";
  int configs = 0;
  for (const ws::Config& config : ws::OptionMatrix()) {
    const statecheck::properties::PropertyOutcome outcome =
        ws::CheckMatchesModel(factory, config, params);
    ++configs;
    if (outcome.passed) continue;
    std::cout << "FAIL " << outcome.property << " (rule " << outcome.rule << ")\n"
              << outcome.message << "\n"
              << "shrunk to " << outcome.counterexample.size() << " steps:\n";
    for (const std::string& step : outcome.counterexample) std::cout << "  " << step << "\n";
    std::cout << "trace: " << outcome.trace_path << "\n"
              << "replay: " << argv[0] << (planted ? " --planted" : "") << " --replay "
              << outcome.trace_path << "\n";
    return 1;
  }
  std::cout << "OK: " << configs << " configurations passed (" << meter.puts << " puts, "
            << meter.deletes << " deletes, " << meter.reads << " reads metered)\n";
  return 0;
}
