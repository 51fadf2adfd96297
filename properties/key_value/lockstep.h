// Checking a KeyValueStore against the key-value model in lockstep (SPEC T3–T9), for the
// families whose store implements statecheck/key_value_store.h (kv_store, in_memory_kv): each
// step's result (the call's own, a probe of the whole state after a commit, rollback or restart,
// and the store's bytes, positions and offsets) compared with the model's and, in a replay, with
// the trace's expectation; a difference is credited to the rule it breaks (attribution.h). And
// the generator's state, its operations and its next state. A vocabulary families build on, not a
// family.
#ifndef STATECHECK_PROPERTIES_KEY_VALUE_LOCKSTEP_H_
#define STATECHECK_PROPERTIES_KEY_VALUE_LOCKSTEP_H_

#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "model/key_value_store_model.h"
#include "properties/key_value/attribution.h"
#include "properties/key_value/ops.h"
#include "properties/kit/family.h"
#include "statecheck/key_value_store.h"

namespace statecheck::properties::key_value {

// Restarts a store: after Close (crash = false) or Abandon (crash = true); tells whether the
// restarted store found a clean shutdown.
using Restart = std::function<Status(bool crash, std::unique_ptr<KeyValueStore>*, bool* clean)>;

class Side;

// One case's system under test (kit/family.h's Sut): the store (absent when a trace replays
// against the model alone) and the model (absent against the store alone), stepped together.
class Lockstep {
 public:
  // `dir` (removed at the end; "" for none) holds the store's files; `isolation` is the level
  // the model runs at; `t1_situation` the configuration's T1 row ("T1.eos_rc"; "" for a store
  // outside the T1 table).
  Lockstep(std::string dir, IsolationLevel isolation, std::string t1_situation);
  ~Lockstep();
  Lockstep(const Lockstep&) = delete;
  Lockstep& operator=(const Lockstep&) = delete;

  void SetStore(std::unique_ptr<KeyValueStore> store, Restart restart);
  // The model, at `isolation`, of a persistent store (restarted, it keeps what a close left) or
  // of an in-memory one; `durable_commits` for a store whose every commit is durable when it
  // returns (a synced WAL): otherwise a crash may go back to any commit since the last durable
  // one (C7), and the restart is judged against the one the store shows.
  void SetModel(IsolationLevel isolation, bool persistent = true, bool durable_commits = false);

  kit::StepResult Step(const Op& op, const std::optional<Json>& expect);

 private:
  // A crash's restart: how many commits before the last the store came back at (C7), tried on
  // copies of the model: the first whose step `shows` says is the one; 0 (the last) if none.
  size_t CommitsBack(const Op& op, const std::function<bool(const Json&)>& shows) const;

  std::string dir_;
  IsolationLevel isolation_;
  std::string t1_situation_;
  std::unique_ptr<Side> store_;
  std::unique_ptr<Side> model_;
  model::KeyValueStoreModel* model_store_ = nullptr;  // Owned by `model_`.
  size_t commits_back_ = 0;  // Where the model's next crash restart goes back to (C7).
  CaseHistory history_;
};

// What the generator knows of the store: enough to aim reads and deletes at keys that have a
// committed value, a buffered write, or both (where read-your-writes, isolation and rollback
// have something to tell apart), instead of at random keys of the pool.
struct GenState {
  bool buffered = false;  // Writes are buffered until a commit (READ_COMMITTED).
  bool restarts = true;   // The store reopens and survives crashes (a persistent store).
  int64_t next_offset = 0;
  std::set<std::string> committed;          // Keys with a committed (or direct) value.
  std::map<std::string, bool> pending;      // Buffered since the last commit: a value?
  std::optional<std::string> last_written;  // The key of the last single-key write.
};

// An operation: writes and writer reads most, commits often enough to matter, interactive
// queries, rollbacks, and (with restarts) clean reopens and, where writes are buffered, crashes.
rc::Gen<Op> GenOp(const GenState& s);
// The generator's state after `op`.
void Next(GenState& s, const Op& op);

}  // namespace statecheck::properties::key_value

#endif  // STATECHECK_PROPERTIES_KEY_VALUE_LOCKSTEP_H_
