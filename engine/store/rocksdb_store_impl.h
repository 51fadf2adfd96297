// The RocksDB store's implementation (statecheck/rocksdb_store.h): RocksDBStoreImpl and its
// query views. Opening, recovering the metadata and importing legacy offsets are in
// rocksdb_store_open.cc; writes, commits, reads and the close in rocksdb_store.cc; the merging
// iterator in rocksdb_store_iterator.cc. Internal to the engine.
#ifndef STATECHECK_ENGINE_STORE_ROCKSDB_STORE_IMPL_H_
#define STATECHECK_ENGINE_STORE_ROCKSDB_STORE_IMPL_H_

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/mutex.h"
#include "engine/store/rocksdb_store_internal.h"
#include "engine/store/write_buffer.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/store_schema.h"

namespace statecheck::internal {

// The schema: statecheck/store_schema.h (shared with `statecheck inspect`).
inline constexpr const auto& kMetaFamily = kStoreMetaFamily;
inline constexpr const auto& kOffsetPrefix = kStoreOffsetPrefix;
inline constexpr const auto& kPositionPrefix = kStorePositionPrefix;
inline constexpr const auto& kFormatKey = kStoreFormatKey;
inline constexpr const auto& kStatusKey = kStoreStatusKey;
inline constexpr const auto& kFormatVersion = kStoreFormatCurrent;
inline constexpr const auto& kLegacyFormatVersion = kStoreFormatLegacy;

inline std::string EncodeInt(int64_t v) { return std::to_string(v); }

// `s` as the number it holds; Corruption naming `what` if it is not one.
Status DecodeInt(const std::string& s, const std::string& what, int64_t* out);

class RocksDBStoreImpl;

// Which commit is durable (C7), learnt from RocksDB's flushes, and the first background error.
// Shared by the store and the listener RocksDB calls from its background threads.
class FlushTracker {
 public:
  explicit FlushTracker(std::map<std::string, int64_t> durable) : durable_(std::move(durable)) {}

  // A commit applied with its last sequence number `seqno` and its offsets.
  void Committed(rocksdb::SequenceNumber seqno, const std::map<std::string, int64_t>& offsets)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A commit already durable (a flush waited for, a synced WAL write): it and every earlier one.
  void Durable(const std::map<std::string, int64_t>& offsets) ABSL_LOCKS_EXCLUDED(mu_);
  // A flush installed, holding every write up to `largest_seqno`.
  void Flushed(rocksdb::SequenceNumber largest_seqno) ABSL_LOCKS_EXCLUDED(mu_);
  std::optional<int64_t> DurableOffset(const std::string& partition) const ABSL_LOCKS_EXCLUDED(mu_);

  void BackgroundError(const std::string& what) ABSL_LOCKS_EXCLUDED(mu_);
  // "" until a background flush or write fails; then what failed.
  std::string background_error() const ABSL_LOCKS_EXCLUDED(mu_);
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  mutable internal::Mutex mu_;
  // Commits applied and not known to be flushed, oldest first.
  std::deque<std::pair<rocksdb::SequenceNumber, std::map<std::string, int64_t>>> pending_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> durable_ ABSL_GUARDED_BY(mu_);
  std::string error_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> failed_{false};
};

// RocksDB's calls about flushes: a finished flush makes commits durable, a failed one is kept to
// be reported by the store's next call.
class FlushListener final : public rocksdb::EventListener {
 public:
  explicit FlushListener(std::shared_ptr<FlushTracker> tracker) : tracker_(std::move(tracker)) {}
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    tracker_->Flushed(info.largest_seqno);
  }
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override;

