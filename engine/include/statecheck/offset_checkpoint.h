// Kafka's offset checkpoint file format (SPEC U): the legacy on-disk home of a task's changelog
// offsets (`.checkpoint`) and of a store's IQ position (`<store>.position`).
//
//   0                      line 1: the version, always 0
//   2                      line 2: the number of entries N
//   app-kv-changelog-0_0 0 17     N lines: <topic> <partition> <offset>, single spaces
//   app-counts-changelog-0_0 0 -4 (-4 = the offset is unknown)
//
// The embedded log's partitions are single-partition topics: log partition P is the entry
// "P 0 <offset>". Entries are written in (topic, partition) order, one per line, each line
// ending in "\n".
//
// Writing an empty map deletes the file. Otherwise the file is written to "<file>.tmp",
// fsynced, renamed over the file, and the directory fsynced — so the file is, after any crash
// or power loss, either the old one or the new one.
//
// Reading: a missing file is an empty map. Unknown version → Corruption "Unknown offset
// checkpoint version: V"; a file that ends before its count line → Corruption "File ended
// prematurely"; a line that is not three fields (topic, an int32 partition, an int64 offset) →
// Corruption naming the line number and its text; a duplicate entry → Corruption; a negative
// offset other than -4 → the entry is skipped and a warning names it (Kafka: such an offset is
// invalid, never trusted); entry lines other than N → Corruption "Expected N entries but found
// only M". Every error names the file. As Kafka's reader (Java's BufferedReader.readLine and
// line.split("\\s+")), lines end at "\n", "\r\n" or "\r", and fields are separated by runs of
// whitespace (space, \t, \v, \f); a number is decimal with at most one sign.
#ifndef STATECHECK_OFFSET_CHECKPOINT_H_
#define STATECHECK_OFFSET_CHECKPOINT_H_

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/status.h"

namespace rocksdb {
class Env;
}  // namespace rocksdb

namespace statecheck {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
};

inline constexpr int64_t kOffsetUnknown = -4;  // Kafka's OffsetCheckpoint.OFFSET_UNKNOWN.
inline constexpr char kCheckpointFileName[] = ".checkpoint";
inline constexpr char kPositionFileSuffix[] = ".position";

using CheckpointOffsets = std::map<TopicPartition, int64_t>;

// Parses the text of a checkpoint file; `source` names it in errors and warnings. Warnings (a
// skipped negative offset) are appended to `*warnings` when it is not null. `*out` is cleared
// first and holds nothing on error.
Status ParseOffsetCheckpoint(std::string_view text, std::string_view source, CheckpointOffsets* out,
                             std::vector<std::string>* warnings);
// The text of a checkpoint file holding `offsets`. InvalidArgument for an entry Kafka's reader
// would not read back: an empty topic or one containing whitespace, a negative partition, a
// negative offset other than -4.
Status FormatOffsetCheckpoint(const CheckpointOffsets& offsets, std::string* text);

// Reads the file at `path` through `env` (null = the default Env). A missing file is an empty
// map; IOError when it cannot be read; Corruption for its content (above).
Status ReadOffsetCheckpoint(rocksdb::Env* env, const std::string& path, CheckpointOffsets* out,
                            std::vector<std::string>* warnings);
// Writes `offsets` to `path` durably (above); deletes the file when `offsets` is empty.
Status WriteOffsetCheckpoint(rocksdb::Env* env, const std::string& path,
                             const CheckpointOffsets& offsets);
// Deletes the file at `path` (OK if missing) and fsyncs its directory.
Status DeleteOffsetCheckpoint(rocksdb::Env* env, const std::string& path);

}  // namespace statecheck

#endif  // STATECHECK_OFFSET_CHECKPOINT_H_
