#include "properties/windowed/property.h"

#include <rapidcheck.h>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "model/windowed_aggregation_model.h"
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/kit/family.h"
#include "properties/rapidcheck_runner.h"
#include "properties/windowed/aggregation_stores.h"
#include "properties/windowed/sut.h"
#include "statecheck/log.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck::properties::windowed {
namespace {

// The generator's state: where the timestamps are, in window steps. It moves forward as records
// are appended, so that stream time keeps advancing through a case — windows keep closing and
// emit-final keeps attempting (E3–E5) — while records up to two steps behind it stay late or
// out of order (E1).
struct GenState {
  const Config* config = nullptr;  // The case's configuration (the generator's window step).
  int64_t cursor = 0;
  // Where the cursor counts from: 0 until an append jumps it (JumpOrigin) to a present-day epoch
  // millisecond or to just below INT64_MAX; always a multiple of the window step, so that
  // timestamps keep landing on window bounds.
  int64_t origin = 0;
};

// The generator's unit of time: the advance of time windows, the time difference or the gap.
int64_t WindowStep(const Config& config) {
  return std::max<int64_t>(1,
                           config.kind == WindowKind::kTime ? config.advance_ms : config.size_ms);
}

// Where an append's records count from: now and then stream time jumps forward, as it does when
// a topology starts on present-day data — to a random epoch millisecond (2025-12-01 ± 10^10 ms),
// or (time windows) to 2 window steps and a window (size + grace) below INT64_MAX, past which
// windows end at INT64_MAX and records are clamped to it. The cursor restarts from the new
// origin. Sliding and session windows stay below 2^62: their models' bounds (ts + 1 + D,
// end + gap) do not saturate. The in-memory window store's configurations never jump: its own
// expiry (Kafka's, by the largest start it holds) would take windows the model keeps — the
// property gives it a retention above the generator's span instead (kInMemoryRetentionMs).
std::pair<int64_t, int64_t> JumpOrigin(const Config& config, int64_t origin, int64_t cursor) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (config.in_memory_store) return {origin, cursor};
  const int64_t step = WindowStep(config);
  const int jump = PickWeighted<int>({{40, 0}, {1, 1}, {1, 2}});
  if (jump == 1 && origin < kPresentDayEpochMs / 2) {
    const int64_t epoch =
        kPresentDayEpochMs + *UniformInRange<int64_t>(-10'000'000'000, 10'000'000'000);
    return {epoch / step * step, 0};
  }
  const int64_t steps = step > kMax / 2 ? kMax : 2 * step;
  const int64_t margin = SaturatingAdd(SaturatingAdd(config.size_ms, config.grace_ms), steps);
  if (jump == 2 && config.kind == WindowKind::kTime && margin < kMax / 2 &&
      origin < kMax - 2 * margin) {
    return {(kMax - margin) / step * step, 0};
  }
  return {origin, cursor};
}

// An input record's value, drawn inside a generator: for a count the default, without a draw
// (it is not read, and a count's cases stay those of its seed); for a reduce or an aggregate a
// short string, so that the aggregate shows the order the window took them in, and now and then
// a null value (a reduce skips it; an aggregate adds "null").
std::optional<std::string> DrawRecordValue(model::AggregatorKind aggregator) {
  if (aggregator == model::AggregatorKind::kCount) return kDefaultRecordValue;
  return *rc::gen::elementOf(
      std::vector<std::optional<std::string>>{"1", "2", "3", "4", "5", std::nullopt});
}

