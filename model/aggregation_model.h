// AggregationModel: what every reference model of a windowed aggregation (time, sliding and
// session windows; SPEC E) gives the windowed property
// (properties/windowed/property.h), so one property runs every window kind. The models
// are run as exactly-once tasks: a crash returns everything to the last commit; stream time and the
// emit-interval clock start afresh (they are not restored, SPEC E), the last emitted close time
// does not (it is committed, E6, E10).
#ifndef STATECHECK_MODEL_AGGREGATION_MODEL_H_
#define STATECHECK_MODEL_AGGREGATION_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "statecheck/windowed_aggregation.h"

namespace statecheck::model {

// What an aggregation computes per window and key, as Kafka's own tests write them:
//   kCount:     count() — the number of records, in decimal (null values too);
//   kReduce:    reduce(MockReducer.STRING_ADDER) — the first value, then "<aggregate>+<value>"
//               for each later one; a record with a null value is skipped (no update, no drop);
//   kAggregate: aggregate(MockInitializer.STRING_INIT, MockAggregator.TOSTRING_ADDER) — "0",
//               then "<aggregate>+<value>" for each record ("null" for a null value).
enum class AggregatorKind { kCount, kReduce, kAggregate };

// A new window's aggregate under `kind`: the initializer's "0", or none for a reduce (its first
// value becomes the aggregate).
inline std::optional<std::string> InitialAggregate(AggregatorKind kind) {
  if (kind == AggregatorKind::kReduce) return std::nullopt;
  return "0";
}

// `aggregate` (InitialAggregate's, or a window's) after one more value under `kind`.
inline std::string FoldValue(AggregatorKind kind, const std::optional<std::string>& aggregate,
                             const std::optional<std::string>& value) {
  if (kind == AggregatorKind::kCount)
    return std::to_string(std::stoll(aggregate.value_or("0")) + 1);
  const std::string v = value ? *value : "null";
  return aggregate ? *aggregate + "+" + v : v;
}

// The aggregate of `values`, in the order the window took them, under `kind` (a reduce skips
// null values).
inline std::string FoldValues(AggregatorKind kind,
                              const std::vector<std::optional<std::string>>& values) {
  std::optional<std::string> aggregate = InitialAggregate(kind);
  for (const std::optional<std::string>& v : values) {
    if (kind == AggregatorKind::kReduce && !v) continue;
    aggregate = FoldValue(kind, aggregate, v);
  }
  return aggregate.value_or("");
}

// Kafka's session merge (KStreamSessionWindowAggregate) under `kind`: the merged session's
// aggregate starts from the initializer (reduce: none, then the first session's) and takes
// each session it merges, by ascending end, with the merger — count: the sum; reduce: the
// reducer, "<a>+<b>"; aggregate: "<a>+<b>" (Kafka's SessionWindowedKStreamImplTest merger).
// The record's value then goes in with FoldValue.
inline std::optional<std::string> MergeSessions(AggregatorKind kind,
                                                const std::vector<std::string>& sessions) {
  std::optional<std::string> aggregate = InitialAggregate(kind);
  for (const std::string& theirs : sessions) {
    if (!aggregate) {
      aggregate = theirs;
    } else if (kind == AggregatorKind::kCount) {
      aggregate = std::to_string(std::stoll(*aggregate) + std::stoll(theirs));
    } else {
      aggregate = *aggregate + "+" + theirs;
    }
  }
  return aggregate;
}
// One output record of an aggregation.
struct WindowedOutput {
  std::string key;    // "<start>:<end>:<key>"
  std::string value;  // The aggregate, or "null" for a tombstone.
  int64_t timestamp = 0;
  friend bool operator==(const WindowedOutput&, const WindowedOutput&) = default;
};

// suppress(untilWindowCloses)'s buffer (SPEC E7): (window end, key, window start) → the
// window's last update, in the order Kafka's buffer lets them out.
using SuppressBuffer = std::map<std::tuple<int64_t, std::string, int64_t>, WindowedOutput>;

// Output records from `from` on, each as "<key>=<value>@<timestamp>": how findings and tests
// show them.
inline std::vector<std::string> DescribeOutputs(const std::vector<WindowedOutput>& out,
                                                size_t from = 0) {
  std::vector<std::string> shown;
  for (size_t i = from; i < out.size(); ++i) {
    shown.push_back(out[i].key + "=" + out[i].value + "@" + std::to_string(out[i].timestamp));
  }
  return shown;
}

// What the model knows of how one of its output records came about: what the property needs to
// say which rule a difference from the engine's output breaks (E1–E6).
struct EmitInfo {
  // Emit-final: the emit attempt that emitted it (counted over the model's life); emit-eager:
  // the input offset of the record whose update it is. Records of one attempt closed together.
  int64_t attempt = 0;
  int incarnation = 0;  // How many task instances ran before the one that emitted it.
  // Emit-final: the attempt came exactly emit.interval.ms after the previous one (E5).
  bool at_interval = false;
  // Emit-final: the window had closed before a restart, in an earlier task instance (E6).
  bool closed_before_restart = false;
  // Emit-eager: the update was accepted exactly at the grace bound (E1).
  bool at_grace_bound = false;
  friend bool operator==(const EmitInfo&, const EmitInfo&) = default;
};

// A window's name in an output key, "<start>:<end>:<key>", and back.
std::string WindowName(int64_t start, int64_t end, const std::string& key);
// False when `name` is not of that form.
bool ParseWindowName(const std::string& name, int64_t* start, int64_t* end, std::string* key);

// An interactive query of an aggregation's store: the engine's (statecheck/windowed_aggregation.h).
using StoreQuery = WindowAggregateQuery;

// The names of the windows of `windows` ("<start>:<end>:<key>" → ...) that `q` asks for — keys
// in [key_from, key_to] (none when key_from > key_to), starts in [time_from, time_to] — by
// start, then key bytes. (q.backward is the caller's.)
inline std::vector<std::string> WindowsInQuery(const std::map<std::string, std::string>& windows,
                                               const StoreQuery& q) {
  std::map<std::pair<int64_t, std::string>, std::string> selected;  // (start, key) → name.
  if (q.key_from && q.key_to && *q.key_from > *q.key_to) return {};
  for (const auto& [name, held] : windows) {
    int64_t start = 0, end = 0;
    std::string key;
    if (!ParseWindowName(name, &start, &end, &key) || start < q.time_from || start > q.time_to ||
        (q.key_from && key < *q.key_from) || (q.key_to && key > *q.key_to)) {
      continue;
    }
    selected.emplace(std::pair{start, std::move(key)}, name);
  }
  std::vector<std::string> names;
  for (auto& [where, name] : selected) names.push_back(std::move(name));
  return names;
}

class AggregationModel {
 public:
  virtual ~AggregationModel() = default;

