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
#include <optional>
#include <utility>
#include <vector>

#include "engine/base/env_util.h"
#include "engine/base/fail_point.h"
#include "engine/base/mutex.h"
#include "engine/base/planted.h"
#include "engine/base/rocksdb_status.h"
#include "engine/store/rocksdb_store_impl.h"
#include "engine/store/rocksdb_store_internal.h"
#include "statecheck/store_schema.h"

namespace statecheck {
namespace internal {

Status RocksDBStoreImpl::Put(std::string_view key, std::optional<std::string_view> value,
                             const RecordContext* context) {
  STATECHECK_RETURN_IF_ERROR(CheckWritable());
  // Keeps: T4 — READ_COMMITTED: a write waits in the buffer, unseen by views until the commit
  if (Buffered()) {
    BufferWrite(key, value);
  } else {
    // Keeps: T3 — READ_UNCOMMITTED: straight to RocksDB, visible to views once Put returns
    STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailStoreWrite));
    rocksdb::WriteOptions wo = WriteOpts(false);
    rocksdb::Status s =
        value ? db_->db->Put(wo, db_->data(), key, *value) : db_->db->Delete(wo, db_->data(), key);
    if (!s.ok()) return FromRocksDB(s);
    // Counted now, flushed (past the bound) at a commit: a flush between commits would make
    // writes durable ahead of their offsets for no reason.
    unflushed_bytes_ += static_cast<int64_t>(key.size() + (value ? value->size() : 0));
  }
  Advance(context);
  return Status::Ok();
}

Status RocksDBStoreImpl::PutAll(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
    const RecordContext* context) {
  STATECHECK_RETURN_IF_ERROR(CheckWritable());
  if (Buffered()) {
    for (const auto& [k, v] : kvs) BufferWrite(k, v);
  } else {
    rocksdb::WriteBatch batch;
    for (const auto& [k, v] : kvs) v ? batch.Put(db_->data(), k, *v) : batch.Delete(db_->data(), k);
    STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailStoreWrite));
    STATECHECK_RETURN_IF_ERROR(FromRocksDB(db_->db->Write(WriteOpts(false), &batch)));
    unflushed_bytes_ += static_cast<int64_t>(batch.GetDataSize());  // Flushed at a commit.
  }
  Advance(context);
  return Status::Ok();
}

Status RocksDBStoreImpl::Get(std::string_view key, std::optional<std::string>* value) {
  STATECHECK_RETURN_IF_ERROR(CheckOpen());
  value->reset();
  if (Buffered()) {
    const WriteBuffer::Slot* slot = buffer_.Find(key);
    // Keeps: T5 — the writer's get reads its buffer first: a buffered delete returns absent
    if (slot && (slot->value() || !STATECHECK_PLANTED(TxnGetMissesBufferedDelete))) {
      if (auto v = slot->value()) *value = std::string(*v);
      return Status::Ok();
    }
  }
  return DbGet(StoreReadOptions(), key, value);
}