rc::Gen<Op> GenOp(const Config& config, const GenState& state) {
  return rc::gen::exec([config, cursor = state.cursor, origin = state.origin] {
    Op op;
    // The clock advances often enough that emission is not held back by the emit interval for
    // most of a case (E5: an attempt exactly one interval after the last, held-back windows
    // emitted later).
    op.type = PickWeighted<OpType>({{6, OpType::kAppend},
                                    {6, OpType::kProcess},
                                    {4, OpType::kAdvanceClock},
                                    {2, OpType::kCommit},
                                    {1, OpType::kCrash},
                                    {1, OpType::kRestart},
                                    {1, OpType::kFetch},
                                    {1, OpType::kFetchAll},
                                    {1, OpType::kFetchRange},
                                    {1, OpType::kMetrics}});
    int64_t cursor_after = cursor;
    int64_t origin_after = origin;
    // Timestamps land near window starts, ends and end + grace: multiples of the window step
    // (the advance; the time difference or the gap for sliding and session windows), one either
    // side, grace past them, a window size past them; now and then none.
    const int64_t step = WindowStep(config);
    switch (op.type) {
      case OpType::kAppend: {
        const int n = *UniformInRange<int>(1, 4);
        std::tie(origin_after, cursor_after) = JumpOrigin(config, origin, cursor);
        const int64_t at = cursor_after;  // The records are around the cursor before it moves.
        cursor_after += *UniformInRange<int64_t>(0, 3);  // 0, 1 or 2.
        for (int i = 0; i < n; ++i) {
          // Keys that are byte-prefixes of others, and the empty ("null") key now and then.
          std::string key = *rc::gen::elementOf(std::vector<std::string>{"a", "ab", "b", "a", ""});
          const int64_t base = SaturatingAdd(
              origin_after,
              std::max<int64_t>(0, at + *UniformInRange<int64_t>(-2, 3)) * step);  // -2..2.
          // And past the window [base, base + size] (time windows: [base, base + size)), by
          // grace - 1, grace and grace + 1: stream time one below its close bound, at it and
          // one past it (E1's and E3's boundaries for a record at base that comes later).
          const int64_t closing =
              SaturatingAdd(SaturatingAdd(base, config.size_ms), config.grace_ms);
          const int64_t ts = *rc::gen::elementOf(std::vector<int64_t>{
              base, base - 1, SaturatingAdd(base, 1), SaturatingAdd(base, config.grace_ms),
              SaturatingAdd(base, config.grace_ms) - 1, SaturatingAdd(base, config.size_ms),
              closing - 1, closing, SaturatingAdd(closing, 1), -1});
          op.records.push_back(
              {std::move(key), ts < -1 ? 0 : ts, DrawRecordValue(config.aggregator)});
        }
        break;
      }
      case OpType::kProcess:
        op.n = *UniformInRange<int64_t>(1, 8);
        break;
      case OpType::kAdvanceClock:
        // Exactly the emit interval half the time (E5's boundary; with interval 0, no advance).
        op.n = *rc::gen::elementOf(
            std::vector<int64_t>{1, config.emit_interval_ms, config.emit_interval_ms, 200});
        break;
      case OpType::kFetch:
      case OpType::kFetchAll:
      case OpType::kFetchRange: {
        // Queries of every window half the time, else of the windows around the cursor; a third
        // backward. A key range's bounds fall on, between and past the keys (an inverted range
        // included), std::nullopt (unbounded) among them.
        const std::vector<std::string> keys = {"a", "ab", "b"};
        if (op.type == OpType::kFetch) op.key = *rc::gen::elementOf(keys);
        if (op.type == OpType::kFetchRange) {
          const std::vector<std::optional<std::string>> bounds = {std::nullopt, "a", "aa",
                                                                  "ab",         "b", "c"};
          op.key_from = *rc::gen::elementOf(bounds);
          op.key_to = *rc::gen::elementOf(bounds);
        }
        op.backward = *rc::gen::inRange(0, 3) == 0;
        if (*rc::gen::arbitrary<bool>()) {
          op.from = std::numeric_limits<int64_t>::min();
          op.to = std::numeric_limits<int64_t>::max();
        } else {
          const int64_t base = SaturatingAdd(origin, std::max<int64_t>(0, cursor - 1) * step);
          op.from = base - config.size_ms;
          op.to = SaturatingAdd(base, config.size_ms);
        }
        break;
      }
      default:
        break;
    }
    op.cursor_after = cursor_after;
    op.origin_after = origin_after;
    return op;
  });
}

