#include "statecheck/log.h"

#include <rocksdb/env.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "engine/crc32c.h"
#include "engine/env_util.h"
#include "engine/fail_point.h"
#include "engine/log_format.h"
#include "engine/mutex.h"
#include "engine/planted.h"
#include "engine/rocksdb_status.h"

namespace statecheck {
namespace {

using internal::Crc32c;
using internal::FromRocksDB;

constexpr uint8_t kMagic = 0xC1;
constexpr size_t kHeaderSize = 32;
constexpr size_t kCrcOffset = 28;
constexpr uint8_t kFlagNullValue = 1;
constexpr uint8_t kFlagTimestamp = 2;  // 8 bytes of timestamp open the payload.
constexpr size_t kTimestampSize = 8;
constexpr size_t kMaxPartitionName = 200;
constexpr char kLogSuffix[] = ".log";
constexpr char kTxnStatePartition[] = "__txn_state";
constexpr char kOffsetsPartition[] = "__offsets";

enum class RecordType : uint8_t { kData = 1, kTxnBegin = 2, kTxnCommit = 3, kTxnAbort = 4 };

// A record's transactional state as readers see it.
enum class TxnState : uint8_t { kNone, kOpen, kCommitted, kAborted };

struct Entry {
  RecordType type = RecordType::kData;
  TxnState state = TxnState::kNone;
  int64_t txn_id = 0;
  std::string key;
  std::optional<std::string> value;
  int64_t timestamp = kNoTimestamp;
};

void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutFixed64(std::string* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// A record: a 32-byte header (magic, type, flags, 0, txn id, offset, key size, value size,
// CRC32C of the header's first 28 bytes and the payload), then the payload: the timestamp
// (8 bytes, when flag kFlagTimestamp is set), the key, the value.
std::string EncodeRecord(const Entry& e, int64_t offset) {
  std::string out;
  const size_t value_size = e.value ? e.value->size() : 0;
  const bool timestamped = e.timestamp != kNoTimestamp;
  out.reserve(kHeaderSize + kTimestampSize + e.key.size() + value_size);
  out.push_back(static_cast<char>(kMagic));
  out.push_back(static_cast<char>(e.type));
  out.push_back(
      static_cast<char>((e.value ? 0 : kFlagNullValue) | (timestamped ? kFlagTimestamp : 0)));
  out.push_back(0);
  PutFixed64(&out, static_cast<uint64_t>(e.txn_id));
  PutFixed64(&out, static_cast<uint64_t>(offset));
  PutFixed32(&out, static_cast<uint32_t>(e.key.size()));
  PutFixed32(&out, static_cast<uint32_t>(value_size));
  std::string payload;
  if (timestamped) PutFixed64(&payload, static_cast<uint64_t>(e.timestamp));
  payload += e.key;
  if (e.value) payload += *e.value;
  PutFixed32(&out, Crc32c(payload, Crc32c(out)));
  out += payload;
  return out;
}

// Decodes the record at `pos` of `data`. Returns false if it is cut short or invalid.
bool DecodeRecord(std::string_view data, size_t pos, Entry* e, int64_t* offset, size_t* length) {
  if (data.size() - pos < kHeaderSize) return false;
  const char* h = data.data() + pos;
  const auto type = static_cast<uint8_t>(h[1]);
  const auto flags = static_cast<uint8_t>(h[2]);
  if (static_cast<uint8_t>(h[0]) != kMagic || type < 1 || type > 4 ||
      (flags & ~(kFlagNullValue | kFlagTimestamp)) != 0 || h[3] != 0) {
    return false;
  }
  const uint64_t key_size = GetFixed32(h + 20);
  const uint64_t value_size = GetFixed32(h + 24);
  const uint64_t timestamp_size = (flags & kFlagTimestamp) ? kTimestampSize : 0;
  if ((flags & kFlagNullValue) && value_size != 0) return false;
  if (timestamp_size + key_size + value_size > data.size() - pos - kHeaderSize) return false;
  const std::string_view payload(h + kHeaderSize, timestamp_size + key_size + value_size);
  if (Crc32c(payload, Crc32c(std::string_view(h, kCrcOffset))) != GetFixed32(h + kCrcOffset)) {
    return false;
  }
  e->type = static_cast<RecordType>(type);
  e->state = TxnState::kNone;
  e->txn_id = static_cast<int64_t>(GetFixed64(h + 4));
  e->timestamp = timestamp_size ? static_cast<int64_t>(GetFixed64(payload.data())) : kNoTimestamp;
  // The writer sets the flag only for a timestamp >= 0 (CheckTimestamp; kNoTimestamp has none).
  if (timestamp_size && e->timestamp < 0) return false;
  e->key.assign(payload.substr(timestamp_size, key_size));
  if (flags & kFlagNullValue) {
    e->value.reset();
  } else {
    e->value.emplace(payload.substr(timestamp_size + key_size));
  }
  *offset = static_cast<int64_t>(GetFixed64(h + 12));
  *length = kHeaderSize + payload.size();
  return true;
}

// Whether any valid record starts in `data` at or after `from`.
bool ValidRecordFrom(std::string_view data, size_t from) {
  Entry e;
  int64_t offset;
  size_t length;
  for (size_t p = from; p + kHeaderSize <= data.size(); ++p) {
    if (static_cast<uint8_t>(data[p]) == kMagic && DecodeRecord(data, p, &e, &offset, &length)) {
      return true;
    }
  }
  return false;
}

// A list of (name, int64) pairs and a trailing string: the value of a commit decision (touched
// partition → commit marker offset) and of a committed-offsets record (partition → offset,
// metadata).
std::string EncodeNamedOffsets(const std::map<std::string, int64_t>& m, std::string_view tail) {
  std::string out;
  PutFixed32(&out, static_cast<uint32_t>(m.size()));
  for (const auto& [name, offset] : m) {
    PutFixed32(&out, static_cast<uint32_t>(name.size()));
    out += name;
    PutFixed64(&out, static_cast<uint64_t>(offset));
  }
  PutFixed32(&out, static_cast<uint32_t>(tail.size()));
  out += tail;
  return out;
}

bool DecodeNamedOffsets(std::string_view in, std::map<std::string, int64_t>* m, std::string* tail) {
  auto take = [&in](size_t n, std::string_view* out) {
    if (in.size() < n) return false;
    *out = in.substr(0, n);
    in.remove_prefix(n);
    return true;
  };
  std::string_view piece;
  if (!take(4, &piece)) return false;
  const uint32_t count = GetFixed32(piece.data());
  // Decoded aside, so that a damaged value leaves the caller's map and tail as they were.
  std::map<std::string, int64_t> decoded;
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view name;
    if (!take(4, &piece) || !take(GetFixed32(piece.data()), &name) || !take(8, &piece)) {
      return false;
    }
    // EncodeNamedOffsets writes a map: names strictly increasing, each once.
    if (!decoded.empty() && name <= decoded.rbegin()->first) return false;
    decoded.emplace_hint(decoded.end(), name, static_cast<int64_t>(GetFixed64(piece.data())));
  }
  if (!take(4, &piece) || !take(GetFixed32(piece.data()), &piece) || !in.empty()) return false;
  *m = std::move(decoded);
  tail->assign(piece);
  return true;
}

Status ValidatePartitionName(std::string_view name, bool allow_internal) {
  const std::string quoted = "partition name \"" + std::string(name) + "\"";
  if (name.empty()) return Status::InvalidArgument("partition name is empty");
  if (name.size() > kMaxPartitionName) {
    return Status::InvalidArgument(quoted + " is longer than " + std::to_string(kMaxPartitionName) +
                                   " bytes");
  }
  if (name == "." || name == "..") return Status::InvalidArgument(quoted + " is not allowed");
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status::InvalidArgument(
          quoted + " has a character other than [A-Za-z0-9._-] at index " + std::to_string(i));
    }
  }
  if (!allow_internal && name.substr(0, 2) == "__") {
    return Status::InvalidArgument(quoted + " starts with \"__\", reserved for the log's own " +
                                   "partitions");
  }
  return Status::Ok();
}

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

