// The property's reader of a time-window aggregation kept in an in-memory window store of the
// task (statecheck/windowed_aggregation.h, AggregationStoreType::kInMemory). Like
// properties/windowed/aggregation_stores.h it decodes the aggregate bytes itself, independently of
// the engine's code, into the form the models give: "<start>:<end>:<key>" → "<count>@<largest
// record timestamp>".
#ifndef STATECHECK_PROPERTIES_WINDOWED_IN_MEMORY_AGGREGATION_STORE_H_
#define STATECHECK_PROPERTIES_WINDOWED_IN_MEMORY_AGGREGATION_STORE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "statecheck/status.h"
#include "statecheck/task.h"
#include "statecheck/windowed_aggregation.h"

namespace statecheck::properties::windowed {

// Every live record of window store `store` of `task` (Task::GetWindowStore: the writer's view,
// uncommitted writes included — read it right after the task opened, when it holds exactly what
// the restore gave): key = the record's key, window start = the window's start, value [largest
// record timestamp, 8 bytes big-endian][count]; the window's end is start + `size_ms`.
// NotFound when the task has no such window store (or is closed); InvalidArgument when the
// store's window size is not `size_ms`; Corruption for a value shorter than 8 bytes.
Status ReadInMemoryTimeWindowAggregates(Task& task, const std::string& store, int64_t size_ms,
                                        std::map<std::string, std::string>* out);

// An interactive query `query` of that store through its own API (ReadOnlyWindowStore's Fetch,
// FetchAll and their Backward variants: W6's bound and W7's order are the store's), decoded as
// above, in the order the store returned the records. The same errors.
Status QueryInMemoryTimeWindowAggregates(Task& task, const std::string& store, int64_t size_ms,
                                         const WindowAggregateQuery& query,
                                         std::vector<WindowedAggregate>* out);

}  // namespace statecheck::properties::windowed

#endif  // STATECHECK_PROPERTIES_WINDOWED_IN_MEMORY_AGGREGATION_STORE_H_
