// A partition file read back: its records with their transactional state, and the log
// directory's partition files (engine/log/log_partition.h).
#include "engine/log/log_partition.h"

#include <algorithm>

#include "engine/base/planted.h"

namespace statecheck::internal {

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

std::string ApplyLogEntry(LogPartition* p, LogEntry* e) {
  const int64_t offset = e->offset;
  const std::string txn = "transaction " + std::to_string(e->txn_id);
  auto open = p->open_txns.find(e->txn_id);
  switch (e->type) {
    case LogRecordType::kData:
      if (e->txn_id == 0) {
        e->state = LogTxnState::kNone;
        break;
      }
      if (open == p->open_txns.end()) return "data record of " + txn + " with no begin marker";
      e->state = LogTxnState::kOpen;
      break;
    case LogRecordType::kTxnBegin:
      if (e->txn_id <= 0) return "begin marker with transaction id " + std::to_string(e->txn_id);
      if (open != p->open_txns.end()) return "second begin marker of open " + txn;
      p->open_txns[e->txn_id] = offset;
      e->state = LogTxnState::kOpen;
      break;
    case LogRecordType::kTxnCommit:
    case LogRecordType::kTxnAbort: {
      if (open == p->open_txns.end()) return "end marker of " + txn + " which is not open";
      const LogTxnState outcome =
          e->type == LogRecordType::kTxnCommit ? LogTxnState::kCommitted : LogTxnState::kAborted;
      for (size_t i = p->IndexOf(open->second); i < p->entries.size(); ++i) {
        LogEntry& r = p->entries[i];
        if (r.txn_id == e->txn_id && r.state == LogTxnState::kOpen) r.state = outcome;
      }
      e->state = outcome;
      p->open_txns.erase(open);
      break;
    }
  }
  return "";
}

Status ListPartitionFiles(rocksdb::Env* env, const std::string& dir,
                          std::vector<std::string>* names, std::vector<std::string>* ignored,
                          std::vector<std::string>* compacting) {
  std::vector<std::string> children;
  rocksdb::Status s = env->GetChildren(dir, &children);
  if (!s.ok()) return Status::IOError("cannot list log directory " + dir + ": " + s.ToString());
  std::sort(children.begin(), children.end());
  const size_t suffix = sizeof(kLogSuffix) - 1;
  for (const std::string& child : children) {
    if (compacting != nullptr && child.ends_with(kCompactingSuffix)) compacting->push_back(child);
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

Status ScanPartitionFile(rocksdb::Env* env, const rocksdb::EnvOptions& env_options, LogPartition* p,
                         LogTornTail* torn) {
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
    LogEntry e;
    int64_t offset;
    size_t length;
    auto at = [&] { return p->path + " at byte offset " + std::to_string(pos); };
    if (!DecodeLogRecord(data, pos, &e, &offset, &length)) {
      // Keeps: F4 — a bad record with a valid one after it is Corruption; else it is a torn tail
      // Keeps: F6 — damage before valid records is Corruption naming the file and byte offset
      if (ValidLogRecordFrom(data, pos + 1) && !STATECHECK_PLANTED(LogDamageTakenForTornTail)) {
        return Status::Corruption(at() + ": damaged record followed by valid records");
      }
      torn->at = pos;
      torn->bytes = data.size() - pos;
      break;
    }
    // A gap is what a compaction leaves (Log::Compact): records it removed. It cuts only where no
    // transaction is open, and keeps only non-transactional records below the cut.
    const bool gap_allowed =
        p->open_txns.empty() && ((e.type == LogRecordType::kData && e.txn_id == 0) ||
                                 e.type == LogRecordType::kTxnBegin || state_log);
    if (offset < p->end() || (offset > p->end() && !gap_allowed)) {
      return Status::Corruption(at() + ": record has offset " + std::to_string(offset) +
                                ", expected " + std::to_string(p->end()) +
                                (gap_allowed ? " or more (after a compaction)" : ""));
    }
    e.offset = offset;
    if (!state_log) {
      const std::string problem = ApplyLogEntry(p, &e);
      if (!problem.empty()) return Status::Corruption(at() + ": " + problem);
    }
    p->entries.push_back(std::move(e));
    p->last_record_at = pos;
    pos += length;
  }
  p->file_size = pos;
  return Status::Ok();
}

}  // namespace statecheck::internal