struct Partition {
  std::string name;
  std::string path;
  std::vector<Entry> entries;                   // entries[i] has offset i.
  uint64_t file_size = 0;                       // Bytes of valid records in the file.
  int64_t durable_end = 0;                      // Entries below this are fsynced.
  std::map<int64_t, int64_t> open_txns;         // Transaction id → offset of its begin marker.
  std::unique_ptr<rocksdb::WritableFile> file;  // Opened on the first write.
  bool needs_dir_sync = false;                  // The file was created; its name is not durable.
  std::string broken;  // Why the partition refuses writes until reopen ("" = it does not).

  int64_t end() const { return static_cast<int64_t>(entries.size()); }
  int64_t StableEnd() const {
    int64_t lso = end();
    for (const auto& [txn, begin] : open_txns) lso = std::min(lso, begin);
    return std::min(lso, durable_end);
  }
};

// Updates `p`'s transactional state for `e`, about to take offset p->end(). Returns a
// description of the inconsistency, or "" if there is none.
std::string ApplyEntry(Partition* p, Entry* e) {
  const int64_t offset = p->end();
  const std::string txn = "transaction " + std::to_string(e->txn_id);
  auto open = p->open_txns.find(e->txn_id);
  switch (e->type) {
    case RecordType::kData:
      if (e->txn_id == 0) {
        e->state = TxnState::kNone;
        break;
      }
      if (open == p->open_txns.end()) return "data record of " + txn + " with no begin marker";
      e->state = TxnState::kOpen;
      break;
    case RecordType::kTxnBegin:
      if (e->txn_id <= 0) return "begin marker with transaction id " + std::to_string(e->txn_id);
      if (open != p->open_txns.end()) return "second begin marker of open " + txn;
      p->open_txns[e->txn_id] = offset;
      e->state = TxnState::kOpen;
      break;
    case RecordType::kTxnCommit:
    case RecordType::kTxnAbort: {
      if (open == p->open_txns.end()) return "end marker of " + txn + " which is not open";
      const TxnState outcome =
          e->type == RecordType::kTxnCommit ? TxnState::kCommitted : TxnState::kAborted;
      for (int64_t i = open->second; i < offset; ++i) {
        Entry& r = p->entries[static_cast<size_t>(i)];
        if (r.txn_id == e->txn_id && r.state == TxnState::kOpen) r.state = outcome;
      }
      e->state = outcome;
      p->open_txns.erase(open);
      break;
    }
  }
  return "";
}

