// The windowed-aggregation property's system under test (property.h): a
// task running the aggregation of a configuration on an in-memory file system beside its model,
// each step applied to both (sut.cc) and checked (checks.cc); and the helpers
// the property's other parts share with it (the processor, the model, the task's log and
// options, reading the store's windows).
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
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/kit/family.h"
#include "properties/windowed/aggregation_stores.h"
#include "properties/windowed/property.h"
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
bool AtLeastOnce(const Config& config);

// The store the aggregation of `config` keeps its windows in.
std::string StoreOf(const Config& config);

// The in-memory window store's retention in the property: above the span of the timestamps the
// generator makes (below 6 advances + size + grace), so the store's own expiry — Kafka's, by the
// largest window start it holds — never takes a window the model keeps. With a retention of
// size + grace it would: statecheck/windowed_aggregation.h, AggregationStoreType.
constexpr int64_t kInMemoryRetentionMs = 1000;

// The time windows of `config`.
Status WindowsOf(const Config& config, TimeWindows* out);

// Kafka's test aggregators (model::AggregatorKind) as the engine takes them.
Aggregator AggregatorOf(model::AggregatorKind kind);

// The options of a time-window aggregation of `config` (no stats).
Status TimeOptionsOf(const Config& config, TimeWindowedAggregationOptions* out);

// The aggregation processor of `config`, reporting to `stats`.
Status MakeProcessor(const Config& config, std::shared_ptr<AggregationStats> stats,
                     std::unique_ptr<Processor>* out);

// The model of `config`'s aggregation (nullptr for a window kind this build has none of).
std::unique_ptr<model::AggregationModel> MakeModel(const Config& config);

// The windows the task's store holds, decoded by the property (aggregation_stores.h). For a
// sliding-window aggregation, `*unindexed` gets the windows its key index misses (E9); for the
// others it is cleared.
Status ReadWindows(const Config& config, Task& task, std::map<std::string, std::string>* out,
                   std::vector<std::string>* unindexed);
// E9's finding for `unindexed` windows (ReadWindows), or none if there are none.
CheckResult UnindexedWindows(const std::vector<std::string>& unindexed);

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

// The model's query of a query op (IsQuery).
model::StoreQuery QueryOf(const Op& op);
// The windows `names` of `windows` (ReadWindows' or a model's form), in that order, each as
// {"window": [start, end], "key", "value": the aggregate, "timestamp"}.
Json WindowsJson(const std::map<std::string, std::string>& windows,
                 const std::vector<std::string>& names);
// What a query op returns from the windows a store holds, as the harness selects them for the
// stores whose queries it does not ask of the engine: the windows in its key and time ranges, by
// start, then key bytes (reversed for a backward query), as WindowsJson gives them.
Json SelectWindows(const std::map<std::string, std::string>& windows, const Op& op);
// A kFetchAll of every window start.
Op AllWindows();

// `op` on the model alone, at wall-clock time `*now_ms` (which an advanceClock moves).
void ApplyToModel(const Op& op, model::AggregationModel* model, int64_t* now_ms);

// The largest "<store>=<close time>" entry for `store` in committed metadata `text` (';'-separated
// entries, SPEC E10), -1 if none; false if an entry is not of that form. The property's own
// reading, apart from the engine's.
bool ParseEmitClose(const std::string& text, const std::string& store, int64_t* close);

// A task running `config`'s aggregation beside its model: each step applied to both, then
// checked against the model (and a trace's expectations).
class Sut {
 public:
  Sut(std::string dir, const Config& config, ProcessorWrapper wrap = nullptr)
      : dir_(std::move(dir)), config_(config), wrap_(std::move(wrap)), model_(MakeModel(config)) {}
  ~Sut() {
    task_.reset();
    log_.reset();
  }

  // Opens the log and the task; the error says which failed.
  Status Start();

