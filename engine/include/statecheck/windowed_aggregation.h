// Windowed aggregation over time windows with KIP-825's emit strategies (SPEC E1–E6, E9, E10),
// as a task Processor (statecheck/task.h): its state lives in a transactional store of the task,
// restored from its changelog, and the last emitted close time is committed with the input
// offset, so the aggregation survives crashes.
//
// For an input record (key, value, timestamp):
//   * a null key, or no timestamp, is dropped and counted (E1);
//   * stream time := max(stream time, timestamp) — the largest record timestamp seen since the
//     task started (not restored);
//   * for each time window holding the timestamp, by ascending start: if it still takes records
//     (TimeWindows::Accepts: end > stream time - grace) its aggregate becomes
//     aggregator(key, value, aggregate or initializer()), and under ON_WINDOW_UPDATE one output
//     follows (E2); if not, that window alone is skipped, counted, and a warning names the
//     window, its expiration and the stream time (E1);
//   * under ON_WINDOW_CLOSE, when the close time (stream time - grace) has passed the last
//     emitted one and emit_interval_ms of wall-clock time have passed since the last attempt
//     (E5), every window that closed since — end in (last emitted close time, close time] — is
//     emitted once, with its final aggregate, by window start, then key bytes (E3, E4), read
//     with one time-ordered range scan over exactly those windows (E9).
// An output record's key is "<start>:<end>:<key>" (decimal; the key's bytes follow the second
// colon), its value the aggregate, its timestamp the largest record timestamp of the window.
//
// The store ("agg" by default) keys each window by [start, 8 bytes big-endian][key] and holds
// [the window's largest record timestamp, 8 bytes big-endian][aggregate]. The processor's
// commit metadata (E10) is "<store>=<last emitted close time>"; a starting task takes the
// largest such value it finds.
//
// Where the aggregates live (AggregationStoreType):
//   * kPersistent (default): a transactional key-value store of the task, keyed as above, read
//     as Kafka reads the store behind such an aggregation (E11): the store's stream time is the
//     largest window start put into it, and a read sees windows starting at or after store time
//     - retention under emit-final (Kafka's time-ordered window store), after it under
//     emit-eager (the key-ordered one). FetchTimeWindowAggregates queries it so. A window leaves
//     the store once no read can see it; under emit-final only once it has been emitted, so that
//     no closed window is lost while the emit interval holds emission back (E6). The store's
//     stream time starts afresh at a restart (as Kafka's store's), so windows are deleted again
//     only once new puts have passed them again.
//   * kInMemory: an in-memory window store of the task (KIP-428, statecheck/task.h's
//     "In-memory window stores"): key = the record's key at window start = the window's start,
//     value as above, window size = the windows' size, retention = the retention option. It is
//     restored from its changelog at every open, and its retention applies, Kafka's way: a
//     window whose start is at or below the store's stream time (the largest window start put,
//     restored ones included) minus the retention is gone — dropped on restore, not returned by
//     reads, its puts dropped. So, unlike kPersistent:
//       - emit-final never emits a closed window that expired before its emission ran; with
//         retention = size + grace that happens when a record's windows advance the store's
//         stream time past a closed window's start + retention before the emission — within
//         the same record (tumbling 10 ms: a record at 5, then one at 20: [0,10) is gone when
//         [20,30) is put), or while the emit interval holds emission back;
//       - after a restart the processor's stream time starts afresh (SPEC E) but the store's
//         does not: a record accepted for a window the store has expired aggregates from the
//         initializer again, and its put is dropped.
//     A retention above the span of record timestamps the aggregation will see avoids both.
#ifndef STATECHECK_WINDOWED_AGGREGATION_H_
#define STATECHECK_WINDOWED_AGGREGATION_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/logger.h"
#include "statecheck/status.h"
#include "statecheck/task.h"
#include "statecheck/windows.h"

