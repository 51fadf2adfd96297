#include "properties/windowed_aggregation_property.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "faults/fault_fs.h"
#include "model/session_aggregation_model.h"
#include "model/sliding_aggregation_model.h"
#include "model/windowed_aggregation_model.h"
#include "properties/aggregation_stores.h"
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/harness_rocksdb.h"
#include "properties/in_memory_aggregation_store.h"
#include "properties/rapidcheck_runner.h"
#include "properties/session_aggregation_store.h"
#include "statecheck/log.h"
#include "statecheck/session_aggregation.h"
#include "statecheck/sliding_aggregation.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck::properties {
namespace {

std::string Show(const std::vector<model::WindowedOutput>& out, size_t from = 0) {
  std::string s = "[";
  for (size_t i = from; i < out.size(); ++i) {
    s += (i > from ? ", " : "") + out[i].key + "=" + out[i].value + "@" +
         std::to_string(out[i].timestamp);
  }
  return s + "]";
}

// An output record as a trace's "expect" shows it: the window apart from the key.
Json OutputToJson(const model::WindowedOutput& o) {
  const size_t first = o.key.find(':');
  const size_t second = first == std::string::npos ? first : o.key.find(':', first + 1);
  if (second == std::string::npos) return Json{{"key", o.key}, {"value", o.value}};
  return Json{{"window", Json::array({std::stoll(o.key.substr(0, first)),
                                      std::stoll(o.key.substr(first + 1, second - first - 1))})},
              {"key", o.key.substr(second + 1)},
              {"value", o.value == "null" ? Json() : Json(o.value)},
              {"timestamp", o.timestamp}};
}

constexpr char kInput[] = "input";
constexpr char kOutput[] = "output";

bool AtLeastOnce(const WindowedAggregationConfig& config) {
  auto it = config.streams_config.find("processing.guarantee");
  return it != config.streams_config.end() && it->second == "at_least_once";
}

// The store the aggregation of `config` keeps its windows in.
std::string StoreOf(const WindowedAggregationConfig& config) {
  switch (config.kind) {
    case WindowKind::kTime:
      return "agg";
    case WindowKind::kSliding:
      return "sliding";
    case WindowKind::kSession:
      return "sessions";
  }
  return "agg";
}

// The in-memory window store's retention in the property: above the span of the timestamps the
// generator makes (below 6 advances + size + grace), so the store's own expiry — Kafka's, by the
// largest window start it holds — never takes a window the model keeps. With a retention of
// size + grace it would: statecheck/windowed_aggregation.h, AggregationStoreType.
constexpr int64_t kInMemoryRetentionMs = 1000;

// The time windows of `config`.
Status WindowsOf(const WindowedAggregationConfig& config, TimeWindows* out) {
  TimeWindows tumbling;
  STATECHECK_RETURN_IF_ERROR(
      TimeWindows::OfSizeAndGrace(config.size_ms, config.grace_ms, &tumbling));
  return tumbling.AdvanceBy(config.advance_ms, out);
}

// The aggregation processor of `config`, counting, reporting to `stats`.
Status MakeProcessor(const WindowedAggregationConfig& config,
                     std::shared_ptr<AggregationStats> stats, std::unique_ptr<Processor>* out) {
  const EmitStrategy emit =
      config.emit_final ? EmitStrategy::kOnWindowClose : EmitStrategy::kOnWindowUpdate;
  switch (config.kind) {
    case WindowKind::kTime: {
      TimeWindowedAggregationOptions a;
      STATECHECK_RETURN_IF_ERROR(WindowsOf(config, &a.windows));
      a.emit = emit;
      a.emit_interval_ms = config.emit_interval_ms;
      a.store = StoreOf(config);
      a.stats = std::move(stats);
      a.logger = NullLogger();
      if (config.in_memory_store) {
        a.store_type = AggregationStoreType::kInMemory;
        a.retention_ms = kInMemoryRetentionMs;
      }
      return NewTimeWindowedAggregation(a, out);
    }
    case WindowKind::kSession: {
      SessionWindowedAggregationOptions a;
      STATECHECK_RETURN_IF_ERROR(
          SessionWindows::OfInactivityGapAndGrace(config.size_ms, config.grace_ms, &a.windows));
      a.emit = emit;
      a.emit_interval_ms = config.emit_interval_ms;
      a.store = StoreOf(config);
      a.stats = std::move(stats);
      a.logger = NullLogger();
      return NewSessionWindowedAggregation(a, out);
    }
    case WindowKind::kSliding: {
      SlidingWindowedAggregationOptions a;
      STATECHECK_RETURN_IF_ERROR(
          SlidingWindows::OfTimeDifferenceAndGrace(config.size_ms, config.grace_ms, &a.windows));
      a.emit = emit;
      a.emit_interval_ms = config.emit_interval_ms;
      a.store = StoreOf(config);
      a.stats = std::move(stats);
      a.logger = NullLogger();
      return NewSlidingWindowedAggregation(a, out);
    }
  }
  return Status::InvalidArgument("no aggregation for this window kind in this build");
}

std::unique_ptr<model::AggregationModel> MakeModel(const WindowedAggregationConfig& config) {
  switch (config.kind) {
    case WindowKind::kTime: {
      model::WindowedModelConfig mc;
      mc.size_ms = config.size_ms;
      mc.advance_ms = config.advance_ms;
      mc.grace_ms = config.grace_ms;
      mc.emit_final = config.emit_final;
      mc.emit_interval_ms = config.emit_interval_ms;
      mc.at_least_once = AtLeastOnce(config);
      if (config.in_memory_store) mc.retention_ms = kInMemoryRetentionMs;
      return std::make_unique<model::WindowedAggregationModel>(mc);
    }
    case WindowKind::kSession: {
      model::SessionModelConfig mc;
      mc.gap_ms = config.size_ms;
      mc.grace_ms = config.grace_ms;
      mc.emit_final = config.emit_final;
      mc.emit_interval_ms = config.emit_interval_ms;
      mc.at_least_once = AtLeastOnce(config);
      return std::make_unique<model::SessionAggregationModel>(mc);
    }
    case WindowKind::kSliding: {
      model::SlidingModelConfig mc;
      mc.time_difference_ms = config.size_ms;
      mc.grace_ms = config.grace_ms;
      mc.emit_final = config.emit_final;
      mc.emit_interval_ms = config.emit_interval_ms;
      mc.at_least_once = AtLeastOnce(config);
      return std::make_unique<model::SlidingAggregationModel>(mc);
    }
  }
  return nullptr;
}

// The windows the task's store holds, decoded by the property (aggregation_stores.h).
Status ReadWindows(const WindowedAggregationConfig& config, Task& task,
                   std::map<std::string, std::string>* out) {
  switch (config.kind) {
    case WindowKind::kTime:
      if (config.in_memory_store) {
        return ReadInMemoryTimeWindowAggregates(task, StoreOf(config), config.size_ms, out);
      }
      return ReadTimeWindowAggregates(*task.Store(StoreOf(config))->NewQueryView(), config.size_ms,
                                      out);
    case WindowKind::kSession:
      return ReadSessionAggregates(*task.Store(StoreOf(config))->NewQueryView(), out);
    case WindowKind::kSliding:
      return ReadTimeWindowAggregates(*task.Store(StoreOf(config))->NewQueryView(), config.size_ms,
                                      out);
  }
  return Status::InvalidArgument("no store reader for this window kind in this build");
}

// The file system a case's task runs on: in memory, as the task family's (#17). These cases
// crash the process, never the machine, and a process crash keeps every byte written, so the
// disk's fsyncs would only be waited for; on a real disk two workers queue on them.
faults::FaultEnv NewCaseEnv() { return faults::NewFaultEnv(faults::BaseFileSystem::kInMemory); }

// A task's log under `dir`/log, on `env`.
Status OpenTaskLog(const std::string& dir, rocksdb::Env* env, std::unique_ptr<Log>* log) {
  LogOptions lo;
  lo.directory = dir + "/log";
  lo.env = env;
  lo.logger = NullLogger();
  return OpenLog(lo, log);
}

// The options of a task reading kInput and writing kOutput, its stores under `dir`/state on
// `env`.
TaskOptions TaskOptionsFor(const std::string& dir, rocksdb::Env* env, Log* log,
                           std::shared_ptr<Clock> clock) {
  TaskOptions o;
  o.env = env;
  o.application_id = "app";
  o.input_partition = kInput;
  o.output_partition = kOutput;
  o.state_directory = dir + "/state";
  o.log = log;
  o.clock = std::move(clock);
  o.logger = NullLogger();
  o.store_config_setter = HarnessRocksDBConfig();
  return o;
}

// `op` on the model alone, at wall-clock time `*now_ms` (which an advanceClock moves).
void ApplyToModel(const WOp& op, model::AggregationModel* model, int64_t* now_ms) {
  switch (op.type) {
    case WOpType::kAppend:
      for (const auto& [key, ts] : op.records) model->AppendInput(key, ts);
      return;
    case WOpType::kProcess:
      model->Process(op.n, *now_ms);
      return;
    case WOpType::kAdvanceClock:
      *now_ms += op.n;
      return;
    case WOpType::kCommit:
      model->Commit();
      return;
    case WOpType::kCrash:
      model->Crash();
      return;
    case WOpType::kRestart:
      model->Restart();
      return;
  }
}

// The largest "<store>=<close time>" entry for `store` in committed metadata `text` (';'-separated
// entries, SPEC E10), -1 if none; false if an entry is not of that form. The property's own
// reading, apart from the engine's.
bool ParseEmitClose(const std::string& text, const std::string& store, int64_t* close) {
  *close = -1;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(';', at);
    if (end == std::string::npos) end = text.size();
    const std::string entry = text.substr(at, end - at);
    at = end + 1;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq + 1 == entry.size()) return false;
    int64_t value = 0;
    size_t used = 0;
    try {
      value = std::stoll(entry.substr(eq + 1), &used);
    } catch (const std::exception&) {
      return false;
    }
    if (used != entry.size() - eq - 1) return false;
    if (entry.substr(0, eq) == store) *close = std::max(*close, value);
  }
  return true;
}

