#include "properties/window_store/ops.h"

#include <array>
#include <limits>
#include <set>
#include <utility>

#include "properties/kit/json_lines.h"

namespace statecheck::properties::window_store {
namespace {

constexpr std::array<std::string_view, kReadKindCount> kReadNames = {
    "fetch",    "backwardFetch",    "fetchKeyRange", "backwardFetchKeyRange",
    "fetchAll", "backwardFetchAll", "all",           "backwardAll",
};

constexpr std::array<std::string_view, 11> kOpNames = {
    "put",         "fetch",         "scan",       "open",    "hasNext", "next",
    "peekNextKey", "closeIterator", "closeStore", "metrics", "restore",
};

Json Bytes(const std::optional<std::string>& s) {
  return s ? Json(EscapeBytes(*s)) : Json(nullptr);
}

Json RecordJson(const WindowedRecord& r) {
  return Json::array({EscapeBytes(r.key), r.window.start, r.window.end, EscapeBytes(r.value)});
}

Json StatusJson(const Status& s) { return Json{{"status", std::string(CodeName(s.code()))}}; }

// Field readers for OpFromJson: each names the field in its error.
Status GetInt(const Json& j, const char* field, int64_t* out) {
  auto it = j.find(field);
  if (it == j.end()) return Status::InvalidArgument(std::string("missing field \"") + field + "\"");
  if (!it->is_number_integer()) {
    return Status::InvalidArgument(std::string("field \"") + field + "\" must be an integer");
  }
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Status::InvalidArgument(std::string("field \"") + field + "\" does not fit in int64");
  }
  *out = it->get<int64_t>();
  return Status::Ok();
}

// An iterator id: an int >= 0 (not truncated from a larger integer).
Status GetIterator(const Json& j, int* out) {
  int64_t number = 0;
  STATECHECK_RETURN_IF_ERROR(GetInt(j, "iterator", &number));
  if (number < 0 || number > std::numeric_limits<int>::max()) {
    return Status::InvalidArgument("field \"iterator\" must be from 0 to " +
                                   std::to_string(std::numeric_limits<int>::max()) + ", not " +
                                   std::to_string(number));
  }
  *out = static_cast<int>(number);
  return Status::Ok();
}

Status GetBytes(const Json& j, const char* field, bool nullable, std::optional<std::string>* out) {
  auto it = j.find(field);
  if (it == j.end()) return Status::InvalidArgument(std::string("missing field \"") + field + "\"");
  if (it->is_null() && nullable) {
    out->reset();
    return Status::Ok();
  }
  if (!it->is_string()) {
    return Status::InvalidArgument(std::string("field \"") + field + "\" must be a string" +
                                   (nullable ? " or null" : ""));
  }
  std::string bytes;
  Status s = UnescapeBytes(it->get<std::string>(), &bytes);
  if (!s.ok()) {
    return Status::InvalidArgument(std::string("field \"") + field + "\": " + s.message());
  }
  *out = std::move(bytes);
  return Status::Ok();
}

// The enumerator `names` names in string field `field` of `j`: InvalidArgument for a missing
// field, or for a name that is none of them ("unknown op \"x\"; ops are: put, ...").
template <class E, size_t N>
Status ByName(const Json& j, const char* field, const std::array<std::string_view, N>& names,
              E* out) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_string()) {
    return Status::InvalidArgument(std::string("missing string field \"") + field + "\"");
  }
  const std::string name = it->get<std::string>();
  std::string all;
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == name) {
      *out = static_cast<E>(i);
      return Status::Ok();
    }
    all += (all.empty() ? "" : ", ") + std::string(names[i]);
  }
  return Status::InvalidArgument("unknown " + std::string(field) + " \"" + name + "\"; " + field +
                                 "s are: " + all);
}

}  // namespace

std::string_view OpTypeName(OpType type) { return kOpNames[static_cast<size_t>(type)]; }
std::string_view ReadKindName(ReadKind kind) { return kReadNames[static_cast<size_t>(kind)]; }

