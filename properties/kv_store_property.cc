#include "properties/kv_store_property.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <filesystem>
#include <set>
#include <utility>

#include "model/key_value_store_model.h"
#include "model/state_config_model.h"
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/kv_store_attribution.h"
#include "properties/rapidcheck_runner.h"
#include "properties/window_store_ops.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck::properties {
namespace {

using kv_store::Attribute;
using kv_store::CaseHistory;
using kv_store::IsStateChange;
using kv_store::kKvOpNames;
using kv_store::KvOp;
using kv_store::KvOpType;
using kv_store::RuleOf;
using kv_store::SituationsOf;
using kv_store::Snapshot;
using kv_store::T1Situation;
using kv_store::Track;

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
      case KvOpType::kIqGet:
      case KvOpType::kRange:
      case KvOpType::kReverseRange:
      case KvOpType::kPrefixScan:
      case KvOpType::kAll:
      case KvOpType::kReverseAll:
      case KvOpType::kIqRange:
      case KvOpType::kIqReverseAll:
        return Read(op);
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

  // A read: the writer's, or an IQ reader's with the position it reports.
  Json Read(const KvOp& op) {
    auto bound = [](const std::optional<std::string>& b) {
      return b ? std::optional<std::string_view>(*b) : std::nullopt;
    };
    std::unique_ptr<KeyValueIterator> it;
    switch (op.type) {
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
      default:
        break;
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

// An op of type `type` with its operands: keys (often aimed at what the store holds), values,
// bounds, offsets. Called inside rc::gen::exec (GenKvOp).
KvOp GenOperands(const GenState& s, KvOpType type) {
  KvOp op;
  op.type = type;
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
  return op;
}

rc::Gen<KvOp> GenKvOp(const GenState& s) {
  return rc::gen::exec([s] {
    // Weighted: writes and writer reads most, commits often enough to matter.
    static const std::vector<std::pair<int, KvOpType>> kWeights = {
        {20, KvOpType::kPut},         {7, KvOpType::kDelete},     {3, KvOpType::kPutIfAbsent},
        {3, KvOpType::kPutAll},       {8, KvOpType::kGet},        {3, KvOpType::kRange},
        {3, KvOpType::kReverseRange}, {2, KvOpType::kPrefixScan}, {2, KvOpType::kAll},
        {2, KvOpType::kReverseAll},   {6, KvOpType::kIqGet},      {3, KvOpType::kIqRange},
        {1, KvOpType::kIqReverseAll}, {8, KvOpType::kCommit},     {4, KvOpType::kRollback},
        {2, KvOpType::kReopen}};
    KvOpType type = PickWeighted(kWeights);
    // A crash loses direct (READ_UNCOMMITTED) writes not yet flushed, which the model cannot
    // predict: crashes are generated where writes are buffered (T7, T9).
    if (s.buffered && *UniformInRange(0, 25) == 0) type = KvOpType::kCrash;
    KvOp op = GenOperands(s, type);
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
    const std::vector<std::string> situations =
        SituationsOf(op_, before, sut.isolation, sut.t1_situation, sut.history);
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
