#include "properties/windowed_aggregation_property.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <filesystem>
#include <sstream>

#include "model/windowed_aggregation_model.h"
#include "properties/aggregation_stores.h"
#include "properties/generators.h"
#include "properties/rapidcheck_runner.h"
#include "statecheck/log.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck::properties {
namespace {

enum class WOpType { kAppend, kProcess, kAdvanceClock, kCommit, kCrash, kRestart };
constexpr const char* kWOpNames[] = {"append", "process", "advanceClock",
                                     "commit", "crash",   "restart"};

struct WOp {
  WOpType type = WOpType::kCommit;
  std::vector<std::pair<std::string, int64_t>> records;  // kAppend: (key, timestamp or -1).
  int64_t n = 0;                                         // kProcess: records; kAdvanceClock: ms.
};

std::string WOpToString(const WOp& op) {
  std::ostringstream out;
  out << "{\"op\":\"" << kWOpNames[static_cast<int>(op.type)] << "\"";
  if (op.type == WOpType::kAppend) {
    out << ",\"records\":[";
    for (size_t i = 0; i < op.records.size(); ++i) {
      out << (i ? "," : "") << "[\"" << op.records[i].first << "\"," << op.records[i].second << "]";
    }
    out << "]";
  }
  if (op.type == WOpType::kProcess) out << ",\"max_records\":" << op.n;
  if (op.type == WOpType::kAdvanceClock) out << ",\"ms\":" << op.n;
  return out.str() + "}";
}

std::string Show(const std::vector<model::WindowedOutput>& out) {
  std::string s = "[";
  for (size_t i = 0; i < out.size(); ++i) {
    s += (i ? ", " : "") + out[i].key + "=" + out[i].value + "@" + std::to_string(out[i].timestamp);
  }
  return s + "]";
}

constexpr char kInput[] = "input";
constexpr char kOutput[] = "output";
constexpr int64_t kEmitIntervalMs = 50;

// The windows of `config`.
Status WindowsOf(const WindowedAggregationConfig& config, TimeWindows* out) {
  TimeWindows tumbling;
  STATECHECK_RETURN_IF_ERROR(
      TimeWindows::OfSizeAndGrace(config.size_ms, config.grace_ms, &tumbling));
  return tumbling.AdvanceBy(config.advance_ms, out);
}

// A task's log under `dir`/log.
Status OpenTaskLog(const std::string& dir, std::unique_ptr<Log>* log) {
  LogOptions lo;
  lo.directory = dir + "/log";
  lo.logger = NullLogger();
  return OpenLog(lo, log);
}

// The options of a task reading kInput and writing kOutput, its stores under `dir`/state.
TaskOptions TaskOptionsFor(const std::string& dir, Log* log, std::shared_ptr<Clock> clock) {
  TaskOptions o;
  o.application_id = "app";
  o.input_partition = kInput;
  o.output_partition = kOutput;
  o.state_directory = dir + "/state";
  o.log = log;
  o.clock = std::move(clock);
  o.logger = NullLogger();
  return o;
}

class WindowedSut {
 public:
  WindowedSut(std::string dir, const WindowedAggregationConfig& config, int64_t* operations)
      : dir_(std::move(dir)), config_(config), operations_(operations) {
    model::WindowedModelConfig mc;
    mc.size_ms = config.size_ms;
    mc.advance_ms = config.advance_ms;
    mc.grace_ms = config.grace_ms;
    mc.emit_final = config.emit_final;
    mc.emit_interval_ms = kEmitIntervalMs;
    model_ = std::make_unique<model::WindowedAggregationModel>(mc);
  }
  ~WindowedSut() {
    task_.reset();
    log_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string Start() {
    task_.reset();
    log_.reset();
    Status s = OpenTaskLog(dir_, &log_);
    if (!s.ok()) return "opening the log: " + s.ToString();
    TimeWindows windows;
    s = WindowsOf(config_, &windows);
    TimeWindowedAggregationOptions a;
    a.windows = windows;
    a.emit = config_.emit_final ? EmitStrategy::kOnWindowClose : EmitStrategy::kOnWindowUpdate;
    a.emit_interval_ms = kEmitIntervalMs;
    stats_ = std::make_shared<AggregationStats>();
    a.stats = stats_;
    a.logger = NullLogger();
    std::unique_ptr<Processor> processor;
    if (s.ok()) s = NewTimeWindowedAggregation(a, &processor);
    if (!s.ok()) return "the aggregation: " + s.ToString();
    TaskOptions o = TaskOptionsFor(dir_, log_.get(), clock_);
    o.commit_interval_ms = int64_t{1} << 40;  // Commits only when the steps say.
    s = ResolveStateConfig(config_.streams_config, &o.config);
    if (s.ok()) s = OpenTask(o, std::move(processor), &task_);
    return s.ok() ? "" : "opening the task: " + s.ToString();
  }

  std::string Step(const WOp& op) {
    ++*operations_;
    ++steps_;
    std::string why = Apply(op);
    if (why.empty()) why = Check();
    return why.empty() ? ""
                       : "step " + std::to_string(steps_) + ": " + WOpToString(op) + "\n  " + why;
  }

 private:
  std::string Apply(const WOp& op) {
    switch (op.type) {
      case WOpType::kAppend: {
        for (const auto& [key, ts] : op.records) {
          int64_t offset = 0;
          const Status s = log_->Append(kInput, key, "v", ts, &offset);
          if (!s.ok()) return "appending: " + s.ToString();
          model_->AppendInput(key, ts);
        }
        const Status s = log_->Sync();
        return s.ok() ? "" : "syncing: " + s.ToString();
      }
      case WOpType::kProcess: {
        int64_t processed = 0;
        const Status s = task_->Process(op.n, &processed);
        if (!s.ok()) return "Process: " + s.ToString();
        const int64_t expected = model_->Process(op.n, clock_->NowMs());
        if (processed != expected) {
          return "processed " + std::to_string(processed) + ", the model " +
                 std::to_string(expected);
        }
        return "";
      }
      case WOpType::kAdvanceClock:
        clock_->Advance(op.n);
        return "";
      case WOpType::kCommit: {
        const Status s = task_->Commit();
        if (!s.ok()) return "Commit: " + s.ToString();
        model_->Commit();
        return "";
      }
      case WOpType::kCrash:
        task_->Abandon();
        model_->Crash();
        return Restarted();
      case WOpType::kRestart: {
        const Status s = task_->Close();
        if (!s.ok()) return "Close: " + s.ToString();
        model_->Restart();
        return Restarted();
      }
    }
    return "unknown op";
  }

  // After a restart: the store holds exactly the committed aggregates.
  std::string Restarted() {
    if (std::string why = Start(); !why.empty()) return why;
    std::map<std::string, std::string> store;
    const Status s =
        ReadTimeWindowAggregates(*task_->Store("agg")->NewQueryView(), config_.size_ms, &store);
    if (!s.ok()) return "reading the store: " + s.ToString();
    const std::map<std::string, std::string> expected = model_->CommittedWindows();
    if (store != expected) {
      return "E6: after the restart the store holds " + std::to_string(store.size()) +
             " window aggregates that differ from the " + std::to_string(expected.size()) +
             " of the last commit: " + DescribeDifference(store, expected);
    }
    return "";
  }

  std::string Check() {
    std::vector<LogRecord> records;
    Status s = log_->Read(kOutput, 0, 1 << 30, IsolationLevel::kReadCommitted, &records);
    if (!s.ok()) return "reading the output: " + s.ToString();
    std::vector<model::WindowedOutput> output;
    for (const LogRecord& r : records)
      output.push_back({r.key, r.value.value_or("null"), r.timestamp});
    if (output != model_->committed_output()) {
      return std::string(config_.emit_final ? "E3/E6" : "E2/E6") + ": committed output " +
             Show(output) + ", the model " + Show(model_->committed_output());
    }
    CommittedOffsets c;
    s = log_->GetCommittedOffsets(task_->OffsetsGroup(), &c);
    const int64_t committed = s.ok() && c.offsets.count(kInput) ? c.offsets.at(kInput) : 0;
    if (committed != model_->committed_input_offset()) {
      return "C1: committed input offset " + std::to_string(committed) + ", the model " +
             std::to_string(model_->committed_input_offset());
    }
    if (stats_->dropped_records != model_->dropped_records()) {
      return "E1: the task dropped " + std::to_string(stats_->dropped_records) +
             " records, the model " + std::to_string(model_->dropped_records());
    }
    return "";
  }

  const std::string dir_;
  const WindowedAggregationConfig config_;
  int64_t* operations_;
  int steps_ = 0;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::shared_ptr<AggregationStats> stats_;
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
  std::unique_ptr<model::WindowedAggregationModel> model_;
};

struct WGenState {};
using WCommand = rc::state::Command<WGenState, WindowedSut>;

class WindowedCommand final : public WCommand {
 public:
  explicit WindowedCommand(WOp op) : op_(std::move(op)) {}
  void run(const WGenState&, WindowedSut& sut) const override {
    const std::string why = sut.Step(op_);
    if (!why.empty()) throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, why);
  }
  void show(std::ostream& os) const override { os << WOpToString(op_); }