// Runs `records` through a fresh task with `processor`, then commits; the output records as
// "<windowed key>=<value>@<timestamp>", grouped by key (the part after the second colon).
Status RunThrough(const std::string& dir, std::unique_ptr<Processor> processor,
                  const std::vector<Record>& records,
                  std::map<std::string, std::vector<std::string>>* by_key) {
  const faults::FaultEnv env = NewCaseEnv();
  std::unique_ptr<Log> log;
  Status s = OpenTaskLog(dir, env.env.get(), &log);
  for (const Record& r : records) {
    int64_t offset = 0;
    if (s.ok()) s = log->Append(kInput, r.key, r.value, r.timestamp, &offset);
  }
  if (s.ok()) s = log->Sync();
  const TaskOptions o =
      TaskOptionsFor(dir, env.env.get(), log.get(), std::make_shared<ManualClock>());
  std::unique_ptr<Task> task;
  if (s.ok()) s = OpenTask(o, std::move(processor), &task);
  int64_t processed = 0;
  if (s.ok()) s = task->Process(static_cast<int64_t>(records.size()), &processed);
  if (s.ok()) s = task->Close();
  std::vector<LogRecord> out;
  if (s.ok()) s = log->Read(kOutput, 0, 1 << 30, IsolationLevel::kReadCommitted, &out);
  if (s.code() == Status::Code::kOutOfRange) s = Status::Ok();  // No output at all.
  if (!s.ok()) return s;
  for (const LogRecord& r : out) {
    const size_t colon = r.key.find(':', r.key.find(':') + 1);
    (*by_key)[r.key.substr(colon + 1)].push_back(r.key + "=" + r.value.value_or("null") + "@" +
                                                 std::to_string(r.timestamp));
  }
  return Status::Ok();
}

// When emit-final and suppress(emit-eager) differ: the rule emit-final's own output breaks, by the
// model of emit-final (interval 0, as the differential runs it) — a closed window missing or a
// window emitted early or wrong → E3, an attempt none of whose windows was emitted → E5 —, or,
// when emit-final's output is the model's (the suppressed side is wrong), E1 if the suppressed
// side has a window the model dropped a late record from, else E7.
std::string RuleOfEmitFinalDifference(
    const Config& config, const std::vector<Record>& input,
    const std::map<std::string, std::vector<std::string>>& final_out,
    const std::map<std::string, std::vector<std::string>>& suppressed_out) {
  model::WindowedModelConfig mc;
  mc.size_ms = config.size_ms;
  mc.advance_ms = config.advance_ms;
  mc.grace_ms = config.grace_ms;
  mc.emit_final = true;
  mc.emit_interval_ms = 0;
  mc.aggregator = config.aggregator;
  model::WindowedAggregationModel model(mc);
  for (const Record& r : input) model.AppendInput(r.key, r.timestamp, r.value);
  model.Process(static_cast<int64_t>(input.size()), 0);
  model.Commit();
  const std::vector<model::WindowedOutput>& out = model.committed_output();
  const std::vector<model::EmitInfo>& emits = model.committed_emits();
  std::map<std::string, std::vector<std::string>> expected;
  std::set<std::string> emitted_windows;  // By emit-final.
  for (const auto& [key, list] : final_out) {
    for (const std::string& e : list) emitted_windows.insert(e.substr(0, e.find('=')));
  }
  for (const model::WindowedOutput& o : out) {
    const std::string key = o.key.substr(o.key.find(':', o.key.find(':') + 1) + 1);
    if (key == "~flush") continue;
    expected[key].push_back(o.key + "=" + o.value + "@" + std::to_string(o.timestamp));
  }
  std::map<std::string, std::vector<std::string>> actual = final_out;
  bool same = true;
  for (const auto& [key, list] : expected) same &= actual[key] == list;
  for (const auto& [key, list] : final_out) same &= expected[key] == list;
  if (same) {
    // The suppressed side has a window of a record the model dropped as late: E1's rule.
    for (const auto& [key, list] : suppressed_out) {
      for (const std::string& e : list) {
        if (model.DroppedLateFrom(e.substr(0, e.find('=')))) return "E1";
      }
    }
    return "E7";
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (emitted_windows.count(out[i].key) || out[i].key.find(":~flush") != std::string::npos) {
      continue;
    }
    // The first window the model emits and emit-final never did: was its whole attempt missed?
    bool any = false;
    for (size_t j = 0; j < out.size(); ++j) {
      any |= emits[j].attempt == emits[i].attempt && emitted_windows.count(out[j].key) > 0;
    }
    return any || !emits[i].at_interval ? "E3" : "E5";
  }
  return "E3";
}

