#include "statecheck/log.h"

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <rocksdb/env.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <utility>

#include "engine/base/env_util.h"
#include "engine/base/fail_point.h"
#include "engine/base/mutex.h"
#include "engine/base/planted.h"
#include "engine/base/rocksdb_status.h"
#include "engine/log/log_format.h"
#include "engine/log/log_partition.h"

namespace statecheck {
namespace {

using internal::AppendLogRecord;
using internal::ApplyLogEntry;
using internal::DecodeLogNamedOffsets;
using internal::EncodeLogNamedOffsets;
using internal::FromRocksDB;
using internal::kCompactingSuffix;
using internal::kLogSuffix;
using internal::kOffsetsPartition;
using internal::kTxnStatePartition;
using internal::LogRecordSize;
static_assert(kLogOffsetsPartition == kOffsetsPartition &&
              kLogTxnStatePartition == kTxnStatePartition);
using internal::ListPartitionFiles;
using internal::LogEntry;
using internal::LogPartition;
using internal::LogPartitionFiles;
using internal::LogRecordType;
using internal::LogSegment;
using internal::LogTornTail;
using internal::LogTxnState;
using internal::ScanPartition;
using internal::SegmentPath;
using internal::SegmentsToRead;
using internal::SwapPath;
using internal::ValidatePartitionName;

Status ValidateOffsets(std::string_view group, const CommittedOffsets& offsets) {
  if (group.empty()) return Status::InvalidArgument("consumer group name is empty");
  for (const auto& [partition, offset] : offsets.offsets) {
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, /*allow_internal=*/false));
    if (offset < 0) {
      return Status::InvalidArgument("committed offset " + std::to_string(offset) +
                                     " for partition \"" + partition + "\" is negative");
    }
  }
  return Status::Ok();
}

// OK, or FailedPrecondition saying why partition `p` refuses writes until the log is reopened.
Status CheckNotBroken(const LogPartition& p) {
  if (p.broken.empty()) return Status::Ok();
  return Status::FailedPrecondition("partition \"" + p.name + "\" refuses writes until the " +
                                    "log is reopened: " + p.broken);
}

class LogImpl : public Log {
 public:
  LogImpl(const LogOptions& options, rocksdb::Env* env)
      : dir_(options.directory),
        env_(env),
        segment_bytes_(options.segment_bytes),
        logger_(options.logger ? options.logger : StderrLogger()) {
    env_options_.use_mmap_writes = false;
    env_options_.allow_fallocate = false;
  }

  ~LogImpl() override {
    for (auto& [name, p] : partitions_) {
      if (p->file) p->file->Close().PermitUncheckedError();
    }
    if (lock_ != nullptr) env_->UnlockFile(lock_).PermitUncheckedError();
  }

  Status Open();

  using Log::Append;
  Status Append(std::string_view partition, std::string_view key,
                std::optional<std::string_view> value, int64_t timestamp,
                const std::optional<LogSource>& source, int64_t* offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    STATECHECK_RETURN_IF_ERROR(CheckTimestamp(timestamp));
    STATECHECK_RETURN_IF_ERROR(CheckSource(source));
    return WriteRecord(GetOrCreate(partition), MakeData(0, key, value, timestamp, source), offset);
  }

