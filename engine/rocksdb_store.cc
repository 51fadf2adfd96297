#include "statecheck/rocksdb_store.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "engine/env_util.h"
#include "engine/fail_point.h"
#include "engine/mutex.h"
#include "engine/planted.h"
#include "engine/rocksdb_status.h"
#include "statecheck/store_schema.h"

namespace statecheck {
namespace {

using internal::FromRocksDB;

// The schema: statecheck/store_schema.h (shared with `statecheck inspect`).
constexpr const auto& kMetaFamily = kStoreMetaFamily;
constexpr const auto& kOffsetPrefix = kStoreOffsetPrefix;
constexpr const auto& kPositionPrefix = kStorePositionPrefix;
constexpr const auto& kFormatKey = kStoreFormatKey;
constexpr const auto& kStatusKey = kStoreStatusKey;
constexpr const auto& kFormatVersion = kStoreFormatCurrent;
constexpr const auto& kLegacyFormatVersion = kStoreFormatLegacy;

std::string EncodeInt(int64_t v) { return std::to_string(v); }

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

// The smallest key greater than every key starting with `prefix`, or nullopt if none
// (a prefix of only 0xff bytes).
std::optional<std::string> PrefixEnd(std::string prefix) {
  while (!prefix.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(prefix.back());
    if (last != 0xff) {
      ++last;
      return prefix;
    }
    prefix.pop_back();
  }
  return std::nullopt;
}

// The open database, shared by the store and every iterator over it, so that an iterator a
// reader still holds keeps the database alive after the store is closed.
struct Db {
  ~Db() {
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    delete db;
  }
  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // [data, meta]
  // Set when the store closes: its open iterators end (as Kafka's RocksDBStore closes them).
  std::atomic<bool> store_closed{false};
  rocksdb::ColumnFamilyHandle* data() const { return handles[0]; }
  rocksdb::ColumnFamilyHandle* meta() const { return handles[1]; }
};

// The read options of every read of a store. The engine never writes a range deletion, so reads
// ignore them — which also keeps RocksDB 7.8's iterators from losing a read error: with range
// deletions considered, a level's iterator that fails to read the next table file it moves
// into is dropped without its status, and the scan ends early with OK, a silently short
// result (facebook/rocksdb#11782, fixed in 8.6; found here by statecheck crash --io-errors).
// Keeps: F1 — a read that fails says so: never a silently short scan
rocksdb::ReadOptions StoreReadOptions() {
  rocksdb::ReadOptions ro;
  ro.ignore_range_deletions = true;
  return ro;
}

// A buffered write: a value, or std::nullopt for a delete.
// Keeps: T11 — the transaction buffer: an in-memory sorted map, no I/O per buffered write
using Buffer = std::map<std::string, std::optional<std::string>, std::less<>>;

// Iterates the union of a copy of buffered writes in a key range and a RocksDB iterator at a
// snapshot, the buffer winning on equal keys and its deletes hiding the database's values.
// Either source may be empty. Thread-compatible: one thread at a time.
class MergingIterator final : public KeyValueIterator {
 public:
  MergingIterator(std::shared_ptr<Db> db, const rocksdb::Snapshot* snapshot,
                  std::vector<std::pair<std::string, std::optional<std::string>>> buffered,
                  std::optional<std::string> from, std::optional<std::string> to_exclusive,
                  bool forward)
      : db_(std::move(db)),
        snapshot_(snapshot),
        buffered_(std::move(buffered)),
        lower_(std::move(from)),
        upper_(std::move(to_exclusive)),
        forward_(forward) {
    rocksdb::ReadOptions ro = StoreReadOptions();
    ro.snapshot = snapshot_;
    if (lower_) {
      lower_slice_ = rocksdb::Slice(*lower_);
      ro.iterate_lower_bound = &lower_slice_;
    }
    if (upper_) {
      upper_slice_ = rocksdb::Slice(*upper_);
      ro.iterate_upper_bound = &upper_slice_;
    }
    it_.reset(db_->db->NewIterator(ro, db_->data()));
    if (forward_) {
      it_->SeekToFirst();
    } else {
      it_->SeekToLast();
      std::reverse(buffered_.begin(), buffered_.end());
    }
    Settle();
  }

  ~MergingIterator() override { Close(); }

  // True also when reading failed: Next() then returns the error (F1: never a silently short
  // result).
  // Keeps: F1 — a read error is never a silent end: HasNext stays true and Next returns it
  bool HasNext() override {
    if (db_ && db_->store_closed.load(std::memory_order_acquire)) Close();
    return next_.has_value() || !status_.ok();
  }

