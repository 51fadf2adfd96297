// The property's own readers of the windowed aggregations' stores: they decode the bytes on disk
// independently of the engine's code (the check must not trust the code under test), into the
// form the models give (model::AggregationModel::CommittedWindows):
// "<start>:<end>:<key>" → "<aggregate>@<largest record timestamp>".
#ifndef STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_STORES_H_
#define STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_STORES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/key_value_store.h"
#include "statecheck/status.h"

namespace statecheck::properties::windowed {

// 8 big-endian bytes of `b` (which must hold 8) as a number.
int64_t BigEndianAt(std::string_view b);

// a + b for b >= 0, at most INT64_MAX: window ends (start + size) and timestamps near INT64_MAX
// saturate, as Kafka's bounds do.
int64_t SaturatingAdd(int64_t a, int64_t b);

// A time-window or sliding-window aggregation's store (statecheck/windowed_aggregation.h,
// sliding_aggregation.h): key [start, 8 bytes big-endian][key], value [largest record timestamp,
// 8 bytes big-endian][aggregate]; the window's end is SaturatingAdd(start, `size_ms`) (time
// windows: the size, exclusive; sliding windows: the time difference, inclusive). Corruption for a
// record of another form: a short key or value, a negative start, an empty key (the aggregations
// drop empty keys), or — with `counts`, a count()'s store — an aggregate that is not a positive
// decimal number (every window holds a record).
Status ReadTimeWindowAggregates(ReadOnlyKeyValueStore& store, int64_t size_ms, bool counts,
                                std::map<std::string, std::string>* out);

// A sliding-window aggregation's store (statecheck/sliding_aggregation.h): its windows as
// ReadTimeWindowAggregates reads them (`size_ms`: the time difference), and its key-first
// index, the records whose key starts with 0xFF: [0xFF][key length, 4 bytes big-endian][key]
// [start, 8 bytes big-endian] with an empty value. Corruption for an index record of another
// form. `*unindexed` gets the windows ("<start>:<end>:<key>") without an index record (E9: the
// per-record lookup would not find them). An index record without its window is no error: a
// crash under at-least-once can leave one (the engine writes the index record first).
Status ReadSlidingWindowAggregates(ReadOnlyKeyValueStore& store, int64_t size_ms, bool counts,
                                   std::map<std::string, std::string>* out,
                                   std::vector<std::string>* unindexed);

// An unlimited-window aggregation's store (statecheck/unlimited_aggregation.h): key [key], value
// [largest record timestamp, 8 bytes big-endian][aggregate]; every window is [`start_ms`,
// INT64_MAX]. Corruption for a record of another form, as above.
Status ReadUnlimitedAggregates(ReadOnlyKeyValueStore& store, int64_t start_ms, bool counts,
                               std::map<std::string, std::string>* out);

// The first few entries where `actual` and `expected` differ, as "+k=v" (only in actual),
// "-k=v" (only in expected) or "k: v, expected w".
std::string DescribeDifference(const std::map<std::string, std::string>& actual,
                               const std::map<std::string, std::string>& expected);

}  // namespace statecheck::properties::windowed

#endif  // STATECHECK_PROPERTIES_WINDOWED_AGGREGATION_STORES_H_