Status RocksDBStoreImpl::Commit(const ChangelogOffsets& offsets) {
  STATECHECK_RETURN_IF_ERROR(CheckWritable());
  if (legacy_) return CommitLegacy(offsets);
  // Room for the data and the metadata (a record's header is at most 11 bytes).
  rocksdb::WriteBatch batch(static_cast<size_t>(buffered_bytes_) + 16 * buffer_.size() + 4096);
  // The first commit of a legacy store upgrades it (U1): the mark goes with the offsets, and
  // that commit is made durable at once (an upgrade must not run twice).
  // Keeps: U1, U2 — a legacy store's first commit writes the current mark in its offsets' batch
  const bool upgrade = found_format_ == StateFormat::kLegacy && !imported_;
  if (upgrade) batch.Put(db_->meta(), kFormatKey, kFormatVersion);
  if (STATECHECK_PLANTED(TxnOpenMarkerWithFirstCommit)) {
    batch.Put(db_->meta(), kStatusKey, kStoreStatusOpen);  // Saves Open() a synced write.
  }
  // Keeps: T7 — the buffered data, the offsets and the position go into one atomic WriteBatch
  for (const auto& [key, slot] : buffer_) {
    const std::optional<std::string_view> value = slot.value();
    value ? batch.Put(db_->data(), key, *value) : batch.Delete(db_->data(), key);
  }
  // (The planted bug TxnOffsetsOutsideDataBatch moves the offsets and position into a write of
  // their own, made after the flush the commit may start; elsewhere `separate` stays empty.)
  std::optional<rocksdb::WriteBatch> separate;
  if (!use_wal_ && !upgrade && STATECHECK_PLANTED(TxnOffsetsOutsideDataBatch)) separate.emplace();
  rocksdb::WriteBatch& meta = separate ? *separate : batch;
  std::map<std::string, int64_t> new_offsets = committed_offsets_;
  // Keeps: T7 — an empty offsets map clears every offset; a null value clears one partition
  if (offsets.empty()) {
    if (!STATECHECK_PLANTED(TxnEmptyOffsetsNotPersisted)) {
      for (const auto& [partition, offset] : committed_offsets_) {
        meta.Delete(db_->meta(), kOffsetPrefix + partition);
      }
    }
    new_offsets.clear();
  }
  for (const auto& [partition, offset] : offsets) {
    if (offset) {
      meta.Put(db_->meta(), kOffsetPrefix + partition, EncodeInt(*offset));
      new_offsets[partition] = *offset;
    } else {
      meta.Delete(db_->meta(), kOffsetPrefix + partition);
      new_offsets.erase(partition);
    }
  }
  const Position position = UncommittedPosition();
  for (const auto& [partition, offset] : position) {
    meta.Put(db_->meta(), kPositionPrefix + partition, EncodeInt(offset));
  }
  rocksdb::SequenceNumber seqno = 0;
  {
    // Readers take their snapshot and the committed position together under this lock.
    internal::MutexLock lock(&commit_mu_);
    // Keeps: T4 — one batch under commit_mu_: a view sees all of a commit or none of it
    Status s = internal::FailPoint(kFailStoreCommitWrite);
    // Keeps: C1, C7 — the batch is applied, not flushed: the changelog holds the commit durably
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
    seqno = db_->db->GetLatestSequenceNumber();
    // Keeps: T8 — on commit the committed position becomes the uncommitted one
    committed_position_ = position;
  }
  buffer_.Clear();
  buffered_bytes_ = 0;
  imported_ = imported_ || found_format_ == StateFormat::kLegacy;
  if (use_wal_) {
    tracker_->Durable(new_offsets);  // One synced WAL write: durable now.
  } else {
    tracker_->Committed(seqno, new_offsets);
    if (upgrade) {
      Status s = internal::FailPoint(kFailStoreBeforeFlush);
      if (s.ok()) s = FlushAndWait();
      // Keeps: C6 — a failed flush: the outcome is unknown until a restart, so refuse everything
      if (!s.ok()) {
        // The batch is in the memtables but may never reach the disk: whether the upgrade is
        // durable is unknown until a restart. Refuse everything, readers too, until then (C6).
        internal::MutexLock lock(&commit_mu_);
        broken_ = "store " + name_ + ": an upgrade's commit wrote its batch but could not make " +
                  "it durable (" + s.ToString() +
                  ") and may or may not be durable; abandon the store and open it again";
        committed_offsets_ = std::move(new_offsets);
        return s;
      }
      tracker_->Durable(new_offsets);
    } else {
      committed_offsets_ = new_offsets;
      // Keeps: C6 — a flush that fails in this call fails the commit: applied, durable or not
      Status s = CountUnflushed(batch.GetDataSize());
      if (s.ok() && separate) s = FromRocksDB(db_->db->Write(WriteOpts(use_wal_), &*separate));
      return s;
    }
  }
  committed_offsets_ = std::move(new_offsets);
  return Status::Ok();
}

