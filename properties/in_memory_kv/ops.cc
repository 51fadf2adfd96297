#include "properties/in_memory_kv/ops.h"

#include <utility>

namespace statecheck::properties::in_memory_kv {

Json Vocabulary::ConfigToJson(const Config& config) { return Json{{"label", config.label}}; }

Status Vocabulary::ConfigFromJson(const Json& j, Config* config) {
  if (!j.is_object()) return Status::InvalidArgument("must be an object");
  STATECHECK_RETURN_IF_ERROR(CheckKeys(j, {"label"}, "the config"));
  Config c;
  if (auto it = j.find("label"); it != j.end()) {
    if (!it->is_string()) return Status::InvalidArgument("\"label\" must be a string");
    c.label = it->get<std::string>();
  }
  *config = std::move(c);
  return Status::Ok();
}

Status Vocabulary::OpFromJson(const Json& j, Op* out) {
  Op op;
  STATECHECK_RETURN_IF_ERROR(key_value::OpFromJson(j, &op));
  if (op.type == OpType::kReopen || op.type == OpType::kCrash) {
    return Status::InvalidArgument(std::string(key_value::kOpNames[static_cast<int>(op.type)]) +
                                   ": an in-memory store keeps nothing across a close, so an "
                                   "in_memory_kv trace has no restarts (a kv_store trace does)");
  }
  *out = std::move(op);
  return Status::Ok();
}

}  // namespace statecheck::properties::in_memory_kv