  Status Next(KeyValue* kv) override {
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    if (!next_) return status_;
    *kv = std::move(*next_);
    next_.reset();
    Settle();
    return Status::Ok();
  }

  Status PeekNextKey(std::string* key) override {
    if (!HasNext()) return Status::OutOfRange("the iterator has no more records");
    if (!next_) return status_;
    *key = next_->key;
    return Status::Ok();
  }

  void Close() override {
    if (!db_) return;
    it_.reset();
    if (snapshot_) db_->db->ReleaseSnapshot(snapshot_);
    snapshot_ = nullptr;
    next_.reset();
    status_ = Status::Ok();
    db_.reset();
  }

 private:
  // Finds the next visible record into next_.
  void Settle() {
    while (db_) {
      const bool db_has = it_->Valid();
      // RocksDB's step failed (it is then not Valid), or the engine's point as if it had.
      // Keeps: F8 — a failed step fails this read only: the iterator keeps the error
      Status step = db_has ? internal::FailPoint(kFailStoreIterate) : FromRocksDB(it_->status());
      if (!step.ok()) {
        if (!STATECHECK_PLANTED(StoreIteratorErrorEndsScan)) status_ = std::move(step);
        return;
      }
      const bool buf_has = pos_ < buffered_.size();
      if (!db_has && !buf_has) return;
      int order;  // < 0: the database's key comes first in iteration order.
      if (!db_has) {
        order = 1;
      } else if (!buf_has) {
        order = -1;
      } else {
        const int c = it_->key().compare(rocksdb::Slice(buffered_[pos_].first));
        order = forward_ ? c : -c;
      }
      if (order < 0) {
        next_ = KeyValue{it_->key().ToString(), it_->value().ToString()};
        Step();
        return;
      }
      // Keeps: T5 — on equal keys the buffer's write wins; a buffered delete hides the value
      auto& [key, value] = buffered_[pos_++];
      if (order == 0) Step();  // The buffer's write replaces the database's value.
      if (value) {
        next_ = KeyValue{std::move(key), std::move(*value)};
        return;
      }
    }
  }

  void Step() { forward_ ? it_->Next() : it_->Prev(); }

  std::shared_ptr<Db> db_;
  const rocksdb::Snapshot* snapshot_;
  std::unique_ptr<rocksdb::Iterator> it_;
  std::vector<std::pair<std::string, std::optional<std::string>>> buffered_;
  size_t pos_ = 0;
  std::optional<std::string> lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  const bool forward_;
  std::optional<KeyValue> next_;
  Status status_;
};

// An inclusive key range as RocksDB bounds: [lower, upper_exclusive). A reversed range
// (from > to) becomes [from, from), which admits nothing.
void RangeBounds(std::optional<std::string_view> from, std::optional<std::string_view> to,
                 std::optional<std::string>* lower, std::optional<std::string>* upper) {
  if (from) *lower = std::string(*from);
  if (from && to && *from > *to) {
    *upper = *lower;
  } else if (to) {
    *upper = std::string(*to) + '\0';  // The successor of `to`: makes it inclusive.
  }
}

class RocksDBStoreImpl;

// An interactive-query reader. Under READ_COMMITTED it reads a snapshot taken together with the
// committed position (under the commit lock), so each result is exactly the state at the
// position it reports (T4, T8).
class QueryViewImpl final : public QueryView {
 public:
  explicit QueryViewImpl(std::shared_ptr<RocksDBStoreImpl> store) : store_(std::move(store)) {}

  Status Get(std::string_view key, std::optional<std::string>* value) override;
  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override {
    return Open(from, to, true, it);
  }
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override {
    return Open(from, to, false, it);
  }
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override;
  Status All(std::unique_ptr<KeyValueIterator>* it) override {
    return Open(std::nullopt, std::nullopt, true, it);
  }
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
    return Open(std::nullopt, std::nullopt, false, it);
  }
  Position LastReadPosition() const override {
    internal::MutexLock lock(&mu_);
    return last_position_;
  }

 private:
  Status Open(std::optional<std::string_view> from, std::optional<std::string_view> to,
              bool forward, std::unique_ptr<KeyValueIterator>* it);
  Status OpenBounds(std::optional<std::string> lower, std::optional<std::string> upper,
                    bool forward, std::unique_ptr<KeyValueIterator>* it);

