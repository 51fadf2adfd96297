// The state-machine kit: a family declares its configurations, operations and system under test
// once (below), and gets from here the rapidcheck command, the property driver, saved failing
// traces, replay with one outcome shape, and its registry entries. A thin layer over
// rc::state, as in rapidcheck's own examples: one Command holding one drawn operation.
//
// A family F declares, beside its vocabulary (trace.h: kind, config, op, op <-> JSON):
//
//   struct F {
//     using Vocabulary = V;
//     using Model = ...;  // What the generator knows of the state (rapidcheck's model).
//     using Sut = ...;    // One case's system under test (below).
//     static constexpr std::string_view kStartRule = "T7";  // The rule a failed start breaks.
//     static Model InitialModel(const V::Config&);
//     static rc::Gen<V::Op> GenOp(const Model&);
//     // False: not a case (shrinking dropped an operation this one needs).
//     static bool Precondition(const Model&, const V::Op&);
//     static void Next(Model&, const V::Op&);  // The next state, from the operation alone.
//     // Optional: a check of the configuration before any case (T1's row, say).
//     static std::optional<Finding> Preflight(const V::Config&);
//     // Optional: each case's configuration, drawn from the property's (the task family's
//     // per-case settings); a saved trace holds the drawn one.
//     static rc::Gen<V::Config> GenConfig(const V::Config&);
//   };
//
//   class Sut {
//    public:
//     // Runs `op`, checks it (against `expect` when a trace gives one), and says what failed
//     // and what a saved trace records as the step's expectation.
//     StepResult Step(const V::Op& op, const std::optional<Json>& expect);
//     // Optional: what the start itself broke (a construction that gave another outcome than
//     // the model's or the trace's), a finding before any step.
//     std::optional<Finding> Started() const;
//   };
//
// A Sut is made by a Start<F> (the family's adapter to an implementation), for the property
// (ReplayTarget::kBoth) and for replay (the target asked for). A start that returns
// InvalidArgument could not run the configuration (bad input: nothing would be checked); any
// other error is the implementation failing to start, a finding of kStartRule.
#ifndef STATECHECK_PROPERTIES_KIT_FAMILY_H_
#define STATECHECK_PROPERTIES_KIT_FAMILY_H_

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/kit/gtest.h"
#include "properties/kit/outcome.h"
#include "properties/kit/trace.h"
#include "properties/rapidcheck_runner.h"

namespace statecheck::properties::kit {

// What one step of a system under test answered.
struct StepResult {
  std::optional<Finding> finding;  // The check that failed: its rule and what it saw.
  Json expect;                     // What a saved trace records as the step's expectation.
};

template <class F>
using VocabularyOf = typename F::Vocabulary;
template <class F>
using ConfigOf = typename F::Vocabulary::Config;
template <class F>
using OpOf = typename F::Vocabulary::Op;

template <class F>
concept Family = Vocabulary<typename F::Vocabulary> &&
    requires(const ConfigOf<F>& config, const OpOf<F>& op, typename F::Model& model,
             const typename F::Model& const_model, typename F::Sut& sut,
             const std::optional<Json>& expect) {
  { F::kStartRule } -> std::convertible_to<std::string_view>;
  { F::InitialModel(config) } -> std::same_as<typename F::Model>;
  { F::GenOp(const_model) } -> std::same_as<rc::Gen<OpOf<F>>>;
  { F::Precondition(const_model, op) } -> std::same_as<bool>;
  F::Next(model, op);
  { sut.Step(op, expect) } -> std::same_as<StepResult>;
};

template <class F>
using Start = std::function<Status(const ConfigOf<F>& config, ReplayTarget target,
                                   std::unique_ptr<typename F::Sut>* sut)>;

// One case as rapidcheck runs it: the system under test and the steps so far (the trace a
// failure saves).
template <class F>
struct Case {
  std::unique_ptr<typename F::Sut> sut;
  std::vector<TraceStep<VocabularyOf<F>>> steps;
  int64_t* operations = nullptr;
};

// "step N: <op>: <what>": the message a failed step reports, in the property and in replay.
template <class F>
std::string StepMessage(int step, const OpOf<F>& op, const std::string& what) {
  return "step " + std::to_string(step) + ": " + VocabularyOf<F>::OpToJson(op).dump() + ": " + what;
}

template <Family F>
class Command final : public rc::state::Command<typename F::Model, Case<F>> {
 public:
  explicit Command(OpOf<F> op) : op_(std::move(op)) {}