 private:
  WOp op_;
};

rc::Gen<WOp> GenWOp(const WindowedAggregationConfig& config) {
  return rc::gen::exec([config] {
    WOp op;
    op.type = PickWeighted<WOpType>({{5, WOpType::kAppend},
                                     {5, WOpType::kProcess},
                                     {2, WOpType::kAdvanceClock},
                                     {2, WOpType::kCommit},
                                     {1, WOpType::kCrash},
                                     {1, WOpType::kRestart}});
    switch (op.type) {
      case WOpType::kAppend: {
        const int n = *UniformInRange<int>(1, 4);
        for (int i = 0; i < n; ++i) {
          // Keys that are byte-prefixes of others, and the empty ("null") key now and then.
          std::string key = *rc::gen::elementOf(std::vector<std::string>{"a", "ab", "b", "a", ""});
          // Timestamps near window ends and end + grace: multiples of the advance, +-1, and
          // grace past them; now and then none.
          const int64_t base = *UniformInRange<int64_t>(0, 6) * config.advance_ms;
          const int64_t ts = *rc::gen::elementOf(
              std::vector<int64_t>{base, base - 1, base + 1, base + config.grace_ms,
                                   base + config.grace_ms - 1, base + config.size_ms, -1});
          op.records.emplace_back(std::move(key), ts < -1 ? 0 : ts);
        }
        break;
      }
      case WOpType::kProcess:
        op.n = *UniformInRange<int64_t>(1, 8);
        break;
      case WOpType::kAdvanceClock:
        op.n = *rc::gen::elementOf(std::vector<int64_t>{1, kEmitIntervalMs, 200});
        break;
      default:
        break;
    }
    return op;
  });
}

// Runs `records` through a fresh task with `processor`, then commits; the output records as
// "<windowed key>=<value>@<timestamp>", grouped by key (the part after the second colon).
std::string RunThrough(const std::string& dir, std::unique_ptr<Processor> processor,
                       const std::vector<std::pair<std::string, int64_t>>& records,
                       std::map<std::string, std::vector<std::string>>* by_key) {
  std::unique_ptr<Log> log;
  Status s = OpenTaskLog(dir, &log);
  for (const auto& [key, ts] : records) {
    int64_t offset = 0;
    if (s.ok()) s = log->Append(kInput, key, "v", ts, &offset);
  }
  if (s.ok()) s = log->Sync();
  const TaskOptions o = TaskOptionsFor(dir, log.get(), std::make_shared<ManualClock>());
  std::unique_ptr<Task> task;
  if (s.ok()) s = OpenTask(o, std::move(processor), &task);
  int64_t processed = 0;
  if (s.ok()) s = task->Process(static_cast<int64_t>(records.size()), &processed);
  if (s.ok()) s = task->Close();
  std::vector<LogRecord> out;
  if (s.ok()) s = log->Read(kOutput, 0, 1 << 30, IsolationLevel::kReadCommitted, &out);
  if (s.code() == Status::Code::kOutOfRange) s = Status::Ok();  // No output at all.
  if (!s.ok()) return s.ToString();
  for (const LogRecord& r : out) {
    const size_t colon = r.key.find(':', r.key.find(':') + 1);
    (*by_key)[r.key.substr(colon + 1)].push_back(r.key + "=" + r.value.value_or("null") + "@" +
                                                 std::to_string(r.timestamp));
  }
  return "";
}

}  // namespace

