#include "properties/key_value/lockstep.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"

namespace statecheck::properties::key_value {
namespace {

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

// One side of the comparison: a store, its query view, and how to restart it.
}  // namespace

// One implementation: a store, its query views, and how to restart it.
class Side {
 public:
  Side(std::unique_ptr<KeyValueStore> store, Restart reopen)
      : store_(std::move(store)), reopen_(std::move(reopen)) {
    OpenViews();
  }

  KeyValueStore* store() const { return store_.get(); }

  // The op's own result; after a commit, rollback or restart, a "probe" of the whole state as
  // the writer and a fresh IQ reader see it (so that a step that corrupts the state is caught
  // at that step, and credited to its rule); and "after": the bytes, positions and offsets.
  Json Step(const Op& op) {
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
  Json Apply(const Op& op) {
    if (!store_) return Json{{"status", "no store"}};
    const RecordContext* ctx = op.context ? &*op.context : nullptr;
    switch (op.type) {
      case OpType::kPut:
        return StatusJson(store_->Put(
            op.key, op.value ? std::optional<std::string_view>(*op.value) : std::nullopt, ctx));
      case OpType::kDelete: {
        std::optional<std::string> old;
        const Status s = store_->Delete(op.key, &old, ctx);
        Json j = StatusJson(s);
        if (s.ok()) j["old"] = BytesJson(old);
        return j;
      }
      case OpType::kPutIfAbsent: {
        std::optional<std::string> existing;
        const Status s = store_->PutIfAbsent(op.key, *op.value, &existing, ctx);
        Json j = StatusJson(s);
        if (s.ok()) j["existing"] = BytesJson(existing);
        return j;
      }
      case OpType::kPutAll:
        return StatusJson(store_->PutAll(op.kvs, ctx));
      case OpType::kGet:
      case OpType::kIqGet:
      case OpType::kRange:
      case OpType::kReverseRange:
      case OpType::kPrefixScan:
      case OpType::kAll:
      case OpType::kReverseAll:
      case OpType::kIqRange:
      case OpType::kIqReverseAll:
        return Read(op);
      case OpType::kCommit:
        return StatusJson(store_->Commit(op.offsets));
      case OpType::kRollback:
        return StatusJson(store_->Rollback());
      case OpType::kReopen:
      case OpType::kCrash: {
        view_.reset();
        probe_view_.reset();
        bool clean = false;
        const Status s = reopen_(op.type == OpType::kCrash, &store_, &clean);
        OpenViews();
        Json j = StatusJson(s);
        if (s.ok()) j["clean"] = clean;
        return j;
      }
    }
    return Json::object();
  }

  // A read: the writer's, or an IQ reader's with the position it reports.
  Json Read(const Op& op) {
    auto bound = [](const std::optional<std::string>& b) {
      return b ? std::optional<std::string_view>(*b) : std::nullopt;
    };
    std::unique_ptr<KeyValueIterator> it;
    switch (op.type) {
      case OpType::kGet:
      case OpType::kIqGet: {
        std::optional<std::string> v;
        const bool iq = op.type == OpType::kIqGet;
        const Status s = iq ? view_->Get(op.key, &v) : store_->Get(op.key, &v);
        Json j = StatusJson(s);
        if (s.ok()) j["value"] = BytesJson(v);
        if (iq) j["position"] = PositionJson(view_->LastReadPosition());
        return j;
      }
      case OpType::kRange: {
        const Status s = store_->Range(bound(op.from), bound(op.to), &it);
        return Drain(s, std::move(it));
      }
      case OpType::kReverseRange: {
        const Status s = store_->ReverseRange(bound(op.from), bound(op.to), &it);
        return Drain(s, std::move(it));
      }
      case OpType::kPrefixScan: {
        const Status s = store_->PrefixScan(op.key, &it);
        return Drain(s, std::move(it));
      }
      case OpType::kAll: {
        const Status s = store_->All(&it);
        return Drain(s, std::move(it));
      }
      case OpType::kReverseAll: {
        const Status s = store_->ReverseAll(&it);
        return Drain(s, std::move(it));
      }
      case OpType::kIqRange: {
        const Status s = view_->Range(bound(op.from), bound(op.to), &it);
        Json j = Drain(s, std::move(it));
        j["position"] = PositionJson(view_->LastReadPosition());
        return j;
      }
      case OpType::kIqReverseAll: {
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

namespace {

// A step's expectation in a key-value trace is partial in its records, exact in its values: a
// hand-written trace may give only some fields of the result, and only some of "after" and
// "probe", but a field it gives is compared whole (a position {} expects no partition at all).
bool SameValue(const Json& a, const Json& b) {
  return MatchesExpectation(a, b) && MatchesExpectation(b, a);  // Equal, escapes aside.
}
bool IsRecordField(const std::string& key) { return key == "after" || key == "probe"; }

bool MatchesStep(const Json& expect, const Json& actual) {
  if (!expect.is_object() || !actual.is_object()) return SameValue(expect, actual);
  for (const auto& [key, value] : expect.items()) {
    auto it = actual.find(key);
    if (it == actual.end()) return false;
    if (IsRecordField(key) && value.is_object() && it->is_object()) {
      for (const auto& [field, v] : value.items()) {
        if (!it->contains(field) || !SameValue(v, (*it)[field])) return false;
      }
    } else if (!SameValue(value, *it)) {
      return false;
    }
  }
  return true;
}

// `actual` with only the fields `expect` gives (MatchesStep's), for attributing a difference
// from a partial expectation to a rule.
Json RestrictTo(const Json& actual, const Json& expect) {
  if (!actual.is_object() || !expect.is_object()) return actual;
  Json out = Json::object();
  for (const auto& [key, value] : expect.items()) {
    if (!actual.contains(key)) continue;
    const Json& a = actual[key];
    if (IsRecordField(key) && value.is_object() && a.is_object()) {
      out[key] = Json::object();
      for (const auto& [field, v] : value.items()) {
        if (a.contains(field)) out[key][field] = a[field];
      }
    } else {
      out[key] = a;
    }
  }
  return out;
}

}  // namespace

Lockstep::Lockstep(std::string dir, IsolationLevel isolation, std::string t1_situation)
    : dir_(std::move(dir)), isolation_(isolation), t1_situation_(std::move(t1_situation)) {}

Lockstep::~Lockstep() {
  store_.reset();
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
}

void Lockstep::SetStore(std::unique_ptr<KeyValueStore> store, Restart restart) {
  store_ = std::make_unique<Side>(std::move(store), std::move(restart));
}

namespace {

// The model's restart: after a crash, at the commit `*commits_back` before the last (C7).
Restart ModelRestart(const size_t* commits_back) {
  return [commits_back](bool crash, std::unique_ptr<KeyValueStore>* st, bool* clean) {
    auto* m = static_cast<model::KeyValueStoreModel*>(st->get());
    crash ? m->Abandon() : m->Close();
    m->Reopen(crash ? *commits_back : 0);
    *clean = m->was_closed_cleanly();
    return Status::Ok();
  };
}

}  // namespace

void Lockstep::SetModel(IsolationLevel isolation, bool persistent, bool durable_commits) {
  auto model_store = std::make_unique<model::KeyValueStoreModel>("kv", isolation, persistent);
  model_store->set_durable_commits(durable_commits);
  model_store_ = model_store.get();
  model_ = std::make_unique<Side>(std::move(model_store), ModelRestart(&commits_back_));
}

size_t Lockstep::CommitsBack(const Op& op, const std::function<bool(const Json&)>& shows) const {
  const size_t candidates = model_store_->CrashCandidates();
  for (size_t back = 0; back < candidates; ++back) {
    Side trial(model_store_->Copy(), ModelRestart(&back));
    if (shows(trial.Step(op))) return back;
  }
  return 0;
}

kit::StepResult Lockstep::Step(const Op& op, const std::optional<Json>& expect) {
  if (op.type == OpType::kCrash) CountCrash(/*power_loss=*/false);
  Snapshot before;
  std::vector<std::string> situations;
  if (model_) {
    before = model_store_->Snapshot();
    situations = SituationsOf(op, before, isolation_, t1_situation_, history_);
  }
  Json expected, actual;
  if (op.type == OpType::kCrash && model_ && (store_ || expect)) {
    // Checks: C7 — after a crash the store is one whole commit between its last flush and its
    // last commit: the model restarts at the one the store (or, replayed against the model
    // alone, the trace) shows, or at the last if none
    if (store_) actual = store_->Step(op);
    commits_back_ = CommitsBack(op, [&](const Json& trial) {
      return store_ ? trial == actual : MatchesStep(*expect, trial);
    });
    expected = model_->Step(op);
    if (commits_back_ > 0) situations.emplace_back("C7.store_behind_after_crash");
  } else {
    commits_back_ = 0;
    expected = model_ ? model_->Step(op) : Json();
    actual = store_ ? store_->Step(op) : Json();
  }
  kit::StepResult result;
  if (store_ && model_ && actual != expected) {
    Finding f = Attribute(op, isolation_, expected, actual);
    f.message += "\n  model: " + expected.dump() + "\n  store: " + actual.dump();
    result.finding = std::move(f);
    result.expect = std::move(expected);
    return result;
  }
  if (expect) {
    for (const auto& [name, got] : {std::pair{"store", static_cast<const Json*>(&actual)},
                                    std::pair{"model", static_cast<const Json*>(&expected)}}) {
      if (got->is_null() || MatchesStep(*expect, *got)) continue;
      Finding f = Attribute(op, isolation_, *expect, RestrictTo(*got, *expect));
      f.message += "\n  trace: " + expect->dump() + "\n  " + name + ": " + got->dump();
      result.finding = std::move(f);
      result.expect = std::move(expected);
      return result;
    }
  }
  // The whole step matched: each situation it was in held its rule's check.
  for (const std::string& situation : situations) {
    Reached(situation);
    Held(RuleOf(situation));
  }
  if (model_) Track(op, before, isolation_, &history_);
  result.expect = std::move(expected);  // The model's result: what a saved trace expects.
  return result;
}

namespace {

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
// bounds, offsets. Called inside rc::gen::exec (GenOp).
Op GenOperands(const GenState& s, OpType type) {
  Op op;
  op.type = type;
  auto maybe_key = rc::gen::weightedOneOf<std::optional<std::string>>(
      {{1, rc::gen::just(std::optional<std::string>())},
       {3, rc::gen::map(GenKey(), [](std::string k) { return std::optional<std::string>(k); })}});
  switch (op.type) {
    case OpType::kPut:
      op.key = GenTargetKey(s);
      op.value = *rc::gen::weightedOneOf<std::optional<std::string>>(
          {{1, rc::gen::just(std::optional<std::string>())},
           {5, rc::gen::map(GenValue(),
                            [](std::string v) { return std::optional<std::string>(v); })}});
      break;
    case OpType::kPutIfAbsent:
      op.key = GenTargetKey(s);
      op.value = *GenValue();
      break;
    case OpType::kDelete:
    case OpType::kGet:
    case OpType::kIqGet:
      op.key = GenTargetKey(s);
      break;
    case OpType::kPrefixScan:
      op.key = *GenKey();
      break;
    case OpType::kPutAll: {
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
    case OpType::kRange:
    case OpType::kReverseRange:
    case OpType::kIqRange:
      op.from = *maybe_key;
      op.to = *maybe_key;
      break;
    case OpType::kCommit: {
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

}  // namespace

rc::Gen<Op> GenOp(const GenState& s) {
  return rc::gen::exec([s] {
    // Weighted: writes and writer reads most, commits often enough to matter.
    static const std::vector<std::pair<int, OpType>> kWeights = {
        {20, OpType::kPut},         {7, OpType::kDelete},     {3, OpType::kPutIfAbsent},
        {3, OpType::kPutAll},       {8, OpType::kGet},        {3, OpType::kRange},
        {3, OpType::kReverseRange}, {2, OpType::kPrefixScan}, {2, OpType::kAll},
        {2, OpType::kReverseAll},   {6, OpType::kIqGet},      {3, OpType::kIqRange},
        {1, OpType::kIqReverseAll}, {8, OpType::kCommit},     {4, OpType::kRollback},
        {2, OpType::kReopen}};
    OpType type = PickWeighted(kWeights);
    // A store without restarts commits instead (the same draws, so that a store with them keeps
    // its cases).
    if (!s.restarts && type == OpType::kReopen) type = OpType::kCommit;
    // A crash loses direct (READ_UNCOMMITTED) writes not yet flushed, which the model cannot
    // predict: crashes are generated where writes are buffered (T7, T9).
    if (s.restarts && s.buffered && *UniformInRange(0, 25) == 0) type = OpType::kCrash;
    Op op = GenOperands(s, type);
    const bool write = op.type == OpType::kPut || op.type == OpType::kDelete ||
                       op.type == OpType::kPutIfAbsent || op.type == OpType::kPutAll;
    if (write && *UniformInRange(0, 4) != 0) {
      op.context = RecordContext{*rc::gen::elementOf(std::vector<std::string>{"in-0", "in-1"}),
                                 s.next_offset};
    }
    return op;
  });
}

void Next(GenState& s, const Op& op_) {
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
    case OpType::kPut:
      write(op_.key, op_.value.has_value());
      break;
    case OpType::kPutIfAbsent:  // Approximately: it may find a value and write nothing.
      write(op_.key, true);
      break;
    case OpType::kDelete:
      write(op_.key, false);
      break;
    case OpType::kPutAll:
      for (const auto& [key, value] : op_.kvs) write(key, value.has_value());
      break;
    case OpType::kCommit:
      for (const auto& [key, value] : s.pending) {
        value ? (void)s.committed.insert(key) : (void)s.committed.erase(key);
      }
      s.pending.clear();
      break;
    case OpType::kRollback:
    case OpType::kReopen:
    case OpType::kCrash:
      s.pending.clear();
      break;
    default:
      break;
  }
}

}  // namespace statecheck::properties::key_value
