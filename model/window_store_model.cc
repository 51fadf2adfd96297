#include "model/window_store_model.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "statecheck/logger.h"

namespace statecheck::model {

// Wide enough that stream time plus one never overflows (INT64_MAX + 1: nothing is live).
__extension__ typedef __int128 Wide;

namespace {

constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();

// One stored record. `seq` is the store-wide insertion counter: it orders duplicates (W5).
struct Entry {
  std::string key;
  int64_t start = 0;
  int64_t seq = 0;
  std::string value;
  bool kept_for_iterator = false;  // An expiry kept it, below the bound, for an open iterator.
};

// Keys compare as unsigned bytes, a prefix first (W7). Written out rather than relying on how
// std::string compares chars.
// Encodes: W7 — key order: unsigned bytes, a prefix before the keys it starts
int CompareKeys(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

// Order within one segment: key, then insertion.
bool KeyThenSeqLess(const Entry& a, const Entry& b) {
  const int c = CompareKeys(a.key, b.key);
  if (c != 0) return c < 0;
  return a.seq < b.seq;
}

// [start, start + size), the end saturating at INT64_MAX (W7). size >= 0.
// Encodes: W7 — a window is [start, start + size), its end saturating at INT64_MAX
Window WindowOf(int64_t start, int64_t size) {
  const int64_t end = start > kMaxTime - size ? kMaxTime : start + size;
  return Window{start, end};
}

class ModelIterator;

}  // namespace

struct WindowStoreModelState {
  // Fixed at construction.
  std::string name;
  int64_t retention = 0;
  int64_t window_size = 0;
  bool retain_duplicates = false;
  std::shared_ptr<Logger> logger;

  // Guards everything below, and every iterator's fields.
  mutable std::mutex mu;
  bool closed = false;
  int64_t stream_time = -1;  // Encodes: W2 — stream time starts at -1
  int64_t dropped_records = 0;
  int64_t next_seq = 0;
  std::vector<Entry> entries;  // Any order.
  std::vector<ModelIterator*> open_iterators;
  WindowStoreModelCallReport last_call;  // Reset by every Put, point Fetch and open.

  Status CheckOpen() const {
    if (closed) return Status::FailedPrecondition("Store " + name + " is currently closed.");
    return Status::Ok();
  }

  // The oldest start a read may see, and below which entries expire (W6, W8). Wide, because
  // with stream time INT64_MAX and retention 0 it is INT64_MAX + 1: nothing is live.
  // Encodes: W6 — the retention bound: reads see only starts at or above it
  Wide MinLiveStart() const { return static_cast<Wide>(stream_time) - retention + 1; }

  void RemoveExpired();  // Needs ModelIterator; defined below it.
};

namespace {

// An iterator over the records with a key in [key_from, key_to] (a missing bound is unbounded)
// and a start in [lo, hi], walking the segments in its direction. All fields are guarded by
// state_->mu.
class ModelIterator final : public WindowStoreIterator {
 public:
  // Registers itself with `state` and enters its first segment. REQUIRES: state->mu held.
  ModelIterator(std::shared_ptr<WindowStoreModelState> state,
                std::optional<std::string_view> key_from, std::optional<std::string_view> key_to,
                int64_t lo, int64_t hi, bool forward)
      : state_(std::move(state)), lo_(lo), hi_(hi), forward_(forward) {
    if (key_from) key_from_ = std::string(*key_from);
    if (key_to) key_to_ = std::string(*key_to);
    state_->open_iterators.push_back(this);
    Advance();
  }

  ~ModelIterator() override { Close(); }

  bool HasNext() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    return HasNextLocked();
  }

  Status Next(WindowedRecord* record) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    // Encodes: W9 — next() past the end (or on a closed iterator) is OutOfRange
    if (!HasNextLocked()) return Status::OutOfRange("The iterator has no more records.");
    const Entry& e = buffer_.front();
    *record = WindowedRecord{e.key, WindowOf(e.start, state_->window_size), e.value};
    buffer_.pop_front();
    return Status::Ok();
  }