class WindowedSut {
 public:
  WindowedSut(std::string dir, const WindowedAggregationConfig& config, int64_t* operations,
              ProcessorWrapper wrap = nullptr)
      : dir_(std::move(dir)),
        config_(config),
        operations_(operations),
        wrap_(std::move(wrap)),
        model_(MakeModel(config)) {}
  ~WindowedSut() {
    task_.reset();
    log_.reset();
  }

  // Opens the log and the task; "" or what failed.
  std::string Start() {
    task_.reset();
    log_.reset();
    if (!model_) return "no model for this window kind in this build";
    Status s = OpenTaskLog(dir_, env_.env.get(), &log_);
    if (!s.ok()) return "opening the log: " + s.ToString();
    stats_ = std::make_shared<AggregationStats>();
    std::unique_ptr<Processor> processor;
    s = MakeProcessor(config_, stats_, &processor);
    if (!s.ok()) return "the aggregation: " + s.ToString();
    if (wrap_) processor = wrap_(std::move(processor));
    TaskOptions o = TaskOptionsFor(dir_, env_.env.get(), log_.get(), clock_);
    o.commit_interval_ms = int64_t{1} << 40;  // Commits only when the steps say.
    s = ResolveStateConfig(config_.streams_config, &o.config);
    if (s.ok()) s = OpenTask(o, std::move(processor), &task_);
    return s.ok() ? "" : "opening the task: " + s.ToString();
  }