  std::shared_ptr<RocksDBStoreImpl> store_;
  mutable internal::Mutex mu_;
  Position last_position_ ABSL_GUARDED_BY(mu_);
};

class RocksDBStoreImpl final : public RocksDBStore,
                               public std::enable_shared_from_this<RocksDBStoreImpl> {
 public:
  explicit RocksDBStoreImpl(const RocksDBStoreOptions& options)
      : name_(options.name),
        isolation_(options.format == StateFormat::kLegacy ? IsolationLevel::kReadUncommitted
                                                          : options.isolation),
        legacy_(options.format == StateFormat::kLegacy && !options.read_only),
        read_only_(options.read_only),
        use_wal_(options.use_wal),
        logger_(options.logger ? options.logger : StderrLogger()) {}

  Status Open(const RocksDBStoreOptions& options) {
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
    rocksdb::Status s = internal::CreateDirs(db_options.env, options.directory);
    if (!s.ok()) return FromRocksDB(s);
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(db_options)},
        {kMetaFamily, rocksdb::ColumnFamilyOptions(db_options)}};
    auto db = std::make_shared<Db>();
    s = rocksdb::DB::Open(db_options, options.directory, families, &db->handles, &db->db);
    if (!s.ok()) return FromRocksDB(s);
    db_ = std::move(db);
    STATECHECK_RETURN_IF_ERROR(LoadMetadata());
    rocksdb::WriteBatch batch;
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
      batch.Put(db_->meta(), kFormatKey, kLegacyFormatVersion);
      batch.Delete(db_->meta(), kStatusKey);
    } else {
      // The open-status marker, durable before the first write (T7). A legacy store keeps its
      // legacy mark until its first commit (U1).
      // Keeps: T7 — the open-status marker is set, durably, before the first write
      if (!STATECHECK_PLANTED(TxnOpenMarkerWithFirstCommit)) {
        batch.Put(db_->meta(), kStatusKey, kStoreStatusOpen);
      }
      // Keeps: U2 — no current-format mark over a legacy store at open: it goes with the offsets
      if (found_format_ != StateFormat::kLegacy || STATECHECK_PLANTED(UpgradeMarkBeforeImport)) {
        batch.Put(db_->meta(), kFormatKey, kFormatVersion);
      }
    }
    STATECHECK_RETURN_IF_ERROR(WriteDurably(&batch));
    open_ = true;
    return Status::Ok();
  }

  ~RocksDBStoreImpl() override { Close(); }

  // RocksDBStoreOptions::read_only: RocksDB's read-only open, which writes nothing (a WAL is
  // replayed into memory), of a store this engine wrote.
  Status OpenReadOnly(const rocksdb::Options& db_options, const std::string& directory) {
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
    auto db = std::make_shared<Db>();
    s = rocksdb::DB::OpenForReadOnly(db_options, directory, families, &db->handles, &db->db);
    if (!s.ok()) return FromRocksDB(s);
    db_ = std::move(db);
    STATECHECK_RETURN_IF_ERROR(LoadMetadata());
    open_ = true;
    return Status::Ok();
  }

  // InvalidArgument when the config setter changed a setting the store's rules rest on (the
  // list is RocksDBConfigSetter's, in rocksdb_store.h).
  Status CheckConfigSetter(const rocksdb::Options& chosen, const rocksdb::Options& set,
                           const RocksDBStoreOptions& options) const {
    auto changed = [&](const char* setting, const char* why) {
      return Status::InvalidArgument("store " + name_ + ": the RocksDB config setter changed " +
                                     setting + ", which " + why +
                                     ": leave it as the engine sets it");
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

  // KeyValueStore -----------------------------------------------------------------------------
  const std::string& name() const override { return name_; }
  bool persistent() const override { return true; }
  bool is_open() const override { return open_; }
  IsolationLevel isolation() const override { return isolation_; }
  bool was_closed_cleanly() const override { return was_closed_cleanly_; }
  std::optional<StateFormat> found_format() const override { return found_format_; }

  Status ImportLegacy(const ChangelogOffsets& offsets, const Position& position) override {
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

  Status Put(std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context) override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    // Keeps: T4 — READ_COMMITTED: a write waits in the buffer, unseen by views until the commit
    if (Buffered()) {
      BufferWrite(key, value);
    } else {
      // Keeps: T3 — READ_UNCOMMITTED: straight to RocksDB, visible to views once Put returns
      rocksdb::WriteOptions wo = WriteOpts(false);
      rocksdb::Status s = value ? db_->db->Put(wo, db_->data(), key, *value)
                                : db_->db->Delete(wo, db_->data(), key);
      if (!s.ok()) return FromRocksDB(s);
    }
    Advance(context);
    return Status::Ok();
  }

  Status PutIfAbsent(std::string_view key, std::string_view value,
                     std::optional<std::string>* existing, const RecordContext* context) override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    STATECHECK_RETURN_IF_ERROR(Get(key, existing));
    if (*existing) return Status::Ok();
    return Put(key, value, context);
  }

  Status PutAll(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
                const RecordContext* context) override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    if (Buffered()) {
      for (const auto& [k, v] : kvs) BufferWrite(k, v);
    } else {
      rocksdb::WriteBatch batch;
      for (const auto& [k, v] : kvs)
        v ? batch.Put(db_->data(), k, *v) : batch.Delete(db_->data(), k);
      rocksdb::Status s = db_->db->Write(WriteOpts(false), &batch);
      if (!s.ok()) return FromRocksDB(s);
    }
    Advance(context);
    return Status::Ok();
  }

  Status Delete(std::string_view key, std::optional<std::string>* old,
                const RecordContext* context) override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    STATECHECK_RETURN_IF_ERROR(Get(key, old));
    return Put(key, std::nullopt, context);
  }

  Status Get(std::string_view key, std::optional<std::string>* value) override {
    STATECHECK_RETURN_IF_ERROR(CheckOpen());
    value->reset();
    if (Buffered()) {
      auto it = buffer_.find(key);
      // Keeps: T5 — the writer's get reads its buffer first: a buffered delete returns absent
      if (it != buffer_.end() && (it->second || !STATECHECK_PLANTED(TxnGetMissesBufferedDelete))) {
        *value = it->second;
        return Status::Ok();
      }
    }
    return DbGet(StoreReadOptions(), key, value);
  }

  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override {
    return WriterOpen(from, to, true, it);
  }
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override {
    return WriterOpen(from, to, false, it);
  }
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override {
    STATECHECK_RETURN_IF_ERROR(CheckOpen());
    return WriterOpenBounds(std::string(prefix), PrefixEnd(std::string(prefix)), true, it);
  }
  Status All(std::unique_ptr<KeyValueIterator>* it) override {
    return WriterOpen(std::nullopt, std::nullopt, true, it);
  }
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
    return WriterOpen(std::nullopt, std::nullopt, false, it);
  }

  int64_t ApproximateNumUncommittedBytes() const override { return buffered_bytes_; }

  Status Commit(const ChangelogOffsets& offsets) override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    if (legacy_) return CommitLegacy(offsets);
    rocksdb::WriteBatch batch;
    // The first commit of a legacy store upgrades it (U1): the mark goes with the offsets.
    // Keeps: U1, U2 — a legacy store's first commit writes the current mark in its offsets' batch
    if (found_format_ == StateFormat::kLegacy && !imported_) {
      batch.Put(db_->meta(), kFormatKey, kFormatVersion);
    }
    if (STATECHECK_PLANTED(TxnOpenMarkerWithFirstCommit) && !marker_written_) {
      batch.Put(db_->meta(), kStatusKey, kStoreStatusOpen);  // Saves Open() a synced write.
    }
    // Keeps: T7 — the buffered data, the offsets and the position go into one atomic WriteBatch
    for (const auto& [key, value] : buffer_) {
      value ? batch.Put(db_->data(), key, *value) : batch.Delete(db_->data(), key);
    }
    std::map<std::string, int64_t> new_offsets = committed_offsets_;
    // Keeps: T7 — an empty offsets map clears every offset; a null value clears one partition
    if (offsets.empty()) {
      if (!STATECHECK_PLANTED(TxnEmptyOffsetsNotPersisted)) {
        for (const auto& [partition, offset] : committed_offsets_) {
          batch.Delete(db_->meta(), kOffsetPrefix + partition);
        }
      }
      new_offsets.clear();
    }
    for (const auto& [partition, offset] : offsets) {
      if (offset) {
        batch.Put(db_->meta(), kOffsetPrefix + partition, EncodeInt(*offset));
        new_offsets[partition] = *offset;
      } else {
        batch.Delete(db_->meta(), kOffsetPrefix + partition);
        new_offsets.erase(partition);
      }
    }
    const Position position = UncommittedPosition();
    for (const auto& [partition, offset] : position) {
      batch.Put(db_->meta(), kPositionPrefix + partition, EncodeInt(offset));
    }
    {
      // Readers take their snapshot and the committed position together under this lock.
      internal::MutexLock lock(&commit_mu_);
      // Keeps: T4 — one batch under commit_mu_: a view sees all of a commit or none of it
      Status s = internal::FailPoint(kFailStoreCommitWrite);
      if (s.ok()) s = FromRocksDB(db_->db->Write(WriteOpts(use_wal_), &batch));
      // Keeps: C6 — a failed commit is reported; the store refuses calls until it is reopened
      if (!s.ok()) {
        // Not applied to the memtables; but a WAL record whose sync failed may still be on
        // disk, and replayed by the next open: the outcome is known only after a restart (C6).
        // (commit_mu_ is held: readers see broken_ under it.)
        broken_ = "store " + name_ + ": a commit failed (" + s.ToString() +
                  ") and may or may not be durable; abandon the store and open it again";
        return s;
      }
      // Keeps: T8 — on commit the committed position becomes the uncommitted one
      committed_position_ = position;
    }
    buffer_.clear();
    buffered_bytes_ = 0;
    if (STATECHECK_PLANTED(TxnOpenMarkerWithFirstCommit)) marker_written_ = true;
    committed_offsets_ = std::move(new_offsets);
    imported_ = imported_ || found_format_ == StateFormat::kLegacy;
    if (!use_wal_) {
      // Without the WAL the batch is only in the memtables: flush to make it durable.
      Status s = internal::FailPoint(kFailStoreBeforeFlush);
      if (s.ok()) s = FromRocksDB(db_->db->Flush(rocksdb::FlushOptions(), db_->handles));
      // Keeps: C6 — a failed flush: the outcome is unknown until a restart, so refuse everything
      if (!s.ok()) {
        // The batch is in the memtables but may never reach the disk: whether this commit is
        // durable is unknown until a restart. Refuse everything, readers too, until then (C6).
        internal::MutexLock lock(&commit_mu_);
        broken_ = "store " + name_ + ": a commit wrote its batch but could not make it durable (" +
                  s.ToString() +
                  ") and may or may not be durable; abandon the store and open it "
                  "again";
        return s;
      }
    }
    return Status::Ok();
  }

  std::optional<int64_t> CommittedOffset(const std::string& partition) const override {
    auto it = committed_offsets_.find(partition);
    if (it == committed_offsets_.end()) return std::nullopt;
    return it->second;
  }

  Status Rollback() override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    if (!Buffered()) {
      return Status::FailedPrecondition("store " + name_ +
                                        " writes directly (READ_UNCOMMITTED): there is nothing "
                                        "to roll back");
    }
    // Keeps: T9 — rollback discards the buffer and its position; the store keeps its last commit
    buffer_.clear();
    buffered_bytes_ = 0;
    if (STATECHECK_PLANTED(TxnRollbackKeepsPosition)) return Status::Ok();
    const Position committed = CommittedPosition();  // Before position_mu_: the lock order.
    internal::MutexLock lock(&position_mu_);
    uncommitted_position_ = committed;
    return Status::Ok();
  }

  Position UncommittedPosition() const override {
    internal::MutexLock lock(&position_mu_);
    return uncommitted_position_;
  }
  Position CommittedPosition() const override {
    internal::ReaderMutexLock lock(&commit_mu_);
    return committed_position_;
  }

  std::shared_ptr<QueryView> NewQueryView() override {
    return std::make_shared<QueryViewImpl>(shared_from_this());
  }

  void Close() override { ShutDown(/*clean=*/true); }
  void Abandon() override { ShutDown(/*clean=*/false); }

  // For QueryViewImpl ----------------------------------------------------------------------------

  // Under the commit lock (shared): a snapshot and the position it is the state of.
  // Keeps: T2 — views read a snapshot under commit_mu_ shared, never the writer's buffer
  Status ReaderSnapshot(const rocksdb::Snapshot** snapshot, std::shared_ptr<Db>* db,
                        Position* position) {
    internal::ReaderMutexLock lock(&commit_mu_);
    if (!open_) return ClosedError();
    if (!broken_.empty()) return Status::FailedPrecondition(broken_);
    *db = db_;
    *snapshot = db_->db->GetSnapshot();
    // Keeps: T8 — a READ_COMMITTED view reports the committed position its snapshot is the state of
    *position = isolation_ == IsolationLevel::kReadCommitted &&
                        !STATECHECK_PLANTED(TxnQueryReportsUncommittedPosition)
                    ? committed_position_
                    : UncommittedPosition();
    return Status::Ok();
  }

 private:
  // Close (clean) or Abandon (a crash): either way the buffered writes and the position they
  // had reached are gone and open iterators end. Only a clean shutdown clears the open-status
  // marker, durably; an abandoned one flushes nothing, so without the WAL the memtables are
  // lost as in a crash.
  // A legacy store's commit: its writes are already in RocksDB (direct); make them durable. The
  // offsets and position are its task's to keep.
  Status CommitLegacy(const ChangelogOffsets& offsets) {
    if (!offsets.empty()) {
      return Status::InvalidArgument("store " + name_ +
                                     " has the legacy format and keeps no changelog offsets: its "
                                     "task keeps them in .checkpoint");
    }
    // With the WAL, one synced write makes every earlier write durable too (it rewrites the
    // legacy mark); without it, a flush.
    rocksdb::WriteBatch batch;
    batch.Put(db_->meta(), kFormatKey, kLegacyFormatVersion);
    const Status s = WriteDurably(&batch);
    if (!s.ok()) {
      internal::MutexLock lock(&commit_mu_);
      broken_ = "store " + name_ + ": a commit could not make its writes durable (" + s.ToString() +
                "); abandon the store and open it again";
      return s;
    }
    internal::MutexLock lock(&commit_mu_);
    committed_position_ = UncommittedPosition();
    return Status::Ok();
  }

  void ShutDown(bool clean) {
    {
      internal::MutexLock lock(&commit_mu_);
      if (!open_) return;
      open_ = false;
      // Keeps: T9 — a close or a crash (Abandon) drops the buffered writes, never a commit
      buffer_.clear();
      buffered_bytes_ = 0;
      if (Buffered()) {
        internal::MutexLock position_lock(&position_mu_);
        uncommitted_position_ = committed_position_;
      }
    }
    if (clean && !legacy_ && !read_only_) {
      rocksdb::WriteBatch batch;
      batch.Delete(db_->meta(), kStatusKey);
      const Status s = WriteDurably(&batch);
      if (!s.ok()) {
        logger_->Log(LogLevel::kError,
                     "store " + name_ +
                         ": could not clear its open-status marker on close: " + s.ToString());
      }
    }
    db_->store_closed.store(true, std::memory_order_release);
    db_.reset();  // Open iterators end at their next call, then let the database go.
  }

  bool Buffered() const { return isolation_ == IsolationLevel::kReadCommitted; }

  Status ClosedError() const {
    return Status::FailedPrecondition("Store " + name_ + " is currently closed.");
  }
  Status CheckOpen() const {
    if (!open_) return ClosedError();
    if (!broken_.empty()) return Status::FailedPrecondition(broken_);
    return Status::Ok();
  }
  Status CheckWritable() const {
    STATECHECK_RETURN_IF_ERROR(CheckOpen());
    if (read_only_) {
      return Status::FailedPrecondition("store " + name_ +
                                        " is open read-only: it writes, commits and rolls back "
                                        "nothing; open it without read_only to write");
    }
    return Status::Ok();
  }

  rocksdb::WriteOptions WriteOpts(bool sync) const {
    rocksdb::WriteOptions wo;
    wo.disableWAL = !use_wal_;
    wo.sync = sync && use_wal_;
    return wo;
  }

  // Writes `batch` and makes it durable: synced WAL, or a flush without it.
  Status WriteDurably(rocksdb::WriteBatch* batch) {
    rocksdb::Status s = db_->db->Write(WriteOpts(true), batch);
    if (s.ok() && !use_wal_) {
      rocksdb::FlushOptions fo;
      fo.wait = true;
      s = db_->db->Flush(fo, db_->handles);
    }
    return FromRocksDB(s);
  }

  void BufferWrite(std::string_view key, std::optional<std::string_view> value) {
    auto [it, inserted] = buffer_.try_emplace(std::string(key));
    // Keeps: T6 — uncommitted bytes: an overwritten buffered write stops counting
    if (!inserted && !STATECHECK_PLANTED(TxnBufferOverwriteCountedTwice)) {
      buffered_bytes_ -=
          static_cast<int64_t>(it->first.size() + (it->second ? it->second->size() : 0));
    }
    it->second = value ? std::optional<std::string>(std::string(*value)) : std::nullopt;
    buffered_bytes_ += static_cast<int64_t>(key.size() + (value ? value->size() : 0));
  }

  // Keeps: T8 — each write advances the uncommitted position (per partition, forward only)
  void Advance(const RecordContext* context) {
    if (!context) return;
    internal::MutexLock lock(&position_mu_);
    auto [it, inserted] = uncommitted_position_.try_emplace(context->partition, context->offset);
    if (!inserted) it->second = std::max(it->second, context->offset);
  }

  Status DbGet(const rocksdb::ReadOptions& ro, std::string_view key,
               std::optional<std::string>* value) {
    STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailStoreGet));
    std::string v;
    rocksdb::Status s = db_->db->Get(ro, db_->data(), key, &v);
    if (s.IsNotFound()) return Status::Ok();
    if (!s.ok()) return FromRocksDB(s);
    *value = std::move(v);
    return Status::Ok();
  }

  Status WriterOpen(std::optional<std::string_view> from, std::optional<std::string_view> to,
                    bool forward, std::unique_ptr<KeyValueIterator>* it) {
    STATECHECK_RETURN_IF_ERROR(CheckOpen());
    std::optional<std::string> lower, upper;
    RangeBounds(from, to, &lower, &upper);
    return WriterOpenBounds(std::move(lower), std::move(upper), forward, it);
  }

  // The writer's iterator: a copy of the buffered writes in range over a database snapshot, so
  // later writes never disturb it (T5).
  Status WriterOpenBounds(std::optional<std::string> lower, std::optional<std::string> upper,
                          bool forward, std::unique_ptr<KeyValueIterator>* it) {
    std::vector<std::pair<std::string, std::optional<std::string>>> buffered;
    if (Buffered()) {
      auto first = lower ? buffer_.lower_bound(*lower) : buffer_.begin();
      auto last = upper ? buffer_.lower_bound(*upper) : buffer_.end();
      buffered.assign(first, last);
    }
    *it = std::make_unique<MergingIterator>(db_, db_->db->GetSnapshot(), std::move(buffered),
                                            std::move(lower), std::move(upper), forward);
    return Status::Ok();
  }

  // Both positions = `p`, as an open finds them.
  void ResetPositions(const Position& p) ABSL_LOCKS_EXCLUDED(commit_mu_, position_mu_) {
    internal::MutexLock lock(&commit_mu_);
    internal::MutexLock position_lock(&position_mu_);
    committed_position_ = p;
    uncommitted_position_ = p;
  }

  Status LoadMetadata() {
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
        } else if (key == kFormatKey) {
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
      std::unique_ptr<rocksdb::Iterator> data(
          db_->db->NewIterator(StoreReadOptions(), db_->data()));
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

  friend class QueryViewImpl;

  const std::string name_;
  const IsolationLevel isolation_;
  const bool legacy_;  // Opened in the legacy format.
  const bool read_only_;
  const bool use_wal_;
  const std::shared_ptr<Logger> logger_;

  std::shared_ptr<Db> db_;
  std::atomic<bool> open_{false};
  // Why the store refuses calls until it is reopened ("" = it does not). Written by the writer
  // under commit_mu_; readers read it under commit_mu_.
  std::string broken_;
  bool was_closed_cleanly_ = true;
  std::optional<StateFormat> found_format_;  // What LoadMetadata found on disk.
  bool imported_ = false;        // A legacy store opened current has committed: it is current now.
  bool marker_written_ = false;  // Planted bug TxnOpenMarkerWithFirstCommit only.
  Buffer buffer_;                // Writer thread only.
  int64_t buffered_bytes_ = 0;
  std::map<std::string, int64_t> committed_offsets_;

  // Guards committed_position_ and snapshot taking. Taken before position_mu_ when both are.
  mutable internal::SharedMutex commit_mu_;
  Position committed_position_ ABSL_GUARDED_BY(commit_mu_);
  mutable internal::Mutex position_mu_ ABSL_ACQUIRED_AFTER(commit_mu_);
  Position uncommitted_position_ ABSL_GUARDED_BY(position_mu_);
};

