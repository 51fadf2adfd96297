// `statecheck inspect DIR`: what a state directory and a log directory hold, read without
// changing anything. A state directory holds RocksDB stores (a directory with a CURRENT file):
// DIR itself, its subdirectories, or theirs (state/<task>/<store>). Each is opened with
// rocksdb::DB::OpenForReadOnly, with RocksDB's info log discarded so that not even LOG is
// written. A task's directory (the one holding its stores) may also hold the legacy format's
// offset files (SPEC U): `.checkpoint` and `<store>.position`; they are read and shown with
// their entries, or the error that makes them unusable. A log directory holds
// `<partition>.log` files; it is read with InspectLog, which neither locks nor recovers it.
#ifndef STATECHECK_TOOLS_INSPECT_H_
#define STATECHECK_TOOLS_INSPECT_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "statecheck/log.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/status.h"

namespace statecheck::tools {

// One RocksDB store directory.
struct StoreSummary {
  std::string path;
  std::vector<std::string> column_families;
  bool statecheck_store = false;      // Has the "statecheck.meta" column family.
  std::optional<std::string> format;  // The on-disk format version; nullopt = not recorded.
  // What `format` means (SPEC U): "current" ("1"), "legacy" ("0", or not recorded in a store
  // that has data), "new" (not recorded, no data: the first open decides), "unknown" (any
  // other value). "" when the store could not be read.
  std::string format_kind;
  bool open_marker = false;  // The open-status marker is set: not closed cleanly (or still open).
  std::map<std::string, std::string> changelog_offsets;  // Partition → committed offset.
  std::map<std::string, std::string> positions;          // Partition → committed position.
  std::map<std::string, std::string> other_meta;         // Any other metadata key.
  int64_t data_keys = 0;                                 // Keys in column family "default".
  std::string error;  // Why the store could not be read ("" = it could).
};

// One legacy offset file: a task's `.checkpoint` or a store's `<store>.position`.
struct LegacyFileSummary {
  std::string path;
  CheckpointOffsets entries;
  std::vector<std::string> warnings;  // Entries the reader skipped (a negative offset, not -4).
  std::string error;  // Why it cannot be used, as ReadOffsetCheckpoint said ("" = it can).
};

struct InspectReport {
  std::string directory;
  std::vector<StoreSummary> stores;  // Empty (and no legacy files) = not a state directory.
  // The legacy files of DIR and of every directory under it that holds a store, by path.
  std::vector<LegacyFileSummary> legacy_files;
  std::optional<LogSummary> log;  // nullopt = not a log directory.
};

// Reads the store in `path` read-only. A store that cannot be opened is reported in `error`.
StoreSummary InspectStore(const std::string& path);

// The store directories in `dir`: itself, or its subdirectories, or theirs. Sorted.
std::vector<std::string> FindStoreDirs(const std::string& dir);

// The legacy files (`.checkpoint`, `*.position`) directly in `dir`, read; sorted by path.
std::vector<LegacyFileSummary> InspectLegacyFiles(const std::string& dir);

// Inspects `dir`. InvalidArgument with the message to print if it does not exist or is neither
// a state directory (stores or legacy files) nor a log directory; a log's Corruption or IOError
// as InspectLog. A store or legacy file that cannot be read is reported in its `error`.
Status Inspect(const std::string& dir, InspectReport* report);

std::string FormatInspectText(const InspectReport& report);
nlohmann::ordered_json InspectJson(const InspectReport& report);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_INSPECT_H_
