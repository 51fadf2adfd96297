// The transactional key-value store family (SPEC T1–T9), declared to the kit (kit/family.h):
// random sequences of writes, writer reads, interactive-query reads, commits with changelog
// offsets, rollbacks and close/reopen/crash run in lockstep on the store under test and on the
// model; after every step the results, the uncommitted bytes, both positions and the committed
// offsets must be equal.
//
// It runs over the whole T1 matrix (processing guarantee × isolation setting, resolved by
// ResolveStateConfig) and RocksDB variants (WAL on/off, a tiny write buffer so that flushes
// happen mid-run). A failure is saved as a kv_store trace (ops.h, docs/traces.md) that
// `statecheck replay` runs again, against the engine, the model or both.
#ifndef STATECHECK_PROPERTIES_KV_STORE_PROPERTY_H_
#define STATECHECK_PROPERTIES_KV_STORE_PROPERTY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "properties/kit/outcome.h"
#include "properties/kv_store/ops.h"
#include "statecheck/key_value_store.h"
#include "statecheck/state_config.h"

namespace statecheck::properties::kv_store {

// The T1 matrix (6 rows) × {no WAL, WAL, no WAL with a 64 KiB write buffer}, variant-major:
// the six rows without the WAL first (so that a short campaign, which runs the properties in
// this order, gives every row of the T1 table cases early).
std::vector<Config> OptionMatrix();

// Opens the store under test in `directory` with the effective isolation level; called again
// on reopen with the same directory. An error is the store failing to open (T7).
using Factory = std::function<Status(const std::string& directory, IsolationLevel isolation,
                                     const Config& config, std::unique_ptr<KeyValueStore>* store)>;

// The engine's RocksDB store.
Factory EngineFactory();

// The property for one configuration; stores live in a fresh scratch directory per case
// (KvScratchDirectory).
//
// A step whose results differ fails with a Finding (evidence.h) credited to the rule the
// difference breaks: the writer's reads and conditional writes (T5); an IQ read's result (T4
// under READ_COMMITTED, T3 under READ_UNCOMMITTED) or its reported position (T8); the
// uncommitted bytes (T6); the committed offsets, a commit's status, the open-status marker and
// the data after a clean reopen (T7); the positions (T8); anything after a rollback, and the
// data after a crash (T9). A configuration the engine resolves otherwise than T1's table (or
// refuses) fails with a T1 finding before any case. The situations of T1 and T3–T9
// (reports/rules.json) a step is in count once its comparison held.
PropertyOutcome Check(const Factory& sut, const Config& config, const PropertyParams& params);

// kv_store traces, replayed against `sut` (kEngine: each step's result against the trace's
// expectation), the model (kModel) or both in lockstep (kBoth: they must agree, and with the
// trace). The registry's entry replays against EngineFactory().
TraceKindSpec TraceKind(const Factory& sut);

// The family's registry entry: every configuration's property against the engine, and its
// traces replayed against the engine.
FamilyEntry Entry();

}  // namespace statecheck::properties::kv_store

#endif  // STATECHECK_PROPERTIES_KV_STORE_PROPERTY_H_
