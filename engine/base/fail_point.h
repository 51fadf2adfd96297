// internal::FailPoint: one of the engine's named fail points (statecheck/hooks/fail_points.h),
// marked where the engine can fail. Internal to the engine.
#ifndef STATECHECK_ENGINE_FAIL_POINT_H_
#define STATECHECK_ENGINE_FAIL_POINT_H_

#include <string_view>

#include "statecheck/hooks/fail_points.h"
#include "statecheck/status.h"

namespace statecheck::internal {

#ifdef STATECHECK_FAIL_POINTS
// OK, or — when libfiu says the point fires, from how the harness enabled it — the IOError
// "injected fault: <name>", which faults::IsInjectedFault recognizes. Counts the reach and the
// firing (EngineFailPointCounts).
Status FailPoint(std::string_view name);
#else
// A product build (STATECHECK_FAIL_POINTS off): no point ever fires, and the call compiles to
// nothing.
inline Status FailPoint(std::string_view) { return Status::Ok(); }
#endif

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_FAIL_POINT_H_
