// Opening a RocksDB store (RocksDBStoreImpl, engine/store/rocksdb_store_impl.h): the options it
// is opened with and the checks of a config setter's changes, a read-only open, the recovery of
// its metadata (format, offsets, position, open-status marker) and the import of legacy offsets.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <utility>
#include <vector>

#include "engine/base/env_util.h"
#include "engine/base/fail_point.h"
#include "engine/base/planted.h"
#include "engine/base/rocksdb_status.h"
#include "engine/store/rocksdb_store_impl.h"
#include "statecheck/hooks/fail_points.h"

namespace statecheck::internal {

Status DecodeInt(const std::string& s, const std::string& what, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || errno != 0 || *end != '\0') {
    return Status::Corruption("store metadata " + what + " is not a number: \"" + s + "\"");
  }
  *out = v;
  return Status::Ok();
}

namespace {

// RocksDB 7.8 reads a record header of length 0 and type 0 in its MANIFEST as preallocation
// padding and drops the rest of that 32 KiB block without a word (log::Reader): zeroed bytes
// there lose the edits after them, and the open succeeds on an older version. So before an open,
// the framing of the MANIFEST that CURRENT names is checked here: such a header with any
// non-zero byte after it is Corruption naming the file and byte offset. Anything else wrong is
// RocksDB's to report (checksums, lengths, a missing file).
Status CheckManifestFraming(rocksdb::Env* env, const std::string& dir) {
  std::string current;
  if (!rocksdb::ReadFileToString(env, dir + "/CURRENT", &current).ok() || current.empty() ||
      current.back() != '\n') {
    return Status::Ok();
  }
  current.pop_back();
  const std::string path = dir + "/" + current;
  std::string manifest;
  if (!rocksdb::ReadFileToString(env, path, &manifest).ok()) return Status::Ok();
  constexpr size_t kBlock = 32768, kHeader = 7;  // RocksDB's log format (db/log_format.h).
  for (size_t block = 0; block < manifest.size(); block += kBlock) {
    const size_t end = std::min(block + kBlock, manifest.size());
    for (size_t pos = block; end - pos >= kHeader;) {
      const auto byte = [&](size_t i) { return static_cast<uint8_t>(manifest[pos + i]); };
      const size_t length = byte(4) | (byte(5) << 8);
      if (length == 0 && byte(6) == 0) {
        if (manifest.find_first_not_of('\0', pos) == std::string::npos) return Status::Ok();
        // Keeps: F6 — a zeroed MANIFEST record is Corruption, not padding that hides later edits
        return Status::Corruption(path + " at byte offset " + std::to_string(pos) +
                                  ": a zeroed record header with records after it (RocksDB "
                                  "would skip them and open an older version of the store)");
      }
      pos += kHeader + length;
      if (pos > end) break;
    }
  }
  return Status::Ok();
}

}  // namespace

