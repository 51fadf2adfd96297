// `statecheck checkpoint read FILE`: one offset checkpoint file (statecheck/offset_checkpoint.h)
// — a task's `.checkpoint` or a store's `<store>.position` — read without changing it, and shown
// as text or JSON. `statecheck inspect` shows the legacy files of a state directory the same way.
#ifndef STATECHECK_TOOLS_CHECKPOINT_FILE_H_
#define STATECHECK_TOOLS_CHECKPOINT_FILE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "statecheck/offset_checkpoint.h"
#include "statecheck/status.h"

namespace statecheck::tools {

struct CheckpointFile {
  std::string path;
  CheckpointOffsets entries;
  std::vector<std::string> warnings;  // Entries the reader skipped (a negative offset, not -4).
};

// Reads the file at `path` into `*out`. Unlike ReadOffsetCheckpoint, for which a missing file is
// an empty map, a missing file is an error here: NotFound "<path>: no such file". Otherwise
// ReadOffsetCheckpoint's IOError or Corruption, unchanged (its message names the file).
Status ReadCheckpointFile(const std::string& path, CheckpointFile* out);

// The entries, one line each, "<topic> <partition> <offset>\n" in (topic, partition) order; the
// unknown offset -4 is shown as "-4 (unknown)". "" for no entries.
std::string FormatCheckpointEntries(const CheckpointOffsets& entries);

// [{"topic": ..., "partition": ..., "offset": ..., "unknown": offset == -4}, ...].
nlohmann::ordered_json CheckpointEntriesJson(const CheckpointOffsets& entries);

// {"file": path, "entries": CheckpointEntriesJson, "warnings": [...]}.
nlohmann::ordered_json CheckpointFileJson(const CheckpointFile& file);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_CHECKPOINT_FILE_H_