  // The rule of the output the emit strategy makes: E3 (emit-final) or E2 (emit-eager).
  const char* OutputRule() const { return config_.emit_final ? "E3" : "E2"; }

  // Runs `op` on the engine and the model, then checks them; also against `expect` (a trace's
  // expectations), if it is an object. When every check held, the situations the step reached
  // count (evidence.h).
  CheckResult Step(const WOp& op, const Json& expect = Json()) {
    ++*operations_;
    ++steps_;
    const size_t seen = output_.size();
    CheckResult why = Apply(op);
    if (!why) why = Check(op);
    if (!why && expect.is_object()) why = CheckExpected(expect, seen);
    if (why) {
      why->message =
          "step " + std::to_string(steps_) + ": " + WOpToString(op) + "\n  " + why->message;
      return why;
    }
    HeldAll();
    return std::nullopt;
  }

 private:
  bool alos() const { return AtLeastOnce(config_); }

  // A situation the step reached whose output is not committed yet: under exactly_once_v2 it
  // counts once a commit has made the output the checks read (a crash discards it); under
  // at_least_once the checks read the output as it is written.
  void ReachedOnCommit(std::string situation) {
    if (alos()) {
      Reached(situation);
    } else {
      on_commit_.push_back(std::move(situation));
    }
  }
  void Committed() {
    for (const std::string& s : on_commit_) Reached(s);
    on_commit_.clear();
  }
  void TakeModelNotes() {
    for (std::string& s : model_->TakeNotes()) {
      // E1's are about what was dropped, which the dropped-records check sees at once.
      if (s.rfind("E1.", 0) == 0) {
        Reached(s);
      } else {
        ReachedOnCommit(std::move(s));
      }
    }
  }

  CheckResult Apply(const WOp& op) {
    const int64_t before = model_->next_input_offset();
    // What the model holds before a crash or restart (for the situations it reaches).
    const bool uncommitted_output =
        model_->written_output().size() > model_->committed_output().size();
    const bool uncommitted_close = model_->last_emit_close() > model_->committed_last_emit_close();
    const bool uncommitted_input = model_->next_input_offset() > model_->committed_input_offset();
    int64_t now = clock_->NowMs();
    ApplyToModel(op, model_.get(), &now);
    TakeModelNotes();
    switch (op.type) {
      case WOpType::kAppend: {
        for (const auto& [key, ts] : op.records) {
          int64_t offset = 0;
          const Status s = log_->Append(kInput, key, "v", ts, &offset);
          if (!s.ok()) return Finding("C1", "appending: " + s.ToString());
        }
        const Status s = log_->Sync();
        if (!s.ok()) return Finding("C1", "syncing: " + s.ToString());
        return std::nullopt;
      }
      case WOpType::kProcess: {
        int64_t processed = 0;
        const Status s = task_->Process(op.n, &processed);
        if (!s.ok()) return Finding(OutputRule(), "Process: " + s.ToString());
        if (processed != model_->next_input_offset() - before) {
          return Finding("C1", "processed " + std::to_string(processed) + ", the model " +
                                   std::to_string(model_->next_input_offset() - before));
        }
        return std::nullopt;
      }
      case WOpType::kAdvanceClock:
        clock_->Advance(op.n);
        return std::nullopt;
      case WOpType::kCommit: {
        const Status s = task_->Commit();
        if (!s.ok()) return Finding("C1", "Commit: " + s.ToString());
        Committed();
        return std::nullopt;
      }
      case WOpType::kCrash:
        CountCrash(/*power_loss=*/false);
        task_->Abandon();
        if (!alos()) on_commit_.clear();  // Aborted with the transaction.
        if (!alos() && uncommitted_output) Reached("E6.crash_before_commit");
        if (alos() && uncommitted_output && uncommitted_input) Reached("E6.alos_crash_reemits");
        if (uncommitted_close) Reached("E10.crash_keeps_committed");
        return Restarted(/*clean=*/false);
      case WOpType::kRestart: {
        const std::string group = task_->OffsetsGroup();
        const Status s = task_->Close();
        if (!s.ok()) return Finding("C1", "Close: " + s.ToString());
        Committed();
        if (config_.emit_final) {
          if (CheckResult why = AddMetadataEntries(group)) return why;
        }
        return Restarted(/*clean=*/true);
      }
    }
    return Finding(OutputRule(), "unknown op");
  }

