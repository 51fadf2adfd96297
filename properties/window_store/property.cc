#include "properties/window_store/property.h"

#include <rapidcheck.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/window_store_model.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/kit/family.h"
#include "properties/rapidcheck_runner.h"
#include "properties/window_store/attribution.h"
#include "properties/window_store/gtest_emitter.h"
#include "statecheck/in_memory_window_store.h"

namespace statecheck::properties::window_store {
namespace {


int64_t Saturate(Wide v) { return v > kMax ? kMax : v < kMin ? kMin : static_cast<int64_t>(v); }

// What the generator needs to know of the store: enough to aim at the edges of W3 and W6 and
// to name only iterators that are open.
struct GenState {
  int64_t retention = 0;
  int64_t stream_time = -1;
  bool closed = false;
  std::vector<int> open_iterators;
  int next_iterator = 0;
  std::vector<int64_t> recent_starts;  // The last few starts put, to hit existing windows.
  // The (key, start) of the last few puts, for point fetches to find.
  std::vector<std::pair<std::string, int64_t>> recent_puts;
};

// Keys that are byte-prefixes of each other, the empty key, and bytes that sort differently
// signed and unsigned.
const std::vector<std::string>& KeyPool() {
  static const auto* pool = new std::vector<std::string>{
      "a",    "ab",    "",    "b", "abc", "ba", std::string("\0", 1), std::string("a\0", 2),
      "\xff", "a\xff", "\x7f"};
  return *pool;
}

rc::Gen<std::string> GenKey() {
  return rc::gen::weightedOneOf<std::string>(
      {{8, rc::gen::elementOf(KeyPool())},
       {1, rc::gen::resize(4, rc::gen::container<std::string>(rc::gen::elementOf(
                                  std::vector<char>{'a', 'b', '\0', '\xff'})))}});
}

// Two values of a few hundred bytes: a few overwrites or deletes of them in one window start
// leave enough garbage for the store to compact that start's values (the in-memory store's
// arena), which short values alone never reach.
rc::Gen<std::optional<std::string>> GenValue() {
  static const auto* pool =
      new std::vector<std::string>{"v0",
                                   "v1",
                                   "v2",
                                   "v3",
                                   "",
                                   "a value longer than the small-string buffer",
                                   std::string(200, 'x') + "1",
                                   std::string(300, 'y') + "2"};
  return rc::gen::weightedOneOf<std::optional<std::string>>(
      {{2, rc::gen::just(std::optional<std::string>())},
       {9, rc::gen::map(rc::gen::elementOf(*pool),
                        [](std::string v) { return std::optional<std::string>(std::move(v)); })}});
}

// Times aimed at the retention bound (exactly streamTime - retention and one either side),
// at stream time, at recently used starts, now and then around a present-day epoch millisecond
// (after which stream time, and the times aimed at it, are there), and rarely at the ends of
// int64.
rc::Gen<int64_t> GenTime(const GenState& s) {
  const Wide st = s.stream_time;
  const Wide r = s.retention;
  std::vector<int64_t> edges = {Saturate(st - r),    Saturate(st - r - 1), Saturate(st - r + 1),
                                Saturate(st),        Saturate(st + 1),     Saturate(st + r + 1),
                                Saturate(st - r / 2)};
  edges.insert(edges.end(), s.recent_starts.begin(), s.recent_starts.end());
  return rc::gen::weightedOneOf<int64_t>(
      {{20, rc::gen::elementOf(edges)},
       {10, rc::gen::map(UniformInRange<int>(-4, 5), [st](int d) { return Saturate(st + d); })},
       {6, UniformInRange<int64_t>(-3, 40)},
       {1, UniformInRange<int64_t>(kPresentDayEpochMs - 20, kPresentDayEpochMs + 20)},
       {1, rc::gen::elementOf(std::vector<int64_t>{kMax, kMax - 1, kMin, kMin + 1})}});
}

Op GenRead(const GenState& s, OpType type) {
  Op op;
  op.type = type;
  op.read = static_cast<ReadKind>(*UniformInRange(0, kReadKindCount));
  if (ReadTakesKey(op.read)) {
    // Half the time a key just put: a single-key read then returns something (W7's order).
    op.key = !s.recent_puts.empty() && *UniformInRange(0, 2) == 0
                 ? (*rc::gen::elementOf(s.recent_puts)).first
                 : *GenKey();
  }
  if (ReadTakesKeyRange(op.read)) {
    auto bound = rc::gen::weightedOneOf<std::optional<std::string>>(
        {{1, rc::gen::just(std::optional<std::string>())},
         {4, rc::gen::map(GenKey(), [](std::string k) { return std::optional<std::string>(k); })}});
    op.key_from = *bound;
    op.key_to = *bound;
    // Mostly in order: a reversed pair is one case (W7's warning), not the common one.
    if (op.key_from && op.key_to && *op.key_from > *op.key_to && *UniformInRange(0, 4) != 0) {
      std::swap(op.key_from, op.key_to);
    }
  }
  if (ReadTakesTimeRange(op.read) && *UniformInRange(0, 4) == 0) {
    // The whole live range, from the retention bound to stream time: reads that return
    // several windows (W7's orders).
    op.time_from = Saturate(static_cast<Wide>(s.stream_time) - s.retention);
    op.time_to = s.stream_time;
  } else if (ReadTakesTimeRange(op.read)) {
    op.time_from = *GenTime(s);
    op.time_to = *GenTime(s);
    if (op.time_from > op.time_to && *UniformInRange(0, 5) != 0) {
      std::swap(op.time_from, op.time_to);
    }
  }
  return op;
}

rc::Gen<Op> GenOp(const GenState& s) {
  return rc::gen::exec([s] {
    const bool iterators = !s.open_iterators.empty();
    std::vector<std::pair<int, OpType>> weights = {
        {30, OpType::kPut},    {8, OpType::kFetch},      {12, OpType::kScan},  {6, OpType::kOpen},
        {2, OpType::kMetrics}, {1, OpType::kCloseStore}, {1, OpType::kRestore}};
    if (iterators) {
      weights.insert(weights.end(), {{8, OpType::kHasNext},
                                     {10, OpType::kNext},
                                     {4, OpType::kPeekNextKey},
                                     {4, OpType::kCloseIterator}});
    }
    const OpType type = PickWeighted(weights);
    Op op;
    op.type = type;
    switch (type) {
      case OpType::kPut:
        // A quarter of the puts go to the key and start of a recent put: an overwrite, a
        // duplicate (W5) or, with a null value, a delete of something held (W4).
        // Another quarter reuse a recent key at a new start: one key in several windows.
        switch (s.recent_puts.empty() ? 0 : *UniformInRange(0, 4)) {
          case 1:
            std::tie(op.key, op.time) = *rc::gen::elementOf(s.recent_puts);
            break;
          case 2:
            op.key = (*rc::gen::elementOf(s.recent_puts)).first;
            op.time = *GenTime(s);
            break;
          default:
            op.key = *GenKey();
            op.time = *GenTime(s);
            break;
        }
        op.value = *GenValue();
        break;
      case OpType::kFetch:
        // Often the key and start of a recent put, so that a fetch at the edges of W6 finds
        // what it asks for.
        if (!s.recent_puts.empty() && *UniformInRange(0, 2) == 0) {
          std::tie(op.key, op.time) = *rc::gen::elementOf(s.recent_puts);
        } else {
          op.key = *GenKey();
          op.time = *GenTime(s);
        }
        break;
      case OpType::kScan:
        op = GenRead(s, type);
        break;
      case OpType::kOpen:
        op = GenRead(s, type);
        op.iterator = s.next_iterator;
        break;
      case OpType::kHasNext:
      case OpType::kNext:
      case OpType::kPeekNextKey:
      case OpType::kCloseIterator:
        op.iterator = *rc::gen::elementOf(s.open_iterators);
        break;
      case OpType::kRestore: {
        // A changelog of a few puts (deletes among them), at starts around stream time: the
        // later ones can put the earlier past retention, which the restore must drop (W3).
        const int n = *UniformInRange(0, 6);
        for (int i = 0; i < n; ++i) {
          ChangelogRecord r;
          r.key = *GenKey();
          r.value = *GenValue();
          r.start = *GenTime(s);
          op.records.push_back(std::move(r));
        }
        break;
      }
      case OpType::kCloseStore:
      case OpType::kMetrics:
        break;
    }
    return op;
  });
}

void Next(GenState& s, const Op& op) {
  switch (op.type) {
    case OpType::kPut:
      if (s.closed) break;
      s.stream_time = std::max(s.stream_time, op.time);
      s.recent_starts.push_back(op.time);
      if (s.recent_starts.size() > 4) s.recent_starts.erase(s.recent_starts.begin());
      s.recent_puts.emplace_back(op.key, op.time);
      if (s.recent_puts.size() > 4) s.recent_puts.erase(s.recent_puts.begin());
      break;
    case OpType::kOpen:
      s.open_iterators.push_back(op.iterator);
      s.next_iterator = op.iterator + 1;
      break;
    case OpType::kCloseIterator:
      s.open_iterators.erase(
          std::find(s.open_iterators.begin(), s.open_iterators.end(), op.iterator));
      break;
    case OpType::kCloseStore:
      s.closed = true;
      break;
    case OpType::kRestore:
      s.closed = false;
      s.open_iterators.clear();
      s.stream_time = -1;
      for (const ChangelogRecord& r : op.records) {
        s.stream_time = std::max(s.stream_time, r.start);
        s.recent_starts.push_back(r.start);
        s.recent_puts.emplace_back(r.key, r.start);
      }
      while (s.recent_starts.size() > 4) s.recent_starts.erase(s.recent_starts.begin());
      while (s.recent_puts.size() > 4) s.recent_puts.erase(s.recent_puts.begin());
      break;
    default:
      break;
  }
}

// The store under test and the model, side by side: the model runs in every case and every
// replay, as the reference a difference of the store's is credited by; the store is checked
// against it (and against a trace's expectations), the model against the expectations alone.
class Sut {
 public:
  Sut(ReplayTarget target, std::unique_ptr<OpRunner> store, std::unique_ptr<OpRunner> model,
      std::optional<Finding> started)
      : check_store_(target != ReplayTarget::kModel),
        check_model_(target != ReplayTarget::kEngine),
        store_(std::move(store)),
        model_(std::move(model)),
        started_(std::move(started)) {}

