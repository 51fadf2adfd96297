// The legacy state format's files of one task (SPEC U; statecheck/task.h, "Formats"): Kafka's
// `<state_directory>/.checkpoint` (each store's changelog offset) and `<store>.position` (each
// store's committed position), read once when the task opens and written where the format
// says. Internal to the engine (engine/runtime/task.cc).
#ifndef STATECHECK_ENGINE_LEGACY_FILES_H_
#define STATECHECK_ENGINE_LEGACY_FILES_H_

#include <rocksdb/env.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/runtime/restore_plan.h"
#include "statecheck/key_value_store.h"
#include "statecheck/logger.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/status.h"

namespace statecheck::internal {

// A key-value store of the task as its legacy files name it.
struct LegacyStore {
  std::string name;
  std::string changelog;
};

// What a write of the files records of one store.
struct LegacyStoreState {
  std::string name;
  std::string changelog;
  std::optional<int64_t> last_changelog_offset;  // nullopt: none yet (written as -4).
  Position committed_position;
};

class LegacyFiles {
 public:
  // The files of task `task_id` in `state_directory`, through `env` (null: the default).
  LegacyFiles(rocksdb::Env* env, std::string state_directory, std::string task_id,
              std::shared_ptr<Logger> logger);

  // Reads .checkpoint and each store's .position file. A file that cannot be trusted (any
  // content error, or an entry skipped as invalid) is logged and marked damaged: the stores it
  // covers are wiped and restored in full (U5). An I/O error is returned (F1).
  Status Load(const std::vector<LegacyStore>& stores);

  // Whether Load found any of the files (damaged ones included).
  bool found() const { return found_; }
  // What the files say of `store`; `*offset` is set with LegacyEntry::kOffset.
  LegacyEntry EntryOf(const LegacyStore& store, int64_t* offset) const;
  // The committed position its .position file gave `store` (empty: none, or untrusted).
  Position PositionOf(const std::string& store) const;

  // Deletes .checkpoint and the .position file of each of `stores` (those that exist).
  Status Delete(const std::vector<LegacyStore>& stores) const;
  // Writes .checkpoint with every store's last changelog offset, then each store's committed
  // position in its .position file.
  Status Write(const std::vector<LegacyStoreState>& stores) const;

 private:
  std::string CheckpointPath() const;
  std::string PositionPath(const std::string& store) const;
  // Logs why a file cannot be trusted; false when it can.
  bool Untrusted(const Status& s, const std::vector<std::string>& warnings, const std::string& file,
                 const std::string& covers) const;

  rocksdb::Env* const env_;
  const std::string state_directory_;
  const std::string task_id_;
  const std::shared_ptr<Logger> logger_;
  bool found_ = false;
  CheckpointOffsets checkpoint_;
  bool checkpoint_damaged_ = false;
  std::map<std::string, Position> positions_;  // Per store.
  std::set<std::string> position_damaged_;
};

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_LEGACY_FILES_H_
