// WindowStore: Kafka Streams' WindowStore<Bytes, byte[]> — records keyed by (key, window start).
//
// How it differs from a sorted map of (key, start) → value:
//   * It has a stream time (the largest window start ever put) and a retention; a put whose
//     start is at or below `streamTime - retention` is dropped and counted, and reads never see
//     windows at or below that bound (SPEC W2, W3, W6).
//   * Multi-key reads are ordered by window start first, then key bytes (W7) — time-major, as
//     Kafka's segmented stores return them.
//   * With retainDuplicates every put is a new entry; a single-point Fetch then returns nothing
//     (a Kafka quirk that this interface keeps on purpose, W5).
//
// Keys and values are byte strings; keys compare as unsigned bytes, a prefix first.
//
// Iterator semantics under mutation (W8, W9), exactly:
//   * An iterator fixes its key bounds and its time range when it is opened; the lower time
//     bound already includes the retention bound of that moment (W6).
//   * It walks the segments (one per window start) in its direction. When it enters a segment
//     it takes a snapshot of that segment's matching records; later writes to that segment are
//     not seen, writes to segments it has not entered yet are. It enters the first segment when
//     opened, and the next one when the current snapshot is used up and HasNext, PeekNextKey or
//     Next is called. Once it finds no further segment it is exhausted for good.
//   * While open and not exhausted it pins segments against expiry: a forward iterator the
//     segment it is on and every later one, a backward iterator every segment from its lower
//     time bound up. So it may return records that have expired since it was opened.
//   * Close() releases the pin (it is taken off at the next put or read). Closing the store
//     closes every open iterator; a closed iterator's HasNext is false.
//
// Thread safety: every method of a store may be called from any thread; calls are serialised
// by the store. An iterator belongs to one thread at a time.
#ifndef STATECHECK_WINDOW_STORE_H_
#define STATECHECK_WINDOW_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "statecheck/status.h"
#include "statecheck/windows.h"

namespace statecheck {

// The store's windows are time windows (statecheck/windows.h's Window): [start, end), end =
// start + windowSize, saturating at INT64_MAX.

// One record as a read returns it. Single-key reads fill `key` too.
struct WindowedRecord {
  std::string key;
  Window window;
  std::string value;
  friend bool operator==(const WindowedRecord&, const WindowedRecord&) = default;
};

// One record as NextView returns it: views into the iterator, not copies. They stay valid until
// the iterator's next call (HasNext, Next, NextView, PeekNextKey, Close) or its destruction.
struct WindowedRecordView {
  std::string_view key;
  Window window;
  std::string_view value;
};

// The key part of a record, as PeekNextKey returns it.
struct WindowedKey {
  std::string key;
  Window window;
  friend bool operator==(const WindowedKey&, const WindowedKey&) = default;
};

class WindowStoreIterator {
 public:
  virtual ~WindowStoreIterator() = default;
  WindowStoreIterator() = default;
  WindowStoreIterator(const WindowStoreIterator&) = delete;
  WindowStoreIterator& operator=(const WindowStoreIterator&) = delete;

  // True when Next would return a record. May enter the next segment (see the banner).
  // False for a closed iterator and after the store is closed; never an error.
  virtual bool HasNext() = 0;
  // The next record. REQUIRES nothing: when HasNext() is false, returns OutOfRange and leaves
  // `*record` untouched.
  virtual Status Next(WindowedRecord* record) = 0;
  // Next without copying the record out: `*record` views the iterator's own copy (see
  // WindowedRecordView for how long). The in-memory store's iterator hands out views into the
  // snapshot it already holds; this default copies into a record the iterator keeps.
  virtual Status NextView(WindowedRecordView* record) {
    Status s = Next(&viewed_);
    if (s.ok()) *record = WindowedRecordView{viewed_.key, viewed_.window, viewed_.value};
    return s;
  }
  // The key and window of the next record without consuming it; OutOfRange like Next.
  virtual Status PeekNextKey(WindowedKey* key) = 0;
  // Releases the iterator's snapshot and pin. Idempotent. The destructor closes too.
  virtual void Close() = 0;

