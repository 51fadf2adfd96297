// The in-memory key-value store family's vocabulary (kit/trace.h): its configuration, and the
// key-value operations (key_value/ops.h) but the restarts — an in-memory store keeps nothing
// across a close — as the JSON of an in_memory_kv trace (docs/traces.md).
#ifndef STATECHECK_PROPERTIES_IN_MEMORY_KV_OPS_H_
#define STATECHECK_PROPERTIES_IN_MEMORY_KV_OPS_H_

#include <string>
#include <string_view>

#include "properties/key_value/ops.h"
#include "properties/kit/json_lines.h"
#include "statecheck/status.h"

namespace statecheck::properties::in_memory_kv {

using key_value::Op;
using key_value::OpType;

// The store has no options: a configuration is its name in reports.
struct Config {
  std::string label = "default";
};

struct Vocabulary {
  static constexpr std::string_view kKind = "in_memory_kv";
  using Config = in_memory_kv::Config;
  using Op = in_memory_kv::Op;
  // {"label": "default"}.
  static Json ConfigToJson(const Config& config);
  static Status ConfigFromJson(const Json& j, Config* config);
  static Json OpToJson(const Op& op) { return key_value::OpToJson(op); }
  // key_value::OpFromJson's, refusing reopen and crash.
  static Status OpFromJson(const Json& j, Op* op);
};

}  // namespace statecheck::properties::in_memory_kv

#endif  // STATECHECK_PROPERTIES_IN_MEMORY_KV_OPS_H_
