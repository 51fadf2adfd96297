// The windowed-aggregation property's system under test (windowed_aggregation_property.h): a
// task running the aggregation of a configuration on an in-memory file system beside its model,
// each step applied to both and checked; and the helpers the property's other parts share with
// it (the processor, the model, the task's log and options, reading the store's windows).
#ifndef STATECHECK_PROPERTIES_WINDOWED_SUT_H_
#define STATECHECK_PROPERTIES_WINDOWED_SUT_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "faults/fault_fs.h"
#include "model/windowed_aggregation_model.h"
#include "properties/aggregation_stores.h"
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/windowed_aggregation_property.h"
#include "statecheck/log.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"
#include "statecheck/windows.h"

namespace statecheck::properties::windowed {

// Output records `from` on, for a finding.
std::string Show(const std::vector<model::WindowedOutput>& out, size_t from = 0);

// An output record as a trace's "expect" shows it: the window apart from the key.
Json OutputToJson(const model::WindowedOutput& o);

// The task's input and output partitions.
constexpr char kInput[] = "input";
constexpr char kOutput[] = "output";

// Whether `config` runs at-least-once.
bool AtLeastOnce(const WindowedAggregationConfig& config);

// The store the aggregation of `config` keeps its windows in.
std::string StoreOf(const WindowedAggregationConfig& config);

// The in-memory window store's retention in the property: above the span of the timestamps the
// generator makes (below 6 advances + size + grace), so the store's own expiry — Kafka's, by the
// largest window start it holds — never takes a window the model keeps. With a retention of
// size + grace it would: statecheck/windowed_aggregation.h, AggregationStoreType.
constexpr int64_t kInMemoryRetentionMs = 1000;

// The time windows of `config`.
Status WindowsOf(const WindowedAggregationConfig& config, TimeWindows* out);

// Kafka's test aggregators (model::AggregatorKind) as the engine takes them.
Aggregator AggregatorOf(model::AggregatorKind kind);

// The aggregation processor of `config`, reporting to `stats`.
Status MakeProcessor(const WindowedAggregationConfig& config,
                     std::shared_ptr<AggregationStats> stats, std::unique_ptr<Processor>* out);

// The model of `config`'s aggregation (nullptr for a window kind this build has none of).
std::unique_ptr<model::AggregationModel> MakeModel(const WindowedAggregationConfig& config);

// The windows the task's store holds, decoded by the property (aggregation_stores.h).
Status ReadWindows(const WindowedAggregationConfig& config, Task& task,
                   std::map<std::string, std::string>* out);

// The file system a case's task runs on: in memory, as the task family's (#17). These cases
// crash the process, never the machine, and a process crash keeps every byte written, so the
// disk's fsyncs would only be waited for; on a real disk two workers queue on them.
faults::FaultEnv NewCaseEnv();

// A task's log under `dir`/log, on `env`.
Status OpenTaskLog(const std::string& dir, rocksdb::Env* env, std::unique_ptr<Log>* log);

// The options of a task reading kInput and writing kOutput, its stores under `dir`/state on
// `env`.
TaskOptions TaskOptionsFor(const std::string& dir, rocksdb::Env* env, Log* log,
                           std::shared_ptr<Clock> clock);

// What a query (kFetch, kFetchAll) returns from `windows` (ReadWindows' or a model's form): the
// windows starting in [op.from, op.to] (of op.key for kFetch), by start, then key bytes, each as
// {"window": [start, end], "key", "value": the aggregate, "timestamp"}.
Json SelectWindows(const std::map<std::string, std::string>& windows, const WOp& op);

// `op` on the model alone, at wall-clock time `*now_ms` (which an advanceClock moves).
void ApplyToModel(const WOp& op, model::AggregationModel* model, int64_t* now_ms);

// The largest "<store>=<close time>" entry for `store` in committed metadata `text` (';'-separated
// entries, SPEC E10), -1 if none; false if an entry is not of that form. The property's own
// reading, apart from the engine's.
bool ParseEmitClose(const std::string& text, const std::string& store, int64_t* close);

// A task running `config`'s aggregation beside its model: each step applied to both, then
// checked against the model (and a trace's expectations).
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
    // Queries see committed aggregates only from a transactional store under READ_COMMITTED.
    queries_see_committed_ =
        !config_.in_memory_store && o.config.isolation == IsolationLevel::kReadCommitted;
    if (s.ok()) s = OpenTask(o, std::move(processor), &task_);
    written_at_open_ = model_->written_output().size();
    return s.ok() ? "" : "opening the task: " + s.ToString();
  }

  // The rule of the output the emit strategy makes: E3 (emit-final) or E2 (emit-eager).
  const char* OutputRule() const {
    return config_.suppress ? "E7" : config_.emit_final ? "E3" : "E2";
  }

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
  // Keys come from traces: invalid UTF-8 is replaced, not thrown.
  static std::string Dump(const Json& j) {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
  }

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
        for (const WRecord& r : op.records) {
          int64_t offset = 0;
          const Status s = log_->Append(kInput, r.key, r.value, r.timestamp, &offset);
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
      case WOpType::kFetch:
      case WOpType::kFetchAll:
        return Query(op);
      case WOpType::kMetrics:
        return Metrics();
    }
    return Finding(OutputRule(), "unknown op");
  }

  // The task's metrics by Kafka's names: dropped-records-total and, under emit-final,
  // emit-final-records-total (the records this task instance emitted). Checked by Check.
  CheckResult Metrics() {
    last_metrics_ = Json{{"dropped-records-total", stats_->dropped_records}};
    if (config_.emit_final) last_metrics_["emit-final-records-total"] = stats_->emitted;
    return std::nullopt;
  }

  // After the output checks held: emit-final-records-total is as many records as the model
  // emitted since the task opened (E3). Under exactly_once_v2 only once nothing is uncommitted:
  // until a commit the two may emit the same windows in different task instances (an aborted
  // emission is emitted again), which the output check at the commit judges, with its rule.
  CheckResult CheckMetrics() const {
    if (!last_metrics_.contains("emit-final-records-total")) return std::nullopt;
    if (!alos() && model_->written_output().size() != model_->committed_output().size()) {
      return std::nullopt;
    }
    const auto expected = static_cast<int64_t>(model_->written_output().size() - written_at_open_);
    // Checks: E3 — emit-final-records-total counts the records this task instance emitted
    if (stats_->emitted == expected) return std::nullopt;
    return Finding("E3", "emit-final-records-total is " + std::to_string(stats_->emitted) +
                             "; the model emitted " + std::to_string(expected) +
                             " since the task opened");
  }

  // An interactive query of the aggregation's store, read by the property's own decoder through
  // the task's query view, against the model's aggregates: the committed ones under
  // READ_COMMITTED, every one written otherwise. A query that returns the other of the two
  // breaks the isolation level (T4, T3); any other difference, the aggregates the emit strategy
  // outputs.
  CheckResult Query(const WOp& op) {
    std::map<std::string, std::string> store;
    const Status s = ReadWindows(config_, *task_, &store);
    if (!s.ok()) return Finding(OutputRule(), "querying the store: " + s.ToString());
    last_query_ = SelectWindows(store, op);
    const Json expected = SelectWindows(
        queries_see_committed_ ? model_->CommittedWindows() : model_->CurrentWindows(), op);
    if (last_query_ == expected) return std::nullopt;
    const Json other = SelectWindows(
        queries_see_committed_ ? model_->CurrentWindows() : model_->CommittedWindows(), op);
    // Checks: T4 — a READ_COMMITTED query of the aggregation's store sees committed windows only
    const char* rule = last_query_ == other ? (queries_see_committed_ ? "T4" : "T3") : OutputRule();
    return Finding(rule, "the query returned " + Dump(last_query_) + "; the model's " +
                             (queries_see_committed_ ? "committed" : "written") +
                             " aggregates are " + Dump(expected));
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
    return op.type == WOpType::kMetrics ? CheckMetrics() : std::nullopt;
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
    // Checks: E7 — suppress(untilWindowCloses) emits what the model's suppress emits, in order
    if (config_.suppress) return finding("E7", "suppress(untilWindowCloses)'s output");
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
    if (expect.contains("metrics")) {
      for (const auto& [name, value] : expect["metrics"].items()) {
        if (!last_metrics_.contains(name) || last_metrics_[name] != value) {
          return Finding(name == "dropped-records-total" ? "E1" : "E3",
                         "the trace expects metric " + name + " = " + value.dump() + "; it is " +
                             (last_metrics_.contains(name) ? last_metrics_[name].dump()
                                                           : std::string("not reported")));
        }
      }
    }
    if (expect.contains("windows")) {
      const Json& want = expect["windows"];
      bool same = want.size() == last_query_.size();
      for (size_t i = 0; same && i < want.size(); ++i) {
        same = SameEmittedRecord(want[i], last_query_[i]);
      }
      if (!same) {
        return Finding(OutputRule(), "the trace expects the query to return " + Dump(want) +
                                         "; it returned " + Dump(last_query_));
      }
    }
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
  bool queries_see_committed_ = false;
  Json last_query_ = Json::array();     // What the last kFetch or kFetchAll returned.
  Json last_metrics_ = Json::object();  // What the last kMetrics read.
  size_t written_at_open_ = 0;          // The model's written output when the task opened.
  std::vector<std::string> on_commit_;  // Situations waiting for a commit.
  int64_t committed_close_ = -1;        // The last emitted close time committed so far.
  bool metadata_merged_ = false;        // The next start reads metadata AddMetadataEntries wrote.
};

}  // namespace statecheck::properties::windowed

#endif  // STATECHECK_PROPERTIES_WINDOWED_SUT_H_
