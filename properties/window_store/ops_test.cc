#include "properties/window_store/ops.h"

#include <gtest/gtest.h>

#include "properties/window_store/property.h"

namespace statecheck::properties::window_store {
namespace {

using Trace = kit::Trace<Vocabulary>;

Status ParseTrace(std::string_view text, Trace* trace) {
  return kit::ParseTrace(text, "t.jsonl", trace);
}

TEST(WindowStoreOps, BytesEscapeRoundTrip) {
  const std::string all = [] {
    std::string s;
    for (int c = 0; c < 256; ++c) s += static_cast<char>(c);
    return s;
  }();
  std::string back;
  ASSERT_TRUE(UnescapeBytes(EscapeBytes(all), &back).ok());
  EXPECT_EQ(back, all);
  EXPECT_EQ(EscapeBytes(std::string("a\0\\\xff", 4)), "a\\x00\\\\\\xff");
  EXPECT_EQ(UnescapeBytes("\\q", &back).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(UnescapeBytes("\\x4", &back).code(), Status::Code::kInvalidArgument);
  EXPECT_NE(UnescapeBytes("caf\xc3\xa9", &back).message().find("non-ASCII"), std::string::npos);
}

TEST(WindowStoreOps, JsonRoundTrip) {
  std::vector<Op> ops;
  Op put;
  put.type = OpType::kPut;
  put.key = std::string("k\0", 2);
  put.time = -5;
  ops.push_back(put);
  put.value = "v";
  ops.push_back(put);
  for (int r = 0; r < kReadKindCount; ++r) {
    Op read;
    read.type = r % 2 ? OpType::kScan : OpType::kOpen;
    read.read = static_cast<ReadKind>(r);
    read.key = "k";
    read.key_from = "a";
    read.time_from = 3;
    read.time_to = std::numeric_limits<int64_t>::max();
    read.iterator = 7;
    if (!ReadTakesKey(read.read)) read.key.clear();
    if (!ReadTakesKeyRange(read.read)) read.key_from.reset();
    if (!ReadTakesTimeRange(read.read)) read.time_from = read.time_to = 0;
    if (read.type == OpType::kScan) read.iterator = 0;
    ops.push_back(read);
  }
  for (OpType t : {OpType::kHasNext, OpType::kNext, OpType::kPeekNextKey, OpType::kCloseIterator}) {
    Op step;
    step.type = t;
    step.iterator = 2;
    ops.push_back(step);
  }
  Op null_key;  // Kafka's null key.
  null_key.type = OpType::kFetch;
  null_key.null_key = true;
  ops.push_back(null_key);
  Op restore;
  restore.type = OpType::kRestore;
  ops.push_back(restore);  // An empty changelog.
  restore.records = {{std::string("a\0", 2), "v", -3}, {"b", std::nullopt, 7}};
  ops.push_back(restore);
  for (const Op& op : ops) {
    Op back;
    ASSERT_TRUE(OpFromJson(OpToJson(op), &back).ok()) << OpToString(op);
    EXPECT_EQ(OpToJson(back), OpToJson(op));
  }
  Op op;
  EXPECT_EQ(OpFromJson(Json::parse(R"({"op":"put","key":"a","start":1})"), &op).message(),
            "missing field \"value\"");
  EXPECT_NE(OpFromJson(Json::parse(R"({"op":"jump"})"), &op).message().find("unknown op"),
            std::string::npos);
  EXPECT_EQ(OpFromJson(Json::parse(R"({"op":"fetch","key":"a","time":"3"})"), &op).message(),
            "field \"time\" must be an integer");
  EXPECT_EQ(OpFromJson(Json::parse(R"({"op":"restore"})"), &op).message(),
            "op restore needs \"records\": [[key, value or null, start], ...]");
  EXPECT_EQ(OpFromJson(Json::parse(R"({"op":"restore","records":[["a","v"]]})"), &op).message(),
            "op restore: each record is [key, value (or null), window start], not [\"a\",\"v\"]");
  EXPECT_EQ(OpFromJson(Json::parse(R"({"op":"restore","records":[["a",1,2]]})"), &op).message(),
            "field \"value\" must be a string or null");
}

// A restore replaces the store: a new one (the factory's), each record put in order, the old
// store's iterators gone; a runner built without a factory cannot restore.
TEST(OpRunner, RestorePutsEachRecordIntoANewStore) {
  WindowStoreOptions options;
  options.name = "s";
  options.retention_ms = 10;
  options.window_size_ms = 5;
  std::unique_ptr<OpRunner> runner;
  ASSERT_TRUE(OpRunner::Make(NewInMemoryWindowStore, options, &runner).ok());
  Op op;
  ASSERT_TRUE(
      OpFromJson(Json::parse(R"({"op":"put","key":"old","value":"x","start":100})"), &op).ok());
  runner->Apply(op);
  ASSERT_TRUE(OpFromJson(Json::parse(R"({"op":"open","iterator":0,"read":"all"})"), &op).ok());
  EXPECT_EQ(runner->Apply(op), (Json{{"status", "OK"}}));
  ASSERT_TRUE(
      OpFromJson(Json::parse(R"({"op":"restore","records":[["a","1",20],["b","2",10]]})"), &op)
          .ok());
  EXPECT_EQ(runner->Apply(op),
            (Json{{"status", "OK"}, {"logs", {"[WARN] Skipping record for expired segment."}}}));
  EXPECT_EQ(runner->Metrics(), (Json{{"stream_time", 20},
                                     {"dropped_records", 1},
                                     {"retained_records", 1},
                                     {"retained_segments", 1}}));
  ASSERT_TRUE(OpFromJson(Json::parse(R"({"op":"hasNext","iterator":0})"), &op).ok());
  EXPECT_EQ(runner->Apply(op), (Json{{"hasNext", false}}));
  std::unique_ptr<WindowStore> store;
  ASSERT_TRUE(NewInMemoryWindowStore(options, &store).ok());
  OpRunner bare(std::move(store));
  ASSERT_TRUE(OpFromJson(Json::parse(R"({"op":"restore","records":[]})"), &op).ok());
  EXPECT_EQ(bare.Apply(op), (Json{{"status", "FailedPrecondition"}}));
}

// A null key (Kafka's NullPointerException "key cannot be null") is answered by the runner: the
// C++ API cannot take one, and the store is not called.
TEST(OpRunner, NullKeyIsRefusedWithoutCallingTheStore) {
  WindowStoreOptions options;
  options.name = "s";
  options.retention_ms = 10;
  std::unique_ptr<OpRunner> runner;
  ASSERT_TRUE(OpRunner::Make(NewInMemoryWindowStore, options, &runner).ok());
  Op op;
  ASSERT_TRUE(
      OpFromJson(Json::parse(R"({"op":"put","key":null,"value":"v","start":3})"), &op).ok());
  EXPECT_TRUE(op.null_key);
  EXPECT_EQ(runner->Apply(op), (Json{{"status", "InvalidArgument"}}));
  EXPECT_EQ(runner->Metrics()["stream_time"], -1);  // The put never reached the store.
  EXPECT_EQ(OpToJson(op)["key"], Json());
}

constexpr char kHeader[] =
    R"({"statecheck_trace":1,"kind":"window_store","config":{"name":"s","retention_ms":10,)"
    R"("window_size_ms":3,"retain_duplicates":false}})";

TEST(WindowStoreTrace, ParseErrorsNameTheLine) {
  Trace t;
  auto error = [&](const std::string& text) { return ParseTrace(text, &t).message(); };
  EXPECT_EQ(error(""), "t.jsonl is empty");
  EXPECT_EQ(error("{\"op\":\"metrics\"}"),
            "line 1: the first line must be the trace's header, {\"statecheck_trace\": 1, "
            "\"kind\": \"window_store\", \"config\": ...}");
  EXPECT_EQ(error(std::string(kHeader) + "\n{not json"), "line 2: not valid JSON");
  EXPECT_EQ(error(std::string(kHeader) + "\n\n{\"op\":\"next\",\"iterator\":1}"),
            "line 3: iterator 1 was never opened");
  const std::string open = R"({"op":"open","iterator":1,"read":"all"})";
  EXPECT_EQ(error(std::string(kHeader) + "\n" + open + "\n" + open),
            "line 3: iterator 1 was opened before: give each open a new id");
  EXPECT_EQ(
      error(std::string(kHeader) + "\n" + open +
            "\n{\"op\":\"closeIterator\",\"iterator\":1}\n{\"op\":\"hasNext\",\"iterator\":1}"),
      "line 4: iterator 1 is closed");
  EXPECT_EQ(error(R"({"statecheck_trace":2,"kind":"window_store","config":{}})"),
            "line 1: unsupported trace version 2 (this statecheck reads version 1)");
  EXPECT_EQ(error(R"({"statecheck_trace":1,"kind":"window_store","config":{"name":"s"}})"),
            "line 1: config: missing field \"retention_ms\"");
}

TEST(WindowStoreTrace, ReplayComparesExpectations) {
  const std::string text = std::string(kHeader) + R"(
{"op":"put","key":"a","value":"1","start":100}
{"op":"put","key":"a","value":"2","start":90,"expect":{"logs":["[WARN] Skipping record for expired segment."]}}
{"op":"open","iterator":0,"read":"fetch","key":"a","from":0,"to":200}
{"op":"next","iterator":0,"expect":{"record":["a",100,103,"1"]}}
{"op":"hasNext","iterator":0,"expect":{"hasNext":false}}
{"op":"metrics","expect":{"dropped_records":1,"stream_time":100}}
)";
  Trace trace;
  ASSERT_TRUE(ParseTrace(text, &trace).ok());
  Trace again;
  ASSERT_TRUE(ParseTrace(kit::FormatTrace(trace), &again).ok());
  EXPECT_EQ(kit::FormatTrace(again), kit::FormatTrace(trace));
  for (ReplayTarget target : {ReplayTarget::kEngine, ReplayTarget::kModel, ReplayTarget::kBoth}) {
    TraceReplay out;
    ASSERT_TRUE(Replay(trace, target, EngineFactory(), &out).ok());
    EXPECT_FALSE(out.diverged) << out.verdict;
    EXPECT_EQ(out.steps_run, 6);
  }
  trace.steps[3].expect = Json{{"record", Json::array({"a", 100, 103, "2"})}};
  for (ReplayTarget target : {ReplayTarget::kEngine, ReplayTarget::kModel}) {
    TraceReplay out;
    ASSERT_TRUE(Replay(trace, target, EngineFactory(), &out).ok());
    ASSERT_TRUE(out.diverged);
    EXPECT_EQ(out.step, 4);
    EXPECT_EQ(out.line, 5);
    // The engine agrees with the model: the trace is what is wrong, and no rule is cited.
    EXPECT_EQ(out.rule, "");
    EXPECT_NE(
        out.message.find(target == ReplayTarget::kEngine ? "engine vs trace" : "model vs trace"),
        std::string::npos)
        << out.message;
  }
}

TEST(WindowStoreTrace, ConstructionExpectation) {
  Trace trace;
  ASSERT_TRUE(
      ParseTrace(
          R"({"statecheck_trace":1,"kind":"window_store","config":{"name":"s","retention_ms":1,"window_size_ms":2,"retain_duplicates":false},"construction":{"status":"InvalidArgument","message":"The retention period of the window store s must be no smaller than its window size. Got size=[2], retention=[1]"}})",
          &trace)
          .ok());
  TraceReplay out;
  ASSERT_TRUE(Replay(trace, ReplayTarget::kBoth, EngineFactory(), &out).ok());
  EXPECT_FALSE(out.diverged) << out.verdict;
  (*trace.config.construction)["message"] = "something else";
  ASSERT_TRUE(Replay(trace, ReplayTarget::kModel, EngineFactory(), &out).ok());
  EXPECT_TRUE(out.diverged);
  EXPECT_EQ(out.step, 0);
}

// A store that builds what the model refuses is a W1 divergence at step 0, against the trace's
// expectation and against the model; the property credits it to W1 as well.
TEST(WindowStoreTrace, AConstructionTheModelRefusesIsW1) {
  const Factory lenient = [](const WindowStoreOptions& options,
                             std::unique_ptr<WindowStore>* store) {
    WindowStoreOptions fixed = options;
    fixed.retention_ms = std::max(fixed.retention_ms, fixed.window_size_ms);
    return NewInMemoryWindowStore(fixed, store);
  };
  Trace trace;
  ASSERT_TRUE(
      ParseTrace(
          R"({"statecheck_trace":1,"kind":"window_store","config":{"name":"s","retention_ms":1,"window_size_ms":2,"retain_duplicates":false},"construction":{"status":"InvalidArgument"}})",
          &trace)
          .ok());
  for (ReplayTarget target : {ReplayTarget::kEngine, ReplayTarget::kBoth}) {
    TraceReplay out;
    ASSERT_TRUE(Replay(trace, target, lenient, &out).ok());
    ASSERT_TRUE(out.diverged);
    EXPECT_EQ(out.step, 0);
    EXPECT_EQ(out.rule, "W1") << out.message;
  }
}

}  // namespace
}  // namespace statecheck::properties::window_store
