#include "properties/kv_store/ops.h"

#include <utility>

namespace statecheck::properties::kv_store {
Json Vocabulary::ConfigToJson(const Config& config) {
  Json props = Json::object();
  for (const auto& [k, v] : config.streams_config) props[k] = v;
  return Json{{"label", config.label},
              {"streams_config", std::move(props)},
              {"use_wal", config.use_wal},
              {"write_buffer_size", config.write_buffer_size}};
}

Status Vocabulary::ConfigFromJson(const Json& j, Config* config) {
  if (!j.is_object()) return Status::InvalidArgument("must be an object");
  STATECHECK_RETURN_IF_ERROR(
      CheckKeys(j, {"label", "streams_config", "use_wal", "write_buffer_size"}, "the config"));
  Config c;
  if (auto it = j.find("label"); it != j.end()) {
    if (!it->is_string()) return Status::InvalidArgument("\"label\" must be a string");
    c.label = it->get<std::string>();
  }
  const Json* props = nullptr;
  STATECHECK_RETURN_IF_ERROR(FieldOf(j, "streams_config", &props));
  if (!props->is_object()) {
    return Status::InvalidArgument("\"streams_config\" must be an object of strings");
  }
  for (const auto& [k, v] : props->items()) {
    if (!v.is_string()) {
      return Status::InvalidArgument("\"streams_config\": \"" + k + "\" must be a string");
    }
    c.streams_config[k] = v.get<std::string>();
  }
  if (auto it = j.find("use_wal"); it != j.end()) {
    if (!it->is_boolean()) return Status::InvalidArgument("\"use_wal\" must be true or false");
    c.use_wal = it->get<bool>();
  }
  if (auto it = j.find("write_buffer_size"); it != j.end()) {
    STATECHECK_RETURN_IF_ERROR(ReadInt64(*it, "\"write_buffer_size\"", &c.write_buffer_size));
    if (c.write_buffer_size < 0) {
      return Status::InvalidArgument("\"write_buffer_size\" must be 0 (RocksDB's default) or more");
    }
  }
  *config = std::move(c);
  return Status::Ok();
}

}  // namespace statecheck::properties::kv_store