  Status Sync() override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    for (auto& [name, p] : partitions_) STATECHECK_RETURN_IF_ERROR(SyncPartition(p.get()));
    return Status::Ok();
  }

  Status BeginTransaction(int64_t txn_id) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    if (txn_id <= 0) {
      return Status::InvalidArgument("transaction id " + std::to_string(txn_id) +
                                     " is not positive");
    }
    if (txns_.count(txn_id) != 0) {
      return Status::FailedPrecondition("transaction " + std::to_string(txn_id) +
                                        " is already open");
    }
    txns_[txn_id];
    return Status::Ok();
  }

  using Log::AppendTransactional;
  Status AppendTransactional(int64_t txn_id, std::string_view partition, std::string_view key,
                             std::optional<std::string_view> value, int64_t timestamp,
                             const std::optional<LogSource>& source, int64_t* offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    STATECHECK_RETURN_IF_ERROR(CheckTimestamp(timestamp));
    STATECHECK_RETURN_IF_ERROR(CheckSource(source));
    return AppendTransactionalLocked(txn_id, partition,
                                     MakeData(txn_id, key, value, timestamp, source), offset);
  }

  Status AppendOffsetsTransactional(int64_t txn_id, std::string_view group,
                                    const CommittedOffsets& offsets) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidateOffsets(group, offsets));
    int64_t ignored;
    return AppendTransactionalLocked(txn_id, kOffsetsPartition, MakeOffsets(txn_id, group, offsets),
                                     &ignored);
  }

  Status AppendBatch(int64_t txn_id, std::string_view partition,
                     std::vector<LogAppendRecord> records, int64_t* first_offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    if (txn_id < 0) {
      return Status::InvalidArgument("transaction id " + std::to_string(txn_id) +
                                     " is negative (0 appends outside any transaction)");
    }
    for (const LogAppendRecord& r : records) {
      STATECHECK_RETURN_IF_ERROR(CheckTimestamp(r.timestamp));
      STATECHECK_RETURN_IF_ERROR(CheckSource(r.source));
    }
    if (txn_id != 0) STATECHECK_RETURN_IF_ERROR(CheckTxnOpen(txn_id));
    if (records.empty()) {
      const LogPartition* p = Find(partition);
      *first_offset = p ? p->end() : 0;
      return Status::Ok();
    }
    std::vector<LogEntry> entries(records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      LogEntry& e = entries[i];
      e.txn_id = txn_id;
      e.key = std::move(records[i].key);
      e.value = std::move(records[i].value);
      e.timestamp = records[i].timestamp;
      e.source = std::move(records[i].source);
    }
    LogPartition* p = GetOrCreate(partition);
    if (txn_id != 0) STATECHECK_RETURN_IF_ERROR(BeginInPartition(txn_id, p));
    return WriteRecords(p, entries, first_offset);
  }

  Status CommitTransaction(int64_t txn_id) override;
  Status AbortTransaction(int64_t txn_id) override;

  Status CommitOffsets(std::string_view group, const CommittedOffsets& offsets) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidateOffsets(group, offsets));
    LogPartition* p = GetOrCreate(kOffsetsPartition);
    int64_t ignored;
    STATECHECK_RETURN_IF_ERROR(WriteRecord(p, MakeOffsets(0, group, offsets), &ignored));
    return SyncPartition(p);
  }

  Status GetCommittedOffsets(std::string_view group, CommittedOffsets* out) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    if (group.empty()) return Status::InvalidArgument("consumer group name is empty");
    auto it = partitions_.find(kOffsetsPartition);
    if (it != partitions_.end()) {
      const LogPartition& p = *it->second;
      for (size_t i = p.IndexOf(p.StableEnd()); i-- > 0;) {
        const LogEntry& e = p.entries[i];
        if (!Visible(e) || e.key != group) continue;
        if (!e.value || !DecodeLogNamedOffsets(*e.value, &out->offsets, &out->metadata)) {
          return Status::Corruption(p.path + ": committed offsets of group \"" +
                                    std::string(group) + "\" at offset " +
                                    std::to_string(e.offset) + " cannot be decoded");
        }
        return Status::Ok();
      }
    }
    return Status::NotFound("consumer group \"" + std::string(group) +
                            "\" has no committed offsets");
  }

  Status EndOffset(std::string_view partition, int64_t* offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    const LogPartition* p = Find(partition);
    *offset = p ? p->end() : 0;
    return Status::Ok();
  }

  Status CommittedEndOffset(std::string_view partition, int64_t* offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    const LogPartition* p = Find(partition);
    *offset = p ? p->StableEnd() : 0;
    return Status::Ok();
  }

  Status Read(std::string_view partition, int64_t from_offset, int max_records,
              IsolationLevel isolation, std::vector<LogRecord>* records) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    if (from_offset < 0) {
      return Status::InvalidArgument("read offset " + std::to_string(from_offset) + " is negative");
    }
    if (max_records < 1) {
      return Status::InvalidArgument("max_records " + std::to_string(max_records) + " is below 1");
    }
    const LogPartition* p = Find(partition);
    const int64_t end = p ? p->end() : 0;
    if (from_offset > end) {
      return Status::OutOfRange("read offset " + std::to_string(from_offset) + " of partition \"" +
                                std::string(partition) + "\" is past its end offset " +
                                std::to_string(end));
    }
    if (p == nullptr) return Status::Ok();
    const bool committed = isolation == IsolationLevel::kReadCommitted;
    const int64_t limit = committed ? p->StableEnd() : end;
    int count = 0;
    for (size_t i = p->IndexOf(from_offset);
         i < p->entries.size() && p->entries[i].offset < limit && count < max_records; ++i) {
      const LogEntry& e = p->entries[i];
      // Under read_committed, records of aborted transactions are skipped.
      // Keeps: C1 — read_committed never returns an aborted or open transaction's records
      const bool hidden = STATECHECK_PLANTED(LogReadCommittedShowsAborted)
                              ? e.state == LogTxnState::kOpen
                              : !Visible(e);
      if (e.type != LogRecordType::kData || (committed && hidden)) continue;
      records->push_back(LogRecord{e.offset, e.key, e.value, e.txn_id, e.timestamp, e.source});
      ++count;
    }
    return Status::Ok();
  }

  Status Compact(std::string_view partition, const LogCompaction& policy,
                 LogCompactionResult* result) override;

  Status CheckWritable() override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    for (const auto& [name, p] : partitions_) {
      STATECHECK_RETURN_IF_ERROR(CheckNotBroken(*p));
    }
    return Status::Ok();
  }

  std::vector<std::string> Partitions() override {
    internal::MutexLock l(&mu_);
    std::vector<std::string> out;
    for (const auto& [name, p] : partitions_) {
      if (name.substr(0, 2) != "__") out.push_back(name);
    }
    return out;
  }

 private:
  static bool Visible(const LogEntry& e) {
    return e.type == LogRecordType::kData &&
           (e.state == LogTxnState::kNone || e.state == LogTxnState::kCommitted);
  }

  static LogEntry MakeData(int64_t txn_id, std::string_view key,
                           std::optional<std::string_view> value, int64_t timestamp = kNoTimestamp,
                           const std::optional<LogSource>& source = std::nullopt) {
    LogEntry e;
    e.type = LogRecordType::kData;
    e.txn_id = txn_id;
    e.key.assign(key);
    if (value) e.value.emplace(*value);
    e.timestamp = timestamp;
    e.source = source;
    return e;
  }

  static Status CheckTimestamp(int64_t timestamp) {
    if (timestamp >= kNoTimestamp) return Status::Ok();
    return Status::InvalidArgument("record timestamp " + std::to_string(timestamp) +
                                   " is negative (a timestamp is >= 0, or -1 for none)");
  }

  static Status CheckSource(const std::optional<LogSource>& source) {
    if (!source) return Status::Ok();
    if (source->offset < 0) {
      return Status::InvalidArgument("record source offset " + std::to_string(source->offset) +
                                     " is negative");
    }
    const Status s = CheckPartitionName(source->partition);
    if (!s.ok()) return Status::InvalidArgument("record source: " + s.message());
    return Status::Ok();
  }

  static LogEntry MakeOffsets(int64_t txn_id, std::string_view group,
                              const CommittedOffsets& offsets) {
    return MakeData(txn_id, group, EncodeLogNamedOffsets(offsets.offsets, offsets.metadata));
  }

  static LogEntry MakeMarker(LogRecordType type, int64_t txn_id) {
    LogEntry e;
    e.type = type;
    e.txn_id = txn_id;
    e.value.emplace();
    return e;
  }

  Status CheckUsable() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!poisoned_.empty()) return Status::FailedPrecondition(poisoned_);
    return Status::Ok();
  }

  void Poison(const std::string& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    poisoned_ = why + "; reopen the log (recovery completes or aborts the transaction)";
    logger_->Log(LogLevel::kError, "log " + dir_ + ": " + poisoned_);
  }

  LogPartition* Find(std::string_view name) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = partitions_.find(std::string(name));
    return it == partitions_.end() ? nullptr : it->second.get();
  }

  LogPartition* GetOrCreate(std::string_view name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto& slot = partitions_[std::string(name)];
    if (!slot) {
      slot = std::make_unique<LogPartition>();
      slot->name = std::string(name);
      slot->path = SegmentPath(dir_, slot->name, 0);
    }
    return slot.get();
  }

  Status OpenFile(LogPartition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (p->file) return Status::Ok();
    const bool exists = env_->FileExists(p->path).ok();
    rocksdb::Status s = env_->ReopenWritableFile(p->path, &p->file, env_options_);
    if (!s.ok()) {
      p->file.reset();
      return Status::IOError("cannot open " + p->path + " for append: " + s.ToString());
    }
    // Keeps: F3 — a new partition file's directory entry is fsynced before the file is used
    if (!exists && !STATECHECK_PLANTED(LogNewFileNoDirFsync)) p->needs_dir_sync = true;
    return SyncDirIfNeeded(p);
  }

  Status SyncDirIfNeeded(LogPartition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!p->needs_dir_sync) return Status::Ok();
    rocksdb::Status s = dir_handle_->Fsync();
    if (!s.ok()) return Status::IOError("cannot fsync directory " + dir_ + ": " + s.ToString());
    p->needs_dir_sync = false;
    return Status::Ok();
  }

  // Appends `e` to `p`'s file and to memory; `*offset` = its offset.
  Status WriteRecord(LogPartition* p, LogEntry e, int64_t* offset)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return WriteRecords(p, std::span<LogEntry>(&e, 1), offset);
  }

  // Appends `entries` to `p`'s file with one write, then to memory, at consecutive offsets from
  // its end; `*first` = the first's offset. On an error none of them is appended.
  Status WriteRecords(LogPartition* p, std::span<LogEntry> entries, int64_t* first)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    STATECHECK_RETURN_IF_ERROR(CheckNotBroken(*p));
    const int64_t start = p->end();
    std::string bytes;
    for (size_t i = 0; i < entries.size(); ++i) {
      entries[i].offset = start + static_cast<int64_t>(i);
      AppendLogRecord(entries[i], entries[i].offset, &bytes);
    }
    if (p->file_size > 0 && p->file_size + bytes.size() > static_cast<uint64_t>(segment_bytes_)) {
      STATECHECK_RETURN_IF_ERROR(RollSegment(p));
    }
    STATECHECK_RETURN_IF_ERROR(OpenFile(p));
    rocksdb::Status s = p->file->Append(bytes);
    if (s.ok()) s = p->file->Flush();
    if (s.IsNoSpace() && STATECHECK_PLANTED(LogDropsRecordsOnFullDisk)) {
      // Planted: ENOSPC taken for a passing condition. Undone and retried once; a disk still full
      // drops the records and reports them written.
      if (p->file->Truncate(p->file_size).ok()) {
        s = p->file->Append(bytes);
        if (s.ok()) s = p->file->Flush();
      }
      if (s.IsNoSpace() && p->file->Truncate(p->file_size).ok()) {
        *first = start;
        return Status::Ok();
      }
    }
    // Keeps: F1 — a failed append is undone by truncation; else the partition refuses writes
    // Keeps: F7 — a write a full disk refused is undone: once space returns the partition appends
    if (!s.ok()) {
      // Undo a partial write so that later records do not follow damage.
      rocksdb::Status t = p->file->Truncate(p->file_size);
      if (!t.ok()) {
        p->broken = "a failed append could not be undone (" + t.ToString() + ")";
      }
      return Status::IOError("cannot append to " + p->path + ": " + s.ToString());
    }
    for (LogEntry& e : entries) {
      const std::string problem = p->name == kTxnStatePartition ? "" : ApplyLogEntry(p, &e);
      if (!problem.empty()) {
        // The callers check transactional state first; this is a bug, and the file now holds it.
        p->broken = problem;
        return Status::FailedPrecondition("partition \"" + p->name + "\": " + problem);
      }
    }
    p->file_size += bytes.size();
    *first = start;
    for (LogEntry& e : entries) p->entries.push_back(std::move(e));
    return Status::Ok();
  }

  // Closes `p`'s active segment and makes the next one, from its end offset, the active one (its
  // file is created by the next write). The closed segment is fsynced whole first: recovery reads
  // damage in a closed segment as Corruption, never as a torn tail, and Sync fsyncs only the
  // active segment. What the fsync made durable is published (durable_end) by the next Sync, as
  // before.
  Status RollSegment(LogPartition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    STATECHECK_RETURN_IF_ERROR(OpenFile(p));
    rocksdb::Status s = p->file->Sync();
    if (!s.ok()) {
      p->broken = "an fsync failed (" + s.ToString() + ")";
      return Status::IOError("cannot fsync " + p->path + ": " + s.ToString());
    }
    p->file->Close().PermitUncheckedError();
    p->file.reset();
    p->closed.push_back({p->base, p->path, p->file_size});
    p->base = p->end();
    p->path = SegmentPath(dir_, p->name, p->base);
    p->file_size = 0;
    p->last_record_at = 0;
    return Status::Ok();
  }

  Status SyncPartition(LogPartition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    STATECHECK_RETURN_IF_ERROR(CheckNotBroken(*p));
    STATECHECK_RETURN_IF_ERROR(SyncDirIfNeeded(p));
    if (p->durable_end == p->end() || !p->file) {
      p->durable_end = p->end();
      return Status::Ok();
    }
    rocksdb::Status s = p->file->Sync();
    if (STATECHECK_PLANTED(LogFsyncErrorSwallowed) && !s.ok()) {
      s.PermitUncheckedError();  // Logged and ignored: the next fsync will retry.
      logger_->Log(LogLevel::kWarn, "fsync of " + p->path + " failed: " + s.ToString());
      s = rocksdb::Status::OK();
    }
    // Keeps: F1 — a failed fsync is an error and marks the partition broken until the log reopens
    if (!s.ok()) {
      // After a failed fsync the file's durable contents are unknown (the kernel may have
      // dropped the dirty pages): only a reopen, which reads the file back, can say.
      p->broken = "an fsync failed (" + s.ToString() + ")";
      return Status::IOError("cannot fsync " + p->path + ": " + s.ToString());
    }
    p->durable_end = p->end();
    return Status::Ok();
  }

  // OK if transaction `txn_id` is open, else NotFound.
  Status CheckTxnOpen(int64_t txn_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (txns_.count(txn_id) != 0) return Status::Ok();
    return Status::NotFound("transaction " + std::to_string(txn_id) +
                            " is not open (call BeginTransaction first)");
  }

  // Writes open transaction `txn_id`'s txn-begin marker to `p` unless it has one there.
  Status BeginInPartition(int64_t txn_id, LogPartition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (p->open_txns.count(txn_id) != 0) return Status::Ok();
    int64_t begin;
    STATECHECK_RETURN_IF_ERROR(
        WriteRecord(p, MakeMarker(LogRecordType::kTxnBegin, txn_id), &begin));
    txns_[txn_id].insert(p->name);
    return Status::Ok();
  }

  Status AppendTransactionalLocked(int64_t txn_id, std::string_view partition, LogEntry e,
                                   int64_t* offset) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    STATECHECK_RETURN_IF_ERROR(CheckTxnOpen(txn_id));
    LogPartition* p = GetOrCreate(partition);
    STATECHECK_RETURN_IF_ERROR(BeginInPartition(txn_id, p));
    return WriteRecord(p, std::move(e), offset);
  }

  // Compact's replacement of `p`'s closed segments by the durable file `temp` (their compacted
  // records): renamed to the swap file, the directory fsynced, the segments deleted, the
  // directory fsynced, the swap file renamed to the first segment's name (the caller fsyncs the
  // directory). After the first rename, a failure breaks the partition until reopen, whose
  // recovery completes the compaction.
  Status ReplaceClosedSegments(LogPartition* p, const std::string& temp, const std::string& step)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The steps after a compaction's swap file is durable, in Compact and in recovery alike:
  // deletes the `replaced` segments, fsyncs the directory, renames `swap` to partition `name`'s
  // first segment (the caller fsyncs the directory after).
  rocksdb::Status SwapIn(const std::string& name, const std::string& swap,
                         const std::vector<std::string>& replaced)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Loads and scans one partition's segments; completes an interrupted compaction first and
  // truncates a torn tail.
  Status Load(const std::string& name, LogPartitionFiles files) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Completes a compaction a crash interrupted after its swap file was durable (Compact's
  // ReplaceClosedSegments): deletes the segments below its end, renames it to the first segment.
  Status CompleteSwap(const std::string& name, const LogPartitionFiles& files)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Completes the last commit decision, then aborts every transaction left open.
  Status Recover() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dir_;
  rocksdb::Env* const env_;
  const int64_t segment_bytes_;  // LogOptions::segment_bytes.
  const std::shared_ptr<Logger> logger_;
  rocksdb::EnvOptions env_options_;
  rocksdb::FileLock* lock_ = nullptr;

  // Guards the partitions (and what each LogPartition holds), the transactions and the poison.
  internal::Mutex mu_;
  std::unique_ptr<rocksdb::Directory> dir_handle_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<LogPartition>> partitions_ ABSL_GUARDED_BY(mu_);
  // Open transactions → the partitions each has a begin marker in and no end marker yet.
  std::map<int64_t, std::set<std::string>> txns_ ABSL_GUARDED_BY(mu_);
  // Why every call fails until reopen ("" = they do not).
  std::string poisoned_ ABSL_GUARDED_BY(mu_);
};

