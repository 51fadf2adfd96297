// STATECHECK_FAIL_POINT: marks one of the engine's named fail points (statecheck/fail_points.h).
// Internal to the engine.
#ifndef STATECHECK_ENGINE_FAIL_POINT_H_
#define STATECHECK_ENGINE_FAIL_POINT_H_

#include <string>
#include <string_view>

#include "statecheck/fail_points.h"
#include "statecheck/status.h"

namespace statecheck::internal {

// Whether fail point `name` fires now (libfiu decides, from how the harness enabled it); counts
// the reach and the firing (EngineFailPointCounts).
bool FailPointFires(std::string_view name);

// The error a fired point returns: "injected fault: <name>", what faults::IsInjectedFault knows.
inline Status InjectedFault(std::string_view name) {
  return Status::IOError("injected fault: " + std::string(name));
}

}  // namespace statecheck::internal

// Returns InjectedFault(name) from the enclosing function when the point fires.
#define STATECHECK_FAIL_POINT(name)                       \
  do {                                                    \
    if (::statecheck::internal::FailPointFires(name)) {   \
      return ::statecheck::internal::InjectedFault(name); \
    }                                                     \
  } while (0)

#endif  // STATECHECK_ENGINE_FAIL_POINT_H_
