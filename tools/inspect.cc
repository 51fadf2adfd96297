#include "tools/inspect.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <cstdarg>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <system_error>

#include "statecheck/store_schema.h"
#include "tools/checkpoint_file.h"

namespace statecheck::tools {
namespace {

namespace fs = std::filesystem;

// The store's schema is the engine's: statecheck/store_schema.h.
constexpr const auto& kMetaFamily = kStoreMetaFamily;
constexpr const auto& kOffsetPrefix = kStoreOffsetPrefix;
constexpr const auto& kPositionPrefix = kStorePositionPrefix;
constexpr const auto& kFormatKey = kStoreFormatKey;
constexpr const auto& kCurrentFormat = kStoreFormatCurrent;
constexpr const auto& kLegacyFormat = kStoreFormatLegacy;
constexpr const auto& kStatusKey = kStoreStatusKey;

// Discards RocksDB's info log, so that a read-only open writes no LOG file.
class DiscardingInfoLog : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

bool IsStoreDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && fs::is_regular_file(p / "CURRENT", ec);
}

std::vector<fs::path> SubDirs(const fs::path& p) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (it->is_directory(ec2)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool HasLogFiles(const fs::path& p) {
  std::error_code ec;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (it->is_regular_file(ec2) && it->path().extension() == ".log") return true;
  }
  return false;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool IsLegacyFileName(const std::string& name) {
  const std::string suffix = kPositionFileSuffix;
  return name == kCheckpointFileName ||
         (name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0);
}

std::string FormatKind(const StoreSummary& s) {
  if (!s.format) return s.data_keys > 0 ? "legacy" : "new";
  if (*s.format == kCurrentFormat) return "current";
  if (*s.format == kLegacyFormat) return "legacy";
  return "unknown";
}

// The store's format in words, for the text view.
std::string DescribeFormat(const StoreSummary& s) {
  if (s.format) return s.format_kind + " (\"" + kFormatKey + "\" = " + *s.format + ")";
  return s.format_kind +
         (s.data_keys > 0 ? " (not recorded; the store has data)" : " (not recorded; no data yet)");
}

}  // namespace

std::vector<std::string> FindStoreDirs(const std::string& dir) {
  std::vector<std::string> out;
  if (IsStoreDir(dir)) return {dir};
  for (const fs::path& sub : SubDirs(dir)) {
    if (IsStoreDir(sub)) {
      out.push_back(sub.string());
      continue;
    }
    for (const fs::path& subsub : SubDirs(sub)) {
      if (IsStoreDir(subsub)) out.push_back(subsub.string());
    }
  }
  return out;
}

StoreSummary InspectStore(const std::string& path) {
  StoreSummary out;
  out.path = path;
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = false;
  db_options.info_log = std::make_shared<DiscardingInfoLog>();
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, path, &out.column_families);
  if (!s.ok()) {
    out.error = "cannot list column families: " + s.ToString();
    return out;
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  int meta_index = -1, data_index = -1;
  for (const std::string& name : out.column_families) {
    if (name == kMetaFamily) meta_index = static_cast<int>(families.size());
    if (name == rocksdb::kDefaultColumnFamilyName) data_index = static_cast<int>(families.size());
    families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  }
  out.statecheck_store = meta_index >= 0;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::OpenForReadOnly(db_options, path, families, &handles, &raw);
  if (!s.ok()) {
    out.error = "cannot open read-only: " + s.ToString();
    return out;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  auto scan = [&](int index, auto&& fn) {
    // As the engine's reads (StoreReadOptions): no range deletions, whose handling in RocksDB
    // 7.8 can lose a read error and end a scan early (facebook/rocksdb#11782).
    rocksdb::ReadOptions ro;
    ro.ignore_range_deletions = true;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, handles[index]));
    for (it->SeekToFirst(); it->Valid(); it->Next())
      fn(it->key().ToString(), it->value().ToString());
    if (!it->status().ok() && out.error.empty()) out.error = it->status().ToString();
  };
  if (data_index >= 0)
    scan(data_index, [&](const std::string&, const std::string&) { ++out.data_keys; });
  if (meta_index >= 0) {
    scan(meta_index, [&](const std::string& key, const std::string& value) {
      if (StartsWith(key, kOffsetPrefix)) {
        out.changelog_offsets[key.substr(sizeof(kOffsetPrefix) - 1)] = value;
      } else if (StartsWith(key, kPositionPrefix)) {
        out.positions[key.substr(sizeof(kPositionPrefix) - 1)] = value;
      } else if (key == kFormatKey) {
        out.format = value;
      } else if (key == kStatusKey) {
        out.open_marker = true;
      } else {
        out.other_meta[key] = value;
      }
    });
  }
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  db->Close().PermitUncheckedError();
  if (out.error.empty()) out.format_kind = FormatKind(out);
  return out;
}