  // At a clean restart under emit-final (a crash restarts from the metadata as committed): the
  // committed metadata gets, besides the task's
  // "<store>=<close>", a lower entry for the same store and a higher one for another store, as
  // metadata merged from several commits would hold; the task must start from the largest entry
  // of its own store (E10).
  CheckResult AddMetadataEntries(const std::string& group) {
    CommittedOffsets c;
    if (!log_->GetCommittedOffsets(group, &c).ok()) return std::nullopt;  // Nothing committed.
    int64_t close = -1;
    if (!ParseEmitClose(c.metadata, StoreOf(config_), &close) || close < 1) return std::nullopt;
    c.metadata += ";" + StoreOf(config_) + "=" + std::to_string(close / 2) +
                  ";other-store=" + std::to_string(close + 1000);
    const Status s = log_->CommitOffsets(group, c);
    if (!s.ok()) return Finding("C1", "rewriting the committed metadata: " + s.ToString());
    metadata_merged_ = true;
    return std::nullopt;
  }

  // After a restart: the store holds exactly the committed aggregates (E6).
  CheckResult Restarted(bool clean) {
    if (std::string why = Start(); !why.empty()) return Finding("E6", why);
    if (model_->committed_last_emit_close() >= 0) {
      // Checked by the outputs after the next commit: nothing emitted twice.
      ReachedOnCommit("E6.restart_after_emit");
      ReachedOnCommit(metadata_merged_ ? "E10.merged_by_max" : "E10.restored_on_start");
    }
    metadata_merged_ = false;
    std::map<std::string, std::string> store;
    const Status s = ReadWindows(config_, *task_, &store);
    if (!s.ok()) return Finding("E6", "reading the store after the restart: " + s.ToString());
    const std::map<std::string, std::string> expected = model_->CommittedWindows();
    // Checks: E6 — after a restart the store holds exactly the committed aggregates
    if (store != expected) {
      return Finding("E6", "after the restart the store holds " + std::to_string(store.size()) +
                               " window aggregates that differ from the " +
                               std::to_string(expected.size()) +
                               " the model has: " + DescribeDifference(store, expected));
    }
    if (!expected.empty()) Reached(clean ? "E6.store_after_restart" : "E6.store_after_crash");
    return std::nullopt;
  }

  CheckResult Check(const WOp& op) {
    // E1's count first: it is the most specific, and under exactly_once_v2 the only check that
    // sees a step's processing before its commit.
    // Checks: E1 — dropped-records (late windows, null keys) against the model's
    if (stats_->dropped_records != model_->dropped_records()) {
      return Finding("E1", "the task dropped " + std::to_string(stats_->dropped_records) +
                               " records, the model " + std::to_string(model_->dropped_records()));
    }
    // Under at_least_once the output is not transactional: a reader sees it once the log is
    // synced (by anyone: the input's producer syncs too), so the check reads all of it.
    std::vector<LogRecord> records;
    Status s = log_->Read(
        kOutput, 0, 1 << 30,
        alos() ? IsolationLevel::kReadUncommitted : IsolationLevel::kReadCommitted, &records);
    if (!s.ok()) return Finding("C1", "reading the output: " + s.ToString());
    output_.clear();
    for (const LogRecord& r : records)
      output_.push_back({r.key, r.value.value_or("null"), r.timestamp});
    const std::vector<model::WindowedOutput>& expected =
        alos() ? model_->written_output() : model_->committed_output();
    if (output_ != expected) {
      return ExplainOutput(expected, alos() ? model_->written_emits() : model_->committed_emits());
    }
    CommittedOffsets c;
    s = log_->GetCommittedOffsets(task_->OffsetsGroup(), &c);
    const int64_t committed = s.ok() && c.offsets.count(kInput) ? c.offsets.at(kInput) : 0;
    if (committed != model_->committed_input_offset()) {
      return Finding("C1", "committed input offset " + std::to_string(committed) + ", the model " +
                               std::to_string(model_->committed_input_offset()));
    }
    // E10: the last emitted close time is committed with the input offset.
    int64_t close = -1;
    if (!ParseEmitClose(c.metadata, StoreOf(config_), &close)) {
      return Finding("E10", "the committed metadata \"" + c.metadata +
                                "\" is not \"<store>=<last emitted close time>\" entries");
    }
    // Checks: E10 — the committed last emit close time (merged by max at start) is the model's
    if (close != model_->committed_last_emit_close()) {
      return Finding("E10", "the committed metadata \"" + c.metadata + "\" gives store " +
                                StoreOf(config_) + " the last emitted close time " +
                                std::to_string(close) + ", the model " +
                                std::to_string(model_->committed_last_emit_close()));
    }
    if ((op.type == WOpType::kCommit || op.type == WOpType::kRestart) && close > committed_close_) {
      Reached("E10.committed_with_offset");
    }
    committed_close_ = close;
    return std::nullopt;
  }

