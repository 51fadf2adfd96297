// KeyValueStore: Kafka Streams' KeyValueStore<Bytes, byte[]> with KIP-892's transactional
// extensions (SPEC T2–T11).
//
// How it differs from a plain sorted map:
//   * One writer thread owns the store (T2). Its reads see its own uncommitted writes merged
//     over the committed data (read-your-writes, T5).
//   * Other threads read through a QueryView (interactive queries). Under READ_COMMITTED a view
//     sees only committed data, a whole commit or none of it, and one snapshot per range read
//     (T4); under READ_UNCOMMITTED it sees every write as soon as the put returns (T3).
//   * Commit(offsets) makes the writes durable together with the changelog offsets and the
//     committed position, atomically (T7, T8); Rollback discards what was not committed (T9).
//   * Every write may carry the input record it came from (RecordContext); the store tracks the
//     uncommitted and committed positions (input partition → last applied offset, T8).
//
// Keys and values are byte strings; keys compare as unsigned bytes.
//
// Thread safety: the KeyValueStore methods are for the writer thread only. QueryView methods
// may be called from any number of threads at once, concurrently with the writer.
#ifndef STATECHECK_KEY_VALUE_STORE_H_
#define STATECHECK_KEY_VALUE_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace statecheck {

struct KeyValue {
  std::string key;
  std::string value;
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

// Input partition → the last offset applied from it (Kafka's Position, T8).
using Position = std::map<std::string, int64_t>;

// Changelog partition → offset, for Commit: an empty map clears every stored offset, a
// std::nullopt value clears that one partition (T7).
using ChangelogOffsets = std::map<std::string, std::optional<int64_t>>;

// The input record a write came from.
struct RecordContext {
  std::string partition;
  int64_t offset = 0;
};

class KeyValueIterator {
 public:
  virtual ~KeyValueIterator() = default;
  KeyValueIterator() = default;
  KeyValueIterator(const KeyValueIterator&) = delete;
  KeyValueIterator& operator=(const KeyValueIterator&) = delete;

  // True while there is a record — or an error: a read that failed is never a silent end.
  virtual bool HasNext() = 0;
  // The next record; the read error, every time, once reading failed; OutOfRange when HasNext()
  // is false. `*kv` is untouched on error.
  virtual Status Next(KeyValue* kv) = 0;
  virtual Status PeekNextKey(std::string* key) = 0;
  // Releases the iterator's snapshot. Idempotent; the destructor closes too.
  virtual void Close() = 0;
};

// Reads. For a range, a missing bound is unbounded; from > to is an empty result.
// A read that fails (an I/O error below, reported by Get or by the iterator's Next) fails that
// read only (F8): the store changed nothing, and its writer, its query views and the next read go
// on as before — no reopen. (A processor's Get that fails stops its task: see task.h.)
class ReadOnlyKeyValueStore {
 public:
  virtual ~ReadOnlyKeyValueStore() = default;

  virtual Status Get(std::string_view key, std::optional<std::string>* value) = 0;
  virtual Status Range(std::optional<std::string_view> from, std::optional<std::string_view> to,
                       std::unique_ptr<KeyValueIterator>* it) = 0;
  virtual Status ReverseRange(std::optional<std::string_view> from,
                              std::optional<std::string_view> to,
                              std::unique_ptr<KeyValueIterator>* it) = 0;
  // Every key that starts with `prefix`, ascending.
  virtual Status PrefixScan(std::string_view prefix, std::unique_ptr<KeyValueIterator>* it) = 0;
  virtual Status All(std::unique_ptr<KeyValueIterator>* it) = 0;
  virtual Status ReverseAll(std::unique_ptr<KeyValueIterator>* it) = 0;
};

// An interactive-query reader's view of a store, at the store's isolation level.
class QueryView : public ReadOnlyKeyValueStore {
 public:
  // The position the last read of this view observed (T8): under READ_COMMITTED the committed
  // position its result is exactly the state of.
  virtual Position LastReadPosition() const = 0;
};

class KeyValueStore : public ReadOnlyKeyValueStore {
 public:
  virtual const std::string& name() const = 0;
  virtual bool persistent() const = 0;
  virtual bool is_open() const = 0;
  virtual IsolationLevel isolation() const = 0;

