// The trace readers (the kit's, through the registry) on malformed input:
// regressions of what the trace fuzz targets found, and of traces the readers accepted although
// they checked nothing (a misspelled key, a config that builds nothing).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/kit/json_lines.h"
#include "properties/kit/test_support.h"
#include "properties/trace_replay.h"

namespace statecheck::properties {
namespace {

constexpr char kTaskHeader[] =
    "{\"statecheck_trace\":1,\"kind\":\"task\",\"config\":\"eos_rc\",\"setup\":{"
    "\"commit_interval_records\":0,\"commit_interval_ms\":-1,\"uncommitted_max_bytes\":1}}\n";
constexpr char kWindowedHeader[] =
    "{\"statecheck_trace\":1,\"kind\":\"windowed\",\"config\":{\"window\":{\"kind\":\"time\","
    "\"size_ms\":5,\"advance_ms\":5,\"grace_ms\":0},\"emit\":\"ON_WINDOW_CLOSE\"}}\n";

// A trace of a family on the kit read and replayed through the registry (the family's headers
// are its own): bad input is the reader's error.
Status ReadByKind(const std::string& text) {
  TraceReplay replay;
  return ReplayTraceText(text, "w.jsonl", ReplayTarget::kBoth, &replay);
}

using kit::ExpectInvalidArgument;

// One header grammar for every kind (kit/trace_header.h): each reader refuses a trace of another
// format version, or without one, with the same words. (The task reader once read a header with
// no version at all, and the windowed one compared with a literal 1.)
TEST(TraceParsers, EveryKindChecksTheFormatVersionTheSameWay) {
  const std::vector<std::pair<std::string, std::string>> headers = {
      {"task", R"("config":"eos_rc","setup":{"commit_interval_records":0,)"
               R"("commit_interval_ms":-1,"uncommitted_max_bytes":1})"},
      {"windowed", R"("config":{"window":{"kind":"time","size_ms":5,"advance_ms":5,)"
                   R"("grace_ms":0},"emit":"ON_WINDOW_CLOSE"})"},
      {"window_store", R"("config":{"name":"s","retention_ms":10,"window_size_ms":3,)"
                       R"("retain_duplicates":false})"},
  };
  for (const auto& header : headers) {
    const std::string& kind = header.first;
    const std::string& rest = header.second;
    const std::string body = "\"kind\":\"" + kind + "\"," + rest + "}\n";
    EXPECT_TRUE(ReadByKind("{\"statecheck_trace\":1," + body).ok()) << kind;
    ExpectInvalidArgument(ReadByKind("{\"statecheck_trace\":2," + body),
                          "line 1: unsupported trace version 2 (this statecheck reads version 1)");
    ExpectInvalidArgument(ReadByKind("{" + body),
                          "line 1: the first line must be the trace's header, "
                          "{\"statecheck_trace\": 1, \"kind\": \"" +
                              kind + "\"");
    ExpectInvalidArgument(ReadByKind("{\"statecheck_trace\":1.5," + body),
                          "line 1: \"statecheck_trace\" is the trace format's version, a number");
  }
}

// Regression (window_store_trace_fuzz): an iterator id above INT_MAX was truncated to another
// id (4294967297 became 1).
TEST(TraceParsers, WindowStoreIteratorIdAboveIntIsAnError) {
  const std::string header =
      "{\"statecheck_trace\":1,\"kind\":\"window_store\",\"config\":{\"name\":\"s\","
      "\"retention_ms\":10,\"window_size_ms\":5,\"retain_duplicates\":false}}\n";
  ExpectInvalidArgument(
      ReadByKind(header + "{\"op\":\"open\",\"iterator\":4294967297,\"read\":\"all\"}\n"),
      "line 2: field \"iterator\" must be from 0 to 2147483647, not 4294967297");
  EXPECT_TRUE(ReadByKind(header + "{\"op\":\"open\",\"iterator\":3,\"read\":\"all\"}\n").ok());
}

constexpr char kWindowStoreHeader[] =
    "{\"statecheck_trace\":1,\"kind\":\"window_store\",\"config\":{\"name\":\"s\","
    "\"retention_ms\":10,\"window_size_ms\":5,\"retain_duplicates\":false}}\n";

// A misspelled key used to be ignored — "expcet" left a step unchecked and the trace passed.
// Every object of every kind of trace now takes only its own keys.
TEST(TraceParsers, AnUnknownKeyAnywhereIsAnErrorNamingTheLineAndTheKey) {
  const std::string put = "{\"op\":\"put\",\"key\":\"a\",\"value\":\"1\",\"start\":0";
  ExpectInvalidArgument(
      ReadByKind(kWindowStoreHeader + put + ",\"expcet\":{\"status\":\"OK\"}}\n"),
      "line 2: unknown key \"expcet\" in a put step (it takes: op, key, value, start, "
      "expect)");
  EXPECT_TRUE(ReadByKind(kWindowStoreHeader + put + ",\"expect\":{\"status\":\"OK\"}}\n").ok());
  ExpectInvalidArgument(
      ReadByKind("{\"statecheck_trace\":1,\"kind\":\"window_store\",\"confg\":{}}\n"),
      "line 1: unknown key \"confg\" in the header");
  ExpectInvalidArgument(ReadByKind("{\"statecheck_trace\":1,\"kind\":\"window_store\",\"config\":{"
                                   "\"name\":\"s\",\"retention\":10,\"retention_ms\":10,"
                                   "\"window_size_ms\":5,\"retain_duplicates\":false}}\n"),
                        "line 1: config: unknown key \"retention\" in \"config\"");
  ExpectInvalidArgument(
      ReadByKind("{\"statecheck_trace\":1,\"kind\":\"window_store\",\"config\":{"
                 "\"name\":\"s\",\"retention_ms\":10,\"window_size_ms\":5,"
                 "\"retain_duplicates\":false},\"construction\":{\"status\":\"OK\","
                 "\"mesage\":\"\"}}\n"),
      "line 1: unknown key \"mesage\" in \"construction\"");
}

// The CLI told a trace's kind from its first line, so a leading blank line made a task trace
// read as a window-store trace.
TEST(TraceParsers, TheKindIsTheFirstNonBlankLines) {
  EXPECT_EQ(TraceKind(std::string("\n  \r\n") + kTaskHeader), "task");
  EXPECT_EQ(TraceKind(std::string("\n") + kWindowedHeader), "windowed");
  EXPECT_EQ(TraceKind("\n[1]\n{\"kind\":\"task\"}\n"), "");
  EXPECT_EQ(TraceKind(""), "");
}

// A window-store trace whose config builds no store, with no "construction" expectation,
// replayed "OK: all 0 steps": it is bad input, with the model's reason.
TEST(TraceParsers, AWindowStoreConfigThatBuildsNoStoreIsBadInput) {
  const std::string header =
      "{\"statecheck_trace\":1,\"kind\":\"window_store\",\"config\":{\"name\":\"s\","
      "\"retention_ms\":-1,\"window_size_ms\":5,\"retain_duplicates\":false}";
  const Status s = ReadByKind(header + "}\n{\"op\":\"metrics\"}\n");
  ExpectInvalidArgument(
      s, "line 1: the configuration cannot run: the model builds no store from this config:");
  EXPECT_NE(s.message().find("\"construction\": {\"status\": \"InvalidArgument\"}"),
            std::string::npos)
      << s;
  // Expected, the same failure is the trace's check, and it passes.
  TraceReplay replay;
  ASSERT_TRUE(ReplayTraceText(header + ",\"construction\":{\"status\":\"InvalidArgument\"}}\n",
                              "w.jsonl", ReplayTarget::kBoth, &replay)
                  .ok());
  EXPECT_FALSE(replay.diverged) << replay.verdict;
}

// Byte strings compare as bytes: an expectation's "\xFF" is the output's "\xff".
TEST(TraceParsers, ExpectationsCompareBytesNotTheirSpelling) {
  EXPECT_TRUE(MatchesExpectation(Json{{"value", "a\\xFF"}}, Json{{"value", "a\\xff"}}));
  EXPECT_TRUE(MatchesExpectation(Json{{"records", Json::array({Json::array({"\\xAB", 1})})}},
                                 Json{{"records", Json::array({Json::array({"\\xab", 1})})}}));
  EXPECT_FALSE(MatchesExpectation(Json{{"value", "a\\xFE"}}, Json{{"value", "a\\xff"}}));
  EXPECT_FALSE(MatchesExpectation(Json{{"status", "ok"}}, Json{{"status", "OK"}}));
}

}  // namespace
}  // namespace statecheck::properties
