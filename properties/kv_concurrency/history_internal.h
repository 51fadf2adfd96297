// What describing, checking and the property of a concurrency history share (history.h):
// the quoted text of bytes and records, and a committed state with its lookup.
#ifndef STATECHECK_PROPERTIES_KV_HISTORY_INTERNAL_H_
#define STATECHECK_PROPERTIES_KV_HISTORY_INTERNAL_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/key_value_store.h"

namespace statecheck::properties::kv_concurrency::internal {

// A committed state: key -> value.
using State = std::map<std::string, std::string>;

inline std::optional<std::string> Lookup(const State& state, const std::string& key) {
  auto it = state.find(key);
  if (it == state.end()) return std::nullopt;
  return it->second;
}

// The bytes as a quoted string in the trace escapes (EscapeBytes), with '"' escaped too.
std::string Quote(std::string_view bytes);
// Quote, or "absent" for nullopt.
std::string QuoteOptional(const std::optional<std::string>& v);
// [k=v, ...], each quoted.
std::string FormatRecords(const std::vector<KeyValue>& records);

}  // namespace statecheck::properties::kv_concurrency::internal

#endif  // STATECHECK_PROPERTIES_KV_HISTORY_INTERNAL_H_
