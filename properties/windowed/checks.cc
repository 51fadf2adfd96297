// The windowed-aggregation property's checks (sut.h): after each step, the task
// against the model — dropped records (E1), the output and which rule a difference breaks
// (E2–E7), the committed input offset (C1) and last emitted close time (E10), metrics, queries
// of the aggregation's store — and against a trace's expectations.
#include <algorithm>

#include "properties/windowed/in_memory_aggregation_store.h"
#include "properties/windowed/sut.h"

namespace statecheck::properties::windowed {

CheckResult Sut::CheckMetrics() const {
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

CheckResult Sut::Query(const Op& op) {
  const bool persistent_time = config_.kind == WindowKind::kTime && !config_.in_memory_store;
  const model::StoreQuery q = QueryOf(op);
  if (config_.kind == WindowKind::kTime) {
    // The engine's own query of the store: E11's read bound and order on the persistent store,
    // W6's and W7's on the in-memory one, are the engine's to keep.
    std::vector<WindowedAggregate> got;
    Status s;
    if (config_.in_memory_store) {
      s = QueryInMemoryTimeWindowAggregates(*task_, StoreOf(config_), config_.size_ms, q, &got);
    } else {
      TimeWindowedAggregationOptions options;
      s = TimeOptionsOf(config_, &options);
      if (s.ok()) {
        const std::shared_ptr<QueryView> view = task_->Store(StoreOf(config_))->NewQueryView();
        s = FetchTimeWindowAggregates(*view, options, q, &got);
      }
    }
    if (!s.ok()) return Finding(OutputRule(), "querying the store: " + s.ToString());
    last_query_ = Json::array();
    for (const WindowedAggregate& w : got) {
      last_query_.push_back(Json{{"window", Json::array({w.window.start, w.window.end})},
                                 {"key", w.key},
                                 {"value", w.aggregate},
                                 {"timestamp", w.timestamp}});
    }
  } else {
    std::map<std::string, std::string> store;
    std::vector<std::string> unindexed;
    const Status s = ReadWindows(config_, *task_, &store, &unindexed);
    if (!s.ok()) return Finding(OutputRule(), "querying the store: " + s.ToString());
    if (CheckResult f = UnindexedWindows(unindexed)) return f;
    last_query_ = SelectWindows(store, op);
  }
  const std::map<std::string, std::string> seen =
      queries_see_committed_ ? model_->CommittedWindows() : model_->CurrentWindows();
  const Json expected = WindowsJson(seen, model_->Query(seen, q));
  if (last_query_ == expected) {
    if (persistent_time) ReachE11(op, seen, expected);
    return std::nullopt;
  }
  const std::map<std::string, std::string> unseen =
      queries_see_committed_ ? model_->CurrentWindows() : model_->CommittedWindows();
  const Json other = WindowsJson(unseen, model_->Query(unseen, q));
  // Checks: T4 — a READ_COMMITTED query of the aggregation's store sees committed windows only
  const char* rule = last_query_ == other ? (queries_see_committed_ ? "T4" : "T3") : nullptr;
  auto sorted = [](Json windows) {
    std::sort(windows.begin(), windows.end());
    return windows;
  };
  if (!rule) {
    // Checks: E11 — a query returns the windows its read bound lets through, in its store's order
    rule = persistent_time && (sorted(last_query_) == sorted(expected) ||
                               DiffersOnlyAtTheReadBound(last_query_, expected, seen))
               ? "E11"
               : OutputRule();
  }
  return Finding(rule, "the query returned " + Dump(last_query_) + "; the model's " +
                           (queries_see_committed_ ? "committed" : "written") + " aggregates are " +
                           Dump(expected));
}

std::optional<Sut::ReadBound> Sut::ReadBoundOf(
    const std::map<std::string, std::string>& seen) const {
  const auto* model = dynamic_cast<const model::WindowedAggregationModel*>(model_.get());
  const int64_t store_time = model::WindowedAggregationModel::StoreTimeOf(seen);
  if (!model || store_time < 0) return std::nullopt;
  return ReadBound{store_time, model->Retention()};
}

bool Sut::DiffersOnlyAtTheReadBound(const Json& got, const Json& expected,
                                    const std::map<std::string, std::string>& seen) const {
  const std::optional<ReadBound> b = ReadBoundOf(seen);
  if (!b) return false;
  // The starts either side of the bound: one store has a window there the other has not.
  const int64_t bound = b->bound();
  auto away = [bound](const Json& windows) {
    Json out = Json::array();
    for (const Json& w : windows) {
      const int64_t start = w["window"][0].get<int64_t>();
      if (start < bound - 1 || start > bound + 1) out.push_back(w);
    }
    return out;
  };
  return away(got) == away(expected);
}

void Sut::ReachE11(const Op& op, const std::map<std::string, std::string>& seen,
                   const Json& returned) {
  const std::optional<ReadBound> b = ReadBoundOf(seen);
  if (!b) return;
  const int64_t bound = b->bound();
  const int64_t default_retention = SaturatingAdd(config_.size_ms, config_.grace_ms);
  if (b->retention > default_retention) {
    for (const Json& w : returned) {
      if (w["window"][0].get<int64_t>() <= b->store_time - default_retention) {
        Reached("E11.kept_by_retention");
      }
    }
  }
  // Emit-eager's key-first order put a later start before an earlier one (another key's).
  for (size_t i = 1; !config_.emit_final && i < returned.size(); ++i) {
    const int64_t before = returned[i - 1]["window"][0].get<int64_t>();
    const int64_t after = returned[i]["window"][0].get<int64_t>();
    if (op.backward ? before < after : before > after) Reached("E11.key_first_order");
  }
  if (config_.emit_final) {
    for (const Json& w : returned) {
      if (w["window"][0].get<int64_t>() == bound) Reached("E11.time_first_bound");
    }
  } else if (bound >= 0 && bound % config_.advance_ms == 0 && op.from <= bound && bound <= op.to) {
    Reached("E11.key_first_bound");
  }
}

CheckResult Sut::Check(const Op& op) {
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
  Status s = log_->Read(kOutput, 0, 1 << 30,
                        alos() ? IsolationLevel::kReadUncommitted : IsolationLevel::kReadCommitted,
                        &records);
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
  if ((op.type == OpType::kCommit || op.type == OpType::kRestart) && close > committed_close_) {
    Reached("E10.committed_with_offset");
  }
  committed_close_ = close;
  return op.type == OpType::kMetrics ? CheckMetrics() : std::nullopt;
}

Finding Sut::ExplainOutput(const std::vector<model::WindowedOutput>& expected,
                           const std::vector<model::EmitInfo>& emits) const {
  size_t p = 0;
  while (p < output_.size() && p < expected.size() && output_[p] == expected[p]) ++p;
  const model::WindowedOutput* e = p < output_.size() ? &output_[p] : nullptr;
  const model::WindowedOutput* m = p < expected.size() ? &expected[p] : nullptr;
  const std::string what = std::string(alos() ? "written" : "committed") + " output from record " +
                           std::to_string(p) + ": the task's " + Show(output_, p) +
                           ", the model's " + Show(expected, p);
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
        return finding(
            "E1", "an update of window " + e->key + ", from which the model dropped a late record");
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

CheckResult Sut::CheckExpected(const Json& expect, size_t seen) const {
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
                                       expect["emitted"].dump() + "; it emitted " + emitted.dump());
    }
  }
  return std::nullopt;
}

}  // namespace statecheck::properties::windowed