Status QueryViewImpl::Get(std::string_view key, std::optional<std::string>* value) {
  value->reset();
  std::shared_ptr<Db> db;
  const rocksdb::Snapshot* snapshot = nullptr;
  Position position;
  STATECHECK_RETURN_IF_ERROR(store_->ReaderSnapshot(&snapshot, &db, &position));
  rocksdb::ReadOptions ro = StoreReadOptions();
  ro.snapshot = snapshot;
  std::string v;
  rocksdb::Status s = db->db->Get(ro, db->data(), key, &v);
  db->db->ReleaseSnapshot(snapshot);
  if (!s.ok() && !s.IsNotFound()) return FromRocksDB(s);
  if (s.ok()) *value = std::move(v);
  internal::MutexLock lock(&mu_);
  last_position_ = std::move(position);
  return Status::Ok();
}

Status QueryViewImpl::PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) {
  return OpenBounds(std::string(prefix), PrefixEnd(std::string(prefix)), true, it);
}

Status QueryViewImpl::Open(std::optional<std::string_view> from, std::optional<std::string_view> to,
                           bool forward, std::unique_ptr<KeyValueIterator>* it) {
  std::optional<std::string> lower, upper;
  RangeBounds(from, to, &lower, &upper);
  return OpenBounds(std::move(lower), std::move(upper), forward, it);
}

