#include "properties/windowed/in_memory_aggregation_store.h"

#include <memory>

#include "properties/windowed/aggregation_stores.h"
#include "statecheck/window_store.h"

namespace statecheck::properties::windowed {

Status ReadInMemoryTimeWindowAggregates(Task& task, const std::string& store, int64_t size_ms,
                                        std::map<std::string, std::string>* out) {
  out->clear();
  ReadOnlyWindowStore* ws = task.GetWindowStore(store);
  if (!ws) return Status::NotFound("the task has no in-memory window store " + store);
  if (ws->window_size_ms() != size_ms) {
    // The end is computed from `size_ms`, like the key-value reader does: a store of another
    // size is not the aggregation's.
    return Status::InvalidArgument("window store " + store + " has windows of " +
                                   std::to_string(ws->window_size_ms()) + " ms, not " +
                                   std::to_string(size_ms));
  }
  std::unique_ptr<WindowStoreIterator> it;
  STATECHECK_RETURN_IF_ERROR(ws->All(&it));
  WindowedRecord r;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&r));
    if (r.value.size() < 8) {
      return Status::Corruption("a time-window aggregate record of window store " + store +
                                " with a value of " + std::to_string(r.value.size()) + " bytes");
    }
    const int64_t start = r.window.start;
    (*out)[std::to_string(start) + ":" + std::to_string(SaturatingAdd(start, size_ms)) + ":" +
           r.key] = r.value.substr(8) + "@" + std::to_string(BigEndianAt(r.value));
  }
  return Status::Ok();
}

}  // namespace statecheck::properties::windowed