// The E7 situations a differential case reaches: from its input (`records`, in order, without
// the closing record) and what emit-final gave per key.
void NoteE7Situations(const Config& config, const std::vector<Record>& records,
                      const std::map<std::string, std::vector<std::string>>& final_out) {
  int64_t stream_time = -1;
  for (const Record& r : records) {
    if (config.aggregator == model::AggregatorKind::kReduce && !r.value) continue;  // Skipped.
    const int64_t ts = r.timestamp;
    const bool out_of_order = ts < stream_time;
    stream_time = std::max(stream_time, ts);
    int accepted = 0, dropped = 0;
    bool by_grace = false;
    for (int64_t start = 0; start <= ts; start += config.advance_ms) {
      const int64_t end = start + config.size_ms;
      if (ts >= end) continue;
      if (end > stream_time - config.grace_ms) {
        ++accepted;
        by_grace |= end <= stream_time;
      } else {
        ++dropped;
      }
    }
    if (out_of_order && accepted > 0) Reached("E7.out_of_order");
    if (accepted == 0 && dropped > 0) Reached("E7.late_dropped");
    if (accepted >= 2) Reached("E7.hopping_overlap");
    if (by_grace) Reached("E7.within_grace");
  }
  for (const auto& [key, emitted] : final_out) {
    if (emitted.size() >= 2) Reached("E7.several_windows_per_key");
  }
}

struct Family {
  using Vocabulary = windowed::Vocabulary;
  using Model = GenState;
  using Sut = windowed::Sut;
  // A failed start is credited by the Sut (Sut::Started): the rule of the configuration's output.
  static constexpr std::string_view kStartRule = "";

  // `config` outlives the case: kit::CheckProperty holds it.
  static Model InitialModel(const Config& config) {
    GenState state;
    state.config = &config;
    return state;
  }
  static rc::Gen<Op> GenOp(const Model& state) { return windowed::GenOp(*state.config, state); }
  static bool Precondition(const Model&, const Op&) { return true; }
  // An append moves the generator's aim to where it was drawn to.
  static void Next(Model& state, const Op& op) {
    if (op.type != OpType::kAppend) return;
    state.cursor = op.cursor_after;
    state.origin = op.origin_after;
  }
};
static_assert(kit::Family<Family>);

// A task running the configuration's aggregation (each processor wrapped by `wrap`, for tests)
// beside its model, in a scratch directory of its own.
kit::Start<Family> StartWith(ProcessorWrapper wrap) {
  return [wrap](const Config& config, ReplayTarget, std::unique_ptr<Sut>* out) {
    auto sut = std::make_unique<Sut>(ScratchDirectory("windowed"), config, wrap);
    const Status s = sut->Start();
    if (s.code() == Status::Code::kInvalidArgument) return s;  // The configuration cannot run.
    if (!s.ok()) sut->set_started(Finding(sut->OutputRule(), "starting the task: " + s.ToString()));
    *out = std::move(sut);
    return Status::Ok();
  };
}

}  // namespace

