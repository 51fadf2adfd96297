// `--shard i/n`: which slice of a campaign's batches a run covers (tools/campaign.h).
#ifndef STATECHECK_TOOLS_SHARD_H_
#define STATECHECK_TOOLS_SHARD_H_

#include <string>

#include "statecheck/status.h"

namespace statecheck::tools {

// "i/n" → index and count: two decimal numbers (digits only, no sign or spaces, each fitting in
// an int) with 0 <= i < n. InvalidArgument naming the text otherwise, `*index` and `*count`
// unchanged.
Status ParseShard(const std::string& text, int* index, int* count);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_SHARD_H_
