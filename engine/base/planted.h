// STATECHECK_PLANTED(id): true where the planted bug `id` (engine/base/planted_bugs.inc) is active.
// Internal to the engine. Outside the planted build it is the constant `false`, so
//   if (STATECHECK_PLANTED(WindowStoreDropRuleOffByOne)) { <the bug> } else { <the rule> }
// compiles to the rule alone.
#ifndef STATECHECK_ENGINE_PLANTED_H_
#define STATECHECK_ENGINE_PLANTED_H_

#ifdef STATECHECK_PLANTED_BUGS

#include <atomic>

namespace statecheck::planted::internal {

enum class Id : int {
  kNone = 0,
#define STATECHECK_PLANTED_BUG(id, name, rules, file, description, modelled_on) id,
#include "engine/base/planted_bugs.inc"
#undef STATECHECK_PLANTED_BUG
};

// The active bug (kNone: none); the first call reads STATECHECK_PLANTED_BUG.
Id ActiveId();

}  // namespace statecheck::planted::internal

#define STATECHECK_PLANTED(id) \
  (::statecheck::planted::internal::ActiveId() == ::statecheck::planted::internal::Id::id)

#else

#define STATECHECK_PLANTED(id) false

#endif  // STATECHECK_PLANTED_BUGS

#endif  // STATECHECK_ENGINE_PLANTED_H_
