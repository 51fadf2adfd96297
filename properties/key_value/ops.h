// The key-value stores' operation vocabulary, shared by the families that check a KeyValueStore
// (kv_store: the transactional RocksDB store; in_memory_kv: the in-memory store): one operation
// of the KeyValueStore interface (statecheck/key_value_store.h), and its JSON form in a trace
// (docs/traces.md, "Key-value store traces"). Not a family: a vocabulary families build on.
#ifndef STATECHECK_PROPERTIES_KEY_VALUE_OPS_H_
#define STATECHECK_PROPERTIES_KEY_VALUE_OPS_H_

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/kit/json_lines.h"
#include "statecheck/key_value_store.h"
#include "statecheck/status.h"

namespace statecheck::properties::key_value {

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

// A position (input partition → offset) as a trace writes it: {"in-0": 3}.
Json PositionJson(const Position& position);

// {"op": "put", "key": "a", "value": "v0", "context": ["in-0", 3]}, ...: byte strings escaped
// (EscapeBytes), "context" only on writes that carry one.
Json OpToJson(const Op& op);
// Reads OpToJson's form; InvalidArgument naming the field, an unknown op or an unknown key.
Status OpFromJson(const Json& j, Op* op);

}  // namespace statecheck::properties::key_value

#endif  // STATECHECK_PROPERTIES_KEY_VALUE_OPS_H_