Status LogImpl::CommitTransaction(int64_t txn_id) {
  internal::MutexLock l(&mu_);
  STATECHECK_RETURN_IF_ERROR(CheckUsable());
  auto txn = txns_.find(txn_id);
  if (txn == txns_.end()) {
    return Status::NotFound("transaction " + std::to_string(txn_id) + " is not open");
  }
  const std::string what = "transaction " + std::to_string(txn_id);
  std::vector<LogPartition*> touched;
  for (const std::string& name : txn->second) touched.push_back(Find(name));
  // (1) Every record of the transaction durable.
  for (LogPartition* p : touched) STATECHECK_RETURN_IF_ERROR(SyncPartition(p));
  if (touched.empty()) {
    txns_.erase(txn);
    return Status::Ok();
  }
  // (2) The decision, naming the offset each commit marker will take: the commit point.
  std::map<std::string, int64_t> markers;
  for (LogPartition* p : touched) markers[p->name] = p->end();
  LogPartition* state = GetOrCreate(kTxnStatePartition);
  LogEntry decision = MakeMarker(LogRecordType::kTxnCommit, txn_id);
  decision.value = EncodeLogNamedOffsets(markers, "");
  int64_t ignored;
  Status s = WriteRecord(state, std::move(decision), &ignored);
  if (!s.ok()) {
    // Undone (the transaction stays open), unless the undo failed too.
    if (!state->broken.empty()) Poison("the commit decision of " + what + " may be partial");
    return s;
  }
  // Keeps: C1 — the fsynced decision is the commit point: every marker follows, or recovery does
  s = SyncPartition(state);
  if (!s.ok()) {
    Poison("the commit decision of " + what + " could not be fsynced (" + s.ToString() + ")");
    return s;
  }
  // (3) The markers. Past the commit point every failure leaves completion to recovery.
  if (Status f = internal::FailPoint(kFailLogAfterDecision); !f.ok()) {
    Poison(what + " is committed but its markers were not written (" + f.ToString() + ")");
    return f;
  }
  for (LogPartition* p : touched) {
    s = WriteRecord(p, MakeMarker(LogRecordType::kTxnCommit, txn_id), &ignored);
    if (s.ok()) s = SyncPartition(p);
    if (!s.ok()) {
      Poison(what + " is committed but its marker in partition \"" + p->name +
             "\" could not be written (" + s.ToString() + ")");
      return Status::IOError(poisoned_);
    }
  }
  txns_.erase(txn);
  return Status::Ok();
}

