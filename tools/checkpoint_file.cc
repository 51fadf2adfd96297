#include "tools/checkpoint_file.h"

#include <rocksdb/env.h>

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