// Lists the partition files of log directory `dir`, sorted: `*names` gets the partition names
// (internal ones included), `*ignored` the `.log` files whose name is not a partition name.
Status ListPartitionFiles(rocksdb::Env* env, const std::string& dir,
                          std::vector<std::string>* names, std::vector<std::string>* ignored) {
  std::vector<std::string> children;
  rocksdb::Status s = env->GetChildren(dir, &children);
  if (!s.ok()) return Status::IOError("cannot list log directory " + dir + ": " + s.ToString());
  std::sort(children.begin(), children.end());
  const size_t suffix = sizeof(kLogSuffix) - 1;
  for (const std::string& child : children) {
    if (child.size() <= suffix || child.compare(child.size() - suffix, suffix, kLogSuffix) != 0) {
      continue;
    }
    const std::string name = child.substr(0, child.size() - suffix);
    if (!ValidatePartitionName(name, /*allow_internal=*/true).ok()) {
      ignored->push_back(child);
      continue;
    }
    names->push_back(name);
  }
  return Status::Ok();
}

// Where a partition file's torn tail starts, if it has one, and its length.
struct TornTail {
  std::optional<uint64_t> at;
  uint64_t bytes = 0;
};

// Reads `p->path` (read-only) and parses its records into `p->entries`, tracking transactional
// state; sets `p->file_size` to the bytes of valid records and `*torn` if a torn tail follows
// them. Corruption naming the file and byte offset for any other damage. Changes no file.
Status ScanPartitionFile(rocksdb::Env* env, const rocksdb::EnvOptions& env_options, Partition* p,
                         TornTail* torn) {
  std::unique_ptr<rocksdb::SequentialFile> file;
  rocksdb::Status s = env->NewSequentialFile(p->path, &file, env_options);
  std::string data;
  // 64 KiB reads: partition files are read once, at open, and a larger zero-filled buffer per
  // file costs more than the extra reads of a large one.
  std::string scratch(64 << 10, '\0');
  while (s.ok()) {
    rocksdb::Slice chunk;
    s = file->Read(scratch.size(), &chunk, scratch.data());
    if (!s.ok() || chunk.empty()) break;
    data.append(chunk.data(), chunk.size());
  }
  if (!s.ok()) return Status::IOError("cannot read " + p->path + ": " + s.ToString());

  const bool state_log = p->name == kTxnStatePartition;
  size_t pos = 0;
  while (pos < data.size()) {
    Entry e;
    int64_t offset;
    size_t length;
    auto at = [&] { return p->path + " at byte offset " + std::to_string(pos); };
    if (!DecodeRecord(data, pos, &e, &offset, &length)) {
      // Keeps: F4 — a bad record with a valid one after it is Corruption; else it is a torn tail
      if (ValidRecordFrom(data, pos + 1)) {
        return Status::Corruption(at() + ": damaged record followed by valid records");
      }
      torn->at = pos;
      torn->bytes = data.size() - pos;
      break;
    }
    if (offset != p->end()) {
      return Status::Corruption(at() + ": record has offset " + std::to_string(offset) +
                                ", expected " + std::to_string(p->end()));
    }
    if (!state_log) {
      const std::string problem = ApplyEntry(p, &e);
      if (!problem.empty()) return Status::Corruption(at() + ": " + problem);
    }
    p->entries.push_back(std::move(e));
    pos += length;
  }
  p->file_size = pos;
  return Status::Ok();
}

