// WindowStoreModel: the reference model of the in-memory window store (SPEC W1–W9).
//
// How it differs from the engine (statecheck/in_memory_window_store.h):
//   * It is written to be obviously right, not fast: the records are one flat vector of
//     {key, start, seq, value}, filtered and sorted on every read. Every operation is O(n) or
//     O(n log n) in the records held; W10 (cost) is deliberately not kept.
//   * It shares no code with the engine beyond the public headers, so a misreading of the SPEC
//     cannot hide in both. The properties compare the engine against it operation by operation.
//
// The behaviour, exactly (it matches Kafka's InMemoryWindowStore):
//   * Stream time starts at -1. Put first expires (below), then sets streamTime = max(streamTime,
//     start), then drops the put when start <= streamTime - retention (dropped_records + 1, a
//     kWarn log of kSkippingExpiredRecordMessage, returns OK). Otherwise a value overwrites the
//     entry (key, start) or inserts one; with retainDuplicates it always appends a new entry. A
//     null value erases (key, start); with retainDuplicates it does nothing.
//   * Expiry runs at the start of every Put and every read call (point Fetch and every iterator
//     open), never on iterator steps or closes: it erases every entry whose start is below
//     minLive = streamTime - retention + 1, lowered to the pin of each open, not exhausted
//     iterator (a forward iterator pins from the segment it is on, a backward one from its lower
//     time bound).
//   * Point Fetch(key, t) returns nothing when t <= streamTime - retention, on a
//     retainDuplicates store (Kafka's quirk, W5), or when there is no entry.
//   * A range read fixes, at open, its key bounds (missing = unbounded) and the time range
//     [max(from, streamTime - retention + 1), to]. key_from > key_to gives an empty iterator and
//     a kWarn log of kInvalidKeyRangeMessage. Records come ordered by start, then key (unsigned
//     bytes, a prefix first), then insertion; backward reads are the exact reverse.
//   * Iterators follow the banner of statecheck/window_store.h: they snapshot one segment at a
//     time, see writes to segments they have not entered yet, and return OutOfRange past the end.
//   * Closing the store closes its iterators and frees the records; later Put, Fetch and opens
//     return FailedPrecondition "Store NAME is currently closed.". The destructor closes too.
//     Iterators may outlive the store (they share its state), and are then closed.
//
// Thread safety: every method of the store and of its iterators takes one mutex, shared by the
// store and its iterators.
#ifndef STATECHECK_MODEL_WINDOW_STORE_MODEL_H_
#define STATECHECK_MODEL_WINDOW_STORE_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/in_memory_window_store.h"
#include "statecheck/status.h"
#include "statecheck/window_store.h"

namespace statecheck::model {

// What the model's last Put, point Fetch or range-read open did, beyond its result: the
// properties use it to credit a difference between a store and the model to the rule it breaks
// (a retained-records difference after a put that expired segments is W8's, after a delete
// W4's) and to tell which situations a step reached (properties/evidence.h).
struct WindowStoreModelCallReport {
  // The expiry at the start of the call (W8).
  int64_t expired_records = 0;   // Entries it removed.
  int64_t expired_segments = 0;  // Window starts it removed (all entries of a start go at once).
  int64_t pinned_records = 0;    // Entries below the retention bound it kept for an open iterator.
  int64_t released_records = 0;  // Entries it removed that an earlier expiry kept for an iterator.
  bool expired_boundary = false;  // It removed the start exactly at streamTime - retention.

  // Put only: what the put did after the expiry (W3, W4, W5).
  enum class PutEffect {
    kNone,                // Not a put, or the store is closed.
    kDropped,             // start <= streamTime - retention (W3).
    kInserted,            // A new entry (no entry of this key and start, or retainDuplicates).
    kOverwritten,         // Replaced the value of the entry of this key and start.
    kDeleted,             // A null value erased the entry of this key and start (W4).
    kDeletedNothing,      // A null value, and no entry of this key and start.
    kNullWithDuplicates,  // A null value on a retainDuplicates store: nothing (W4).
  };
  PutEffect put = PutEffect::kNone;
  bool emptied_segment = false;  // kDeleted removed the last entry of its start.
  int64_t same_key_and_start_before = 0;  // Entries of the put's key and start before it.

