// Test hooks of the in-memory window store. Internal: not part of the public API.
#ifndef STATECHECK_ENGINE_IN_MEMORY_WINDOW_STORE_INTERNAL_H_
#define STATECHECK_ENGINE_IN_MEMORY_WINDOW_STORE_INTERNAL_H_

#include <cstdint>

#include "statecheck/window_store.h"

namespace statecheck::internal {

// How many segments the store's iterators have examined (snapshotted or skipped) so far;
// -1 when `store` is not an in-memory window store. Lets a test check W10's cost bound without
// timing anything.
int64_t SegmentsExaminedForTesting(const WindowStore& store);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_IN_MEMORY_WINDOW_STORE_INTERNAL_H_