  // Which rule the first difference between the output the task wrote (output_) and the
  // model's (`expected`, whose records came about as `emits` says) breaks.
  Finding ExplainOutput(const std::vector<model::WindowedOutput>& expected,
                        const std::vector<model::EmitInfo>& emits) const {
    size_t p = 0;
    while (p < output_.size() && p < expected.size() && output_[p] == expected[p]) ++p;
    const model::WindowedOutput* e = p < output_.size() ? &output_[p] : nullptr;
    const model::WindowedOutput* m = p < expected.size() ? &expected[p] : nullptr;
    const std::string what = std::string(alos() ? "written" : "committed") +
                             " output from record " + std::to_string(p) + ": the task's " +
                             Show(output_, p) + ", the model's " + Show(expected, p);
    auto finding = [&](const char* rule, const std::string& why) {
      return Finding(rule, why + "; " + what);
    };
    // The first index in [from, to) of `v` with window `key`.
    auto find = [](const std::vector<model::WindowedOutput>& v, size_t from, size_t to,
                   const std::string& key) -> std::optional<size_t> {
      for (size_t i = from; i < to && i < v.size(); ++i) {
        if (v[i].key == key) return i;
      }
      return std::nullopt;
    };
    const int incarnation = model_->last_record_incarnation();
    if (!config_.emit_final) {
      // Checks: E2 — an update with another aggregate or timestamp than the model's
      if (e && m && e->key == m->key) return finding("E2", "window " + e->key + "'s update");
      if (e && m) {
        const std::optional<size_t> q = find(expected, p + 1, expected.size(), e->key);
        // Checks: E2 — one record's updates by ascending window start
        if (q && emits[*q].attempt == emits[p].attempt) {
          return finding("E2", "one record's updates are not by ascending window start");
        }
      }
      if (e) {
        // Checks: E1 — an update of a window the model dropped a late record from
        if (model_->DroppedLateFrom(e->key)) {
          return finding("E1", "an update of window " + e->key +
                                   ", from which the model dropped a late record");
        }
        for (size_t q = 0; q < p; ++q) {
          if (output_[q] == *e && emits[q].incarnation < incarnation) {
            return finding("E6",
                           "update " + e->key + "=" + e->value + " emitted again after a restart");
          }
        }
        return finding("E2", "an update of window " + e->key + " the model does not make");
      }
      if (emits[p].at_grace_bound) {
        return finding("E1", "window " + m->key +
                                 " took a record exactly at the grace bound; the task has no "
                                 "update for it");
      }
      return finding("E2", "no update of window " + m->key);
    }
    // Emit-final.
    // Checks: E3 — a final result with another aggregate or timestamp than the model's
    if (e && m && e->key == m->key) return finding("E3", "window " + e->key + "'s final result");
    if (e) {
      const std::optional<size_t> later = find(expected, p + 1, expected.size(), e->key);
      // Checks: E4 — windows closing together by start then key (sessions: end, key, start)
      if (later && m && emits[*later].attempt == emits[p].attempt &&
          find(output_, p + 1, output_.size(), m->key)) {
        return finding("E4", "windows closing together: " + e->key + " emitted before " + m->key);
      }
      if (const std::optional<size_t> q = find(output_, 0, p, e->key); q && !later) {
        // Checks: E6 — a window emitted again after a restart
        if (emits[*q].incarnation < incarnation) {
          return finding("E6", "window " + e->key + " emitted again after a restart");
        }
        return finding("E3", "window " + e->key + " emitted twice");
      }
      int64_t start = 0, end = 0;
      std::string key;
      // Checks: E3 — a window emitted before it closed
      if (model::ParseWindowName(e->key, &start, &end, &key) &&
          !model_->ClosedAtLastRecord(start, end)) {
        return finding("E3", "window " + e->key + " emitted before it closed");
      }
      // Checks: E5 — emitted while emit.interval.ms held emission back
      if (!later && model_->HasWindow(e->key) && model_->HeldBackAtLastRecord()) {
        return finding("E5",
                       "window " + e->key + " emitted while emit.interval.ms held emission back");
      }
      if (!later && !model_->HasWindow(e->key)) {
        return finding("E3", "a final result for window " + e->key +
                                 ", which the model does "
                                 "not hold");
      }
      if (!m) return finding("E3", "window " + e->key + " emitted; the model has not emitted it");
    }
    // The task has not emitted m (here).
    std::set<std::string> batch;  // m's attempt's windows.
    for (size_t i = p; i < expected.size(); ++i) {
      if (emits[i].attempt == emits[p].attempt) batch.insert(expected[i].key);
    }
    bool none_emitted = true;
    for (size_t j = p; j < output_.size(); ++j) none_emitted &= !batch.count(output_[j].key);
    // Checks: E5 — an attempt one interval after the last must emit its windows
    if (emits[p].at_interval && none_emitted) {
      return finding("E5",
                     "the attempt exactly emit.interval.ms after the last emitted none of "
                     "its windows (" +
                         m->key + ", ...)");
    }
    // Checks: E6 — a window closed before a restart is not lost
    if (emits[p].closed_before_restart) {
      return finding("E6", "window " + m->key + ", closed before a restart, is not emitted");
    }
    // Checks: E3 — exactly one output per closed window: a missing one
    return finding("E3", "closed window " + m->key + " is not emitted");
  }