  // An input record; `timestamp` -1 = none; an empty key stands for Kafka's null key; a null
  // `value` for a null value.
  virtual void AppendInput(std::string key, int64_t timestamp,
                           std::optional<std::string> value) = 0;
  // Processes up to `max_records` input records at wall-clock time `now_ms`; returns how many.
  virtual int64_t Process(int64_t max_records, int64_t now_ms) = 0;
  virtual void Commit() = 0;
  // The task died (a process crash): see CrashTo.
  virtual void Crash() = 0;
  // A clean close and restart: a commit, then a fresh stream time.
  virtual void Restart() = 0;

  virtual const std::vector<WindowedOutput>& committed_output() const = 0;
  // Every output record written so far, committed or not (what a READ_UNCOMMITTED reader sees
  // under at_least_once, whose output is not transactional).
  virtual const std::vector<WindowedOutput>& written_output() const = 0;
  virtual int64_t committed_input_offset() const = 0;
  virtual int64_t next_input_offset() const = 0;
  // Records dropped by the task object running now (null key, no timestamp, late: E1). A late
  // record counts once per window it was dropped from.
  virtual int64_t dropped_records() const = 0;
  // The committed aggregates, as the aggregation's store holds them after a restart:
  // "<start>:<end>:<key>" → "<aggregate>@<largest record timestamp>".
  virtual std::map<std::string, std::string> CommittedWindows() const = 0;
  // The aggregates as the store holds them now, committed or not (what a READ_UNCOMMITTED
  // interactive query sees), in the same form.
  virtual std::map<std::string, std::string> CurrentWindows() const = 0;
  // What an interactive query of the store sees of `windows` (CommittedWindows() or
  // CurrentWindows()): those the store's read bound lets through (E11: time windows on the
  // persistent store), all of them for the kinds without one here.
  virtual std::map<std::string, std::string> Queryable(
      std::map<std::string, std::string> windows) const {
    return windows;
  }
  // The windows ("<start>:<end>:<key>") of `windows` (CommittedWindows() or CurrentWindows())
  // that query `q` returns, in the store's order: WindowsInQuery of Queryable(windows), put in
  // the store's order by OrderForQuery, reversed for a backward query.
  std::vector<std::string> Query(const std::map<std::string, std::string>& windows,
                                 const StoreQuery& q) const {
    std::vector<std::string> names = OrderForQuery(WindowsInQuery(Queryable(windows), q));
    if (q.backward) std::reverse(names.begin(), names.end());
    return names;
  }
  // The last emitted close time of the last commit (E6, E10); -1 if none (and under emit-eager).
  virtual int64_t committed_last_emit_close() const = 0;
  virtual int64_t last_emit_close() const = 0;