Status LogImpl::Compact(std::string_view partition, const LogCompaction& policy,
                        LogCompactionResult* result) {
  *result = LogCompactionResult();
  internal::MutexLock l(&mu_);
  STATECHECK_RETURN_IF_ERROR(CheckUsable());
  // The log's own: "__txn_state" holds markers only (decisions), so all but its last record go.
  if (partition != kOffsetsPartition && partition != kTxnStatePartition) {
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
  }
  if (!(policy.min_dirty_ratio >= 0 && policy.min_dirty_ratio <= 1)) {
    return Status::InvalidArgument("compaction min_dirty_ratio " +
                                   std::to_string(policy.min_dirty_ratio) + " is outside [0, 1]");
  }
  LogPartition* p = Find(partition);
  if (p == nullptr || p->entries.empty()) return Status::Ok();
  STATECHECK_RETURN_IF_ERROR(CheckNotBroken(*p));
  const std::vector<LogEntry>& entries = p->entries;
  const uint64_t total = p->bytes();
  result->records_before = result->records_after = static_cast<int64_t>(entries.size());
  result->bytes_before = result->bytes_after = total;
  const uint64_t dirty = total - std::min(total, p->compacted_size);
  if (total < policy.min_bytes ||
      static_cast<double>(dirty) < policy.min_dirty_ratio * static_cast<double>(total)) {
    return Status::Ok();
  }
  // What is rewritten: the closed segments, as Kafka's cleaner leaves the active one alone; a
  // partition of one segment is rewritten whole. `range` = the entries in it.
  const bool whole = p->closed.empty();
  const size_t range = whole ? entries.size() : p->IndexOf(p->base);
  // The cut: below the last stable offset and the last record, where no transaction is open.
  const int64_t limit = std::min(p->StableEnd(), entries.back().offset);
  size_t cut = 0;
  {
    std::set<int64_t> open;
    for (size_t i = 0; i < range && entries[i].offset < limit; ++i) {
      const LogEntry& e = entries[i];
      if (e.type == LogRecordType::kTxnBegin) open.insert(e.txn_id);
      if (e.type == LogRecordType::kTxnCommit || e.type == LogRecordType::kTxnAbort) {
        open.erase(e.txn_id);
      }
      if (open.empty()) cut = i + 1;
    }
  }
  result->cut = cut < entries.size() ? entries[cut].offset : p->end();
  // Which records below the cut stay: visible ones no later visible record of their key
  // supersedes, that are neither removable tombstones nor expired; and the last of each source.
  absl::flat_hash_set<std::string_view> superseding;
  superseding.reserve(entries.size() - cut);
  for (size_t i = cut; i < entries.size() && entries[i].offset < p->StableEnd(); ++i) {
    if (Visible(entries[i])) superseding.insert(entries[i].key);
  }
  // The last visible record of each source, below the cut or above it (where it stays anyway).
  absl::flat_hash_map<std::string_view, size_t> last_of_source;
  for (size_t i = 0; i < entries.size() && entries[i].offset < p->StableEnd(); ++i) {
    if (Visible(entries[i]) && entries[i].source) {
      last_of_source[entries[i].source->partition] = i;  // Sources increase with offsets.
    }
  }
  std::vector<bool> keep(cut, false);
  size_t kept = 0;
  size_t file_bytes = 0;  // The new file's: the records kept below the cut, then the range's rest.
  for (size_t i = cut; i-- > 0;) {
    const LogEntry& e = entries[i];
    if (!Visible(e)) continue;
    const bool latest = superseding.insert(e.key).second;
    const bool last_source = e.source && last_of_source.at(e.source->partition) == i;
    bool drop = !latest || (!e.value && e.offset < policy.tombstones_removable_below);
    if (!drop && policy.expired) {
      drop = policy.expired(LogRecord{e.offset, e.key, e.value, 0, e.timestamp, e.source});
    }
    keep[i] = !drop || last_source;
    if (keep[i]) {
      ++kept;
      file_bytes += LogRecordSize(e);
    }
  }
  if (kept == cut) {  // Nothing to remove: wait for the next dirty part.
    p->compacted_size = total;
    return Status::Ok();
  }
  // The file: the kept records below the cut, settled (their txn_id 0: their markers are gone),
  // then the rest of the range as it is (the records after the range stay in the active
  // segment). Encoded from the entries in place: they are replaced only once the file is.
  for (size_t i = cut; i < range; ++i) file_bytes += LogRecordSize(entries[i]);
  std::string bytes;
  bytes.reserve(file_bytes);
  uint64_t last_record_at = 0;
  for (size_t i = 0; i < range; ++i) {
    if (i < cut && !keep[i]) continue;
    last_record_at = bytes.size();
    AppendLogRecord(entries[i], entries[i].offset, i < cut ? 0 : entries[i].txn_id, &bytes);
  }
  // Keeps: F3 — a compaction replaces a partition's file by a durable rename of a durable file
  const std::string temp = dir_ + "/" + p->name + kCompactingSuffix;
  const std::string first = SegmentPath(dir_, p->name, 0);
  const std::string step = "cannot compact partition \"" + p->name + "\": ";
  {
    std::unique_ptr<rocksdb::WritableFile> file;
    rocksdb::Status s = env_->NewWritableFile(temp, &file, env_options_);
    if (s.ok()) s = file->Append(bytes);
    if (s.ok()) s = file->Flush();
    if (Status f = internal::FailPoint(kFailLogCompactBeforeSync); !f.ok()) return f;
    if (s.ok() && !STATECHECK_PLANTED(LogCompactionRenamesUnsyncedFile)) s = file->Sync();
    if (s.ok()) s = file->Close();
    if (!s.ok()) return Status::IOError(step + "writing " + temp + ": " + s.ToString());
  }
  STATECHECK_RETURN_IF_ERROR(internal::FailPoint(kFailLogCompactBeforeRename));
  if (whole) {
    // The append handle names the old file: closed here, the next write opens the path again.
    if (p->file) {
      p->file->Close().PermitUncheckedError();
      p->file.reset();
    }
  }
  if (whole || p->closed.size() == 1) {
    rocksdb::Status s = env_->RenameFile(temp, first);
    if (!s.ok()) return Status::IOError(step + "renaming " + temp + ": " + s.ToString());
  } else {
    STATECHECK_RETURN_IF_ERROR(ReplaceClosedSegments(p, temp, step));
  }
  result->compacted = true;
  result->segments_replaced = whole ? 1 : static_cast<int64_t>(p->closed.size());
  // The entries follow the file: the kept ones moved out, those below the cut settled.
  std::vector<LogEntry> compacted;
  compacted.reserve(kept + p->entries.size() - cut);
  for (size_t i = 0; i < p->entries.size(); ++i) {
    if (i < cut && !keep[i]) continue;
    compacted.push_back(std::move(p->entries[i]));
    if (i < cut) {
      compacted.back().txn_id = 0;
      compacted.back().state = LogTxnState::kNone;
    }
  }
  result->records_after = static_cast<int64_t>(compacted.size());
  p->entries = std::move(compacted);
  if (whole) {
    p->file_size = bytes.size();
    p->last_record_at = last_record_at;
  } else {
    p->closed = {LogSegment{0, first, bytes.size()}};
  }
  result->bytes_after = p->compacted_size = p->bytes();
  // Until the directory is fsynced the rename may be undone by a power loss: the old file comes
  // back, without what was appended to the new one. So the next sync fsyncs it first.
  p->needs_dir_sync = true;
  if (Status f = internal::FailPoint(kFailLogCompactBeforeDirSync); !f.ok()) return f;
  return SyncDirIfNeeded(p);
}

