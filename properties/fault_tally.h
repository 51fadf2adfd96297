// The faults the properties' cases go through, counted process-wide (like the fail-point
// counters) so that the campaign can attribute them to the property batch that ran: process
// crashes, power losses, and how many cases went through any fault at all — a crash, a power
// loss or a fail point that fired.
//
// A property holds a CaseScope for each case it runs (BeginCase/EndCase; they also delimit the
// case's evidence, evidence.h) and calls CountCrash() at each crash it simulates.
// One property runs at a time (the campaign and the tests run them sequentially).
#ifndef STATECHECK_PROPERTIES_FAULT_TALLY_H_
#define STATECHECK_PROPERTIES_FAULT_TALLY_H_

#include <cstdint>

namespace statecheck::properties {

struct FaultTally {
  int64_t crashes = 0;        // Process crashes, power losses included.
  int64_t power_losses = 0;   // Crashes that also dropped what was not synced.
  int64_t cases = 0;          // Cases ended (shrinking attempts included).
  int64_t faulted_cases = 0;  // Of those, the ones that went through any fault.
};

// The fail points that have fired so far (since their counters were last reset), the file
// system's (injected I/O errors) and the engine's.
struct FailPointsFired {
  uint64_t fs = 0;
  uint64_t engine = 0;
};
FailPointsFired FailPointsFiredSoFar();

FaultTally CurrentFaultTally();
void ResetFaultTally();

void BeginCase();
void EndCase();
void CountCrash(bool power_loss);
// Called at the end of every case (null: nothing): how a campaign worker tells its watchdog
// that cases still end (tools/campaign_workers.h).
void SetCaseEndHook(void (*hook)());

class CaseScope {
 public:
  CaseScope() { BeginCase(); }
  ~CaseScope() { EndCase(); }
  CaseScope(const CaseScope&) = delete;
  CaseScope& operator=(const CaseScope&) = delete;
};

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_FAULT_TALLY_H_
