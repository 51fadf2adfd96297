#include "properties/key_value/ops.h"

#include <algorithm>
#include <utility>

namespace statecheck::properties::key_value {
Json PositionJson(const Position& position) {
  Json j = Json::object();
  for (const auto& [partition, offset] : position) j[partition] = offset;
  return j;
}

Json OpToJson(const Op& op) {
  Json j;
  j["op"] = kOpNames[static_cast<int>(op.type)];
  switch (op.type) {
    case OpType::kPut:
    case OpType::kPutIfAbsent:
      j["key"] = EscapeBytes(op.key);
      j["value"] = BytesJson(op.value);
      break;
    case OpType::kDelete:
    case OpType::kGet:
    case OpType::kIqGet:
      j["key"] = EscapeBytes(op.key);
      break;
    case OpType::kPrefixScan:
      j["prefix"] = EscapeBytes(op.key);
      break;
    case OpType::kPutAll: {
      Json kvs = Json::array();
      for (const auto& [k, v] : op.kvs) kvs.push_back(Json::array({EscapeBytes(k), BytesJson(v)}));
      j["kvs"] = std::move(kvs);
      break;
    }
    case OpType::kRange:
    case OpType::kReverseRange:
    case OpType::kIqRange:
      j["from"] = BytesJson(op.from);
      j["to"] = BytesJson(op.to);
      break;
    case OpType::kCommit: {
      Json offsets = Json::object();
      for (const auto& [p, o] : op.offsets) offsets[p] = o ? Json(*o) : Json(nullptr);
      j["offsets"] = std::move(offsets);
      break;
    }
    default:
      break;
  }
  if (op.context) j["context"] = Json::array({op.context->partition, op.context->offset});
  return j;
}

Status OpFromJson(const Json& j, Op* out) {
  if (!j.is_object()) return Status::InvalidArgument("an operation must be a JSON object");
  auto name = j.find("op");
  if (name == j.end() || !name->is_string()) {
    return Status::InvalidArgument(
        "an operation needs \"op\": one of put, delete, putIfAbsent, "
        "putAll, get, range, reverseRange, prefixScan, all, "
        "reverseAll, iqGet, iqRange, iqReverseAll, commit, rollback, "
        "reopen, crash");
  }
  const auto* found = std::find(std::begin(kOpNames), std::end(kOpNames), name->get<std::string>());
  if (found == std::end(kOpNames)) {
    return Status::InvalidArgument("unknown op " + name->dump() +
                                   " (a kv_store trace takes put, delete, putIfAbsent, putAll, "
                                   "get, range, reverseRange, prefixScan, all, reverseAll, iqGet, "
                                   "iqRange, iqReverseAll, commit, rollback, reopen, crash)");
  }
  Op op;
  op.type = static_cast<OpType>(found - std::begin(kOpNames));
  const Json* f = nullptr;
  switch (op.type) {
    case OpType::kPut:
    case OpType::kPutIfAbsent:
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "key", &f));
      STATECHECK_RETURN_IF_ERROR(ReadBytes(*f, "\"key\"", &op.key));
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "value", &f));
      STATECHECK_RETURN_IF_ERROR(ReadNullableBytes(*f, "\"value\"", &op.value));
      if (op.type == OpType::kPutIfAbsent && !op.value) {
        return Status::InvalidArgument("\"value\" of a putIfAbsent must be a string");
      }
      break;
    case OpType::kDelete:
    case OpType::kGet:
    case OpType::kIqGet:
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "key", &f));
      STATECHECK_RETURN_IF_ERROR(ReadBytes(*f, "\"key\"", &op.key));
      break;
    case OpType::kPrefixScan:
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "prefix", &f));
      STATECHECK_RETURN_IF_ERROR(ReadBytes(*f, "\"prefix\"", &op.key));
      break;
    case OpType::kPutAll:
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "kvs", &f));
      if (!f->is_array())
        return Status::InvalidArgument("\"kvs\" must be an array of [key, value]");
      for (const Json& kv : *f) {
        if (!kv.is_array() || kv.size() != 2) {
          return Status::InvalidArgument("each of \"kvs\" must be [key, value or null]");
        }
        std::string key;
        std::optional<std::string> value;
        STATECHECK_RETURN_IF_ERROR(ReadBytes(kv[0], "a key of \"kvs\"", &key));
        STATECHECK_RETURN_IF_ERROR(ReadNullableBytes(kv[1], "a value of \"kvs\"", &value));
        op.kvs.emplace_back(std::move(key), std::move(value));
      }
      break;
    case OpType::kRange:
    case OpType::kReverseRange:
    case OpType::kIqRange:
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "from", &f));
      STATECHECK_RETURN_IF_ERROR(ReadNullableBytes(*f, "\"from\"", &op.from));
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "to", &f));
      STATECHECK_RETURN_IF_ERROR(ReadNullableBytes(*f, "\"to\"", &op.to));
      break;
    case OpType::kCommit:
      STATECHECK_RETURN_IF_ERROR(FieldOf(j, "offsets", &f));
      if (!f->is_object()) {
        return Status::InvalidArgument(
            "\"offsets\" must be an object: partition -> offset or null");
      }
      for (const auto& [partition, offset] : f->items()) {
        if (offset.is_null()) {
          op.offsets[partition] = std::nullopt;
          continue;
        }
        int64_t o = 0;
        STATECHECK_RETURN_IF_ERROR(ReadInt64(offset, "\"offsets\": \"" + partition + "\"", &o));
        op.offsets[partition] = o;
      }
      break;
    default:
      break;
  }
  if (auto c = j.find("context"); c != j.end()) {
    if (!IsWrite(op.type)) {
      return Status::InvalidArgument(
          "\"context\" is taken by writes only (put, delete, "
          "putIfAbsent, putAll)");
    }
    if (!c->is_array() || c->size() != 2 || !(*c)[0].is_string()) {
      return Status::InvalidArgument("\"context\" must be [input partition, offset]");
    }
    RecordContext ctx;
    ctx.partition = (*c)[0].get<std::string>();
    STATECHECK_RETURN_IF_ERROR(ReadInt64((*c)[1], "the offset of \"context\"", &ctx.offset));
    op.context = std::move(ctx);
  }
  STATECHECK_RETURN_IF_ERROR(
      CheckKeys(j, KeysOf(OpToJson(op), {"context"}),
                "a " + std::string(kOpNames[static_cast<int>(op.type)]) + " step"));
  *out = std::move(op);
  return Status::Ok();
}

}  // namespace statecheck::properties::key_value
