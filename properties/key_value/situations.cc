// The key-value store property's situations (attribution.h): which ones a step is in,
// from the model's state before it, and what the case did once a step held.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/key_value/attribution.h"

namespace statecheck::properties::key_value {

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

namespace {

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
bool Selects(const Op& op, const std::string& key) {
  switch (op.type) {
    case OpType::kRange:
    case OpType::kReverseRange:
    case OpType::kIqRange:
      return (!op.from || key >= *op.from) && (!op.to || key <= *op.to);
    case OpType::kPrefixScan:
      return key.starts_with(op.key);
    case OpType::kAll:
    case OpType::kReverseAll:
    case OpType::kIqReverseAll:
      return true;
    case OpType::kGet:
    case OpType::kIqGet:
      return key == op.key;
    default:
      return false;
  }
}

// The keys op writes and the values it writes (nullopt: a delete), given the writer's view
// before it; a PutIfAbsent that finds a value writes nothing.
std::vector<std::pair<std::string, std::optional<std::string>>> WritesOf(const Op& op,
                                                                         const Snapshot& b) {
  switch (op.type) {
    case OpType::kPut:
      return {{op.key, op.value}};
    case OpType::kDelete:
      return {{op.key, std::nullopt}};
    case OpType::kPutIfAbsent:
      if (WriterValue(b, op.key)) return {};
      return {{op.key, op.value}};
    case OpType::kPutAll:
      return op.kvs;
    default:
      return {};
  }
}

// The situations of a commit, a rollback or a restart (T6–T9) `op` is in, appended to `out`.
void AddStateChangeSituations(const Op& op, const Snapshot& b, bool rc, const CaseHistory& h,
                              std::vector<std::string>* out) {
  auto add = [&](bool cond, const char* name) {
    if (cond) out->emplace_back(name);
  };
  const bool positions_differ = b.uncommitted_position != b.committed_position;
  if (op.type == OpType::kCommit) {
    add(!b.pending.empty(), "T6.commit_clears_bytes");
    add(positions_differ, "T8.commit_converges");
  }
  if (op.type == OpType::kRollback && rc) {
    add(!b.pending.empty(), "T9.rollback_buffered_writes");
    bool deleted_committed = false;
    for (const auto& [key, value] : b.pending) {
      deleted_committed = deleted_committed || (!value && b.committed.contains(key));
    }
    add(deleted_committed, "T9.rollback_buffered_delete");
    add(positions_differ, "T9.rollback_restores_position");
  }
  if (IsRestart(op.type)) {
    const bool crash = op.type == OpType::kCrash;
    add(!b.offsets.empty(), "T7.offsets_survive_restart");
    add(!h.cleared_by_empty_map.empty(), "T7.empty_map_clears_offsets");
    add(!h.cleared_by_null.empty(), "T7.null_clears_partition");
    add(crash && !b.committed.empty(), "T7.crash_keeps_a_whole_commit");
    add(crash && !h.committed_since_open, "T7.crash_before_first_commit");
    add(!crash && !rc && !h.written_since_commit.empty(),
        "T7.read_uncommitted_writes_survive_restart");
    add(!b.committed_position.empty(), "T8.position_survives_restart");
    add(crash && rc && !b.pending.empty() && !b.committed.empty(), "T9.crash_with_buffered_writes");
  }
}

}  // namespace

// The situations of T1, T3–T9 that `op` is in; they count once the step's comparison held.
std::vector<std::string> SituationsOf(const Op& op, const Snapshot& b, IsolationLevel isolation,
                                      const std::string& t1_situation, const CaseHistory& h) {
  std::vector<std::string> out;
  auto add = [&](bool cond, const char* name) {
    if (cond) out.emplace_back(name);
  };
  const bool rc = isolation == IsolationLevel::kReadCommitted;
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
    add(!t1_situation.empty() && (rc ? !b.pending.empty() : !h.written_since_commit.empty()),
        t1_situation.c_str());
    if (rc) {
      add(op.type == OpType::kIqGet && buffered_value, "T4.iq_get_with_buffered_write");
      add(buffered_delete_of_committed, "T4.iq_hides_buffered_delete");
      add(op.type != OpType::kIqGet && buffered_value, "T4.iq_range_with_buffer");
      add(positions_differ, "T8.iq_reports_committed_position");
    } else {
      add(op.type == OpType::kIqGet && direct_value, "T3.iq_get_uncommitted_put");
      add(op.type == OpType::kIqGet && direct_delete, "T3.iq_get_uncommitted_delete");
      add(op.type != OpType::kIqGet && direct_value, "T3.iq_range_uncommitted");
    }
  }
  if (rc && IsWriterRead(op.type)) {
    add(op.type == OpType::kGet && buffered_value && b.committed.contains(op.key),
        "T5.get_buffered_put_over_committed");
    add(op.type == OpType::kGet && buffered_delete_of_committed,
        "T5.get_buffered_delete_hides_committed");
    const bool mixed = (buffered_value || buffered_delete_of_committed) && committed_unbuffered;
    const bool reverse = op.type == OpType::kReverseRange || op.type == OpType::kReverseAll;
    add(op.type != OpType::kGet && mixed && !reverse, "T5.range_merges_buffer");
    add(mixed && reverse, "T5.reverse_merges_buffer");
  }
  if (IsWrite(op.type)) {
    const auto writes = WritesOf(op, b);
    add(rc && (op.type == OpType::kPutIfAbsent || op.type == OpType::kDelete) &&
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
    add(rc && op.context && (!writes.empty() || op.type == OpType::kPutAll),
        "T8.positions_diverge");
  }
  AddStateChangeSituations(op, b, rc, h, &out);
  return out;
}

// What the case did, once a step held.
void Track(const Op& op, const Snapshot& b, IsolationLevel isolation, CaseHistory* h) {
  if (IsWrite(op.type)) {
    for (const auto& [key, value] : WritesOf(op, b)) {
      // A delete counts when it hides a value (what an IQ read could then miss).
      if (value || WriterValue(b, key)) h->written_since_commit[key] = value;
    }
  } else if (op.type == OpType::kCommit) {
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
  } else if (op.type == OpType::kRollback) {
    // Under READ_UNCOMMITTED a rollback is refused and changes nothing.
    if (isolation == IsolationLevel::kReadCommitted) h->written_since_commit.clear();
  } else if (IsRestart(op.type)) {
    *h = CaseHistory{};
  }
}
std::string RuleOf(const std::string& situation) {
  return situation.substr(0, situation.find('.'));
}

}  // namespace statecheck::properties::key_value