bool IsE7WindowShape(const Config& config) {
  return config.kind == WindowKind::kTime && !config.emit_final && !config.in_memory_store &&
         !config.suppress && !AtLeastOnce(config);
}

std::vector<Config> Matrix() {
  const std::map<std::string, std::string> eos = {{"processing.guarantee", "exactly_once_v2"}};
  const std::map<std::string, std::string> eos_ru = {
      {"processing.guarantee", "exactly_once_v2"},
      {"default.state.isolation.level", "READ_UNCOMMITTED"}};
  const std::map<std::string, std::string> alos = {{"processing.guarantee", "at_least_once"}};
  auto time = [](std::string label, int64_t size, int64_t advance, int64_t grace, bool final,
                 std::map<std::string, std::string> streams) {
    Config c;
    c.label = std::move(label);
    c.size_ms = size;
    c.advance_ms = advance;
    c.grace_ms = grace;
    c.emit_final = final;
    c.streams_config = std::move(streams);
    return c;
  };
  // Emit interval 0 (as Kafka's tests set it): every attempt comes exactly one interval after the
  // last (E5's boundary).
  auto interval_zero = [](Config c) {
    c.emit_interval_ms = 0;
    return c;
  };
  auto in_memory = [](Config c) {
    c.in_memory_store = true;
    return c;
  };
  auto with = [](model::AggregatorKind aggregator, Config c) {
    c.aggregator = aggregator;
    return c;
  };
  auto suppressed = [](Config c) {
    c.suppress = true;
    return c;
  };
  // Materialized.withRetention: a store that keeps (and queries see) windows past size + grace.
  auto retained = [](int64_t retention, Config c) {
    c.retention_ms = retention;
    return c;
  };
  // Unlimited windows from `start` (emit-eager only, E8): records before it fall in no window.
  auto unlimited = [&time](std::string label, int64_t start,
                           std::map<std::string, std::string> streams) {
    Config c = time(std::move(label), 10, 10, 0, false, std::move(streams));
    c.kind = WindowKind::kUnlimited;
    c.start_ms = start;
    return c;
  };
  auto sliding = [&time](std::string label, int64_t difference, int64_t grace, bool final,
                         std::map<std::string, std::string> streams) {
    Config c = time(std::move(label), difference, difference, grace, final, std::move(streams));
    c.kind = WindowKind::kSliding;
    return c;
  };
  auto session = [&time](std::string label, int64_t gap, int64_t grace, bool final,
                         std::map<std::string, std::string> streams) {
    Config c = time(std::move(label), gap, gap, grace, final, std::move(streams));
    c.kind = WindowKind::kSession;
    return c;
  };
  // The order is the campaign's (it runs a family's properties in this order when its time is
  // short): the first few reach every situation of E1–E7 and E10 between them — hopping windows
  // both ways (and E7's differential), sessions both ways, at-least-once.
  return {
      time("hopping_final", 10, 4, 3, true, eos),
      time("hopping_eager", 10, 4, 3, false, eos),
      interval_zero(session("session_final", 5, 3, true, eos)),
      session("session_eager_alos", 5, 3, false, alos),
      time("hopping_final_alos", 10, 4, 3, true, alos),
      sliding("sliding_final", 5, 2, true, eos),
      time("tumbling_eager", 10, 10, 0, false, eos),
      time("tumbling_final", 10, 10, 0, true, eos),
      sliding("sliding_eager", 10, 0, false, eos),
      session("session_eager", 5, 0, false, eos),
      time("hopping_final_ru", 10, 4, 3, true, eos_ru),
      time("tumbling_eager_alos", 10, 10, 0, false, alos),
      in_memory(time("tumbling_final_inmem", 10, 10, 0, true, eos)),
      in_memory(time("hopping_eager_inmem_alos", 10, 4, 3, false, alos)),
      sliding("sliding_final_ru", 5, 2, true, eos_ru),
      sliding("sliding_eager_alos", 3, 2, false, alos),
      sliding("sliding_final_d0", 0, 2, true, eos),
      session("session_final_ru", 5, 3, true, eos_ru),
      // Kafka's test aggregators (model::AggregatorKind): values in the order windows took them.
      with(model::AggregatorKind::kReduce, time("hopping_reduce_eager", 10, 4, 3, false, eos)),
      with(model::AggregatorKind::kAggregate,
           time("tumbling_aggregate_final_alos", 10, 10, 0, true, alos)),
      unlimited("unlimited_eager", 0, eos),
      // suppress(untilWindowCloses) as an operator after the emit-eager aggregation (E7).
      suppressed(time("hopping_suppressed", 10, 4, 3, false, eos)),
      suppressed(time("tumbling_suppressed_alos", 10, 10, 0, false, alos)),
      with(model::AggregatorKind::kReduce, unlimited("unlimited_reduce_alos", 20, alos)),
      retained(25, time("hopping_final_retained", 10, 5, 2, true, eos)),
      retained(30, time("tumbling_eager_retained_alos", 10, 10, 0, false, alos)),
      // suppress over sliding and session windows: not emit-final's output (E7).
      suppressed(sliding("sliding_suppressed", 5, 2, false, eos)),
      suppressed(session("session_suppressed_alos", 5, 3, false, alos)),
      // Values, not counts, over sliding and session windows: a copied sliding window folds on
      // from its source's aggregate, and a session merge goes through the merger (E2, E3).
      with(model::AggregatorKind::kAggregate, sliding("sliding_aggregate_eager", 5, 2, false, eos)),
      with(model::AggregatorKind::kReduce, sliding("sliding_reduce_final_alos", 5, 2, true, alos)),
      with(model::AggregatorKind::kAggregate, session("session_aggregate_eager", 5, 3, false, eos)),
      with(model::AggregatorKind::kReduce,
           interval_zero(session("session_reduce_final_alos", 5, 3, true, alos))),
  };
}

