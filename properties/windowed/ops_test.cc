// The windowed vocabulary (ops.h) read by the kit's parser on malformed input: regressions of
// what windowed_trace_fuzz found, and of traces the reader accepted although they checked
// nothing (a misspelled key, a config that cannot run).
#include "properties/windowed/ops.h"

#include <gtest/gtest.h>

#include <string>

#include "properties/kit/test_support.h"
#include "properties/kit/trace.h"
#include "properties/windowed/property.h"

namespace statecheck::properties::windowed {
namespace {

using Trace = kit::Trace<Vocabulary>;

constexpr char kWindowedHeader[] =
    "{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{\"window\":{\"kind\":\"time\","
    "\"size_ms\":5,\"advance_ms\":5,\"grace_ms\":0},\"emit\":\"ON_WINDOW_CLOSE\"}}\n";

Status Parse(const std::string& text) { return kit::ParseText<Vocabulary>(text); }

using kit::ExpectInvalidArgument;

// Regression (windowed_trace_fuzz): a window "kind", "emit" or "store" that was not a string,
// and a header "statecheck_trace" that was not a number, threw nlohmann's type_error.
TEST(WindowedTrace, FieldsOfTheWrongTypeAreErrors) {
  Trace trace;
  ExpectInvalidArgument(
      kit::ParseTrace("{\"statecheck_trace\":\"1\",\"kind\":\"windowed\",\"config\":{}}", "w",
                      &trace),
      "line 1: \"statecheck_trace\" is the trace format's version, a number (1), not \"1\"");
  ExpectInvalidArgument(kit::ParseTrace("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                                        "\"window\":{\"kind\":[\"time\"]}}}",
                                        "w", &trace),
                        "line 1: config: window \"kind\" must be");
  ExpectInvalidArgument(
      kit::ParseTrace("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                      "\"window\":{\"kind\":\"session\",\"gap_ms\":1,\"grace_ms\":0},"
                      "\"emit\":1}}",
                      "w", &trace),
      "line 1: config: \"emit\" must be");
  ExpectInvalidArgument(
      kit::ParseTrace("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                      "\"window\":{\"kind\":\"session\",\"gap_ms\":1,\"grace_ms\":0},"
                      "\"emit\":\"ON_WINDOW_UPDATE\",\"store\":{}}}",
                      "w", &trace),
      "line 1: config: \"store\" must be");
}

// Regression (windowed_trace_fuzz): a timestamp of 2^64-1 wrapped to -1 ("no timestamp"), and a
// failed read left a half-filled trace.
TEST(WindowedTrace, TimestampAboveInt64IsAnErrorAndLeavesTheTraceUntouched) {
  Trace trace;
  trace.config.label = "mine";
  ExpectInvalidArgument(
      kit::ParseTrace(std::string(kWindowedHeader) + "{\"op\":\"append\",\"records\":[[\"a\","
                                                     "18446744073709551615]]}\n",
                      "w", &trace),
      "line 2: op append: each record is");
  EXPECT_EQ(trace.config.label, "mine");
  Config config;
  config.label = "mine";
  EXPECT_FALSE(ConfigFromJson(Json{{"label", "other"}}, &config).ok());
  EXPECT_EQ(config.label, "mine");
}

// Every object of a windowed trace takes only its own keys (a misspelled one was ignored).
TEST(WindowedTrace, AnUnknownKeyIsAnErrorNamingTheLineAndTheKey) {
  ExpectInvalidArgument(
      Parse(std::string(kWindowedHeader) + "{\"op\":\"commit\",\"expect\":{\"emited\":[]}}\n"),
      "line 2: unknown key \"emited\" in \"expect\"");
  ExpectInvalidArgument(Parse(std::string(kWindowedHeader) +
                              "{\"op\":\"commit\",\"expect\":{\"emitted\":[{\"key\":\"a\","
                              "\"valeu\":\"1\"}]}}\n"),
                        "line 2: unknown key \"valeu\" in an emitted record");
  ExpectInvalidArgument(Parse(std::string(kWindowedHeader) +
                              "{\"op\":\"process\",\"max_records\":1,\"expcet\":{}}\n"),
                        "line 2: unknown key \"expcet\" in a process step");
  ExpectInvalidArgument(Parse("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                              "\"window\":{\"kind\":\"time\",\"size_ms\":5,\"advance\":5,"
                              "\"advance_ms\":5,\"grace_ms\":0},\"emit\":\"ON_WINDOW_CLOSE\"}}"),
                        "line 1: config: unknown key \"advance\" in a time window");
  ExpectInvalidArgument(Parse("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                              "\"window\":{\"kind\":\"time\",\"size_ms\":5,\"advance_ms\":5,"
                              "\"grace_ms\":0},\"emit\":\"ON_WINDOW_CLOSE\",\"emitt\":1}}"),
                        "line 1: config: unknown key \"emitt\" in config");
}

// Windowed records compared as ordered JSON objects (field order significant) and a count
// only as the string "1".
TEST(WindowedTrace, RecordsCompareAsObjectsAndCountsAsNumbersToo) {
  const Json actual = Json::parse(R"({"window":[0,10],"key":"a","value":"2","timestamp":5})");
  EXPECT_TRUE(SameEmittedRecord(
      Json::parse(R"({"timestamp":5,"value":"2","key":"a","window":[0,10]})"), actual));
  EXPECT_TRUE(SameEmittedRecord(
      Json::parse(R"({"window":[0,10],"key":"a","value":2,"timestamp":5})"), actual));
  EXPECT_FALSE(SameEmittedRecord(
      Json::parse(R"({"window":[0,10],"key":"a","value":3,"timestamp":5})"), actual));
  EXPECT_FALSE(
      SameEmittedRecord(Json::parse(R"({"window":[0,10],"key":"a","value":"2"})"), actual));
}

// A windowed config the engine cannot run was a divergence at step 0 (exit 1): bad input.
TEST(WindowedTrace, AConfigThatCannotRunIsBadInput) {
  Trace trace;
  ASSERT_TRUE(
      kit::ParseTrace("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                      "\"window\":{\"kind\":\"time\",\"size_ms\":5,\"advance_ms\":5,"
                      "\"grace_ms\":0},\"emit\":\"ON_WINDOW_CLOSE\",\"streams_config\":{"
                      "\"processing.guarantee\":\"exactly_twice\"}}}\n{\"op\":\"commit\"}\n",
                      "w", &trace)
          .ok());
  TraceReplay out;
  ExpectInvalidArgument(Replay(trace, &out), "line 1: the configuration cannot run:");
  EXPECT_FALSE(out.diverged);
}

}  // namespace
}  // namespace statecheck::properties::windowed
