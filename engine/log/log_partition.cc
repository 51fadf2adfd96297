// A partition file read back: its records with their transactional state, and the log
// directory's partition files (engine/log/log_partition.h).
#include "engine/log/log_partition.h"

#include <algorithm>
#include <limits>

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

namespace {

// The base in `digits` if it is kSegmentBaseDigits decimal digits.
std::optional<int64_t> ParseBase(std::string_view digits) {
  if (digits.size() != kSegmentBaseDigits) return std::nullopt;
  int64_t v = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9' || v > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) {
      return std::nullopt;
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

std::string BaseDigits(int64_t base) {
  std::string digits = std::to_string(base);
  return std::string(kSegmentBaseDigits - std::min(kSegmentBaseDigits, digits.size()), '0') +
         digits;
}

// Reads all of `path` into `*data`.
Status ReadWholeFile(rocksdb::Env* env, const rocksdb::EnvOptions& env_options,
                     const std::string& path, std::string* data) {
  std::unique_ptr<rocksdb::SequentialFile> file;
  rocksdb::Status s = env->NewSequentialFile(path, &file, env_options);
  // 64 KiB reads: partition files are read once, at open, and a larger zero-filled buffer per
  // file costs more than the extra reads of a large one.
  std::string scratch(64 << 10, '\0');
  while (s.ok()) {
    rocksdb::Slice chunk;
    s = file->Read(scratch.size(), &chunk, scratch.data());
    if (!s.ok() || chunk.empty()) break;
    data->append(chunk.data(), chunk.size());
  }
  if (!s.ok()) return Status::IOError("cannot read " + path + ": " + s.ToString());
  return Status::Ok();
}

}  // namespace

std::string SegmentPath(const std::string& dir, std::string_view name, int64_t base) {
  std::string path = dir + "/" + std::string(name);
  return base == 0 ? path + kLogSuffix : path + kSegmentInfix + BaseDigits(base);
}

std::string SwapPath(const std::string& dir, std::string_view name, int64_t end) {
  return dir + "/" + std::string(name) + kSwapInfix + BaseDigits(end);
}

Status ListPartitionFiles(rocksdb::Env* env, const std::string& dir,
                          std::map<std::string, LogPartitionFiles>* partitions,
                          std::vector<std::string>* ignored, std::vector<std::string>* compacting) {
  std::vector<std::string> children;
  rocksdb::Status s = env->GetChildren(dir, &children);
  if (!s.ok()) return Status::IOError("cannot list log directory " + dir + ": " + s.ToString());
  std::sort(children.begin(), children.end());
  const size_t suffix = sizeof(kLogSuffix) - 1;
  const size_t numbered = kSegmentBaseDigits + sizeof(kSegmentInfix) - 1;
  const size_t swap = kSegmentBaseDigits + sizeof(kSwapInfix) - 1;
  for (const std::string& child : children) {
    if (compacting != nullptr && child.ends_with(kCompactingSuffix)) compacting->push_back(child);
    std::string name;
    std::optional<int64_t> base, swap_end;
    if (child.ends_with(kLogSuffix) && child.size() > suffix) {
      name = child.substr(0, child.size() - suffix);
      base = 0;
    } else if (child.size() > swap &&
               child.compare(child.size() - swap, sizeof(kSwapInfix) - 1, kSwapInfix) == 0 &&
               (swap_end =
                    ParseBase(std::string_view(child).substr(child.size() - kSegmentBaseDigits)))) {
      name = child.substr(0, child.size() - swap);
    } else if (child.size() > numbered &&
               child.compare(child.size() - numbered, sizeof(kSegmentInfix) - 1, kSegmentInfix) ==
                   0 &&
               (base =
                    ParseBase(std::string_view(child).substr(child.size() - kSegmentBaseDigits)))) {
      name = child.substr(0, child.size() - numbered);
    } else {
      continue;
    }
    if (!ValidatePartitionName(name, /*allow_internal=*/true).ok()) {
      ignored->push_back(child);
      continue;
    }
    LogPartitionFiles& files = (*partitions)[name];
    if (swap_end) {
      if (files.swap_end) {
        return Status::Corruption("log directory " + dir + ": partition \"" + name +
                                  "\" has two swap files (" + child + " and one before it)");
      }
      files.swap_end = swap_end;
    } else if (*base == 0) {
      files.first = true;
    } else {
      files.segments.push_back(*base);  // Ascending: the names sort as their bases do.
    }
  }
  return Status::Ok();
}

Status SegmentsToRead(const std::string& dir, const std::string& name,
                      const LogPartitionFiles& files, std::vector<LogSegment>* segments) {
  segments->clear();
  if (files.swap_end) {
    segments->push_back({0, SwapPath(dir, name, *files.swap_end), 0});
  } else if (files.first) {
    segments->push_back({0, SegmentPath(dir, name, 0), 0});
  } else if (!files.segments.empty()) {
    return Status::Corruption("log partition \"" + name + "\" has segment files from offset " +
                              std::to_string(files.segments.front()) + " in " + dir +
                              " but no first segment (" + name + kLogSuffix + ")");
  }
  for (const int64_t base : files.segments) {
    if (!files.swap_end || base >= *files.swap_end) {
      segments->push_back({base, SegmentPath(dir, name, base), 0});
    }
  }
  return Status::Ok();
}

Status ScanPartition(rocksdb::Env* env, const rocksdb::EnvOptions& env_options,
                     const std::vector<LogSegment>& segments, LogPartition* p, LogTornTail* torn) {
  const bool state_log = p->name == kTxnStatePartition;
  for (size_t k = 0; k < segments.size(); ++k) {
    const LogSegment& segment = segments[k];
    const bool active = k + 1 == segments.size();
    std::string data;
    STATECHECK_RETURN_IF_ERROR(ReadWholeFile(env, env_options, segment.path, &data));
    size_t pos = 0;
    uint64_t last_record_at = 0;
    auto at = [&] { return segment.path + " at byte offset " + std::to_string(pos); };
    if (p->end() > segment.base) {
      return Status::Corruption(at() + ": the segment starts at offset " +
                                std::to_string(segment.base) + ", but the one before it ends at " +
                                std::to_string(p->end()));
    }
    while (pos < data.size()) {
      LogEntry e;
      int64_t offset;
      size_t length;
      if (!DecodeLogRecord(data, pos, &e, &offset, &length)) {
        // Keeps: F4 — a bad record with a valid one after it is Corruption; else it is a torn tail
        // Keeps: F6 — damage before valid records is Corruption naming the file and byte offset
        if (!active) {
          // A segment is fsynced whole before the next one starts: no tail of it is torn.
          return Status::Corruption(at() + ": damaged record in a closed segment (later " +
                                    "segments follow it)");
        }
        if (ValidLogRecordFrom(data, pos + 1) && !STATECHECK_PLANTED(LogDamageTakenForTornTail)) {
          return Status::Corruption(at() + ": damaged record followed by valid records");
        }
        torn->at = pos;
        torn->bytes = data.size() - pos;
        break;
      }
      // A gap is what a compaction leaves (Log::Compact): records it removed. It cuts only where
      // no transaction is open, and keeps only non-transactional records below the cut.
      const bool gap_allowed =
          p->open_txns.empty() && ((e.type == LogRecordType::kData && e.txn_id == 0) ||
                                   e.type == LogRecordType::kTxnBegin || state_log);
      const int64_t expected = std::max(p->end(), segment.base);
      if (offset < expected || (offset > p->end() && !gap_allowed)) {
        return Status::Corruption(at() + ": record has offset " + std::to_string(offset) +
                                  ", expected " + std::to_string(expected) +
                                  (gap_allowed ? " or more (after a compaction)" : ""));
      }
      e.offset = offset;
      if (!state_log) {
        const std::string problem = ApplyLogEntry(p, &e);
        if (!problem.empty()) return Status::Corruption(at() + ": " + problem);
      }
      p->entries.push_back(std::move(e));
      last_record_at = pos;
      pos += length;
    }
    if (active) {
      p->base = segment.base;
      p->path = segment.path;
      p->file_size = pos;
      p->last_record_at = last_record_at;
    } else {
      p->closed.push_back({segment.base, segment.path, pos});
    }
  }
  return Status::Ok();
}

}  // namespace statecheck::internal
