// The in-memory key-value store family (SPEC T3, T6–T8 as they apply to a store that writes
// through), declared to the kit (kit/family.h): random sequences of writes, writer reads,
// interactive-query reads, commits with changelog offsets and rollbacks run in lockstep on the
// in-memory store (statecheck/key_value_store.h, NewInMemoryKeyValueStore: Kafka's
// InMemoryKeyValueStore) and on the key-value model at READ_UNCOMMITTED, the level such a store
// has: every write visible to every reader at once (T3), no uncommitted bytes (T6), a commit
// that records the offsets (T7) and sets the committed position (T8), a rollback refused (T9:
// nothing to discard). The checks and the rules a difference is credited to are the key-value
// families' (key_value/lockstep.h); a failure is saved as an in_memory_kv trace.
#ifndef STATECHECK_PROPERTIES_IN_MEMORY_KV_PROPERTY_H_
#define STATECHECK_PROPERTIES_IN_MEMORY_KV_PROPERTY_H_

#include <functional>
#include <memory>

#include "properties/in_memory_kv/ops.h"
#include "properties/kit/outcome.h"
#include "statecheck/key_value_store.h"

namespace statecheck::properties::in_memory_kv {

// Makes a new, empty in-memory store: the engine's, or a user's own.
using Factory = std::function<std::unique_ptr<KeyValueStore>()>;
Factory EngineFactory();

PropertyOutcome Check(const Factory& sut, const Config& config, const PropertyParams& params);

// in_memory_kv traces replayed against `sut`, the model, or both in lockstep.
TraceKindSpec TraceKind(const Factory& sut);

// The registry's entry: the property against the engine's store, and its traces.
FamilyEntry Entry();

}  // namespace statecheck::properties::in_memory_kv

#endif  // STATECHECK_PROPERTIES_IN_MEMORY_KV_PROPERTY_H_
