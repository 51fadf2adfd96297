// The processor metadata a windowed aggregation commits with its input offset (docs/spec.md E6,
// E10; docs/formats.md): ';'-separated "<store>=<last emitted close time>" entries, merged by
// max when a task starts. Public so that tools can read what a task committed; the engine writes
// and reads it through these two functions alone.
#ifndef STATECHECK_PROCESSOR_METADATA_H_
#define STATECHECK_PROCESSOR_METADATA_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "statecheck/status.h"

namespace statecheck {

// Nothing emitted yet (Kafka: ConsumerRecord.NO_TIMESTAMP).
inline constexpr int64_t kNoCloseTime = -1;

// The largest "<store>=<close time>" entry for `store` in `metadata` (E10), or kNoCloseTime if
// none. Corruption naming the text when an entry is not of that form; `*close` then unchanged.
Status ParseLastEmitClose(std::string_view metadata, std::string_view store, int64_t* close);
// "<store>=<close>", or "" for kNoCloseTime.
std::string LastEmitCloseMetadata(std::string_view store, int64_t close);

}  // namespace statecheck

#endif  // STATECHECK_PROCESSOR_METADATA_H_