Status QueryViewImpl::OpenBounds(std::optional<std::string> lower, std::optional<std::string> upper,
                                 bool forward, std::unique_ptr<KeyValueIterator>* it) {
  std::shared_ptr<Db> db;
  const rocksdb::Snapshot* snapshot = nullptr;
  Position position;
  STATECHECK_RETURN_IF_ERROR(store_->ReaderSnapshot(&snapshot, &db, &position));
  // Keeps: T4 — a view's iterator reads one committed snapshot throughout, without the buffer
  *it = std::make_unique<MergingIterator>(
      std::move(db), snapshot, std::vector<std::pair<std::string, std::optional<std::string>>>{},
      std::move(lower), std::move(upper), forward);
  internal::MutexLock lock(&mu_);
  last_position_ = std::move(position);
  return Status::Ok();
}

// Owns the shared implementation, so that query views can keep it alive past this object.
class RocksDBStoreHandle final : public RocksDBStore {
 public:
  explicit RocksDBStoreHandle(std::shared_ptr<RocksDBStoreImpl> impl) : impl_(std::move(impl)) {}
  ~RocksDBStoreHandle() override { impl_->Close(); }

  const std::string& name() const override { return impl_->name(); }
  bool persistent() const override { return true; }
  bool is_open() const override { return impl_->is_open(); }
  IsolationLevel isolation() const override { return impl_->isolation(); }
  bool was_closed_cleanly() const override { return impl_->was_closed_cleanly(); }
  std::optional<StateFormat> found_format() const override { return impl_->found_format(); }
  Status ImportLegacy(const ChangelogOffsets& offsets, const Position& position) override {
    return impl_->ImportLegacy(offsets, position);
  }
  Status Put(std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context) override {
    return impl_->Put(key, value, context);
  }
  Status PutIfAbsent(std::string_view key, std::string_view value,
                     std::optional<std::string>* existing, const RecordContext* context) override {
    return impl_->PutIfAbsent(key, value, existing, context);
  }
  Status PutAll(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
                const RecordContext* context) override {
    return impl_->PutAll(kvs, context);
  }
  Status Delete(std::string_view key, std::optional<std::string>* old,
                const RecordContext* context) override {
    return impl_->Delete(key, old, context);
  }
  Status Get(std::string_view key, std::optional<std::string>* value) override {
    return impl_->Get(key, value);
  }
  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override {
    return impl_->Range(from, to, it);
  }
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override {
    return impl_->ReverseRange(from, to, it);
  }
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override {
    return impl_->PrefixScan(prefix, it);
  }
  Status All(std::unique_ptr<KeyValueIterator>* it) override { return impl_->All(it); }
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
    return impl_->ReverseAll(it);
  }
  int64_t ApproximateNumUncommittedBytes() const override {
    return impl_->ApproximateNumUncommittedBytes();
  }
  Status Commit(const ChangelogOffsets& offsets) override { return impl_->Commit(offsets); }
  std::optional<int64_t> CommittedOffset(const std::string& partition) const override {
    return impl_->CommittedOffset(partition);
  }
  Status Rollback() override { return impl_->Rollback(); }
  Position UncommittedPosition() const override { return impl_->UncommittedPosition(); }
  Position CommittedPosition() const override { return impl_->CommittedPosition(); }
  std::shared_ptr<QueryView> NewQueryView() override { return impl_->NewQueryView(); }
  void Close() override { impl_->Close(); }
  void Abandon() override { impl_->Abandon(); }

 private:
  std::shared_ptr<RocksDBStoreImpl> impl_;
};

}  // namespace

