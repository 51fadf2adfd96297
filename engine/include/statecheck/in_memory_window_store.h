// The in-memory window store (KIP-428): Kafka's Stores.inMemoryWindowStore, kept to SPEC W1–W10.
//
// How it differs from the KIP's design (a map of 1 ms segments, each a map key → value):
//   * Keys are interned once; each segment is a B-tree of (key id, sequence) → value reference
//     whose value bytes live in one arena per segment, so a live record costs about a third of
//     the KIP's (bench/window_store_bench measures it).
//   * A second index, (key id, start), finds one key's windows without visiting the segments
//     that lack the key (W10): a single-key range fetch costs O(log n + r).
// Put and single-point fetch are O(log n) in the live records.
#ifndef STATECHECK_IN_MEMORY_WINDOW_STORE_H_
#define STATECHECK_IN_MEMORY_WINDOW_STORE_H_

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "statecheck/logger.h"
#include "statecheck/status.h"
#include "statecheck/window_store.h"

namespace statecheck {

struct WindowStoreOptions {
  std::string name;
  int64_t retention_ms = 0;
  int64_t window_size_ms = 0;
  bool retain_duplicates = false;
  // Receives the W3 and W7 warnings. Null means StderrLogger().
  std::shared_ptr<Logger> logger;
};

// Checks W1 in Kafka's order: empty name, negative retention, negative window size, window
// size above retention. Returns the first failure as InvalidArgument with Kafka's text.
Status ValidateWindowStoreOptions(const WindowStoreOptions& options);

// Creates an in-memory window store, or returns the W1 error and leaves `*store` empty.
Status NewInMemoryWindowStore(const WindowStoreOptions& options,
                              std::unique_ptr<WindowStore>* store);

// Converts a std::chrono duration to whole milliseconds for the options above, as Kafka's
// ApiUtils.validateMillisecondDuration does: a duration that does not fit in int64
// milliseconds is InvalidArgument naming `parameter`. Sub-millisecond parts are truncated.
template <class Rep, class Period>
Status DurationToMillis(std::chrono::duration<Rep, Period> d, std::string_view parameter,
                        int64_t* millis) {
  using Ms = std::chrono::duration<long double, std::milli>;
  const long double ms = std::chrono::duration_cast<Ms>(d).count();
  // 2^63 is exactly representable as long double; anything at or beyond it does not fit.
  constexpr long double kLimit = 9223372036854775808.0L;
  // Keeps: W1 — a duration that does not fit in int64 milliseconds is rejected
  if (!(ms > -kLimit - 1.0L && ms < kLimit)) {
    return Status::InvalidArgument(std::string("Invalid value for parameter \"") +
                                   std::string(parameter) +
                                   "\": it can't be converted to milliseconds.");
  }
  *millis = static_cast<int64_t>(ms);
  return Status::Ok();
}

}  // namespace statecheck

#endif  // STATECHECK_IN_MEMORY_WINDOW_STORE_H_