PropertyOutcome CheckEmitFinalEqualsSuppressedEager(const WindowedAggregationConfig& config,
                                                    const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "windowed/EmitFinalEqualsSuppressedEager/" + config.label;
  auto property = [&] {
    const auto records = *rc::gen::container<std::vector<std::pair<std::string, int64_t>>>(
        rc::gen::pair(rc::gen::elementOf(std::vector<std::string>{"a", "ab", "b"}),
                      rc::gen::inRange<int64_t>(0, 60)));
    std::vector<std::pair<std::string, int64_t>> input = records;
    int64_t max_ts = 0;
    for (const auto& [key, ts] : input) max_ts = std::max(max_ts, ts);
    // Late enough to close every window, for both: end + grace <= its timestamp.
    input.emplace_back("~flush", max_ts + config.size_ms + config.grace_ms);
    out.operations += static_cast<int64_t>(input.size());
    TimeWindows windows;
    RC_ASSERT(WindowsOf(config, &windows).ok());
    TimeWindowedAggregationOptions a;
    a.windows = windows;
    a.emit_interval_ms = 0;
    a.logger = NullLogger();
    std::map<std::string, std::vector<std::string>> final_out, suppressed_out;
    std::unique_ptr<Processor> final_p, suppressed_p;
    a.emit = EmitStrategy::kOnWindowClose;
    RC_ASSERT(NewTimeWindowedAggregation(a, &final_p).ok());
    a.emit = EmitStrategy::kOnWindowUpdate;
    RC_ASSERT(NewSuppressedTimeWindowedAggregation(a, &suppressed_p).ok());
    const std::string dir = ScratchDirectory("e7");
    std::filesystem::remove_all(dir);
    const std::string why_final = RunThrough(dir + "/final", std::move(final_p), input, &final_out);
    const std::string why_suppressed =
        RunThrough(dir + "/suppressed", std::move(suppressed_p), input, &suppressed_out);
    std::filesystem::remove_all(dir);
    RC_ASSERT(why_final.empty() && why_suppressed.empty());
    final_out.erase("~flush");
    suppressed_out.erase("~flush");
    for (const auto& [key, emitted] : final_out) {
      if (suppressed_out[key] != emitted) {
        std::string a_list, b_list;
        for (const std::string& e : emitted) a_list += " " + e;
        for (const std::string& e : suppressed_out[key]) b_list += " " + e;
        throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure,
                                     "E7: for key " + key + " emit-final gave" + a_list +
                                         "; suppress(emit-eager) gave" + b_list);
      }
    }
    RC_ASSERT(final_out.size() == suppressed_out.size());
  };
  RunProperty(property, params, &out);
  return out;
}