PropertyOutcome CheckMatchesModel(const Config& config, const PropertyParams& params) {
  return CheckMatchesModel(config, params, nullptr);
}

PropertyOutcome CheckMatchesModel(const Config& config, const PropertyParams& params,
                                  const ProcessorWrapper& wrap) {
  return kit::CheckProperty<Family>("windowed/MatchesModel/" + config.label, config,
                                    StartWith(wrap), params);
}

Status Replay(const kit::Trace<Vocabulary>& trace, TraceReplay* out) {
  return kit::Replay<Family>(trace, ReplayTarget::kBoth, StartWith(nullptr), out);
}

PropertyOutcome CheckEmitFinalEqualsSuppressedEager(const Config& config,
                                                    const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "windowed/EmitFinalEqualsSuppressedEager/" + config.label;
  auto property = [&] {
    const CaseScope scope;
    const auto drawn = *rc::gen::container<std::vector<std::pair<std::string, int64_t>>>(
        rc::gen::pair(rc::gen::elementOf(std::vector<std::string>{"a", "ab", "b"}),
                      rc::gen::inRange<int64_t>(0, 60)));
    std::vector<Record> records;
    for (const auto& [key, ts] : drawn) {
      records.push_back({key, ts, DrawRecordValue(config.aggregator)});
    }
    std::vector<Record> input = records;
    int64_t max_ts = 0;
    for (const Record& r : input) max_ts = std::max(max_ts, r.timestamp);
    // Late enough to close every window, for both: end + grace <= its timestamp.
    input.push_back({"~flush", max_ts + config.size_ms + config.grace_ms});
    out.operations += static_cast<int64_t>(input.size());
    TimeWindows windows;
    if (const Status w = WindowsOf(config, &windows); !w.ok()) {
      Fail(Finding("E7", "the time windows: " + w.ToString()));
    }
    TimeWindowedAggregationOptions a;
    a.windows = windows;
    a.emit_interval_ms = 0;
    a.aggregator = AggregatorOf(config.aggregator);
    a.logger = NullLogger();
    std::map<std::string, std::vector<std::string>> final_out, suppressed_out;
    std::unique_ptr<Processor> final_p, suppressed_p;
    a.emit = EmitStrategy::kOnWindowClose;
    if (const Status f = NewTimeWindowedAggregation(a, &final_p); !f.ok()) {
      Fail(Finding("E7", "the emit-final aggregation: " + f.ToString()));
    }
    a.emit = EmitStrategy::kOnWindowUpdate;
    if (const Status f = NewSuppressedTimeWindowedAggregation(a, &suppressed_p); !f.ok()) {
      Fail(Finding("E7", "the suppressed emit-eager aggregation: " + f.ToString()));
    }
    const std::string dir = ScratchDirectory("e7");
    const Status final_run = RunThrough(dir + "/final", std::move(final_p), input, &final_out);
    const Status suppressed_run =
        RunThrough(dir + "/suppressed", std::move(suppressed_p), input, &suppressed_out);
    auto fail = [](const std::string& what) { Fail(Finding("E7", what)); };
    if (!final_run.ok()) fail("the emit-final run failed: " + final_run.ToString());
    if (!suppressed_run.ok()) {
      fail("the suppress(emit-eager) run failed: " + suppressed_run.ToString());
    }
    final_out.erase("~flush");
    suppressed_out.erase("~flush");
    NoteE7Situations(config, records, final_out);
    std::set<std::string> keys;
    for (const auto& [key, emitted] : final_out) keys.insert(key);
    for (const auto& [key, emitted] : suppressed_out) keys.insert(key);
    for (const std::string& key : keys) {
      // Checks: E7 — per key, emit-final's output equals suppress(emit-eager)'s
      if (final_out[key] == suppressed_out[key]) continue;
      std::string a_list, b_list;
      for (const std::string& e : final_out[key]) a_list += " " + e;
      for (const std::string& e : suppressed_out[key]) b_list += " " + e;
      const std::string what =
          "for key " + key + " emit-final gave" + (a_list.empty() ? " nothing" : a_list) +
          "; suppress(emit-eager) gave" + (b_list.empty() ? " nothing" : b_list);
      // Which side is wrong: emit-final's own output against the model's breaks E3 (or E5).
      const std::string rule = RuleOfEmitFinalDifference(config, input, final_out, suppressed_out);
      Fail(Finding(rule, what + (rule == "E7"   ? ""
                                 : rule == "E1" ? "; suppress(emit-eager) took a late record"
                                                : "; emit-final differs from the model")));
    }
    Held("E7");
  };
  RunProperty(property, params, &out);
  return out;
}

FamilyEntry Entry() {
  FamilyEntry entry;
  for (const Config& config : Matrix()) {
    entry.properties.push_back(
        {"windowed/MatchesModel/" + config.label, "windowed",
         "WindowedAggregationProperty.MatchesModel",
         [config](const PropertyParams& p) { return CheckMatchesModel(config, p); },
         /*batch_divisor=*/8});
    entry.properties.back().config = ConfigToJson(config).dump();
    if (IsE7WindowShape(config)) {
      entry.properties.push_back({"windowed/EmitFinalEqualsSuppressedEager/" + config.label,
                                  "windowed",
                                  "WindowedAggregationDifferential.EmitFinalEqualsSuppressedEager",
                                  [config](const PropertyParams& p) {
                                    return CheckEmitFinalEqualsSuppressedEager(config, p);
                                  },
                                  /*batch_divisor=*/8});
      entry.properties.back().config = ConfigToJson(config)["window"].dump();
    }
  }
  entry.trace_kinds.push_back(kit::TraceKindOf<Family>("windowed", StartWith(nullptr)));
  return entry;
}

}  // namespace statecheck::properties::windowed
