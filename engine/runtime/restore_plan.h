// What a task does with one of its RocksDB stores once it has opened it and before it restores
// it from its changelog (statecheck/task.h, "Formats"; SPEC T10, U1–U5): keep it, import the
// legacy files into it, or wipe it. The decision alone, without I/O, so that each of its rows is
// tested (restore_plan_test.cc); the task carries it out (engine/runtime/task.cc).
#ifndef STATECHECK_ENGINE_RESTORE_PLAN_H_
#define STATECHECK_ENGINE_RESTORE_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>

#include "statecheck/state_config.h"

namespace statecheck::internal {

// What the task's legacy files (.checkpoint and the store's .position) say of the store.
enum class LegacyEntry {
  kOffset,     // .checkpoint holds the store's changelog offset.
  kUnknown,    // .checkpoint holds the changelog with offset -4 (none yet): restore from 0.
  kMissing,    // .checkpoint has no entry for the changelog (or there is no .checkpoint).
  kUntrusted,  // .checkpoint or the store's .position file cannot be trusted (U5).
};

struct StoreOpenFacts {
  bool legacy_configured = false;           // state.format=legacy.
  bool eos = false;                         // processing.guarantee=exactly_once_v2.
  bool wipe_on_unclean_shutdown = false;    // The T1 row's choice.
  std::optional<StateFormat> found_format;  // The store's format on disk; nullopt: a new store.
  bool was_closed_cleanly = true;           // The store's open-status marker was clear.
  LegacyEntry legacy = LegacyEntry::kMissing;
  int64_t legacy_offset = 0;  // With LegacyEntry::kOffset.
};

enum class StoreOpenAction {
  kKeep,    // Restore after the offset the store holds (legacy format: its .checkpoint entry).
  kImport,  // An upgrade (U1): import the legacy files' offset and position into the store.
  kWipe,    // Wipe the store, then restore it from offset 0.
};

struct StoreOpenPlan {
  StoreOpenAction action = StoreOpenAction::kKeep;
  // kWipe: why, to be logged as "... because <wipe_why>."; empty for a wipe after an unclean
  // shutdown (T10), which is logged in Kafka Streams' words instead.
  std::string wipe_why;
  // kKeep in the legacy format: the offset to restore after (nullopt: from 0). kImport: the
  // offset to import (nullopt: none).
  std::optional<int64_t> legacy_offset;
  // As the restore reports it: a store being upgraded counts as closed cleanly, since its
  // legacy files, not its marker, say how it was closed.
  bool was_closed_cleanly = true;
};

StoreOpenPlan PlanStoreOpen(const StoreOpenFacts& facts);

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_RESTORE_PLAN_H_
