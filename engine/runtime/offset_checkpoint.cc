#include "statecheck/offset_checkpoint.h"

#include <rocksdb/env.h>

#include <charconv>
#include <memory>

#include "engine/base/env_util.h"
#include "engine/base/planted.h"
#include "engine/base/rocksdb_status.h"

namespace statecheck {
namespace {

using internal::FromRocksDB;

constexpr int kVersion = 0;

// Java's Integer.parseInt / Long.parseLong: an optional sign, then decimal digits, nothing else.
template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    // One sign at most: from_chars would take the '-' of "+-5".
    if (s.empty() || s.front() == '-') return false;
  }
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// Java's \s: what line.split("\\s+") splits on.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Splits `line` on runs of whitespace as Java's line.split("\\s+") does: leading whitespace
// yields an empty first field; trailing whitespace yields nothing.
std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    fields.push_back(line.substr(i, j - i));
    while (j < line.size() && IsSpace(line[j])) ++j;
    i = j;
  }
  return fields;
}

std::string Quote(std::string_view line) {
  constexpr size_t kMax = 200;  // A damaged file may hold one huge "line".
  std::string quoted = "'";
  quoted.append(line.substr(0, kMax));
  if (line.size() <= kMax) return quoted.append("'");
  return quoted.append("...' (").append(std::to_string(line.size())).append(" bytes)");
}

// Reads the lines of a text one at a time, as Java's BufferedReader.readLine does: a line ends
// at "\n", "\r\n" or a lone "\r".
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool Next(std::string_view* line) {
    if (pos_ >= text_.size()) return false;
    start_ = pos_;
    size_t end = text_.find_first_of("\r\n", pos_);
    if (end == std::string_view::npos) end = text_.size();
    *line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    if (end < text_.size() && text_[end] == '\r' && pos_ < text_.size() && text_[pos_] == '\n') {
      ++pos_;
    }
    ++number_;
    return true;
  }
  int number() const { return number_; }
  // Where the last line read is: "line 3 (byte 14)", so that damage can be found in the file.
  std::string Where() const {
    return "line " + std::to_string(number_) + " (byte " + std::to_string(start_) + ")";
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t start_ = 0;  // Of the last line read.
  int number_ = 0;
};

Status SyncDirectory(rocksdb::Env* env, const std::string& path) {
  return FromRocksDB(internal::SyncParentDirectory(env, path));
}

}  // namespace

Status ParseOffsetCheckpoint(std::string_view text, std::string_view source, CheckpointOffsets* out,
                             std::vector<std::string>* warnings) {
  out->clear();
  const std::string where = std::string(source) + ": ";
  LineReader reader(text);
  std::string_view line;
  int32_t version = 0;
  if (!reader.Next(&line)) return Status::Corruption(where + "File ended prematurely.");
  if (!ParseNumber(line, &version)) {
    return Status::Corruption(where + reader.Where() +
                              ": the version is not a number: " + Quote(line));
  }
  if (version != kVersion) {
    return Status::Corruption(where +
                              "Unknown offset checkpoint version: " + std::to_string(version));
  }
  int32_t expected = 0;
  if (!reader.Next(&line)) return Status::Corruption(where + "File ended prematurely.");
  if (!ParseNumber(line, &expected) || expected < 0) {
    return Status::Corruption(where + reader.Where() +
                              ": the entry count is not a count: " + Quote(line));
  }
  CheckpointOffsets offsets;
  int64_t found = 0;
  while (reader.Next(&line)) {
    const std::vector<std::string_view> fields = SplitFields(line);
    TopicPartition tp;
    int64_t offset = 0;
    if (fields.size() != 3 || fields[0].empty() || !ParseNumber(fields[1], &tp.partition) ||
        tp.partition < 0 || !ParseNumber(fields[2], &offset)) {
      return Status::Corruption(where + "Malformed " + reader.Where() +
                                " in offset checkpoint file: " + Quote(line) +
                                " (expected \"<topic> <partition> <offset>\")");
    }
    tp.topic = std::string(fields[0]);
    ++found;
    // Keeps: U5 — a negative offset other than -4 is skipped with a warning, never returned
    if (offset < 0 && offset != kOffsetUnknown &&
        !STATECHECK_PLANTED(CheckpointNegativeOffsetAccepted)) {
      if (warnings) {
        warnings->push_back(where + "line " + std::to_string(reader.number()) +
                            ": skipping invalid offset " + std::to_string(offset) + " for " +
                            tp.topic + "-" + std::to_string(tp.partition));
      }
      continue;
    }
    if (!offsets.emplace(tp, offset).second) {
      return Status::Corruption(where + reader.Where() + ": a second entry for " + tp.topic + "-" +
                                std::to_string(tp.partition));
    }
  }
  if (found != expected) {
    return Status::Corruption(where + "Expected " + std::to_string(expected) +
                              " entries but found " + (found < expected ? "only " : "") +
                              std::to_string(found));
  }
  *out = std::move(offsets);
  return Status::Ok();
}

