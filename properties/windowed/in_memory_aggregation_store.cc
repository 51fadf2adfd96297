#include "properties/windowed/in_memory_aggregation_store.h"

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "properties/windowed/aggregation_stores.h"
#include "statecheck/window_store.h"

namespace statecheck::properties::windowed {

namespace {

// The aggregation's window store `store` of `task`, checked to hold windows of `size_ms`.
Status AggregationWindowStore(Task& task, const std::string& store, int64_t size_ms,
                              ReadOnlyWindowStore** out) {
  ReadOnlyWindowStore* ws = task.GetWindowStore(store);
  if (!ws) return Status::NotFound("the task has no in-memory window store " + store);
  if (ws->window_size_ms() != size_ms) {
    // The end is computed from `size_ms`, like the key-value reader does: a store of another
    // size is not the aggregation's.
    return Status::InvalidArgument("window store " + store + " has windows of " +
                                   std::to_string(ws->window_size_ms()) + " ms, not " +
                                   std::to_string(size_ms));
  }
  *out = ws;
  return Status::Ok();
}

// `f` on every record of `it`, decoded, until it fails.
Status ForEachAggregate(const std::string& store, int64_t size_ms, WindowStoreIterator* it,
                        const std::function<void(WindowedAggregate)>& f) {
  WindowedRecord r;
  while (it->HasNext()) {
    STATECHECK_RETURN_IF_ERROR(it->Next(&r));
    if (r.value.size() < 8) {
      return Status::Corruption("a time-window aggregate record of window store " + store +
                                " with a value of " + std::to_string(r.value.size()) + " bytes");
    }
    const int64_t start = r.window.start;
    f({Window{start, SaturatingAdd(start, size_ms)}, std::move(r.key), r.value.substr(8),
       BigEndianAt(r.value)});
  }
  return Status::Ok();
}

}  // namespace

Status ReadInMemoryTimeWindowAggregates(Task& task, const std::string& store, int64_t size_ms,
                                        std::map<std::string, std::string>* out) {
  out->clear();
  ReadOnlyWindowStore* ws = nullptr;
  STATECHECK_RETURN_IF_ERROR(AggregationWindowStore(task, store, size_ms, &ws));
  std::unique_ptr<WindowStoreIterator> it;
  STATECHECK_RETURN_IF_ERROR(ws->All(&it));
  return ForEachAggregate(store, size_ms, it.get(), [out](WindowedAggregate w) {
    (*out)[std::to_string(w.window.start) + ":" + std::to_string(w.window.end) + ":" + w.key] =
        w.aggregate + "@" + std::to_string(w.timestamp);
  });
}

Status QueryInMemoryTimeWindowAggregates(Task& task, const std::string& store, int64_t size_ms,
                                         const WindowAggregateQuery& q,
                                         std::vector<WindowedAggregate>* out) {
  out->clear();
  ReadOnlyWindowStore* ws = nullptr;
  STATECHECK_RETURN_IF_ERROR(AggregationWindowStore(task, store, size_ms, &ws));
  std::unique_ptr<WindowStoreIterator> it;
  const bool one_key = q.key_from && q.key_to && *q.key_from == *q.key_to;
  if (one_key) {
    STATECHECK_RETURN_IF_ERROR(q.backward
                                   ? ws->BackwardFetch(*q.key_from, q.time_from, q.time_to, &it)
                                   : ws->Fetch(*q.key_from, q.time_from, q.time_to, &it));
  } else if (!q.key_from && !q.key_to) {
    STATECHECK_RETURN_IF_ERROR(q.backward ? ws->BackwardFetchAll(q.time_from, q.time_to, &it)
                                          : ws->FetchAll(q.time_from, q.time_to, &it));
  } else {
    const auto bound = [](const std::optional<std::string>& b) {
      return b ? std::optional<std::string_view>(*b) : std::nullopt;
    };
    STATECHECK_RETURN_IF_ERROR(
        q.backward
            ? ws->BackwardFetch(bound(q.key_from), bound(q.key_to), q.time_from, q.time_to, &it)
            : ws->Fetch(bound(q.key_from), bound(q.key_to), q.time_from, q.time_to, &it));
  }
  return ForEachAggregate(store, size_ms, it.get(),
                          [out](WindowedAggregate w) { out->push_back(std::move(w)); });
}

}  // namespace statecheck::properties::windowed