  // A trace's expectations: what this step committed to the output (it had `seen` before) and
  // the dropped-records count after it.
  CheckResult CheckExpected(const Json& expect, size_t seen) const {
    if (expect.contains("dropped_records") &&
        expect["dropped_records"] != Json(stats_->dropped_records)) {
      return Finding("E1", "the trace expects dropped-records " + expect["dropped_records"].dump() +
                               "; the task counts " + std::to_string(stats_->dropped_records));
    }
    if (expect.contains("emitted")) {
      Json emitted = Json::array();
      for (size_t i = seen; i < output_.size(); ++i) emitted.push_back(OutputToJson(output_[i]));
      const Json& want = expect["emitted"];
      bool same = want.size() == emitted.size();
      for (size_t i = 0; same && i < want.size(); ++i) {
        same = SameEmittedRecord(want[i], emitted[i]);
      }
      if (!same) {
        return Finding(OutputRule(), "the trace expects this step to emit " +
                                         expect["emitted"].dump() + "; it emitted " +
                                         emitted.dump());
      }
    }
    return std::nullopt;
  }

  const std::string dir_;
  const WindowedAggregationConfig config_;
  int64_t* operations_;
  const ProcessorWrapper wrap_;
  const faults::FaultEnv env_ = NewCaseEnv();  // Outlives the log and the task.
  int steps_ = 0;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::shared_ptr<AggregationStats> stats_;
  std::unique_ptr<Log> log_;
  std::unique_ptr<Task> task_;
  std::unique_ptr<model::AggregationModel> model_;
  std::vector<model::WindowedOutput> output_;  // The committed output, as the last check read it.
  std::vector<std::string> on_commit_;         // Situations waiting for a commit.
  int64_t committed_close_ = -1;               // The last emitted close time committed so far.
  bool metadata_merged_ = false;  // The next start reads metadata AddMetadataEntries wrote.
};

// The generator's state: where the timestamps are, in window steps. It moves forward as records
// are appended, so that stream time keeps advancing through a case — windows keep closing and
// emit-final keeps attempting (E3–E5) — while records up to two steps behind it stay late or
// out of order (E1).
struct WGenState {
  int64_t cursor = 0;
  // Where the cursor counts from: 0 until an append jumps it (JumpOrigin) to a present-day epoch
  // millisecond or to just below INT64_MAX; always a multiple of the window step, so that
  // timestamps keep landing on window bounds.
  int64_t origin = 0;
};
using WCommand = rc::state::Command<WGenState, WindowedSut>;

class WindowedCommand final : public WCommand {
 public:
  WindowedCommand(WOp op, int64_t cursor_after, int64_t origin_after)
      : op_(std::move(op)), cursor_after_(cursor_after), origin_after_(origin_after) {}
  void apply(WGenState& state) const override {
    state.cursor = cursor_after_;
    state.origin = origin_after_;
  }
  void run(const WGenState&, WindowedSut& sut) const override {
    if (CheckResult why = sut.Step(op_)) Fail(std::move(*why));
  }
  void show(std::ostream& os) const override { os << WOpToString(op_); }

 private:
  WOp op_;
  int64_t cursor_after_;
  int64_t origin_after_;
};

