// The state-store configuration of KIP-892 (SPEC T1): processing guarantee, isolation level and
// the uncommitted-bytes bound, resolved exactly as the T1 table says.
//
// Keys and values follow Kafka's StreamsConfig:
//   processing.guarantee           at_least_once (default) | exactly_once_v2
//                                  (exactly_once, exactly_once_beta: deprecated aliases of
//                                  exactly_once_v2, accepted with a warning)
//   default.state.isolation.level  READ_UNCOMMITTED | READ_COMMITTED (unset by default)
//   statestore.uncommitted.max.bytes  a long >= -1 (default 67108864; -1 = unlimited)
//   state.format                   current (default) | legacy (SPEC U; statecheck's own key)
//
// state.format=legacy runs the engine as Kafka Streams ran before KIP-892: stores write
// directly (effective READ_UNCOMMITTED, no buffer; a configured READ_COMMITTED is ignored with
// a warning), a task's changelog offsets live in its `.checkpoint` file and a store's position
// in `<store>.position` (statecheck/offset_checkpoint.h), and a store whose offset is not in a
// trustworthy `.checkpoint` is wiped and restored from its changelog — under exactly_once_v2
// any store after an unclean shutdown, since that file is written only at a clean close
// (wipe_on_unclean_shutdown), under at_least_once one whose task never committed (the file
// follows every commit there). task.h tells the whole story, upgrade and downgrade included.
#ifndef STATECHECK_STATE_CONFIG_H_
#define STATECHECK_STATE_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/status.h"

namespace statecheck {

enum class ProcessingGuarantee { kAtLeastOnce, kExactlyOnceV2 };
enum class IsolationLevel { kReadUncommitted, kReadCommitted };
enum class StateFormat { kCurrent, kLegacy };

inline constexpr std::string_view kProcessingGuaranteeConfig = "processing.guarantee";
inline constexpr std::string_view kIsolationLevelConfig = "default.state.isolation.level";
inline constexpr std::string_view kUncommittedMaxBytesConfig = "statestore.uncommitted.max.bytes";
inline constexpr std::string_view kStateFormatConfig = "state.format";
inline constexpr int64_t kDefaultUncommittedMaxBytes = 67108864;

std::string_view ProcessingGuaranteeName(ProcessingGuarantee g);  // "at_least_once", ...
std::string_view IsolationLevelName(IsolationLevel l);            // "READ_COMMITTED", ...
std::string_view StateFormatName(StateFormat f);                  // "current", "legacy"

// The effective state configuration: one row of the T1 table.
struct StateConfig {
  ProcessingGuarantee guarantee = ProcessingGuarantee::kAtLeastOnce;
  std::optional<IsolationLevel> configured_isolation;           // What the user set, if anything.
  IsolationLevel isolation = IsolationLevel::kReadUncommitted;  // What is in force.
  bool buffer_writes = false;             // Writes are held in a transaction buffer until commit.
  bool wipe_on_unclean_shutdown = false;  // Legacy EOS behaviour (T10).
  int64_t uncommitted_max_bytes = kDefaultUncommittedMaxBytes;  // -1 = unlimited (T6).
  StateFormat format = StateFormat::kCurrent;                   // SPEC U.
  std::vector<std::string> warnings;  // Deprecated aliases, the EOS + READ_UNCOMMITTED note.

  friend bool operator==(const StateConfig&, const StateConfig&) = default;
};

// Resolves `props` (other keys are ignored) into `*out`. InvalidArgument naming the key, the
// value and the allowed values for anything else; `*out` is untouched on error.
Status ResolveStateConfig(const std::map<std::string, std::string>& props, StateConfig* out);

}  // namespace statecheck

#endif  // STATECHECK_STATE_CONFIG_H_
