#include "properties/windowed/sut.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include "model/session_aggregation_model.h"
#include "model/sliding_aggregation_model.h"
#include "model/unlimited_aggregation_model.h"
#include "properties/harness_rocksdb.h"
#include "properties/windowed/in_memory_aggregation_store.h"
#include "properties/windowed/session_aggregation_store.h"
#include "statecheck/session_aggregation.h"
#include "statecheck/sliding_aggregation.h"
#include "statecheck/unlimited_aggregation.h"

namespace statecheck::properties::windowed {

std::string Show(const std::vector<model::WindowedOutput>& out, size_t from) {
  std::string s;
  for (const std::string& o : model::DescribeOutputs(out, from)) s += (s.empty() ? "" : ", ") + o;
  return "[" + s + "]";
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

bool AtLeastOnce(const Config& config) {
  auto it = config.streams_config.find("processing.guarantee");
  return it != config.streams_config.end() && it->second == "at_least_once";
}

// The store the aggregation of `config` keeps its windows in.
std::string StoreOf(const Config& config) {
  switch (config.kind) {
    case WindowKind::kTime:
      return "agg";
    case WindowKind::kSliding:
      return "sliding";
    case WindowKind::kSession:
      return "sessions";
    case WindowKind::kUnlimited:
      return "unlimited";
  }
  return "agg";
}

// The time windows of `config`.
Status WindowsOf(const Config& config, TimeWindows* out) {
  TimeWindows tumbling;
  STATECHECK_RETURN_IF_ERROR(
      TimeWindows::OfSizeAndGrace(config.size_ms, config.grace_ms, &tumbling));
  return tumbling.AdvanceBy(config.advance_ms, out);
}

Aggregator AggregatorOf(model::AggregatorKind kind) {
  switch (kind) {
    case model::AggregatorKind::kCount:
      break;
    case model::AggregatorKind::kReduce:
      return ReduceAggregator([](std::string_view aggregate, std::string_view value) {
        return std::string(aggregate) + "+" + std::string(value);
      });
    case model::AggregatorKind::kAggregate: {
      Aggregator a;
      a.initializer = [] { return std::string("0"); };
      a.aggregate = [](std::string_view, std::optional<std::string_view> value,
                       std::string_view aggregate) {
        return std::string(aggregate) + "+" + std::string(value ? *value : "null");
      };
      return a;
    }
  }
  return CountAggregator();
}

// A session aggregation's merger for `kind`: count()'s sum, or "<a>+<b>" (Kafka's
// SessionWindowedKStreamImplTest merger; a reduce merges with its reducer and ignores it).
SessionMerger MergerOf(model::AggregatorKind kind) {
  if (kind == model::AggregatorKind::kCount) return CountMerger();
  return [](std::string_view, std::string_view a, std::string_view b) {
    return std::string(a) + "+" + std::string(b);
  };
}

// The aggregation processor of `config`, reporting to `stats`.
namespace {

// A session or a sliding aggregation of `config`: its windows from `windows_of` (size and
// grace), the options the two share, made by `make`.
template <class Options, class WindowsOf, class Make>
Status MakeSessionOrSlidingAggregation(const Config& config, EmitStrategy emit,
                                       std::shared_ptr<AggregationStats> stats,
                                       WindowsOf windows_of, Make make,
                                       std::unique_ptr<Processor>* out) {
  Options a;
  STATECHECK_RETURN_IF_ERROR(windows_of(config.size_ms, config.grace_ms, &a.windows));
  a.emit = emit;
  a.emit_interval_ms = config.emit_interval_ms;
  a.store = StoreOf(config);
  a.aggregator = AggregatorOf(config.aggregator);
  if constexpr (std::is_same_v<Options, SessionWindowedAggregationOptions>) {
    a.merger = MergerOf(config.aggregator);
  }
  a.stats = std::move(stats);
  a.logger = NullLogger();
  return make(a, out);
}

}  // namespace

Status TimeOptionsOf(const Config& config, TimeWindowedAggregationOptions* out) {
  TimeWindowedAggregationOptions& a = *out;
  STATECHECK_RETURN_IF_ERROR(WindowsOf(config, &a.windows));
  a.emit = config.emit_final ? EmitStrategy::kOnWindowClose : EmitStrategy::kOnWindowUpdate;
  a.emit_interval_ms = config.emit_interval_ms;
  a.store = StoreOf(config);
  a.aggregator = AggregatorOf(config.aggregator);
  a.logger = NullLogger();
  a.retention_ms = config.retention_ms;
  if (config.in_memory_store) {
    a.store_type = AggregationStoreType::kInMemory;
    if (config.retention_ms < 0) a.retention_ms = kInMemoryRetentionMs;
  }
  return Status::Ok();
}

Status MakeProcessor(const Config& config, std::shared_ptr<AggregationStats> stats,
                     std::unique_ptr<Processor>* out) {
  const EmitStrategy emit =
      config.emit_final ? EmitStrategy::kOnWindowClose : EmitStrategy::kOnWindowUpdate;
  switch (config.kind) {
    case WindowKind::kTime: {
      TimeWindowedAggregationOptions a;
      STATECHECK_RETURN_IF_ERROR(TimeOptionsOf(config, &a));
      a.stats = std::move(stats);
      return config.suppress ? NewSuppressedTimeWindowedAggregation(a, out)
                             : NewTimeWindowedAggregation(a, out);
    }
    case WindowKind::kSession:
      return MakeSessionOrSlidingAggregation<SessionWindowedAggregationOptions>(
          config, emit, std::move(stats), &SessionWindows::OfInactivityGapAndGrace,
          config.suppress ? &NewSuppressedSessionWindowedAggregation
                          : &NewSessionWindowedAggregation,
          out);
    case WindowKind::kSliding:
      return MakeSessionOrSlidingAggregation<SlidingWindowedAggregationOptions>(
          config, emit, std::move(stats), &SlidingWindows::OfTimeDifferenceAndGrace,
          config.suppress ? &NewSuppressedSlidingWindowedAggregation
                          : &NewSlidingWindowedAggregation,
          out);
    case WindowKind::kUnlimited: {
      UnlimitedWindowedAggregationOptions a;
      STATECHECK_RETURN_IF_ERROR(UnlimitedWindows::StartOn(config.start_ms, &a.windows));
      a.emit = emit;
      a.store = StoreOf(config);
      a.aggregator = AggregatorOf(config.aggregator);
      a.stats = std::move(stats);
      a.logger = NullLogger();
      return NewUnlimitedWindowedAggregation(a, out);
    }
  }
  return Status::InvalidArgument("no aggregation for this window kind in this build");
}

namespace {

// The fields every windowed model's configuration shares, from `config`.
template <class ModelConfig>
ModelConfig CommonModelConfig(const Config& config) {
  ModelConfig mc;
  mc.grace_ms = config.grace_ms;
  mc.emit_final = config.emit_final;
  mc.emit_interval_ms = config.emit_interval_ms;
  mc.at_least_once = AtLeastOnce(config);
  mc.suppress = config.suppress;
  mc.aggregator = config.aggregator;
  return mc;
}

}  // namespace

std::unique_ptr<model::AggregationModel> MakeModel(const Config& config) {
  switch (config.kind) {
    case WindowKind::kTime: {
      auto mc = CommonModelConfig<model::WindowedModelConfig>(config);
      mc.size_ms = config.size_ms;
      mc.advance_ms = config.advance_ms;
      mc.retention_ms = config.retention_ms;
      if (config.in_memory_store && config.retention_ms < 0) mc.retention_ms = kInMemoryRetentionMs;
      mc.in_memory_store = config.in_memory_store;
      return std::make_unique<model::WindowedAggregationModel>(mc);
    }
    case WindowKind::kSession: {
      auto mc = CommonModelConfig<model::SessionModelConfig>(config);
      mc.gap_ms = config.size_ms;
      return std::make_unique<model::SessionAggregationModel>(mc);
    }
    case WindowKind::kSliding: {
      auto mc = CommonModelConfig<model::SlidingModelConfig>(config);
      mc.time_difference_ms = config.size_ms;
      return std::make_unique<model::SlidingAggregationModel>(mc);
    }
    case WindowKind::kUnlimited: {
      model::UnlimitedModelConfig mc;
      mc.start_ms = config.start_ms;
      mc.at_least_once = AtLeastOnce(config);
      mc.aggregator = config.aggregator;
      return std::make_unique<model::UnlimitedAggregationModel>(mc);
    }
  }
  return nullptr;
}

// The windows the task's store holds, decoded by the property (aggregation_stores.h).
Status ReadWindows(const Config& config, Task& task, std::map<std::string, std::string>* out,
                   std::vector<std::string>* unindexed) {
  unindexed->clear();
  switch (config.kind) {
    case WindowKind::kTime:
      if (config.in_memory_store) {
        return ReadInMemoryTimeWindowAggregates(task, StoreOf(config), config.size_ms, out);
      }
      return ReadTimeWindowAggregates(*task.Store(StoreOf(config))->NewQueryView(), config.size_ms,
                                      config.aggregator == model::AggregatorKind::kCount, out);
    case WindowKind::kSession:
      return ReadSessionAggregates(*task.Store(StoreOf(config))->NewQueryView(),
                                   config.aggregator == model::AggregatorKind::kCount, out);
    case WindowKind::kSliding:
      return ReadSlidingWindowAggregates(
          *task.Store(StoreOf(config))->NewQueryView(), config.size_ms,
          config.aggregator == model::AggregatorKind::kCount, out, unindexed);
    case WindowKind::kUnlimited:
      return ReadUnlimitedAggregates(*task.Store(StoreOf(config))->NewQueryView(), config.start_ms,
                                     config.aggregator == model::AggregatorKind::kCount, out);
  }
  return Status::InvalidArgument("no store reader for this window kind in this build");
}

CheckResult UnindexedWindows(const std::vector<std::string>& unindexed) {
  if (unindexed.empty()) return std::nullopt;
  // Checks: E9 — every window of a sliding aggregation's store has its key index record
  std::string some;
  for (size_t i = 0; i < unindexed.size() && i < 3; ++i) some += (i ? ", " : "") + unindexed[i];
  return Finding("E9", std::to_string(unindexed.size()) +
                           " window(s) of the store have no key index record, so the "
                           "aggregation's per-key lookup cannot find them: " +
                           some);
}

// The file system a case's task runs on: in memory, as the task family's (#17). These cases
// crash the process, never the machine, and a process crash keeps every byte written, so the
// disk's fsyncs would only be waited for; on a real disk two workers queue on them. It skips
// RocksDB's OPTIONS files (harness-only, faults/fault_fs.h): these cases arm no file-system
// fault, and writing the file and parsing it back at every open was a third of a case
// (`statecheck run --family windowed --budget 20 --seed 7`: 8,775 and 8,790 cases with them,
// 12,665 and 13,230 without).
faults::FaultEnv NewCaseEnv() {
  faults::FaultEnv env = faults::NewFaultEnv(faults::BaseFileSystem::kInMemory);
  env.fs->SkipRocksDBOptionsFiles(true);
  return env;
}

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
  // Each output record is written as it is produced: under at_least_once Check() compares the
  // output written so far with the model's, record by record. (Batched writes are the task
  // property's: C1, C4.)
  o.log_batch_bytes = 0;
  return o;
}

// `op` on the model alone, at wall-clock time `*now_ms` (which an advanceClock moves).
void ApplyToModel(const Op& op, model::AggregationModel* model, int64_t* now_ms) {
  switch (op.type) {
    case OpType::kAppend:
      for (const Record& r : op.records) model->AppendInput(r.key, r.timestamp, r.value);
      return;
    case OpType::kProcess:
      model->Process(op.n, *now_ms);
      return;
    case OpType::kAdvanceClock:
      *now_ms += op.n;
      return;
    case OpType::kCommit:
      model->Commit();
      return;
    case OpType::kCrash:
      model->Crash();
      return;
    case OpType::kRestart:
      model->Restart();
      return;
    case OpType::kFetch:
    case OpType::kFetchAll:
    case OpType::kFetchRange:
    case OpType::kMetrics:
      return;  // A read changes nothing.
  }
}

Op AllWindows() {
  Op op;
  op.type = OpType::kFetchAll;
  op.from = std::numeric_limits<int64_t>::min();
  op.to = std::numeric_limits<int64_t>::max();
  return op;
}

model::StoreQuery QueryOf(const Op& op) {
  model::StoreQuery q;
  if (op.type == OpType::kFetch) q.key_from = q.key_to = op.key;
  if (op.type == OpType::kFetchRange) {
    q.key_from = op.key_from;
    q.key_to = op.key_to;
  }
  q.time_from = op.from;
  q.time_to = op.to;
  q.backward = op.backward;
  return q;
}

Json WindowsJson(const std::map<std::string, std::string>& windows,
                 const std::vector<std::string>& names) {
  Json out = Json::array();
  for (const std::string& name : names) {
    int64_t start = 0, end = 0;
    std::string key;
    const auto it = windows.find(name);
    if (it == windows.end() || !model::ParseWindowName(name, &start, &end, &key)) continue;
    const size_t at = it->second.rfind('@');
    if (at == std::string::npos) continue;
    out.push_back(Json{{"window", Json::array({start, end})},
                       {"key", key},
                       {"value", it->second.substr(0, at)},
                       {"timestamp", std::stoll(it->second.substr(at + 1))}});
  }
  return out;
}

Json SelectWindows(const std::map<std::string, std::string>& windows, const Op& op) {
  std::vector<std::string> names = model::WindowsInQuery(windows, QueryOf(op));
  if (op.backward) std::reverse(names.begin(), names.end());
  return WindowsJson(windows, names);
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

// ---- Sut: the system under test and its steps ----

Status Sut::Start() {
  task_.reset();
  log_.reset();
  if (!model_) return Status::Unimplemented("no model for this window kind in this build");
  Status s = OpenTaskLog(dir_, env_.env.get(), &log_);
  if (!s.ok()) return s.Annotate("opening the log");
  stats_ = std::make_shared<AggregationStats>();
  std::unique_ptr<Processor> processor;
  s = MakeProcessor(config_, stats_, &processor);
  if (!s.ok()) return s.Annotate("the aggregation");
  if (wrap_) processor = wrap_(std::move(processor));
  TaskOptions o = TaskOptionsFor(dir_, env_.env.get(), log_.get(), clock_);
  o.commit_interval_ms = int64_t{1} << 40;  // Commits only when the steps say.
  s = ResolveStateConfig(config_.streams_config, &o.config);
  // Queries see committed aggregates only from a transactional store under READ_COMMITTED.
  queries_see_committed_ =
      !config_.in_memory_store && o.config.isolation == IsolationLevel::kReadCommitted;
  if (s.ok()) s = OpenTask(o, std::move(processor), &task_);
  written_at_open_ = model_->written_output().size();
  return s.Annotate("opening the task");
}

kit::StepResult Sut::Step(const Op& op, const std::optional<Json>& expect) {
  const size_t seen = output_.size();
  const std::vector<model::WindowedOutput>& modelled =
      alos() ? model_->written_output() : model_->committed_output();
  const size_t modelled_before = modelled.size();
  kit::StepResult result;
  result.finding = Apply(op);
  if (!result.finding) result.finding = Check(op);
  if (!result.finding && expect) result.finding = CheckExpected(*expect, seen);
  Json emitted = Json::array();
  for (size_t i = modelled_before; i < modelled.size(); ++i) {
    emitted.push_back(OutputToJson(modelled[i]));
  }
  result.expect =
      Json{{"emitted", std::move(emitted)}, {"dropped_records", model_->dropped_records()}};
  if (!result.finding) HeldAll();
  return result;
}

void Sut::TakeModelNotes() {
  for (std::string& s : model_->TakeNotes()) {
    // E1's are about what was dropped, which the dropped-records check sees at once.
    if (s.rfind("E1.", 0) == 0) {
      Reached(s);
    } else {
      ReachedOnCommit(std::move(s));
    }
  }
}

CheckResult Sut::Apply(const Op& op) {
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
    case OpType::kAppend: {
      for (const Record& r : op.records) {
        int64_t offset = 0;
        const Status s = log_->Append(kInput, r.key, r.value, r.timestamp, &offset);
        if (!s.ok()) return Finding("C1", "appending: " + s.ToString());
      }
      const Status s = log_->Sync();
      if (!s.ok()) return Finding("C1", "syncing: " + s.ToString());
      return std::nullopt;
    }
    case OpType::kProcess: {
      int64_t processed = 0;
      const Status s = task_->Process(op.n, &processed);
      if (!s.ok()) return Finding(OutputRule(), "Process: " + s.ToString());
      if (processed != model_->next_input_offset() - before) {
        return Finding("C1", "processed " + std::to_string(processed) + ", the model " +
                                 std::to_string(model_->next_input_offset() - before));
      }
      return std::nullopt;
    }
    case OpType::kAdvanceClock:
      clock_->Advance(op.n);
      return std::nullopt;
    case OpType::kCommit: {
      const Status s = task_->Commit();
      if (!s.ok()) return Finding("C1", "Commit: " + s.ToString());
      Committed();
      return std::nullopt;
    }
    case OpType::kCrash:
      CountCrash(/*power_loss=*/false);
      task_->Abandon();
      if (!alos()) on_commit_.clear();  // Aborted with the transaction.
      if (!alos() && uncommitted_output) Reached("E6.crash_before_commit");
      if (alos() && uncommitted_output && uncommitted_input) Reached("E6.alos_crash_reemits");
      if (uncommitted_close) Reached("E10.crash_keeps_committed");
      return Restarted(/*clean=*/false);
    case OpType::kRestart: {
      const std::string group = task_->OffsetsGroup();
      const Status s = task_->Close();
      if (!s.ok()) return Finding("C1", "Close: " + s.ToString());
      Committed();
      if (config_.emit_final) {
        if (CheckResult why = AddMetadataEntries(group)) return why;
      }
      return Restarted(/*clean=*/true);
    }
    case OpType::kFetch:
    case OpType::kFetchAll:
    case OpType::kFetchRange:
      return Query(op);
    case OpType::kMetrics:
      return Metrics();
  }
  return Finding(OutputRule(), "unknown op");
}

CheckResult Sut::Metrics() {
  last_metrics_ = Json{{"dropped-records-total", stats_->dropped_records}};
  if (config_.emit_final) last_metrics_["emit-final-records-total"] = stats_->emitted;
  return std::nullopt;
}

CheckResult Sut::AddMetadataEntries(const std::string& group) {
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

CheckResult Sut::Restarted(bool clean) {
  if (const Status s = Start(); !s.ok()) return Finding("E6", s.ToString());
  if (model_->committed_last_emit_close() >= 0) {
    // Checked by the outputs after the next commit: nothing emitted twice.
    ReachedOnCommit("E6.restart_after_emit");
    ReachedOnCommit(metadata_merged_ ? "E10.merged_by_max" : "E10.restored_on_start");
  }
  metadata_merged_ = false;
  std::map<std::string, std::string> store;
  std::vector<std::string> unindexed;
  const Status s = ReadWindows(config_, *task_, &store, &unindexed);
  if (!s.ok()) return Finding("E6", "reading the store after the restart: " + s.ToString());
  if (CheckResult f = UnindexedWindows(unindexed)) return f;
  const std::map<std::string, std::string> expected = model_->CommittedWindows();
  // Checks: E6 — after a restart the store holds exactly the committed aggregates
  if (store != expected) {
    // Checks: E11 — the store keeps every window its read bound lets through, and no other
    const bool at_bound =
        config_.kind == WindowKind::kTime && !config_.in_memory_store &&
        DiffersOnlyAtTheReadBound(SelectWindows(store, AllWindows()),
                                  SelectWindows(expected, AllWindows()), expected);
    return Finding(at_bound ? "E11" : "E6",
                   "after the restart the store holds " + std::to_string(store.size()) +
                       " window aggregates that differ from the " +
                       std::to_string(expected.size()) +
                       " the model has: " + DescribeDifference(store, expected));
  }
  if (!expected.empty()) Reached(clean ? "E6.store_after_restart" : "E6.store_after_crash");
  return std::nullopt;
}

}  // namespace statecheck::properties::windowed