  Status PeekNextKey(WindowedKey* key) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!HasNextLocked()) return Status::OutOfRange("The iterator has no more records.");
    const Entry& e = buffer_.front();
    *key = WindowedKey{e.key, WindowOf(e.start, state_->window_size)};
    return Status::Ok();
  }

  void Close() override {
    std::lock_guard<std::mutex> lock(state_->mu);
    // Encodes: W9 — closing an iterator releases its pins: the next expiry may remove them
    std::erase(state_->open_iterators, this);
    MarkClosedLocked();
  }

  // The rest is called by the store with state_->mu held.

  // Whether this iterator holds segments against expiry, and the lowest start it holds (W8).
  // Encodes: W8 — an open, unexhausted iterator pins its segment and those it has yet to reach
  bool Pins() const { return !closed_ && !exhausted_; }
  int64_t PinnedFrom() const { return forward_ ? cur_ : lo_; }

  void MarkClosedLocked() {
    closed_ = true;
    buffer_.clear();
  }

 private:
  bool KeyInBounds(std::string_view key) const {
    if (key_from_ && CompareKeys(key, *key_from_) < 0) return false;
    if (key_to_ && CompareKeys(key, *key_to_) > 0) return false;
    return true;
  }

  bool Matches(const Entry& e) const {
    return e.start >= lo_ && e.start <= hi_ && KeyInBounds(e.key);
  }

  // Enters the nearest segment past the current one (in the direction) holding a matching
  // record, snapshotting its matching records; or becomes exhausted for good.
  // Encodes: W9 — one segment snapshotted at a time: later puts to unreached segments are seen
  void Advance() {
    std::optional<int64_t> next;
    for (const Entry& e : state_->entries) {
      if (!Matches(e)) continue;
      if (entered_ && (forward_ ? e.start <= cur_ : e.start >= cur_)) continue;
      if (!next || (forward_ ? e.start < *next : e.start > *next)) next = e.start;
    }
    buffer_.clear();
    if (!next) {
      exhausted_ = true;
      return;
    }
    entered_ = true;
    cur_ = *next;
    std::vector<Entry> segment;
    for (const Entry& e : state_->entries) {
      if (e.start == cur_ && Matches(e)) segment.push_back(e);
    }
    // Encodes: W5, W7 — by start, then key, then insertion; a backward read the exact reverse
    std::sort(segment.begin(), segment.end(), KeyThenSeqLess);
    if (!forward_) std::reverse(segment.begin(), segment.end());
    buffer_.assign(segment.begin(), segment.end());
  }

  bool HasNextLocked() {
    if (closed_ || exhausted_) return false;
    if (!buffer_.empty()) return true;
    Advance();
    return !exhausted_;
  }

  const std::shared_ptr<WindowStoreModelState> state_;
  std::optional<std::string> key_from_;
  std::optional<std::string> key_to_;
  const int64_t lo_;
  const int64_t hi_;
  const bool forward_;
  bool entered_ = false;      // Whether cur_ names a segment yet.
  int64_t cur_ = 0;           // The start of the segment the iterator is on.
  std::deque<Entry> buffer_;  // What is left of that segment's snapshot.
  bool exhausted_ = false;
  bool closed_ = false;
};

}  // namespace

void WindowStoreModelState::RemoveExpired() {
  const Wide bound = MinLiveStart();
  Wide min_live = bound;
  // Encodes: W8 — expiry removes starts below the bound, lowered to each open iterator's pin
  for (const ModelIterator* it : open_iterators) {
    if (it->Pins()) min_live = std::min<Wide>(min_live, it->PinnedFrom());
  }
  WindowStoreModelCallReport& r = last_call;
  std::set<int64_t> removed_starts;
  for (Entry& e : entries) {
    if (e.start < min_live) {
      ++r.expired_records;
      if (e.kept_for_iterator) ++r.released_records;
      if (e.start == bound - 1) r.expired_boundary = true;
      removed_starts.insert(e.start);
    } else if (e.start < bound) {
      ++r.pinned_records;
      e.kept_for_iterator = true;
    }
  }
  r.expired_segments = static_cast<int64_t>(removed_starts.size());
  std::erase_if(entries, [&](const Entry& e) { return e.start < min_live; });
}

WindowStoreModel::WindowStoreModel(const WindowStoreOptions& options)
    : state_(std::make_shared<WindowStoreModelState>()) {
  state_->name = options.name;
  state_->retention = options.retention_ms;
  state_->window_size = options.window_size_ms;
  state_->retain_duplicates = options.retain_duplicates;
  state_->logger = options.logger ? options.logger : StderrLogger();
}

WindowStoreModel::~WindowStoreModel() { Close(); }

const std::string& WindowStoreModel::name() const { return state_->name; }
int64_t WindowStoreModel::retention_ms() const { return state_->retention; }
int64_t WindowStoreModel::window_size_ms() const { return state_->window_size; }
bool WindowStoreModel::retain_duplicates() const { return state_->retain_duplicates; }

bool WindowStoreModel::is_open() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return !state_->closed;
}

int64_t WindowStoreModel::stream_time() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->stream_time;
}

WindowStoreMetrics WindowStoreModel::metrics() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::set<int64_t> starts;
  for (const Entry& e : state_->entries) starts.insert(e.start);
  WindowStoreMetrics m;
  m.dropped_records = state_->dropped_records;
  m.retained_records = static_cast<int64_t>(state_->entries.size());
  m.retained_segments = static_cast<int64_t>(starts.size());
  return m;
}

