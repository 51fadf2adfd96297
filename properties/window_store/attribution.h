// The window-store property's attribution and situations (window_store_property.h): a step runs
// on the model first; the model's report of what it did (last_call) and its entries afterwards
// explain the step. When the store's result differs, the rule is decided from the op and from
// which field differs (StepRule); when it is equal, the situations the step reached
// (NoteSituations) count; the property's table of open iterators follows (TrackIterators).
#ifndef STATECHECK_PROPERTIES_WINDOW_STORE_ATTRIBUTION_H_
#define STATECHECK_PROPERTIES_WINDOW_STORE_ATTRIBUTION_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "model/window_store_model.h"
#include "properties/window_store/ops.h"

namespace statecheck::properties::window_store {

// The ends of the time line.
inline constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// __int128: the ends of int64 plus or minus a retention must not overflow.
__extension__ typedef __int128 Wide;

// What the property keeps of one open iterator: enough to credit a difference in its steps to
// the rule it breaks, and to tell W9's situations (a put or an expiry while it is open).
struct IteratorInfo {
  Op open;      // The read it was opened with.
  Wide lo = 0;  // The model's lower time bound at open: max(from, bound + 1) (W6).
  std::set<std::tuple<std::string, int64_t, std::string>> at_open;  // (key, start, value) held.
  bool put_since = false;             // A put reached the open store since it was opened.
  bool expiry_since = false;          // An expiry removed or kept (pinned) records since then.
  bool store_closed = false;          // The store was closed since then.
  bool saw_end = false;               // The model answered hasNext false, or OutOfRange.
  std::optional<int64_t> last_start;  // The start of the last record it returned.
};

// Everything one step is judged by.
struct Step {
  const Op& op;
  int index;  // 1-based.
  int64_t stream_time_before;
  bool closed_before;                        // The model's store was closed before the step.
  model::WindowStoreModelCallReport report;  // For a put, point fetch, scan or open.
  const Json& expected;                      // The model's step result.
  const Json& actual;                        // The store's.
  int64_t retention;
  int64_t window_size;
  bool duplicates;
  IteratorInfo* iterator;  // The iterator an iterator step names, if open in the model.

  // streamTime - retention, after the step (a put's own start counted, W2).
  Wide Bound() const { return static_cast<Wide>(StreamTimeAfter()) - retention; }
  int64_t StreamTimeAfter() const { return expected["after"]["stream_time"].get<int64_t>(); }
};

// The rule a step whose store result differs from the model's breaks.
std::string StepRule(const Step& step);
// The situations of W2–W9 (reports/rules.json) a step that held reached.
void NoteSituations(const Step& step, model::WindowStoreModel& model);
// Keeps the table of open iterators up to date after a step that held.
void TrackIterators(const Step& step, const model::WindowStoreModel& model,
                    std::map<int, IteratorInfo>* iterators);

}  // namespace statecheck::properties::window_store

#endif  // STATECHECK_PROPERTIES_WINDOW_STORE_ATTRIBUTION_H_
