// What damaged bytes make of a legacy .checkpoint or .position file (SPEC F6, U5), as the plainest
// reading of Kafka's OffsetCheckpoint format: the version line "0", the entry count, then one
// "<topic> <partition> <offset>" line per entry. The format has no checksum, so damage that leaves
// another well-formed file is undetectable by any reader; everything else must not be trusted.
#ifndef STATECHECK_MODEL_LEGACY_FILE_MODEL_H_
#define STATECHECK_MODEL_LEGACY_FILE_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace statecheck::model {

// (topic, partition) -> offset.
using KafkaCheckpoint = std::map<std::pair<std::string, int32_t>, int64_t>;

// Kafka's OffsetCheckpoint.read, plainly (lines end at "\n", "\r\n" or "\r"; fields split on
// runs of Java's \s; numbers as Integer.parseInt and Long.parseLong read them), and stricter in
// what U5 asks: a file Kafka would refuse, an entry it would skip (a negative offset other than
// -4) or a second entry for one partition is nullopt — not to be trusted.
std::optional<KafkaCheckpoint> ReadKafkaCheckpoint(std::string_view text);

enum class LegacyFileDamage {
  kUnchanged,     // The file reads as the same entries: a start goes on as before.
  kUntrusted,     // The file no longer reads: the stores it covers are wiped and restored (U5).
  kUndetectable,  // Another well-formed file: no reader can tell (Kafka's format).
};
// `before` is the file as written (well-formed), `after` as damaged.
LegacyFileDamage ExpectedLegacyFileDamage(std::string_view before, std::string_view after);

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_LEGACY_FILE_MODEL_H_