Status OpenRocksDBStore(const RocksDBStoreOptions& options, std::unique_ptr<RocksDBStore>* store) {
  store->reset();
  if (options.name.empty()) return Status::InvalidArgument("store name cannot be empty");
  if (options.directory.empty()) {
    return Status::InvalidArgument("store " + options.name + ": directory cannot be empty");
  }
  auto impl = std::make_shared<RocksDBStoreImpl>(options);
  STATECHECK_RETURN_IF_ERROR(impl->Open(options));
  *store = std::make_unique<RocksDBStoreHandle>(std::move(impl));
  return Status::Ok();
}

Status DestroyRocksDBStore(const std::string& directory, rocksdb::Env* env) {
  if (directory.empty()) return Status::InvalidArgument("store directory cannot be empty");
  rocksdb::Options options;
  if (env) options.env = env;
  if (options.env->FileExists(directory).IsNotFound()) return Status::Ok();
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options)},
      {kMetaFamily, rocksdb::ColumnFamilyOptions(options)}};
  rocksdb::Status s = rocksdb::DestroyDB(directory, options, families);
  if (!s.ok()) return FromRocksDB(s);
  // DestroyDB usually removes the directory too. Removing what is left is best-effort: an empty
  // directory is harmless (the next open creates the store in it), and some file systems (an
  // in-memory one) have directories that cannot be removed.
  options.env->DeleteDir(directory).PermitUncheckedError();
  return Status::Ok();
}

}  // namespace statecheck
