// A processor context that forwards every call to another (testing/: test-only): a test that
// plants a wrong processor overrides the call its bug is in (Forward, to double or reorder what
// a record emits). Used by the task and windowed families' tests.
#ifndef STATECHECK_TESTING_FORWARDING_PROCESSOR_CONTEXT_H_
#define STATECHECK_TESTING_FORWARDING_PROCESSOR_CONTEXT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "statecheck/task.h"

namespace statecheck::testing {

class ForwardingContext : public ProcessorContext {
 public:
  explicit ForwardingContext(ProcessorContext* inner) : inner_(inner) {}

  Status Get(std::string_view store, std::string_view key,
             std::optional<std::string>* value) override {
    return inner_->Get(store, key, value);
  }
  Status Put(std::string_view store, std::string_view key,
             std::optional<std::string_view> value) override {
    return inner_->Put(store, key, value);
  }
  Status Range(std::string_view store, std::optional<std::string_view> from,
               std::optional<std::string_view> to, std::unique_ptr<KeyValueIterator>* it) override {
    return inner_->Range(store, from, to, it);
  }
  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override {
    return inner_->Forward(key, value, timestamp);
  }
  int64_t RecordTimestamp() const override { return inner_->RecordTimestamp(); }
  int64_t WallClockMs() const override { return inner_->WallClockMs(); }

 protected:
  ProcessorContext* inner_;
};

}  // namespace statecheck::testing

#endif  // STATECHECK_TESTING_FORWARDING_PROCESSOR_CONTEXT_H_