// The generator's unit of time: the advance of time windows, the time difference or the gap.
int64_t WindowStep(const WindowedAggregationConfig& config) {
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
std::pair<int64_t, int64_t> JumpOrigin(const WindowedAggregationConfig& config, int64_t origin,
                                       int64_t cursor) {
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

rc::Gen<std::shared_ptr<const WCommand>> GenWCommand(const WindowedAggregationConfig& config,
                                                     const WGenState& state) {
  return rc::gen::exec([config, cursor = state.cursor, origin = state.origin] {
    WOp op;
    // The clock advances often enough that emission is not held back by the emit interval for
    // most of a case (E5: an attempt exactly one interval after the last, held-back windows
    // emitted later).
    op.type = PickWeighted<WOpType>({{6, WOpType::kAppend},
                                     {6, WOpType::kProcess},
                                     {4, WOpType::kAdvanceClock},
                                     {2, WOpType::kCommit},
                                     {1, WOpType::kCrash},
                                     {1, WOpType::kRestart}});
    int64_t cursor_after = cursor;
    int64_t origin_after = origin;
    // Timestamps land near window starts, ends and end + grace: multiples of the window step
    // (the advance; the time difference or the gap for sliding and session windows), one either
    // side, grace past them, a window size past them; now and then none.
    const int64_t step = WindowStep(config);
    switch (op.type) {
      case WOpType::kAppend: {
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
          op.records.emplace_back(std::move(key), ts < -1 ? 0 : ts);
        }
        break;
      }
      case WOpType::kProcess:
        op.n = *UniformInRange<int64_t>(1, 8);
        break;
      case WOpType::kAdvanceClock:
        // Exactly the emit interval half the time (E5's boundary; with interval 0, no advance).
        op.n = *rc::gen::elementOf(
            std::vector<int64_t>{1, config.emit_interval_ms, config.emit_interval_ms, 200});
        break;
      default:
        break;
    }
    return std::shared_ptr<const WCommand>(
        std::make_shared<WindowedCommand>(std::move(op), cursor_after, origin_after));
  });
}

// Writes the failing case of `out` as a windowed trace, each step with what the model expects
// of it (nothing if it passed or has no trace_dir).
void SaveWindowedTrace(const WindowedAggregationConfig& config, const PropertyParams& params,
                       PropertyOutcome* out) {
  if (out->passed || params.trace_dir.empty() || out->counterexample.empty()) return;
  std::unique_ptr<model::AggregationModel> model = MakeModel(config);
  if (!model) return;
  Json header{{"statecheck_trace", 1},     {"kind", "windowed"},  {"config", ConfigToJson(config)},
              {"property", out->property}, {"seed", params.seed}, {"reproduce", out->reproduce},
              {"failure", out->message}};
  std::string text = header.dump() + "\n";
  int64_t now = 0;
  for (const std::string& line : out->counterexample) {
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    WOp op;
    if (j.is_discarded() || !WOpFromJson(j, &op).ok()) return;  // Not this property's case.
    const std::vector<model::WindowedOutput>& output =
        AtLeastOnce(config) ? model->written_output() : model->committed_output();
    const size_t seen = output.size();
    ApplyToModel(op, model.get(), &now);
    Json emitted = Json::array();
    for (size_t i = seen; i < output.size(); ++i) emitted.push_back(OutputToJson(output[i]));
    j["expect"] = Json{{"emitted", emitted}, {"dropped_records", model->dropped_records()}};
    text += j.dump() + "\n";
  }
  SaveTraceText(text, params, out);
}

// Runs `records` through a fresh task with `processor`, then commits; the output records as
// "<windowed key>=<value>@<timestamp>", grouped by key (the part after the second colon).
std::string RunThrough(const std::string& dir, std::unique_ptr<Processor> processor,
                       const std::vector<std::pair<std::string, int64_t>>& records,
                       std::map<std::string, std::vector<std::string>>* by_key) {
  const faults::FaultEnv env = NewCaseEnv();
  std::unique_ptr<Log> log;
  Status s = OpenTaskLog(dir, env.env.get(), &log);
  for (const auto& [key, ts] : records) {
    int64_t offset = 0;
    if (s.ok()) s = log->Append(kInput, key, "v", ts, &offset);
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
  if (!s.ok()) return s.ToString();
  for (const LogRecord& r : out) {
    const size_t colon = r.key.find(':', r.key.find(':') + 1);
    (*by_key)[r.key.substr(colon + 1)].push_back(r.key + "=" + r.value.value_or("null") + "@" +
                                                 std::to_string(r.timestamp));
  }
  return "";
}

// When emit-final and suppress(emit-eager) differ: the rule emit-final's own output breaks, by the
// model of emit-final (interval 0, as the differential runs it) — a closed window missing or a
// window emitted early or wrong → E3, an attempt none of whose windows was emitted → E5 —, or,
// when emit-final's output is the model's (the suppressed side is wrong), E1 if the suppressed
// side has a window the model dropped a late record from, else E7.
std::string RuleOfEmitFinalDifference(
    const WindowedAggregationConfig& config,
    const std::vector<std::pair<std::string, int64_t>>& input,
    const std::map<std::string, std::vector<std::string>>& final_out,
    const std::map<std::string, std::vector<std::string>>& suppressed_out) {
  model::WindowedModelConfig mc;
  mc.size_ms = config.size_ms;
  mc.advance_ms = config.advance_ms;
  mc.grace_ms = config.grace_ms;
  mc.emit_final = true;
  mc.emit_interval_ms = 0;
  model::WindowedAggregationModel model(mc);
  for (const auto& [key, ts] : input) model.AppendInput(key, ts);
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
void NoteE7Situations(const WindowedAggregationConfig& config,
                      const std::vector<std::pair<std::string, int64_t>>& records,
                      const std::map<std::string, std::vector<std::string>>& final_out) {
  int64_t stream_time = -1;
  for (const auto& [key, ts] : records) {
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

}  // namespace

bool IsE7WindowShape(const WindowedAggregationConfig& config) {
  return config.kind == WindowKind::kTime && !config.emit_final && !config.in_memory_store &&
         !AtLeastOnce(config);
}

std::vector<WindowedAggregationConfig> WindowedAggregationMatrix() {
  const std::map<std::string, std::string> eos = {{"processing.guarantee", "exactly_once_v2"}};
  const std::map<std::string, std::string> eos_ru = {
      {"processing.guarantee", "exactly_once_v2"},
      {"default.state.isolation.level", "READ_UNCOMMITTED"}};
  const std::map<std::string, std::string> alos = {{"processing.guarantee", "at_least_once"}};
  auto time = [](std::string label, int64_t size, int64_t advance, int64_t grace, bool final,
                 std::map<std::string, std::string> streams) {
    WindowedAggregationConfig c;
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
  auto interval_zero = [](WindowedAggregationConfig c) {
    c.emit_interval_ms = 0;
    return c;
  };
  auto in_memory = [](WindowedAggregationConfig c) {
    c.in_memory_store = true;
    return c;
  };
  auto sliding = [&time](std::string label, int64_t difference, int64_t grace, bool final,
                         std::map<std::string, std::string> streams) {
    WindowedAggregationConfig c =
        time(std::move(label), difference, difference, grace, final, std::move(streams));
    c.kind = WindowKind::kSliding;
    return c;
  };
  auto session = [&time](std::string label, int64_t gap, int64_t grace, bool final,
                         std::map<std::string, std::string> streams) {
    WindowedAggregationConfig c =
        time(std::move(label), gap, gap, grace, final, std::move(streams));
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
  };
}

PropertyOutcome CheckWindowedAggregationMatchesModel(const WindowedAggregationConfig& config,
                                                     const PropertyParams& params) {
  return CheckWindowedAggregationMatchesModel(config, params, nullptr);
}

PropertyOutcome CheckWindowedAggregationMatchesModel(const WindowedAggregationConfig& config,
                                                     const PropertyParams& params,
                                                     const ProcessorWrapper& wrap) {
  PropertyOutcome out;
  out.property = "windowed/MatchesModel/" + config.label;
  auto property = [&] {
    const CaseScope scope;
    const std::string dir = ScratchDirectory("windowed");
    WindowedSut sut(dir, config, &out.operations, wrap);
    if (const std::string why = sut.Start(); !why.empty()) {
      Fail(Finding(sut.OutputRule(), "starting the task: " + why));
    }
    rc::state::check(WGenState{}, sut,
                     [&config](const WGenState& state) { return GenWCommand(config, state); });
  };
  RunProperty(property, params, &out);
  SaveWindowedTrace(config, params, &out);
  return out;
}

Status ReadWindowedTrace(const std::string& path, WindowedTrace* trace) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::InvalidArgument("cannot open trace file " + path);
  std::stringstream text;
  text << file.rdbuf();
  return ParseWindowedTrace(text.str(), path, trace);
}

Status ReplayWindowedTrace(const WindowedTrace& trace, WindowedReplayOutcome* out) {
  *out = WindowedReplayOutcome();
  int64_t operations = 0;
  const std::string dir = ScratchDirectory("windowed-replay");
  WindowedSut sut(dir, trace.config, &operations);
  if (std::string why = sut.Start(); !why.empty()) {
    // Before any step: the configuration cannot run (bad input, not a divergence).
    return Status::InvalidArgument("line 1: the trace's config cannot run: " + why);
  }
  for (const auto& [line, json] : trace.steps) {
    WOp op;
    STATECHECK_RETURN_IF_ERROR(WOpFromJson(json, &op));
    const CheckResult why = sut.Step(op, json.contains("expect") ? json["expect"] : Json());
    if (why) {
      out->diverged = true;
      out->step = out->steps_run + 1;
      out->line = line;
      out->op = WOpToString(op);
      out->message = why->ToString();
      return Status::Ok();
    }
    ++out->steps_run;
  }
  return Status::Ok();
}

PropertyOutcome CheckEmitFinalEqualsSuppressedEager(const WindowedAggregationConfig& config,
                                                    const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "windowed/EmitFinalEqualsSuppressedEager/" + config.label;
  auto property = [&] {
    const CaseScope scope;
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
    if (const Status w = WindowsOf(config, &windows); !w.ok()) {
      Fail(Finding("E7", "the time windows: " + w.ToString()));
    }
    TimeWindowedAggregationOptions a;
    a.windows = windows;
    a.emit_interval_ms = 0;
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
    const std::string why_final = RunThrough(dir + "/final", std::move(final_p), input, &final_out);
    const std::string why_suppressed =
        RunThrough(dir + "/suppressed", std::move(suppressed_p), input, &suppressed_out);
    auto fail = [](const std::string& what) { Fail(Finding("E7", what)); };
    if (!why_final.empty()) fail("the emit-final run failed: " + why_final);
    if (!why_suppressed.empty()) fail("the suppress(emit-eager) run failed: " + why_suppressed);
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

}  // namespace statecheck::properties
