#include "metered_window_store.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace my_store {
namespace {

using statecheck::Status;
using statecheck::WindowStoreIterator;

class MeteredWindowStore final : public statecheck::WindowStore {
 public:
  MeteredWindowStore(std::unique_ptr<statecheck::WindowStore> inner, Meter* meter,
                     bool forget_deletes)
      : inner_(std::move(inner)), meter_(meter), forget_deletes_(forget_deletes) {}

  const std::string& name() const override { return inner_->name(); }
  int64_t retention_ms() const override { return inner_->retention_ms(); }
  int64_t window_size_ms() const override { return inner_->window_size_ms(); }
  bool retain_duplicates() const override { return inner_->retain_duplicates(); }
  bool is_open() const override { return inner_->is_open(); }
  int64_t stream_time() const override { return inner_->stream_time(); }
  statecheck::WindowStoreMetrics metrics() const override { return inner_->metrics(); }

  Status Fetch(std::string_view key, int64_t window_start,
               std::optional<std::string>* value) override {
    Read();
    return inner_->Fetch(key, window_start, value);
  }
  Status Fetch(std::string_view key, int64_t time_from, int64_t time_to,
               std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->Fetch(key, time_from, time_to, it);
  }
  Status BackwardFetch(std::string_view key, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->BackwardFetch(key, time_from, time_to, it);
  }
  Status Fetch(std::optional<std::string_view> key_from, std::optional<std::string_view> key_to,
               int64_t time_from, int64_t time_to,
               std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->Fetch(key_from, key_to, time_from, time_to, it);
  }
  Status BackwardFetch(std::optional<std::string_view> key_from,
                       std::optional<std::string_view> key_to, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->BackwardFetch(key_from, key_to, time_from, time_to, it);
  }
  Status FetchAll(int64_t time_from, int64_t time_to,
                  std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->FetchAll(time_from, time_to, it);
  }
  Status BackwardFetchAll(int64_t time_from, int64_t time_to,
                          std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->BackwardFetchAll(time_from, time_to, it);
  }
  Status All(std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->All(it);
  }
  Status BackwardAll(std::unique_ptr<WindowStoreIterator>* it) override {
    Read();
    return inner_->BackwardAll(it);
  }

  Status Put(std::string_view key, std::optional<std::string_view> value,
             int64_t window_start) override {
    if (meter_) ++(value ? meter_->puts : meter_->deletes);
    // The planted bug: a delete at or below stream time that the retention rule would keep is
    // forgotten (stream time and the dropped-records count stay right: W4 alone is broken).
    // stream_time() >= -1 and retention_ms() >= 0, so the bound cannot overflow.
    if (!value && forget_deletes_ && inner_->is_open() && window_start <= inner_->stream_time() &&
        window_start > inner_->stream_time() - inner_->retention_ms()) {
      return Status::Ok();
    }
    return inner_->Put(key, value, window_start);
  }
  void Close() override { inner_->Close(); }

 private:
  void Read() {
    if (meter_) ++meter_->reads;
  }

  const std::unique_ptr<statecheck::WindowStore> inner_;
  Meter* const meter_;
  const bool forget_deletes_;
};

}  // namespace

Status NewMeteredWindowStore(const statecheck::WindowStoreOptions& options, Meter* meter,
                             bool forget_deletes, std::unique_ptr<statecheck::WindowStore>* out) {
  std::unique_ptr<statecheck::WindowStore> inner;
  if (Status s = statecheck::NewInMemoryWindowStore(options, &inner); !s.ok()) return s;
  *out = std::make_unique<MeteredWindowStore>(std::move(inner), meter, forget_deletes);
  return Status::Ok();
}

}  // namespace my_store
