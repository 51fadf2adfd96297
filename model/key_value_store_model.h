// KeyValueStoreModel: the reference model of the transactional key-value store (SPEC T2–T9).
//
// How it differs from the engine (statecheck/rocksdb_store.h):
//   * It is written to be obviously right, not fast: the state is a few std::maps, every range
//     read copies its whole result, and nothing is ever on disk. `persistent()` reports the
//     flag it was made with, which changes only an empty PutAll (below). A restart (Reopen)
//     after a clean close or a crash (Abandon) is modelled; a wipe is not (T10 is the harness's
//     job).
//   * It shares no code with the engine beyond the public headers, so a misreading of the SPEC
//     cannot hide in both. The properties compare the engine against it operation by operation.
//
// The state, exactly:
//   committed             key → value: what the commits applied (and, under
//                         READ_UNCOMMITTED, every write at once).
//   pending               key → value or std::nullopt (a buffered delete): the writes since the
//                         last commit. Used only under READ_COMMITTED; always empty otherwise.
//   offsets               changelog partition → committed offset (T7).
//   uncommitted_position  input partition → offset, advanced by every write with a context.
//   committed_position    the uncommitted position as of the last commit (T8).
//   closed                set by Close(), never cleared.
//   since_durable         (committed, offsets, committed_position) of the last commit known
//                         to be durable, then of every commit since (C7): what a restart after
//                         a crash may find. Known durable: what an open found, a clean close,
//                         and — with set_durable_commits (a synced WAL) — every commit.
//
// The behaviour, exactly:
//   * Writes. Under READ_COMMITTED a write sets pending[key] (value, or std::nullopt for a
//     delete, even of a key that has no value); under READ_UNCOMMITTED it sets or erases
//     committed[key]. A write with a RecordContext sets
//     uncommitted_position[partition] = max(current, offset) (absent = the offset). Put and
//     Delete always count as a write, PutAll too (the position moves once, after the records
//     are applied in order); PutIfAbsent only when it writes. An empty PutAll moves the position
//     of a persistent store (Kafka's RocksDBStore.putAll updates it after writing its batch,
//     whatever the batch holds) and not of an in-memory one (Kafka's
//     InMemoryKeyValueStore.putAll is a put per entry: no entry, no update) — T8.
//   * PutIfAbsent and Delete return the value the writer saw before the call.
//   * Writer reads (this class's Get, Range, ReverseRange, PrefixScan, All, ReverseAll) see
//     pending merged over committed: a pending value wins, a pending delete hides the committed
//     value (T5).
//   * Views (NewQueryView), under READ_COMMITTED, see committed alone (never pending, T4), and
//     LastReadPosition() is committed_position as of the read. Under READ_UNCOMMITTED they see
//     committed, which holds every write (T3), and LastReadPosition() is uncommitted_position as
//     of the read. Before its first successful read a view's LastReadPosition() is empty; a
//     failed read leaves it unchanged.
//   * ApproximateNumUncommittedBytes() (T6) is, exactly,
//         sum over pending entries (k, v) of k.size() + (v ? v->size() : 0)
//     so a key written twice since the last commit counts once, with its last value, and a
//     buffered delete counts its key. Under READ_UNCOMMITTED pending is empty, so it is 0. The
//     engine reports this same figure.
//   * Commit(offsets) (T7, T8), in one step under the lock: applies pending to committed in
//     key order (a value sets, std::nullopt erases), clears pending, applies `offsets` (an empty
//     map clears every stored offset; otherwise each std::nullopt erases that partition and
//     each value sets it), and sets committed_position = uncommitted_position. Under
//     READ_UNCOMMITTED only the offsets and the position change. It never fails on an open
//     store.
//   * A crash (Abandon) then Reopen(k) finds the commit k before the last of since_durable
//     (C7: a commit is applied whole and need not be durable); the harness chooses k as the one
//     the engine's restart shows, and fails if it shows none of them. Reopen after a clean
//     Close finds the last commit.
//   * Rollback() (T9): under READ_COMMITTED clears pending and sets
//     uncommitted_position = committed_position; committed and the offsets are untouched. Under
//     READ_UNCOMMITTED it changes nothing and returns FailedPrecondition.
//   * Ranges are inclusive at both ends; a missing bound is unbounded; from > to (both given)
//     is empty. PrefixScan(p) returns the keys that start with p (all keys for ""). Keys order
//     as unsigned bytes, a prefix first (std::string's order: char_traits<char>::lt compares
//     as unsigned char). Reverse reads are the exact reverse.
//   * Iterators copy their result at open: later writes, commits and rollbacks never change an
//     open iterator. Next and PeekNextKey past the end return OutOfRange. Closing the store
//     closes every iterator it or its views opened (as Kafka's RocksDBStore does): HasNext is
//     then false and Next/PeekNextKey return OutOfRange.
//   * Close() discards pending and, under READ_COMMITTED, sets uncommitted_position =
//     committed_position (uncommitted writes are lost, as in a clean close without a commit;
//     under READ_UNCOMMITTED the writes are already in), then marks the store closed. Idempotent;
//     the destructor closes too. Afterwards every Status-returning call, on the store and on its
//     views, returns FailedPrecondition "Store NAME is currently closed."; is_open() is false and
//     ApproximateNumUncommittedBytes() is 0. CommittedOffset, UncommittedPosition and
//     CommittedPosition still answer: they are metadata the store keeps through a clean close, and
//     they are read after close by the recovery checks.
//
// Thread safety: one mutex guards all the state, shared by the store, its views and its
// iterators; every method takes it, so a view may read on any thread while the writer writes.
// A range read from a view copies its result under the lock: one committed snapshot (T4).
#ifndef STATECHECK_MODEL_KEY_VALUE_STORE_MODEL_H_
#define STATECHECK_MODEL_KEY_VALUE_STORE_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "statecheck/key_value_store.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck::model {