namespace statecheck {

// What a windowed aggregation computes per window and key: Kafka's aggregate(initializer,
// aggregator) — a window's first aggregate is aggregate(key, value, initializer()) — or, with
// `reducer` set instead, Kafka's reduce(reducer): a window's first value is its aggregate and each
// later value v makes it reducer(aggregate, v); records with a null value are skipped, as
// Kafka's reduce skips them (they are not dropped-records). Sessions merge with the reducer.
struct Aggregator {
  std::function<std::string()> initializer;
  // (key, value, aggregate) → the new aggregate. `value` is null for a tombstone.
  std::function<std::string(std::string_view, std::optional<std::string_view>, std::string_view)>
      aggregate;
  // (aggregate, value) → the new aggregate.
  std::function<std::string(std::string_view, std::string_view)> reducer;
};
// count(): the number of records, in decimal (tombstones too, as Kafka's count counts them).
Aggregator CountAggregator();
// reduce(reducer).
Aggregator ReduceAggregator(std::function<std::string(std::string_view, std::string_view)> reducer);

// What the aggregation did since its task opened; read it from the test or harness that made
// the processor (it is shared with the processor).
struct AggregationStats {
  int64_t dropped_records = 0;  // Kafka's dropped-records: null keys, no timestamp, late (E1).
  int64_t emitted = 0;          // Output records.
  // Store records emit-final's lookup read (E9): every record its range scans returned, the one
  // that ends a scan included. Equal to the windows it emitted when the scan touches only
  // closing windows, whatever else the store holds.
  int64_t windows_read = 0;
};

// Where a TimeWindowedAggregation keeps its aggregates (see the banner).
enum class AggregationStoreType { kPersistent, kInMemory };

struct TimeWindowedAggregationOptions {
  TimeWindows windows;
  EmitStrategy emit = EmitStrategy::kOnWindowUpdate;
  // Kafka's internal emit.interval.ms for emit-final (default 1000; tests set 0). >= 0.
  int64_t emit_interval_ms = 1000;
  std::string store = "agg";  // A store name of the task: [A-Za-z0-9._-].
  int64_t retention_ms = -1;  // -1: the window size plus the grace period.
  // kInMemory: `store` is an in-memory window store of the task (Task::GetWindowStore), not a
  // key-value store (Task::Store).
  AggregationStoreType store_type = AggregationStoreType::kPersistent;
  Aggregator aggregator = CountAggregator();
  std::shared_ptr<AggregationStats> stats;  // Null: not reported.
  std::shared_ptr<Logger> logger;           // Null = StderrLogger().
};

// InvalidArgument with Kafka's text for a retention shorter than size + grace, or naming the
// option for an empty store name, a negative emit interval or a missing aggregator.
Status NewTimeWindowedAggregation(const TimeWindowedAggregationOptions& options,
                                  std::unique_ptr<Processor>* out);

// suppress(untilWindowCloses) over the emit-eager aggregation of `options` (whose emit must be
// kOnWindowUpdate; Kafka's KTableSuppressProcessor, SPEC E7): each eager output replaces the
// last one of its window and key in a buffer (a second transactional store of the task,
// "<store>.suppress", keyed by window end), and after each output every buffered record whose
// window has closed by the suppress's own stream time — the largest timestamp of the records it
// received: end + grace <= that stream time — goes out, by window end, then windowed key. For time
// windows its output equals emit-final's (E7), once stream time has passed every window: its stream
// time can lag the aggregation's, since a record every window of which is late forwards nothing.
Status NewSuppressedTimeWindowedAggregation(const TimeWindowedAggregationOptions& options,
                                            std::unique_ptr<Processor>* out);

// One window's aggregate as an interactive query of the aggregation's store returns it.
struct WindowedAggregate {
  Window window;  // [start, start + size), the end saturating at INT64_MAX.
  std::string key;
  std::string aggregate;   // As the aggregation forwards it.
  int64_t timestamp = -1;  // The window's largest record timestamp.
  friend bool operator==(const WindowedAggregate&, const WindowedAggregate&) = default;
};

// Which windows an interactive query of an aggregation's store asks for: Kafka's
// ReadOnlyWindowStore.fetch(key, timeFrom, timeTo) (key_from = key_to = the key),
// fetch(keyFrom, keyTo, timeFrom, timeTo) (a std::nullopt bound is unbounded), fetchAll(timeFrom,
// timeTo) (both unbounded), and each one's backward variant.
struct WindowAggregateQuery {
  std::optional<std::string> key_from;
  std::optional<std::string> key_to;
  int64_t time_from = std::numeric_limits<int64_t>::min();  // Window starts, both included.
  int64_t time_to = std::numeric_limits<int64_t>::max();
  bool backward = false;  // The exact reverse of the forward query's order.
};

// An interactive query of the persistent store of the time-window aggregation `options`
// describes, through `store` (a view of it: Task::Store(options.store)->NewQueryView(), whose
// isolation level decides what it sees, T3/T4): the windows of keys in [key_from, key_to]
// (none when key_from > key_to) starting in [time_from, time_to] that the store's read bound
// lets through (E11, with the store's stream time as the largest window start the view holds),
// in the order of the Kafka store the aggregation's emit strategy stands for (E11): under
// emit-final (the time-first store) by start, then key bytes; under emit-eager (the key-first
// store, segments of max(retention / 2, 60000) ms) by segment, then key bytes, then start.
// InvalidArgument for an aggregation whose store is in memory (query that with
// Task::GetWindowStore); Corruption for a record that is not a window aggregate.
Status FetchTimeWindowAggregates(ReadOnlyKeyValueStore& store,
                                 const TimeWindowedAggregationOptions& options,
                                 const WindowAggregateQuery& query,
                                 std::vector<WindowedAggregate>* out);

// The output key of `window` for `key`: "<start>:<end>:<key>".
std::string WindowedKey(const Window& window, std::string_view key);

}  // namespace statecheck

#endif  // STATECHECK_WINDOWED_AGGREGATION_H_