  void checkPreconditions(const typename F::Model& model) const override {
    RC_PRE(F::Precondition(model, op_));
  }
  void apply(typename F::Model& model) const override { F::Next(model, op_); }
  void run(const typename F::Model&, Case<F>& c) const override {
    StepResult result = c.sut->Step(op_, std::nullopt);
    ++*c.operations;
    std::optional<Json> expect;
    if (!result.expect.is_null()) expect = std::move(result.expect);
    c.steps.push_back({op_, std::move(expect), 0});
    if (result.finding) {
      Finding f = std::move(*result.finding);
      f.message = StepMessage<F>(static_cast<int>(c.steps.size()), op_, f.message);
      Fail(std::move(f));
    }
  }
  void show(std::ostream& os) const override { os << VocabularyOf<F>::OpToJson(op_).dump(); }

 private:
  OpOf<F> op_;
};

// Writes `failing`, the case `out` failed with, as a trace (params.trace_dir), with the run's
// seed, reproduce string (if any) and failure in its header.
template <Family F>
void WriteFailingTrace(Trace<VocabularyOf<F>> failing, const PropertyParams& params,
                       PropertyOutcome* out) {
  if (out->passed || params.trace_dir.empty()) return;
  failing.info["property"] = out->property;
  failing.info["seed"] = params.seed;
  if (!out->reproduce.empty()) failing.info["reproduce"] = out->reproduce;
  failing.info["failure"] = out->message;
  const std::string path = TracePathFor(params, *out);
  const Status s = WriteTraceFile(path, failing);
  if (s.ok()) {
    out->trace_path = path;
  } else {
    out->message += "\n(the trace could not be saved: " + s.ToString() + ")";
  }
}

// Writes the shrunk failing case of a rapidcheck run (one with a reproduce string).
template <Family F>
void SaveFailingTrace(Trace<VocabularyOf<F>> failing, const PropertyParams& params,
                      PropertyOutcome* out) {
  if (out->reproduce.empty()) return;
  WriteFailingTrace<F>(std::move(failing), params, out);
}

// The family's property for one configuration: random operation sequences from
// F::GenOp, each step run and checked by the Sut that `start` makes; a failure is shrunk,
// credited to its check's rule and saved as a trace.
template <Family F>
PropertyOutcome CheckProperty(std::string property, const ConfigOf<F>& config,
                              const Start<F>& start, const PropertyParams& params) {
  PropertyOutcome out;
  out.property = std::move(property);
  if constexpr (requires { F::Preflight(config); }) {
    if (std::optional<Finding> finding = F::Preflight(config)) {
      out.rule = finding->rule;
      out.message = finding->ToString();
      // A trace of no step: its replay fails the same check, at step 0.
      Trace<VocabularyOf<F>> failing;
      failing.config = config;
      WriteFailingTrace<F>(std::move(failing), params, &out);
      return out;
    }
  }
  Trace<VocabularyOf<F>> failing;
  auto body = [&] {
    const CaseScope scope;
    Case<F> c;
    c.operations = &out.operations;
    ConfigOf<F> drawn;
    const ConfigOf<F>* case_config_ptr = &config;
    if constexpr (requires { F::GenConfig(config); }) {
      drawn = *F::GenConfig(config);
      case_config_ptr = &drawn;
    }
    const ConfigOf<F>& case_config = *case_config_ptr;
    failing.config = case_config;  // A start that fails saves a trace of no step.
    failing.steps.clear();
    const Status started = start(case_config, ReplayTarget::kBoth, &c.sut);
    if (!started.ok()) {
      Fail(Finding{std::string(F::kStartRule), "the start failed: " + started.ToString()});
    }
    if constexpr (requires { c.sut->Started(); }) {
      if (std::optional<Finding> finding = c.sut->Started()) Fail(std::move(*finding));
    }
    try {
      rc::state::check(F::InitialModel(case_config), c, [](const typename F::Model& model) {
        return rc::gen::map(F::GenOp(model), [](OpOf<F> op) {
          return std::shared_ptr<const rc::state::Command<typename F::Model, Case<F>>>(
              std::make_shared<Command<F>>(std::move(op)));
        });
      });
    } catch (...) {
      failing.config = case_config;  // The last failing case is the shrunk one.
      failing.steps = std::move(c.steps);
      throw;
    }
  };
  RunProperty(body, params, &out);
  SaveFailingTrace<F>(std::move(failing), params, &out);
  return out;
}

// Replays `trace` on what `start` makes for `target`, step by step, stopping at the first step
// whose check fails (F::Preflight's, where the family has one, is step 0). InvalidArgument when
// the configuration cannot run (bad input).
template <Family F>
Status Replay(const Trace<VocabularyOf<F>>& trace, ReplayTarget target, const Start<F>& start,
              TraceReplay* out) {
  out->steps = static_cast<int>(trace.steps.size());
  auto diverge = [out](int step, int line, std::string op, const Finding& finding) {
    out->diverged = true;
    out->step = step;
    out->line = line;
    out->op = std::move(op);
    out->rule = finding.rule;
    // "<rule>: <what>", or <what> alone for a difference no rule is credited with.
    out->message = finding.rule.empty() ? finding.message : finding.ToString();
    out->verdict = "DIVERGED at step " + std::to_string(step) + " (line " + std::to_string(line) +
                   ")\n  op: " + out->op + "\n  " + out->message + "\n";
  };
  // The configuration's own check, as in the property (T1's row, say): a divergence at step 0.
  if constexpr (requires { F::Preflight(trace.config); }) {
    if (std::optional<Finding> finding = F::Preflight(trace.config)) {
      diverge(0, 1, "start", *finding);
      return Status::Ok();
    }
  }
  std::unique_ptr<typename F::Sut> sut;
  const Status started = start(trace.config, target, &sut);
  if (started.code() == Status::Code::kInvalidArgument) {
    return Status::InvalidArgument("line 1: the configuration cannot run: " + started.message());
  }
  if (!started.ok()) {
    diverge(0, 1, "start",
            Finding{std::string(F::kStartRule), "the start failed: " + started.ToString()});
    return Status::Ok();
  }
  if constexpr (requires { sut->Started(); }) {
    if (std::optional<Finding> finding = sut->Started()) {
      diverge(0, 1, "start", *finding);
      return Status::Ok();
    }
  }
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    const TraceStep<VocabularyOf<F>>& step = trace.steps[i];
    StepResult result = sut->Step(step.op, step.expect);
    if (result.finding) {
      Finding f = std::move(*result.finding);
      f.message = StepMessage<F>(static_cast<int>(i + 1), step.op, f.message);
      diverge(static_cast<int>(i + 1), step.line, VocabularyOf<F>::OpToJson(step.op).dump(), f);
      return Status::Ok();
    }
    ++out->steps_run;
  }
  out->verdict = "OK: all " + std::to_string(out->steps_run) + " steps passed every check\n";
  return Status::Ok();
}

