#include "properties/key_value/ops.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace statecheck::properties::key_value {
namespace {

Json Bytes(const std::optional<std::string>& s) {
  return s ? Json(EscapeBytes(*s)) : Json(nullptr);
}

Status ReadBytes(const Json& j, const std::string& what, std::string* out) {
  if (!j.is_string()) return Status::InvalidArgument(what + " must be a string");
  Status s = UnescapeBytes(j.get<std::string>(), out);
  return s.ok() ? s : Status::InvalidArgument(what + ": " + s.message());
}

Status ReadNullableBytes(const Json& j, const std::string& what, std::optional<std::string>* out) {
  if (j.is_null()) {
    out->reset();
    return Status::Ok();
  }
  std::string bytes;
  if (!j.is_string()) return Status::InvalidArgument(what + " must be a string or null");
  STATECHECK_RETURN_IF_ERROR(ReadBytes(j, what, &bytes));
  *out = std::move(bytes);
  return Status::Ok();
}

Status Field(const Json& j, const char* name, const Json** out) {
  auto it = j.find(name);
  if (it == j.end()) return Status::InvalidArgument(std::string("missing field \"") + name + "\"");
  *out = &*it;
  return Status::Ok();
}

Status ReadInt(const Json& j, const std::string& what, int64_t* out) {
  if (!j.is_number_integer()) return Status::InvalidArgument(what + " must be an integer");
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()}) {
    return Status::InvalidArgument(what + " is out of range");
  }
  *out = j.get<int64_t>();
  return Status::Ok();
}

}  // namespace

Json OpToJson(const Op& op) {
  Json j;
  j["op"] = kOpNames[static_cast<int>(op.type)];
  switch (op.type) {
    case OpType::kPut:
    case OpType::kPutIfAbsent:
      j["key"] = EscapeBytes(op.key);
      j["value"] = Bytes(op.value);
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
      for (const auto& [k, v] : op.kvs) kvs.push_back(Json::array({EscapeBytes(k), Bytes(v)}));
      j["kvs"] = std::move(kvs);
      break;
    }
    case OpType::kRange:
    case OpType::kReverseRange:
    case OpType::kIqRange:
      j["from"] = Bytes(op.from);
      j["to"] = Bytes(op.to);
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
      STATECHECK_RETURN_IF_ERROR(Field(j, "key", &f));
      STATECHECK_RETURN_IF_ERROR(ReadBytes(*f, "\"key\"", &op.key));
      STATECHECK_RETURN_IF_ERROR(Field(j, "value", &f));
      STATECHECK_RETURN_IF_ERROR(ReadNullableBytes(*f, "\"value\"", &op.value));
      if (op.type == OpType::kPutIfAbsent && !op.value) {
        return Status::InvalidArgument("\"value\" of a putIfAbsent must be a string");
      }
      break;
    case OpType::kDelete:
    case OpType::kGet:
    case OpType::kIqGet:
      STATECHECK_RETURN_IF_ERROR(Field(j, "key", &f));
      STATECHECK_RETURN_IF_ERROR(ReadBytes(*f, "\"key\"", &op.key));
      break;
    case OpType::kPrefixScan:
      STATECHECK_RETURN_IF_ERROR(Field(j, "prefix", &f));
      STATECHECK_RETURN_IF_ERROR(ReadBytes(*f, "\"prefix\"", &op.key));
      break;
    case OpType::kPutAll:
      STATECHECK_RETURN_IF_ERROR(Field(j, "kvs", &f));
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
      STATECHECK_RETURN_IF_ERROR(Field(j, "from", &f));
      STATECHECK_RETURN_IF_ERROR(ReadNullableBytes(*f, "\"from\"", &op.from));
      STATECHECK_RETURN_IF_ERROR(Field(j, "to", &f));
      STATECHECK_RETURN_IF_ERROR(ReadNullableBytes(*f, "\"to\"", &op.to));
      break;
    case OpType::kCommit:
      STATECHECK_RETURN_IF_ERROR(Field(j, "offsets", &f));
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
        STATECHECK_RETURN_IF_ERROR(ReadInt(offset, "\"offsets\": \"" + partition + "\"", &o));
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
    STATECHECK_RETURN_IF_ERROR(ReadInt((*c)[1], "the offset of \"context\"", &ctx.offset));
    op.context = std::move(ctx);
  }
  STATECHECK_RETURN_IF_ERROR(
      CheckKeys(j, KeysOf(OpToJson(op), {"context"}),
                "a " + std::string(kOpNames[static_cast<int>(op.type)]) + " step"));
  *out = std::move(op);
  return Status::Ok();
}

}  // namespace statecheck::properties::key_value
