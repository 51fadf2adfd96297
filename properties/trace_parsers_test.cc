// The trace parsers (window_store_trace.h, task_trace.h, windowed_trace.h) on malformed input:
// regressions of what the trace fuzz targets found.
#include <gtest/gtest.h>

#include <string>

#include "properties/task_trace.h"
#include "properties/window_store_trace.h"
#include "properties/windowed_trace.h"

namespace statecheck::properties {
namespace {

constexpr char kTaskHeader[] =
    "{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rc\",\"setup\":{"
    "\"commit_interval_records\":0,\"commit_interval_ms\":-1,\"uncommitted_max_bytes\":1}}\n";
constexpr char kWindowedHeader[] =
    "{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{\"window\":{\"kind\":\"time\","
    "\"size_ms\":5,\"advance_ms\":5,\"grace_ms\":0},\"emit\":\"ON_WINDOW_CLOSE\"}}\n";

Status ParseTask(const std::string& text, TaskTrace* trace) {
  return ParseTaskTrace(text, "t.jsonl", trace);
}

void ExpectError(const Status& s, const std::string& message) {
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(message), std::string::npos) << s;
}

// Regression (task_trace_fuzz): a header whose "kind" was not a string threw nlohmann's
// type_error out of ReadTaskTrace, as did a header that was not an object.
TEST(TraceParsers, TaskHeaderOfTheWrongTypeIsAnError) {
  TaskTrace trace;
  ExpectError(ParseTask("{\"kind\":7,\"config\":\"eos_rc\",\"setup\":{}}\n", &trace),
              "line 1: not a task trace header");
  ExpectError(ParseTask("[1]\n", &trace), "line 1: not a task trace header");
}

// Regression (task_trace_fuzz): a faulty step's "error" that was not a string threw; an unknown
// one silently meant EIO; a negative tear_seed wrapped around.
TEST(TraceParsers, TaskFaultErrorAndTearSeedAreChecked) {
  TaskTrace trace;
  const std::string fault = "{\"op\":\"faultyCommit\",\"process\":1,\"point\":\"fsync\",\"n\":2,";
  ExpectError(ParseTask(kTaskHeader + fault + "\"error\":5}\n", &trace),
              "line 2: faultyCommit: field \"error\" is one of EIO, ENOSPC, short write");
  ExpectError(ParseTask(kTaskHeader + fault + "\"error\":\"EFOO\"}\n", &trace),
              "field \"error\" is one of");
  ExpectError(ParseTask(kTaskHeader + fault + "\"tear_seed\":-1}\n", &trace),
              "line 2: faultyCommit: tear_seed is a number from 0 to 2^64-1, not -1");
  EXPECT_TRUE(ParseTask(kTaskHeader + fault + "\"error\":\"short write\"}\n", &trace).ok());
}

// Regression (task_trace_fuzz): a malformed setup was accepted by the reader (and failed only
// on replay), an integer above int64 wrapped, and a failed read left a half-filled trace.
TEST(TraceParsers, TaskSetupIsCheckedAndAnErrorLeavesTheTraceUntouched) {
  TaskTrace trace;
  trace.config = "mine";
  ExpectError(ParseTask("{\"kind\":\"task\",\"config\":\"eos_rc\",\"setup\":{}}\n", &trace),
              "line 1: setup: missing integer field \"commit_interval_records\"");
  ExpectError(ParseTask(std::string(kTaskHeader) +
                            "{\"op\":\"process\",\"max_records\":" + "9223372036854775808}\n",
                        &trace),
              "line 2: process: missing integer field \"max_records\"");
  EXPECT_EQ(trace.config, "mine");
  EXPECT_TRUE(trace.steps.empty());
  ExpectError(ParseTask("\n \n", &trace), "t.jsonl is empty");
}

// Regression (windowed_trace_fuzz): a window "kind", "emit" or "store" that was not a string,
// and a header "statecheck_trace" that was not a number, threw nlohmann's type_error.
TEST(TraceParsers, WindowedFieldsOfTheWrongTypeAreErrors) {
  WindowedTrace trace;
  ExpectError(ParseWindowedTrace("{\"statecheck_trace\":\"1\",\"kind\":\"windowed\",\"config\":{}}",
                                 "w", &trace),
              "line 1: not a windowed trace header");
  ExpectError(ParseWindowedTrace("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                                 "\"window\":{\"kind\":[\"time\"]}}}",
                                 "w", &trace),
              "line 1: config: window \"kind\" must be");
  ExpectError(ParseWindowedTrace("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                                 "\"window\":{\"kind\":\"session\",\"gap_ms\":1,\"grace_ms\":0},"
                                 "\"emit\":1}}",
                                 "w", &trace),
              "line 1: config: \"emit\" must be");
  ExpectError(ParseWindowedTrace("{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{"
                                 "\"window\":{\"kind\":\"session\",\"gap_ms\":1,\"grace_ms\":0},"
                                 "\"emit\":\"ON_WINDOW_UPDATE\",\"store\":{}}}",
                                 "w", &trace),
              "line 1: config: \"store\" must be");
}

// Regression (windowed_trace_fuzz): a timestamp of 2^64-1 wrapped to -1 ("no timestamp"), and a
// failed read left a half-filled trace.
TEST(TraceParsers, WindowedTimestampAboveInt64IsAnErrorAndLeavesTheTraceUntouched) {
  WindowedTrace trace;
  trace.config.label = "mine";
  ExpectError(
      ParseWindowedTrace(std::string(kWindowedHeader) + "{\"op\":\"append\",\"records\":[[\"a\","
                                                        "18446744073709551615]]}\n",
                         "w", &trace),
      "line 2: op append: each record is");
  EXPECT_EQ(trace.config.label, "mine");
  WindowedAggregationConfig config;
  config.label = "mine";
  EXPECT_FALSE(ConfigFromJson(Json{{"label", "other"}}, &config).ok());
  EXPECT_EQ(config.label, "mine");
}

// Regression (window_store_trace_fuzz): an iterator id above INT_MAX was truncated to another
// id (4294967297 became 1).
TEST(TraceParsers, WindowStoreIteratorIdAboveIntIsAnError) {
  Trace trace;
  const std::string header =
      "{\"statecheck_trace\":1,\"kind\":\"window_store\",\"config\":{\"name\":\"s\","
      "\"retention_ms\":10,\"window_size_ms\":5,\"retain_duplicates\":false}}\n";
  ExpectError(
      ParseTrace(header + "{\"op\":\"open\",\"iterator\":4294967297,\"read\":\"all\"}\n", &trace),
      "line 2: field \"iterator\" must be from 0 to 2147483647, not 4294967297");
  EXPECT_TRUE(
      ParseTrace(header + "{\"op\":\"open\",\"iterator\":3,\"read\":\"all\"}\n", &trace).ok());
}

}  // namespace
}  // namespace statecheck::properties