Status LogImpl::ReplaceClosedSegments(LogPartition* p, const std::string& temp,
                                      const std::string& step) {
  // Keeps: F3 — segments are deleted only once the file replacing them is durable as the swap
  const std::string swap = SwapPath(dir_, p->name, p->base);
  const bool delete_first = STATECHECK_PLANTED(LogCompactionDeletesSegmentsFirst);
  if (delete_first) {  // Planted: the segments go before the swap file is in place.
    for (const LogSegment& segment : p->closed)
      env_->DeleteFile(segment.path).PermitUncheckedError();
  }
  rocksdb::Status s = env_->RenameFile(temp, swap);
  if (!s.ok()) return Status::IOError(step + "renaming " + temp + ": " + s.ToString());
  // From here on the swap file may be durable, and recovery completes the compaction with it; a
  // failure leaves the partition refusing writes until then.
  const auto broken = [&](const std::string& what) {
    p->broken = "a compaction that replaces " + std::to_string(p->closed.size()) +
                " closed segments failed " + what + " (recovery completes it on the next open)";
  };
  const auto interrupted = [&](const std::string& what) {
    broken(what);
    return Status::IOError(step + what);
  };
  s = dir_handle_->Fsync();
  if (!s.ok())
    return interrupted("fsyncing the directory after renaming to " + swap + ": " + s.ToString());
  if (Status f = internal::FailPoint(kFailLogCompactBeforeDelete); !f.ok()) {
    broken("before deleting the segments: " + f.message());
    return f;
  }
  std::vector<std::string> replaced;
  if (!delete_first) {
    for (const LogSegment& segment : p->closed) replaced.push_back(segment.path);
  }
  s = SwapIn(p->name, swap, replaced);
  if (!s.ok()) return interrupted("swapping in " + swap + ": " + s.ToString());
  return Status::Ok();
}

