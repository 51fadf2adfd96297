// What the families' tests share (tests only: it includes GoogleTest): a property run's
// parameters with the environment's overrides, the expectation that a run passed with what a
// failure needs to be re-run, and a reader's parse and the expectation of its error.
#ifndef STATECHECK_PROPERTIES_KIT_TEST_SUPPORT_H_
#define STATECHECK_PROPERTIES_KIT_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "properties/kit/outcome.h"
#include "properties/kit/trace.h"
#include "statecheck/status.h"

namespace statecheck::properties::kit {

// `seed` (STATECHECK_SEED overrides it), `cases` (the environment variable `cases_variable`
// overrides them, when named) and `size`.
inline PropertyParams TestParams(uint64_t seed, int cases, int size,
                                 const char* cases_variable = nullptr) {
  PropertyParams p;
  p.seed = seed;
  p.max_success = cases;
  p.max_size = size;
  if (const char* s = std::getenv("STATECHECK_SEED")) p.seed = std::strtoull(s, nullptr, 10);
  if (const char* n = cases_variable ? std::getenv(cases_variable) : nullptr) {
    p.max_success = std::atoi(n);
  }
  return p;
}

// EXPECTs that `out` passed every case of `p`; a failure prints its message, shrunk sequence and
// the command that re-runs it.
inline void ExpectPassed(const PropertyOutcome& out, const PropertyParams& p) {
  EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases (seed "
                          << p.seed << "):\n"
                          << out.message << "\nshrunk:\n  "
                          << ::testing::PrintToString(out.counterexample)
                          << (out.trace_path.empty() ? "" : "\nreplay: statecheck replay ")
                          << out.trace_path << "\nreproduce: statecheck run --reproduce '"
                          << out.reproduce << "'";
  EXPECT_EQ(out.cases, p.max_success) << out.property;
}

// Parses `text` as a trace of vocabulary V read from "t.jsonl" (into `*trace`, if given): what a
// family's reader tests check the errors of.
template <class V>
Status ParseText(std::string_view text, Trace<V>* trace = nullptr) {
  Trace<V> parsed;
  return ParseTrace(text, "t.jsonl", trace ? trace : &parsed);
}

// EXPECTs bad input: InvalidArgument whose message holds `message`.
inline void ExpectInvalidArgument(const Status& s, const std::string& message) {
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(message), std::string::npos) << s;
}

}  // namespace statecheck::properties::kit

#endif  // STATECHECK_PROPERTIES_KIT_TEST_SUPPORT_H_
