#include "properties/windowed/session_aggregation_store.h"

#include <cstdint>
#include <memory>

#include "properties/windowed/aggregation_stores.h"

namespace statecheck::properties::windowed {
namespace {

Status Bad(const std::string& what, const KeyValue& kv) {
  return Status::Corruption("a session store record (key of " + std::to_string(kv.key.size()) +
                            " bytes, value of " + std::to_string(kv.value.size()) +
                            " bytes): " + what);
}

bool PositiveDecimal(const std::string& s) {
  if (s.empty() || s[0] == '0') return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

Status ReadSessionAggregates(ReadOnlyKeyValueStore& store, bool counts,
                             std::map<std::string, std::string>* out) {
  out->clear();
  // "<start>:<end>:<key>" of each index's sessions, to compare the two at the end.
  std::map<std::string, std::string> time_index;  // → "<count>@<end>"
  std::map<std::string, int> key_index;
  std::unique_ptr<KeyValueIterator> it;
  STATECHECK_RETURN_IF_ERROR(store.All(&it));
  KeyValue kv;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
    if (kv.key.empty() || kv.value.size() < 8) return Bad("too short", kv);
    const int64_t start = BigEndianAt(kv.value);
    if (kv.key[0] == 'T') {
      if (kv.key.size() < 1 + 8 + 1) return Bad("a time-index key too short", kv);
      const int64_t end = BigEndianAt(kv.key.substr(1));
      const std::string count = kv.value.substr(8);
      if (start < 0 || start > end) return Bad("session bounds out of order", kv);
      if (counts && !PositiveDecimal(count)) {
        return Bad("count \"" + count + "\" is not positive", kv);
      }
      time_index[std::to_string(start) + ":" + std::to_string(end) + ":" + kv.key.substr(9)] =
          count + "@" + std::to_string(end);
    } else if (kv.key[0] == 'K') {
      if (kv.key.size() < 1 + 4 + 8 + 1 || kv.value.size() != 8) {
        return Bad("a key-index record of the wrong size", kv);
      }
      const uint64_t n =
          static_cast<uint64_t>(BigEndianAt(std::string(4, '\0') + kv.key.substr(1, 4)));
      if (kv.key.size() != 1 + 4 + n + 8) return Bad("key length disagrees with the key", kv);
      const int64_t end = BigEndianAt(kv.key.substr(5 + n));
      ++key_index[std::to_string(start) + ":" + std::to_string(end) + ":" + kv.key.substr(5, n)];
    } else {
      return Bad("unknown record kind", kv);
    }
  }
  for (const auto& [session, value] : time_index) {
    if (!key_index.count(session)) {
      return Status::Corruption("session " + session +
                                " is in the session store's time index, not its key index");
    }
  }
  for (const auto& [session, n] : key_index) {
    if (!time_index.count(session)) {
      return Status::Corruption("session " + session +
                                " is in the session store's key index, not its time index");
    }
  }
  *out = std::move(time_index);
  return Status::Ok();
}

}  // namespace statecheck::properties::windowed
