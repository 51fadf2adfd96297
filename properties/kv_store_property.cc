#include "properties/kv_store_property.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <set>
#include <utility>

#include "model/key_value_store_model.h"
#include "model/state_config_model.h"
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/harness_rocksdb.h"
#include "properties/rapidcheck_runner.h"
#include "properties/window_store_ops.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck::properties {
namespace {

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

constexpr const char* kKvOpNames[] = {
    "put",          "delete",     "putIfAbsent", "putAll",     "get",   "range",
    "reverseRange", "prefixScan", "all",         "reverseAll", "iqGet", "iqRange",
    "iqReverseAll", "commit",     "rollback",    "reopen",     "crash"};
static_assert(std::size(kKvOpNames) == static_cast<size_t>(KvOpType::kCrash) + 1,
              "every KvOpType has a name");

bool IsStateChange(KvOpType t) {
  return t == KvOpType::kCommit || t == KvOpType::kRollback || t == KvOpType::kReopen ||
         t == KvOpType::kCrash;
}
bool IsRestart(KvOpType t) { return t == KvOpType::kReopen || t == KvOpType::kCrash; }
bool IsWrite(KvOpType t) {
  return t == KvOpType::kPut || t == KvOpType::kDelete || t == KvOpType::kPutIfAbsent ||
         t == KvOpType::kPutAll;
}
bool IsIqRead(KvOpType t) {
  return t == KvOpType::kIqGet || t == KvOpType::kIqRange || t == KvOpType::kIqReverseAll;
}
bool IsWriterRead(KvOpType t) {
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

Json Bytes(const std::optional<std::string>& s) {
  return s ? Json(EscapeBytes(*s)) : Json(nullptr);
}

std::string KvOpToString(const KvOp& op) {
  Json j;
  j["op"] = kKvOpNames[static_cast<int>(op.type)];
  switch (op.type) {
    case KvOpType::kPut:
      j["key"] = EscapeBytes(op.key);
      j["value"] = Bytes(op.value);
      break;
    case KvOpType::kPutIfAbsent:
      j["key"] = EscapeBytes(op.key);
      j["value"] = Bytes(op.value);
      break;
    case KvOpType::kDelete:
    case KvOpType::kGet:
    case KvOpType::kIqGet:
      j["key"] = EscapeBytes(op.key);
      break;
    case KvOpType::kPrefixScan:
      j["prefix"] = EscapeBytes(op.key);
      break;
    case KvOpType::kPutAll: {
      Json kvs = Json::array();
      for (const auto& [k, v] : op.kvs) kvs.push_back(Json::array({EscapeBytes(k), Bytes(v)}));
      j["kvs"] = std::move(kvs);
      break;
    }
    case KvOpType::kRange:
    case KvOpType::kReverseRange:
    case KvOpType::kIqRange:
      j["from"] = Bytes(op.from);
      j["to"] = Bytes(op.to);
      break;
    case KvOpType::kCommit: {
      Json offsets = Json::object();
      for (const auto& [p, o] : op.offsets) offsets[p] = o ? Json(*o) : Json(nullptr);
      j["offsets"] = std::move(offsets);
      break;
    }
    default:
      break;
  }
  if (op.context) j["context"] = Json::array({op.context->partition, op.context->offset});
  return j.dump();
}

Json PositionJson(const Position& p) {
  Json j = Json::object();
  for (const auto& [k, v] : p) j[k] = v;
  return j;
}

Json StatusJson(const Status& s) { return Json{{"status", std::string(CodeName(s.code()))}}; }

Json Drain(const Status& s, std::unique_ptr<KeyValueIterator> it) {
  Json j = StatusJson(s);
  if (!s.ok()) return j;
  Json records = Json::array();
  KeyValue kv;
  while (it->HasNext()) {
    const Status n = it->Next(&kv);
    if (!n.ok()) {
      records.push_back(StatusJson(n));
      break;
    }
    records.push_back(Json::array({EscapeBytes(kv.key), EscapeBytes(kv.value)}));
  }
  j["records"] = std::move(records);
  return j;
}

// Restarts a store: after Close (crash = false) or Abandon (crash = true); tells whether the
// restarted store found a clean shutdown.
using Restart = std::function<Status(bool crash, std::unique_ptr<KeyValueStore>*, bool* clean)>;

// One side of the comparison: a store, its query view, and how to restart it.
class KvSide {
 public:
  KvSide(std::unique_ptr<KeyValueStore> store, Restart reopen)
      : store_(std::move(store)), reopen_(std::move(reopen)) {
    OpenViews();
  }

  KeyValueStore* store() const { return store_.get(); }

  // The op's own result; after a commit, rollback or restart, a "probe" of the whole state as
  // the writer and a fresh IQ reader see it (so that a step that corrupts the state is caught
  // at that step, and credited to its rule); and "after": the bytes, positions and offsets.
  Json Step(const KvOp& op) {
    Json j = Apply(op);
    if (IsStateChange(op.type) && store_) j["probe"] = Probe();
    Json after;
    if (store_) {
      after["uncommitted_bytes"] = store_->ApproximateNumUncommittedBytes();
      after["uncommitted_position"] = PositionJson(store_->UncommittedPosition());
      after["committed_position"] = PositionJson(store_->CommittedPosition());
      Json offsets = Json::object();
      for (const char* p : {"cl-0", "cl-1"}) {
        auto o = store_->CommittedOffset(p);
        offsets[p] = o ? Json(*o) : Json(nullptr);
      }
      after["offsets"] = std::move(offsets);
    }
    j["after"] = std::move(after);
    return j;
  }

 private:
  Json Apply(const KvOp& op) {
    if (!store_) return Json{{"status", "no store"}};
    const RecordContext* ctx = op.context ? &*op.context : nullptr;
    auto bound = [](const std::optional<std::string>& b) {
      return b ? std::optional<std::string_view>(*b) : std::nullopt;
    };
    std::unique_ptr<KeyValueIterator> it;
    switch (op.type) {
      case KvOpType::kPut:
        return StatusJson(store_->Put(
            op.key, op.value ? std::optional<std::string_view>(*op.value) : std::nullopt, ctx));
      case KvOpType::kDelete: {
        std::optional<std::string> old;
        const Status s = store_->Delete(op.key, &old, ctx);
        Json j = StatusJson(s);
        if (s.ok()) j["old"] = Bytes(old);
        return j;
      }
      case KvOpType::kPutIfAbsent: {
        std::optional<std::string> existing;
        const Status s = store_->PutIfAbsent(op.key, *op.value, &existing, ctx);
        Json j = StatusJson(s);
        if (s.ok()) j["existing"] = Bytes(existing);
        return j;
      }
      case KvOpType::kPutAll:
        return StatusJson(store_->PutAll(op.kvs, ctx));
      case KvOpType::kGet:
      case KvOpType::kIqGet: {
        std::optional<std::string> v;
        const bool iq = op.type == KvOpType::kIqGet;
        const Status s = iq ? view_->Get(op.key, &v) : store_->Get(op.key, &v);
        Json j = StatusJson(s);
        if (s.ok()) j["value"] = Bytes(v);
        if (iq) j["position"] = PositionJson(view_->LastReadPosition());
        return j;
      }
      case KvOpType::kRange: {
        const Status s = store_->Range(bound(op.from), bound(op.to), &it);
        return Drain(s, std::move(it));
      }
      case KvOpType::kReverseRange: {
        const Status s = store_->ReverseRange(bound(op.from), bound(op.to), &it);
        return Drain(s, std::move(it));
      }
      case KvOpType::kPrefixScan: {
        const Status s = store_->PrefixScan(op.key, &it);
        return Drain(s, std::move(it));
      }
      case KvOpType::kAll: {
        const Status s = store_->All(&it);
        return Drain(s, std::move(it));
      }
      case KvOpType::kReverseAll: {
        const Status s = store_->ReverseAll(&it);
        return Drain(s, std::move(it));
      }
      case KvOpType::kIqRange: {
        const Status s = view_->Range(bound(op.from), bound(op.to), &it);
        Json j = Drain(s, std::move(it));
        j["position"] = PositionJson(view_->LastReadPosition());
        return j;
      }
      case KvOpType::kIqReverseAll: {
        const Status s = view_->ReverseAll(&it);
        Json j = Drain(s, std::move(it));
        j["position"] = PositionJson(view_->LastReadPosition());
        return j;
      }
      case KvOpType::kCommit:
        return StatusJson(store_->Commit(op.offsets));
      case KvOpType::kRollback:
        return StatusJson(store_->Rollback());
      case KvOpType::kReopen:
      case KvOpType::kCrash: {
        view_.reset();
        probe_view_.reset();
        bool clean = false;
        const Status s = reopen_(op.type == KvOpType::kCrash, &store_, &clean);
        OpenViews();
        Json j = StatusJson(s);
        if (s.ok()) j["clean"] = clean;
        return j;
      }
    }
    return Json::object();
  }

  void OpenViews() {
    if (!store_) return;
    view_ = store_->NewQueryView();
    probe_view_ = store_->NewQueryView();
  }

  Json Probe() {
    std::unique_ptr<KeyValueIterator> it;
    Json j;
    Status s = store_->All(&it);
    j["writer"] = Drain(s, std::move(it));
    s = probe_view_->All(&it);
    j["iq"] = Drain(s, std::move(it));
    j["iq"]["position"] = PositionJson(probe_view_->LastReadPosition());
    return j;
  }

  std::unique_ptr<KeyValueStore> store_;
  Restart reopen_;
  std::shared_ptr<QueryView> view_;
  std::shared_ptr<QueryView> probe_view_;  // The probe's own reader: view_'s position is the op's.
};

// What the generator knows of the store: enough to aim reads and deletes at keys that have a
// committed value, a buffered write, or both (where read-your-writes, isolation and rollback
// have something to tell apart), instead of at random keys of the pool.
struct GenState {
  bool buffered = false;
  int64_t next_offset = 0;
  std::set<std::string> committed;          // Keys with a committed (or direct) value.
  std::map<std::string, bool> pending;      // Buffered since the last commit: a value?
  std::optional<std::string> last_written;  // The key of the last single-key write.
};

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

struct Sut {
  std::unique_ptr<KvSide> store;
  std::unique_ptr<KvSide> model;
  model::KeyValueStoreModel* model_store = nullptr;           // Owned by `model`.
  IsolationLevel isolation = IsolationLevel::kReadCommitted;  // Effective (the T1 row's).
  std::string t1_situation;  // "T1.<row>": this configuration's row of the T1 table.
  CaseHistory history;
  int64_t* operations;
  int steps = 0;
};

// ---------------------------------------------------------------------------------------------
// Situations: which ones a step is in, from the model's state before it.

// "T1.<row>": the row of the T1 table a configuration is (processing guarantee x the isolation
// level the user set).
std::string T1Situation(const std::map<std::string, std::string>& props) {
  auto get = [&](const char* key) {
    auto it = props.find(key);
    return it == props.end() ? std::string() : it->second;
  };
  const std::string guarantee = get("processing.guarantee");
  const std::string isolation = get("default.state.isolation.level");
  const bool eos = !guarantee.empty() && guarantee != "at_least_once";
  const std::string level = isolation.empty()               ? "unset"
                            : isolation == "READ_COMMITTED" ? "read_committed"
                                                            : "read_uncommitted";
  return std::string("T1.") + (eos ? "eos_" : "alos_") + level;
}

using Snapshot = model::KeyValueStoreModelSnapshot;

std::optional<std::string> Find(const std::map<std::string, std::string>& m,
                                const std::string& key) {
  auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

// The writer's view: pending merged over committed.
std::optional<std::string> WriterValue(const Snapshot& s, const std::string& key) {
  auto p = s.pending.find(key);
  if (p != s.pending.end()) return p->second;
  return Find(s.committed, key);
}

// Whether a range read `op` selects `key`.
bool Selects(const KvOp& op, const std::string& key) {
  switch (op.type) {
    case KvOpType::kRange:
    case KvOpType::kReverseRange:
    case KvOpType::kIqRange:
      return (!op.from || key >= *op.from) && (!op.to || key <= *op.to);
    case KvOpType::kPrefixScan:
      return key.starts_with(op.key);
    case KvOpType::kAll:
    case KvOpType::kReverseAll:
    case KvOpType::kIqReverseAll:
      return true;
    case KvOpType::kGet:
    case KvOpType::kIqGet:
      return key == op.key;
    default:
      return false;
  }
}

// The keys op writes and the values it writes (nullopt: a delete), given the writer's view
// before it; a PutIfAbsent that finds a value writes nothing.
std::vector<std::pair<std::string, std::optional<std::string>>> WritesOf(const KvOp& op,
                                                                         const Snapshot& b) {
  switch (op.type) {
    case KvOpType::kPut:
      return {{op.key, op.value}};
    case KvOpType::kDelete:
      return {{op.key, std::nullopt}};
    case KvOpType::kPutIfAbsent:
      if (WriterValue(b, op.key)) return {};
      return {{op.key, op.value}};
    case KvOpType::kPutAll:
      return op.kvs;
    default:
      return {};
  }
}

// The situations of T1, T3–T9 that `op` is in; they count once the step's comparison held.
std::vector<std::string> SituationsOf(const KvOp& op, const Snapshot& b, const Sut& sut) {
  std::vector<std::string> out;
  auto add = [&](bool cond, const char* name) {
    if (cond) out.emplace_back(name);
  };
  const bool rc = sut.isolation == IsolationLevel::kReadCommitted;
  const CaseHistory& h = sut.history;
  const bool positions_differ = b.uncommitted_position != b.committed_position;
  // A pending (buffered) write in op's selection: with a value other than the committed one,
  // or a delete hiding a committed value.
  bool buffered_value = false, buffered_delete_of_committed = false, committed_unbuffered = false;
  for (const auto& [key, value] : b.pending) {
    if (!Selects(op, key)) continue;
    if (value && value != Find(b.committed, key)) buffered_value = true;
    if (!value && b.committed.contains(key)) buffered_delete_of_committed = true;
  }
  for (const auto& [key, value] : b.committed) {
    if (Selects(op, key) && !b.pending.contains(key)) committed_unbuffered = true;
  }
  // Direct (READ_UNCOMMITTED) writes in op's selection that no commit covers yet.
  bool direct_value = false, direct_delete = false;
  for (const auto& [key, value] : h.written_since_commit) {
    if (!Selects(op, key)) continue;
    (value ? direct_value : direct_delete) = true;
  }

  if (IsIqRead(op.type)) {
    // T1: the row's effective level decides what this read sees of uncommitted writes.
    add(rc ? !b.pending.empty() : !h.written_since_commit.empty(), sut.t1_situation.c_str());
    if (rc) {
      add(op.type == KvOpType::kIqGet && buffered_value, "T4.iq_get_with_buffered_write");
      add(buffered_delete_of_committed, "T4.iq_hides_buffered_delete");
      add(op.type != KvOpType::kIqGet && buffered_value, "T4.iq_range_with_buffer");
      add(positions_differ, "T8.iq_reports_committed_position");
    } else {
      add(op.type == KvOpType::kIqGet && direct_value, "T3.iq_get_uncommitted_put");
      add(op.type == KvOpType::kIqGet && direct_delete, "T3.iq_get_uncommitted_delete");
      add(op.type != KvOpType::kIqGet && direct_value, "T3.iq_range_uncommitted");
    }
  }
  if (rc && IsWriterRead(op.type)) {
    add(op.type == KvOpType::kGet && buffered_value && b.committed.contains(op.key),
        "T5.get_buffered_put_over_committed");
    add(op.type == KvOpType::kGet && buffered_delete_of_committed,
        "T5.get_buffered_delete_hides_committed");
    const bool mixed = (buffered_value || buffered_delete_of_committed) && committed_unbuffered;
    const bool reverse = op.type == KvOpType::kReverseRange || op.type == KvOpType::kReverseAll;
    add(op.type != KvOpType::kGet && mixed && !reverse, "T5.range_merges_buffer");
    add(mixed && reverse, "T5.reverse_merges_buffer");
  }
  if (IsWrite(op.type)) {
    const auto writes = WritesOf(op, b);
    add(rc && (op.type == KvOpType::kPutIfAbsent || op.type == KvOpType::kDelete) &&
            b.pending.contains(op.key),
        "T5.conditional_write_sees_buffer");
    bool overwrite = false, deletes = false;
    std::set<std::string> seen;
    for (const auto& [key, value] : writes) {
      overwrite = overwrite || b.pending.contains(key) || !seen.insert(key).second;
      deletes = deletes || !value;
    }
    add(rc && overwrite, "T6.buffered_overwrite");
    add(rc && deletes, "T6.buffered_delete_counts_key");
    add(!rc && !writes.empty(), "T6.read_uncommitted_zero");
    add(rc && op.context && (!writes.empty() || op.type == KvOpType::kPutAll),
        "T8.positions_diverge");
  }
  if (op.type == KvOpType::kCommit) {
    add(!b.pending.empty(), "T6.commit_clears_bytes");
    add(positions_differ, "T8.commit_converges");
  }
  if (op.type == KvOpType::kRollback && rc) {
    add(!b.pending.empty(), "T9.rollback_buffered_writes");
    bool deleted_committed = false;
    for (const auto& [key, value] : b.pending) {
      deleted_committed = deleted_committed || (!value && b.committed.contains(key));
    }
    add(deleted_committed, "T9.rollback_buffered_delete");
    add(positions_differ, "T9.rollback_restores_position");
  }
  if (IsRestart(op.type)) {
    const bool crash = op.type == KvOpType::kCrash;
    add(!b.offsets.empty(), "T7.offsets_survive_restart");
    add(!h.cleared_by_empty_map.empty(), "T7.empty_map_clears_offsets");
    add(!h.cleared_by_null.empty(), "T7.null_clears_partition");
    add(crash && !b.committed.empty(), "T7.crash_keeps_last_commit");
    add(crash && !h.committed_since_open, "T7.crash_before_first_commit");
    add(!crash && !rc && !h.written_since_commit.empty(),
        "T7.read_uncommitted_writes_survive_restart");
    add(!b.committed_position.empty(), "T8.position_survives_restart");
    add(crash && rc && !b.pending.empty() && !b.committed.empty(), "T9.crash_with_buffered_writes");
  }
  return out;
}

// What the case did, once a step held.
void Track(const KvOp& op, const Snapshot& b, IsolationLevel isolation, CaseHistory* h) {
  if (IsWrite(op.type)) {
    for (const auto& [key, value] : WritesOf(op, b)) {
      // A delete counts when it hides a value (what an IQ read could then miss).
      if (value || WriterValue(b, key)) h->written_since_commit[key] = value;
    }
  } else if (op.type == KvOpType::kCommit) {
    h->written_since_commit.clear();
    h->committed_since_open = true;
    if (op.offsets.empty()) {
      for (const auto& [partition, offset] : b.offsets) h->cleared_by_empty_map.insert(partition);
    }
    for (const auto& [partition, offset] : op.offsets) {
      if (offset) {
        h->cleared_by_empty_map.erase(partition);
        h->cleared_by_null.erase(partition);
      } else if (b.offsets.contains(partition)) {
        h->cleared_by_null.insert(partition);
      }
    }
  } else if (op.type == KvOpType::kRollback) {
    // Under READ_UNCOMMITTED a rollback is refused and changes nothing.
    if (isolation == IsolationLevel::kReadCommitted) h->written_since_commit.clear();
  } else if (IsRestart(op.type)) {
    *h = CaseHistory{};
  }
}

// ---------------------------------------------------------------------------------------------
// Attribution: the rule a step's difference breaks, from what differs.

Json Without(Json j, std::initializer_list<const char*> keys) {
  if (j.is_object()) {
    for (const char* k : keys) j.erase(k);
  }
  return j;
}

Json Part(const Json& j, const char* key) { return j.contains(key) ? j[key] : Json(); }

Finding Attribute(const KvOp& op, IsolationLevel isolation, const Json& expected,
                  const Json& actual) {
  const bool rc = isolation == IsolationLevel::kReadCommitted;
  const char* visibility = rc ? "T4" : "T3";
  const Json result_e = Without(expected, {"probe", "after"});
  const Json result_a = Without(actual, {"probe", "after"});
  const Json probe_e = Part(expected, "probe"), probe_a = Part(actual, "probe");
  const Json after_e = Part(expected, "after"), after_a = Part(actual, "after");
  auto finding = [](const char* rule, const std::string& what) { return Finding(rule, what); };
  if (result_e != result_a) {
    // Checks: T5 — the writer's reads and conditional writes see its buffer over committed
    if (IsWrite(op.type) || IsWriterRead(op.type)) {
      return finding("T5", "the writer's " + std::string(kKvOpNames[static_cast<int>(op.type)]) +
                               " differs (read-your-writes)");
    }
    if (IsIqRead(op.type)) {
      // Checks: T3, T4 — an IQ read's result: every write (RU) or only committed ones (RC)
      if (Without(result_e, {"position"}) != Without(result_a, {"position"})) {
        return finding(visibility, std::string("the IQ read's result differs (") +
                                       (rc ? "READ_COMMITTED" : "READ_UNCOMMITTED") + ")");
      }
      // Checks: T8 — a READ_COMMITTED IQ read reports the committed position
      return finding("T8", "the IQ read's reported position differs");
    }
    switch (op.type) {
      case KvOpType::kCommit:
        return finding("T7", "the commit's status differs");
      case KvOpType::kRollback:
        return finding("T9", "the rollback's status differs");
      case KvOpType::kReopen:
        return finding("T7", "the restart after a clean close differs (status or open marker)");
      case KvOpType::kCrash:
        // Checks: T7 — the open-status marker: set while open, cleared on clean close
        if (Part(result_e, "clean") != Part(result_a, "clean")) {
          return finding("T7",
                         "the restart after a crash differs in whether it found a clean "
                         "shutdown (the open-status marker)");
        }
        return finding("T9", "the restart after a crash fails");
      default:
        break;
    }
  }
  if (probe_e != probe_a) {
    const bool data =
        Part(probe_e, "writer") != Part(probe_a, "writer") ||
        Without(Part(probe_e, "iq"), {"position"}) != Without(Part(probe_a, "iq"), {"position"});
    switch (op.type) {
      case KvOpType::kCommit:
        if (!data) return finding("T8", "after the commit, an IQ read's position differs");
        if (Without(Part(probe_e, "iq"), {"position"}) !=
            Without(Part(probe_a, "iq"), {"position"})) {
          return finding(visibility, "after the commit, what an IQ reader sees differs");
        }
        return finding("T5", "after the commit, what the writer reads differs");
      case KvOpType::kRollback:
        // Checks: T9 — a rollback leaves exactly the last committed state
        return finding("T9", "after the rollback, the state differs from the last committed one");
      case KvOpType::kReopen:
        if (!data) return finding("T8", "after the restart, an IQ read's position differs");
        return finding("T7", "after a clean close and reopen, the store's data differs");
      case KvOpType::kCrash:
        if (!data) return finding("T8", "after the crash, an IQ read's position differs");
        // Checks: T9 — after a crash the store is its last committed state, not wiped
        return finding("T9", "after a crash, the store is not its last committed state");
      default:
        break;
    }
  }
  const bool rollback = op.type == KvOpType::kRollback;
  // Checks: T6 — approximateNumUncommittedBytes against the model's (0 unbuffered)
  if (Part(after_e, "uncommitted_bytes") != Part(after_a, "uncommitted_bytes")) {
    return rollback ? finding("T9", "after the rollback, the uncommitted bytes differ")
                    : finding("T6", "approximateNumUncommittedBytes differs");
  }
  // Checks: T7 — the changelog offsets committed with the data (clears included)
  if (Part(after_e, "offsets") != Part(after_a, "offsets")) {
    return rollback ? finding("T9", "after the rollback, the committed offsets differ")
                    : finding("T7", "the committed changelog offsets differ");
  }
  if (rollback) return finding("T9", "after the rollback, the positions differ");
  return finding("T8", "the uncommitted or committed position differs");
}

std::string RuleOf(const std::string& situation) {
  return situation.substr(0, situation.find('.'));
}

using Command = rc::state::Command<GenState, Sut>;

rc::Gen<std::string> GenKey() {
  static const auto* pool = new std::vector<std::string>{
      "a", "ab", "b", "", "abc", std::string("\0", 1), "\xff", "a\xff", "c"};
  return rc::gen::elementOf(*pool);
}

rc::Gen<std::string> GenValue() {
  static const auto* pool =
      new std::vector<std::string>{"v0", "v1", "v2", "", "a value longer than a small string"};
  return rc::gen::elementOf(*pool);
}

// A key of the pool, or (often) one the store holds: committed, buffered, or both.
std::string GenTargetKey(const GenState& s) {
  std::vector<std::string> both, committed(s.committed.begin(), s.committed.end()), pending;
  for (const auto& [key, value] : s.pending) {
    pending.push_back(key);
    if (s.committed.contains(key)) both.push_back(key);
  }
  std::vector<std::pair<int, int>> choices = {{3, 0}};
  if (s.last_written) choices.push_back({3, 4});
  if (!both.empty()) choices.push_back({3, 1});
  if (!committed.empty()) choices.push_back({2, 2});
  if (!pending.empty()) choices.push_back({1, 3});
  switch (PickWeighted(choices)) {
    case 1:
      return *rc::gen::elementOf(both);
    case 2:
      return *rc::gen::elementOf(committed);
    case 3:
      return *rc::gen::elementOf(pending);
    case 4:
      return *s.last_written;
    default:
      return *GenKey();
  }
}

rc::Gen<KvOp> GenKvOp(const GenState& s) {
  return rc::gen::exec([s] {
    KvOp op;
    // Weighted: writes and writer reads most, commits often enough to matter.
    static const std::vector<std::pair<int, KvOpType>> kWeights = {
        {20, KvOpType::kPut},         {7, KvOpType::kDelete},     {3, KvOpType::kPutIfAbsent},
        {3, KvOpType::kPutAll},       {8, KvOpType::kGet},        {3, KvOpType::kRange},
        {3, KvOpType::kReverseRange}, {2, KvOpType::kPrefixScan}, {2, KvOpType::kAll},
        {2, KvOpType::kReverseAll},   {6, KvOpType::kIqGet},      {3, KvOpType::kIqRange},
        {1, KvOpType::kIqReverseAll}, {8, KvOpType::kCommit},     {4, KvOpType::kRollback},
        {2, KvOpType::kReopen}};
    op.type = PickWeighted(kWeights);
    // A crash loses direct (READ_UNCOMMITTED) writes not yet flushed, which the model cannot
    // predict: crashes are generated where writes are buffered (T7, T9).
    if (s.buffered && *UniformInRange(0, 25) == 0) op.type = KvOpType::kCrash;
    auto maybe_key = rc::gen::weightedOneOf<std::optional<std::string>>(
        {{1, rc::gen::just(std::optional<std::string>())},
         {3, rc::gen::map(GenKey(), [](std::string k) { return std::optional<std::string>(k); })}});
    switch (op.type) {
      case KvOpType::kPut:
        op.key = GenTargetKey(s);
        op.value = *rc::gen::weightedOneOf<std::optional<std::string>>(
            {{1, rc::gen::just(std::optional<std::string>())},
             {5, rc::gen::map(GenValue(),
                              [](std::string v) { return std::optional<std::string>(v); })}});
        break;
      case KvOpType::kPutIfAbsent:
        op.key = GenTargetKey(s);
        op.value = *GenValue();
        break;
      case KvOpType::kDelete:
      case KvOpType::kGet:
      case KvOpType::kIqGet:
        op.key = GenTargetKey(s);
        break;
      case KvOpType::kPrefixScan:
        op.key = *GenKey();
        break;
      case KvOpType::kPutAll: {
        const int n = *UniformInRange(0, 4);
        for (int i = 0; i < n; ++i) {
          op.kvs.emplace_back(*GenKey(), *rc::gen::weightedOneOf<std::optional<std::string>>(
                                             {{1, rc::gen::just(std::optional<std::string>())},
                                              {3, rc::gen::map(GenValue(), [](std::string v) {
                                                 return std::optional<std::string>(v);
                                               })}}));
        }
        break;
      }
      case KvOpType::kRange:
      case KvOpType::kReverseRange:
      case KvOpType::kIqRange:
        op.from = *maybe_key;
        op.to = *maybe_key;
        break;
      case KvOpType::kCommit: {
        const int n = *UniformInRange(0, 3);
        for (int i = 0; i < n; ++i) {
          const std::string p = *rc::gen::elementOf(std::vector<std::string>{"cl-0", "cl-1"});
          op.offsets[p] = *rc::gen::weightedOneOf<std::optional<int64_t>>(
              {{1, rc::gen::just(std::optional<int64_t>())},
               {4, rc::gen::map(UniformInRange<int64_t>(0, 1000),
                                [](int64_t o) { return std::optional<int64_t>(o); })}});
        }
        break;
      }
      default:
        break;
    }
    const bool write = op.type == KvOpType::kPut || op.type == KvOpType::kDelete ||
                       op.type == KvOpType::kPutIfAbsent || op.type == KvOpType::kPutAll;
    if (write && *UniformInRange(0, 4) != 0) {
      op.context = RecordContext{*rc::gen::elementOf(std::vector<std::string>{"in-0", "in-1"}),
                                 s.next_offset};
    }
    return op;
  });
}

class KvCommand final : public Command {
 public:
  explicit KvCommand(KvOp op) : op_(std::move(op)) {}
  void apply(GenState& s) const override {
    if (op_.context) s.next_offset = op_.context->offset + 1;
    auto write = [&s](const std::string& key, bool value) {
      s.last_written = key;
      if (s.buffered) {
        s.pending[key] = value;
      } else if (value) {
        s.committed.insert(key);
      } else {
        s.committed.erase(key);
      }
    };
    switch (op_.type) {
      case KvOpType::kPut:
        write(op_.key, op_.value.has_value());
        break;
      case KvOpType::kPutIfAbsent:  // Approximately: it may find a value and write nothing.
        write(op_.key, true);
        break;
      case KvOpType::kDelete:
        write(op_.key, false);
        break;
      case KvOpType::kPutAll:
        for (const auto& [key, value] : op_.kvs) write(key, value.has_value());
        break;
      case KvOpType::kCommit:
        for (const auto& [key, value] : s.pending) {
          value ? (void)s.committed.insert(key) : (void)s.committed.erase(key);
        }
        s.pending.clear();
        break;
      case KvOpType::kRollback:
      case KvOpType::kReopen:
      case KvOpType::kCrash:
        s.pending.clear();
        break;
      default:
        break;
    }
  }
  void run(const GenState&, Sut& sut) const override {
    if (op_.type == KvOpType::kCrash) CountCrash(/*power_loss=*/false);
    const Snapshot before = sut.model_store->Snapshot();
    const std::vector<std::string> situations = SituationsOf(op_, before, sut);
    const Json expected = sut.model->Step(op_);
    const Json actual = sut.store->Step(op_);
    ++*sut.operations;
    ++sut.steps;
    if (actual != expected) {
      Finding f = Attribute(op_, sut.isolation, expected, actual);
      f.message = "step " + std::to_string(sut.steps) + ": " + KvOpToString(op_) + ": " +
                  f.message + "\n  model: " + expected.dump() + "\n  store: " + actual.dump();
      Fail(std::move(f));
    }
    // The whole step matched: each situation it was in held its rule's check.
    for (const std::string& situation : situations) {
      Reached(situation);
      Held(RuleOf(situation));
    }
    Track(op_, before, sut.isolation, &sut.history);
  }
  void show(std::ostream& os) const override { os << KvOpToString(op_); }

 private:
  KvOp op_;
};

}  // namespace

std::vector<KvStoreConfig> KvStoreOptionMatrix() {
  struct Row {
    const char* label;
    std::map<std::string, std::string> props;
  };
  const std::vector<Row> rows = {
      {"alos_unset", {}},
      {"alos_ru", {{"default.state.isolation.level", "READ_UNCOMMITTED"}}},
      {"alos_rc", {{"default.state.isolation.level", "READ_COMMITTED"}}},
      {"eos_unset", {{"processing.guarantee", "exactly_once_v2"}}},
      {"eos_ru",
       {{"processing.guarantee", "exactly_once_v2"},
        {"default.state.isolation.level", "READ_UNCOMMITTED"}}},
      {"eos_rc",
       {{"processing.guarantee", "exactly_once_v2"},
        {"default.state.isolation.level", "READ_COMMITTED"}}},
  };
  // Variant-major: the six rows of T1 come first (a short campaign runs the properties in this
  // order, so every row of the table gets cases early), then again with the WAL, then with a
  // tiny write buffer.
  std::vector<KvStoreConfig> out;
  for (const Row& row : rows)
    out.push_back({std::string(row.label) + "_nowal", row.props, false, 0});
  for (const Row& row : rows) out.push_back({std::string(row.label) + "_wal", row.props, true, 0});
  for (const Row& row : rows) {
    out.push_back({std::string(row.label) + "_tinybuffer", row.props, false, 64 << 10});
  }
  return out;
}

namespace {

// The default file system without preallocation: RocksDB fallocates each new WAL file to 1.1 x
// the write buffer (70 MB by default), which is free on a disk's file system and costs a page
// zeroing on a RAM one, ten times a case. Preallocation changes no file's contents.
class NoPreallocationFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  static const char* kClassName() { return "NoPreallocationFileSystem"; }
  const char* Name() const override { return kClassName(); }

  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    return target()->NewWritableFile(fname, Without(options), result, dbg);
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname,
                                       const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override {
    return target()->ReopenWritableFile(fname, Without(options), result, dbg);
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override {
    return target()->ReuseWritableFile(fname, old_fname, Without(options), result, dbg);
  }

 private:
  static rocksdb::FileOptions Without(const rocksdb::FileOptions& options) {
    rocksdb::FileOptions o(options);
    o.allow_fallocate = false;
    return o;
  }
};

// Lives as long as the process: stores may be open until its end.
rocksdb::Env* KvScratchEnv() {
  static rocksdb::Env* const env =
      rocksdb::NewCompositeEnv(
          std::make_shared<NoPreallocationFileSystem>(rocksdb::FileSystem::Default()))
          .release();
  return env;
}

}  // namespace

std::string KvScratchDirectory(const std::string& tag) {
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path root;
  if (const char* dir = std::getenv("STATECHECK_SCRATCH_DIR"); dir && *dir) {
    root = dir;
  } else if (std::error_code ec; std::filesystem::is_directory("/dev/shm", ec) &&
                                 ::access("/dev/shm", W_OK | X_OK) == 0) {
    root = "/dev/shm";
  } else {
    root = std::filesystem::temp_directory_path();
  }
  return (root / ("statecheck-" + tag + "-" + std::to_string(::getpid()) + "-" +
                  std::to_string(counter++)))
      .string();
}

KvStoreFactory EngineKvStoreFactory() {
  return [](const std::string& directory, IsolationLevel isolation, const KvStoreConfig& config,
            std::unique_ptr<KeyValueStore>* store) {
    RocksDBStoreOptions o;
    o.name = "kv";
    o.directory = directory;
    o.isolation = isolation;
    o.use_wal = config.use_wal;
    o.write_buffer_size = config.write_buffer_size;
    o.env = KvScratchEnv();
    o.logger = NullLogger();
    o.config_setter = HarnessRocksDBConfig();
    std::unique_ptr<RocksDBStore> s;
    STATECHECK_RETURN_IF_ERROR(OpenRocksDBStore(o, &s));
    *store = std::move(s);
    return Status::Ok();
  };
}

PropertyOutcome CheckKvStoreMatchesModel(const KvStoreFactory& sut, const KvStoreConfig& config,
                                         const PropertyParams& params) {
  PropertyOutcome out;
  out.property = "kv_store/MatchesModel/" + config.label;
  StateConfig resolved;
  const Status r = ResolveStateConfig(config.streams_config, &resolved);
  if (!r.ok()) {
    out.message = "configuration: " + r.ToString();
    return out;
  }
  // T1: the engine's row against the table's; the model runs the table's.
  model::T1Row row;
  std::string problem;
  if (!model::ExpectedT1Row(config.streams_config, &row, &problem)) {
    out.message = "configuration: T1 has no row for " + problem;
    return out;
  }
  // Checks: T1 — the engine's resolution of the configuration against T1's table row
  if (const CheckResult diff = model::CompareT1Row(config.streams_config, resolved, row)) {
    out.rule = diff->rule;
    out.message = diff->ToString();
    return out;
  }
  auto property = [&] {
    const CaseScope scope;
    const std::string dir = KvScratchDirectory("kv");
    std::filesystem::remove_all(dir);
    Sut s;
    s.operations = &out.operations;
    std::unique_ptr<KeyValueStore> store;
    const Status opened = sut(dir, resolved.isolation, config, &store);
    if (!opened.ok()) Fail(Finding("T7", "the store could not be opened: " + opened.ToString()));
    s.store = std::make_unique<KvSide>(
        std::move(store), [&sut, dir, &resolved, &config](
                              bool crash, std::unique_ptr<KeyValueStore>* st, bool* clean) {
          crash ? (*st)->Abandon() : (*st)->Close();
          st->reset();
          STATECHECK_RETURN_IF_ERROR(sut(dir, resolved.isolation, config, st));
          auto* rocks = dynamic_cast<RocksDBStore*>(st->get());
          *clean = rocks ? rocks->was_closed_cleanly() : !crash;
          return Status::Ok();
        });
    std::unique_ptr<KeyValueStore> model_store = model::NewKeyValueStoreModel("kv", row.isolation);
    s.model_store = static_cast<model::KeyValueStoreModel*>(model_store.get());
    s.isolation = row.isolation;
    s.t1_situation = T1Situation(config.streams_config);
    s.model = std::make_unique<KvSide>(
        std::move(model_store), [](bool crash, std::unique_ptr<KeyValueStore>* st, bool* clean) {
          auto* m = static_cast<model::KeyValueStoreModel*>(st->get());
          crash ? m->Abandon() : m->Close();
          m->Reopen();
          *clean = m->was_closed_cleanly();
          return Status::Ok();
        });
    GenState initial;
    initial.buffered = row.buffer_writes;
    struct Cleanup {
      std::string dir;
      Sut* sut;
      ~Cleanup() {
        sut->store.reset();
        std::filesystem::remove_all(dir);
      }
    } cleanup{dir, &s};
    rc::state::check(initial, s, [](const GenState& state) {
      return rc::gen::map(GenKvOp(state), [](KvOp op) {
        return std::shared_ptr<const Command>(std::make_shared<KvCommand>(std::move(op)));
      });
    });
  };
  RunProperty(property, params, &out);
  return out;
}

}  // namespace statecheck::properties
