// The property's own reader of a sliding-window aggregation's store
// (statecheck/sliding_aggregation.h): it decodes the bytes on disk independently of the engine's
// code (the check must not trust the code under test), into the form the models give
// (model::AggregationModel::CommittedWindows): "<start>:<end>:<key>" → "<count>@<largest record
// timestamp>", where end = start + the time difference (sliding windows include both ends).
#ifndef STATECHECK_PROPERTIES_SLIDING_AGGREGATION_STORE_H_
#define STATECHECK_PROPERTIES_SLIDING_AGGREGATION_STORE_H_

#include <cstdint>
#include <map>
#include <string>

#include "statecheck/key_value_store.h"
#include "statecheck/status.h"

namespace statecheck::properties {

// Key [start, 8 bytes big-endian][key], value [largest record timestamp, 8 bytes
// big-endian][count]. Corruption for a record of another form: a short key or value, a negative
// start, an empty key (the aggregation drops empty keys), or a count that is not a positive
// decimal number (every window holds at least one record).
Status ReadSlidingAggregates(ReadOnlyKeyValueStore& store, int64_t time_difference_ms,
                             std::map<std::string, std::string>* out);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_SLIDING_AGGREGATION_STORE_H_
