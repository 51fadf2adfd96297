// Key-value stores and query views that forward every call to another (testing/: test-only):
// a test overrides the call its planted bug is in. Used by the key-value families' tests.
#ifndef STATECHECK_TESTING_FORWARDING_KEY_VALUE_STORE_H_
#define STATECHECK_TESTING_FORWARDING_KEY_VALUE_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "statecheck/key_value_store.h"

namespace statecheck::testing {

// Forwards everything to another store, each call under Lock(), and tracks the keys written
// since the last commit or rollback; a test overrides the call its bug is in.
class ForwardingStore : public KeyValueStore {
 public:
  explicit ForwardingStore(std::unique_ptr<KeyValueStore> inner) : inner_(std::move(inner)) {}

  const std::string& name() const override {
    const auto guard = Lock();
    return inner_->name();
  }
  bool persistent() const override {
    const auto guard = Lock();
    return inner_->persistent();
  }
  bool is_open() const override {
    const auto guard = Lock();
    return inner_->is_open();
  }
  IsolationLevel isolation() const override {
    const auto guard = Lock();
    return inner_->isolation();
  }
  Status Get(std::string_view key, std::optional<std::string>* value) override {
    const auto guard = Lock();
    return inner_->Get(key, value);
  }
  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override {
    const auto guard = Lock();
    return inner_->Range(from, to, it);
  }
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override {
    const auto guard = Lock();
    return inner_->ReverseRange(from, to, it);
  }
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override {
    const auto guard = Lock();
    return inner_->PrefixScan(prefix, it);
  }
  Status All(std::unique_ptr<KeyValueIterator>* it) override {
    const auto guard = Lock();
    return inner_->All(it);
  }
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
    const auto guard = Lock();
    return inner_->ReverseAll(it);
  }
  Status Put(std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context) override {
    const auto guard = Lock();
    Wrote(key, value.has_value());
    return inner_->Put(key, value, context);
  }
  Status PutIfAbsent(std::string_view key, std::string_view value,
                     std::optional<std::string>* existing, const RecordContext* context) override {
    const auto guard = Lock();
    const Status s = inner_->PutIfAbsent(key, value, existing, context);
    if (s.ok() && !*existing) Wrote(key, true);
    return s;
  }
  Status PutAll(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
                const RecordContext* context) override {
    const auto guard = Lock();
    for (const auto& [k, v] : kvs) Wrote(k, v.has_value());
    return inner_->PutAll(kvs, context);
  }
  Status Delete(std::string_view key, std::optional<std::string>* old,
                const RecordContext* context) override {
    const auto guard = Lock();
    Wrote(key, false);
    return inner_->Delete(key, old, context);
  }
  int64_t ApproximateNumUncommittedBytes() const override {
    const auto guard = Lock();
    return inner_->ApproximateNumUncommittedBytes();
  }
  Status Commit(const ChangelogOffsets& offsets) override {
    const auto guard = Lock();
    written_.clear();
    return inner_->Commit(offsets);
  }
  std::optional<int64_t> CommittedOffset(const std::string& partition) const override {
    const auto guard = Lock();
    return inner_->CommittedOffset(partition);
  }
  std::optional<int64_t> DurableOffset(const std::string& partition) const override {
    const auto guard = Lock();
    return inner_->DurableOffset(partition);
  }
  Status Rollback() override {
    const auto guard = Lock();
    written_.clear();
    return inner_->Rollback();
  }
  Position UncommittedPosition() const override {
    const auto guard = Lock();
    return inner_->UncommittedPosition();
  }
  Position CommittedPosition() const override {
    const auto guard = Lock();
    return inner_->CommittedPosition();
  }
  std::shared_ptr<QueryView> NewQueryView() override {
    const auto guard = Lock();
    return inner_->NewQueryView();
  }
  void Close() override {
    const auto guard = Lock();
    inner_->Close();
  }
  void Abandon() override {
    const auto guard = Lock();
    inner_->Abandon();
  }

 protected:
  // Held around each forwarded call: none here; a store whose calls must not overlap (a test's
  // store shared by threads) returns a lock of its mutex.
  virtual std::unique_lock<std::mutex> Lock() const { return {}; }

  // The keys written since the last commit or rollback: true for a value, false for a delete.
  virtual void Wrote(std::string_view key, bool value) { written_[std::string(key)] = value; }

  std::unique_ptr<KeyValueStore> inner_;
  std::map<std::string, bool> written_;
};

// A view that forwards to another; tests override the call their bug is in.
class ForwardingView : public QueryView {
 public:
  // `store`: the store the view was made of, for a test whose view reads through it.
  explicit ForwardingView(std::shared_ptr<QueryView> inner, KeyValueStore* store = nullptr)
      : inner_(std::move(inner)), store_(store) {}
  Status Get(std::string_view key, std::optional<std::string>* value) override {
    return inner_->Get(key, value);
  }
  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override {
    return inner_->Range(from, to, it);
  }
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override {
    return inner_->ReverseRange(from, to, it);
  }
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override {
    return inner_->PrefixScan(prefix, it);
  }
  Status All(std::unique_ptr<KeyValueIterator>* it) override { return inner_->All(it); }
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
    return inner_->ReverseAll(it);
  }
  Position LastReadPosition() const override { return inner_->LastReadPosition(); }

 protected:
  std::shared_ptr<QueryView> inner_;
  KeyValueStore* store_;
};

}  // namespace statecheck::testing

#endif  // STATECHECK_TESTING_FORWARDING_KEY_VALUE_STORE_H_