Status RocksDBStoreImpl::Open(const RocksDBStoreOptions& options) {
  rocksdb::Options db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  // Data and metadata flush together, so the data on disk always matches its offsets (T7).
  // Keeps: T7 — atomic_flush: data and offsets reach the disk together, crashes included
  db_options.atomic_flush = true;
  // Closing the database never flushes by itself: Close() makes its own flush, and Abandon()
  // must lose what a crash loses.
  db_options.avoid_flush_during_shutdown = true;
  if (options.env) db_options.env = options.env;
  if (options.write_buffer_size > 0) db_options.write_buffer_size = options.write_buffer_size;
  // Keeps: F5 — optionally no background compactions, so that a fault schedule replays exactly
  db_options.disable_auto_compactions = options.disable_auto_compactions;
  // Kafka Streams' level (RocksDBStore.openDB): RocksDB's LOG holds its errors, not a dump of
  // every option at each open.
  db_options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  if (options.config_setter) {
    const rocksdb::Options chosen = db_options;
    options.config_setter(name_, &db_options);
    STATECHECK_RETURN_IF_ERROR(CheckConfigSetter(chosen, db_options, options));
  }
  if (read_only_) return OpenReadOnly(db_options, options.directory);
  // Keeps: C7 — RocksDB's flushes tell which commit is durable; a failed one is reported
  tracker_ = std::make_shared<FlushTracker>(std::map<std::string, int64_t>{});
  auto listener = std::make_shared<FlushListener>(tracker_);
  db_options.listeners.push_back(listener);
  rocksdb::Status s = internal::CreateDirs(db_options.env, options.directory);
  if (!s.ok()) return FromRocksDB(s);
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(db_options)},
      {kMetaFamily, rocksdb::ColumnFamilyOptions(db_options)}};
  STATECHECK_RETURN_IF_ERROR(CheckManifestFraming(db_options.env, options.directory));
  auto db = std::make_shared<Db>();
  s = rocksdb::DB::Open(db_options, options.directory, families, &db->handles, &db->db);
  if (!s.ok()) return FromRocksDB(s);
  db_ = std::move(db);
  Marks found;
  STATECHECK_RETURN_IF_ERROR(LoadMetadata(&found));
  tracker_->Durable(committed_offsets_);  // What the open found is on disk.
  // What the open writes in the metadata family: the format mark and the open-status marker
  // (nullopt deletes it).
  std::vector<std::pair<const char*, std::optional<std::string_view>>> marks;
  if (legacy_) {
    // Keeps: U3 — legacy over a current store: refuse all but Close, Abandon; the owner wipes it
    if (found_format_ == StateFormat::kCurrent) {
      // U3: nothing here is usable without its offsets; the owner wipes the store.
      broken_ = "store " + name_ +
                " holds the current format, which state.format=legacy cannot use: wipe it "
                "(DestroyRocksDBStore) and restore it from its changelog";
      open_ = true;
      return Status::Ok();
    }
    ResetPositions(options.legacy_position);
    // The legacy mark, and no open-status marker (an interrupted upgrade may have left one).
    marks = {{kFormatKey, kLegacyFormatVersion}, {kStatusKey, std::nullopt}};
  } else {
    // The open-status marker, durable before the first write (T7). A legacy store keeps its
    // legacy mark until its first commit (U1).
    // Keeps: T7 — the open-status marker is set, durably, before the first write
    if (!STATECHECK_PLANTED(TxnOpenMarkerWithFirstCommit)) {
      marks.emplace_back(kStatusKey, kStoreStatusOpen);
    }
    // Keeps: U2 — no current-format mark over a legacy store at open: it goes with the offsets
    if (found_format_ != StateFormat::kLegacy || STATECHECK_PLANTED(UpgradeMarkBeforeImport)) {
      marks.emplace_back(kFormatKey, kFormatVersion);
    }
  }
  // A start after a crash finds the marker and the mark it would write already on disk, where
  // the open that wrote them made them durable: writing them again would cost a flush (a table
  // file, a MANIFEST write and their syncs) and change nothing.
  const bool on_disk = std::all_of(marks.begin(), marks.end(), [&](const auto& mark) {
    const auto it = found.find(mark.first);
    return it == found.end() ? !mark.second : mark.second == it->second;
  });
  if (!on_disk) {
    rocksdb::WriteBatch batch;
    for (const auto& [key, value] : marks) {
      value ? batch.Put(db_->meta(), key, *value) : batch.Delete(db_->meta(), key);
    }
    STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailStoreOpenMarker));
    STATECHECK_RETURN_IF_ERROR(WriteDurably(&batch));
  }
  open_ = true;
  return Status::Ok();
}

Status RocksDBStoreImpl::OpenReadOnly(const rocksdb::Options& db_options,
                                      const std::string& directory) {
  rocksdb::Env* env = db_options.env;
  if (env->FileExists(directory + "/CURRENT").IsNotFound()) {
    return Status::NotFound("store " + name_ + ": no store to open read-only in " + directory);
  }
  std::vector<std::string> names;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, directory, &names);
  if (!s.ok()) return FromRocksDB(s);
  // Without its metadata family (a first open that crashed before creating it) the store has
  // committed nothing: it opens with none (no offsets, no position, no format mark).
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(db_options)}};
  if (std::find(names.begin(), names.end(), kMetaFamily) != names.end()) {
    families.emplace_back(kMetaFamily, rocksdb::ColumnFamilyOptions(db_options));
  }
  STATECHECK_RETURN_IF_ERROR(CheckManifestFraming(env, directory));
  auto db = std::make_shared<Db>();
  s = rocksdb::DB::OpenForReadOnly(db_options, directory, families, &db->handles, &db->db);
  if (!s.ok()) return FromRocksDB(s);
  db_ = std::move(db);
  STATECHECK_RETURN_IF_ERROR(LoadMetadata());
  open_ = true;
  return Status::Ok();
}

