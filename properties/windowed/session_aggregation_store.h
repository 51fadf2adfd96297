// The property's own reader of a session-window aggregation's store
// (statecheck/session_aggregation.h): it decodes the bytes on disk independently of the engine's
// code (the check must not trust the code under test), into the form the models give
// (model::AggregationModel::CommittedWindows): "<start>:<end>:<key>" → "<aggregate>@<end>" (a
// session's largest record timestamp is its end).
#ifndef STATECHECK_PROPERTIES_WINDOWED_SESSION_AGGREGATION_STORE_H_
#define STATECHECK_PROPERTIES_WINDOWED_SESSION_AGGREGATION_STORE_H_

#include <map>
#include <string>

#include "statecheck/key_value_store.h"
#include "statecheck/status.h"

namespace statecheck::properties::windowed {

// The store holds two records per session:
//   time index 'T' [end, 8 bytes BE] [key]                        → [start, 8 bytes BE] [count]
//   key index  'K' [key length, 4 bytes BE] [key] [end, 8 bytes BE] → [start, 8 bytes BE]
// The map is built from the time index. Corruption for a record of another form (a short key or
// value, an unknown first byte, a key length that disagrees with the key's size, an empty key,
// a negative start or start > end, a count that is not a positive decimal number), or when the
// two indexes do not name exactly the same sessions (a session in one and not the other, or
// with another start) — a merged-away session left in one index shows up here.
// `counts`: the aggregates must be counts (count()); else any bytes (reduce, aggregate).
Status ReadSessionAggregates(ReadOnlyKeyValueStore& store, bool counts,
                             std::map<std::string, std::string>* out);

}  // namespace statecheck::properties::windowed

#endif  // STATECHECK_PROPERTIES_WINDOWED_SESSION_AGGREGATION_STORE_H_