Status RocksDBStoreImpl::CountUnflushed(size_t bytes) {
  if (use_wal_ || max_unflushed_bytes_ < 0) return Status::Ok();
  unflushed_bytes_ += static_cast<int64_t>(bytes);
  if (unflushed_bytes_ <= max_unflushed_bytes_) return Status::Ok();
  // One flush at a time: a flush already pending or running takes these writes' memtables too
  // (or the next commit starts one). Stacked atomic flushes are also where RocksDB 7.8 fails an
  // assertion when one of them fails (MemTableList::RollbackMemtableFlush with no memtable
  // picked; speedb-io/speedb#196 reports it on 7.2).
  // (With deterministic flushes every flush of ours was waited for, and whether one is still
  // winding down must not decide this one: a fault schedule replays only if it never does.)
  uint64_t pending = 0, running = 0;
  if (!deterministic_flushes_ &&
      ((db_->db->GetIntProperty(db_->meta(), "rocksdb.mem-table-flush-pending", &pending) &&
        pending > 0) ||
       (db_->db->GetIntProperty("rocksdb.num-running-flushes", &running) && running > 0))) {
    return Status::Ok();
  }
  unflushed_bytes_ = 0;
  // Keeps: C7 — past the bound a commit starts a flush of data and offsets and does not wait
  rocksdb::FlushOptions fo;
  // Without automatic compactions (a harness's deterministic fault schedules) the flush runs in
  // this call, so that every file write still happens in a call the writer made.
  fo.wait = deterministic_flushes_;
  fo.allow_write_stall = true;  // Never wait for a stall to clear: the flush starts now.
  Status s = internal::FailPoint(kFailStoreBackgroundFlush);
  if (s.ok()) {
    s = FromRocksDB(STATECHECK_PLANTED(TxnFlushNotAtomic) ? db_->db->Flush(fo, db_->data())
                                                          : db_->db->Flush(fo, db_->handles));
  }
  if (s.ok()) return s;
  // A flush that fails in this call (it could not start, or it ran here and failed): the
  // commit is applied but may or may not be durable, and the store refuses every call until it
  // is reopened, as after any failed commit (C6). One that fails later, in the background, is
  // reported by the next call (FlushListener).
  tracker_->BackgroundError("a flush a commit started failed (" + s.ToString() + ")");
  return s;
}

Status RocksDBStoreImpl::FlushAndWait() {
  rocksdb::FlushOptions fo;
  fo.wait = true;
  return FromRocksDB(db_->db->Flush(fo, db_->handles));
}

void FlushTracker::Committed(rocksdb::SequenceNumber seqno,
                             const std::map<std::string, int64_t>& offsets) {
  internal::MutexLock lock(&mu_);
  pending_.emplace_back(seqno, offsets);
}

void FlushTracker::Durable(const std::map<std::string, int64_t>& offsets) {
  internal::MutexLock lock(&mu_);
  pending_.clear();
  durable_ = offsets;
}

void FlushTracker::Flushed(rocksdb::SequenceNumber largest_seqno) {
  internal::MutexLock lock(&mu_);
  // An atomic flush holds every write before the memtables were switched, so every commit whose
  // last write is at or below the largest sequence number it flushed.
  while (!pending_.empty() && pending_.front().first <= largest_seqno) {
    durable_ = std::move(pending_.front().second);
    pending_.pop_front();
  }
}

std::optional<int64_t> FlushTracker::DurableOffset(const std::string& partition) const {
  internal::MutexLock lock(&mu_);
  auto it = durable_.find(partition);
  if (it == durable_.end()) return std::nullopt;
  return it->second;
}

void FlushTracker::BackgroundError(const std::string& what) {
  internal::MutexLock lock(&mu_);
  if (error_.empty()) error_ = what;
  failed_.store(true, std::memory_order_release);
}

std::string FlushTracker::background_error() const {
  internal::MutexLock lock(&mu_);
  return error_;
}