class LogImpl : public Log {
 public:
  LogImpl(const LogOptions& options, rocksdb::Env* env)
      : dir_(options.directory),
        env_(env),
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
                int64_t* offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    STATECHECK_RETURN_IF_ERROR(CheckTimestamp(timestamp));
    return WriteRecord(GetOrCreate(partition), MakeData(0, key, value, timestamp), offset);
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
                             int64_t* offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    STATECHECK_RETURN_IF_ERROR(CheckTimestamp(timestamp));
    return AppendTransactionalLocked(txn_id, partition, MakeData(txn_id, key, value, timestamp),
                                     offset);
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

  Status CommitTransaction(int64_t txn_id) override;
  Status AbortTransaction(int64_t txn_id) override;

  Status CommitOffsets(std::string_view group, const CommittedOffsets& offsets) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidateOffsets(group, offsets));
    Partition* p = GetOrCreate(kOffsetsPartition);
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
      const Partition& p = *it->second;
      for (int64_t i = p.StableEnd() - 1; i >= 0; --i) {
        const Entry& e = p.entries[static_cast<size_t>(i)];
        if (!Visible(e) || e.key != group) continue;
        if (!e.value || !DecodeNamedOffsets(*e.value, &out->offsets, &out->metadata)) {
          return Status::Corruption(p.path + ": committed offsets of group \"" +
                                    std::string(group) + "\" at offset " + std::to_string(i) +
                                    " cannot be decoded");
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
    const Partition* p = Find(partition);
    *offset = p ? p->end() : 0;
    return Status::Ok();
  }

  Status CommittedEndOffset(std::string_view partition, int64_t* offset) override {
    internal::MutexLock l(&mu_);
    STATECHECK_RETURN_IF_ERROR(CheckUsable());
    STATECHECK_RETURN_IF_ERROR(ValidatePartitionName(partition, false));
    const Partition* p = Find(partition);
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
    const Partition* p = Find(partition);
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
    for (int64_t i = from_offset; i < limit && count < max_records; ++i) {
      const Entry& e = p->entries[static_cast<size_t>(i)];
      // Under read_committed, records of aborted transactions are skipped.
      // Keeps: C1 — read_committed never returns an aborted or open transaction's records
      const bool hidden = STATECHECK_PLANTED(LogReadCommittedShowsAborted)
                              ? e.state == TxnState::kOpen
                              : !Visible(e);
      if (e.type != RecordType::kData || (committed && hidden)) continue;
      records->push_back(LogRecord{i, e.key, e.value, e.txn_id, e.timestamp});
      ++count;
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
  static bool Visible(const Entry& e) {
    return e.type == RecordType::kData &&
           (e.state == TxnState::kNone || e.state == TxnState::kCommitted);
  }

  static Entry MakeData(int64_t txn_id, std::string_view key, std::optional<std::string_view> value,
                        int64_t timestamp = kNoTimestamp) {
    Entry e;
    e.type = RecordType::kData;
    e.txn_id = txn_id;
    e.key.assign(key);
    if (value) e.value.emplace(*value);
    e.timestamp = timestamp;
    return e;
  }

  static Status CheckTimestamp(int64_t timestamp) {
    if (timestamp >= kNoTimestamp) return Status::Ok();
    return Status::InvalidArgument("record timestamp " + std::to_string(timestamp) +
                                   " is negative (a timestamp is >= 0, or -1 for none)");
  }

  static Entry MakeOffsets(int64_t txn_id, std::string_view group,
                           const CommittedOffsets& offsets) {
    return MakeData(txn_id, group, EncodeNamedOffsets(offsets.offsets, offsets.metadata));
  }

  static Entry MakeMarker(RecordType type, int64_t txn_id) {
    Entry e;
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

  Partition* Find(std::string_view name) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = partitions_.find(std::string(name));
    return it == partitions_.end() ? nullptr : it->second.get();
  }

  Partition* GetOrCreate(std::string_view name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto& slot = partitions_[std::string(name)];
    if (!slot) {
      slot = std::make_unique<Partition>();
      slot->name = std::string(name);
      slot->path = dir_ + "/" + slot->name + kLogSuffix;
    }
    return slot.get();
  }

  Status OpenFile(Partition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
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

  Status SyncDirIfNeeded(Partition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!p->needs_dir_sync) return Status::Ok();
    rocksdb::Status s = dir_handle_->Fsync();
    if (!s.ok()) return Status::IOError("cannot fsync directory " + dir_ + ": " + s.ToString());
    p->needs_dir_sync = false;
    return Status::Ok();
  }

  // Appends `e` to `p`'s file and to memory; `*offset` = its offset.
  Status WriteRecord(Partition* p, Entry e, int64_t* offset) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!p->broken.empty()) {
      return Status::FailedPrecondition("partition \"" + p->name + "\" refuses writes until the " +
                                        "log is reopened: " + p->broken);
    }
    STATECHECK_RETURN_IF_ERROR(OpenFile(p));
    const std::string bytes = EncodeRecord(e, p->end());
    rocksdb::Status s = p->file->Append(bytes);
    if (s.ok()) s = p->file->Flush();
    // Keeps: F1 — a failed append is undone by truncation; else the partition refuses writes
    if (!s.ok()) {
      // Undo a partial write so that later records do not follow damage.
      rocksdb::Status t = p->file->Truncate(p->file_size);
      if (!t.ok()) {
        p->broken = "a failed append could not be undone (" + t.ToString() + ")";
      }
      return Status::IOError("cannot append to " + p->path + ": " + s.ToString());
    }
    const std::string problem = p->name == kTxnStatePartition ? "" : ApplyEntry(p, &e);
    if (!problem.empty()) {
      // The callers check transactional state first; this is a bug, and the file now holds it.
      p->broken = problem;
      return Status::FailedPrecondition("partition \"" + p->name + "\": " + problem);
    }
    p->file_size += bytes.size();
    *offset = p->end();
    p->entries.push_back(std::move(e));
    return Status::Ok();
  }

  Status SyncPartition(Partition* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!p->broken.empty()) {
      return Status::FailedPrecondition("partition \"" + p->name + "\" refuses writes until the " +
                                        "log is reopened: " + p->broken);
    }
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

  Status AppendTransactionalLocked(int64_t txn_id, std::string_view partition, Entry e,
                                   int64_t* offset) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto txn = txns_.find(txn_id);
    if (txn == txns_.end()) {
      return Status::NotFound("transaction " + std::to_string(txn_id) +
                              " is not open (call BeginTransaction first)");
    }
    Partition* p = GetOrCreate(partition);
    if (p->open_txns.count(txn_id) == 0) {
      int64_t begin;
      STATECHECK_RETURN_IF_ERROR(WriteRecord(p, MakeMarker(RecordType::kTxnBegin, txn_id), &begin));
      txn->second.insert(p->name);
    }
    return WriteRecord(p, std::move(e), offset);
  }

  // Loads and scans one partition file; truncates a torn tail.
  Status Load(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Completes the last commit decision, then aborts every transaction left open.
  Status Recover() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dir_;
  rocksdb::Env* const env_;
  const std::shared_ptr<Logger> logger_;
  rocksdb::EnvOptions env_options_;
  rocksdb::FileLock* lock_ = nullptr;

  // Guards the partitions (and what each Partition holds), the transactions and the poison.
  internal::Mutex mu_;
  std::unique_ptr<rocksdb::Directory> dir_handle_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<Partition>> partitions_ ABSL_GUARDED_BY(mu_);
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
  std::vector<Partition*> touched;
  for (const std::string& name : txn->second) touched.push_back(Find(name));
  // (1) Every record of the transaction durable.
  for (Partition* p : touched) STATECHECK_RETURN_IF_ERROR(SyncPartition(p));
  if (touched.empty()) {
    txns_.erase(txn);
    return Status::Ok();
  }
  // (2) The decision, naming the offset each commit marker will take: the commit point.
  std::map<std::string, int64_t> markers;
  for (Partition* p : touched) markers[p->name] = p->end();
  Partition* state = GetOrCreate(kTxnStatePartition);
  Entry decision = MakeMarker(RecordType::kTxnCommit, txn_id);
  decision.value = EncodeNamedOffsets(markers, "");
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
  for (Partition* p : touched) {
    s = WriteRecord(p, MakeMarker(RecordType::kTxnCommit, txn_id), &ignored);
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

Status LogImpl::AbortTransaction(int64_t txn_id) {
  internal::MutexLock l(&mu_);
  STATECHECK_RETURN_IF_ERROR(CheckUsable());
  auto txn = txns_.find(txn_id);
  if (txn == txns_.end()) {
    return Status::NotFound("transaction " + std::to_string(txn_id) + " is not open");
  }
  std::set<std::string>& touched = txn->second;
  while (!touched.empty()) {
    Partition* p = Find(*touched.begin());
    int64_t ignored;
    STATECHECK_RETURN_IF_ERROR(WriteRecord(p, MakeMarker(RecordType::kTxnAbort, txn_id), &ignored));
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
  std::vector<std::string> names, ignored;
  STATECHECK_RETURN_IF_ERROR(ListPartitionFiles(env_, dir_, &names, &ignored));
  for (const std::string& child : ignored) {
    logger_->Log(LogLevel::kWarn,
                 "log " + dir_ + ": ignoring file " + child + " (not a partition name)");
  }
  for (const std::string& name : names) STATECHECK_RETURN_IF_ERROR(Load(name));
  if (!names.empty()) {
    // The files' directory entries, as their contents (Load), are durable before anyone reads
    // the log: a crash may have left both only in the OS's cache.
    s = dir_handle_->Fsync();
    if (!s.ok()) return Status::IOError("cannot fsync directory " + dir_ + ": " + s.ToString());
  }
  STATECHECK_RETURN_IF_ERROR(Recover());
  for (auto& [name, p] : partitions_) p->durable_end = p->end();
  return Status::Ok();
}

Status LogImpl::Load(const std::string& name) {
  Partition* p = GetOrCreate(name);
  TornTail torn;
  STATECHECK_RETURN_IF_ERROR(ScanPartitionFile(env_, env_options_, p, &torn));
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
  Partition* state = Find(kTxnStatePartition);
  // Keeps: F2 — a crash after the commit decision: recovery writes the missing commit markers
  if (state != nullptr && !state->entries.empty()) {
    const Entry& d = state->entries.back();
    std::map<std::string, int64_t> markers;
    std::string unused;
    if (d.type != RecordType::kTxnCommit || !d.value ||
        !DecodeNamedOffsets(*d.value, &markers, &unused)) {
      return Status::Corruption(state->path + ": last record is not a commit decision");
    }
    const std::string txn = "transaction " + std::to_string(d.txn_id);
    for (const auto& [name, marker] : markers) {
      Partition* p = Find(name);
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
            WriteRecord(p, MakeMarker(RecordType::kTxnCommit, d.txn_id), &ignored));
        STATECHECK_RETURN_IF_ERROR(SyncPartition(p));
        continue;
      }
      const Entry& m = p->entries[static_cast<size_t>(marker)];
      if (m.type != RecordType::kTxnCommit || m.txn_id != d.txn_id) {
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
          WriteRecord(p.get(), MakeMarker(RecordType::kTxnAbort, txn), &ignored));
    }
    if (!open.empty()) STATECHECK_RETURN_IF_ERROR(SyncPartition(p.get()));
  }
  return Status::Ok();
}

}  // namespace