bool ReadTakesKey(ReadKind kind) {
  return kind == ReadKind::kFetch || kind == ReadKind::kBackwardFetch;
}
bool ReadTakesKeyRange(ReadKind kind) {
  return kind == ReadKind::kFetchKeyRange || kind == ReadKind::kBackwardFetchKeyRange;
}
bool ReadTakesTimeRange(ReadKind kind) {
  return kind != ReadKind::kAll && kind != ReadKind::kBackwardAll;
}
bool OpUsesIterator(OpType type) {
  return type == OpType::kHasNext || type == OpType::kNext || type == OpType::kPeekNextKey ||
         type == OpType::kCloseIterator;
}

Json OpToJson(const Op& op) {
  Json j;
  j["op"] = std::string(OpTypeName(op.type));
  switch (op.type) {
    case OpType::kPut:
      j["key"] = op.null_key ? Json() : Json(EscapeBytes(op.key));
      j["value"] = Bytes(op.value);
      j["start"] = op.time;
      break;
    case OpType::kFetch:
      j["key"] = op.null_key ? Json() : Json(EscapeBytes(op.key));
      j["time"] = op.time;
      break;
    case OpType::kOpen:
      j["iterator"] = op.iterator;
      [[fallthrough]];
    case OpType::kScan:
      j["read"] = std::string(ReadKindName(op.read));
      if (ReadTakesKey(op.read)) j["key"] = op.null_key ? Json() : Json(EscapeBytes(op.key));
      if (ReadTakesKeyRange(op.read)) {
        j["keyFrom"] = Bytes(op.key_from);
        j["keyTo"] = Bytes(op.key_to);
      }
      if (ReadTakesTimeRange(op.read)) {
        j["from"] = op.time_from;
        j["to"] = op.time_to;
      }
      break;
    case OpType::kHasNext:
    case OpType::kNext:
    case OpType::kPeekNextKey:
    case OpType::kCloseIterator:
      j["iterator"] = op.iterator;
      break;
    case OpType::kCloseStore:
    case OpType::kMetrics:
      break;
    case OpType::kRestore: {
      Json records = Json::array();
      for (const ChangelogRecord& r : op.records) {
        records.push_back(Json::array({EscapeBytes(r.key), Bytes(r.value), r.start}));
      }
      j["records"] = std::move(records);
      break;
    }
  }
  return j;
}

