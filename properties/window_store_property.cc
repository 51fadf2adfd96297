#include "properties/window_store_property.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "model/window_store_model.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/rapidcheck_runner.h"
#include "properties/window_store_attribution.h"
#include "statecheck/in_memory_window_store.h"

namespace statecheck::properties {
namespace {

using window_store::IteratorInfo;
using window_store::Step;
using window_store::Wide;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

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

// The systems under test: the store being checked and the model, side by side.
struct Sut {
  std::unique_ptr<OpRunner> store;
  std::unique_ptr<OpRunner> model;
  Trace* trace;
  int64_t* operations;
  std::map<int, IteratorInfo> iterators;  // The open iterators, by id.

  model::WindowStoreModel& Model() {
    return dynamic_cast<model::WindowStoreModel&>(model->store());
  }
};

using Command = rc::state::Command<GenState, Sut>;

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

class OpCommand final : public Command {
 public:
  explicit OpCommand(Op op) : op_(std::move(op)) {}

  void checkPreconditions(const GenState& s) const override {
    // Shrinking may drop the open an iterator step needs: such a sequence is not a case.
    if (OpUsesIterator(op_.type)) {
      RC_PRE(std::find(s.open_iterators.begin(), s.open_iterators.end(), op_.iterator) !=
             s.open_iterators.end());
    }
    if (op_.type == OpType::kOpen) RC_PRE(op_.iterator >= s.next_iterator);
  }

  void apply(GenState& s) const override {
    switch (op_.type) {
      case OpType::kPut:
        if (s.closed) break;
        s.stream_time = std::max(s.stream_time, op_.time);
        s.recent_starts.push_back(op_.time);
        if (s.recent_starts.size() > 4) s.recent_starts.erase(s.recent_starts.begin());
        s.recent_puts.emplace_back(op_.key, op_.time);
        if (s.recent_puts.size() > 4) s.recent_puts.erase(s.recent_puts.begin());
        break;
      case OpType::kOpen:
        s.open_iterators.push_back(op_.iterator);
        s.next_iterator = op_.iterator + 1;
        break;
      case OpType::kCloseIterator:
        s.open_iterators.erase(
            std::find(s.open_iterators.begin(), s.open_iterators.end(), op_.iterator));
        break;
      case OpType::kCloseStore:
        s.closed = true;
        break;
      case OpType::kRestore:
        s.closed = false;
        s.open_iterators.clear();
        s.stream_time = -1;
        for (const ChangelogRecord& r : op_.records) {
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

  void run(const GenState&, Sut& sut) const override {
    const int64_t stream_time_before = sut.Model().stream_time();
    const bool closed_before = !sut.Model().is_open();
    const Json expected = StepResult(*sut.model, op_);
    model::WindowStoreModel& model = sut.Model();  // After the step: a restore makes a new one.
    const bool reports = op_.type == OpType::kPut || op_.type == OpType::kFetch ||
                         op_.type == OpType::kScan || op_.type == OpType::kOpen;
    const model::WindowStoreModelCallReport report =
        reports ? model.last_call() : model::WindowStoreModelCallReport{};
    const Json actual = StepResult(*sut.store, op_);
    ++*sut.operations;
    sut.trace->steps.push_back(TraceStep{op_, expected, 0});
    auto info = sut.iterators.find(op_.iterator);
    const Step step{
        op_,
        static_cast<int>(sut.trace->steps.size()),
        stream_time_before,
        closed_before,
        report,
        expected,
        actual,
        model.retention_ms(),
        model.window_size_ms(),
        model.retain_duplicates(),
        OpUsesIterator(op_.type) && info != sut.iterators.end() ? &info->second : nullptr};
    NoteSituations(step, model);
    if (actual != expected) {
      Fail(Finding{StepRule(step), "step " + std::to_string(step.index) + ": " + OpToString(op_) +
                                       "\n  model: " + expected.dump() +
                                       "\n  store: " + actual.dump()});
    }
    HeldAll();  // The comparison covers every field of the step.
    TrackIterators(step, sut.Model(), &sut.iterators);
  }

  void show(std::ostream& os) const override { os << OpToString(op_); }

 private:
  Op op_;
};

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

// Writes the trace of the last failing (fully shrunk) case next to the outcome.
void SaveFailingTrace(const Trace& failing, const PropertyParams& params, PropertyOutcome* out) {
  if (out->passed || params.trace_dir.empty() || out->reproduce.empty()) return;
  Trace trace = failing;
  trace.info["property"] = out->property;
  trace.info["seed"] = params.seed;
  trace.info["reproduce"] = out->reproduce;
  trace.info["failure"] = out->message;
  const std::string path = TracePathFor(params, *out);
  const Status s = WriteTraceFile(path, trace);
  if (s.ok()) {
    out->trace_path = path;
  } else {
    out->message += "\n(the trace could not be saved: " + s.ToString() + ")";
  }
}

}  // namespace

WindowStoreFactory EngineWindowStoreFactory() { return NewInMemoryWindowStore; }
WindowStoreFactory ModelWindowStoreFactory() { return model::NewWindowStoreModel; }

std::vector<WindowStoreConfig> WindowStoreOptionMatrix() {
  std::vector<WindowStoreConfig> out;
  for (bool dups : {false, true}) {
    for (int64_t retention : {int64_t{0}, int64_t{10}, int64_t{1'000'000}}) {
      std::vector<int64_t> sizes = {0};
      if (retention > 3) sizes.push_back(3);
      if (retention > 0) sizes.push_back(retention);
      for (int64_t size : sizes) {
        WindowStoreConfig c;
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

PropertyOutcome CheckWindowStoreMatchesModel(const WindowStoreFactory& sut,
                                             const WindowStoreConfig& config,
                                             const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "window_store/MatchesModel/" + config.label;
  Trace failing;
  auto property = [&] {
    const CaseScope scope;
    Trace trace;
    trace.config = config.options;
    Sut s{nullptr, nullptr, &trace, &out.operations, {}};
    const Status built = OpRunner::Make(sut, config.options, &s.store);
    if (!built.ok()) {  // A valid configuration must build.
      Fail(Finding{"W1", "construction of " + OptionsToJson(config.options).dump() +
                             " failed: " + built.ToString()});
    }
    RC_ASSERT(OpRunner::Make(ModelWindowStoreFactory(), config.options, &s.model).ok());
    GenState initial;
    initial.retention = config.options.retention_ms;
    try {
      rc::state::check(initial, s, [](const GenState& state) {
        return rc::gen::map(GenOp(state), [](Op op) {
          return std::shared_ptr<const Command>(std::make_shared<OpCommand>(std::move(op)));
        });
      });
    } catch (...) {
      failing = std::move(trace);  // The last failing case is the shrunk one.
      throw;
    }
  };
  RunProperty(property, params, &out);
  SaveFailingTrace(failing, params, &out);
  return out;
}

PropertyOutcome CheckWindowStoreConstruction(const WindowStoreFactory& sut,
                                             const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "window_store/ConstructionMatchesModel";
  Trace failing;
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
    const Status expected = OpRunner::Make(ModelWindowStoreFactory(), options, &b);
    const Status actual = OpRunner::Make(sut, options, &a);
    ++out.operations;
    failing = Trace{};
    failing.config = options;
    failing.construction = Json{{"status", std::string(CodeName(expected.code()))}};
    if (!expected.ok()) (*failing.construction)["message"] = expected.message();
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
  SaveFailingTrace(failing, params, &out);
  return out;
}

}  // namespace statecheck::properties
