#include "properties/store_state.h"

#include <memory>

namespace statecheck::properties {

Status ReadStoreState(ReadOnlyKeyValueStore& reader, model::StoreState* out) {
  out->clear();
  std::unique_ptr<KeyValueIterator> it;
  STATECHECK_RETURN_IF_ERROR(reader.All(&it));
  KeyValue kv;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&kv));
    (*out)[kv.key] = kv.value;
  }
  return Status::Ok();
}

}  // namespace statecheck::properties