 private:
  std::shared_ptr<FlushTracker> tracker_;
};

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
        max_unflushed_bytes_(options.max_unflushed_bytes),
        deterministic_flushes_(options.disable_auto_compactions),
        logger_(options.logger ? options.logger : StderrLogger()) {}

  Status Open(const RocksDBStoreOptions& options);

  ~RocksDBStoreImpl() override { Close(); }

  // RocksDBStoreOptions::read_only: RocksDB's read-only open, which writes nothing (a WAL is
  // replayed into memory), of a store this engine wrote.
  Status OpenReadOnly(const rocksdb::Options& db_options, const std::string& directory);

  // InvalidArgument when the config setter changed a setting the store's rules rest on (the
  // list is RocksDBConfigSetter's, in rocksdb_store.h).
  Status CheckConfigSetter(const rocksdb::Options& chosen, const rocksdb::Options& set,
                           const RocksDBStoreOptions& options) const;

  // KeyValueStore -----------------------------------------------------------------------------
  const std::string& name() const override { return name_; }
  bool persistent() const override { return true; }
  bool is_open() const override { return open_; }
  IsolationLevel isolation() const override { return isolation_; }
  bool was_closed_cleanly() const override { return was_closed_cleanly_; }
  std::optional<StateFormat> found_format() const override { return found_format_; }

  Status ImportLegacy(const ChangelogOffsets& offsets, const Position& position) override;

  Status Put(std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context) override;

  Status PutIfAbsent(std::string_view key, std::string_view value,
                     std::optional<std::string>* existing, const RecordContext* context) override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    STATECHECK_RETURN_IF_ERROR(Get(key, existing));
    if (*existing) return Status::Ok();
    return Put(key, value, context);
  }

  Status PutAll(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
                const RecordContext* context) override;

  Status Delete(std::string_view key, std::optional<std::string>* old,
                const RecordContext* context) override {
    STATECHECK_RETURN_IF_ERROR(CheckWritable());
    STATECHECK_RETURN_IF_ERROR(Get(key, old));
    return Put(key, std::nullopt, context);
  }

  Status Get(std::string_view key, std::optional<std::string>* value) override;

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

  Status Commit(const ChangelogOffsets& offsets) override;

  std::optional<int64_t> CommittedOffset(const std::string& partition) const override {
    auto it = committed_offsets_.find(partition);
    if (it == committed_offsets_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<int64_t> DurableOffset(const std::string& partition) const override {
    if (!tracker_) return CommittedOffset(partition);
    return tracker_->DurableOffset(partition);
  }

  Status Rollback() override;

  Position UncommittedPosition() const override {
    internal::MutexLock lock(&position_mu_);
    return uncommitted_position_;
  }
  Position CommittedPosition() const override {
    internal::ReaderMutexLock lock(&commit_mu_);
    return committed_position_;
  }

  std::shared_ptr<QueryView> NewQueryView() override;

  void Close() override { ShutDown(/*clean=*/true); }
  void Abandon() override { ShutDown(/*clean=*/false); }

  // For QueryViewImpl ----------------------------------------------------------------------------

  // Under the commit lock (shared): a snapshot and the position it is the state of.
  Status ReaderSnapshot(const rocksdb::Snapshot** snapshot, std::shared_ptr<Db>* db,
                        Position* position);

 private:
  // A legacy store's commit: its writes are already in RocksDB (direct); make them durable. The
  // offsets and position are its task's to keep.
  Status CommitLegacy(const ChangelogOffsets& offsets);

  // Close (clean) or Abandon (a crash): either way the buffered writes and the position they
  // had reached are gone and open iterators end. Only a clean shutdown clears the open-status
  // marker, durably; an abandoned one flushes nothing, so without the WAL the memtables are
  // lost as in a crash.
  void ShutDown(bool clean);

  bool Buffered() const { return isolation_ == IsolationLevel::kReadCommitted; }

  Status ClosedError() const {
    return Status::FailedPrecondition("Store " + name_ + " is currently closed.");
  }
  Status CheckOpen() const {
    if (!open_) return ClosedError();
    if (!broken_.empty()) return Status::FailedPrecondition(broken_);
    // Keeps: C6, C7 — a background flush that failed is reported by the next call
    if (tracker_ && tracker_->failed()) return BackgroundFailure();
    return Status::Ok();
  }
  Status BackgroundFailure() const {
    return Status::FailedPrecondition(
        "store " + name_ + ": " + tracker_->background_error() +
        "; what it committed since its last flush may be lost: abandon the store and open it "
        "again (its restore replays the changelog from the offset it holds)");
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
  Status WriteDurably(rocksdb::WriteBatch* batch);
  // Without the WAL: flushes every memtable (data and metadata together) and waits for it.
  Status FlushAndWait();
  // Without the WAL, at a commit: counts its `bytes` as written and not yet durable, and starts
  // a background flush (not waited for) once the bytes since the last one pass
  // max_unflushed_bytes (C7). The error of a flush that fails in this call (then the store
  // refuses every call until it is reopened).
  Status CountUnflushed(size_t bytes);

  void BufferWrite(std::string_view key, std::optional<std::string_view> value);

  // Keeps: T8 — each write advances the uncommitted position (per partition, forward only)
  void Advance(const RecordContext* context) {
    if (!context) return;
    internal::MutexLock lock(&position_mu_);
    auto [it, inserted] = uncommitted_position_.try_emplace(context->partition, context->offset);
    if (!inserted) it->second = std::max(it->second, context->offset);
  }

  Status DbGet(const rocksdb::ReadOptions& ro, std::string_view key,
               std::optional<std::string>* value);

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
                          bool forward, std::unique_ptr<KeyValueIterator>* it);

  // Both positions = `p`, as an open finds them.
  void ResetPositions(const Position& p) ABSL_LOCKS_EXCLUDED(commit_mu_, position_mu_) {
    internal::MutexLock lock(&commit_mu_);
    internal::MutexLock position_lock(&position_mu_);
    committed_position_ = p;
    uncommitted_position_ = p;
  }

  // The metadata family's marks: the open-status marker's and the format mark's values, as the
  // open found them (an absent key is not here).
  using Marks = std::map<std::string, std::string, std::less<>>;
  // Reads the metadata family into the offsets, positions and found format; `marks` (if given)
  // gets the marks.
  Status LoadMetadata(Marks* marks = nullptr);

  friend class QueryViewImpl;

  const std::string name_;
  const IsolationLevel isolation_;
  const bool legacy_;  // Opened in the legacy format.
  const bool read_only_;
  const bool use_wal_;
  const int64_t max_unflushed_bytes_;
  const bool deterministic_flushes_;  // disable_auto_compactions: the bound's flush waits.
  const std::shared_ptr<Logger> logger_;

  std::shared_ptr<Db> db_;
  std::atomic<bool> open_{false};
  // Why the store refuses calls until it is reopened ("" = it does not). Written by the writer
  // under commit_mu_; readers read it under commit_mu_.
  std::string broken_;
  bool was_closed_cleanly_ = true;
  std::optional<StateFormat> found_format_;  // What LoadMetadata found on disk.
  bool imported_ = false;  // A legacy store opened current has committed: it is current now.
  // Keeps: T11 — the transaction buffer: an in-memory sorted map, no I/O per buffered write
  WriteBuffer buffer_;  // Writer thread only.
  int64_t buffered_bytes_ = 0;
  std::map<std::string, int64_t> committed_offsets_;
  // Which commit is durable and the background errors (null for a read-only or legacy store).
  std::shared_ptr<FlushTracker> tracker_;
  int64_t unflushed_bytes_ = 0;  // Writer thread only: bytes written since the last flush began.

  // Guards committed_position_ and snapshot taking. Taken before position_mu_ when both are.
  mutable internal::SharedMutex commit_mu_;
  Position committed_position_ ABSL_GUARDED_BY(commit_mu_);
  mutable internal::Mutex position_mu_ ABSL_ACQUIRED_AFTER(commit_mu_);
  Position uncommitted_position_ ABSL_GUARDED_BY(position_mu_);
};

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_STORE_ROCKSDB_STORE_IMPL_H_