// The registry entry of F's traces: `statecheck replay` and the regression corpus read them.
// `targets` are the ReplayTargets the family's start takes (kBoth always).
template <Family F>
TraceKindSpec TraceKindOf(std::string family, Start<F> start,
                          std::vector<ReplayTarget> targets = {ReplayTarget::kBoth}) {
  using V = VocabularyOf<F>;
  auto replay = [start, targets](std::string_view text, const std::string& path,
                                 ReplayTarget target, TraceReplay* out) -> Status {
    if (std::find(targets.begin(), targets.end(), target) == targets.end()) {
      std::string takes;
      for (ReplayTarget t : targets)
        takes += std::string(takes.empty() ? "" : ", ") + ReplayTargetName(t);
      return Status::InvalidArgument("a " + std::string(V::kKind) + " trace replays against " +
                                     takes + ", not " + ReplayTargetName(target));
    }
    Trace<V> trace;
    if (Status s = ParseTrace(text, path, &trace); !s.ok()) return s;
    out->description = std::to_string(trace.steps.size()) + " steps of " + std::string(V::kKind) +
                       " configuration " + V::ConfigToJson(trace.config).dump() + " against " +
                       ReplayTargetName(target);
    if (trace.info.contains("failure") && trace.info["failure"].is_string()) {
      out->recorded_failure = trace.info["failure"].template get<std::string>();
    }
    return Replay<F>(trace, target, start, out);
  };
  auto emit_gtest = [](std::string_view text, const std::string& source, std::string test_name,
                       std::string* out) {
    Trace<V> trace;  // Bad input is said here, not by the test.
    STATECHECK_RETURN_IF_ERROR(ParseTrace(text, source, &trace));
    return EmitReplayGTest(text, std::string(V::kKind), source, std::move(test_name), out);
  };
  return TraceKindSpec{std::string(V::kKind), std::move(family), std::move(replay),
                       std::move(emit_gtest)};
}

}  // namespace statecheck::properties::kit

#endif  // STATECHECK_PROPERTIES_KIT_FAMILY_H_