Status RocksDBStoreImpl::CheckConfigSetter(const rocksdb::Options& chosen,
                                           const rocksdb::Options& set,
                                           const RocksDBStoreOptions& options) const {
  auto changed = [&](const char* setting, const char* why) {
    return Status::InvalidArgument("store " + name_ + ": the RocksDB config setter changed " +
                                   setting + ", which " + why + ": leave it as the engine sets it");
  };
  if (set.atomic_flush != chosen.atomic_flush) {
    return changed("atomic_flush", "keeps the data and its changelog offsets together (T7)");
  }
  if (set.avoid_flush_during_shutdown != chosen.avoid_flush_during_shutdown) {
    return changed("avoid_flush_during_shutdown",
                   "keeps an abandoned store from making uncommitted data durable");
  }
  if (set.create_if_missing != chosen.create_if_missing ||
      set.create_missing_column_families != chosen.create_missing_column_families ||
      set.error_if_exists != chosen.error_if_exists) {
    return changed("create_if_missing, create_missing_column_families or error_if_exists",
                   "the store needs to create itself and its metadata column family");
  }
  if (set.env != chosen.env) {
    return changed("env", "is the one the store was given (RocksDBStoreOptions::env)");
  }
  if (!set.wal_dir.empty() || !set.db_paths.empty() || !set.cf_paths.empty()) {
    return changed("wal_dir, db_paths or cf_paths",
                   "keep every file in the store's directory, which a wipe deletes (T10)");
  }
  if (options.write_buffer_size > 0 && set.write_buffer_size != chosen.write_buffer_size) {
    return changed("write_buffer_size", "RocksDBStoreOptions::write_buffer_size sets");
  }
  if (set.disable_auto_compactions != chosen.disable_auto_compactions) {
    return changed("disable_auto_compactions",
                   "RocksDBStoreOptions::disable_auto_compactions sets");
  }
  return Status::Ok();
}

Status RocksDBStoreImpl::ImportLegacy(const ChangelogOffsets& offsets, const Position& position) {
  STATECHECK_RETURN_IF_ERROR(CheckWritable());
  if (legacy_ || found_format_ != StateFormat::kLegacy || imported_ || !buffer_.empty() ||
      UncommittedPosition() != CommittedPosition()) {
    return Status::FailedPrecondition(
        "store " + name_ +
        ": ImportLegacy needs a legacy store opened in the current format, before any write");
  }
  if (!STATECHECK_PLANTED(UpgradeImportDropsPosition)) {
    internal::MutexLock lock(&position_mu_);
    uncommitted_position_ = position;
  }
  return Commit(offsets);
}

Status RocksDBStoreImpl::LoadMetadata(Marks* marks) {
  bool marker = false;
  Position committed;
  // Every open but a read-only one of a store without its metadata family has the family.
  if (db_->handles.size() > 1) {
    std::unique_ptr<rocksdb::Iterator> it(db_->db->NewIterator(StoreReadOptions(), db_->meta()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString();
      const std::string value = it->value().ToString();
      int64_t number = 0;
      if (key.rfind(kOffsetPrefix, 0) == 0) {
        STATECHECK_RETURN_IF_ERROR(DecodeInt(value, key, &number));
        committed_offsets_[key.substr(sizeof(kOffsetPrefix) - 1)] = number;
      } else if (key.rfind(kPositionPrefix, 0) == 0) {
        STATECHECK_RETURN_IF_ERROR(DecodeInt(value, key, &number));
        committed[key.substr(sizeof(kPositionPrefix) - 1)] = number;
      } else if (key == kStatusKey) {
        marker = true;
        if (marks) (*marks)[key] = value;
      } else if (key == kFormatKey) {
        if (marks) (*marks)[key] = value;
        if (value == kFormatVersion) {
          found_format_ = StateFormat::kCurrent;
        } else if (value == kLegacyFormatVersion) {
          found_format_ = StateFormat::kLegacy;
        } else {
          return Status::Corruption("store " + name_ + " has on-disk format " + value +
                                    "; this engine reads formats " + kLegacyFormatVersion +
                                    " (legacy) and " + kFormatVersion + " (current)");
        }
      }
    }
    if (!it->status().ok()) return FromRocksDB(it->status());
  }
  if (!found_format_) {
    // Data without a format mark: a legacy store written by something that did not mark it.
    std::unique_ptr<rocksdb::Iterator> data(db_->db->NewIterator(StoreReadOptions(), db_->data()));
    data->SeekToFirst();
    if (data->Valid()) found_format_ = StateFormat::kLegacy;
    if (!data->status().ok()) return FromRocksDB(data->status());
  }
  was_closed_cleanly_ = !marker;
  ResetPositions(committed);
  if (marker) {
    logger_->Log(LogLevel::kWarn,
                 "store " + name_ + " was not closed cleanly: its open-status marker is set");
  }
  return Status::Ok();
}

}  // namespace statecheck::internal