  // A start that failed for another reason than the configuration (InvalidArgument: bad input):
  // the finding, credited to the output's rule, that the kit reports before any step.
  std::optional<Finding> Started() const { return started_; }
  void set_started(std::optional<Finding> finding) { started_ = std::move(finding); }

  // The rule of the output the topology makes: E3 (emit-final), E2 (emit-eager) or E7 (suppress).
  const char* OutputRule() const {
    return config_.suppress ? "E7" : config_.emit_final ? "E3" : "E2";
  }

  // Runs `op` on the engine and the model, then checks them; also against `expect` (a trace's
  // expectations). When every check held, the situations the step reached count (evidence.h).
  // The step's recorded expectation is what the model emitted in it (committed; written under
  // at_least_once) and its dropped-records count after it.
  kit::StepResult Step(const Op& op, const std::optional<Json>& expect);

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
  void TakeModelNotes();

  CheckResult Apply(const Op& op);

  // The task's metrics by Kafka's names: dropped-records-total and, under emit-final,
  // emit-final-records-total (the records this task instance emitted). Checked by Check.
  CheckResult Metrics();

  // After the output checks held: emit-final-records-total is as many records as the model
  // emitted since the task opened (E3). Under exactly_once_v2 only once nothing is uncommitted:
  // until a commit the two may emit the same windows in different task instances (an aborted
  // emission is emitted again), which the output check at the commit judges, with its rule.
  CheckResult CheckMetrics() const;

  // An interactive query of the aggregation's store, read by the property's own decoder through
  // the task's query view, against the model's aggregates: the committed ones under
  // READ_COMMITTED, every one written otherwise. A query that returns the other of the two
  // breaks the isolation level (T4, T3); any other difference, the aggregates the emit strategy
  // outputs.
  CheckResult Query(const Op& op);
  // E11 for the model's windows `seen`: the store's stream time (their largest start), the
  // retention, and Kafka's bound, store time - retention; none without a window or a time-window
  // model.
  struct ReadBound {
    int64_t store_time = 0;
    int64_t retention = 0;
    int64_t bound() const { return store_time - retention; }  // E11's start at the bound.
  };
  std::optional<ReadBound> ReadBoundOf(const std::map<std::string, std::string>& seen) const;
  // E11's situations, for a query `op` that returned `returned` from the model's `seen` windows.
  void ReachE11(const Op& op, const std::map<std::string, std::string>& seen, const Json& returned);
  // Whether query results `got` and `expected` agree but for windows next to the read bound of
  // the model's `seen` windows (E11's attribution).
  bool DiffersOnlyAtTheReadBound(const Json& got, const Json& expected,
                                 const std::map<std::string, std::string>& seen) const;

  // At a clean restart under emit-final (a crash restarts from the metadata as committed): the
  // committed metadata gets, besides the task's
  // "<store>=<close>", a lower entry for the same store and a higher one for another store, as
  // metadata merged from several commits would hold; the task must start from the largest entry
  // of its own store (E10).
  CheckResult AddMetadataEntries(const std::string& group);

  // After a restart: the store holds exactly the committed aggregates (E6).
  CheckResult Restarted(bool clean);

  // The checks after a step against the model (checks.cc, as the four below): dropped
  // records (E1), the output (ExplainOutput), the committed input offset (C1) and last emitted
  // close time (E10), and after a metrics step the emit-final count.
  CheckResult Check(const Op& op);

  // Which rule the first difference between the output the task wrote (output_) and the
  // model's (`expected`, whose records came about as `emits` says) breaks.
  Finding ExplainOutput(const std::vector<model::WindowedOutput>& expected,
                        const std::vector<model::EmitInfo>& emits) const;

  // A trace's expectations: what this step committed to the output (it had `seen` before) and
  // the dropped-records count after it.
  CheckResult CheckExpected(const Json& expect, size_t seen) const;

  const std::string dir_;
  const Config config_;
  const ProcessorWrapper wrap_;
  const faults::FaultEnv env_ = NewCaseEnv();  // Outlives the log and the task.
  std::optional<Finding> started_;
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