rocksdb::Status LogImpl::SwapIn(const std::string& name, const std::string& swap,
                                const std::vector<std::string>& replaced) {
  rocksdb::Status s;
  for (const std::string& path : replaced) {
    if (s.ok()) s = env_->DeleteFile(path);
  }
  if (s.ok()) s = dir_handle_->Fsync();
  if (s.ok()) s = env_->RenameFile(swap, SegmentPath(dir_, name, 0));
  return s;
}

Status LogImpl::AbortTransaction(int64_t txn_id) {
  internal::MutexLock l(&mu_);
  STATECHECK_RETURN_IF_ERROR(CheckUsable());
  auto txn = txns_.find(txn_id);
  if (txn == txns_.end()) {
    return Status::NotFound("transaction " + std::to_string(txn_id) + " is not open");
  }
  std::set<std::string>& touched = txn->second;
  while (!touched.empty()) {
    LogPartition* p = Find(*touched.begin());
    int64_t ignored;
    STATECHECK_RETURN_IF_ERROR(
        WriteRecord(p, MakeMarker(LogRecordType::kTxnAbort, txn_id), &ignored));
    touched.erase(touched.begin());
    STATECHECK_RETURN_IF_ERROR(SyncPartition(p));
  }
  txns_.erase(txn);
  return Status::Ok();
}