  // Writes `value` for `key`; std::nullopt deletes. `context` (optional) advances the
  // uncommitted position.
  virtual Status Put(std::string_view key, std::optional<std::string_view> value,
                     const RecordContext* context = nullptr) = 0;
  // Writes only if `key` has no value (as the writer sees it); returns the existing value.
  virtual Status PutIfAbsent(std::string_view key, std::string_view value,
                             std::optional<std::string>* existing,
                             const RecordContext* context = nullptr) = 0;
  virtual Status PutAll(const std::vector<std::pair<std::string, std::optional<std::string>>>& kvs,
                        const RecordContext* context = nullptr) = 0;
  // Deletes `key`, returning the value it had (as the writer sees it).
  virtual Status Delete(std::string_view key, std::optional<std::string>* old,
                        const RecordContext* context = nullptr) = 0;

  // Bytes written since the last commit and not yet durable (T6); 0 for a store that writes
  // through.
  virtual int64_t ApproximateNumUncommittedBytes() const = 0;

  // Applies every write so far, with `offsets` and the uncommitted position, in one atomic
  // batch (T7, T8). The batch need not be durable when Commit returns: the changelog is (C1),
  // and a store that keeps data across a restart may come back after a crash at any whole commit
  // between its last flush and this one (C7). An error found before anything is written (a
  // closed store) leaves the buffered writes in place. An error while writing leaves the
  // commit's outcome unknown until a restart — applied whole or not at all (C6) — and the store
  // then refuses every call with FailedPrecondition: abandon it and open it again.
  virtual Status Commit(const ChangelogOffsets& offsets) = 0;
  // The committed changelog offset of `partition`, or std::nullopt.
  virtual std::optional<int64_t> CommittedOffset(const std::string& partition) const = 0;
  // The changelog offset of `partition` that the store's last commit known to be durable holds
  // (std::nullopt: none), i.e. the oldest offset a restart after a crash can find (C7): a
  // restore reads the changelog from there, so no record after it may be compacted away unless
  // a later record supersedes it. The default is CommittedOffset, for a store whose commits are
  // durable when Commit returns or that keeps nothing across a restart.
  virtual std::optional<int64_t> DurableOffset(const std::string& partition) const {
    return CommittedOffset(partition);
  }
  // Discards every write since the last commit (T9). Under READ_UNCOMMITTED (direct writes)
  // there is nothing to discard and the call returns FailedPrecondition.
  virtual Status Rollback() = 0;

  virtual Position UncommittedPosition() const = 0;
  virtual Position CommittedPosition() const = 0;

  // A reader for another thread. The view stays valid until the store is closed; after that
  // its reads return FailedPrecondition.
  virtual std::shared_ptr<QueryView> NewQueryView() = 0;

  // Clean close: discards uncommitted writes (the caller commits first if it wants them) and
  // clears the open-status marker (T7). Idempotent. When the marker cannot be cleared (a write
  // error), the close logs an error naming the store and closes anyway — nothing committed is
  // lost; the next open reports an unclean shutdown and the store is restored as after a crash
  // (T10), and a clean close after that clears the marker again (L1). The caller does nothing.
  virtual void Close() = 0;

  // Drops the store as a crash would: nothing is committed or flushed, the open-status marker
  // stays set, and whatever was not yet durable is lost (T7, T9). Afterwards the store is
  // closed. The default is Close(), for stores with nothing durable to lose.
  virtual void Abandon() { Close(); }
};

// A non-transactional in-memory store (reports 0 uncommitted bytes, T6): writes are visible at
// once, Commit records the offsets and positions in memory, Rollback is FailedPrecondition.
std::unique_ptr<KeyValueStore> NewInMemoryKeyValueStore(std::string name);

}  // namespace statecheck

#endif  // STATECHECK_KEY_VALUE_STORE_H_