// What the model holds, copied: what a property needs to explain a difference or to know which
// situation a step is in (a buffered delete over a committed value, an uncommitted position
// ahead of the committed one, ...).
struct KeyValueStoreModelSnapshot {
  std::map<std::string, std::string> committed;
  std::map<std::string, std::optional<std::string>> pending;  // Empty unless READ_COMMITTED.
  std::map<std::string, int64_t> offsets;
  Position uncommitted_position;
  Position committed_position;
  bool closed = false;
};

// The durable part of one commit: what a restart can find (C7).
struct KeyValueStoreModelCommit {
  std::map<std::string, std::string> committed;
  std::map<std::string, int64_t> offsets;
  Position committed_position;
};

// The store's state; shared by the store, its views and its iterators, so that none of them
// ever points into a destroyed store. Defined in key_value_store_model.cc.
struct KeyValueStoreModelState;

class KeyValueStoreModel : public KeyValueStore {
 public:
  KeyValueStoreModel(std::string name, IsolationLevel isolation, bool persistent);
  // Closes the store.
  ~KeyValueStoreModel() override;

  KeyValueStoreModel(const KeyValueStoreModel&) = delete;
  KeyValueStoreModel& operator=(const KeyValueStoreModel&) = delete;

  const std::string& name() const override;
  bool persistent() const override;
  bool is_open() const override;
  IsolationLevel isolation() const override;

  Status Get(std::string_view key, std::optional<std::string>* value) override;
  Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
               std::unique_ptr<KeyValueIterator>* it) override;
  Status ReverseRange(std::optional<std::string_view> from, std::optional<std::string_view> to,
                      std::unique_ptr<KeyValueIterator>* it) override;
  Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) override;
  Status All(std::unique_ptr<KeyValueIterator>* it) override;
  Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) override;

  Status Put(std::string_view key, std::optional<std::string_view> value,
             const RecordContext* context = nullptr) override;
  Status PutIfAbsent(std::string_view key, std::string_view value,
                     std::optional<std::string>* existing,
                     const RecordContext* context = nullptr) override;
  Status PutAll(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
                const RecordContext* context = nullptr) override;
  Status Delete(std::string_view key, std::optional<std::string>* old,
                const RecordContext* context = nullptr) override;

  int64_t ApproximateNumUncommittedBytes() const override;
  Status Commit(const ChangelogOffsets& offsets) override;
  std::optional<int64_t> CommittedOffset(const std::string& partition) const override;
  Status Rollback() override;

  Position UncommittedPosition() const override;
  Position CommittedPosition() const override;

  std::shared_ptr<QueryView> NewQueryView() override;
  void Close() override;
  // A crash: as Close(), but the restart that follows is not clean (was_closed_cleanly() is
  // false after Reopen) and may find an older commit (C7: any since the last durable one).
  void Abandon() override;
  // How many states a restart after a crash may find, now or after the Abandon that closed the
  // store: the last durable commit and each one since (C7).
  size_t CrashCandidates() const;
  // Every commit is durable when it returns (a store with a synced WAL): a crash loses none.
  void set_durable_commits(bool durable);
  // A deep copy of the state (not its views or iterators), for trying a restart on.
  std::unique_ptr<KeyValueStoreModel> Copy() const;
  // Whether the last shutdown before the last Reopen was a Close (true before any).
  bool was_closed_cleanly() const;

  // A copy of the whole state, taken under the lock.
  KeyValueStoreModelSnapshot Snapshot() const;

  // A restart of a persistent store: REQUIRES the store closed. What a restart keeps is what
  // Close left — committed data, offsets and committed position — and the uncommitted position
  // starts again at the committed one (the store knows no more after a restart). After a crash
  // (Abandon) it finds the commit `commits_back` before the last (at most CrashCandidates() - 1
  // back; 0 = the last commit). Views and iterators of before the restart stay closed.
  void Reopen(size_t commits_back = 0);

 private:
  // Close (crash = false) or Abandon.
  void Shut(bool crash);

  std::shared_ptr<KeyValueStoreModelState> state_;
};

// A new, open, empty model store.
std::unique_ptr<KeyValueStore> NewKeyValueStoreModel(std::string name, IsolationLevel isolation,
                                                     bool persistent = true);

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_KEY_VALUE_STORE_MODEL_H_
