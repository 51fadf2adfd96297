// The key-value store property's operations, and the situations and attribution of a step
// (kv_store_property.h): what a step reached once it held, and the rule a differing step breaks.
#ifndef STATECHECK_PROPERTIES_KV_STORE_ATTRIBUTION_H_
#define STATECHECK_PROPERTIES_KV_STORE_ATTRIBUTION_H_

#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/key_value_store_model.h"
#include "properties/evidence.h"
#include "properties/window_store_ops.h"
#include "statecheck/key_value_store.h"

namespace statecheck::properties::kv_store {

enum class KvOpType {
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

inline constexpr const char* kKvOpNames[] = {
    "put",          "delete",     "putIfAbsent", "putAll",     "get",   "range",
    "reverseRange", "prefixScan", "all",         "reverseAll", "iqGet", "iqRange",
    "iqReverseAll", "commit",     "rollback",    "reopen",     "crash"};
static_assert(std::size(kKvOpNames) == static_cast<size_t>(KvOpType::kCrash) + 1,
              "every KvOpType has a name");

inline bool IsStateChange(KvOpType t) {
  return t == KvOpType::kCommit || t == KvOpType::kRollback || t == KvOpType::kReopen ||
         t == KvOpType::kCrash;
}
inline bool IsRestart(KvOpType t) { return t == KvOpType::kReopen || t == KvOpType::kCrash; }
inline bool IsWrite(KvOpType t) {
  return t == KvOpType::kPut || t == KvOpType::kDelete || t == KvOpType::kPutIfAbsent ||
         t == KvOpType::kPutAll;
}
inline bool IsIqRead(KvOpType t) {
  return t == KvOpType::kIqGet || t == KvOpType::kIqRange || t == KvOpType::kIqReverseAll;
}
inline bool IsWriterRead(KvOpType t) {
  return t == KvOpType::kGet || t == KvOpType::kRange || t == KvOpType::kReverseRange ||
         t == KvOpType::kPrefixScan || t == KvOpType::kAll || t == KvOpType::kReverseAll;
}

struct KvOp {
  KvOpType type = KvOpType::kGet;
  std::string key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> kvs;
  std::optional<std::string> from, to;
  ChangelogOffsets offsets;
  std::optional<RecordContext> context;
};

using Snapshot = model::KeyValueStoreModelSnapshot;

// What a case did so far that the model's state alone does not tell: the tracker behind the
// situations (evidence.h) a step reaches.
struct CaseHistory {
  // The writes since the last commit, rollback or restart, by key: the value, or nullopt for a
  // delete of a key that had one. Under READ_UNCOMMITTED these are the direct writes no commit
  // has covered yet (the model's pending is empty there).
  std::map<std::string, std::optional<std::string>> written_since_commit;
  bool committed_since_open = false;
  // The stored offsets a commit({}) or a commit's null offset cleared since the restart, and
  // that no commit has set again: the next restart must not bring them back.
  std::set<std::string> cleared_by_empty_map;
  std::set<std::string> cleared_by_null;
};

// "T1.<row>": the row of the T1 table a configuration is (processing guarantee x the isolation
// level the user set).
std::string T1Situation(const std::map<std::string, std::string>& props);
// The situations of T1, T3–T9 that `op` is in, from the model's state `b` before it, the
// effective isolation level, the configuration's T1 situation and what the case did so far.
std::vector<std::string> SituationsOf(const KvOp& op, const Snapshot& b, IsolationLevel isolation,
                                      const std::string& t1_situation, const CaseHistory& h);
// What the case did, once a step held.
void Track(const KvOp& op, const Snapshot& b, IsolationLevel isolation, CaseHistory* h);
// The rule a situation belongs to: "T5" of "T5.range_merges_buffer".
std::string RuleOf(const std::string& situation);

// The rule a step's difference breaks, from what differs between the model's step result
// (`expected`) and the store's (`actual`).
Finding Attribute(const KvOp& op, IsolationLevel isolation, const Json& expected,
                  const Json& actual);

}  // namespace statecheck::properties::kv_store

#endif  // STATECHECK_PROPERTIES_KV_STORE_ATTRIBUTION_H_
