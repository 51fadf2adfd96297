#include "properties/windowed/aggregation_stores.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <utility>

namespace statecheck::properties::windowed {

int64_t BigEndianAt(std::string_view b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return static_cast<int64_t>(v);
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<int64_t>::max() : sum;
}

namespace {

bool IsPositiveDecimal(const std::string& s) {
  if (s.empty() || s[0] == '0') return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// `f` on every record of `store`, in key order, until it fails.
Status ForEachRecord(ReadOnlyKeyValueStore& store,
                     const std::function<Status(const KeyValue&)>& f) {
  std::unique_ptr<KeyValueIterator> it;
  STATECHECK_RETURN_IF_ERROR(store.All(&it));
  KeyValue kv;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
    STATECHECK_RETURN_IF_ERROR(f(kv));
  }
  return Status::Ok();
}

// One window record of a time-window or sliding-window aggregation's store into `out`.
Status DecodeTimeWindow(const KeyValue& kv, int64_t size_ms, bool counts,
                        std::map<std::string, std::string>* out) {
  if (kv.key.size() <= 8 || kv.value.size() < 8) {
    return Status::Corruption("a window aggregate record with a key of " +
                              std::to_string(kv.key.size()) + " bytes and a value of " +
                              std::to_string(kv.value.size()));
  }
  const int64_t start = BigEndianAt(kv.key);
  const std::string aggregate = kv.value.substr(8);
  if (start < 0 || (counts && !IsPositiveDecimal(aggregate))) {
    return Status::Corruption("a window aggregate record with start " + std::to_string(start) +
                              " and " + (counts ? "count" : "aggregate") + " \"" + aggregate +
                              "\"");
  }
  (*out)[std::to_string(start) + ":" + std::to_string(SaturatingAdd(start, size_ms)) + ":" +
         kv.key.substr(8)] = aggregate + "@" + std::to_string(BigEndianAt(kv.value));
  return Status::Ok();
}

}  // namespace

Status ReadTimeWindowAggregates(ReadOnlyKeyValueStore& store, int64_t size_ms, bool counts,
                                std::map<std::string, std::string>* out) {
  out->clear();
  return ForEachRecord(
      store, [&](const KeyValue& kv) { return DecodeTimeWindow(kv, size_ms, counts, out); });
}

Status ReadSlidingWindowAggregates(ReadOnlyKeyValueStore& store, int64_t size_ms, bool counts,
                                   std::map<std::string, std::string>* out,
                                   std::vector<std::string>* unindexed) {
  out->clear();
  unindexed->clear();
  std::set<std::pair<int64_t, std::string>> index;  // (start, key).
  STATECHECK_RETURN_IF_ERROR(ForEachRecord(store, [&](const KeyValue& kv) {
    if (kv.key.empty() || kv.key[0] != '\xff') {
      return DecodeTimeWindow(kv, size_ms, counts, out);
    }
    const uint64_t n =
        kv.key.size() < 5 ? 0 : BigEndianAt(std::string(4, '\0') + kv.key.substr(1, 4));
    if (kv.key.size() < 13 || kv.key.size() - 13 != n || n == 0 || !kv.value.empty() ||
        BigEndianAt(kv.key.substr(5 + n)) < 0) {
      return Status::Corruption("a key index record of " + std::to_string(kv.key.size()) +
                                " bytes with a value of " + std::to_string(kv.value.size()) +
                                " (expected [0xFF][key length, 4][key][start, 8] and no value)");
    }
    index.emplace(BigEndianAt(kv.key.substr(5 + n)), kv.key.substr(5, n));
    return Status::Ok();
  }));
  for (const auto& [window, value] : *out) {
    const size_t first = window.find(':'), second = window.find(':', first + 1);
    if (!index.count({std::stoll(window.substr(0, first)), window.substr(second + 1)})) {
      unindexed->push_back(window);
    }
  }
  return Status::Ok();
}

Status ReadUnlimitedAggregates(ReadOnlyKeyValueStore& store, int64_t start_ms, bool counts,
                               std::map<std::string, std::string>* out) {
  out->clear();
  return ForEachRecord(store, [&](const KeyValue& kv) {
    const std::string aggregate = kv.value.size() < 8 ? "" : kv.value.substr(8);
    if (kv.key.empty() || kv.value.size() < 8 || (counts && !IsPositiveDecimal(aggregate))) {
      return Status::Corruption("an unlimited-window aggregate record with a key of " +
                                std::to_string(kv.key.size()) + " bytes and a value of " +
                                std::to_string(kv.value.size()));
    }
    (*out)[std::to_string(start_ms) + ":" + std::to_string(std::numeric_limits<int64_t>::max()) +
           ":" + kv.key] = aggregate + "@" + std::to_string(BigEndianAt(kv.value));
    return Status::Ok();
  });
}

std::string DescribeDifference(const std::map<std::string, std::string>& actual,
                               const std::map<std::string, std::string>& expected) {
  std::string out;
  int shown = 0;
  auto add = [&](const std::string& s) {
    if (++shown <= 5) out += (out.empty() ? "" : "; ") + s;
  };
  for (const auto& [k, v] : actual) {
    auto it = expected.find(k);
    if (it == expected.end()) {
      add("+" + k + "=" + v);
    } else if (it->second != v) {
      add(k + ": " + v + ", expected " + it->second);
    }
  }
  for (const auto& [k, v] : expected) {
    if (!actual.count(k)) add("-" + k + "=" + v);
  }
  if (shown > 5) out += "; and " + std::to_string(shown - 5) + " more";
  return out;
}

}  // namespace statecheck::properties::windowed