std::vector<LegacyFileSummary> InspectLegacyFiles(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (it->is_regular_file(ec2) && IsLegacyFileName(it->path().filename().string())) {
      paths.push_back(it->path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<LegacyFileSummary> out;
  for (const std::string& path : paths) {
    CheckpointFile file;
    const Status s = ReadCheckpointFile(path, &file);
    LegacyFileSummary summary;
    summary.path = path;
    summary.entries = std::move(file.entries);
    summary.warnings = std::move(file.warnings);
    if (!s.ok()) summary.error = s.ToString();
    out.push_back(std::move(summary));
  }
  return out;
}

Status Inspect(const std::string& dir, InspectReport* report) {
  *report = InspectReport();
  report->directory = dir;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::InvalidArgument(dir + " does not exist");
  if (!fs::is_directory(dir, ec)) return Status::InvalidArgument(dir + " is not a directory");
  // The legacy files live in a task's directory, beside its stores: DIR or a store's parent.
  std::vector<fs::path> task_dirs = {dir};
  for (const std::string& store : FindStoreDirs(dir)) {
    report->stores.push_back(InspectStore(store));
    if (!IsStoreDir(dir)) task_dirs.push_back(fs::path(store).parent_path());
  }
  std::set<fs::path> seen;
  for (const fs::path& task_dir : task_dirs) {
    if (!seen.insert(fs::weakly_canonical(task_dir, ec)).second) continue;
    for (LegacyFileSummary& f : InspectLegacyFiles(task_dir.string())) {
      report->legacy_files.push_back(std::move(f));
    }
  }
  if (!IsStoreDir(dir) && HasLogFiles(dir)) {
    LogSummary log;
    STATECHECK_RETURN_IF_ERROR(InspectLog(dir, nullptr, &log));
    report->log = std::move(log);
  }
  if (report->stores.empty() && report->legacy_files.empty() && !report->log) {
    return Status::InvalidArgument(dir +
                                   " is neither a state directory (no RocksDB store found) nor a "
                                   "log directory (no .log files)");
  }
  return Status::Ok();
}

std::string FormatInspectText(const InspectReport& report) {
  std::ostringstream o;
  if (!report.stores.empty() || !report.legacy_files.empty()) {
    o << "state directory " << report.directory << ": " << report.stores.size()
      << (report.stores.size() == 1 ? " store\n" : " stores\n");
    if (!report.legacy_files.empty()) {
      o << "\nlegacy offset files (.checkpoint, <store>.position):\n";
      for (const LegacyFileSummary& f : report.legacy_files) {
        o << "  " << f.path << ": ";
        if (!f.error.empty()) {
          o << "error: " << f.error << "\n";
          continue;
        }
        o << f.entries.size() << (f.entries.size() == 1 ? " entry\n" : " entries\n");
        std::istringstream lines(FormatCheckpointEntries(f.entries));
        for (std::string line; std::getline(lines, line);) o << "    " << line << "\n";
        for (const std::string& w : f.warnings) o << "    warning: " << w << "\n";
      }
    }
    for (const StoreSummary& s : report.stores) {
      o << "\nstore " << s.path << "\n";
      if (!s.error.empty()) {
        o << "  error: " << s.error << "\n";
        continue;
      }
      o << "  column families: ";
      for (size_t i = 0; i < s.column_families.size(); ++i) {
        o << (i ? ", " : "") << s.column_families[i];
      }
      o << "\n";
      if (!s.statecheck_store) {
        o << "  not a statecheck store (no \"" << kMetaFamily << "\" column family)\n";
      }
      o << "  format: " << DescribeFormat(s) << "\n"
        << "  status: "
        << (s.open_marker ? "open marker set (not closed cleanly, or open now)"
                          : "closed cleanly (no open marker)")
        << "\n"
        << "  data keys: " << s.data_keys << "\n";
      o << "  committed changelog offsets:" << (s.changelog_offsets.empty() ? " none" : "") << "\n";
      for (const auto& [p, v] : s.changelog_offsets) o << "    " << p << ": " << v << "\n";
      o << "  committed position:" << (s.positions.empty() ? " none" : "") << "\n";
      for (const auto& [p, v] : s.positions) o << "    " << p << ": " << v << "\n";
      for (const auto& [k, v] : s.other_meta) o << "  other metadata " << k << " = " << v << "\n";
    }
  }
  if (report.log) {
    const LogSummary& log = *report.log;
    if (!report.stores.empty()) o << "\n";
    o << "log directory " << log.directory << ": " << log.partitions.size()
      << (log.partitions.size() == 1 ? " partition\n" : " partitions\n");
    o << "\npartition                          end offset   data records   markers   bytes"
         "   segments\n";
    for (const LogPartitionSummary& p : log.partitions) {
      char line[256];
      std::snprintf(line, sizeof line, "%-32s %12lld %14lld %9lld %7llu %10zu", p.name.c_str(),
                    static_cast<long long>(p.end_offset), static_cast<long long>(p.data_records),
                    static_cast<long long>(p.markers),
                    static_cast<unsigned long long>(p.valid_bytes), p.segments.size());
      o << line << "\n";
    }
    for (const LogPartitionSummary& p : log.partitions) {
      if (p.swap_pending) {
        o << "interrupted compaction in " << p.name << ": its swap file stands for the segments "
          << "it replaces (opening the log completes it)\n";
      }
      if (p.torn_tail_at) {
        o << "torn tail in " << p.name << ": " << p.torn_tail_bytes << " bytes at byte offset "
          << *p.torn_tail_at << " (not repaired; opening the log truncates it)\n";
      }
    }
    for (const std::string& f : log.ignored_files) {
      o << "ignored file " << f << " (not a partition name)\n";
    }
    o << "\ncommitted input offsets:" << (log.committed_offsets.empty() ? " none" : "") << "\n";
    for (const auto& [group, c] : log.committed_offsets) {
      o << "  group " << group << " (metadata \"" << c.metadata << "\")\n";
      for (const auto& [p, off] : c.offsets) o << "    " << p << ": " << off << "\n";
    }
    o << "\nopen transactions:" << (log.open_transactions.empty() ? " none" : "") << "\n";
    for (const LogOpenTransaction& t : log.open_transactions) {
      o << "  transaction " << t.txn_id << ": "
        << (t.commit_decided ? "commit decided, markers missing (recovery completes it)"
                             : "no decision (recovery aborts it)")
        << "; begun in";
      for (const auto& [p, begin] : t.begin_offsets) o << " " << p << "@" << begin;
      o << "\n";
    }
  }
  return o.str();
}

nlohmann::ordered_json InspectJson(const InspectReport& report) {
  using J = nlohmann::ordered_json;
  J out = J::object();
  out["directory"] = report.directory;
  J stores = J::array();
  for (const StoreSummary& s : report.stores) {
    J j = J::object();
    j["path"] = s.path;
    if (!s.error.empty()) {
      j["error"] = s.error;
      stores.push_back(std::move(j));
      continue;
    }
    j["column_families"] = s.column_families;
    j["statecheck_store"] = s.statecheck_store;
    j["format"] = s.format ? J(*s.format) : J(nullptr);
    j["format_kind"] = s.format_kind;
    j["open_marker"] = s.open_marker;
    j["data_keys"] = s.data_keys;
    j["changelog_offsets"] = J(s.changelog_offsets);
    j["positions"] = J(s.positions);
    if (!s.other_meta.empty()) j["other_meta"] = J(s.other_meta);
    stores.push_back(std::move(j));
  }
  out["stores"] = std::move(stores);
  J legacy = J::array();
  for (const LegacyFileSummary& f : report.legacy_files) {
    legacy.push_back(J{{"path", f.path},
                       {"entries", CheckpointEntriesJson(f.entries)},
                       {"warnings", f.warnings},
                       {"error", f.error.empty() ? J(nullptr) : J(f.error)}});
  }
  out["legacy_files"] = std::move(legacy);
  if (!report.log) {
    out["log"] = nullptr;
    return out;
  }
  const LogSummary& log = *report.log;
  J l = J::object();
  l["directory"] = log.directory;
  J parts = J::array();
  for (const LogPartitionSummary& p : log.partitions) {
    J j = J::object();
    j["name"] = p.name;
    j["end_offset"] = p.end_offset;
    j["data_records"] = p.data_records;
    j["markers"] = p.markers;
    j["valid_bytes"] = p.valid_bytes;
    J segments = J::array();
    for (const LogSegmentSummary& s : p.segments) {
      segments.push_back(J{{"file", s.file}, {"base", s.base}, {"bytes", s.bytes}});
    }
    j["segments"] = std::move(segments);
    j["swap_pending"] = p.swap_pending;
    j["torn_tail"] = p.torn_tail_at
                         ? J{{"byte_offset", *p.torn_tail_at}, {"bytes", p.torn_tail_bytes}}
                         : J(nullptr);
    parts.push_back(std::move(j));
  }
  l["partitions"] = std::move(parts);
  J groups = J::object();
  for (const auto& [group, c] : log.committed_offsets) {
    groups[group] = J{{"offsets", J(c.offsets)}, {"metadata", c.metadata}};
  }
  l["committed_offsets"] = std::move(groups);
  J txns = J::array();
  for (const LogOpenTransaction& t : log.open_transactions) {
    txns.push_back(J{{"txn_id", t.txn_id},
                     {"commit_decided", t.commit_decided},
                     {"begin_offsets", J(t.begin_offsets)}});
  }
  l["open_transactions"] = std::move(txns);
  l["ignored_files"] = log.ignored_files;
  out["log"] = std::move(l);
  return out;
}

}  // namespace statecheck::tools
