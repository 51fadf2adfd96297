// The task vocabulary (ops.h) read by the kit's parser on malformed input: regressions of what
// task_trace_fuzz found, and of traces the reader accepted although they checked nothing (a
// misspelled key).
#include "properties/task/ops.h"

#include <gtest/gtest.h>

#include <string>

#include "properties/kit/test_support.h"
#include "properties/kit/trace.h"

namespace statecheck::properties::task {
namespace {

using Trace = kit::Trace<Vocabulary>;

constexpr char kTaskHeader[] =
    "{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rc\",\"setup\":{"
    "\"commit_interval_records\":0,\"commit_interval_ms\":-1,\"uncommitted_max_bytes\":1}}\n";

Status ParseTask(const std::string& text, Trace* trace) { return kit::ParseText(text, trace); }

using kit::ExpectInvalidArgument;

// Regression (task_trace_fuzz): a header whose "kind" was not a string threw nlohmann's
// type_error out of ReadTaskTrace, as did a header that was not an object.
TEST(TaskTrace, HeaderOfTheWrongTypeIsAnError) {
  Trace trace;
  ExpectInvalidArgument(
      ParseTask("{\"statecheck_trace\":1,\"kind\":7,\"config\":\"eos_rc\",\"setup\":{}}\n", &trace),
      "line 1: header \"kind\" must be \"task\", not 7");
  ExpectInvalidArgument(ParseTask("[1]\n", &trace),
                        "line 1: the first line must be the trace's header");
}

// Regression (task_trace_fuzz): a faulty step's "error" that was not a string threw; an unknown
// one silently meant EIO; a negative tear_seed wrapped around.
TEST(TaskTrace, FaultErrorAndTearSeedAreChecked) {
  Trace trace;
  const std::string fault = "{\"op\":\"faultyCommit\",\"process\":1,\"point\":\"fsync\",\"n\":2,";
  ExpectInvalidArgument(ParseTask(kTaskHeader + fault + "\"error\":5}\n", &trace),
                        "line 2: faultyCommit: field \"error\" is one of EIO, ENOSPC, short write");
  ExpectInvalidArgument(ParseTask(kTaskHeader + fault + "\"error\":\"EFOO\"}\n", &trace),
                        "field \"error\" is one of");
  ExpectInvalidArgument(ParseTask(kTaskHeader + fault + "\"tear_seed\":-1}\n", &trace),
                        "line 2: faultyCommit: tear_seed is a number from 0 to 2^64-1, not -1");
  EXPECT_TRUE(ParseTask(kTaskHeader + fault + "\"error\":\"short write\"}\n", &trace).ok());
}

// Regression (task_trace_fuzz): a malformed setup was accepted by the reader (and failed only
// on replay), an integer above int64 wrapped, and a failed read left a half-filled trace.
TEST(TaskTrace, SetupIsCheckedAndAnErrorLeavesTheTraceUntouched) {
  Trace trace;
  trace.config.label = "mine";
  ExpectInvalidArgument(ParseTask("{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rc\","
                                  "\"setup\":{}}\n",
                                  &trace),
                        "line 1: setup: missing integer field \"commit_interval_records\"");
  ExpectInvalidArgument(
      ParseTask(std::string(kTaskHeader) +
                    "{\"op\":\"process\",\"max_records\":" + "9223372036854775808}\n",
                &trace),
      "line 2: process: missing integer field \"max_records\"");
  EXPECT_EQ(trace.config.label, "mine");
  EXPECT_TRUE(trace.steps.empty());
  ExpectInvalidArgument(ParseTask("\n \n", &trace), "t.jsonl is empty");
}

// Every object of a task trace takes only its own keys (a misspelled one was ignored).
TEST(TaskTrace, AnUnknownKeyIsAnErrorNamingTheLineAndTheKey) {
  Trace task;
  ExpectInvalidArgument(
      ParseTask(std::string(kTaskHeader) + "{\"op\":\"crash\",\"tear_sed\":1}\n", &task),
      "line 2: unknown key \"tear_sed\" in a crash step");
  ExpectInvalidArgument(
      ParseTask("{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rc\",\"setup\":{"
                "\"commit_interval_records\":0,\"commit_interval_ms\":-1,"
                "\"uncommitted_max_bytes\":1,\"commit_interval\":5}}\n",
                &task),
      "line 1: unknown key \"commit_interval\" in setup");
  ExpectInvalidArgument(
      ParseTask("{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rc\",\"setup\":{"
                "\"commit_interval_records\":0,\"commit_interval_ms\":-1,"
                "\"uncommitted_max_bytes\":1},\"seeds\":5}\n",
                &task),
      "line 1: unknown key \"seeds\" in the header");
  // Optional fields written out are still fields of the op.
  EXPECT_TRUE(
      ParseTask(std::string(kTaskHeader) + "{\"op\":\"crash\",\"tear_seed\":1}\n", &task).ok());
}

// rocksdb_options_files is optional: true (RocksDB writes its OPTIONS files) in every trace from
// before it, so that their fault schedules replay as recorded; anything but a boolean is an error.
TEST(TaskTrace, SetupRocksDBOptionsFilesIsOptionalAndBoolean) {
  Json j = {
      {"commit_interval_records", 0}, {"commit_interval_ms", -1}, {"uncommitted_max_bytes", 1}};
  task::Setup setup;
  setup.rocksdb_options_files = false;
  ASSERT_TRUE(SetupFromJson(j, &setup).ok());
  EXPECT_TRUE(setup.rocksdb_options_files);
  j["rocksdb_options_files"] = false;
  ASSERT_TRUE(SetupFromJson(j, &setup).ok());
  EXPECT_FALSE(setup.rocksdb_options_files);
  EXPECT_EQ(SetupJson(setup)["rocksdb_options_files"], false);
  j["rocksdb_options_files"] = 0;
  ExpectInvalidArgument(SetupFromJson(j, &setup),
                        "setup: field \"rocksdb_options_files\" is true or false");
}

// A trace's config is a label of the matrix, and a step has no "expect".
TEST(TaskTrace, TheConfigIsAMatrixLabelAndAStepHasNoExpectation) {
  Trace trace;
  ASSERT_TRUE(ParseTask(kTaskHeader, &trace).ok());
  EXPECT_EQ(trace.config.label, "eos_rc");
  EXPECT_EQ(trace.config.setup.uncommitted_max_bytes, 1);
  ExpectInvalidArgument(
      ParseTask("{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rcc\","
                "\"setup\":{\"commit_interval_records\":0,\"commit_interval_ms\":-1,"
                "\"uncommitted_max_bytes\":1}}\n",
                &trace),
      "line 1: config: unknown task configuration \"eos_rcc\" (one of ");
  ExpectInvalidArgument(
      ParseTask(std::string(kTaskHeader) + "{\"op\":\"commit\",\"expect\":{}}\n", &trace),
      "line 2: a task step takes no \"expect\"");
  ExpectInvalidArgument(
      ParseTask("{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rc\"}\n", &trace),
      "line 1: the header needs \"setup\"");
}

}  // namespace
}  // namespace statecheck::properties::task