Status InspectLog(const std::string& directory, rocksdb::Env* env, LogSummary* out) {
  if (directory.empty()) return Status::InvalidArgument("log directory is empty");
  if (env == nullptr) env = rocksdb::Env::Default();
  if (!env->FileExists(directory).ok()) {
    return Status::NotFound("log directory " + directory + " does not exist");
  }
  *out = LogSummary();
  out->directory = directory;
  std::vector<std::string> names;
  STATECHECK_RETURN_IF_ERROR(ListPartitionFiles(env, directory, &names, &out->ignored_files));
  rocksdb::EnvOptions env_options;
  std::map<std::string, Partition> partitions;
  for (const std::string& name : names) {
    Partition& p = partitions[name];
    p.name = name;
    p.path = directory + "/" + name + kLogSuffix;
    TornTail torn;
    STATECHECK_RETURN_IF_ERROR(ScanPartitionFile(env, env_options, &p, &torn));
    LogPartitionSummary summary;
    summary.name = name;
    summary.end_offset = p.end();
    for (const Entry& e : p.entries) {
      ++(e.type == RecordType::kData ? summary.data_records : summary.markers);
    }
    summary.valid_bytes = p.file_size;
    summary.torn_tail_at = torn.at;
    summary.torn_tail_bytes = torn.bytes;
    out->partitions.push_back(std::move(summary));
  }

  // The last commit decision: the one transaction whose markers may be missing — missing where
  // the decision names the partition's end and the transaction is open there, as Recover sees
  // it. (A transaction id may be reused: an open transaction of the id of an earlier, completed
  // decision is undecided.)
  std::optional<int64_t> decided;
  auto state = partitions.find(kTxnStatePartition);
  if (state != partitions.end() && !state->second.entries.empty()) {
    const Entry& d = state->second.entries.back();
    std::map<std::string, int64_t> markers;
    std::string unused;
    if (d.value && DecodeNamedOffsets(*d.value, &markers, &unused)) {
      for (const auto& [name, marker] : markers) {
        auto p = partitions.find(name);
        if (p != partitions.end() && marker == p->second.end() &&
            p->second.open_txns.count(d.txn_id) != 0) {
          decided = d.txn_id;
        }
      }
    }
  }
  std::map<int64_t, LogOpenTransaction> open;
  for (const auto& [name, p] : partitions) {
    for (const auto& [txn, begin] : p.open_txns) {
      LogOpenTransaction& t = open[txn];
      t.txn_id = txn;
      t.begin_offsets[name] = begin;
      t.commit_decided = decided == txn;
    }
  }
  for (auto& [txn, t] : open) out->open_transactions.push_back(std::move(t));

  auto offsets = partitions.find(kOffsetsPartition);
  if (offsets != partitions.end()) {
    const Partition& p = offsets->second;
    for (int64_t i = p.end() - 1; i >= 0; --i) {
      const Entry& e = p.entries[static_cast<size_t>(i)];
      const bool visible = e.type == RecordType::kData &&
                           (e.state == TxnState::kNone || e.state == TxnState::kCommitted ||
                            (e.state == TxnState::kOpen && decided == e.txn_id));
      if (!visible || out->committed_offsets.count(e.key) != 0) continue;
      CommittedOffsets& c = out->committed_offsets[e.key];
      if (!e.value || !DecodeNamedOffsets(*e.value, &c.offsets, &c.metadata)) {
        return Status::Corruption(p.path + ": committed offsets of group \"" + e.key +
                                  "\" at offset " + std::to_string(i) + " cannot be decoded");
      }
    }
  }
  return Status::Ok();
}

