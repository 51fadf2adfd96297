// SeedWindowStore: the in-memory window store exactly as the KIP-428 seed designs it, kept as
// the baseline that bench/window_store_bench measures the engine against.
//
// The seed's design, literally: the store is segmented by window start, each segment 1 ms wide
// (so a segment holds at most one value per key), each segment a sorted map key → value, and
// the segments themselves in a sorted map. Here: std::map<int64_t, std::map<std::string,
// std::string>>, the C++ counterpart of Kafka's TreeMap<Long, TreeMap<Bytes, byte[]>>.
//
// It follows Kafka's InMemoryWindowStore step for step where the benchmark exercises it:
//   * Put first removes expired segments (start <= streamTime - retention, with the stream time
//     of before this put), then advances the stream time, then applies the drop rule (SPEC W3),
//     then writes; a null value deletes the key and an emptied segment goes (W4).
//   * A single-key range fetch walks every segment in the live time range and looks the key up
//     in each (the seed's way; Kafka's subMap(key, true, key, true) per segment).
//   * FetchAll walks the segments in the time range and every record in each.
//   * Reads also remove expired segments first, and bound the time range by the retention (W6).
//
// How it differs from Kafka, all in the baseline's favour (it is the baseline we claim to beat,
// so it is not handicapped):
//   * Iterators are plain values (no heap allocation) and return views into the store — like a
//     Kafka iterator, which hands out the stored byte[] without copying it. The engine's
//     interface copies each record into the caller's WindowedRecord.
//   * Keys are looked up with a transparent comparator (no temporary std::string per lookup).
//   * No retainDuplicates, no iterator pinning, no thread safety: a write invalidates open
//     iterators (the benchmark never writes while an iterator is open), and there is no lock.
//
// Keys compare as unsigned bytes (std::string's ordering), a prefix first, as in the engine.
#ifndef STATECHECK_BENCH_SEED_WINDOW_STORE_H_
#define STATECHECK_BENCH_SEED_WINDOW_STORE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace statecheck::bench {

class SeedWindowStore {
 public:
  using Segment = std::map<std::string, std::string, std::less<>>;
  using SegmentMap = std::map<int64_t, Segment>;

  // One record as an iterator returns it: views into the store, valid until the next write.
  struct RecordView {
    int64_t window_start = 0;
    std::string_view key;
    std::string_view value;
  };

  // The records of one key over a time range, ascending window start.
  class KeyIterator {
   public:
    // True and fills `*record` when there is a next record; false at the end.
    bool Next(RecordView* record);

   private:
    friend class SeedWindowStore;
    KeyIterator(SegmentMap::const_iterator segment, SegmentMap::const_iterator end,
                std::string_view key)
        : segment_(segment), end_(end), key_(key) {}

    SegmentMap::const_iterator segment_;
    SegmentMap::const_iterator end_;
    std::string_view key_;
  };

  // Every record over a time range, ordered by window start then key.
  class AllIterator {
   public:
    bool Next(RecordView* record);

   private:
    friend class SeedWindowStore;
    AllIterator(SegmentMap::const_iterator segment, SegmentMap::const_iterator end);

    SegmentMap::const_iterator segment_;
    SegmentMap::const_iterator end_;
    Segment::const_iterator record_;
  };

  // REQUIRES: 0 <= window_size_ms <= retention_ms (the engine's W1; not checked here).
  SeedWindowStore(int64_t retention_ms, int64_t window_size_ms)
      : retention_ms_(retention_ms), window_size_ms_(window_size_ms) {}

  SeedWindowStore(const SeedWindowStore&) = delete;
  SeedWindowStore& operator=(const SeedWindowStore&) = delete;

  // Kafka's InMemoryWindowStore.put (retainDuplicates = false).
  void Put(std::string_view key, std::optional<std::string_view> value, int64_t window_start);

  // The value of `key` at exactly `window_start`, or nullptr. Valid until the next write.
  const std::string* Fetch(std::string_view key, int64_t window_start);

  // Records of `key` with window start in [time_from, time_to], bounded below by the retention.
  // `key` must outlive the iterator.
  KeyIterator Fetch(std::string_view key, int64_t time_from, int64_t time_to);

  // Every record with window start in [time_from, time_to], bounded below by the retention.
  AllIterator FetchAll(int64_t time_from, int64_t time_to);

  int64_t stream_time() const { return stream_time_; }
  int64_t window_size_ms() const { return window_size_ms_; }
  int64_t dropped_records() const { return dropped_records_; }
  size_t num_segments() const { return segments_.size(); }
  // Counts the records (walks every segment; not for hot paths).
  size_t num_records() const;

 private:
  // Kafka's removeExpiredSegments: drops every segment with start <= streamTime - retention.
  void RemoveExpiredSegments();
  // [first, last) over the segments whose start lies in [time_from, time_to] after the
  // retention bound; an empty range when nothing can match.
  void SegmentRange(int64_t time_from, int64_t time_to, SegmentMap::const_iterator* first,
                    SegmentMap::const_iterator* last) const;

  const int64_t retention_ms_;
  const int64_t window_size_ms_;
  int64_t stream_time_ = -1;
  int64_t dropped_records_ = 0;
  SegmentMap segments_;
};

}  // namespace statecheck::bench

#endif  // STATECHECK_BENCH_SEED_WINDOW_STORE_H_
