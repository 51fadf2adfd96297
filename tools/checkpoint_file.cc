#include "tools/checkpoint_file.h"

#include <rocksdb/env.h>

#include <charconv>
#include <filesystem>

namespace statecheck::tools {

Status ReadCheckpointFile(const std::string& path, CheckpointFile* out) {
  *out = CheckpointFile();
  out->path = path;
  rocksdb::Env* env = rocksdb::Env::Default();
  const rocksdb::Status exists = env->FileExists(path);
  if (exists.IsNotFound()) return Status::NotFound(path + ": no such file");
  if (!exists.ok()) return Status::IOError(path + ": " + exists.ToString());
  const Status s = ReadOffsetCheckpoint(env, path, &out->entries, &out->warnings);
  if (!s.ok()) out->entries.clear();
  return s;
}

Status ParseCheckpointEntry(std::string_view arg, CheckpointOffsets* entries) {
  const std::string shown = "checkpoint entry \"" + std::string(arg) + "\"";
  const size_t eq = arg.rfind('=');
  const size_t colon = eq == std::string_view::npos ? eq : arg.rfind(':', eq);
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument(
        shown + " is not TOPIC:PARTITION=OFFSET (e.g. app-kv-changelog-0_0:0=17)");
  }
  auto number = [&](std::string_view text, auto* out) {
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
  };
  TopicPartition tp{std::string(arg.substr(0, colon)), 0};
  int64_t offset = 0;
  if (!number(arg.substr(colon + 1, eq - colon - 1), &tp.partition)) {
    return Status::InvalidArgument(shown + ": the partition is not a 32-bit integer");
  }
  if (!number(arg.substr(eq + 1), &offset)) {
    return Status::InvalidArgument(shown + ": the offset is not a 64-bit integer");
  }
  if (!entries->emplace(std::move(tp), offset).second) {
    return Status::InvalidArgument(shown + ": that partition is given twice");
  }
  return Status::Ok();
}

Status WriteCheckpointFile(const std::string& path, const CheckpointOffsets& entries) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!entries.empty() && !std::filesystem::is_directory(dir, ec)) {
    return Status::NotFound(dir.string() +
                            ": no such directory (Kafka's OffsetCheckpoint.write fails here too: "
                            "the state directory comes first)");
  }
  return WriteOffsetCheckpoint(rocksdb::Env::Default(), path, entries);
}

std::string FormatCheckpointEntries(const CheckpointOffsets& entries) {
  std::string out;
  for (const auto& [tp, offset] : entries) {
    out += tp.topic + " " + std::to_string(tp.partition) + " " + std::to_string(offset) +
           (offset == kOffsetUnknown ? " (unknown)\n" : "\n");
  }
  return out;
}

nlohmann::ordered_json CheckpointEntriesJson(const CheckpointOffsets& entries) {
  using J = nlohmann::ordered_json;
  J out = J::array();
  for (const auto& [tp, offset] : entries) {
    out.push_back(J{{"topic", tp.topic},
                    {"partition", tp.partition},
                    {"offset", offset},
                    {"unknown", offset == kOffsetUnknown}});
  }
  return out;
}

nlohmann::ordered_json CheckpointFileJson(const CheckpointFile& file) {
  using J = nlohmann::ordered_json;
  return J{{"file", file.path},
           {"entries", CheckpointEntriesJson(file.entries)},
           {"warnings", file.warnings}};
}

}  // namespace statecheck::tools