Status WindowStoreModel::Put(std::string_view key, std::optional<std::string_view> value,
                             int64_t window_start) {
  WindowStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.last_call = WindowStoreModelCallReport{};
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  using Effect = WindowStoreModelCallReport::PutEffect;
  WindowStoreModelCallReport& report = s.last_call;
  s.RemoveExpired();  // Encodes: W8 — expiry runs at the start of every put
  // Encodes: W2 — every put (delete, dropped or not) raises stream time to its start
  s.stream_time = std::max(s.stream_time, window_start);
  auto same = [&](const Entry& e) { return e.start == window_start && e.key == key; };
  report.same_key_and_start_before = std::count_if(s.entries.begin(), s.entries.end(), same);
  // Encodes: W3 — start <= streamTime - retention: dropped, counted and logged, nothing stored
  if (window_start <= s.stream_time - s.retention) {  // W3
    ++s.dropped_records;
    s.logger->Log(LogLevel::kWarn, kSkippingExpiredRecordMessage);
    report.put = Effect::kDropped;
    return Status::Ok();
  }
  if (value) {
    // Encodes: W5 — without retainDuplicates a value overwrites; with it, always a new entry
    if (!s.retain_duplicates) {
      auto it = std::find_if(s.entries.begin(), s.entries.end(), same);
      if (it != s.entries.end()) {
        it->value = std::string(*value);
        report.put = Effect::kOverwritten;
        return Status::Ok();
      }
    }
    s.entries.push_back(Entry{std::string(key), window_start, s.next_seq++, std::string(*value)});
    report.put = Effect::kInserted;
  } else if (s.retain_duplicates) {  // Encodes: W4 — with retainDuplicates a null does nothing
    report.put = Effect::kNullWithDuplicates;
  } else {
    // Encodes: W4 — a null erases (key, start); a start left with no entry is no segment
    const size_t erased = std::erase_if(s.entries, same);
    report.put = erased > 0 ? Effect::kDeleted : Effect::kDeletedNothing;
    report.emptied_segment =
        erased > 0 && std::none_of(s.entries.begin(), s.entries.end(),
                                   [&](const Entry& e) { return e.start == window_start; });
  }
  return Status::Ok();
}

Status WindowStoreModel::Fetch(std::string_view key, int64_t window_start,
                               std::optional<std::string>* value) {
  WindowStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  value->reset();
  s.last_call = WindowStoreModelCallReport{};
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  s.RemoveExpired();
  const auto held = std::count_if(s.entries.begin(), s.entries.end(), [&](const Entry& e) {
    return e.start == window_start && e.key == key;
  });
  // Encodes: W6 — a point fetch at or below streamTime - retention returns nothing
  if (window_start <= s.stream_time - s.retention) {  // W6
    s.last_call.hidden_by_bound = held;
    return Status::Ok();
  }
  // Encodes: W5 — Kafka's quirk: a point fetch on a retainDuplicates store returns nothing
  if (s.retain_duplicates) {  // W5's quirk.
    s.last_call.point_hidden_by_duplicates = held > 0;
    return Status::Ok();
  }
  for (const Entry& e : s.entries) {
    if (e.start == window_start && e.key == key) *value = e.value;
  }
  return Status::Ok();
}

Status WindowStoreModel::Open(std::optional<std::string_view> key_from,
                              std::optional<std::string_view> key_to, int64_t time_from,
                              int64_t time_to, bool forward,
                              std::unique_ptr<WindowStoreIterator>* it) {
  it->reset();  // Before locking: the old iterator's destructor may lock this very store.
  WindowStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.last_call = WindowStoreModelCallReport{};
  STATECHECK_RETURN_IF_ERROR(s.CheckOpen());
  s.RemoveExpired();
  for (const Entry& e : s.entries) {  // W6: what only an iterator's pin keeps.
    if (e.start >= time_from && e.start <= time_to && e.start < s.MinLiveStart() &&
        (!key_from || CompareKeys(e.key, *key_from) >= 0) &&
        (!key_to || CompareKeys(e.key, *key_to) <= 0)) {
      ++s.last_call.hidden_by_bound;
    }
  }
  // Encodes: W7 — keyFrom > keyTo: an empty iterator and the warning, no error
  if (key_from && key_to && CompareKeys(*key_from, *key_to) > 0) {
    s.logger->Log(LogLevel::kWarn, kInvalidKeyRangeMessage);
    // No key lies in the reversed bounds, so the iterator below is empty.
  }
  // Encodes: W6 — a range read covers [max(from, streamTime - retention + 1), to]
  const Wide lo = std::max<Wide>(time_from, s.MinLiveStart());
  // lo > time_to gives an empty iterator: no start lies in [lo, time_to].
  if (lo > time_to) {
    *it = std::make_unique<ModelIterator>(state_, key_from, key_to, 1, 0, forward);
  } else {
    *it = std::make_unique<ModelIterator>(state_, key_from, key_to, static_cast<int64_t>(lo),
                                          time_to, forward);
  }
  return Status::Ok();
}

