// The transactional key-value store property (SPEC T1–T9): random sequences of writes, writer
// reads, interactive-query reads, commits with changelog offsets, rollbacks and close/reopen
// run in lockstep on the store under test and on the model; after every step the results, the
// uncommitted bytes, both positions and the committed offsets must be equal.
//
// It runs over the whole T1 matrix (processing guarantee × isolation setting, resolved by
// ResolveStateConfig) and RocksDB variants (WAL on/off, a tiny write buffer so that flushes
// happen mid-run).
#ifndef STATECHECK_PROPERTIES_KV_STORE_PROPERTY_H_
#define STATECHECK_PROPERTIES_KV_STORE_PROPERTY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "properties/window_store_property.h"
#include "statecheck/key_value_store.h"
#include "statecheck/state_config.h"

namespace statecheck::properties {

struct KvStoreConfig {
  std::string label;  // e.g. "eos_unset_nowal": test names and report ids.
  std::map<std::string, std::string> streams_config;  // The T1 keys.
  bool use_wal = false;
  int64_t write_buffer_size = 0;  // 0 = RocksDB's default; small = flushes mid-run.
};

// The T1 matrix (6 rows) × {no WAL, WAL, no WAL with a 64 KiB write buffer}.
std::vector<KvStoreConfig> KvStoreOptionMatrix();

// Opens the store under test in `directory` with the effective isolation level; called again
// on reopen with the same directory.
using KvStoreFactory =
    std::function<Status(const std::string& directory, IsolationLevel isolation,
                         const KvStoreConfig& config, std::unique_ptr<KeyValueStore>* store)>;

// The engine's RocksDB store.
KvStoreFactory EngineKvStoreFactory();

// The property for one configuration; stores live under `params.trace_dir`'s sibling scratch
// directory (a fresh one per case).
PropertyOutcome CheckKvStoreMatchesModel(const KvStoreFactory& sut, const KvStoreConfig& config,
                                         const PropertyParams& params);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_KV_STORE_PROPERTY_H_
