// Runs a property under rapidcheck with explicit parameters (seed, cases, size, shrinking,
// reproduce string) instead of RC_PARAMS, and turns the result into a PropertyOutcome.
// Internal to properties/.
#ifndef STATECHECK_PROPERTIES_RAPIDCHECK_RUNNER_H_
#define STATECHECK_PROPERTIES_RAPIDCHECK_RUNNER_H_

#include <functional>
#include <string>

#include "properties/kit/outcome.h"

namespace statecheck::properties {

// Runs `property` (which uses rapidcheck's generators and assertions) for params.max_success
// cases from params.seed, or re-runs exactly params.reproduce. Fills `out` — whose `property`
// names the test and keys the reproduce string — with the result: cases, and on failure the
// message, the shrunk counterexample and the reproduce string. Adds nothing to
// out->operations (the property counts its own).
void RunProperty(const std::function<void()>& property, const PropertyParams& params,
                 PropertyOutcome* out);

// `s` with every character but [A-Za-z0-9_-] replaced by '-': a file name.
std::string SafeFileName(std::string s);

// Where a failing case of `out` is saved as a trace: params.trace_dir (created if missing) /
// "<property>-seed<seed>.jsonl".
std::string TracePathFor(const PropertyParams& params, const PropertyOutcome& out);

// Writes `text` (a trace) to TracePathFor and names it in out->trace_path, or says in
// out->message that it could not.
void SaveTraceText(const std::string& text, const PropertyParams& params, PropertyOutcome* out);

// A new path under the system temp directory, "statecheck-<tag>-<pid>-<n>", for one case's
// files (not created).
std::string ScratchDirectory(const std::string& tag);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_RAPIDCHECK_RUNNER_H_
