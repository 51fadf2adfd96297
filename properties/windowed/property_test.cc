// The windowed aggregation property over tumbling and hopping windows × emit strategies (SPEC
// E1–E6, E10).
#include "properties/windowed/property.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "properties/generators.h"
#include "properties/kit/test_support.h"
#include "properties/rapidcheck_runner.h"
#include "reports/rule_catalogue.h"
#include "testing/forwarding_processor_context.h"

namespace statecheck::properties::windowed {

void PrintTo(const Config& config, std::ostream* os) { *os << config.label; }

namespace {

class WindowedAggregationProperty : public ::testing::TestWithParam<Config> {};

TEST_P(WindowedAggregationProperty, MatchesModel) {
  const PropertyParams p = kit::TestParams(20261130, 60, 60, "STATECHECK_WINDOWED_PROPERTY_CASES");
  kit::ExpectPassed(CheckMatchesModel(GetParam(), p), p);
}

INSTANTIATE_TEST_SUITE_P(Matrix, WindowedAggregationProperty, ::testing::ValuesIn(Matrix()),
                         [](const auto& info) { return info.param.label; });

// E7, for each window shape of the matrix (tumbling, hopping with grace).
TEST(WindowedAggregationDifferential, EmitFinalEqualsSuppressedEager) {
  const PropertyParams p = kit::TestParams(20261130, 40, 40);
  for (const Config& config : Matrix()) {
    if (!IsE7WindowShape(config)) continue;
    const PropertyOutcome out = CheckEmitFinalEqualsSuppressedEager(config, p);
    EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases:\n"
                            << out.message << "\nshrunk:\n  "
                            << ::testing::PrintToString(out.counterexample);
    EXPECT_EQ(out.cases, p.max_success);
  }
}

// Evidence: over the matrix (and E7's differential), for a fixed seed and a few cases per
// configuration, every situation E1–E7 and E10 declare is counted, and every situation counted
// is declared.
TEST(WindowedEvidence, EverySituationOfTheWindowedRulesIsCounted) {
  const PropertyParams p = kit::TestParams(42, 5, 80);
  Evidence total;
  for (const Config& config : Matrix()) {
    PropertyOutcome out = CheckMatchesModel(config, p);
    EXPECT_TRUE(out.passed) << out.property << ": " << out.message;
    total += out.evidence;
    if (IsE7WindowShape(config)) {
      out = CheckEmitFinalEqualsSuppressedEager(config, p);
      EXPECT_TRUE(out.passed) << out.property << ": " << out.message;
      total += out.evidence;
    }
  }
  const reports::RuleCatalogue& catalogue = reports::RuleCatalogue::Builtin();
  for (const auto& [name, cases] : total.situations) {
    EXPECT_NE(catalogue.FindSituation(name), nullptr) << name << " is not declared";
    std::cout << "  " << name << ": " << cases << "\n";
  }
  for (const char* id : {"E1", "E2", "E3", "E4", "E5", "E6", "E7", "E10"}) {
    const reports::Rule* rule = catalogue.Find(id);
    ASSERT_NE(rule, nullptr) << id;
    EXPECT_GE(rule->situations.size(), reports::kMinSituations) << id;
    for (const reports::Situation& s : rule->situations) {
      EXPECT_GT(total.situations[s.name], 0) << s.name << " (" << s.text << ") was never counted";
    }
  }
}

// Attribution: the property run against deliberately wrong aggregations (wrappers around the
// engine's processor) credits each failure to the one rule it breaks.

// Delegates everything to the engine's processor; the tests override what goes wrong.
class WrappedProcessor : public Processor {
 public:
  explicit WrappedProcessor(std::unique_ptr<Processor> inner) : inner_(std::move(inner)) {}
  std::vector<std::string> StoreNames() const override { return inner_->StoreNames(); }
  std::vector<WindowStoreSpec> WindowStores() const override { return inner_->WindowStores(); }
  Status Process(const LogRecord& record, ProcessorContext* context) override {
    return inner_->Process(record, context);
  }
  std::string CommitMetadata() const override { return inner_->CommitMetadata(); }
  Status Init(std::string_view metadata) override { return inner_->Init(metadata); }