  // What the construction broke (W1: the store's against the model's or the trace's).
  std::optional<Finding> Started() const { return started_; }

  kit::StepResult Step(const Op& op, const std::optional<Json>& expect) {
    ++index_;
    model::WindowStoreModel* reference = Reference();
    const int64_t stream_time_before = reference->stream_time();
    const bool closed_before = !reference->is_open();
    Json expected = StepResult(*model_, op);
    reference = Reference();  // After the step: a restore makes a new one.
    const bool reports = op.type == OpType::kPut || op.type == OpType::kFetch ||
                         op.type == OpType::kScan || op.type == OpType::kOpen;
    const model::WindowStoreModelCallReport report =
        reports ? reference->last_call() : model::WindowStoreModelCallReport{};
    const Json actual = check_store_ ? StepResult(*store_, op) : expected;
    auto info = iterators_.find(op.iterator);
    const window_store::Step step{
        op,
        index_,
        stream_time_before,
        closed_before,
        report,
        expected,
        actual,
        reference->retention_ms(),
        reference->window_size_ms(),
        reference->retain_duplicates(),
        OpUsesIterator(op.type) && info != iterators_.end() ? &info->second : nullptr};
    // The situations a generated step reaches (a null key, which only a hand-written trace
    // holds, reaches none).
    if (check_store_ && check_model_ && !op.null_key) NoteSituations(step, *reference);
    // The store's difference from the model, credited as the property credits it.
    const std::string rule = check_store_ && actual != expected ? StepRule(step) : "";
    kit::StepResult result;
    if (check_store_ && expect && !MatchesExpectation(*expect, actual)) {
      result.finding = Differs(rule, "engine vs trace", *expect, actual);
    } else if (check_model_ && expect && !MatchesExpectation(*expect, expected)) {
      result.finding = Differs("", "model vs trace", *expect, expected);
    } else if (check_store_ && check_model_ && actual != expected) {
      result.finding = Differs(rule, "engine vs model", expected, actual);
    } else {
      HeldAll();  // The comparison covers every field of the step.
      TrackIterators(step, *reference, &iterators_);
    }
    result.expect = std::move(expected);
    return result;
  }