Status OpFromJson(const Json& j, Op* out) {
  if (!j.is_object()) return Status::InvalidArgument("an operation must be a JSON object");
  Op op;
  STATECHECK_RETURN_IF_ERROR(ByName(j, "op", kOpNames, &op.type));
  std::optional<std::string> bytes;
  switch (op.type) {
    case OpType::kPut:
      STATECHECK_RETURN_IF_ERROR(GetBytes(j, "key", true, &bytes));
      op.null_key = !bytes;
      op.key = bytes.value_or("");
      STATECHECK_RETURN_IF_ERROR(GetBytes(j, "value", true, &op.value));
      STATECHECK_RETURN_IF_ERROR(GetInt(j, "start", &op.time));
      break;
    case OpType::kFetch:
      STATECHECK_RETURN_IF_ERROR(GetBytes(j, "key", true, &bytes));
      op.null_key = !bytes;
      op.key = bytes.value_or("");
      STATECHECK_RETURN_IF_ERROR(GetInt(j, "time", &op.time));
      break;
    case OpType::kOpen:
    case OpType::kScan: {
      if (op.type == OpType::kOpen) {
        STATECHECK_RETURN_IF_ERROR(GetIterator(j, &op.iterator));
      }
      STATECHECK_RETURN_IF_ERROR(ByName(j, "read", kReadNames, &op.read));
      if (ReadTakesKey(op.read)) {
        STATECHECK_RETURN_IF_ERROR(GetBytes(j, "key", true, &bytes));
        op.null_key = !bytes;
        op.key = bytes.value_or("");
      }
      if (ReadTakesKeyRange(op.read)) {
        STATECHECK_RETURN_IF_ERROR(GetBytes(j, "keyFrom", true, &op.key_from));
        STATECHECK_RETURN_IF_ERROR(GetBytes(j, "keyTo", true, &op.key_to));
      }
      if (ReadTakesTimeRange(op.read)) {
        STATECHECK_RETURN_IF_ERROR(GetInt(j, "from", &op.time_from));
        STATECHECK_RETURN_IF_ERROR(GetInt(j, "to", &op.time_to));
      }
      break;
    }
    case OpType::kHasNext:
    case OpType::kNext:
    case OpType::kPeekNextKey:
    case OpType::kCloseIterator:
      STATECHECK_RETURN_IF_ERROR(GetIterator(j, &op.iterator));
      break;
    case OpType::kCloseStore:
    case OpType::kMetrics:
      break;
    case OpType::kRestore: {
      auto records = j.find("records");
      if (records == j.end() || !records->is_array()) {
        return Status::InvalidArgument(
            "op restore needs \"records\": [[key, value or null, start], ...]");
      }
      for (const Json& r : *records) {
        if (!r.is_array() || r.size() != 3) {
          return Status::InvalidArgument(
              "op restore: each record is [key, value (or null), window start], not " +
              r.dump(-1, ' ', false, Json::error_handler_t::replace));
        }
        const Json fields{{"key", r[0]}, {"value", r[1]}, {"start", r[2]}};
        ChangelogRecord record;
        STATECHECK_RETURN_IF_ERROR(GetBytes(fields, "key", false, &bytes));
        record.key = *bytes;
        STATECHECK_RETURN_IF_ERROR(GetBytes(fields, "value", true, &record.value));
        STATECHECK_RETURN_IF_ERROR(GetInt(fields, "start", &record.start));
        op.records.push_back(std::move(record));
      }
      break;
    }
  }
  *out = std::move(op);
  return Status::Ok();
}

std::string OpToString(const Op& op) { return OpToJson(op).dump(); }

Status Vocabulary::OpFromJson(const Json& j, Op* op) {
  Op read;
  STATECHECK_RETURN_IF_ERROR(window_store::OpFromJson(j, &read));
  STATECHECK_RETURN_IF_ERROR(CheckKeys(j, KeysOf(OpToJson(read), {"expect"}),
                                       "a " + std::string(OpTypeName(read.type)) + " step"));
  *op = std::move(read);
  return Status::Ok();
}

const std::vector<std::string>& Vocabulary::HeaderKeys() {
  static const std::vector<std::string> keys = {"construction"};
  return keys;
}

Status Vocabulary::HeaderFromJson(const Json& keys, Config* config) {
  auto c = keys.find("construction");
  if (c == keys.end()) {
    config->construction.reset();
    return Status::Ok();
  }
  if (!c->is_object() || !c->contains("status") || !(*c)["status"].is_string()) {
    return Status::InvalidArgument("\"construction\" must be an object with a \"status\"");
  }
  STATECHECK_RETURN_IF_ERROR(CheckKeys(*c, {"status", "message"}, "\"construction\""));
  config->construction = *c;
  return Status::Ok();
}

Json Vocabulary::HeaderToJson(const Config& config) {
  Json j = Json::object();
  if (config.construction) j["construction"] = *config.construction;
  return j;
}

Status Vocabulary::CheckSteps(const Config& config,
                              const std::vector<std::pair<const Op*, int>>& steps) {
  if (config.construction && (*config.construction)["status"] != "OK" && !steps.empty()) {
    return LineError(steps.front().second,
                     "the header expects construction to fail, so no operation can follow");
  }
  std::set<int> open, used;
  for (const auto& [op, line] : steps) {
    const int id = op->iterator;
    if (op->type == OpType::kOpen) {
      if (!used.insert(id).second) {
        return LineError(
            line, "iterator " + std::to_string(id) + " was opened before: give each open a new id");
      }
      open.insert(id);
    } else if (OpUsesIterator(op->type)) {
      if (!open.count(id)) {
        return LineError(line, "iterator " + std::to_string(id) +
                                   (used.count(id) ? " is closed" : " was never opened"));
      }
      if (op->type == OpType::kCloseIterator) open.erase(id);
    }
  }
  return Status::Ok();
}