Status LogImpl::Open() {
  internal::MutexLock l(&mu_);  // Not shared yet; held for the analysis of what it calls.
  rocksdb::Status s = internal::CreateDirs(env_, dir_);
  if (s.ok()) s = env_->NewDirectory(dir_, &dir_handle_);
  if (!s.ok()) return Status::IOError("cannot create log directory " + dir_ + ": " + s.ToString());
  s = env_->LockFile(dir_ + "/LOCK", &lock_);
  if (!s.ok()) {
    lock_ = nullptr;
    return Status::IOError("cannot lock log directory " + dir_ +
                           " (is it open elsewhere?): " + s.ToString());
  }
  std::map<std::string, LogPartitionFiles> partitions;
  std::vector<std::string> ignored, compacting;
  STATECHECK_RETURN_IF_ERROR(ListPartitionFiles(env_, dir_, &partitions, &ignored, &compacting));
  for (const std::string& child : ignored) {
    logger_->Log(LogLevel::kWarn,
                 "log " + dir_ + ": ignoring file " + child + " (not a partition name)");
  }
  for (const std::string& child : compacting) {
    logger_->Log(LogLevel::kWarn, "log " + dir_ + ": " + child +
                                      " is a compaction a crash interrupted; the partition's " +
                                      "file is intact, and its next compaction overwrites it");
  }
  for (const auto& [name, files] : partitions) STATECHECK_RETURN_IF_ERROR(Load(name, files));
  if (!partitions.empty()) {
    // The files' directory entries, as their contents (Load), are durable before anyone reads
    // the log: a crash may have left both only in the OS's cache.
    s = dir_handle_->Fsync();
    if (!s.ok()) return Status::IOError("cannot fsync directory " + dir_ + ": " + s.ToString());
  }
  STATECHECK_RETURN_IF_ERROR(Recover());
  for (auto& [name, p] : partitions_) p->durable_end = p->end();
  return Status::Ok();
}

Status LogImpl::CompleteSwap(const std::string& name, const LogPartitionFiles& files) {
  const std::string swap = SwapPath(dir_, name, *files.swap_end);
  logger_->Log(LogLevel::kWarn, "log partition \"" + name + "\": completing a compaction a " +
                                    "crash interrupted (" + swap + " replaces the segments " +
                                    "below offset " + std::to_string(*files.swap_end) + ")");
  std::vector<std::string> replaced;
  if (files.first) replaced.push_back(SegmentPath(dir_, name, 0));
  for (const int64_t base : files.segments) {
    if (base < *files.swap_end) replaced.push_back(SegmentPath(dir_, name, base));
  }
  rocksdb::Status s = SwapIn(name, swap, replaced);
  if (s.ok()) s = dir_handle_->Fsync();
  if (!s.ok()) {
    return Status::IOError("cannot complete the interrupted compaction of partition \"" + name +
                           "\" (" + swap + "): " + s.ToString());
  }
  return Status::Ok();
}

