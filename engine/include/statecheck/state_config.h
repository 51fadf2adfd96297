// The state-store configuration of KIP-892 (SPEC T1): processing guarantee, isolation level and
// the uncommitted-bytes bound, resolved exactly as the T1 table says.
//
// Keys and values follow Kafka's StreamsConfig:
//   processing.guarantee           at_least_once (default) | exactly_once_v2
//                                  (exactly_once, exactly_once_beta: deprecated aliases of
//                                  exactly_once_v2, accepted with a warning)
//   default.state.isolation.level  READ_UNCOMMITTED | READ_COMMITTED (unset by default)
//   statestore.uncommitted.max.bytes  a long >= -1 (default 67108864; -1 = unlimited)
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

inline constexpr std::string_view kProcessingGuaranteeConfig = "processing.guarantee";
inline constexpr std::string_view kIsolationLevelConfig = "default.state.isolation.level";
inline constexpr std::string_view kUncommittedMaxBytesConfig = "statestore.uncommitted.max.bytes";
inline constexpr int64_t kDefaultUncommittedMaxBytes = 67108864;

std::string_view ProcessingGuaranteeName(ProcessingGuarantee g);  // "at_least_once", ...
std::string_view IsolationLevelName(IsolationLevel l);            // "READ_COMMITTED", ...

// The effective state configuration: one row of the T1 table.
struct StateConfig {
  ProcessingGuarantee guarantee = ProcessingGuarantee::kAtLeastOnce;
  std::optional<IsolationLevel> configured_isolation;           // What the user set, if anything.
  IsolationLevel isolation = IsolationLevel::kReadUncommitted;  // What is in force.
  bool buffer_writes = false;             // Writes are held in a transaction buffer until commit.
  bool wipe_on_unclean_shutdown = false;  // Legacy EOS behaviour (T10).
  int64_t uncommitted_max_bytes = kDefaultUncommittedMaxBytes;  // -1 = unlimited (T6).
  std::vector<std::string> warnings;  // Deprecated aliases, the EOS + READ_UNCOMMITTED note.

  friend bool operator==(const StateConfig&, const StateConfig&) = default;
};

// Resolves `props` (other keys are ignored) into `*out`. InvalidArgument naming the key, the
// value and the allowed values for anything else; `*out` is untouched on error.
Status ResolveStateConfig(const std::map<std::string, std::string>& props, StateConfig* out);

}  // namespace statecheck

#endif  // STATECHECK_STATE_CONFIG_H_
