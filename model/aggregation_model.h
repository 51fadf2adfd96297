// AggregationModel: what every reference model of a windowed aggregation (time, sliding and
// session windows; SPEC E) gives the windowed property
// (properties/windowed_aggregation_property.h), so one property runs every window kind. The models
// are run as exactly-once tasks: a crash returns everything to the last commit; stream time and the
// emit-interval clock start afresh (they are not restored, SPEC E), the last emitted close time
// does not (it is committed, E6, E10).
#ifndef STATECHECK_MODEL_AGGREGATION_MODEL_H_
#define STATECHECK_MODEL_AGGREGATION_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace statecheck::model {

// One output record of an aggregation.
struct WindowedOutput {
  std::string key;    // "<start>:<end>:<key>"
  std::string value;  // The aggregate (a count, in decimal), or "null" for a tombstone.
  int64_t timestamp = 0;
  friend bool operator==(const WindowedOutput&, const WindowedOutput&) = default;
};

class AggregationModel {
 public:
  virtual ~AggregationModel() = default;

  // An input record; `timestamp` -1 = none; an empty key stands for Kafka's null key.
  virtual void AppendInput(std::string key, int64_t timestamp) = 0;
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
  // "<start>:<end>:<key>" → "<count>@<largest record timestamp>".
  virtual std::map<std::string, std::string> CommittedWindows() const = 0;
};

// What a process crash leaves of a model's state, for a State with fields `next` (the input
// offset), `last_emit_close` and `output`, and whatever the store holds:
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
    kept.last_emit_close = committed->last_emit_close;
    *committed = std::move(kept);
  }
  *current = *committed;
}

// What every model shares: the input, the state running now and the last commit's, stream
// time, the emit-interval clock and dropped-records, and Process/Commit/Crash/Restart over them.
// A model defines its State (with the fields `next`, `last_emit_close` and `output` that
// CrashTo needs, and whatever its windows need) and ProcessOne.
template <class State>
class AggregationModelBase : public AggregationModel {
 public:
  void AppendInput(std::string key, int64_t timestamp) override {
    input_.emplace_back(std::move(key), timestamp);
  }
  int64_t Process(int64_t max_records, int64_t now_ms) override {
    int64_t n = 0;
    while (n < max_records && current_.next < static_cast<int64_t>(input_.size())) {
      const auto& [key, ts] = input_[current_.next];
      ProcessOne(key, ts, now_ms);
      ++current_.next;
      ++n;
    }
    return n;
  }
  void Commit() override { committed_ = current_; }
  void Crash() override {
    CrashTo(at_least_once_, &current_, &committed_);
    stream_time_ = -1;
    last_attempt_ms_.reset();
    dropped_ = 0;
  }
  void Restart() override {
    Commit();
    Crash();
  }

  const std::vector<WindowedOutput>& committed_output() const override { return committed_.output; }
  const std::vector<WindowedOutput>& written_output() const override { return current_.output; }
  int64_t committed_input_offset() const override { return committed_.next; }
  int64_t next_input_offset() const override { return current_.next; }
  int64_t dropped_records() const override { return dropped_; }

 protected:
  explicit AggregationModelBase(bool at_least_once) : at_least_once_(at_least_once) {}
  // One input record (its timestamp -1 if none) at wall-clock time `now_ms`, on current_.
  virtual void ProcessOne(const std::string& key, int64_t ts, int64_t now_ms) = 0;

  State current_;
  State committed_;
  int64_t stream_time_ = -1;
  std::optional<int64_t> last_attempt_ms_;  // Emit-final's last attempt (E5).
  int64_t dropped_ = 0;

 private:
  const bool at_least_once_;
  std::vector<std::pair<std::string, int64_t>> input_;
};

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_AGGREGATION_MODEL_H_