void FlushListener::OnBackgroundError(rocksdb::BackgroundErrorReason reason,
                                      rocksdb::Status* error) {
  if (error->ok()) return;
  const char* what = reason == rocksdb::BackgroundErrorReason::kFlush ||
                             reason == rocksdb::BackgroundErrorReason::kFlushNoWAL ||
                             reason == rocksdb::BackgroundErrorReason::kManifestWrite ||
                             reason == rocksdb::BackgroundErrorReason::kManifestWriteNoWAL
                         ? "a background flush failed"
                         : "a background write or compaction failed";
  tracker_->BackgroundError(std::string(what) + " (" + error->ToString() + ")");
}

Status RocksDBStoreImpl::Rollback() {
  STATECHECK_RETURN_IF_ERROR(CheckWritable());
  if (!Buffered()) {
    return Status::FailedPrecondition("store " + name_ +
                                      " writes directly (READ_UNCOMMITTED): there is nothing "
                                      "to roll back");
  }
  // Keeps: T9 — rollback discards the buffer and its position; the store keeps its last commit
  buffer_.Clear();
  buffered_bytes_ = 0;
  if (STATECHECK_PLANTED(TxnRollbackKeepsPosition)) return Status::Ok();
  const Position committed = CommittedPosition();  // Before position_mu_: the lock order.
  internal::MutexLock lock(&position_mu_);
  uncommitted_position_ = committed;
  return Status::Ok();
}

std::shared_ptr<QueryView> RocksDBStoreImpl::NewQueryView() {
  return std::make_shared<QueryViewImpl>(shared_from_this());
}

// Keeps: T2 — views read a snapshot under commit_mu_ shared, never the writer's buffer
Status RocksDBStoreImpl::ReaderSnapshot(const rocksdb::Snapshot** snapshot, std::shared_ptr<Db>* db,
                                        Position* position) {
  internal::ReaderMutexLock lock(&commit_mu_);
  if (!open_) return ClosedError();
  if (!broken_.empty()) return Status::FailedPrecondition(broken_);
  if (tracker_ && tracker_->failed()) return BackgroundFailure();
  *db = db_;
  *snapshot = db_->db->GetSnapshot();
  // Keeps: T8 — a READ_COMMITTED view reports the committed position its snapshot is the state of
  *position = isolation_ == IsolationLevel::kReadCommitted &&
                      !STATECHECK_PLANTED(TxnQueryReportsUncommittedPosition)
                  ? committed_position_
                  : UncommittedPosition();
  return Status::Ok();
}

