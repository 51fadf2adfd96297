#include "model/key_value_store_model.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace statecheck::model {

struct KeyValueStoreModelState {
  // Fixed at construction.
  std::string name;
  IsolationLevel isolation = IsolationLevel::kReadCommitted;
  bool persistent = true;

  // Guards everything below.
  mutable std::mutex mu;
  bool closed = false;
  std::map<std::string, std::string> committed;
  std::map<std::string, std::optional<std::string>> pending;  // Empty unless READ_COMMITTED.
  std::map<std::string, int64_t> offsets;
  bool crashed = false;            // The store was closed by Abandon().
  bool was_closed_cleanly = true;  // As of the last Reopen.
  Position uncommitted_position;
  Position committed_position;
  // C7: the state of the last commit known to be durable, then of every commit since, oldest
  // first: what a restart after a crash may find. Never empty.
  std::vector<KeyValueStoreModelCommit> since_durable{KeyValueStoreModelCommit{}};
  bool durable_commits = false;  // Every commit is durable when it returns (a synced WAL).

  KeyValueStoreModelCommit Current() const { return {committed, offsets, committed_position}; }
  // Encodes: C7 — the state now is durable: a restart after a crash finds nothing older
  void Durable() { since_durable.assign(1, Current()); }

  bool buffered() const { return isolation == IsolationLevel::kReadCommitted; }

  Status CheckOpen() const {
    if (closed) return Status::FailedPrecondition("Store " + name + " is currently closed.");
    return Status::Ok();
  }

  // The value of `key` as the writer (with_pending) or a view (not) sees it. Under
  // READ_UNCOMMITTED pending is empty, so both see committed.
  std::optional<std::string> Lookup(std::string_view key, bool with_pending) const {
    const std::string k(key);
    if (with_pending) {
      auto p = pending.find(k);
      // Encodes: T5 — the writer's get: a buffered value wins, a buffered delete hides committed
      if (p != pending.end()) return p->second;  // A buffered delete hides the committed value.
    }
    auto c = committed.find(k);
    if (c != committed.end()) return c->second;
    return std::nullopt;
  }

  // Every key and value as the writer (with_pending) or a view (not) sees them.
  std::map<std::string, std::string> Visible(bool with_pending) const {
    std::map<std::string, std::string> view = committed;
    if (with_pending) {
      // Encodes: T5 — the writer's ranges: the buffer merged over committed, deletes hiding keys
      for (const auto& [key, value] : pending) {
        if (value) {
          view[key] = *value;
        } else {
          view.erase(key);
        }
      }
    }
    return view;
  }

  // One write, to pending (READ_COMMITTED) or straight to committed.
  void Write(std::string_view key, std::optional<std::string_view> value) {
    const std::string k(key);
    if (buffered()) {
      if (value) {
        pending[k] = std::string(*value);
      } else {
        pending[k] = std::nullopt;
      }
    } else if (value) {
      // Encodes: T3 — READ_UNCOMMITTED writes straight to committed: IQ sees them at once
      committed[k] = std::string(*value);
    } else {
      committed.erase(k);
    }
  }

  // Encodes: T8 — a write with a context moves the uncommitted position (max per partition)
  void Advance(const RecordContext* context) {
    if (context == nullptr) return;
    auto it = uncommitted_position.find(context->partition);
    if (it == uncommitted_position.end()) {
      uncommitted_position[context->partition] = context->offset;
    } else {
      it->second = std::max(it->second, context->offset);
    }
  }

  // The position a view's read observes (T8).
  // Encodes: T8 — a READ_COMMITTED view reports the committed position (else the uncommitted)
  Position ReadPosition() const { return buffered() ? committed_position : uncommitted_position; }
};

namespace {

// An iterator over a copy of its result, taken at open. Its own fields belong to the one thread
// that uses it; it takes the store's mutex only to learn whether the store was closed.
class SnapshotIterator final : public KeyValueIterator {
 public:
  SnapshotIterator(std::shared_ptr<KeyValueStoreModelState> state, std::vector<KeyValue> records)
      : state_(std::move(state)), records_(std::move(records)) {}

  ~SnapshotIterator() override { Close(); }

  bool HasNext() override {
    if (next_ >= records_.size()) return false;
    std::lock_guard<std::mutex> lock(state_->mu);
    return !state_->closed;  // Closing the store closes its iterators.
  }