Status LogImpl::Load(const std::string& name, LogPartitionFiles files) {
  // Keeps: F3 — a compaction interrupted after its swap file was durable is completed first
  if (files.swap_end) {
    STATECHECK_RETURN_IF_ERROR(CompleteSwap(name, files));
    files.first = true;
    std::erase_if(files.segments, [&](int64_t base) { return base < *files.swap_end; });
    files.swap_end.reset();
  }
  LogPartition* p = GetOrCreate(name);
  std::vector<LogSegment> segments;
  STATECHECK_RETURN_IF_ERROR(SegmentsToRead(dir_, name, files, &segments));
  LogTornTail torn;
  STATECHECK_RETURN_IF_ERROR(ScanPartition(env_, env_options_, segments, p, &torn));
  if (torn.at) {
    logger_->Log(LogLevel::kWarn, "log partition \"" + name + "\": dropping a torn tail of " +
                                      std::to_string(torn.bytes) + " bytes at byte offset " +
                                      std::to_string(*torn.at) + " (" + p->path + ")");
    rocksdb::Status s = env_->ReopenWritableFile(p->path, &p->file, env_options_);
    // Keeps: F4 — recovery truncates the torn tail (logged above) and syncs the file
    if (s.ok() && !STATECHECK_PLANTED(LogTornTailNotTruncated)) s = p->file->Truncate(*torn.at);
    if (s.ok()) s = p->file->Sync();
    if (!s.ok()) {
      return Status::IOError("cannot truncate the torn tail of " + p->path + ": " + s.ToString());
    }
  } else if (p->file_size > 0) {
    // What a crash left readable may be only in the OS's cache — or, after a power loss that
    // tore an unsynced write at a record boundary, never synced at all. Readers take what
    // the log holds after opening as durable (an at-least-once restore applies it and stores
    // its offset), so make it so.
    // Keeps: F3 — what a reopen reads is fsynced first: readers may take it as durable
    rocksdb::Status s = env_->ReopenWritableFile(p->path, &p->file, env_options_);
    if (s.ok()) s = p->file->Sync();
    if (!s.ok()) return Status::IOError("cannot fsync " + p->path + ": " + s.ToString());
  }
  return Status::Ok();
}

Status LogImpl::Recover() {
  // The last decision is the only one whose markers may be missing: a commit writes all of its
  // markers before the next decision, or poisons the log.
  LogPartition* state = Find(kTxnStatePartition);
  // Keeps: F2 — a crash after the commit decision: recovery writes the missing commit markers
  if (state != nullptr && !state->entries.empty()) {
    const LogEntry& d = state->entries.back();
    std::map<std::string, int64_t> markers;
    std::string unused;
    if (d.type != LogRecordType::kTxnCommit || !d.value ||
        !DecodeLogNamedOffsets(*d.value, &markers, &unused)) {
      return Status::Corruption(state->path + ": last record is not a commit decision");
    }
    const std::string txn = "transaction " + std::to_string(d.txn_id);
    for (const auto& [name, marker] : markers) {
      LogPartition* p = Find(name);
      const int64_t end = p ? p->end() : 0;
      const std::string where =
          "partition \"" + name + "\" (" + dir_ + "/" + name + kLogSuffix + ")";
      if (marker > end || (marker == end && (!p || p->open_txns.count(d.txn_id) == 0))) {
        return Status::Corruption("the commit decision of " + txn + " names offset " +
                                  std::to_string(marker) + " of " + where + ", which ends at " +
                                  std::to_string(end) + " without that transaction open");
      }
      if (marker == end) {
        logger_->Log(LogLevel::kWarn, "log: completing committed " + txn + ": writing its " +
                                          "commit marker in partition \"" + name + "\"");
        int64_t ignored;
        STATECHECK_RETURN_IF_ERROR(
            WriteRecord(p, MakeMarker(LogRecordType::kTxnCommit, d.txn_id), &ignored));
        STATECHECK_RETURN_IF_ERROR(SyncPartition(p));
        continue;
      }
      // A marker a compaction removed was written (it removes only completed transactions').
      const LogEntry* m = p->At(marker);
      if (m == nullptr) continue;
      if (m->type != LogRecordType::kTxnCommit || m->txn_id != d.txn_id) {
        return Status::Corruption("the commit decision of " + txn + " names offset " +
                                  std::to_string(marker) + " of " + where +
                                  ", which is not that transaction's commit marker");
      }
    }
  }
  for (auto& [name, p] : partitions_) {
    std::vector<int64_t> open;
    for (const auto& [txn, begin] : p->open_txns) open.push_back(txn);
    // Keeps: F2, C3 — a transaction a crash left open is aborted, never made visible
    for (int64_t txn : open) {
      logger_->Log(LogLevel::kWarn, "log: aborting transaction " + std::to_string(txn) +
                                        ", left open with no commit decision, in partition \"" +
                                        name + "\"");
      int64_t ignored;
      STATECHECK_RETURN_IF_ERROR(
          WriteRecord(p.get(), MakeMarker(LogRecordType::kTxnAbort, txn), &ignored));
    }
    if (!open.empty()) STATECHECK_RETURN_IF_ERROR(SyncPartition(p.get()));
  }
  return Status::Ok();
}

}  // namespace

Status CheckPartitionName(std::string_view name) {
  return ValidatePartitionName(name, /*allow_internal=*/false);
}

Status OpenLog(const LogOptions& options, std::unique_ptr<Log>* log) {
  if (options.directory.empty()) return Status::InvalidArgument("log directory is empty");
  if (options.segment_bytes < 1) {
    return Status::InvalidArgument("log segment_bytes " + std::to_string(options.segment_bytes) +
                                   " is below 1 (the bytes at which a partition's segment rolls)");
  }
  rocksdb::Env* env = options.env ? options.env : rocksdb::Env::Default();
  auto impl = std::make_unique<LogImpl>(options, env);
  STATECHECK_RETURN_IF_ERROR(impl->Open());
  *log = std::move(impl);
  return Status::Ok();
}

}  // namespace statecheck
