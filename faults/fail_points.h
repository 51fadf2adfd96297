// Fail points: named places where the engine can be made to fail, driven by a seeded schedule.
//
// The engine marks a fail point with libfiu's macro (`fiu_return_on("statecheck/fs/sync", ...)`);
// FailPoints decides, each time an enabled point is reached, whether it fires, from a
// FaultSpec and a seed — so a run's faults replay from its seed (SPEC F5). Because the points
// are libfiu's, a user can also drive them by name from outside with fiu-ctrl / fiu-run.
//
// Thread safety: all functions may be called from any thread.
#ifndef STATECHECK_FAULTS_FAIL_POINTS_H_
#define STATECHECK_FAULTS_FAIL_POINTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "statecheck/status.h"

namespace statecheck::faults {

// When an enabled fail point fires.
struct FaultSpec {
  enum class Mode {
    kNever,        // Never: the point only counts how often it is reached.
    kOnce,         // At the n-th reach (1-based), once.
    kEveryNth,     // At every n-th reach.
    kProbability,  // At each reach with probability p, from the seed.
  };
  Mode mode = Mode::kNever;
  uint64_t n = 1;
  double p = 0;
  // Instead of failing, kill the process with SIGKILL where the point fires: a crash at exactly
  // that place (the process-crash runner).
  bool kill = false;
  // What a firing point reports (SPEC F1): an I/O error (EIO), a full disk (ENOSPC), or — for
  // appends — a short write: part of the data is written, then the I/O error. libfiu passes it
  // on as the point's failnum (1 + the enumerator), so fiu-ctrl can pick it too.
  enum class Error { kIO, kNoSpace, kShortWrite };
  Error error = Error::kIO;
};

struct FailPointCounts {
  uint64_t reached = 0;  // Times the point was evaluated while enabled.
  uint64_t fired = 0;    // Times it failed.
};

class FailPoints {
 public:
  // Enables `name` with `spec`; decisions for kProbability come from `seed`. Re-enabling a
  // point replaces its schedule and keeps its counts. InvalidArgument for n == 0 or p outside
  // [0, 1]; IOError if libfiu refuses.
  static Status Enable(const std::string& name, const FaultSpec& spec, uint64_t seed);
  // Disables `name` (its counts stay). NotFound if it was not enabled.
  static Status Disable(const std::string& name);
  // Counts of every point enabled since the last Reset, by name.
  static std::vector<std::pair<std::string, FailPointCounts>> Counts();
  // Disables every point and forgets all counts.
  static void Reset();
};

}  // namespace statecheck::faults

#endif  // STATECHECK_FAULTS_FAIL_POINTS_H_