  Status Next(KeyValue* kv) override {
    if (!HasNext()) return Status::OutOfRange("The iterator has no more records.");
    *kv = records_[next_++];
    return Status::Ok();
  }

  Status PeekNextKey(std::string* key) override {
    if (!HasNext()) return Status::OutOfRange("The iterator has no more records.");
    *key = records_[next_].key;
    return Status::Ok();
  }

  void Close() override {
    records_.clear();
    next_ = 0;
  }

 private:
  const std::shared_ptr<KeyValueStoreModelState> state_;
  std::vector<KeyValue> records_;
  size_t next_ = 0;
};

// The reads below serve the writer and the views alike. `view_position` is null for the
// writer, who sees pending; for a view it is the view's last-read position (guarded by s.mu),
// set under the same lock as the read.

Status ReadOne(KeyValueStoreModelState& s, std::string_view key, std::optional<std::string>* value,
               Position* view_position) {
  value->reset();
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  // Encodes: T4, T5 — a view reads committed only; the writer reads pending over committed
  *value = s.Lookup(key, /*with_pending=*/view_position == nullptr);
  if (view_position != nullptr) *view_position = s.ReadPosition();
  return Status::Ok();
}

// Every range read: the keys in [from, to] (a missing bound is unbounded) that start with
// `prefix`, ascending or descending, copied under the lock.
Status ReadMany(const std::shared_ptr<KeyValueStoreModelState>& state,
                std::optional<std::string_view> from, std::optional<std::string_view> to,
                std::string_view prefix, bool forward, std::unique_ptr<KeyValueIterator>* it,
                Position* view_position) {
  it->reset();
  KeyValueStoreModelState& s = *state;
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  std::vector<KeyValue> records;
  // from > to selects nothing: no key is both >= from and <= to.
  // Encodes: T4 — a view's range is one committed snapshot, copied whole under the lock
  for (const auto& [key, value] : s.Visible(/*with_pending=*/view_position == nullptr)) {
    if (from && key < *from) continue;
    if (to && key > *to) continue;
    if (!key.starts_with(prefix)) continue;
    records.push_back(KeyValue{key, value});
  }
  if (!forward) std::reverse(records.begin(), records.end());
  if (view_position != nullptr) *view_position = s.ReadPosition();
  *it = std::make_unique<SnapshotIterator>(state, std::move(records));
  return Status::Ok();
}

// An interactive-query reader: sees committed only (which, under READ_UNCOMMITTED, is every
// write).
// Encodes: T2 — a view only reads (under the store's one mutex): it never changes the store
class ModelQueryView final : public QueryView {
 public:
  explicit ModelQueryView(std::shared_ptr<KeyValueStoreModelState> state)
      : state_(std::move(state)) {}

  Status Get(std::string_view key, std::optional<std::string>* value) override {
    return ReadOne(*state_, key, value, &last_read_);
  }
  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override {
    return Many(from, to, "", /*forward=*/true, it);
  }
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override {
    return Many(from, to, "", /*forward=*/false, it);
  }
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override {
    return Many(std::nullopt, std::nullopt, prefix, /*forward=*/true, it);
  }
  Status All(std::unique_ptr<KeyValueIterator>* it) override {
    return Many(std::nullopt, std::nullopt, "", /*forward=*/true, it);
  }
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override {
    return Many(std::nullopt, std::nullopt, "", /*forward=*/false, it);
  }

  Position LastReadPosition() const override {
    std::lock_guard<std::mutex> lock(state_->mu);
    return last_read_;
  }

 private:
  Status Many(std::optional<std::string_view> from, std::optional<std::string_view> to,
              std::string_view prefix, bool forward, std::unique_ptr<KeyValueIterator>* it) {
    return ReadMany(state_, from, to, prefix, forward, it, &last_read_);
  }

  const std::shared_ptr<KeyValueStoreModelState> state_;
  Position last_read_;  // Guarded by state_->mu.
};

}  // namespace

KeyValueStoreModel::KeyValueStoreModel(std::string name, IsolationLevel isolation, bool persistent)
    : state_(std::make_shared<KeyValueStoreModelState>()) {
  state_->name = std::move(name);
  state_->isolation = isolation;
  state_->persistent = persistent;
}

KeyValueStoreModel::~KeyValueStoreModel() { Close(); }

const std::string& KeyValueStoreModel::name() const { return state_->name; }
bool KeyValueStoreModel::persistent() const { return state_->persistent; }
IsolationLevel KeyValueStoreModel::isolation() const { return state_->isolation; }