Status WindowStoreModel::Fetch(std::string_view key, int64_t time_from, int64_t time_to,
                               std::unique_ptr<WindowStoreIterator>* it) {
  return Open(key, key, time_from, time_to, /*forward=*/true, it);
}

Status WindowStoreModel::BackwardFetch(std::string_view key, int64_t time_from, int64_t time_to,
                                       std::unique_ptr<WindowStoreIterator>* it) {
  return Open(key, key, time_from, time_to, /*forward=*/false, it);
}

Status WindowStoreModel::Fetch(std::optional<std::string_view> key_from,
                               std::optional<std::string_view> key_to, int64_t time_from,
                               int64_t time_to, std::unique_ptr<WindowStoreIterator>* it) {
  return Open(key_from, key_to, time_from, time_to, /*forward=*/true, it);
}

Status WindowStoreModel::BackwardFetch(std::optional<std::string_view> key_from,
                                       std::optional<std::string_view> key_to, int64_t time_from,
                                       int64_t time_to, std::unique_ptr<WindowStoreIterator>* it) {
  return Open(key_from, key_to, time_from, time_to, /*forward=*/false, it);
}

Status WindowStoreModel::FetchAll(int64_t time_from, int64_t time_to,
                                  std::unique_ptr<WindowStoreIterator>* it) {
  return Open(std::nullopt, std::nullopt, time_from, time_to, /*forward=*/true, it);
}

Status WindowStoreModel::BackwardFetchAll(int64_t time_from, int64_t time_to,
                                          std::unique_ptr<WindowStoreIterator>* it) {
  return Open(std::nullopt, std::nullopt, time_from, time_to, /*forward=*/false, it);
}

// All reads from the retention bound up; Open raises time_from to it anyway.
Status WindowStoreModel::All(std::unique_ptr<WindowStoreIterator>* it) {
  return Open(std::nullopt, std::nullopt, std::numeric_limits<int64_t>::min(), kMaxTime,
              /*forward=*/true, it);
}

Status WindowStoreModel::BackwardAll(std::unique_ptr<WindowStoreIterator>* it) {
  return Open(std::nullopt, std::nullopt, std::numeric_limits<int64_t>::min(), kMaxTime,
              /*forward=*/false, it);
}

WindowStoreModelCallReport WindowStoreModel::last_call() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->last_call;
}

std::vector<WindowStoreModelEntry> WindowStoreModel::Entries() const {
  std::vector<Entry> sorted;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    sorted = state_->entries;
  }
  std::sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
    if (a.start != b.start) return a.start < b.start;
    return KeyThenSeqLess(a, b);
  });
  std::vector<WindowStoreModelEntry> out;
  out.reserve(sorted.size());
  for (Entry& e : sorted) {
    out.push_back(WindowStoreModelEntry{std::move(e.key), e.start, e.seq, std::move(e.value)});
  }
  return out;
}

void WindowStoreModel::Close() {
  WindowStoreModelState& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  // Encodes: W9 — closing the store closes its iterators: hasNext false, no error
  for (ModelIterator* it : s.open_iterators) it->MarkClosedLocked();
  s.open_iterators.clear();
  s.entries.clear();
  s.closed = true;
}

Status NewWindowStoreModel(const WindowStoreOptions& options, std::unique_ptr<WindowStore>* store) {
  store->reset();
  // Encodes: W1 — Kafka's order, first failure wins, no store; 0 and size == retention pass
  if (options.name.empty()) return Status::InvalidArgument("name cannot be empty");
  if (options.retention_ms < 0) {
    return Status::InvalidArgument("retentionPeriod cannot be negative");
  }
  if (options.window_size_ms < 0) return Status::InvalidArgument("windowSize cannot be negative");
  if (options.window_size_ms > options.retention_ms) {
    return Status::InvalidArgument("The retention period of the window store " + options.name +
                                   " must be no smaller than its window size. Got size=[" +
                                   std::to_string(options.window_size_ms) + "], retention=[" +
                                   std::to_string(options.retention_ms) + "]");
  }
  store->reset(new WindowStoreModel(options));
  return Status::Ok();
}

}  // namespace statecheck::model
