#include "properties/task/ops.h"

#include <iterator>
#include <limits>

#include "model/state_config_model.h"
#include "properties/kit/json_lines.h"
#include "statecheck/hooks/fail_points.h"

namespace statecheck::properties::task {
namespace {

constexpr const char* kErrorNames[] = {"EIO", "ENOSPC", "short write"};

// An integer that fits in int64 (JSON numbers above it are unsigned in nlohmann::json).
bool IsInt64(const Json& v) {
  return v.is_number_integer() &&
         (!v.is_number_unsigned() ||
          v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

Status TearSeed(const Json& j, const std::string& name, uint64_t* out) {
  if (!j.contains("tear_seed")) return Status::Ok();
  const Json& seed = j["tear_seed"];
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0)) {
    return Status::InvalidArgument(name + ": tear_seed is a number from 0 to 2^64-1, not " +
                                   seed.dump());
  }
  *out = seed.get<uint64_t>();
  return Status::Ok();
}

Status FormatField(const Json& j, const std::string& name, StateFormat* out) {
  const std::string f = j.contains("format") && j["format"].is_string() ? j["format"] : "";
  if (f != "legacy" && f != "current") {
    return Status::InvalidArgument(name + ": field \"format\" is \"legacy\" or \"current\"");
  }
  *out = f == "legacy" ? StateFormat::kLegacy : StateFormat::kCurrent;
  return Status::Ok();
}

template <size_t N>
Status OneOf(const Json& j, const std::string& name, const char* field,
             const char* const (&allowed)[N], std::string* out) {
  const std::string v = j.contains(field) && j[field].is_string() ? j[field] : "";
  for (const char* a : allowed) {
    if (v == a) {
      *out = v;
      return Status::Ok();
    }
  }
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  return Status::InvalidArgument(name + ": field \"" + field + "\" is one of " + list);
}

}  // namespace

Json OpToJson(const Op& op) {
  Json j;
  j["op"] = kOpNames[static_cast<int>(op.type)];
  if (op.type == OpType::kAppend) {
    Json records = Json::array();
    for (const auto& [k, v] : op.records) {
      records.push_back(Json::array({EscapeBytes(k), v ? Json(EscapeBytes(*v)) : Json(nullptr)}));
    }
    j["records"] = std::move(records);
  }
  if (op.type == OpType::kProcess) j["max_records"] = op.n;
  if (op.type == OpType::kAdvanceClock) j["ms"] = op.n;
  if (op.type == OpType::kRestartAs || op.type == OpType::kDamageFile) {
    j["clean"] = op.clean;
  }
  if (op.type == OpType::kDamageFile) {
    j["file"] = op.file;
    j["damage"] = op.damage;
  }
  if (op.type == OpType::kDamageLog || op.type == OpType::kDamageStore) {
    j["damage"] = op.damage;
    j["at"] = op.n;
  }
  if (op.type == OpType::kRestartAs || op.type == OpType::kDamageFile ||
      op.type == OpType::kFaultyUpgrade) {
    j["format"] = StateFormatName(op.format);
  }
  if (op.type == OpType::kFaultyCommit || op.type == OpType::kFaultyUpgrade ||
      op.type == OpType::kFaultyRestore || op.type == OpType::kFaultyRead ||
      op.type == OpType::kFaultyClose) {
    if (op.type == OpType::kFaultyCommit) j["process"] = op.k;
    j["point"] = op.point;
    j["n"] = op.n;
    j["error"] = kErrorNames[static_cast<int>(op.error)];
    if (op.type == OpType::kFaultyCommit) j["keep_going"] = op.keep_going;
  }
  if (op.type == OpType::kCrash || op.type == OpType::kFaultyCommit ||
      op.type == OpType::kFaultyRestore || op.type == OpType::kRestartAs ||
      op.type == OpType::kDamageFile || op.type == OpType::kFaultyUpgrade) {
    j["tear_seed"] = op.tear_seed;
  }
  return j;
}

std::string OpToString(const Op& op) {
  // Points and files name what the trace said; invalid UTF-8 is replaced, not thrown.
  return OpToJson(op).dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json SetupJson(const Setup& setup) {
  return Json{{"commit_interval_records", setup.commit_interval_records},
              {"commit_interval_ms", setup.commit_interval_ms},
              {"uncommitted_max_bytes", setup.uncommitted_max_bytes},
              {"changelog_compaction", setup.changelog_compaction},
              {"log_batch_bytes", setup.log_batch_bytes},
              {"log_segment_bytes", setup.log_segment_bytes},
              {"rocksdb_options_files", setup.rocksdb_options_files},
              {"max_unflushed_bytes", setup.max_unflushed_bytes}};
}

Status SetupFromJson(const Json& j, Setup* setup) {
  if (!j.is_object()) return Status::InvalidArgument("setup: must be a JSON object");
  STATECHECK_RETURN_IF_ERROR(CheckKeys(
      j,
      {"commit_interval_records", "commit_interval_ms", "uncommitted_max_bytes",
       "changelog_compaction", "log_batch_bytes", "log_segment_bytes", "rocksdb_options_files",
       "max_unflushed_bytes"},
      "setup"));
  // Optional: traces from before them never compacted, and wrote each record as it came.
  if (j.contains("changelog_compaction") && !j["changelog_compaction"].is_boolean()) {
    return Status::InvalidArgument("setup: field \"changelog_compaction\" is true or false");
  }
  if (j.contains("log_batch_bytes") &&
      (!IsInt64(j["log_batch_bytes"]) || j["log_batch_bytes"].get<int64_t>() < 0)) {
    return Status::InvalidArgument(
        "setup: field \"log_batch_bytes\" is an integer >= 0 (0: each record written alone)");
  }
  if (j.contains("log_segment_bytes") &&
      (!IsInt64(j["log_segment_bytes"]) || j["log_segment_bytes"].get<int64_t>() < 1)) {
    return Status::InvalidArgument(
        "setup: field \"log_segment_bytes\" is an integer >= 1 (the bytes at which a log "
        "segment rolls)");
  }
  if (j.contains("rocksdb_options_files") && !j["rocksdb_options_files"].is_boolean()) {
    return Status::InvalidArgument("setup: field \"rocksdb_options_files\" is true or false");
  }
  if (j.contains("max_unflushed_bytes") &&
      (!IsInt64(j["max_unflushed_bytes"]) || j["max_unflushed_bytes"].get<int64_t>() < -1)) {
    return Status::InvalidArgument(
        "setup: field \"max_unflushed_bytes\" is an integer >= -1 (-1: no bound)");
  }
  for (const char* field :
       {"commit_interval_records", "commit_interval_ms", "uncommitted_max_bytes"}) {
    if (!j.contains(field) || !IsInt64(j[field])) {
      return Status::InvalidArgument(std::string("setup: missing integer field \"") + field + "\"");
    }
  }
  setup->commit_interval_records = j["commit_interval_records"].get<int64_t>();
  setup->commit_interval_ms = j["commit_interval_ms"].get<int64_t>();
  setup->uncommitted_max_bytes = j["uncommitted_max_bytes"].get<int64_t>();
  setup->changelog_compaction = j.value("changelog_compaction", false);
  setup->log_batch_bytes = j.value("log_batch_bytes", int64_t{0});
  setup->log_segment_bytes = j.value("log_segment_bytes", LogOptions{}.segment_bytes);
  setup->rocksdb_options_files = j.value("rocksdb_options_files", true);
  setup->max_unflushed_bytes =
      j.value("max_unflushed_bytes", TaskOptions{}.store_max_unflushed_bytes);
  return Status::Ok();
}

Status OpFromJson(const Json& j, Op* op) {
  *op = Op();
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string()) {
    return Status::InvalidArgument("missing field \"op\"");
  }
  const std::string name = j["op"].get<std::string>();
  int type = -1;
  for (int i = 0; i < static_cast<int>(std::size(kOpNames)); ++i) {
    if (name == kOpNames[i]) type = i;
  }
  if (type < 0) return Status::InvalidArgument("unknown op \"" + name + "\"");
  op->type = static_cast<OpType>(type);
  auto integer = [&](const char* field, int64_t* out) {
    if (!j.contains(field) || !IsInt64(j[field])) {
      return Status::InvalidArgument(name + ": missing integer field \"" + field + "\"");
    }
    *out = j[field].get<int64_t>();
    return Status::Ok();
  };
  switch (op->type) {
    case OpType::kAppend:
      if (!j.contains("records") || !j["records"].is_array()) {
        return Status::InvalidArgument("append: missing array field \"records\"");
      }
      for (const Json& r : j["records"]) {
        if (!r.is_array() || r.size() != 2 || !r[0].is_string() ||
            !(r[1].is_string() || r[1].is_null())) {
          return Status::InvalidArgument("append: a record is [key, value or null]");
        }
        std::string key, value;
        Status s = UnescapeBytes(r[0].get<std::string>(), &key);
        if (!s.ok()) return Status::InvalidArgument("append: a record's key: " + s.message());
        std::optional<std::string> v;
        if (r[1].is_string()) {
          s = UnescapeBytes(r[1].get<std::string>(), &value);
          if (!s.ok()) return Status::InvalidArgument("append: a record's value: " + s.message());
          v = std::move(value);
        }
        op->records.emplace_back(std::move(key), std::move(v));
      }
      return Status::Ok();
    case OpType::kProcess:
      return integer("max_records", &op->n);
    case OpType::kAdvanceClock:
      return integer("ms", &op->n);
    case OpType::kRestartAs:
    case OpType::kDamageFile:
      if (!j.contains("clean") || !j["clean"].is_boolean()) {
        return Status::InvalidArgument(name + ": missing boolean field \"clean\"");
      }
      op->clean = j["clean"].get<bool>();
      if (op->type == OpType::kDamageFile) {
        STATECHECK_RETURN_IF_ERROR(OneOf(j, name, "file", kLegacyFiles, &op->file));
        STATECHECK_RETURN_IF_ERROR(OneOf(j, name, "damage", kDamages, &op->damage));
      }
      STATECHECK_RETURN_IF_ERROR(FormatField(j, name, &op->format));
      return TearSeed(j, name, &op->tear_seed);
    case OpType::kFaultyRestore:
    case OpType::kFaultyUpgrade:
    case OpType::kFaultyCommit:
    case OpType::kFaultyRead:
    case OpType::kFaultyClose: {
      if (op->type == OpType::kFaultyRestore && !j.contains("point")) {
        // Traces from before faultyRestore had a point: the restore's own, at its first reach.
        op->point = kFailTaskRestoreBatch;
        op->n = 1;
        return TearSeed(j, name, &op->tear_seed);
      }
      STATECHECK_RETURN_IF_ERROR(integer("n", &op->n));
      if (op->type == OpType::kFaultyCommit) {
        STATECHECK_RETURN_IF_ERROR(integer("process", &op->k));
        if (j.contains("keep_going")) {  // Absent (traces from before F8): a crash.
          if (!j["keep_going"].is_boolean()) {
            return Status::InvalidArgument(name + ": field \"keep_going\" is true or false");
          }
          op->keep_going = j["keep_going"].get<bool>();
        }
      } else if (op->type == OpType::kFaultyUpgrade) {
        STATECHECK_RETURN_IF_ERROR(FormatField(j, name, &op->format));
      }
      if (!j.contains("point") || !j["point"].is_string()) {
        return Status::InvalidArgument(name + ": missing string field \"point\"");
      }
      op->point = j["point"].get<std::string>();
      if (j.contains("error")) {  // Absent: EIO.
        std::string error;
        STATECHECK_RETURN_IF_ERROR(OneOf(j, name, "error", kErrorNames, &error));
        op->error = error == "ENOSPC"        ? faults::FaultSpec::Error::kNoSpace
                    : error == "short write" ? faults::FaultSpec::Error::kShortWrite
                                             : faults::FaultSpec::Error::kIO;
      }
      if (op->type == OpType::kFaultyRead) return Status::Ok();
      if (op->type == OpType::kFaultyClose) {
        // Only the marker write is a close's own step; a commit's faults are faultyCommit's.
        if (op->point != kFailStoreCloseMarker) {
          return Status::InvalidArgument(name + ": \"point\" is " +
                                         std::string(kFailStoreCloseMarker) +
                                         " (a close's commit fails through faultyCommit)");
        }
        return Status::Ok();
      }
      [[fallthrough]];
    }
    case OpType::kCrash:
      return TearSeed(j, name, &op->tear_seed);
    case OpType::kDamageLog:
    case OpType::kDamageStore:
      STATECHECK_RETURN_IF_ERROR(OneOf(j, name, "damage", kLogDamages, &op->damage));
      STATECHECK_RETURN_IF_ERROR(integer("at", &op->n));
      if (op->n < 0) return Status::InvalidArgument(name + ": \"at\" is not negative");
      return Status::Ok();
    case OpType::kCommit:
    case OpType::kRestart:
      return Status::Ok();
  }
  return Status::InvalidArgument("unknown op \"" + name + "\"");
}

std::vector<Config> T1Rows() {
  std::vector<Config> out;
  for (const model::T1Configuration& row : model::T1Configurations()) {
    Config c;
    c.label = row.label;
    c.streams_config = row.props;
    // The stores' WAL on in one row of each guarantee.
    c.use_wal = row.label == "alos_ru" || row.label == "eos_rc";
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Config> OptionMatrix() {
  std::vector<Config> out = T1Rows();
  for (Config row : T1Rows()) {
    row.label += "_powerloss";
    row.power_loss = true;
    out.push_back(std::move(row));
  }
  for (Config row : T1Rows()) {
    row.label += "_formats";
    row.power_loss = true;
    row.format_switches = true;
    out.push_back(std::move(row));
  }
  // Interleaved — the kinds (formats, power loss, process crashes), the guarantees and the
  // isolation levels taking turns — so that a short campaign, which runs the configurations in
  // this order and may end before the last ones, reaches every kind of situation early.
  constexpr const char* kOrder[] = {"eos_ru_formats",     "alos_unset_powerloss", "eos_rc",
                                    "alos_rc_formats",    "eos_ru_powerloss",     "alos_unset",
                                    "eos_unset_formats",  "alos_rc_powerloss",    "eos_ru",
                                    "alos_unset_formats", "eos_rc_powerloss",     "alos_rc",
                                    "eos_rc_formats",     "alos_ru_powerloss",    "eos_unset",
                                    "alos_ru_formats",    "eos_unset_powerloss",  "alos_ru"};
  std::vector<Config> ordered;
  for (const char* label : kOrder) {
    for (Config& c : out) {
      if (c.label == label) ordered.push_back(std::move(c));
    }
  }
  return ordered;
}

Status Vocabulary::ConfigFromJson(const Json& j, Config* config) {
  if (!j.is_string() || j.get_ref<const std::string&>().empty()) {
    return Status::InvalidArgument("a task trace's \"config\" is a configuration's label");
  }
  std::string labels;
  for (Config& c : OptionMatrix()) {
    if (c.label == j.get_ref<const std::string&>()) {
      c.setup = config->setup;
      *config = std::move(c);
      return Status::Ok();
    }
    labels += (labels.empty() ? "" : ", ") + c.label;
  }
  return Status::InvalidArgument("unknown task configuration " + j.dump() + " (one of " + labels +
                                 ")");
}

Status Vocabulary::OpFromJson(const Json& j, Op* op) {
  Op read;
  STATECHECK_RETURN_IF_ERROR(task::OpFromJson(j, &read));
  // The keys OpToJson writes for the op: every field it takes, optional ones included.
  STATECHECK_RETURN_IF_ERROR(
      CheckKeys(j, KeysOf(task::OpToJson(read)),
                "a " + std::string(kOpNames[static_cast<int>(read.type)]) + " step"));
  *op = std::move(read);
  return Status::Ok();
}

const std::vector<std::string>& Vocabulary::HeaderKeys() {
  static const std::vector<std::string> keys = {"setup"};
  return keys;
}

Status Vocabulary::HeaderFromJson(const Json& keys, Config* config) {
  if (!keys.contains("setup")) {
    return Status::InvalidArgument("the header needs \"setup\": the case's settings");
  }
  return SetupFromJson(keys["setup"], &config->setup);
}

Status Vocabulary::CheckExpect(const Op& op, const Json&) {
  return Status::InvalidArgument(
      "a task step takes no \"expect\" (a " + std::string(kOpNames[static_cast<int>(op.type)]) +
      " step is checked against the task model, as the property checks it)");
}

}  // namespace statecheck::properties::task