 protected:
  std::unique_ptr<Processor> inner_;
};

// A context that forwards each output record twice.
class DoublingContext final : public testing::ForwardingContext {
 public:
  using ForwardingContext::ForwardingContext;
  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override {
    const Status s = inner_->Forward(key, value, timestamp);
    return s.ok() ? inner_->Forward(key, value, timestamp) : s;
  }
};

// A context that holds back what one record's processing forwards, for the caller to forward in
// reverse order.
class ReversingContext final : public testing::ForwardingContext {
 public:
  using ForwardingContext::ForwardingContext;
  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override {
    held_.push_back({std::string(key),
                     value ? std::optional<std::string>(std::string(*value)) : std::nullopt,
                     timestamp});
    return Status::Ok();
  }
  Status ForwardReversed() {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it) {
      const Status s = inner_->Forward(
          it->key, it->value ? std::optional<std::string_view>(*it->value) : std::nullopt,
          it->timestamp);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

 private:
  struct Held {
    std::string key;
    std::optional<std::string> value;
    int64_t timestamp;
  };
  std::vector<Held> held_;
};

PropertyOutcome RunWrapped(const std::string& label, const ProcessorWrapper& wrap,
                           int max_success = 20) {
  PropertyParams p;
  p.seed = 7;
  p.max_success = max_success;
  p.max_size = 60;
  p.shrink = false;  // The rule is the first failure's; shrinking (slow here) keeps it.
  for (const Config& config : Matrix()) {
    if (config.label == label) return CheckMatchesModel(config, p, wrap);
  }
  ADD_FAILURE() << "no configuration " << label;
  return {};
}

// A ProcessorWrapper wrapping each processor in a `P`.
template <class P>
ProcessorWrapper Wrapping() {
  return [](std::unique_ptr<Processor> p) {
    return std::unique_ptr<Processor>(std::make_unique<P>(std::move(p)));
  };
}

// EXPECTs configuration `label`, wrapped by `wrap`, to fail, credited to one of `rules`.
void ExpectCreditedTo(const std::string& label, const ProcessorWrapper& wrap,
                      const std::set<std::string>& rules) {
  const PropertyOutcome out = RunWrapped(label, wrap);
  ASSERT_FALSE(out.passed) << label;
  EXPECT_TRUE(rules.contains(out.rule)) << label << ": " << out.rule << ": " << out.message;
}

// The last emitted close time left out of the commit metadata: E10's check.
TEST(WindowedAttribution, CloseTimeNotCommittedIsE10) {
  class NoMetadata final : public WrappedProcessor {
   public:
    using WrappedProcessor::WrappedProcessor;
    std::string CommitMetadata() const override { return {}; }
  };
  const PropertyOutcome out = RunWrapped("hopping_final", [](std::unique_ptr<Processor> p) {
    return std::unique_ptr<Processor>(std::make_unique<NoMetadata>(std::move(p)));
  });
  ASSERT_FALSE(out.passed);
  EXPECT_EQ(out.rule, "E10") << out.message;
}

// The committed metadata ignored at start: windows are emitted again after a restart (E6).
TEST(WindowedAttribution, MetadataIgnoredAtStartIsE6) {
  class IgnoresMetadata final : public WrappedProcessor {
   public:
    using WrappedProcessor::WrappedProcessor;
    Status Init(std::string_view) override { return inner_->Init(""); }
    // What it commits is what it had: the check of E10 holds until it emits again.
    std::string CommitMetadata() const override { return inner_->CommitMetadata(); }
  };
  // It shows only when a restart follows an emission and later records close more windows:
  // up to 100 cases.
  const PropertyOutcome out = RunWrapped(
      "tumbling_final",
      [](std::unique_ptr<Processor> p) {
        return std::unique_ptr<Processor>(std::make_unique<IgnoresMetadata>(std::move(p)));
      },
      100);
  ASSERT_FALSE(out.passed);
  EXPECT_TRUE(out.rule == "E6" || out.rule == "E10") << out.rule << ": " << out.message;
}

// Null-key records let through to the aggregation uncounted: E1.
TEST(WindowedAttribution, NullKeyNotDroppedIsE1) {
  class KeepsNullKeys final : public WrappedProcessor {
   public:
    using WrappedProcessor::WrappedProcessor;
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      if (record.key.empty()) return Status::Ok();  // Skipped without counting.
      return inner_->Process(record, context);
    }
  };
  const PropertyOutcome out = RunWrapped("hopping_eager", [](std::unique_ptr<Processor> p) {
    return std::unique_ptr<Processor>(std::make_unique<KeepsNullKeys>(std::move(p)));
  });
  ASSERT_FALSE(out.passed);
  EXPECT_EQ(out.rule, "E1") << out.message;
}

// Every output record forwarded twice: under emit-final, a window emitted twice (E3); under
// emit-eager, an update the model does not make (E2).
TEST(WindowedAttribution, OutputForwardedTwiceIsTheEmitStrategysRule) {
  class Doubles final : public WrappedProcessor {
   public:
    using WrappedProcessor::WrappedProcessor;
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      DoublingContext doubling(context);
      return inner_->Process(record, &doubling);
    }
  };
  const ProcessorWrapper wrap = Wrapping<Doubles>();
  ExpectCreditedTo("hopping_final", wrap, {"E3"});
  ExpectCreditedTo("session_eager_alos", wrap, {"E2"});
}

// One record's outputs in reverse order: under emit-final, windows that closed together out of
// order (E4); under emit-eager, updates not by ascending window start (E2).
TEST(WindowedAttribution, ReversedOrderIsE4UnderEmitFinalAndE2UnderEmitEager) {
  class Reverses final : public WrappedProcessor {
   public:
    using WrappedProcessor::WrappedProcessor;
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      ReversingContext reversing(context);
      const Status s = inner_->Process(record, &reversing);
      return s.ok() ? reversing.ForwardReversed() : s;
    }
  };
  const ProcessorWrapper wrap = Wrapping<Reverses>();
  ExpectCreditedTo("hopping_final", wrap, {"E4"});
  ExpectCreditedTo("hopping_eager", wrap, {"E2"});
}

