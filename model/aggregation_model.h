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

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_AGGREGATION_MODEL_H_