bool KeyValueStoreModel::is_open() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return !state_->closed;
}

Status KeyValueStoreModel::Get(std::string_view key, std::optional<std::string>* value) {
  return ReadOne(*state_, key, value, /*view_position=*/nullptr);
}

Status KeyValueStoreModel::Range(std::optional<std::string_view> from,
                                 std::optional<std::string_view> to,
                                 std::unique_ptr<KeyValueIterator>* it) {
  return ReadMany(state_, from, to, "", /*forward=*/true, it, /*view_position=*/nullptr);
}

Status KeyValueStoreModel::ReverseRange(std::optional<std::string_view> from,
                                        std::optional<std::string_view> to,
                                        std::unique_ptr<KeyValueIterator>* it) {
  return ReadMany(state_, from, to, "", /*forward=*/false, it, /*view_position=*/nullptr);
}

Status KeyValueStoreModel::PrefixScan(std::string_view prefix,
                                      std::unique_ptr<KeyValueIterator>* it) {
  return ReadMany(state_, std::nullopt, std::nullopt, prefix, /*forward=*/true, it,
                  /*view_position=*/nullptr);
}

Status KeyValueStoreModel::All(std::unique_ptr<KeyValueIterator>* it) {
  return ReadMany(state_, std::nullopt, std::nullopt, "", /*forward=*/true, it,
                  /*view_position=*/nullptr);
}

Status KeyValueStoreModel::ReverseAll(std::unique_ptr<KeyValueIterator>* it) {
  return ReadMany(state_, std::nullopt, std::nullopt, "", /*forward=*/false, it,
                  /*view_position=*/nullptr);
}

Status KeyValueStoreModel::Put(std::string_view key, std::optional<std::string_view> value,
                               const RecordContext* context) {
  KeyValueStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  s.Write(key, value);
  s.Advance(context);
  return Status::Ok();
}

Status KeyValueStoreModel::PutIfAbsent(std::string_view key, std::string_view value,
                                       std::optional<std::string>* existing,
                                       const RecordContext* context) {
  existing->reset();
  KeyValueStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  *existing = s.Lookup(key, /*with_pending=*/true);
  if (!*existing) {
    s.Write(key, value);
    s.Advance(context);
  }
  return Status::Ok();
}

Status KeyValueStoreModel::PutAll(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
    const RecordContext* context) {
  KeyValueStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  for (const auto& [key, value] : kvs) s.Write(key, value);
  // Encodes: T8 — an empty putAll moves a persistent store's position, not an in-memory one's
  if (!kvs.empty() || s.persistent) s.Advance(context);
  return Status::Ok();
}

Status KeyValueStoreModel::Delete(std::string_view key, std::optional<std::string>* old,
                                  const RecordContext* context) {
  old->reset();
  KeyValueStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  *old = s.Lookup(key, /*with_pending=*/true);
  s.Write(key, std::nullopt);
  s.Advance(context);
  return Status::Ok();
}

int64_t KeyValueStoreModel::ApproximateNumUncommittedBytes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  int64_t bytes = 0;
  // Encodes: T6 — key + value bytes over pending entries (a key once); 0 when not buffered
  for (const auto& [key, value] : state_->pending) {
    bytes += static_cast<int64_t>(key.size() + (value ? value->size() : 0));
  }
  return bytes;
}

Status KeyValueStoreModel::Commit(const ChangelogOffsets& offsets) {
  KeyValueStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  // Encodes: T4 — a commit applies all of its buffered writes at once, under the lock
  s.committed = s.Visible(/*with_pending=*/true);
  s.pending.clear();
  // Encodes: T7 — the offsets change in the same step as the data: {} clears all, null one
  if (offsets.empty()) s.offsets.clear();
  for (const auto& [partition, offset] : offsets) {
    if (offset) {
      s.offsets[partition] = *offset;
    } else {
      s.offsets.erase(partition);
    }
  }
  s.committed_position = s.uncommitted_position;  // Encodes: T8 — the positions converge
  // Encodes: C1, C7 — a commit is applied whole and need not be durable: a crash may go back
  // to any commit since the last durable one
  if (s.durable_commits) {
    s.Durable();
  } else {
    s.since_durable.push_back(s.Current());
  }
  return Status::Ok();
}

std::optional<int64_t> KeyValueStoreModel::CommittedOffset(const std::string& partition) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->offsets.find(partition);
  if (it == state_->offsets.end()) return std::nullopt;
  return it->second;
}