// Each record's value replaced before the aggregation sees it (nulls kept): a reduce's and an
// aggregate's values are checked, not only their windows: in the output (E2 under emit-eager,
// E3 under emit-final), or in the store a restart reads before the output shows them (E6).
TEST(WindowedAttribution, WrongValuesAreTheEmitStrategysRule) {
  class ReplacesValues final : public WrappedProcessor {
   public:
    using WrappedProcessor::WrappedProcessor;
    Status Process(const LogRecord& record, ProcessorContext* context) override {
      LogRecord replaced = record;
      if (replaced.value) replaced.value = "x";
      return inner_->Process(replaced, context);
    }
  };
  const ProcessorWrapper wrap = Wrapping<ReplacesValues>();
  ExpectCreditedTo("hopping_reduce_eager", wrap, {"E2", "E6"});
  ExpectCreditedTo("unlimited_reduce_alos", wrap, {"E2", "E6"});
  ExpectCreditedTo("tumbling_aggregate_final_alos", wrap, {"E3", "E6"});
}

// Every configuration survives the trip through a trace header.
TEST(WindowedTrace, ConfigRoundTrips) {
  for (const Config& config : Matrix()) {
    Config back;
    ASSERT_TRUE(ConfigFromJson(ConfigToJson(config), &back).ok()) << config.label;
    EXPECT_EQ(ConfigToJson(back), ConfigToJson(config));
  }
}

// A malformed trace is refused with the line and what is wrong, before anything runs.
TEST(WindowedTrace, MalformedTracesNameTheLineAndTheProblem) {
  const std::string header =
      R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"time",)"
      R"("size_ms":10,"advance_ms":10,"grace_ms":0},"emit":"ON_WINDOW_CLOSE"}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"kind\":\"task\"}\n", "line 1: the first line must be the trace's header"},
      {R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"tumbling"}}})"
       "\n",
       R"(line 1: config: window "kind" must be "time", "sliding", "session" or "unlimited")"},
      {R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"time",)"
       R"("size_ms":10,"grace_ms":0},"emit":"ON_WINDOW_CLOSE"}})"
       "\n",
       R"(line 1: config: window needs an integer "advance_ms")"},
      {header + "\n{\"op\":\"flush\"}\n", "line 2: unknown op \"flush\""},
      {header + "\n\n{\"op\":\"append\",\"records\":[[\"a\",-2]]}\n",
       "line 3: op append: each record is [key"},
      {header + "\n{\"op\":\"process\"}\n", "line 2: op process needs an integer \"max_records\""},
      {header + "\n{\"op\":\"commit\",\"expect\":{\"emitted\":3}}\n",
       "line 2: \"expect\" is {\"emitted\": [...], \"dropped_records\": N}"},
      {header + "\nnot json\n", "line 2: not valid JSON"},
      {header + "\n{\"op\":\"fetch\",\"key\":\"\",\"from\":0,\"to\":1}\n",
       "line 2: op fetch: the key \"\" stands for Kafka's null key"},
      {header + "\n{\"op\":\"fetchAll\",\"from\":0}\n",
       "line 2: op fetchAll needs an integer \"to\""},
      {header + "\n{\"op\":\"metrics\",\"expect\":{\"metrics\":{\"dropped-records\":1}}}\n",
       "line 2: unknown key \"dropped-records\" in \"metrics\""},
      {header + "\n{\"op\":\"commit\",\"expect\":{\"windows\":[]}}\n",
       "line 2: unknown key \"windows\" in \"expect\""},
      {header + "\n{\"op\":\"append\",\"records\":[[\"a\",1,2]]}\n",
       "line 2: op append: each record is [key"},
      {R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"time",)"
       R"("size_ms":10,"advance_ms":10,"grace_ms":0},"emit":"ON_WINDOW_CLOSE",)"
       R"("aggregator":"sum"}})"
       "\n",
       R"(line 1: config: "aggregator" must be "count", "reduce" or "aggregate")"},
      {R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"unlimited",)"
       R"("start_ms":0},"emit":"ON_WINDOW_UPDATE","suppress":"untilWindowCloses"}})"
       "\n",
       R"(line 1: config: suppress(untilWindowCloses) is modelled over time, sliding and session)"},
      {R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"time",)"
       R"("size_ms":10,"advance_ms":10,"grace_ms":0},"emit":"ON_WINDOW_UPDATE",)"
       R"("suppress":"untilTimeLimit"}})"
       "\n",
       R"(line 1: config: "suppress" must be "untilWindowCloses")"},
  };
  const std::string path = ScratchDirectory("windowed-trace") + ".jsonl";
  for (const auto& [text, message] : cases) {
    std::ofstream(path) << text;
    kit::Trace<Vocabulary> trace;
    std::string read;
    ASSERT_TRUE(kit::ReadTextFile(path, &read).ok());
    const Status s = kit::ParseTrace(read, path, &trace);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << text;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
  }
  std::filesystem::remove(path);
}

