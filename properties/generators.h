// Generator helpers shared by the properties.
#ifndef STATECHECK_PROPERTIES_GENERATORS_H_
#define STATECHECK_PROPERTIES_GENERATORS_H_

#include <rapidcheck.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace statecheck::properties {

// A present-day epoch millisecond (2025-12-01T00:00Z), around which the generators draw
// timestamps as Kafka's records carry them.
inline constexpr int64_t kPresentDayEpochMs = 1'764'547'200'000;

// A value in [min, max) drawn over the whole range whatever the case's size, shrinking towards
// min. (rapidcheck's inRange narrows the range at small sizes: an operation picker built on it
// would never pick the later operations of its list in short sequences.)
// SplitMix64: derives seeds from a seed (batch seeds, crash-cycle seeds), so every derived
// run replays from the one it came from.
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <class T>
rc::Gen<T> UniformInRange(T min, T max) {
  return rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(min, max));
}

// One of `choices` with probability proportional to its weight, whatever the size; shrinks
// towards the first choice.
template <class T>
T PickWeighted(const std::vector<std::pair<int, T>>& choices) {
  int total = 0;
  for (const auto& [w, c] : choices) total += w;
  int pick = *UniformInRange(0, total);
  for (const auto& [w, c] : choices) {
    if (pick < w) return c;
    pick -= w;
  }
  return choices.front().second;
}

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_GENERATORS_H_
