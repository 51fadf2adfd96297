// `statecheck inspect DIR`: what a state directory and a log directory hold, read without
// changing anything. A state directory holds RocksDB stores (a directory with a CURRENT file):
// DIR itself, its subdirectories, or theirs (state/<task>/<store>). Each is opened with
// rocksdb::DB::OpenForReadOnly, with RocksDB's info log discarded so that not even LOG is
// written. A log directory holds `<partition>.log` files; it is read with InspectLog, which
// neither locks nor recovers it.
#ifndef STATECHECK_TOOLS_INSPECT_H_
#define STATECHECK_TOOLS_INSPECT_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "statecheck/log.h"
#include "statecheck/status.h"

namespace statecheck::tools {

// One RocksDB store directory.
struct StoreSummary {
  std::string path;
  std::vector<std::string> column_families;
  bool statecheck_store = false;      // Has the "statecheck.meta" column family.
  std::optional<std::string> format;  // The on-disk format version; nullopt = not recorded.
  bool open_marker = false;  // The open-status marker is set: not closed cleanly (or still open).
  std::map<std::string, std::string> changelog_offsets;  // Partition → committed offset.
  std::map<std::string, std::string> positions;          // Partition → committed position.
  std::map<std::string, std::string> other_meta;         // Any other metadata key.
  int64_t data_keys = 0;                                 // Keys in column family "default".
  std::string error;  // Why the store could not be read ("" = it could).
};

struct InspectReport {
  std::string directory;
  std::vector<StoreSummary> stores;  // Empty = not a state directory.
  std::optional<LogSummary> log;     // nullopt = not a log directory.
};

// Reads the store in `path` read-only. A store that cannot be opened is reported in `error`.
StoreSummary InspectStore(const std::string& path);

// The store directories in `dir`: itself, or its subdirectories, or theirs. Sorted.
std::vector<std::string> FindStoreDirs(const std::string& dir);

// Inspects `dir`. InvalidArgument with the message to print if it does not exist or is neither
// a state directory nor a log directory; a log's Corruption or IOError as InspectLog.
Status Inspect(const std::string& dir, InspectReport* report);

std::string FormatInspectText(const InspectReport& report);
nlohmann::ordered_json InspectJson(const InspectReport& report);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_INSPECT_H_
