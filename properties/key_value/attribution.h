// The key-value families' situations and attribution of a step (lockstep.h): what a step
// reached once it held, and the rule a differing step breaks.
#ifndef STATECHECK_PROPERTIES_KEY_VALUE_ATTRIBUTION_H_
#define STATECHECK_PROPERTIES_KEY_VALUE_ATTRIBUTION_H_

#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/key_value_store_model.h"
#include "properties/evidence.h"
#include "properties/key_value/ops.h"
#include "statecheck/key_value_store.h"

namespace statecheck::properties::key_value {

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
std::vector<std::string> SituationsOf(const Op& op, const Snapshot& b, IsolationLevel isolation,
                                      const std::string& t1_situation, const CaseHistory& h);
// What the case did, once a step held.
void Track(const Op& op, const Snapshot& b, IsolationLevel isolation, CaseHistory* h);
// The rule a situation belongs to: "T5" of "T5.range_merges_buffer".
std::string RuleOf(const std::string& situation);

// The rule a step's difference breaks, from what differs between the model's step result
// (`expected`) and the store's (`actual`).
Finding Attribute(const Op& op, IsolationLevel isolation, const Json& expected, const Json& actual);

}  // namespace statecheck::properties::key_value

#endif  // STATECHECK_PROPERTIES_KEY_VALUE_ATTRIBUTION_H_
