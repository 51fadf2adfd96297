// Replaying a window-store trace (window_store_trace.h): the engine, the model or both step by
// step, each against the trace's expectations, and a difference of the engine's credited to the
// rule it breaks as the property credits it (window_store_attribution.h).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/window_store_model.h"
#include "properties/window_store_attribution.h"
#include "properties/window_store_trace.h"

namespace statecheck::properties {
namespace {

using window_store::IteratorInfo;

Json ConstructionResult(const Status& s) {
  Json j{{"status", std::string(CodeName(s.code()))}};
  if (!s.ok()) j["message"] = s.message();
  return j;
}

}  // namespace

ReplayOutcome ReplayTrace(const Trace& trace, ReplayTarget target, const WindowStoreFactory& engine,
                          const WindowStoreFactory& model) {
  ReplayOutcome out;
  auto diverge = [&](int step, int line, std::string what, std::string op, Json expected,
                     Json actual, std::string rule) {
    out.diverged = true;
    out.step = step;
    out.line = line;
    out.what = std::move(what);
    out.op = std::move(op);
    out.expected = std::move(expected);
    out.actual = std::move(actual);
    out.rule = std::move(rule);
    return out;
  };

  // The engine (unless the target is the model alone) and the model, which always runs: it is
  // the reference a difference of the engine's is credited by.
  const bool check_engine = target != ReplayTarget::kModel;
  const bool check_model = target != ReplayTarget::kEngine;
  std::unique_ptr<OpRunner> engine_runner, model_runner;
  Json engine_built, model_built;
  if (check_engine)
    engine_built = ConstructionResult(OpRunner::Make(engine, trace.config, &engine_runner));
  model_built = ConstructionResult(OpRunner::Make(model, trace.config, &model_runner));
  for (const auto& [name, result, checked] : {std::tuple{"engine", &engine_built, check_engine},
                                              std::tuple{"model", &model_built, check_model}}) {
    if (!checked) continue;
    if (!trace.construction && (*result)["status"] != "OK") {
      // Nothing would be checked: a config error is bad input, unless the trace expects it.
      out.error = Status::InvalidArgument(
          std::string("line 1: the ") + name +
          " cannot build a store from this config: " + result->value("message", std::string()) +
          " (a trace that checks this failure says so in its header: \"construction\": "
          "{\"status\": " +
          (*result)["status"].dump() + "})");
      return out;
    }
    if (trace.construction && !MatchesExpectation(*trace.construction, *result)) {
      return diverge(0, 1, std::string(name) + " vs trace", "construct", *trace.construction,
                     *result, name == std::string("engine") && *result != model_built ? "W1" : "");
    }
  }
  if (check_engine && check_model && engine_built != model_built) {
    return diverge(0, 1, "engine vs model", "construct", model_built, engine_built, "W1");
  }
  // Construction failed, as it had to.
  if ((check_model && !model_runner) || (check_engine && !engine_runner)) return out;

  model::WindowStoreModel* reference =
      model_runner ? dynamic_cast<model::WindowStoreModel*>(&model_runner->store()) : nullptr;
  std::map<int, IteratorInfo> iterators;
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    const TraceStep& step = trace.steps[i];
    const int index = static_cast<int>(i) + 1;
    const int64_t stream_time_before = reference ? reference->stream_time() : 0;
    const bool closed_before = reference && !reference->is_open();
    const Json expected = model_runner ? StepResult(*model_runner, step.op) : Json();
    if (model_runner) {  // A restore makes a new store.
      reference = dynamic_cast<model::WindowStoreModel*>(&model_runner->store());
    }
    const bool reports = step.op.type == OpType::kPut || step.op.type == OpType::kFetch ||
                         step.op.type == OpType::kScan || step.op.type == OpType::kOpen;
    const model::WindowStoreModelCallReport report =
        reports && reference ? reference->last_call() : model::WindowStoreModelCallReport{};
    const Json actual = check_engine ? StepResult(*engine_runner, step.op) : expected;
    auto info = iterators.find(step.op.iterator);
    const window_store::Step judged{
        step.op,
        index,
        stream_time_before,
        closed_before,
        report,
        expected,
        actual,
        reference ? reference->retention_ms() : 0,
        reference ? reference->window_size_ms() : 0,
        reference && reference->retain_duplicates(),
        OpUsesIterator(step.op.type) && info != iterators.end() ? &info->second : nullptr};
    // The engine's difference from the model, credited as the property credits it.
    const std::string rule =
        check_engine && reference && actual != expected ? window_store::StepRule(judged) : "";
    if (check_engine && step.expect && !MatchesExpectation(*step.expect, actual)) {
      return diverge(index, step.line, "engine vs trace", OpToString(step.op), *step.expect, actual,
                     rule);
    }
    if (check_model && step.expect && !MatchesExpectation(*step.expect, expected)) {
      return diverge(index, step.line, "model vs trace", OpToString(step.op), *step.expect,
                     expected, "");
    }
    if (check_engine && check_model && actual != expected) {
      return diverge(index, step.line, "engine vs model", OpToString(step.op), expected, actual,
                     rule);
    }
    if (reference) window_store::TrackIterators(judged, *reference, &iterators);
    out.steps_run = index;
  }
  return out;
}

}  // namespace statecheck::properties
