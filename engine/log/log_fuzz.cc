// libFuzzer target: any bytes as a partition file of the embedded log (engine/log/log_format.h,
// statecheck/log.h), or as the value of a commit decision / committed-offsets record. Built only
// with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over engine/fuzz_corpus/log/.
//
// The first byte picks what the rest is: (byte % 4) 0 the data partition "input", 1 the
// committed-offsets partition "__offsets", 2 the commit decisions "__txn_state" (files), 3 a
// named-offsets value. Beyond "no crash, no sanitizer report", each input must keep:
//   * Decoding gives records then a clean end, a torn tail or damage; re-encoding the records
//     gives back exactly the bytes they were decoded from, which decode to the same records.
//   * InspectLog and OpenLog over the file (on an in-memory Env) return OK or a Corruption that
//     names the file; damage followed by valid records is always a Corruption. After an open,
//     GetCommittedOffsets of any key is OK, NotFound, or a Corruption naming the file that
//     leaves the caller's offsets as they were.
//   * When InspectLog is OK it counts the decoded records and reports the torn tail where
//     decoding stopped; when OpenLog is OK, the file still starts with every valid record
//     (recovery loses nothing but the torn tail), and a second open is OK with no torn tail.
//   * A named-offsets value decodes to names in increasing order, re-encodes to the same bytes;
//     a value that does not decode leaves the output untouched.
#include <rocksdb/env.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/log/log_format.h"
#include "statecheck/log.h"
#include "statecheck/logger.h"

namespace {

using statecheck::Status;
using statecheck::internal::LogFileRecord;
using statecheck::internal::LogFileTail;

constexpr char kDir[] = "/fuzz-log";

void Check(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "log_fuzz: invariant broken: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void CheckError(const Status& s, const std::string& path, const char* what) {
  Check(s.code() == Status::Code::kCorruption, what, s.ToString());
  Check(s.message().find(path) != std::string::npos, "an error not naming the file", s.ToString());
}

void FuzzNamedOffsets(std::string_view in) {
  std::map<std::string, int64_t> m = {{"untouched", 7}};
  std::string tail = "untouched";
  if (!statecheck::internal::DecodeLogNamedOffsets(in, &m, &tail)) {
    Check(m.size() == 1 && m.begin()->first == "untouched" && m.begin()->second == 7 &&
              tail == "untouched",
          "a failed decode changed the output");
    return;
  }
  Check(statecheck::internal::EncodeLogNamedOffsets(m, tail) == in,
        "named offsets do not re-encode to their bytes");
}

void FuzzFile(std::string_view name, std::string_view data) {
  std::vector<LogFileRecord> records;
  size_t valid = 0;
  const LogFileTail tail = statecheck::internal::DecodeLogFileRecords(data, &records, &valid);
  Check(valid <= data.size(), "valid bytes past the end");
  Check((tail == LogFileTail::kClean) == (valid == data.size()),
        "a clean end with bytes left, or bytes left without a tail");
  std::string encoded;
  for (const LogFileRecord& r : records) encoded += statecheck::internal::EncodeLogFileRecord(r);
  Check(encoded == data.substr(0, valid), "records do not re-encode to their bytes");
  std::vector<LogFileRecord> again;
  size_t again_valid = 0;
  Check(statecheck::internal::DecodeLogFileRecords(encoded, &again, &again_valid) ==
                LogFileTail::kClean &&
            again == records && again_valid == encoded.size(),
        "re-encoded records decode differently");

  std::unique_ptr<rocksdb::Env> env(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  Check(env->CreateDirIfMissing(kDir).ok(), "cannot create the log directory");
  const std::string path = std::string(kDir) + "/" + std::string(name) + ".log";
  Check(rocksdb::WriteStringToFile(env.get(), rocksdb::Slice(data.data(), data.size()), path, true)
            .ok(),
        "cannot write the partition file");

  statecheck::LogSummary summary;
  const Status inspected = statecheck::InspectLog(kDir, env.get(), &summary);
  if (tail == LogFileTail::kDamaged) {
    Check(!inspected.ok(), "InspectLog accepted damage followed by valid records");
  }
  if (!inspected.ok()) {
    CheckError(inspected, path, "InspectLog: an error that is not a Corruption");
  } else {
    Check(summary.partitions.size() == 1, "InspectLog: not one partition");
    const statecheck::LogPartitionSummary& p = summary.partitions.front();
    // Offsets may have gaps (a compaction's), so the end is the last record's offset + 1.
    const int64_t end = records.empty() ? 0 : records.back().offset + 1;
    Check(p.end_offset == end, "InspectLog: another end offset",
          std::to_string(p.end_offset) + " vs " + std::to_string(end));
    Check(p.data_records + p.markers == static_cast<int64_t>(records.size()),
          "InspectLog: another record count",
          std::to_string(p.data_records + p.markers) + " vs " + std::to_string(records.size()));
    Check(p.valid_bytes == valid, "InspectLog: other valid bytes");
    Check(p.torn_tail_at.has_value() == (tail == LogFileTail::kTorn) &&
              (!p.torn_tail_at || *p.torn_tail_at == valid) &&
              p.torn_tail_bytes == data.size() - valid,
          "InspectLog: another torn tail");
  }

  statecheck::LogOptions options;
  options.directory = kDir;
  options.env = env.get();
  options.logger = statecheck::NullLogger();
  std::unique_ptr<statecheck::Log> log;
  const Status opened = statecheck::OpenLog(options, &log);
  if (tail == LogFileTail::kDamaged) Check(!opened.ok(), "OpenLog accepted damage");
  if (!opened.ok()) {
    CheckError(opened, path, "OpenLog: an error that is not a Corruption");
    return;
  }
  // Committed offsets are decoded when asked for (InspectLog decodes them all): a value that
  // does not decode is a Corruption naming the file, and leaves the caller's offsets alone.
  for (const LogFileRecord& r : records) {
    if (r.key.empty()) continue;
    statecheck::CommittedOffsets committed{{{"untouched", 7}}, "untouched"};
    const Status g = log->GetCommittedOffsets(r.key, &committed);
    if (g.ok() || g.code() == Status::Code::kNotFound) continue;
    CheckError(g, path, "GetCommittedOffsets: an error that is not a Corruption");
    Check(committed == statecheck::CommittedOffsets{{{"untouched", 7}}, "untouched"},
          "GetCommittedOffsets: an error changed the output");
  }
  log.reset();
  std::string after;
  Check(rocksdb::ReadFileToString(env.get(), path, &after).ok(), "cannot read the file back");
  Check(after.compare(0, valid, data.substr(0, valid)) == 0 && after.size() >= valid,
        "recovery lost valid records");
  Check(statecheck::OpenLog(options, &log).ok(), "a second open failed");
  log.reset();
  statecheck::LogSummary second;
  const Status reinspected = statecheck::InspectLog(kDir, env.get(), &second);
  if (!reinspected.ok()) {  // Only for what InspectLog refused before (an undecodable value).
    Check(!inspected.ok(), "InspectLog fails after recovery", reinspected.ToString());
    return;
  }
  for (const auto& p : second.partitions) {
    Check(!p.torn_tail_at.has_value(), "a torn tail left after recovery", p.name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      FuzzFile("input", rest);
      break;
    case 1:
      FuzzFile("__offsets", rest);
      break;
    case 2:
      FuzzFile("__txn_state", rest);
      break;
    default:
      FuzzNamedOffsets(rest);
      break;
  }
  return 0;
}
