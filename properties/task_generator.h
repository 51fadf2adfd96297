// The task family's generator: the steps of a case (TaskOp), drawn by what the case's
// configuration allows and the state the steps so far left (properties/task_property.cc runs
// them through rapidcheck's state machine).
#ifndef STATECHECK_PROPERTIES_TASK_GENERATOR_H_
#define STATECHECK_PROPERTIES_TASK_GENERATOR_H_

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <memory>
#include <ostream>
#include <utility>

#include "properties/rapidcheck_runner.h"
#include "properties/task_sut.h"
#include "properties/task_trace.h"

namespace statecheck::properties {

// What the generator knows of a case: its configuration's choices, and the format the task
// runs in now.
struct TaskGenState {
  bool power_loss = false;
  bool format_switches = false;
  bool legacy = false;  // The format the task runs in now.
  bool crashes = true;  // TaskConfig::crashes: crash and power-loss steps are generated.
  // TaskSetup::changelog_compaction: the log's compaction fail points can fire in a commit.
  bool compaction = false;
};

using TaskStepCommand = rc::state::Command<TaskGenState, TaskSut>;

// One step of a case as rapidcheck's state machine runs it: on both sides of the TaskSut, a
// failed check failing the case.
class TaskCommand final : public TaskStepCommand {
 public:
  explicit TaskCommand(TaskOp op) : op_(std::move(op)) {}
  void checkPreconditions(const TaskGenState& state) const override {
    RC_PRE(op_.type != TaskOpType::kFaultyUpgrade || state.legacy);
  }
  void apply(TaskGenState& state) const override {
    if (op_.type == TaskOpType::kRestartAs || op_.type == TaskOpType::kDamageFile ||
        op_.type == TaskOpType::kFaultyUpgrade) {
      state.legacy = op_.format == StateFormat::kLegacy;
    }
  }
  void run(const TaskGenState&, TaskSut& sut) const override {
    if (CheckResult why = sut.Step(op_)) Fail(std::move(*why));
  }
  void show(std::ostream& os) const override { os << TaskOpToString(op_); }

 private:
  TaskOp op_;
};

// The next step of a case in state `state`.
rc::Gen<TaskOp> GenTaskOp(const TaskGenState& state);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_TASK_GENERATOR_H_
