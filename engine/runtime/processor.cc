// The processor API's defaults and the example processor of statecheck/task.h.
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/task.h"

namespace statecheck {
namespace {
// The default of ProcessorContext's window store calls: a context that has none.
Status NoWindowStores(std::string_view store) {
  return Status::Unimplemented("this processor context has no window stores (asked for \"" +
                               std::string(store) +
                               "\"): a context wrapping a task's must forward the Window* calls");
}
}  // namespace

Status ProcessorContext::WindowPut(std::string_view store, std::string_view,
                                   std::optional<std::string_view>, int64_t) {
  return NoWindowStores(store);
}
Status ProcessorContext::WindowFetch(std::string_view store, std::string_view, int64_t,
                                     std::optional<std::string>*) {
  return NoWindowStores(store);
}
Status ProcessorContext::WindowFetchAll(std::string_view store, int64_t, int64_t,
                                        std::unique_ptr<WindowStoreIterator>*) {
  return NoWindowStores(store);
}

namespace {

// The key-value processor (task.h).
class KeyValueProcessor final : public Processor {
 public:
  std::vector<std::string> StoreNames() const override { return {"kv", "counts"}; }

  Status Process(const LogRecord& record, ProcessorContext* context) override {
    std::optional<std::string> count;
    STATECHECK_RETURN_IF_ERROR(context->Get("counts", record.key, &count));
    int64_t n = 0;
    if (count) {
      // The store holds what this processor wrote; anything else is damage.
      char* end = nullptr;
      n = std::strtoll(count->c_str(), &end, 10);
      if (count->empty() || *end != '\0' || n < 0) {
        return Status::Corruption("store counts: key holds \"" + *count + "\", not a count");
      }
    }
    const std::string next = std::to_string(n + 1);
    STATECHECK_RETURN_IF_ERROR(context->Put("counts", record.key, next));
    STATECHECK_RETURN_IF_ERROR(context->Put("kv", record.key, record.value));
    if (!record.value) return context->Forward(record.key, std::nullopt);
    return context->Forward(record.key, *record.value + "#" + next);
  }
};

}  // namespace

std::unique_ptr<Processor> NewKeyValueProcessor() { return std::make_unique<KeyValueProcessor>(); }

}  // namespace statecheck