Status FormatOffsetCheckpoint(const CheckpointOffsets& offsets, std::string* text) {
  std::string out = std::to_string(kVersion) + "\n" + std::to_string(offsets.size()) + "\n";
  for (const auto& [tp, offset] : offsets) {
    bool bad_topic = tp.topic.empty();
    for (char c : tp.topic) bad_topic = bad_topic || IsSpace(c);
    const std::string entry =
        "\"" + tp.topic + "\" " + std::to_string(tp.partition) + " " + std::to_string(offset);
    // Keeps: U5 — Kafka's OffsetCheckpoint.write refuses an offset it would not read back
    if (offset < 0 && offset != kOffsetUnknown) {
      return Status::InvalidArgument(
          "Attempted to write a negative offset to the checkpoint file (entry " + entry +
          "; an offset is >= 0, or -4 for unknown)");
    }
    if (bad_topic || tp.partition < 0) {
      return Status::InvalidArgument("offset checkpoint entry " + entry +
                                     " cannot be written: the topic must be non-empty without "
                                     "whitespace, the partition >= 0");
    }
    out += tp.topic + " " + std::to_string(tp.partition) + " " + std::to_string(offset) + "\n";
  }
  *text = std::move(out);
  return Status::Ok();
}

Status ReadOffsetCheckpoint(rocksdb::Env* env, const std::string& path, CheckpointOffsets* out,
                            std::vector<std::string>* warnings) {
  out->clear();
  if (!env) env = rocksdb::Env::Default();
  rocksdb::Status exists = env->FileExists(path);
  if (exists.IsNotFound()) return Status::Ok();
  if (!exists.ok()) return FromRocksDB(exists);
  std::string text;
  rocksdb::Status s = rocksdb::ReadFileToString(env, path, &text);
  if (s.IsNotFound()) return Status::Ok();
  if (!s.ok()) return FromRocksDB(s);
  return ParseOffsetCheckpoint(text, path, out, warnings);
}

Status WriteOffsetCheckpoint(rocksdb::Env* env, const std::string& path,
                             const CheckpointOffsets& offsets) {
  if (offsets.empty()) return DeleteOffsetCheckpoint(env, path);
  if (!env) env = rocksdb::Env::Default();
  std::string text;
  STATECHECK_RETURN_IF_ERROR(FormatOffsetCheckpoint(offsets, &text));
  // Keeps: F3 — <file>.tmp, fsync, rename, directory fsync: the old file or the new one survives
  const std::string tmp = path + ".tmp";
  std::unique_ptr<rocksdb::WritableFile> file;
  rocksdb::Status s = env->NewWritableFile(tmp, &file, rocksdb::EnvOptions());
  if (s.ok()) s = file->Append(text);
  if (s.ok()) s = file->Sync();
  if (file) {
    rocksdb::Status closed = file->Close();
    if (s.ok()) s = closed;
  }
  if (s.ok()) s = env->RenameFile(tmp, path);
  if (!s.ok()) return FromRocksDB(s);
  return SyncDirectory(env, path);
}

Status DeleteOffsetCheckpoint(rocksdb::Env* env, const std::string& path) {
  if (!env) env = rocksdb::Env::Default();
  rocksdb::Status s = env->FileExists(path);
  if (s.IsNotFound()) return Status::Ok();
  if (s.ok()) s = env->DeleteFile(path);
  if (!s.ok()) return FromRocksDB(s);
  return SyncDirectory(env, path);
}

}  // namespace statecheck
