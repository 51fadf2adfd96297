// The embedded log's record format: a partition file's records and the value of a commit
// decision or committed-offsets record (engine/log/log_format.h; statecheck/log.h describes the
// layout).
#include "engine/log/log_format.h"

#include "engine/log/crc32c.h"

namespace statecheck::internal {
namespace {

constexpr uint8_t kMagic = 0xC1;
constexpr size_t kHeaderSize = 32;
constexpr size_t kCrcOffset = 28;
constexpr uint8_t kFlagNullValue = 1;
constexpr uint8_t kFlagTimestamp = 2;  // 8 bytes of timestamp open the payload.
constexpr uint8_t kFlagSource = 4;     // The source follows: name length (4), name, offset (8).
constexpr uint8_t kKnownFlags = kFlagNullValue | kFlagTimestamp | kFlagSource;
constexpr size_t kTimestampSize = 8;
// The header ends with its CRC: 1+1+1+1 bytes, then txn id, offset (8 each), key and value
// sizes (4 each), the CRC (4).
static_assert(kCrcOffset == 4 + 8 + 8 + 4 + 4 && kHeaderSize == kCrcOffset + 4);

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

}  // namespace

void AppendLogRecord(const LogEntry& e, int64_t offset, std::string* out) {
  AppendLogRecord(e, offset, e.txn_id, out);
}

void AppendLogRecord(const LogEntry& e, int64_t offset, int64_t txn_id, std::string* out) {
  const size_t start = out->size();
  const size_t value_size = e.value ? e.value->size() : 0;
  const bool timestamped = e.timestamp != kNoTimestamp;
  out->push_back(static_cast<char>(kMagic));
  out->push_back(static_cast<char>(e.type));
  out->push_back(static_cast<char>((e.value ? 0 : kFlagNullValue) |
                                   (timestamped ? kFlagTimestamp : 0) |
                                   (e.source ? kFlagSource : 0)));
  out->push_back(0);
  PutFixed64(out, static_cast<uint64_t>(txn_id));
  PutFixed64(out, static_cast<uint64_t>(offset));
  PutFixed32(out, static_cast<uint32_t>(e.key.size()));
  PutFixed32(out, static_cast<uint32_t>(value_size));
  PutFixed32(out, 0);  // The CRC, once the payload is in place.
  if (timestamped) PutFixed64(out, static_cast<uint64_t>(e.timestamp));
  if (e.source) {
    PutFixed32(out, static_cast<uint32_t>(e.source->partition.size()));
    *out += e.source->partition;
    PutFixed64(out, static_cast<uint64_t>(e.source->offset));
  }
  *out += e.key;
  if (e.value) *out += *e.value;
  const std::string_view record = std::string_view(*out).substr(start);
  const uint32_t crc = Crc32c(record.substr(kHeaderSize), Crc32c(record.substr(0, kCrcOffset)));
  for (int i = 0; i < 4; ++i) (*out)[start + kCrcOffset + i] = static_cast<char>(crc >> (8 * i));
}

size_t LogRecordSize(const LogEntry& e) {
  return kHeaderSize + (e.timestamp != kNoTimestamp ? kTimestampSize : 0) +
         (e.source ? 4 + e.source->partition.size() + 8 : 0) + e.key.size() +
         (e.value ? e.value->size() : 0);
}

std::string EncodeLogRecord(const LogEntry& e, int64_t offset) {
  std::string out;
  out.reserve(kHeaderSize + kTimestampSize + e.key.size() + (e.value ? e.value->size() : 0));
  AppendLogRecord(e, offset, &out);
  return out;
}

bool DecodeLogRecord(std::string_view data, size_t pos, LogEntry* e, int64_t* offset,
                     size_t* length) {
  if (data.size() - pos < kHeaderSize) return false;
  const char* h = data.data() + pos;
  const auto type = static_cast<uint8_t>(h[1]);
  const auto flags = static_cast<uint8_t>(h[2]);
  if (static_cast<uint8_t>(h[0]) != kMagic || type < 1 || type > 4 || (flags & ~kKnownFlags) != 0 ||
      h[3] != 0) {
    return false;
  }
  const uint64_t key_size = GetFixed32(h + 20);
  const uint64_t value_size = GetFixed32(h + 24);
  const uint64_t timestamp_size = (flags & kFlagTimestamp) ? kTimestampSize : 0;
  if ((flags & kFlagNullValue) && value_size != 0) return false;
  const uint64_t available = data.size() - pos - kHeaderSize;
  uint64_t source_size = 0;  // The source's bytes: name length (4), name, offset (8).
  if (flags & kFlagSource) {
    if (timestamp_size + 4 > available) return false;
    source_size = 4 + uint64_t{GetFixed32(h + kHeaderSize + timestamp_size)} + 8;
  }
  if (timestamp_size + source_size + key_size + value_size > available) return false;
  const std::string_view payload(h + kHeaderSize,
                                 timestamp_size + source_size + key_size + value_size);
  if (Crc32c(payload, Crc32c(std::string_view(h, kCrcOffset))) != GetFixed32(h + kCrcOffset)) {
    return false;
  }
  e->type = static_cast<LogRecordType>(type);
  e->state = LogTxnState::kNone;
  e->txn_id = static_cast<int64_t>(GetFixed64(h + 4));
  e->timestamp = timestamp_size ? static_cast<int64_t>(GetFixed64(payload.data())) : kNoTimestamp;
  // The writer sets the flag only for a timestamp >= 0 (CheckTimestamp; kNoTimestamp has none).
  if (timestamp_size && e->timestamp < 0) return false;
  e->source.reset();
  if (source_size) {
    const std::string_view name = payload.substr(timestamp_size + 4, source_size - 12);
    const auto offset =
        static_cast<int64_t>(GetFixed64(payload.data() + timestamp_size + source_size - 8));
    // The writer checks both (CheckSource); only data records have a source.
    if (e->type != LogRecordType::kData || offset < 0 || !CheckPartitionName(name).ok()) {
      return false;
    }
    e->source = LogSource{std::string(name), offset};
  }
  const size_t key_at = timestamp_size + source_size;
  e->key.assign(payload.substr(key_at, key_size));
  if (flags & kFlagNullValue) {
    e->value.reset();
  } else {
    e->value.emplace(payload.substr(key_at + key_size));
  }
  *offset = static_cast<int64_t>(GetFixed64(h + 12));
  *length = kHeaderSize + payload.size();
  return true;
}

bool ValidLogRecordFrom(std::string_view data, size_t from) {
  LogEntry e;
  int64_t offset;
  size_t length;
  for (size_t p = from; p + kHeaderSize <= data.size(); ++p) {
    if (static_cast<uint8_t>(data[p]) == kMagic && DecodeLogRecord(data, p, &e, &offset, &length)) {
      return true;
    }
  }
  return false;
}

// The value of a commit decision (touched partition → commit marker offset) and of a
// committed-offsets record (partition → offset, metadata).
std::string EncodeLogNamedOffsets(const std::map<std::string, int64_t>& m, std::string_view tail) {
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

bool DecodeLogNamedOffsets(std::string_view in, std::map<std::string, int64_t>* m,
                           std::string* tail) {
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
    // EncodeLogNamedOffsets writes a map: names strictly increasing, each once.
    if (!decoded.empty() && name <= decoded.rbegin()->first) return false;
    decoded.emplace_hint(decoded.end(), name, static_cast<int64_t>(GetFixed64(piece.data())));
  }
  if (!take(4, &piece) || !take(GetFixed32(piece.data()), &piece) || !in.empty()) return false;
  *m = std::move(decoded);
  tail->assign(piece);
  return true;
}

LogFileTail DecodeLogFileRecords(std::string_view data, std::vector<LogFileRecord>* records,
                                 size_t* valid_bytes) {
  records->clear();
  size_t pos = 0;
  while (pos < data.size()) {
    LogEntry e;
    int64_t offset;
    size_t length;
    if (!DecodeLogRecord(data, pos, &e, &offset, &length)) break;
    records->push_back(LogFileRecord{static_cast<uint8_t>(e.type), e.txn_id, offset,
                                     std::move(e.key), std::move(e.value), e.timestamp,
                                     std::move(e.source)});
    pos += length;
  }
  *valid_bytes = pos;
  if (pos == data.size()) return LogFileTail::kClean;
  return ValidLogRecordFrom(data, pos + 1) ? LogFileTail::kDamaged : LogFileTail::kTorn;
}

std::string EncodeLogFileRecord(const LogFileRecord& r) {
  LogEntry e;
  e.type = static_cast<LogRecordType>(r.type);
  e.txn_id = r.txn_id;
  e.key = r.key;
  e.value = r.value;
  e.timestamp = r.timestamp;
  e.source = r.source;
  return EncodeLogRecord(e, r.offset);
}

}  // namespace statecheck::internal
