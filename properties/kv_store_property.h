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

#include <rocksdb/env.h>

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

// The T1 matrix (6 rows) × {no WAL, WAL, no WAL with a 64 KiB write buffer}, variant-major:
// the six rows without the WAL first (so that a short campaign, which runs the properties in
// this order, gives every row of the T1 table cases early).
std::vector<KvStoreConfig> KvStoreOptionMatrix();

// Opens the store under test in `directory` with the effective isolation level; called again
// on reopen with the same directory.
using KvStoreFactory =
    std::function<Status(const std::string& directory, IsolationLevel isolation,
                         const KvStoreConfig& config, std::unique_ptr<KeyValueStore>* store)>;

// The engine's RocksDB store.
KvStoreFactory EngineKvStoreFactory();

// A fresh path (not created) for one case's store: under $STATECHECK_SCRATCH_DIR if set, else
// under /dev/shm when it is a writable directory, else under the system's temp directory.
// These properties check the stores' logic, crashes being process crashes (Abandon), not power
// losses: on a RAM file system a case costs no fsync, which on a loaded disk is ten times the
// rest of the case, and a short campaign gets ten times the cases.
std::string KvScratchDirectory(const std::string& tag);
// The file system those directories are opened on (the process's default one, without RocksDB's
// file preallocation or OPTIONS files; kv_store_engine.cc says why). Lives as long as the
// process.
rocksdb::Env* KvScratchEnv();

// The property for one configuration; stores live in a fresh scratch directory per case.
//
// A step whose results differ fails with a Finding (evidence.h) credited to the rule the
// difference breaks: the writer's reads and conditional writes (T5); an IQ read's result (T4
// under READ_COMMITTED, T3 under READ_UNCOMMITTED) or its reported position (T8); the
// uncommitted bytes (T6); the committed offsets, a commit's status, the open-status marker and
// the data after a clean reopen (T7); the positions (T8); anything after a rollback, and the
// data after a crash (T9). A configuration whose T1 row the engine resolves wrongly fails with
// a T1 finding before any case. The situations of T1 and T3–T9 (reports/rules.json) a step is
// in count once its comparison held.
PropertyOutcome CheckKvStoreMatchesModel(const KvStoreFactory& sut, const KvStoreConfig& config,
                                         const PropertyParams& params);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_KV_STORE_PROPERTY_H_