Status KeyValueStoreModel::Rollback() {
  KeyValueStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  if (!s.buffered()) {
    return Status::FailedPrecondition("Store " + s.name +
                                      " writes through (READ_UNCOMMITTED): nothing to roll back.");
  }
  // Encodes: T9 — a rollback drops the buffer and the position: the last commit, not wiped
  s.pending.clear();
  s.uncommitted_position = s.committed_position;
  return Status::Ok();
}

Position KeyValueStoreModel::UncommittedPosition() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->uncommitted_position;
}

Position KeyValueStoreModel::CommittedPosition() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->committed_position;
}

std::shared_ptr<QueryView> KeyValueStoreModel::NewQueryView() {
  return std::make_shared<ModelQueryView>(state_);
}

void KeyValueStoreModel::Close() { Shut(/*crash=*/false); }

void KeyValueStoreModel::Abandon() { Shut(/*crash=*/true); }

void KeyValueStoreModel::Shut(bool crash) {
  KeyValueStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.closed) return;
  // Encodes: T9 — closing (or a crash) without a commit loses the buffered writes
  s.pending.clear();
  if (s.buffered()) s.uncommitted_position = s.committed_position;
  s.closed = true;
  // Encodes: C7 — a clean close flushes (a clean restart finds the last commit); a crash may
  // lose what was not durable (Reopen)
  if (crash) {
    s.crashed = true;
  } else {
    s.Durable();
  }
}

size_t KeyValueStoreModel::CrashCandidates() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->since_durable.size();
}

void KeyValueStoreModel::set_durable_commits(bool durable) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->durable_commits = durable;
}

bool KeyValueStoreModel::was_closed_cleanly() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->was_closed_cleanly;
}

KeyValueStoreModelSnapshot KeyValueStoreModel::Snapshot() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  KeyValueStoreModelSnapshot out;
  out.committed = state_->committed;
  out.pending = state_->pending;
  out.offsets = state_->offsets;
  out.uncommitted_position = state_->uncommitted_position;
  out.committed_position = state_->committed_position;
  out.closed = state_->closed;
  return out;
}

void KeyValueStoreModel::Reopen(size_t commits_back) {
  // A fresh state, so that views and iterators of the closed store stay closed.
  auto fresh = std::make_shared<KeyValueStoreModelState>();
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    fresh->name = state_->name;
    fresh->isolation = state_->isolation;
    fresh->persistent = state_->persistent;
    fresh->durable_commits = state_->durable_commits;
    // Encodes: T7, T8, C7 — a restart keeps the committed data, offsets and committed position
    // of one whole commit: the last, or after a crash one of those since the last durable one
    const std::vector<KeyValueStoreModelCommit>& candidates = state_->since_durable;
    const KeyValueStoreModelCommit& found =
        state_->crashed
            ? candidates[candidates.size() - 1 - std::min(commits_back, candidates.size() - 1)]
            : candidates.back();
    fresh->committed = found.committed;
    fresh->offsets = found.offsets;
    fresh->committed_position = found.committed_position;
    fresh->uncommitted_position = found.committed_position;
    fresh->Durable();  // What a restart finds is on disk.
    // Encodes: T7 — the open marker: a restart after a crash is not clean
    fresh->was_closed_cleanly = !state_->crashed;
  }
  state_ = std::move(fresh);
}

std::unique_ptr<KeyValueStoreModel> KeyValueStoreModel::Copy() const {
  auto copy =
      std::make_unique<KeyValueStoreModel>(state_->name, state_->isolation, state_->persistent);
  std::lock_guard<std::mutex> lock(state_->mu);
  KeyValueStoreModelState& to = *copy->state_;
  to.closed = state_->closed;
  to.committed = state_->committed;
  to.pending = state_->pending;
  to.offsets = state_->offsets;
  to.crashed = state_->crashed;
  to.was_closed_cleanly = state_->was_closed_cleanly;
  to.uncommitted_position = state_->uncommitted_position;
  to.committed_position = state_->committed_position;
  to.since_durable = state_->since_durable;
  to.durable_commits = state_->durable_commits;
  return copy;
}

std::unique_ptr<KeyValueStore> NewKeyValueStoreModel(std::string name, IsolationLevel isolation,
                                                     bool persistent) {
  return std::make_unique<KeyValueStoreModel>(std::move(name), isolation, persistent);
}

}  // namespace statecheck::model
