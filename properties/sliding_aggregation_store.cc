#include "properties/sliding_aggregation_store.h"

#include <memory>

namespace statecheck::properties {
namespace {

// 8 big-endian bytes at the front of `b` (which must hold 8), as a number.
int64_t ReadBigEndian(const std::string& b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return static_cast<int64_t>(v);
}

bool IsPositiveDecimal(const std::string& s) {
  if (s.empty() || s[0] == '0') return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

Status ReadSlidingAggregates(ReadOnlyKeyValueStore& store, int64_t time_difference_ms,
                             std::map<std::string, std::string>* out) {
  out->clear();
  std::unique_ptr<KeyValueIterator> it;
  STATECHECK_RETURN_IF_ERROR(store.All(&it));
  KeyValue kv;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
    if (kv.key.size() <= 8 || kv.value.size() < 8) {
      return Status::Corruption("a sliding-window aggregate record with a key of " +
                                std::to_string(kv.key.size()) + " bytes and a value of " +
                                std::to_string(kv.value.size()));
    }
    const int64_t start = ReadBigEndian(kv.key);
    const std::string count = kv.value.substr(8);
    if (start < 0 || !IsPositiveDecimal(count)) {
      return Status::Corruption("a sliding-window aggregate record with start " +
                                std::to_string(start) + " and count \"" + count + "\"");
    }
    (*out)[std::to_string(start) + ":" + std::to_string(start + time_difference_ms) + ":" +
           kv.key.substr(8)] = count + "@" + std::to_string(ReadBigEndian(kv.value));
  }
  return Status::Ok();
}

}  // namespace statecheck::properties
