// The task family's generator: the steps of a case (Op), drawn by what the case's
// configuration allows and the state the steps so far left (property.cc declares them to the
// state-machine kit).
#ifndef STATECHECK_PROPERTIES_TASK_GENERATOR_H_
#define STATECHECK_PROPERTIES_TASK_GENERATOR_H_

#include <rapidcheck.h>

#include <memory>
#include <ostream>
#include <utility>

#include "properties/rapidcheck_runner.h"
#include "properties/task/ops.h"
#include "properties/task/sut.h"

namespace statecheck::properties::task {

// What the generator knows of a case: its configuration's choices, and the format the task
// runs in now.
struct GenState {
  bool power_loss = false;
  bool format_switches = false;
  bool legacy = false;  // The format the task runs in now.
  bool crashes = true;  // Config::crashes: crash and power-loss steps are generated.
  // Setup::changelog_compaction: the log's compaction fail points can fire in a commit.
  bool compaction = false;
};

// The next step of a case in state `state`.
rc::Gen<Op> GenOp(const GenState& state);

}  // namespace statecheck::properties::task

#endif  // STATECHECK_PROPERTIES_TASK_GENERATOR_H_
