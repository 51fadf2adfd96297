// The transactional key-value store family's vocabulary (kit/trace.h): its configurations, and
// the key-value operations (key_value/ops.h), as the JSON of a kv_store trace (docs/traces.md).
#ifndef STATECHECK_PROPERTIES_KV_STORE_OPS_H_
#define STATECHECK_PROPERTIES_KV_STORE_OPS_H_

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/key_value/ops.h"
#include "properties/kit/json_lines.h"
#include "statecheck/key_value_store.h"
#include "statecheck/status.h"

namespace statecheck::properties::kv_store {

// One point of the option matrix: a row of the T1 table and a RocksDB variant.
struct Config {
  std::string label;  // e.g. "eos_unset_nowal": test names and report ids.
  std::map<std::string, std::string> streams_config;  // The T1 keys.
  bool use_wal = false;
  int64_t write_buffer_size = 0;  // 0 = RocksDB's default; small = flushes mid-run.
};

using key_value::Op;
using key_value::OpType;

struct Vocabulary {
  static constexpr std::string_view kKind = "kv_store";
  using Config = kv_store::Config;
  using Op = kv_store::Op;
  // {"label", "streams_config": {T1 keys}, "use_wal", "write_buffer_size"}.
  static Json ConfigToJson(const Config& config);
  static Status ConfigFromJson(const Json& j, Config* config);
  // The key-value vocabulary's (key_value/ops.h).
  static Json OpToJson(const Op& op) { return key_value::OpToJson(op); }
  static Status OpFromJson(const Json& j, Op* op) { return key_value::OpFromJson(j, op); }
};

}  // namespace statecheck::properties::kv_store

#endif  // STATECHECK_PROPERTIES_KV_STORE_OPS_H_