 private:
  WindowedRecord viewed_;  // The default NextView's copy.
};

// Counters a window store reports.
struct WindowStoreMetrics {
  // Puts dropped by the retention rule (W3): Kafka's `dropped-records`.
  int64_t dropped_records = 0;
  // Records and segments held in memory, pinned ones included (W8).
  int64_t retained_records = 0;
  int64_t retained_segments = 0;
  friend bool operator==(const WindowStoreMetrics&, const WindowStoreMetrics&) = default;
};

// What a reader may call: Kafka's ReadOnlyWindowStore (its fetches and scans) and the store's
// settings and metrics. Interactive queries get this (Task::GetWindowStore).
class ReadOnlyWindowStore {
 public:
  virtual ~ReadOnlyWindowStore() = default;
  ReadOnlyWindowStore() = default;
  ReadOnlyWindowStore(const ReadOnlyWindowStore&) = delete;
  ReadOnlyWindowStore& operator=(const ReadOnlyWindowStore&) = delete;

  virtual const std::string& name() const = 0;
  virtual int64_t retention_ms() const = 0;
  virtual int64_t window_size_ms() const = 0;
  virtual bool retain_duplicates() const = 0;
  virtual bool is_open() const = 0;
  // The largest window start ever passed to Put; -1 before the first (W2).
  virtual int64_t stream_time() const = 0;
  virtual WindowStoreMetrics metrics() const = 0;

  // The value of `key` at exactly `window_start`, or std::nullopt (also on a retainDuplicates
  // store, W5, and at or below the retention bound, W6).
  virtual Status Fetch(std::string_view key, int64_t window_start,
                       std::optional<std::string>* value) = 0;

  // Records of `key` with start in [time_from, time_to] (W6 bound applied), ascending start;
  // BackwardFetch descending. An empty range (from > to) yields an empty iterator.
  virtual Status Fetch(std::string_view key, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) = 0;
  virtual Status BackwardFetch(std::string_view key, int64_t time_from, int64_t time_to,
                               std::unique_ptr<WindowStoreIterator>* it) = 0;

  // Records with key in [key_from, key_to] (a missing bound is unbounded) and start in
  // [time_from, time_to], ordered by start, key, insertion; Backward is the exact reverse.
  // key_from > key_to yields an empty iterator and a warning, not an error (W7).
  virtual Status Fetch(std::optional<std::string_view> key_from,
                       std::optional<std::string_view> key_to, int64_t time_from, int64_t time_to,
                       std::unique_ptr<WindowStoreIterator>* it) = 0;
  virtual Status BackwardFetch(std::optional<std::string_view> key_from,
                               std::optional<std::string_view> key_to, int64_t time_from,
                               int64_t time_to, std::unique_ptr<WindowStoreIterator>* it) = 0;

  // Every key, start in [time_from, time_to].
  virtual Status FetchAll(int64_t time_from, int64_t time_to,
                          std::unique_ptr<WindowStoreIterator>* it) = 0;
  virtual Status BackwardFetchAll(int64_t time_from, int64_t time_to,
                                  std::unique_ptr<WindowStoreIterator>* it) = 0;

  // Every live record.
  virtual Status All(std::unique_ptr<WindowStoreIterator>* it) = 0;
  virtual Status BackwardAll(std::unique_ptr<WindowStoreIterator>* it) = 0;
};

// A window store: the reads, and the writer's Put and Close.
class WindowStore : public ReadOnlyWindowStore {
 public:
  // Writes `value` for `key` at `window_start`; std::nullopt deletes (W3, W4, W5).
  // A put dropped by retention still returns OK (it is counted, and logged).
  // FailedPrecondition when the store is closed.
  virtual Status Put(std::string_view key, std::optional<std::string_view> value,
                     int64_t window_start) = 0;

  // Closes every open iterator and frees the records. Idempotent. Later calls other than the
  // accessors above return FailedPrecondition.
  virtual void Close() = 0;
};

// The message Kafka logs for a dropped put (W3).
inline constexpr std::string_view kSkippingExpiredRecordMessage =
    "Skipping record for expired segment.";
// The warning for a range read whose key_from sorts after key_to (W7).
inline constexpr std::string_view kInvalidKeyRangeMessage =
    "Returning empty iterator for fetch with invalid key range: from > to. This may be due to "
    "range arguments set in the wrong order, or serdes that don't preserve ordering when "
    "lexicographically comparing the serialized bytes. Note that the built-in numerical serdes "
    "do not follow this for negative numbers";

}  // namespace statecheck

#endif  // STATECHECK_WINDOW_STORE_H_
