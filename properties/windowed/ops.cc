#include "properties/windowed/ops.h"

#include <limits>

#include "properties/kit/json_lines.h"

namespace statecheck::properties::windowed {
namespace {

// The metrics a windowed trace reads, by Kafka's names: the task's dropped records (SPEC E1)
// and, under emit-final, the records it emitted (KIP-825's processor-node metric).
const std::vector<std::string> kWindowedMetricNames = {"dropped-records-total",
                                                       "emit-final-records-total"};

// model::AggregatorKind's names in a trace, in its order.
constexpr const char* kAggregatorNames[] = {"count", "reduce", "aggregate"};

// An integer that fits in int64 (JSON numbers above it are unsigned in nlohmann::json).
bool IsInt64(const Json& v) {
  return v.is_number_integer() &&
         (!v.is_number_unsigned() ||
          v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

// `json`'s string field `name`, `fallback` when it is absent, "" when it is not a string.
std::string StringField(const Json& json, const char* name, const std::string& fallback) {
  if (!json.contains(name)) return fallback;
  return json[name].is_string() ? json[name].get<std::string>() : std::string();
}

// A step's "expect": {"emitted": [record, ...], "dropped_records": N}, and for a query
// ("windows"), "windows": [record, ...]; each record {"window": [start, end], "key": K, "value": V,
// "timestamp": T} (docs/traces.md).
Status CheckExpect(const Json& e, OpType type) {
  const bool query = IsQuery(type);
  const bool metrics = type == OpType::kMetrics;
  const Status shape = Status::InvalidArgument(
      query     ? "\"expect\" is {\"emitted\": [...], \"dropped_records\": N, \"windows\": [...]}"
      : metrics ? "\"expect\" is {\"emitted\": [...], \"dropped_records\": N, \"metrics\": {...}}"
                : "\"expect\" is {\"emitted\": [...], \"dropped_records\": N}");
  if (!e.is_object()) return shape;
  std::vector<std::string> keys = {"emitted", "dropped_records"};
  if (query) keys.push_back("windows");
  if (metrics) keys.push_back("metrics");
  STATECHECK_RETURN_IF_ERROR(CheckKeys(e, keys, "\"expect\""));
  if ((e.contains("emitted") && !e["emitted"].is_array()) ||
      (e.contains("windows") && !e["windows"].is_array()) ||
      (e.contains("metrics") && !e["metrics"].is_object()) ||
      (e.contains("dropped_records") && !IsInt64(e["dropped_records"]))) {
    return shape;
  }
  if (e.contains("metrics")) {
    STATECHECK_RETURN_IF_ERROR(CheckKeys(e["metrics"], kWindowedMetricNames, "\"metrics\""));
    for (const auto& [name, value] : e["metrics"].items()) {
      if (!IsInt64(value)) return Status::InvalidArgument("metric " + name + " is an integer");
    }
  }
  Json records = Json::array();
  for (const char* field : {"emitted", "windows"}) {
    if (e.contains(field)) records.insert(records.end(), e[field].begin(), e[field].end());
  }
  for (const Json& r : records) {
    if (!r.is_object()) {
      return Status::InvalidArgument(
          "an emitted record is an object {\"window\": [start, end], "
          "\"key\": K, \"value\": V, \"timestamp\": T}, not " +
          r.dump());
    }
    STATECHECK_RETURN_IF_ERROR(
        CheckKeys(r, {"window", "key", "value", "timestamp"}, "an emitted record"));
  }
  return Status::Ok();
}

}  // namespace

bool SameEmittedRecord(const Json& expected, const Json& actual) {
  if (!expected.is_object() || !actual.is_object() || expected.size() != actual.size()) {
    return false;
  }
  for (const auto& [k, v] : expected.items()) {
    if (!actual.contains(k)) return false;
    const Json& a = actual[k];
    // A count may be written as the number it is: 2 and "2" are the same value.
    if (k == "value" && v.is_number_integer() && a.is_string()) {
      if (std::to_string(v.get<int64_t>()) != a.get<std::string>()) return false;
    } else if (v != a) {
      return false;
    }
  }
  return true;
}

Json OpToJson(const Op& op) {
  Json j{{"op", kOpNames[static_cast<int>(op.type)]}};
  if (op.type == OpType::kAppend) {
    Json records = Json::array();
    for (const Record& r : op.records) {
      Json record = Json::array({r.key, r.timestamp});
      if (r.value != kDefaultRecordValue) record.push_back(r.value ? Json(*r.value) : Json());
      records.push_back(std::move(record));
    }
    j["records"] = std::move(records);
  }
  if (op.type == OpType::kProcess) j["max_records"] = op.n;
  if (op.type == OpType::kAdvanceClock) j["ms"] = op.n;
  if (op.type == OpType::kFetch) j["key"] = op.key;
  if (op.type == OpType::kFetchRange) {
    j["key_from"] = op.key_from ? Json(*op.key_from) : Json();
    j["key_to"] = op.key_to ? Json(*op.key_to) : Json();
  }
  if (IsQuery(op.type)) {
    j["from"] = op.from;
    j["to"] = op.to;
    if (op.backward) j["backward"] = true;
  }
  return j;
}

std::string OpToString(const Op& op) {
  // Keys come from traces; invalid UTF-8 is replaced, not thrown.
  return OpToJson(op).dump(-1, ' ', false, Json::error_handler_t::replace);
}

Status OpFromJson(const Json& j, Op* op) {
  *op = Op();
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string()) {
    return Status::InvalidArgument("an operation is an object with a string field \"op\"");
  }
  const std::string name = j["op"].get<std::string>();
  int type = 0;
  while (type < kOpCount && name != kOpNames[type]) ++type;
  if (type == kOpCount) {
    return Status::InvalidArgument(
        "unknown op \"" + name +
        "\" (append, process, advanceClock, commit, crash, restart, fetch, fetchAll, "
        "fetchRange or metrics)");
  }
  op->type = static_cast<OpType>(type);
  auto number = [&](const char* field, int64_t min, int64_t* out) -> Status {
    if (!j.contains(field) || !IsInt64(j[field]) || j[field].get<int64_t>() < min) {
      return Status::InvalidArgument("op " + name + " needs an integer \"" + field +
                                     "\" >= " + std::to_string(min));
    }
    *out = j[field].get<int64_t>();
    return Status::Ok();
  };
  switch (op->type) {
    case OpType::kAppend: {
      if (!j.contains("records") || !j["records"].is_array()) {
        return Status::InvalidArgument(
            "op append needs \"records\": [[key, timestamp] or [key, timestamp, value], ...]");
      }
      for (const Json& r : j["records"]) {
        if (!r.is_array() || (r.size() != 2 && r.size() != 3) || !r[0].is_string() ||
            !IsInt64(r[1]) || r[1].get<int64_t>() < -1 ||
            (r.size() == 3 && !r[2].is_string() && !r[2].is_null())) {
          return Status::InvalidArgument(
              "op append: each record is [key (a string; \"\" is the null key), timestamp (an "
              "integer >= 0, or -1 for none)] or the same with a value (a string, or null), not " +
              r.dump());
        }
        Record record{r[0].get<std::string>(), r[1].get<int64_t>()};
        if (r.size() == 3) {
          record.value = r[2].is_null() ? std::nullopt : std::optional(r[2].get<std::string>());
        }
        op->records.push_back(std::move(record));
      }
      return Status::Ok();
    }
    case OpType::kProcess:
      return number("max_records", 1, &op->n);
    case OpType::kAdvanceClock:
      return number("ms", 0, &op->n);
    case OpType::kFetch:
      if (!j.contains("key") || !j["key"].is_string()) {
        return Status::InvalidArgument("op fetch needs a string \"key\"");
      }
      op->key = j["key"].get<std::string>();
      if (op->key.empty()) {
        return Status::InvalidArgument(
            "op fetch: the key \"\" stands for Kafka's null key, which fetch refuses (\"key "
            "cannot be null\"); use fetchAll for every key");
      }
      [[fallthrough]];
    case OpType::kFetchAll:
    case OpType::kFetchRange:
      if (op->type == OpType::kFetchRange) {
        for (const char* field : {"key_from", "key_to"}) {
          if (!j.contains(field) || (!j[field].is_string() && !j[field].is_null())) {
            return Status::InvalidArgument("op fetchRange needs \"" + std::string(field) +
                                           "\": a string, or null for no bound");
          }
        }
        if (j["key_from"].is_string()) op->key_from = j["key_from"].get<std::string>();
        if (j["key_to"].is_string()) op->key_to = j["key_to"].get<std::string>();
      }
      if (j.contains("backward")) {
        if (!j["backward"].is_boolean()) {
          return Status::InvalidArgument("op " + name + ": \"backward\" is true or false");
        }
        op->backward = j["backward"].get<bool>();
      }
      STATECHECK_RETURN_IF_ERROR(number("from", std::numeric_limits<int64_t>::min(), &op->from));
      return number("to", std::numeric_limits<int64_t>::min(), &op->to);
    default:
      return Status::Ok();
  }
}

Json ConfigToJson(const Config& config) {
  Json window;
  switch (config.kind) {
    case WindowKind::kTime:
      window = Json{{"kind", "time"},
                    {"size_ms", config.size_ms},
                    {"advance_ms", config.advance_ms},
                    {"grace_ms", config.grace_ms}};
      break;
    case WindowKind::kSliding:
      window = Json{{"kind", "sliding"},
                    {"time_difference_ms", config.size_ms},
                    {"grace_ms", config.grace_ms}};
      break;
    case WindowKind::kSession:
      window = Json{{"kind", "session"}, {"gap_ms", config.size_ms}, {"grace_ms", config.grace_ms}};
      break;
    case WindowKind::kUnlimited:
      window = Json{{"kind", "unlimited"}, {"start_ms", config.start_ms}};
      break;
  }
  Json streams = Json::object();
  for (const auto& [k, v] : config.streams_config) streams[k] = v;
  Json j{{"label", config.label},
         {"window", window},
         {"emit", config.emit_final ? "ON_WINDOW_CLOSE" : "ON_WINDOW_UPDATE"},
         {"emit_interval_ms", config.emit_interval_ms},
         {"store", config.in_memory_store ? "in_memory" : "persistent"}};
  if (config.retention_ms >= 0) j["retention_ms"] = config.retention_ms;
  if (config.aggregator != model::AggregatorKind::kCount) {
    j["aggregator"] = kAggregatorNames[static_cast<int>(config.aggregator)];
  }
  if (config.suppress) j["suppress"] = "untilWindowCloses";
  j["streams_config"] = std::move(streams);
  return j;
}

Status ConfigFromJson(const Json& json, Config* out) {
  // Parsed aside: a bad configuration leaves `*out` as it was.
  Config config;
  auto bad = [](const std::string& what) { return Status::InvalidArgument(what); };
  if (!json.is_object()) return bad("must be an object");
  STATECHECK_RETURN_IF_ERROR(CheckKeys(json,
                                       {"label", "window", "emit", "emit_interval_ms", "store",
                                        "retention_ms", "aggregator", "suppress", "streams_config"},
                                       "config"));
  if (json.contains("label")) {
    if (!json["label"].is_string()) return bad("\"label\" must be a string");
    config.label = json["label"].get<std::string>();
  }
  if (!json.contains("window") || !json["window"].is_object()) {
    return bad("needs \"window\": {\"kind\": \"time\"|\"sliding\"|\"session\"|\"unlimited\", ...}");
  }
  const Json& w = json["window"];
  auto field = [&](const char* name, int64_t* out) -> Status {
    if (!w.contains(name) || !IsInt64(w[name])) {
      return bad("window needs an integer \"" + std::string(name) + "\"");
    }
    *out = w[name].get<int64_t>();
    return Status::Ok();
  };
  const std::string kind = StringField(w, "kind", "");
  if (kind == "time") {
    STATECHECK_RETURN_IF_ERROR(
        CheckKeys(w, {"kind", "size_ms", "advance_ms", "grace_ms"}, "a time window"));
    config.kind = WindowKind::kTime;
    STATECHECK_RETURN_IF_ERROR(field("size_ms", &config.size_ms));
    STATECHECK_RETURN_IF_ERROR(field("advance_ms", &config.advance_ms));
  } else if (kind == "sliding") {
    STATECHECK_RETURN_IF_ERROR(
        CheckKeys(w, {"kind", "time_difference_ms", "grace_ms"}, "a sliding window"));
    config.kind = WindowKind::kSliding;
    STATECHECK_RETURN_IF_ERROR(field("time_difference_ms", &config.size_ms));
  } else if (kind == "session") {
    STATECHECK_RETURN_IF_ERROR(CheckKeys(w, {"kind", "gap_ms", "grace_ms"}, "a session window"));
    config.kind = WindowKind::kSession;
    STATECHECK_RETURN_IF_ERROR(field("gap_ms", &config.size_ms));
  } else if (kind == "unlimited") {
    STATECHECK_RETURN_IF_ERROR(CheckKeys(w, {"kind", "start_ms"}, "an unlimited window"));
    config.kind = WindowKind::kUnlimited;
    if (w.contains("start_ms")) STATECHECK_RETURN_IF_ERROR(field("start_ms", &config.start_ms));
  } else {
    return bad("window \"kind\" must be \"time\", \"sliding\", \"session\" or \"unlimited\"");
  }
  if (config.kind != WindowKind::kUnlimited) {
    STATECHECK_RETURN_IF_ERROR(field("grace_ms", &config.grace_ms));
  }
  const std::string emit = StringField(json, "emit", "");
  if (emit != "ON_WINDOW_UPDATE" && emit != "ON_WINDOW_CLOSE") {
    return bad("\"emit\" must be \"ON_WINDOW_UPDATE\" or \"ON_WINDOW_CLOSE\"");
  }
  config.emit_final = emit == "ON_WINDOW_CLOSE";
  if (json.contains("emit_interval_ms")) {
    if (!IsInt64(json["emit_interval_ms"]) || json["emit_interval_ms"].get<int64_t>() < 0) {
      return bad("\"emit_interval_ms\" must be an integer >= 0");
    }
    config.emit_interval_ms = json["emit_interval_ms"].get<int64_t>();
  }
  const std::string store = StringField(json, "store", "persistent");
  if (store != "persistent" && store != "in_memory") {
    return bad("\"store\" must be \"persistent\" or \"in_memory\"");
  }
  config.in_memory_store = store == "in_memory";
  if (config.in_memory_store && config.kind != WindowKind::kTime) {
    return bad("the in-memory window store holds time windows only");
  }
  if (json.contains("retention_ms")) {
    if (!IsInt64(json["retention_ms"]) || json["retention_ms"].get<int64_t>() < 0) {
      return bad("\"retention_ms\" must be an integer >= 0 (Materialized.withRetention)");
    }
    if (config.kind != WindowKind::kTime) {
      return bad("\"retention_ms\" is modelled for time windows only");
    }
    config.retention_ms = json["retention_ms"].get<int64_t>();
  }
  const std::string aggregator = StringField(json, "aggregator", "count");
  int kind_index = 0;
  while (kind_index < 3 && aggregator != kAggregatorNames[kind_index]) ++kind_index;
  if (kind_index == 3) return bad("\"aggregator\" must be \"count\", \"reduce\" or \"aggregate\"");
  config.aggregator = static_cast<model::AggregatorKind>(kind_index);
  if (json.contains("suppress")) {
    if (json["suppress"] != "untilWindowCloses") {
      return bad("\"suppress\" must be \"untilWindowCloses\" (Suppressed.untilWindowCloses)");
    }
    if (config.kind == WindowKind::kUnlimited) {
      return bad(
          "suppress(untilWindowCloses) is modelled over time, sliding and session windows "
          "(an unlimited window never closes: nothing would come out)");
    }
    config.suppress = true;
  }
  if (json.contains("streams_config")) {
    if (!json["streams_config"].is_object()) return bad("\"streams_config\" must be an object");
    for (const auto& [k, v] : json["streams_config"].items()) {
      if (!v.is_string()) return bad("streams_config \"" + k + "\" must be a string");
      config.streams_config[k] = v.get<std::string>();
    }
  }
  *out = std::move(config);
  return Status::Ok();
}

Status Vocabulary::OpFromJson(const Json& j, Op* op) {
  Op read;
  STATECHECK_RETURN_IF_ERROR(windowed::OpFromJson(j, &read));
  STATECHECK_RETURN_IF_ERROR(
      CheckKeys(j, KeysOf(windowed::OpToJson(read), {"expect"}),
                "a " + std::string(kOpNames[static_cast<int>(read.type)]) + " step"));
  *op = std::move(read);
  return Status::Ok();
}

Status Vocabulary::CheckExpect(const Op& op, const Json& expect) {
  return windowed::CheckExpect(expect, op.type);
}

}  // namespace statecheck::properties::windowed