namespace internal {

LogFileTail DecodeLogFileRecords(std::string_view data, std::vector<LogFileRecord>* records,
                                 size_t* valid_bytes) {
  records->clear();
  size_t pos = 0;
  while (pos < data.size()) {
    Entry e;
    int64_t offset;
    size_t length;
    if (!DecodeRecord(data, pos, &e, &offset, &length)) break;
    records->push_back(LogFileRecord{static_cast<uint8_t>(e.type), e.txn_id, offset,
                                     std::move(e.key), std::move(e.value), e.timestamp});
    pos += length;
  }
  *valid_bytes = pos;
  if (pos == data.size()) return LogFileTail::kClean;
  return ValidRecordFrom(data, pos + 1) ? LogFileTail::kDamaged : LogFileTail::kTorn;
}

std::string EncodeLogFileRecord(const LogFileRecord& r) {
  Entry e;
  e.type = static_cast<RecordType>(r.type);
  e.txn_id = r.txn_id;
  e.key = r.key;
  e.value = r.value;
  e.timestamp = r.timestamp;
  return EncodeRecord(e, r.offset);
}

std::string EncodeLogNamedOffsets(const std::map<std::string, int64_t>& m, std::string_view tail) {
  return EncodeNamedOffsets(m, tail);
}

bool DecodeLogNamedOffsets(std::string_view in, std::map<std::string, int64_t>* m,
                           std::string* tail) {
  return DecodeNamedOffsets(in, m, tail);
}

}  // namespace internal

Status CheckPartitionName(std::string_view name) {
  return ValidatePartitionName(name, /*allow_internal=*/false);
}

Status OpenLog(const LogOptions& options, std::unique_ptr<Log>* log) {
  if (options.directory.empty()) return Status::InvalidArgument("log directory is empty");
  rocksdb::Env* env = options.env ? options.env : rocksdb::Env::Default();
  auto impl = std::make_unique<LogImpl>(options, env);
  STATECHECK_RETURN_IF_ERROR(impl->Open());
  *log = std::move(impl);
  return Status::Ok();
}

}  // namespace statecheck
