// Every record a key-value store (or a query view of it) holds, as the models keep a store's
// state: what the task family's checks and the crash runner compare with their models.
#ifndef STATECHECK_PROPERTIES_STORE_STATE_H_
#define STATECHECK_PROPERTIES_STORE_STATE_H_

#include "model/task_model.h"
#include "statecheck/key_value_store.h"
#include "statecheck/status.h"

namespace statecheck::properties {

// Every record `reader` (a store or a query view) holds, read with All().
Status ReadStoreState(ReadOnlyKeyValueStore& reader, model::StoreState* out);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_STORE_STATE_H_