  // Reads.
  // Entries the read's key and time bounds match but the retention bound hides (W6): only the
  // pin of an open iterator keeps such entries alive.
  int64_t hidden_by_bound = 0;
  // A point fetch on a retainDuplicates store whose key and start hold entries (W5's quirk).
  bool point_hidden_by_duplicates = false;
};

// One entry of the model, as Entries() lists them.
struct WindowStoreModelEntry {
  std::string key;
  int64_t start = 0;
  int64_t seq = 0;  // Store-wide insertion order.
  std::string value;
  friend bool operator==(const WindowStoreModelEntry&, const WindowStoreModelEntry&) = default;
};

// The store's records, stream time and open iterators; shared by the store and its iterators so
// that an iterator never points into a destroyed store. Defined in window_store_model.cc.
struct WindowStoreModelState;

class WindowStoreModel : public WindowStore {
 public:
  // Closes the store, and so every iterator still open.
  ~WindowStoreModel() override;

  const std::string& name() const override;
  int64_t retention_ms() const override;
  int64_t window_size_ms() const override;
  bool retain_duplicates() const override;
  bool is_open() const override;
  int64_t stream_time() const override;
  WindowStoreMetrics metrics() const override;

  Status Put(std::string_view key, std::optional<std::string_view> value,
             int64_t window_start) override;
  Status Fetch(std::string_view key, int64_t window_start,
               std::optional<std::string>* value) override;
  Status Fetch(std::string_view key, int64_t time_from, int64_t time_to,
               std::unique_ptr<WindowStoreIterator>* it) override;
  Status BackwardFetch(std::string_view key, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) override;
  Status Fetch(std::optional<std::string_view> key_from, std::optional<std::string_view> key_to,
               int64_t time_from, int64_t time_to,
               std::unique_ptr<WindowStoreIterator>* it) override;
  Status BackwardFetch(std::optional<std::string_view> key_from,
                       std::optional<std::string_view> key_to, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) override;
  Status FetchAll(int64_t time_from, int64_t time_to,
                  std::unique_ptr<WindowStoreIterator>* it) override;
  Status BackwardFetchAll(int64_t time_from, int64_t time_to,
                          std::unique_ptr<WindowStoreIterator>* it) override;
  Status All(std::unique_ptr<WindowStoreIterator>* it) override;
  Status BackwardAll(std::unique_ptr<WindowStoreIterator>* it) override;
  void Close() override;

  // What the last Put, point Fetch or range-read open did (iterator steps and closes leave it);
  // all zero before the first such call and after one on a closed store.
  WindowStoreModelCallReport last_call() const;
  // Every entry held (live, or kept by an iterator's pin), ordered by start, then key bytes
  // (unsigned, a prefix first), then insertion.
  std::vector<WindowStoreModelEntry> Entries() const;

 private:
  friend Status NewWindowStoreModel(const WindowStoreOptions& options,
                                    std::unique_ptr<WindowStore>* store);

  // REQUIRES: `options` passed the W1 checks.
  explicit WindowStoreModel(const WindowStoreOptions& options);

  // Every range read: expires, then opens an iterator over the key bounds and
  // [max(time_from, streamTime - retention + 1), time_to]. On error `*it` is reset.
  Status Open(std::optional<std::string_view> key_from, std::optional<std::string_view> key_to,
              int64_t time_from, int64_t time_to, bool forward,
              std::unique_ptr<WindowStoreIterator>* it);

  std::shared_ptr<WindowStoreModelState> state_;
};

// Checks W1 itself (not through the engine), in Kafka's order: empty name, negative retention,
// negative window size, window size above retention; the first failure is InvalidArgument with
// Kafka's text and leaves `*store` empty. Otherwise creates the model in `*store`.
Status NewWindowStoreModel(const WindowStoreOptions& options, std::unique_ptr<WindowStore>* store);

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_WINDOW_STORE_MODEL_H_
