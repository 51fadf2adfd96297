// The planted-bug catalogue: deliberate bugs in the engine, each named, described and tied to
// the SPEC rules it breaks, for `statecheck selftest` to show that the harness catches them
// (who tests the tester). They are compiled only into the dedicated planted build
// (-DSTATECHECK_PLANTED_BUGS=ON, `ci/build.sh planted`); in every other build the catalogue is
// empty and each plant site is the constant `false`, removed by the compiler.
//
// At most one bug is active at a time. It is chosen by Activate, or for a whole process (and
// the children it forks) by the environment variable STATECHECK_PLANTED_BUG=<name>, read once
// at the first plant site reached — which is how a replay command of a selftest finding brings
// its bug back.
#ifndef STATECHECK_HOOKS_PLANTED_BUGS_H_
#define STATECHECK_HOOKS_PLANTED_BUGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "statecheck/status.h"

namespace statecheck::planted {

struct PlantedBug {
  std::string_view id;           // Its plant sites test STATECHECK_PLANTED(<id>).
  std::string_view name;         // "window_store/drop_rule_off_by_one"
  std::string_view rules;        // The SPEC rules it breaks: "W3,W6".
  std::string_view description;  // What the engine does wrong, in one or two sentences.
  std::string_view modelled_on;  // The real bug it is modelled on (tracker id and title).
  std::string_view file;         // Where it is planted: "engine/store/in_memory_window_store.cc".
};

// Whether this build has the planted bugs (the planted build) or none (every other build).
bool Compiled();

// Every planted bug, in catalogue order; empty unless Compiled().
const std::vector<PlantedBug>& Catalogue();

// Makes `name` the active bug (replacing any other). InvalidArgument naming the problem when the
// build has no planted bugs or no bug has that name.
Status Activate(std::string_view name);

// No bug active (the engine as built without them).
void DeactivateAll();

// The active bug's name, or "" for none.
std::string ActiveName();

}  // namespace statecheck::planted

#endif  // STATECHECK_HOOKS_PLANTED_BUGS_H_
