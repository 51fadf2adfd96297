// statecheck::InspectLog: what a log directory holds, read without changing it (statecheck/log.h).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/log/log_format.h"
#include "engine/log/log_partition.h"
#include "statecheck/log.h"

namespace statecheck {

using internal::DecodeLogNamedOffsets;
using internal::kOffsetsPartition;
using internal::kTxnStatePartition;
using internal::ListPartitionFiles;
using internal::LogEntry;
using internal::LogPartition;
using internal::LogPartitionFiles;
using internal::LogRecordType;
using internal::LogSegment;
using internal::LogTornTail;
using internal::LogTxnState;
using internal::ScanPartition;
using internal::SegmentsToRead;

Status InspectLog(const std::string& directory, rocksdb::Env* env, LogSummary* out) {
  if (directory.empty()) return Status::InvalidArgument("log directory is empty");
  if (env == nullptr) env = rocksdb::Env::Default();
  if (!env->FileExists(directory).ok()) {
    return Status::NotFound("log directory " + directory + " does not exist");
  }
  *out = LogSummary();
  out->directory = directory;
  std::map<std::string, LogPartitionFiles> files;
  STATECHECK_RETURN_IF_ERROR(ListPartitionFiles(env, directory, &files, &out->ignored_files));
  rocksdb::EnvOptions env_options;
  std::map<std::string, LogPartition> partitions;
  for (const auto& [name, partition_files] : files) {
    LogPartition& p = partitions[name];
    p.name = name;
    std::vector<LogSegment> segments;
    STATECHECK_RETURN_IF_ERROR(SegmentsToRead(directory, name, partition_files, &segments));
    LogTornTail torn;
    STATECHECK_RETURN_IF_ERROR(ScanPartition(env, env_options, segments, &p, &torn));
    LogPartitionSummary summary;
    summary.name = name;
    summary.end_offset = p.end();
    for (const LogEntry& e : p.entries) {
      ++(e.type == LogRecordType::kData ? summary.data_records : summary.markers);
    }
    summary.valid_bytes = p.bytes();
    for (const LogSegment& s : p.closed) {
      summary.segments.push_back({s.path.substr(directory.size() + 1), s.base, s.bytes});
    }
    summary.segments.push_back({p.path.substr(directory.size() + 1), p.base, p.file_size});
    summary.last_record_at = p.last_record_at;
    summary.swap_pending = partition_files.swap_end.has_value();
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
    const LogEntry& d = state->second.entries.back();
    std::map<std::string, int64_t> markers;
    std::string unused;
    if (d.value && DecodeLogNamedOffsets(*d.value, &markers, &unused)) {
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
    const LogPartition& p = offsets->second;
    for (auto it = p.entries.rbegin(); it != p.entries.rend(); ++it) {
      const LogEntry& e = *it;
      const bool visible = e.type == LogRecordType::kData &&
                           (e.state == LogTxnState::kNone || e.state == LogTxnState::kCommitted ||
                            (e.state == LogTxnState::kOpen && decided == e.txn_id));
      if (!visible || out->committed_offsets.count(e.key) != 0) continue;
      CommittedOffsets& c = out->committed_offsets[e.key];
      if (!e.value || !DecodeLogNamedOffsets(*e.value, &c.offsets, &c.metadata)) {
        return Status::Corruption(p.path + ": committed offsets of group \"" + e.key +
                                  "\" at offset " + std::to_string(e.offset) +
                                  " cannot be decoded");
      }
    }
  }
  return Status::Ok();
}

}  // namespace statecheck
