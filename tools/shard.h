// `--shard i/n`: which slice of a campaign's batches a run covers, and `--batch PROPERTY:K`: the
// one batch a run repeats (tools/campaign.h).
#ifndef STATECHECK_TOOLS_SHARD_H_
#define STATECHECK_TOOLS_SHARD_H_

#include <cstdint>
#include <string>

#include "statecheck/status.h"

namespace statecheck::tools {

// "i/n" → index and count: two decimal numbers (digits only, no sign or spaces, each fitting in
// an int) with 0 <= i < n. InvalidArgument naming the text otherwise, `*index` and `*count`
// unchanged.
Status ParseShard(const std::string& text, int* index, int* count);

// "window_store/MatchesModel/ret10_size3:7" → the property id and the batch number (the digits
// after the last ':'). InvalidArgument naming the text otherwise, outputs unchanged.
Status ParseBatch(const std::string& text, std::string* property, uint64_t* number);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_SHARD_H_