  // To explain a difference (the property's attribution):
  // EmitInfo of each record of committed_output() and written_output(), index by index.
  virtual const std::vector<EmitInfo>& committed_emits() const = 0;
  virtual const std::vector<EmitInfo>& written_emits() const = 0;
  // Whether window [start, end] is closed (SPEC E3's close rule of the window kind) at the
  // stream time of the last record the model processed (in whichever task instance processed it).
  virtual bool ClosedAtLastRecord(int64_t start, int64_t end) const = 0;
  // Whether the state running now holds window "<start>:<end>:<key>" (emitted or not).
  virtual bool HasWindow(const std::string& window) const = 0;
  // Whether a record was dropped as late from window "<start>:<end>:<key>" (E1; sessions: the
  // session it would have made), since the model started.
  virtual bool DroppedLateFrom(const std::string& window) const = 0;
  // Emit-final: at the last record processed, the close time had passed the last emitted one
  // but emit.interval.ms held the attempt back (E5).
  virtual bool HeldBackAtLastRecord() const = 0;
  // The task instance that processed the last record (0 for the first; a crash or a restart
  // starts the next).
  virtual int last_record_incarnation() const = 0;

  // The situations of reports/rules.json ("E1.null_key", ...) the operations since the last call
  // reached, as the model saw them: the property counts them once its checks have held.
  virtual std::vector<std::string> TakeNotes() = 0;

 protected:
  // The windows `names` (by start, then key bytes) in the order a forward query of the store
  // returns them: that order here.
  virtual std::vector<std::string> OrderForQuery(std::vector<std::string> names) const {
    return names;
  }
};

// What a process crash leaves of a model's state, for a State with fields `next` (the input
// offset), `last_emit_close`, `output` and `emits`, and whatever the store holds:
//   exactly_once_v2: the last commit — uncommitted store writes, output and offsets are aborted;
//   at_least_once:   everything processed: the store's writes and the output records were written
//                    to the changelog and output partitions, which survive a process crash (and
//                    the log's recovery makes them durable), so the restored store and the output
//                    keep them; only the input offset and the last emitted close time go back to
//                    the last commit, so the records since are processed again (counted twice,
//                    emitted again: at-least-once).
template <class State>
void CrashTo(bool at_least_once, State* current, State* committed) {
  if (at_least_once) {
    State kept = *current;
    kept.next = committed->next;
    // Encodes: E6, E10 — the last emitted close time goes back with the input offset, together
    kept.last_emit_close = committed->last_emit_close;
    *committed = std::move(kept);
  }
  *current = *committed;
}

// What every model shares: the input, the state running now and the last commit's, stream
// time, the emit-interval clock and dropped-records, and Process/Commit/Crash/Restart over them;
// what the attribution asks of a model but the window's close rule (ClosedAt); and the notes.
// A model defines its State (with the fields `next`, `last_emit_close`, `output` and `emits`
// that CrashTo needs, and whatever its windows need), ProcessOne, ClosedAt and HasWindow.
template <class State>
class AggregationModelBase : public AggregationModel {
 public:
  void AppendInput(std::string key, int64_t timestamp, std::optional<std::string> value) override {
    input_.push_back({std::move(key), timestamp, std::move(value)});
  }
  int64_t Process(int64_t max_records, int64_t now_ms) override {
    int64_t n = 0;
    while (n < max_records && current_.next < static_cast<int64_t>(input_.size())) {
      const Input& in = input_[current_.next];
      ProcessOne(in.key, in.timestamp, in.value, now_ms);
      AfterRecord();
      ++current_.next;
      ++n;
    }
    return n;
  }
  // Encodes: E6, E10 — a commit keeps the last emitted close time with the input offset
  void Commit() override { committed_ = current_; }
  void Crash() override {
    CrashTo(at_least_once_, &current_, &committed_);
    earlier_stream_time_ = std::max(earlier_stream_time_, stream_time_);
    stream_time_ = -1;
    last_attempt_ms_.reset();
    held_back_ = false;
    dropped_ = 0;
    suppress_stream_time_ = -1;
    ++incarnation_;
  }
  void Restart() override {
    Commit();
    Crash();
  }

