#include "properties/windowed_sut.h"

#include <limits>

#include "model/session_aggregation_model.h"
#include "model/sliding_aggregation_model.h"
#include "model/unlimited_aggregation_model.h"
#include "properties/harness_rocksdb.h"
#include "properties/in_memory_aggregation_store.h"
#include "properties/session_aggregation_store.h"
#include "statecheck/session_aggregation.h"
#include "statecheck/sliding_aggregation.h"
#include "statecheck/unlimited_aggregation.h"

namespace statecheck::properties::windowed {

std::string Show(const std::vector<model::WindowedOutput>& out, size_t from) {
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
    case WindowKind::kUnlimited:
      return "unlimited";
  }
  return "agg";
}

// The time windows of `config`.
Status WindowsOf(const WindowedAggregationConfig& config, TimeWindows* out) {
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

// The aggregation processor of `config`, reporting to `stats`.
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
      a.aggregator = AggregatorOf(config.aggregator);
      a.stats = std::move(stats);
      a.logger = NullLogger();
      if (config.in_memory_store) {
        a.store_type = AggregationStoreType::kInMemory;
        a.retention_ms = kInMemoryRetentionMs;
      }
      return config.suppress ? NewSuppressedTimeWindowedAggregation(a, out)
                             : NewTimeWindowedAggregation(a, out);
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
      mc.aggregator = config.aggregator;
      mc.suppress = config.suppress;
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
Status ReadWindows(const WindowedAggregationConfig& config, Task& task,
                   std::map<std::string, std::string>* out) {
  switch (config.kind) {
    case WindowKind::kTime:
      if (config.in_memory_store) {
        return ReadInMemoryTimeWindowAggregates(task, StoreOf(config), config.size_ms, out);
      }
      return ReadTimeWindowAggregates(*task.Store(StoreOf(config))->NewQueryView(), config.size_ms,
                                      config.aggregator == model::AggregatorKind::kCount, out);
    case WindowKind::kSession:
      return ReadSessionAggregates(*task.Store(StoreOf(config))->NewQueryView(), out);
    case WindowKind::kSliding:
      return ReadTimeWindowAggregates(*task.Store(StoreOf(config))->NewQueryView(), config.size_ms,
                                      /*counts=*/true, out);
    case WindowKind::kUnlimited:
      return ReadUnlimitedAggregates(*task.Store(StoreOf(config))->NewQueryView(), config.start_ms,
                                     config.aggregator == model::AggregatorKind::kCount, out);
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
      for (const WRecord& r : op.records) model->AppendInput(r.key, r.timestamp, r.value);
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
    case WOpType::kFetch:
    case WOpType::kFetchAll:
    case WOpType::kMetrics:
      return;  // A read changes nothing.
  }
}

Json SelectWindows(const std::map<std::string, std::string>& windows, const WOp& op) {
  std::map<std::pair<int64_t, std::string>, Json> selected;  // By start, then key bytes.
  for (const auto& [name, held] : windows) {
    int64_t start = 0, end = 0;
    std::string key;
    const size_t at = held.rfind('@');
    if (!model::ParseWindowName(name, &start, &end, &key) || at == std::string::npos) continue;
    if (start < op.from || start > op.to || (op.type == WOpType::kFetch && key != op.key)) {
      continue;
    }
    selected[{start, key}] = Json{{"window", Json::array({start, end})},
                                  {"key", key},
                                  {"value", held.substr(0, at)},
                                  {"timestamp", std::stoll(held.substr(at + 1))}};
  }
  Json out = Json::array();
  for (auto& [where, record] : selected) out.push_back(std::move(record));
  return out;
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

}  // namespace statecheck::properties::windowed