// The model found a timestamp's windows by walking every start from 0: at present-day epoch
// milliseconds a record took seconds (minutes with a 10 ms hop), and near INT64_MAX the walk
// overflowed and never ended. Both replay now, engine and model agreeing on every record, the
// windows past INT64_MAX ending there (Kafka's Long.MAX_VALUE).
TEST(WindowedTrace, EpochAndExtremeTimestampsReplay) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (const auto& [label, base] : {std::pair<std::string, int64_t>{"epoch", kPresentDayEpochMs},
                                    {"int64_max", kMax - 3'000}}) {
    for (const char* emit : {"ON_WINDOW_UPDATE", "ON_WINDOW_CLOSE"}) {
      kit::Trace<Vocabulary> trace;
      ASSERT_TRUE(
          ConfigFromJson(
              Json{{"label", label},
                   {"window",
                    {{"kind", "time"}, {"size_ms", 50}, {"advance_ms", 10}, {"grace_ms", 5}}},
                   {"emit", emit},
                   {"emit_interval_ms", 0}},
              &trace.config)
              .ok());
      Json records = Json::array();
      for (int i = 0; i < 1000; ++i) {
        records.push_back(Json::array({"k" + std::to_string(i % 7), base + 3 * i - (i % 5)}));
      }
      records.push_back(Json::array({"k0", label == "int64_max" ? kMax : base + 4000}));
      for (const Json& step :
           {Json{{"op", "append"}, {"records", records}},
            Json{{"op", "process"}, {"max_records", 1001}}, Json{{"op", "commit"}}}) {
        trace.steps.emplace_back();
        ASSERT_TRUE(OpFromJson(step, &trace.steps.back().op).ok()) << step.dump();
      }
      TraceReplay out;
      ASSERT_TRUE(Replay(trace, &out).ok()) << label << " " << emit;
      EXPECT_FALSE(out.diverged) << label << " " << emit << ": " << out.message;
      EXPECT_EQ(out.steps_run, 3) << label << " " << emit;
    }
  }
}

// A diverging replay carries its finding's rule itself (trace_replay.cc once scraped it back out
// of the message text, which a message starting otherwise would have lost), in the kit's shape.
TEST(WindowedTrace, ADivergenceCarriesTheRuleOfItsFinding) {
  kit::Trace<Vocabulary> trace;
  ASSERT_TRUE(kit::ParseTrace(
                  R"({"statecheck_trace":1,"kind":"windowed","config":{"window":{"kind":"time",)"
                  R"("size_ms":10,"advance_ms":10,"grace_ms":0},"emit":"ON_WINDOW_CLOSE"}})"
                  "\n"
                  R"({"op":"append","records":[["a",1]]})"
                  "\n"
                  R"({"op":"process","max_records":1,"expect":{"emitted":[],"dropped_records":1}})",
                  "t", &trace)
                  .ok());
  TraceReplay out;
  ASSERT_TRUE(Replay(trace, &out).ok());
  ASSERT_TRUE(out.diverged);
  EXPECT_FALSE(out.rule.empty()) << out.message;
  EXPECT_TRUE(out.message.starts_with(out.rule + ": ")) << out.message;
}

}  // namespace
}  // namespace statecheck::properties::windowed