std::vector<WindowedAggregationConfig> WindowedAggregationMatrix() {
  const std::map<std::string, std::string> eos = {{"processing.guarantee", "exactly_once_v2"}};
  const std::map<std::string, std::string> eos_ru = {
      {"processing.guarantee", "exactly_once_v2"},
      {"default.state.isolation.level", "READ_UNCOMMITTED"}};
  return {
      {"tumbling_eager", 10, 10, 0, false, eos},    {"tumbling_final", 10, 10, 0, true, eos},
      {"hopping_eager", 10, 4, 3, false, eos},      {"hopping_final", 10, 4, 3, true, eos},
      {"hopping_final_ru", 10, 4, 3, true, eos_ru},
  };
}

PropertyOutcome CheckWindowedAggregationMatchesModel(const WindowedAggregationConfig& config,
                                                     const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "windowed/MatchesModel/" + config.label;
  auto property = [&] {
    const std::string dir = ScratchDirectory("windowed");
    std::filesystem::remove_all(dir);
    WindowedSut sut(dir, config, &out.operations);
    const std::string started = sut.Start();
    RC_ASSERT(started.empty());
    rc::state::check(WGenState{}, sut, [&config](const WGenState&) {
      return rc::gen::map(GenWOp(config), [](WOp op) {
        return std::shared_ptr<const WCommand>(std::make_shared<WindowedCommand>(std::move(op)));
      });
    });
  };
  RunProperty(property, params, &out);
  return out;
}

}  // namespace statecheck::properties
