#include "properties/fault_tally.h"

#include "faults/fault_fs.h"
#include "properties/evidence.h"
#include "statecheck/hooks/fail_points.h"

namespace statecheck::properties {
namespace {

FaultTally tally;
bool case_faulted = false;
uint64_t case_fired_before = 0;
void (*case_end_hook)() = nullptr;

uint64_t FiredSoFar() {
  const FailPointsFired f = FailPointsFiredSoFar();
  return f.fs + f.engine;
}

}  // namespace

FailPointsFired FailPointsFiredSoFar() {
  FailPointsFired f;
  for (const FailPointCount& c : EngineFailPointCounts()) f.engine += c.fired;
  for (const auto& [name, c] : faults::FsFailPointCounts()) f.fs += c.fired;
  return f;
}

FaultTally CurrentFaultTally() { return tally; }
void ResetFaultTally() { tally = FaultTally(); }

void BeginCase() {
  BeginCaseEvidence();
  case_faulted = false;
  case_fired_before = FiredSoFar();
}

void EndCase() {
  EndCaseEvidence();
  ++tally.cases;
  if (case_faulted || FiredSoFar() != case_fired_before) ++tally.faulted_cases;
  if (case_end_hook != nullptr) case_end_hook();
}

void SetCaseEndHook(void (*hook)()) { case_end_hook = hook; }

void CountCrash(bool power_loss) {
  ++tally.crashes;
  if (power_loss) ++tally.power_losses;
  case_faulted = true;
}

}  // namespace statecheck::properties
