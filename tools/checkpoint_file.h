// `statecheck checkpoint read FILE`: one offset checkpoint file (statecheck/offset_checkpoint.h)
// — a task's `.checkpoint` or a store's `<store>.position` — read without changing it, and shown
// as text or JSON. `statecheck inspect` shows the legacy files of a state directory the same way.
// `statecheck checkpoint write FILE [TOPIC:PARTITION=OFFSET ...]` and `... delete FILE` run the
// engine's legacy writer, which keeps Kafka's OffsetCheckpoint rules: an empty map deletes the
// file, a negative offset other than -4 is refused, a missing directory fails the write.
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

// Adds the command-line entry `arg`, "TOPIC:PARTITION=OFFSET" (e.g. "app-kv-changelog-0_0:0=17";
// -4 is the unknown offset), to `*entries`. InvalidArgument naming the argument for another form,
// a partition or offset that is not a decimal integer of its size, or an entry given twice.
Status ParseCheckpointEntry(std::string_view arg, CheckpointOffsets* entries);

// Writes `entries` to `path` with the engine's writer (WriteOffsetCheckpoint: durably; no entries
// deletes the file, as Kafka's OffsetCheckpoint.write of an empty map does: nothing to delete in
// a missing directory). NotFound "<dir>: no such directory ..." when there are entries and the
// file's directory does not exist (Kafka's write fails there too);
// the writer's InvalidArgument for an entry Kafka's writer refuses (a negative offset other than
// -4, a topic its reader could not read back) or IOError.
Status WriteCheckpointFile(const std::string& path, const CheckpointOffsets& entries);

// The entries, one line each, "<topic> <partition> <offset>\n" in (topic, partition) order; the
// unknown offset -4 is shown as "-4 (unknown)". "" for no entries.
std::string FormatCheckpointEntries(const CheckpointOffsets& entries);

// [{"topic": ..., "partition": ..., "offset": ..., "unknown": offset == -4}, ...].
nlohmann::ordered_json CheckpointEntriesJson(const CheckpointOffsets& entries);

// {"file": path, "entries": CheckpointEntriesJson, "warnings": [...]}.
nlohmann::ordered_json CheckpointFileJson(const CheckpointFile& file);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_CHECKPOINT_FILE_H_
