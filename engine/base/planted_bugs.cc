#include "statecheck/hooks/planted_bugs.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "engine/base/planted.h"

namespace statecheck::planted {

#ifdef STATECHECK_PLANTED_BUGS

namespace internal {
namespace {

// -1: not yet read from the environment.
std::atomic<int> active{-1};

int IndexOf(std::string_view name) {
  const auto& catalogue = Catalogue();
  for (size_t i = 0; i < catalogue.size(); ++i) {
    if (catalogue[i].name == name) return static_cast<int>(i) + 1;
  }
  return -1;
}

}  // namespace

Id ActiveId() {
  int id = active.load(std::memory_order_acquire);
  if (id < 0) {
    const char* env = std::getenv("STATECHECK_PLANTED_BUG");
    int from_env = 0;
    if (env != nullptr && *env != '\0') {
      from_env = IndexOf(env);
      if (from_env < 0) {
        // A typo must not silently test the correct engine.
        std::fprintf(stderr,
                     "STATECHECK_PLANTED_BUG=%s names no planted bug (see `statecheck "
                     "selftest --list`)\n",
                     env);
        std::abort();
      }
    }
    int expected = -1;
    active.compare_exchange_strong(expected, from_env, std::memory_order_acq_rel);
    id = active.load(std::memory_order_acquire);
  }
  return static_cast<Id>(id);
}

}  // namespace internal

bool Compiled() { return true; }

const std::vector<PlantedBug>& Catalogue() {
  static const std::vector<PlantedBug> catalogue = {
#define STATECHECK_PLANTED_BUG(id, name, rules, file, description, modelled_on) \
  {#id, name, rules, description, modelled_on, file},
#include "engine/base/planted_bugs.inc"
#undef STATECHECK_PLANTED_BUG
  };
  return catalogue;
}

Status Activate(std::string_view name) {
  const int index = internal::IndexOf(name);
  if (index < 0) {
    return Status::InvalidArgument("no planted bug \"" + std::string(name) +
                                   "\"; `statecheck selftest --list` lists them");
  }
  internal::active.store(index, std::memory_order_release);
  return Status::Ok();
}

void DeactivateAll() { internal::active.store(0, std::memory_order_release); }

std::string ActiveName() {
  const int id = static_cast<int>(internal::ActiveId());
  return id == 0 ? "" : std::string(Catalogue()[static_cast<size_t>(id) - 1].name);
}

#else

bool Compiled() { return false; }

const std::vector<PlantedBug>& Catalogue() {
  static const std::vector<PlantedBug> none;
  return none;
}

Status Activate(std::string_view name) {
  return Status::InvalidArgument(
      "this statecheck has no planted bugs (they are compiled only into the planted build): "
      "build it with `ci/build.sh planted` and run build/planted/tools/statecheck");
}

void DeactivateAll() {}

std::string ActiveName() { return ""; }

#endif  // STATECHECK_PLANTED_BUGS

}  // namespace statecheck::planted