  // "<what>: expected <e>, got <a>", credited to `rule`.
  static Finding Differs(std::string rule, const std::string& what, const Json& expected,
                         const Json& actual) {
    return Finding{std::move(rule),
                   what + ": expected " + expected.dump() + ", got " + actual.dump()};
  }

 private:
  model::WindowStoreModel* Reference() {
    return &dynamic_cast<model::WindowStoreModel&>(model_->store());
  }
  // A step's full result: OpRunner::Apply's, and "after": the counters and stream time.
  static Json StepResult(OpRunner& runner, const Op& op) {
    Json j = runner.Apply(op);
    j["after"] = runner.Metrics();
    return j;
  }

  const bool check_store_;
  const bool check_model_;
  std::unique_ptr<OpRunner> store_;  // Null when the target is the model.
  std::unique_ptr<OpRunner> model_;
  std::optional<Finding> started_;
  std::map<int, IteratorInfo> iterators_;  // The open iterators, by id.
  int index_ = 0;
};

struct Family {
  using Vocabulary = window_store::Vocabulary;
  using Model = GenState;
  using Sut = window_store::Sut;
  static constexpr std::string_view kStartRule = "W1";

  static Model InitialModel(const Config& config) {
    GenState initial;
    initial.retention = config.options.retention_ms;
    return initial;
  }
  static rc::Gen<Op> GenOp(const Model& state) { return window_store::GenOp(state); }
  // Shrinking may drop the open an iterator step needs: such a sequence is not a case.
  static bool Precondition(const Model& s, const Op& op) {
    if (OpUsesIterator(op.type)) {
      return std::find(s.open_iterators.begin(), s.open_iterators.end(), op.iterator) !=
             s.open_iterators.end();
    }
    return op.type != OpType::kOpen || op.iterator >= s.next_iterator;
  }
  static void Next(Model& state, const Op& op) { window_store::Next(state, op); }
};
static_assert(kit::Family<Family>);

Json ConstructionResult(const Status& s) {
  Json j{{"status", std::string(CodeName(s.code()))}};
  if (!s.ok()) j["message"] = s.message();
  return j;
}

// Builds `sut`'s store (unless the target is the model alone) and the model's, and checks the
// construction: against the header's expectation, and the store's against the model's (W1).
kit::Start<Family> StartWith(Factory factory) {
  return [factory](const Config& config, ReplayTarget target, std::unique_ptr<Sut>* out) {
    const bool check_store = target != ReplayTarget::kModel;
    const bool check_model = target != ReplayTarget::kEngine;
    std::unique_ptr<OpRunner> store, model;
    const Json model_built =
        ConstructionResult(OpRunner::Make(ModelFactory(), config.options, &model));
    if (!config.construction && model_built["status"] != "OK") {
      // Nothing would be checked: a config error is bad input, unless the trace expects it.
      return Status::InvalidArgument(
          "the model builds no store from this config: " +
          model_built.value("message", std::string()) +
          " (a trace that checks this failure says so in its header: \"construction\": "
          "{\"status\": " +
          model_built["status"].dump() + "})");
    }
    const Json store_built =
        check_store ? ConstructionResult(OpRunner::Make(factory, config.options, &store)) : Json();
    const Json expected = config.construction ? *config.construction : Json{{"status", "OK"}};
    std::optional<Finding> started;
    if (check_store && !MatchesExpectation(expected, store_built)) {
      started = Sut::Differs(store_built != model_built ? "W1" : "", "engine vs trace: construct",
                             expected, store_built);
    } else if (check_model && config.construction && !MatchesExpectation(expected, model_built)) {
      started = Sut::Differs("", "model vs trace: construct", expected, model_built);
    } else if (check_store && check_model && store_built != model_built) {
      started = Sut::Differs("W1", "engine vs model: construct", model_built, store_built);
    }
    *out = std::make_unique<Sut>(target, std::move(store), std::move(model), std::move(started));
    return Status::Ok();
  };
}

// W1's situations: which of Kafka's checks the options meet, in order.
void NoteConstructionSituations(const WindowStoreOptions& o, const Status& expected) {
  const int broken = (o.name.empty() ? 1 : 0) + (o.retention_ms < 0 ? 1 : 0) +
                     (o.window_size_ms < 0 ? 1 : 0) + (o.window_size_ms > o.retention_ms ? 1 : 0);
  ReachedIf(o.name.empty(), "W1.empty_name");
  ReachedIf(!o.name.empty() && o.retention_ms < 0, "W1.negative_retention");
  ReachedIf(!o.name.empty() && o.retention_ms >= 0 && o.window_size_ms < 0,
            "W1.negative_window_size");
  ReachedIf(!o.name.empty() && o.retention_ms >= 0 && o.window_size_ms > o.retention_ms,
            "W1.size_above_retention");
  ReachedIf(broken >= 2, "W1.first_error_wins");
  ReachedIf(expected.ok() && (o.retention_ms == 0 || o.window_size_ms == 0), "W1.zero_is_valid");
  ReachedIf(expected.ok() && o.window_size_ms == o.retention_ms && o.retention_ms > 0,
            "W1.size_equals_retention");
  ReachedIf(o.retention_ms == kMax || o.retention_ms == kMin || o.window_size_ms == kMax ||
                o.window_size_ms == kMin,
            "W1.int64_extremes");
}

}  // namespace

Factory EngineFactory() { return NewInMemoryWindowStore; }
Factory ModelFactory() { return model::NewWindowStoreModel; }

std::vector<Config> OptionMatrix() {
  std::vector<Config> out;
  for (bool dups : {false, true}) {
    for (int64_t retention : {int64_t{0}, int64_t{10}, int64_t{1'000'000}}) {
      std::vector<int64_t> sizes = {0};
      if (retention > 3) sizes.push_back(3);
      if (retention > 0) sizes.push_back(retention);
      for (int64_t size : sizes) {
        Config c;
        c.label = "ret" + std::to_string(retention) + "_size" + std::to_string(size) +
                  (dups ? "_dups" : "");
        c.options.name = "store";
        c.options.retention_ms = retention;
        c.options.window_size_ms = size;
        c.options.retain_duplicates = dups;
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

PropertyOutcome CheckMatchesModel(const Factory& sut, const Config& config,
                                  const PropertyParams& params) {
  return kit::CheckProperty<Family>("window_store/MatchesModel/" + config.label, config,
                                    StartWith(sut), params);
}

PropertyOutcome CheckConstruction(const Factory& sut, const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "window_store/ConstructionMatchesModel";
  kit::Trace<Vocabulary> failing;
  auto property = [&] {
    const CaseScope scope;
    const auto duration = rc::gen::weightedOneOf<int64_t>(
        {{4, UniformInRange<int64_t>(-3, 12)},
         {1, rc::gen::elementOf(std::vector<int64_t>{kMin, -1, 0, kMax})}});
    WindowStoreOptions options;
    options.name = *rc::gen::elementOf(std::vector<std::string>{"store", "", "w"});
    options.retention_ms = *duration;
    options.window_size_ms = *duration;
    options.retain_duplicates = *rc::gen::arbitrary<bool>();
    std::unique_ptr<OpRunner> a, b;
    const Status expected = OpRunner::Make(ModelFactory(), options, &b);
    const Status actual = OpRunner::Make(sut, options, &a);
    ++out.operations;
    failing = kit::Trace<Vocabulary>{};
    failing.config.options = options;
    failing.config.construction = ConstructionResult(expected);
    NoteConstructionSituations(options, expected);
    // Checks: W1 — construction's status (code, Kafka's message, order) against the model's
    if (actual != expected) {
      Fail(Finding{"W1", "construction of " + OptionsToJson(options).dump() + "\n  model: " +
                             expected.ToString() + "\n  store: " + actual.ToString()});
    }
    // Checks: W1 — a failed construction returns no store
    if ((a != nullptr) != actual.ok()) {
      Fail(Finding{"W1", "construction of " + OptionsToJson(options).dump() + " returned " +
                             actual.ToString() + (a ? " and a store" : " and no store")});
    }
    Held("W1");
  };
  RunProperty(property, params, &out);
  kit::SaveFailingTrace<Family>(std::move(failing), params, &out);
  return out;
}

Status Replay(const kit::Trace<Vocabulary>& trace, ReplayTarget target, const Factory& sut,
              TraceReplay* out) {
  return kit::Replay<Family>(trace, target, StartWith(sut), out);
}

TraceKindSpec TraceKind(const Factory& sut) {
  TraceKindSpec spec =
      kit::TraceKindOf<Family>("window_store", StartWith(sut), EveryReplayTarget());
  spec.emit_gtest = [](std::string_view text, const std::string& source, std::string test_name,
                       std::string* out) {
    kit::Trace<Vocabulary> trace;
    STATECHECK_RETURN_IF_ERROR(kit::ParseTrace(text, source, &trace));
    return EmitGTest(trace, source, std::move(test_name), out);
  };
  return spec;
}

FamilyEntry Entry() {
  FamilyEntry entry;
  entry.properties.push_back(
      {"window_store/ConstructionMatchesModel", "window_store",
       "WindowStoreProperty.ConstructionMatchesModel",
       [](const PropertyParams& p) { return CheckConstruction(EngineFactory(), p); }});
  for (const Config& config : OptionMatrix()) {
    entry.properties.push_back({"window_store/MatchesModel/" + config.label, "window_store",
                                "WindowStoreProperty.MatchesModel",
                                [config](const PropertyParams& p) {
                                  return CheckMatchesModel(EngineFactory(), config, p);
                                }});
    entry.properties.back().config =
        "retention_ms=" + std::to_string(config.options.retention_ms) +
        ", window_size_ms=" + std::to_string(config.options.window_size_ms) +
        ", retain_duplicates=" + (config.options.retain_duplicates ? "true" : "false");
  }
  entry.trace_kinds.push_back(TraceKind(EngineFactory()));
  return entry;
}

}  // namespace statecheck::properties::window_store