  std::map<std::string, std::string> CommittedWindows() const override {
    return WindowsIn(committed_);
  }
  std::map<std::string, std::string> CurrentWindows() const override { return WindowsIn(current_); }
  const std::vector<WindowedOutput>& committed_output() const override { return committed_.output; }
  const std::vector<WindowedOutput>& written_output() const override { return current_.output; }
  int64_t committed_input_offset() const override { return committed_.next; }
  int64_t next_input_offset() const override { return current_.next; }
  int64_t dropped_records() const override { return dropped_; }
  int64_t committed_last_emit_close() const override { return committed_.last_emit_close; }
  int64_t last_emit_close() const override { return current_.last_emit_close; }

  const std::vector<EmitInfo>& committed_emits() const override { return committed_.emits; }
  const std::vector<EmitInfo>& written_emits() const override { return current_.emits; }
  bool ClosedAtLastRecord(int64_t start, int64_t end) const override {
    return last_record_stream_time_ >= 0 && ClosedAt(start, end, last_record_stream_time_);
  }
  bool DroppedLateFrom(const std::string& window) const override {
    return late_windows_.count(window) > 0;
  }
  bool HeldBackAtLastRecord() const override { return last_record_held_back_; }
  int last_record_incarnation() const override { return last_record_incarnation_; }
  std::vector<std::string> TakeNotes() override { return std::exchange(notes_, {}); }

 protected:
  AggregationModelBase(bool at_least_once, int64_t emit_interval_ms)
      : emit_interval_ms_(emit_interval_ms), at_least_once_(at_least_once) {}
  // One input record (its timestamp -1 if none) at wall-clock time `now_ms`, on current_.
  virtual void ProcessOne(const std::string& key, int64_t ts,
                          const std::optional<std::string>& value, int64_t now_ms) = 0;
  // The window kind's close rule (E3): whether [start, end] is closed at `stream_time`.
  virtual bool ClosedAt(int64_t start, int64_t end, int64_t stream_time) const = 0;
  // The aggregates state `s` holds, as CommittedWindows gives them.
  virtual std::map<std::string, std::string> WindowsIn(const State& s) const = 0;

  // A record dropped: null key or no timestamp (`late` false), or late from `window` (E1).
  // Encodes: E1 — every drop counts: a null key, no timestamp, or once per late window
  void Drop(bool late, const std::string& window = "") {
    ++dropped_;
    if (late) late_windows_.insert(window);
  }
  void Note(std::string situation) { notes_.push_back(std::move(situation)); }

  // Emit-eager: `o`, the update by the record being processed (`at_grace_bound`: accepted
  // exactly at the grace bound).
  void EmitUpdate(WindowedOutput o, bool at_grace_bound) {
    EmitInfo info;
    info.attempt = current_.next;
    info.incarnation = incarnation_;
    info.at_grace_bound = at_grace_bound;
    current_.output.push_back(std::move(o));
    current_.emits.push_back(info);
  }

