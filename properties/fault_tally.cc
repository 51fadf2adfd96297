#include "properties/fault_tally.h"

#include "faults/fault_fs.h"
#include "statecheck/fail_points.h"

namespace statecheck::properties {
namespace {

FaultTally tally;
bool case_faulted = false;
uint64_t case_fired_before = 0;

// Every fail point that has fired so far, the engine's and the file system's.
uint64_t FiredSoFar() {
  uint64_t fired = 0;
  for (const FailPointCount& c : EngineFailPointCounts()) fired += c.fired;
  for (const auto& [name, c] : faults::FsFailPointCounts()) fired += c.fired;
  return fired;
}

}  // namespace

FaultTally CurrentFaultTally() { return tally; }
void ResetFaultTally() { tally = FaultTally(); }

void BeginCase() {
  case_faulted = false;
  case_fired_before = FiredSoFar();
}

void EndCase() {
  ++tally.cases;
  if (case_faulted || FiredSoFar() != case_fired_before) ++tally.faulted_cases;
}

void CountCrash(bool power_loss) {
  ++tally.crashes;
  if (power_loss) ++tally.power_losses;
  case_faulted = true;
}

}  // namespace statecheck::properties
