// The transactional key-value store family's vocabulary (kit/trace.h): its configurations, its
// operations, and both as the JSON of a kv_store trace (docs/traces.md).
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

enum class OpType {
  kPut,
  kDelete,
  kPutIfAbsent,
  kPutAll,
  kGet,
  kRange,
  kReverseRange,
  kPrefixScan,
  kAll,
  kReverseAll,
  kIqGet,
  kIqRange,
  kIqReverseAll,
  kCommit,
  kRollback,
  kReopen,  // Close, then open again.
  kCrash,   // Abandon (a crash: no commit, no clean shutdown), then open again.
};

inline constexpr const char* kOpNames[] = {
    "put",          "delete",     "putIfAbsent", "putAll",     "get",   "range",
    "reverseRange", "prefixScan", "all",         "reverseAll", "iqGet", "iqRange",
    "iqReverseAll", "commit",     "rollback",    "reopen",     "crash"};
static_assert(std::size(kOpNames) == static_cast<size_t>(OpType::kCrash) + 1,
              "every OpType has a name");

inline bool IsStateChange(OpType t) {
  return t == OpType::kCommit || t == OpType::kRollback || t == OpType::kReopen ||
         t == OpType::kCrash;
}
inline bool IsRestart(OpType t) { return t == OpType::kReopen || t == OpType::kCrash; }
inline bool IsWrite(OpType t) {
  return t == OpType::kPut || t == OpType::kDelete || t == OpType::kPutIfAbsent ||
         t == OpType::kPutAll;
}
inline bool IsIqRead(OpType t) {
  return t == OpType::kIqGet || t == OpType::kIqRange || t == OpType::kIqReverseAll;
}
inline bool IsWriterRead(OpType t) {
  return t == OpType::kGet || t == OpType::kRange || t == OpType::kReverseRange ||
         t == OpType::kPrefixScan || t == OpType::kAll || t == OpType::kReverseAll;
}

struct Op {
  OpType type = OpType::kGet;
  std::string key;                   // put, delete, putIfAbsent, get, iqGet; prefixScan's prefix.
  std::optional<std::string> value;  // put (null deletes), putIfAbsent.
  std::vector<std::pair<std::string, std::optional<std::string>>> kvs;  // putAll.
  std::optional<std::string> from, to;   // Range reads; absent = unbounded.
  ChangelogOffsets offsets;              // commit.
  std::optional<RecordContext> context;  // Writes: the input record they came from.
};

struct Vocabulary {
  static constexpr std::string_view kKind = "kv_store";
  using Config = kv_store::Config;
  using Op = kv_store::Op;
  // {"label", "streams_config": {T1 keys}, "use_wal", "write_buffer_size"}.
  static Json ConfigToJson(const Config& config);
  static Status ConfigFromJson(const Json& j, Config* config);
  // {"op": "put", "key": "a", "value": "v0", "context": ["in-0", 3]}, ...: byte strings escaped
  // (EscapeBytes), "context" only on writes that carry one.
  static Json OpToJson(const Op& op);
  static Status OpFromJson(const Json& j, Op* op);
};

}  // namespace statecheck::properties::kv_store

#endif  // STATECHECK_PROPERTIES_KV_STORE_OPS_H_