  // Puts suppress(untilWindowCloses) after the emit-eager aggregation (SPEC E7): an update's
  // window goes out of the buffer once end + grace + gap <= the suppress's stream time (the
  // delay Kafka's GraphGraceSearchUtil finds: the grace of time and sliding windows, grace + gap
  // of sessions). The State has a SuppressBuffer `buffer`.
  void SuppressAfter(int64_t grace_ms, int64_t gap_ms = 0) {
    suppress_delay_ = std::make_pair(grace_ms, gap_ms);
  }

  // Emit-eager's update `o` of window [start, end] of `key` (`tombstone`: a session merged
  // away): out at once (`at_grace_bound`: accepted exactly at the grace bound), or under
  // suppress through its buffer, as Kafka's KTableSuppressProcessor: the suppress's stream time
  // becomes the largest update timestamp since the task started (not restored); the update
  // replaces the window's last (a tombstone removes it: Kafka buffers it and drops it when it
  // would go out); then every buffered update whose window has closed goes out, by end, then key,
  // then start.
  void Update(int64_t start, int64_t end, const std::string& key, WindowedOutput o,
              bool at_grace_bound, bool tombstone = false) {
    if (!suppress_delay_) {
      EmitUpdate(std::move(o), at_grace_bound);
      return;
    }
    suppress_stream_time_ = std::max(suppress_stream_time_, o.timestamp);
    const auto at = std::make_tuple(end, key, start);
    if (tombstone) {
      if (current_.buffer.erase(at) > 0) Note("E7.merged_away");
    } else {
      if (let_out_.count(at) > 0) Note("E7.out_again");
      current_.buffer[at] = std::move(o);
    }
    // Encodes: E7 — suppress lets a window out once end + delay <= its stream time, by end,
    // then key, then start
    __extension__ typedef __int128 Wide;
    while (!current_.buffer.empty()) {
      auto first = current_.buffer.begin();
      const Wide end = std::get<0>(first->first);
      if (end + suppress_delay_->first + suppress_delay_->second > suppress_stream_time_) break;
      let_out_.insert(first->first);
      EmitUpdate(std::move(first->second), /*at_grace_bound=*/false);
      current_.buffer.erase(first);
    }
  }