Json OptionsToJson(const WindowStoreOptions& options) {
  return Json{{"name", options.name},
              {"retention_ms", options.retention_ms},
              {"window_size_ms", options.window_size_ms},
              {"retain_duplicates", options.retain_duplicates}};
}

Status OptionsFromJson(const Json& j, WindowStoreOptions* options) {
  if (!j.is_object()) return Status::InvalidArgument("must be a JSON object");
  STATECHECK_RETURN_IF_ERROR(
      CheckKeys(j, {"name", "retention_ms", "window_size_ms", "retain_duplicates"}, "\"config\""));
  WindowStoreOptions o;
  auto name = j.find("name");
  if (name == j.end() || !name->is_string()) {
    return Status::InvalidArgument("missing string field \"name\"");
  }
  o.name = name->get<std::string>();
  Status s = GetInt(j, "retention_ms", &o.retention_ms);
  if (s.ok()) s = GetInt(j, "window_size_ms", &o.window_size_ms);
  if (!s.ok()) return s;
  auto dups = j.find("retain_duplicates");
  if (dups == j.end() || !dups->is_boolean()) {
    return Status::InvalidArgument("missing boolean field \"retain_duplicates\"");
  }
  o.retain_duplicates = dups->get<bool>();
  *options = std::move(o);
  return Status::Ok();
}

Status OpRunner::OpenRead(const Op& op, std::unique_ptr<WindowStoreIterator>* it) {
  auto key_bound = [](const std::optional<std::string>& k) {
    return k ? std::optional<std::string_view>(*k) : std::nullopt;
  };
  WindowStore& s = *store_;
  switch (op.read) {
    case ReadKind::kFetch:
      return s.Fetch(op.key, op.time_from, op.time_to, it);
    case ReadKind::kBackwardFetch:
      return s.BackwardFetch(op.key, op.time_from, op.time_to, it);
    case ReadKind::kFetchKeyRange:
      return s.Fetch(key_bound(op.key_from), key_bound(op.key_to), op.time_from, op.time_to, it);
    case ReadKind::kBackwardFetchKeyRange:
      return s.BackwardFetch(key_bound(op.key_from), key_bound(op.key_to), op.time_from, op.time_to,
                             it);
    case ReadKind::kFetchAll:
      return s.FetchAll(op.time_from, op.time_to, it);
    case ReadKind::kBackwardFetchAll:
      return s.BackwardFetchAll(op.time_from, op.time_to, it);
    case ReadKind::kAll:
      return s.All(it);
    case ReadKind::kBackwardAll:
      return s.BackwardAll(it);
  }
  return Status::InvalidArgument("unknown read kind");
}

Status OpRunner::Make(const Factory& factory, WindowStoreOptions options,
                      std::unique_ptr<OpRunner>* runner) {
  auto logs = std::make_shared<RecordingLogger>();
  options.logger = logs;
  std::unique_ptr<WindowStore> store;
  STATECHECK_RETURN_IF_ERROR(factory(options, &store));
  *runner = std::make_unique<OpRunner>(std::move(store), std::move(logs));
  (*runner)->factory_ = factory;
  (*runner)->options_ = std::move(options);
  return Status::Ok();
}

Json OpRunner::Restore(const std::vector<ChangelogRecord>& records) {
  if (!factory_) return Json{{"status", "FailedPrecondition"}};
  store_->Close();
  iterators_.clear();
  std::unique_ptr<WindowStore> fresh;
  Status s = factory_(options_, &fresh);
  if (!s.ok()) return StatusJson(s);
  store_ = std::move(fresh);
  for (const ChangelogRecord& r : records) {
    s = store_->Put(r.key, r.value ? std::optional<std::string_view>(*r.value) : std::nullopt,
                    r.start);
    if (!s.ok()) break;
  }
  return StatusJson(s);
}