Status RocksDBStoreImpl::CommitLegacy(const ChangelogOffsets& offsets) {
  if (!offsets.empty()) {
    return Status::InvalidArgument("store " + name_ +
                                   " has the legacy format and keeps no changelog offsets: its "
                                   "task keeps them in .checkpoint");
  }
  // With the WAL, one synced write makes every earlier write durable too (it rewrites the
  // legacy mark); without it, a flush.
  rocksdb::WriteBatch batch;
  batch.Put(db_->meta(), kFormatKey, kLegacyFormatVersion);
  Status s = internal::FailPoint(kFailStoreCommitWrite);
  if (s.ok()) s = WriteDurably(&batch);
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

void RocksDBStoreImpl::ShutDown(bool clean) {
  {
    internal::MutexLock lock(&commit_mu_);
    if (!open_) return;
    open_ = false;
    // Keeps: T9 — a close or a crash (Abandon) drops the buffered writes, never a commit
    buffer_.Clear();
    buffered_bytes_ = 0;
    if (Buffered()) {
      internal::MutexLock position_lock(&position_mu_);
      uncommitted_position_ = committed_position_;
    }
  }
  // Keeps: L1 — a clean close clears the marker durably: a lost marker costs one restore
  if (clean && !legacy_ && !read_only_ &&
      !(STATECHECK_PLANTED(StoreMarkerKeptAfterUncleanStart) && !was_closed_cleanly_)) {
    rocksdb::WriteBatch batch;
    batch.Delete(db_->meta(), kStatusKey);
    Status s = internal::FailPoint(kFailStoreCloseMarker);
    if (s.ok()) {
      s = STATECHECK_PLANTED(StoreCloseMarkerNotDurable)
              ? FromRocksDB(db_->db->Write(WriteOpts(/*sync=*/false), &batch))
              : WriteDurably(&batch);
    }
    // Keeps: F8 — a close that cannot clear the marker says so and closes: next start as a crash
    if (!s.ok()) {
      logger_->Log(LogLevel::kError,
                   "store " + name_ + ": could not clear its open-status marker on close (" +
                       s.ToString() + "); its next start restores it as after a crash");
    }
  }
  db_->store_closed.store(true, std::memory_order_release);
  db_.reset();  // Open iterators end at their next call, then let the database go.
}

Status RocksDBStoreImpl::WriteDurably(rocksdb::WriteBatch* batch) {
  STATECHECK_RETURN_IF_ERROR(FromRocksDB(db_->db->Write(WriteOpts(true), batch)));
  if (!use_wal_) STATECHECK_RETURN_IF_ERROR(FlushAndWait());
  // Every commit so far is durable now.
  if (tracker_) tracker_->Durable(committed_offsets_);
  return Status::Ok();
}

void RocksDBStoreImpl::BufferWrite(std::string_view key, std::optional<std::string_view> value) {
  const std::optional<int64_t> replaced = buffer_.Put(key, value);
  // Keeps: T6 — uncommitted bytes: an overwritten buffered write stops counting
  if (replaced && !STATECHECK_PLANTED(TxnBufferOverwriteCountedTwice)) buffered_bytes_ -= *replaced;
  buffered_bytes_ += static_cast<int64_t>(key.size() + (value ? value->size() : 0));
}

Status RocksDBStoreImpl::DbGet(const rocksdb::ReadOptions& ro, std::string_view key,
                               std::optional<std::string>* value) {
  STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailStoreGet));
  std::string v;
  rocksdb::Status s = db_->db->Get(ro, db_->data(), key, &v);
  if (s.IsNotFound()) return Status::Ok();
  if (!s.ok()) return FromRocksDB(s);
  *value = std::move(v);
  return Status::Ok();
}

Status RocksDBStoreImpl::WriterOpenBounds(std::optional<std::string> lower,
                                          std::optional<std::string> upper, bool forward,
                                          std::unique_ptr<KeyValueIterator>* it) {
  std::vector<std::pair<std::string, std::optional<std::string>>> buffered;
  if (Buffered()) {
    auto first = lower ? buffer_.lower_bound(*lower) : buffer_.begin();
    auto last = upper ? buffer_.lower_bound(*upper) : buffer_.end();
    buffered.reserve(static_cast<size_t>(std::distance(first, last)));
    for (auto i = first; i != last; ++i) {
      const std::optional<std::string_view> value = i->second.value();
      buffered.emplace_back(std::string(i->first),
                            value ? std::optional<std::string>(*value) : std::nullopt);
    }
  }
  *it = std::make_unique<MergingIterator>(db_, db_->db->GetSnapshot(), std::move(buffered),
                                          std::move(lower), std::move(upper), forward);
  return Status::Ok();
}

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

}  // namespace internal

namespace {

using internal::RocksDBStoreImpl;

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
  std::optional<int64_t> DurableOffset(const std::string& partition) const override {
    return impl_->DurableOffset(partition);
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
      {internal::kMetaFamily, rocksdb::ColumnFamilyOptions(options)}};
  rocksdb::Status s = rocksdb::DestroyDB(directory, options, families);
  if (!s.ok()) return internal::FromRocksDB(s);
  // DestroyDB usually removes the directory too. Removing what is left is best-effort: an empty
  // directory is harmless (the next open creates the store in it), and some file systems (an
  // in-memory one) have directories that cannot be removed.
  options.env->DeleteDir(directory).PermitUncheckedError();
  return Status::Ok();
}

}  // namespace statecheck