  // Emit-final's trigger (E5), at close time `close` (windows closed by it are emitted):
  // whether to attempt an emission now. An attempt happens when the close time has passed the
  // last emitted one and emit.interval.ms has passed since the last attempt (or there was none
  // in this task instance).
  // Encodes: E5 — attempt only past the last emitted close time, once per emit.interval.ms
  bool StartAttempt(int64_t close, int64_t now_ms) {
    if (close <= current_.last_emit_close) {
      if (current_.last_emit_close >= 0) Note("E5.close_not_advanced");
      return false;
    }
    if (last_attempt_ms_ && now_ms - *last_attempt_ms_ < emit_interval_ms_) {
      held_back_ = true;
      Note("E5.held_back");
      return false;
    }
    attempt_at_interval_ = last_attempt_ms_ && now_ms - *last_attempt_ms_ == emit_interval_ms_;
    attempt_after_hold_ = held_back_;
    held_back_ = false;
    last_attempt_ms_ = now_ms;
    ++attempt_;
    return true;
  }
  // The windows one emit-final attempt emits (`key` is each one's name, "<start>:<end>:<key>"),
  // in the order emitted, and the attempt's close time; the notes about them. `order_start`:
  // the order's first field (time and sliding windows: the start; sessions: the end).
  struct Closing {
    int64_t start = 0;
    int64_t end = 0;
    std::string key;        // The record key.
    int64_t count = 0;      // Records the window took.
    std::string aggregate;  // Its final aggregate.
    int64_t timestamp = 0;
  };
  // Encodes: E3 — one record per closing window: its final count, its timestamp, no old value
  void EmitAttempt(const std::vector<Closing>& batch, int64_t close, bool sessions) {
    current_.last_emit_close = close;
    if (batch.empty()) return;
    std::map<int64_t, std::vector<std::string>> keys_by_group;  // By start (sessions: end).
    for (const Closing& c : batch) {
      EmitInfo info;
      info.attempt = attempt_;
      info.incarnation = incarnation_;
      info.at_interval = attempt_at_interval_;
      info.closed_before_restart =
          earlier_stream_time_ >= 0 && ClosedAt(c.start, c.end, earlier_stream_time_);
      current_.output.push_back({WindowName(c.start, c.end, c.key), c.aggregate, c.timestamp});
      current_.emits.push_back(info);
      keys_by_group[sessions ? c.end : c.start].push_back(c.key);
      if (c.count >= 2) Note("E3.final_aggregate");
      if (stream_time_ >= 1 && !ClosedAt(c.start, c.end, stream_time_ - 1)) {
        Note("E3.at_close");
      }
      if (incarnation_ > 0) Note("E3.after_restart");
      if (info.closed_before_restart) Note("E6.closed_before_restart");
    }
    if (keys_by_group.size() >= 2) Note("E4.several_starts");
    for (const auto& [group, keys] : keys_by_group) {
      if (keys.size() < 2) continue;
      Note("E4.several_keys");
      for (const std::string& a : keys) {
        for (const std::string& b : keys) {
          if (a.size() < b.size() && b.compare(0, a.size(), a) == 0) Note("E4.prefix_keys");
        }
      }
    }
    if (attempt_at_interval_) Note("E5.at_interval");
    if (attempt_after_hold_) Note("E5.held_back_then_emitted");
  }
  // An attempt left window [start, end] open: the note when it closes one ms later (E3).
  void NoteOpen(int64_t start, int64_t end) {
    if (stream_time_ < std::numeric_limits<int64_t>::max() && !ClosedAt(start, end, stream_time_) &&
        ClosedAt(start, end, stream_time_ + 1)) {
      Note("E3.one_before_close");
    }
  }
  // Called by ProcessOne's caller after each record: what the attribution reads of it.
  void AfterRecord() {
    last_record_stream_time_ = stream_time_;
    last_record_held_back_ = held_back_;
    last_record_incarnation_ = incarnation_;
  }

  State current_;
  State committed_;
  int64_t stream_time_ = -1;
  std::optional<int64_t> last_attempt_ms_;  // Emit-final's last attempt (E5).
  int64_t dropped_ = 0;
  const int64_t emit_interval_ms_;

 private:
  struct Input {
    std::string key;
    int64_t timestamp = -1;
    std::optional<std::string> value;
  };
  const bool at_least_once_;
  std::vector<Input> input_;
  int incarnation_ = 0;
  // The largest stream time of the task instances before the one running now (-1: none).
  int64_t earlier_stream_time_ = -1;
  int64_t attempt_ = 0;
  bool held_back_ = false;  // The last record's attempt was held back by the interval.
  bool attempt_at_interval_ = false;
  bool attempt_after_hold_ = false;
  int64_t last_record_stream_time_ = -1;
  // Set: suppress(untilWindowCloses) after (grace, gap) (SuppressAfter).
  std::optional<std::pair<int64_t, int64_t>> suppress_delay_;
  int64_t suppress_stream_time_ = -1;
  // The windows suppress has let out (for the note of one going out again).
  std::set<std::tuple<int64_t, std::string, int64_t>> let_out_;
  bool last_record_held_back_ = false;
  int last_record_incarnation_ = 0;
  std::set<std::string> late_windows_;
  std::vector<std::string> notes_;
};

inline std::string WindowName(int64_t start, int64_t end, const std::string& key) {
  return std::to_string(start) + ":" + std::to_string(end) + ":" + key;
}

inline bool ParseWindowName(const std::string& name, int64_t* start, int64_t* end,
                            std::string* key) {
  const size_t first = name.find(':');
  if (first == std::string::npos) return false;
  const size_t second = name.find(':', first + 1);
  if (second == std::string::npos) return false;
  try {
    size_t used = 0;
    *start = std::stoll(name.substr(0, first), &used);
    if (used != first) return false;
    *end = std::stoll(name.substr(first + 1, second - first - 1), &used);
    if (used != second - first - 1) return false;
  } catch (const std::exception&) {
    return false;
  }
  *key = name.substr(second + 1);
  return true;
}

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_AGGREGATION_MODEL_H_