Json OpRunner::Apply(const Op& op) {
  Json j = ApplyOp(op);
  if (logs_) {
    std::vector<std::string> lines = logs_->Take();
    if (!lines.empty()) j["logs"] = std::move(lines);
  }
  return j;
}

Json OpRunner::ApplyOp(const Op& op) {
  if (op.null_key) {
    // Kafka: NullPointerException "key cannot be null", before the store is reached.
    return Json{{"status", "InvalidArgument"}};
  }
  switch (op.type) {
    case OpType::kPut:
      return StatusJson(store_->Put(
          op.key, op.value ? std::optional<std::string_view>(*op.value) : std::nullopt, op.time));
    case OpType::kFetch: {
      std::optional<std::string> value;
      const Status s = store_->Fetch(op.key, op.time, &value);
      Json j = StatusJson(s);
      if (s.ok()) j["value"] = Bytes(value);
      return j;
    }
    case OpType::kScan: {
      std::unique_ptr<WindowStoreIterator> it;
      const Status s = OpenRead(op, &it);
      Json j = StatusJson(s);
      if (!s.ok()) return j;
      Json records = Json::array();
      WindowedRecord r;
      WindowedRecordView view;
      while (it->HasNext()) {
        // Both ways of reading a record, in turn: the copy and the view of it.
        const bool copy = records.size() % 2 == 0;
        const Status n = copy ? it->Next(&r) : it->NextView(&view);
        if (!n.ok()) {  // HasNext promised a record: report the broken promise.
          records.push_back(StatusJson(n));
          break;
        }
        if (!copy) r = WindowedRecord{std::string(view.key), view.window, std::string(view.value)};
        records.push_back(RecordJson(r));
      }
      j["records"] = std::move(records);
      return j;
    }
    case OpType::kOpen: {
      std::unique_ptr<WindowStoreIterator> it;
      const Status s = OpenRead(op, &it);
      if (s.ok()) iterators_[op.iterator] = std::move(it);
      return StatusJson(s);
    }
    case OpType::kHasNext:
    case OpType::kNext:
    case OpType::kPeekNextKey:
    case OpType::kCloseIterator:
      break;
    case OpType::kCloseStore:
      store_->Close();
      return Json::object();
    case OpType::kMetrics:
      return Metrics();
    case OpType::kRestore:
      return Restore(op.records);
  }
  auto found = iterators_.find(op.iterator);
  if (found == iterators_.end()) {
    // A failed open leaves no iterator; steps on it answer as on an exhausted one.
    if (op.type == OpType::kHasNext) return Json{{"hasNext", false}};
    if (op.type == OpType::kCloseIterator) return Json::object();
    return Json{{"status", "OutOfRange"}};
  }
  WindowStoreIterator& it = *found->second;
  switch (op.type) {
    case OpType::kHasNext:
      return Json{{"hasNext", it.HasNext()}};
    case OpType::kNext: {
      WindowedRecord r;
      const Status s = it.Next(&r);
      Json j = StatusJson(s);
      if (s.ok()) j["record"] = RecordJson(r);
      return j;
    }
    case OpType::kPeekNextKey: {
      WindowedKey k;
      const Status s = it.PeekNextKey(&k);
      Json j = StatusJson(s);
      if (s.ok()) j["key"] = Json::array({EscapeBytes(k.key), k.window.start, k.window.end});
      return j;
    }
    default:  // kCloseIterator
      it.Close();
      iterators_.erase(found);
      return Json::object();
  }
}

Json OpRunner::Metrics() const {
  const WindowStoreMetrics m = store_->metrics();
  return Json{{"stream_time", store_->stream_time()},
              {"dropped_records", m.dropped_records},
              {"retained_records", m.retained_records},
              {"retained_segments", m.retained_segments}};
}

}  // namespace statecheck::properties::window_store
