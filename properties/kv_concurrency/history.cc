// Checking a recorded concurrency history (history.h): the committed states the writer's
// events build, each read judged against them, the violations and situations found.
#include "properties/kv_concurrency/history.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "properties/evidence.h"
#include "properties/kv_concurrency/history_internal.h"

namespace statecheck::properties::kv_concurrency {
namespace {

using internal::FormatRecords;
using internal::Lookup;
using internal::Quote;
using internal::QuoteOptional;
using internal::State;

// The committed state after one commit; commits_[0] is the empty initial state.
struct CommitPoint {
  std::optional<size_t> event;  // Index into the history; nullopt for the initial state.
  Position position;
  State state;
  int64_t invoke = std::numeric_limits<int64_t>::min();
  int64_t response = std::numeric_limits<int64_t>::min();
};

// How a write's epoch ended.
struct WriteFate {
  std::optional<size_t> commit;    // Index into commits.
  std::optional<size_t> rollback;  // Index into the history.
};

struct Violation {
  std::string kind;
  size_t event = 0;
  std::string why;
};

// How an epoch of the writer ran: from the response of its first ok write to the invocation of
// the commit or rollback that ended it (the window in which it held uncommitted writes).
struct EpochSpan {
  int64_t first_write_response = 0;
  int64_t end_invoke = 0;
};

bool InBounds(const std::string& key, const Event& read) {
  return (!read.from || key >= *read.from) && (!read.to || key <= *read.to);
}

// What a read of `state` must return: the value, or the records in range and order.
std::vector<KeyValue> Restrict(const State& state, const Event& read) {
  std::vector<KeyValue> out;
  for (const auto& [k, v] : state) {
    if (InBounds(k, read)) out.push_back({k, v});
  }
  if (read.reverse) std::reverse(out.begin(), out.end());
  return out;
}

// The (key, value) pairs a read returned; a Get of an absent key returns nothing here.
std::vector<std::pair<std::string, std::string>> ReturnedValues(const Event& read) {
  std::vector<std::pair<std::string, std::string>> out;
  if (read.kind == EventKind::kGet) {
    if (read.value) out.emplace_back(read.key, *read.value);
  } else {
    for (const auto& kv : read.records) out.emplace_back(kv.key, kv.value);
  }
  return out;
}

class Checker {
 public:
  Checker(const History& history, IsolationLevel isolation) : h_(history), isolation_(isolation) {}

  HistoryVerdict Run() {
    HistoryVerdict v;
    v.status = RunChecks(&v.report);
    if (!violations_.empty()) {
      const Violation& first = violations_.front();
      v.finding =
          Finding(std::string(RuleOfKvViolation(first.kind, isolation_)), v.status.message());
    } else if (!v.status.ok() && !unjudgeable_rule_.empty()) {
      v.finding = Finding(unjudgeable_rule_, v.status.message());
    }
    if (v.status.ok()) v.situations = std::move(situations_);
    return v;
  }

 private:
  Status RunChecks(std::string* report) {
    order_.resize(h_.events.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      const Event &x = h_.events[a], &y = h_.events[b];
      return std::pair(x.invoke, x.response) < std::pair(y.invoke, y.response);
    });
    Status s = BuildWriterModel();
    if (!s.ok()) {
      *report = "the history cannot be checked: " + s.message();
      return s;
    }
    for (size_t i : order_) {
      const Event& ev = h_.events[i];
      if (!ev.status.ok()) {
        Add("operation failed", i, "the call returned " + ev.status.ToString());
        continue;
      }
      if (IsWriterEvent(ev.kind)) continue;
      ++reads_;
      NoteConcurrency(i);
      if (isolation_ == IsolationLevel::kReadCommitted) {
        CheckReadCommitted(i);
      } else {
        CheckReadUncommitted(i);
      }
    }
    return Finish(report);
  }

  void Note(std::string_view situation) { situations_.emplace(situation); }

  // T2's situations, at either level: what ran at the same time as read `i`.
  void NoteConcurrency(size_t i) {
    const Event& read = h_.events[i];
    // Writer events are sequential: the first one that returned after the read was invoked is
    // the first that can overlap it.
    auto it = std::partition_point(writer_ops_.begin(), writer_ops_.end(),
                                   [&](size_t w) { return h_.events[w].response <= read.invoke; });
    for (; it != writer_ops_.end() && h_.events[*it].invoke < read.response; ++it) {
      const Event& w = h_.events[*it];
      if (w.kind == EventKind::kPut || w.kind == EventKind::kDelete) {
        Note("T2.reads_overlap_writes");
      }
      if (read.kind == EventKind::kRange && w.invoke > read.invoke) {
        Note("T2.iterator_open_across_write");
      }
    }
    for (const auto& [thread, response] : latest_response_of_thread_) {
      if (thread != read.thread && response > read.invoke) Note("T2.concurrent_readers");
    }
    int64_t& latest = latest_response_of_thread_[read.thread];
    latest = std::max(latest, read.response);
  }

  // The keys a read covers: its key, or every written key within its bounds.
  std::vector<std::string> KeysCovered(const Event& read) const {
    if (read.kind == EventKind::kGet) return {read.key};
    std::vector<std::string> keys;
    for (const auto& [key, writes] : writes_of_key_) {
      if (InBounds(key, read)) keys.push_back(key);
    }
    return keys;
  }

  // The last ok write to `key` that returned before `t`, if any.
  std::optional<size_t> LastWriteBefore(const std::string& key, int64_t t) const {
    auto found = writes_of_key_.find(key);
    if (found == writes_of_key_.end()) return std::nullopt;
    const std::vector<size_t>& writes = found->second;
    auto it = std::partition_point(writes.begin(), writes.end(),
                                   [&](size_t w) { return h_.events[w].response < t; });
    if (it == writes.begin()) return std::nullopt;
    return *(it - 1);
  }

  // T4's and T8's situations of a read under READ_COMMITTED that held every check.
  void NoteReadCommitted(size_t i, bool overlapped_commit) {
    const Event& read = h_.events[i];
    // The writer held uncommitted writes for the whole read: the epoch that ends first after
    // the read returned is the only one that can have begun writing before it was invoked.
    auto open = std::partition_point(epochs_.begin(), epochs_.end(), [&](const EpochSpan& e) {
      return e.end_invoke <= read.response;
    });
    if (open != epochs_.end() && open->first_write_response < read.invoke) {
      Note("T4.read_while_epoch_open");
    }
    if (overlapped_commit) {
      Note("T8.read_at_reported_position");
      if (read.kind == EventKind::kRange) Note("T4.range_overlaps_commit");
    }
    for (const std::string& key : KeysCovered(read)) {
      const std::optional<size_t> w = LastWriteBefore(key, read.invoke);
      if (!w) continue;
      auto fate = fate_.find(*w);
      if (fate != fate_.end() && fate->second.rollback &&
          h_.events[*fate->second.rollback].response < read.invoke) {
        Note("T4.read_after_rollback");
        break;
      }
    }
  }

  std::string Describe(size_t i) const { return DescribeKvEvent(h_, i); }
  std::string DescribeCommit(size_t c) const {
    const CommitPoint& p = commits_[c];
    return p.event ? Describe(*p.event) : "the initial empty state (position {})";
  }
  void Add(std::string kind, size_t event, std::string why) {
    violations_.push_back({std::move(kind), event, std::move(why)});
  }

  // Replays the writer's events: the committed state after each commit, the fate of each
  // write, and the positions each commit must report.
  Status BuildWriterModel() {
    commits_.push_back(CommitPoint{});
    std::optional<size_t> previous;
    std::vector<size_t> pending;  // Ok writes since the last commit or rollback.
    Position uncommitted, committed;
    bool epoch_open = false;
    for (size_t i : order_) {
      const Event& ev = h_.events[i];
      if (ev.invoke > ev.response) {
        return Status::InvalidArgument(Describe(i) + " responds before it is invoked");
      }
      if (!IsWriterEvent(ev.kind)) continue;
      if (previous && h_.events[*previous].response >= ev.invoke) {
        return Status::InvalidArgument("writer events overlap: " + Describe(*previous) + " and " +
                                       Describe(i) + " (there is one writer thread)");
      }
      previous = i;
      ++writer_events_;
      writer_ops_.push_back(i);
      if (!ev.status.ok()) continue;  // Reported as a violation; its effect is unknown.
      if (ev.kind == EventKind::kPut || ev.kind == EventKind::kDelete) {
        if (!epoch_open) epochs_.push_back({ev.response, std::numeric_limits<int64_t>::max()});
        epoch_open = true;
      } else if (epoch_open) {
        epochs_.back().end_invoke = ev.invoke;
        epoch_open = false;
      }
      switch (ev.kind) {
        case EventKind::kPut:
        case EventKind::kDelete:
          if (ev.kind == EventKind::kPut) {
            if (!ev.value) return Status::InvalidArgument(Describe(i) + " has no value");
            auto [it, fresh] = put_of_.try_emplace({ev.key, *ev.value}, i);
            if (!fresh) {
              return Status::InvalidArgument(Describe(it->second) + " and " + Describe(i) +
                                             " write the same value: reads cannot tell them apart");
            }
          }
          pending.push_back(i);
          writes_of_key_[ev.key].push_back(i);
          for (const auto& [partition, offset] : ev.position) {
            auto [it, fresh] = uncommitted.try_emplace(partition, offset);
            if (!fresh) it->second = std::max(it->second, offset);
          }
          break;
        case EventKind::kCommit:
          ApplyCommit(i, pending, uncommitted);
          pending.clear();
          committed = uncommitted;
          break;
        case EventKind::kRollback:
          ++rollback_events_;
          for (size_t w : pending) fate_[w].rollback = i;
          pending.clear();
          uncommitted = committed;
          break;
        default:
          break;
      }
    }
    for (size_t c = 0; c < commits_.size(); ++c) {
      auto [it, fresh] = commits_at_.try_emplace(commits_[c].position, c, c);
      if (fresh) continue;
      if (commits_[it->second.first].state != commits_[c].state) {
        unjudgeable_rule_ = "T8";  // Positions must tell committed states apart.
        return Status::InvalidArgument(DescribeCommit(it->second.first) + " and " +
                                       DescribeCommit(c) +
                                       " report the same position with different states");
      }
      it->second.second = c;
    }
    return Status::Ok();
  }

  // Commit `i` of the writer: the committed state after it (the last one with the ok writes
  // `pending` of its epoch applied) and the position it must report (`uncommitted`).
  void ApplyCommit(size_t i, const std::vector<size_t>& pending, const Position& uncommitted) {
    const Event& ev = h_.events[i];
    ++commit_events_;
    // Checks: T8 — a commit reports the position its writes advanced to (convergence)
    if (ev.position != uncommitted) {
      Add("commit position", i,
          "the commit reports committed position " + FormatPosition(ev.position) +
              ", but its writes advanced the position to " + FormatPosition(uncommitted) +
              " (T8: the positions converge on commit)");
    }
    CommitPoint p = commits_.back();
    p.event = i;
    p.position = ev.position;
    p.invoke = ev.invoke;
    p.response = ev.response;
    for (size_t w : pending) {
      const Event& write = h_.events[w];
      if (write.kind == EventKind::kPut) {
        p.state[write.key] = *write.value;
      } else {
        p.state.erase(write.key);
      }
      fate_[w].commit = commits_.size();
    }
    commits_.push_back(std::move(p));
  }

  // T4: where each returned value came from. Returns whether the read had such a violation.
  // Checks: T4 — each value a READ_COMMITTED read returns was committed before it ended
  bool CheckProvenance(size_t i) {
    const Event& read = h_.events[i];
    bool found = false;
    for (const auto& [key, value] : ReturnedValues(read)) {
      auto it = put_of_.find({key, value});
      if (it == put_of_.end()) {
        Add("never written", i, "no Put wrote " + Quote(value) + " to " + Quote(key));
        found = true;
        continue;
      }
      const size_t w = it->second;
      const WriteFate& fate = fate_[w];
      const std::string what = Quote(value) + " was written by " + Describe(w);
      if (fate.commit) {
        const CommitPoint& c = commits_[*fate.commit];
        if (c.invoke > read.response) {
          Add("dirty read", i,
              what + "; its epoch was committed only later, by " + Describe(*c.event) +
                  ", which began after the read returned");
          found = true;
        }
      } else if (fate.rollback) {
        if (h_.events[*fate.rollback].invoke > read.response) {
          Add("dirty read", i,
              what + "; its epoch was never committed: it was rolled back later, by " +
                  Describe(*fate.rollback));
        } else {
          Add("rolled-back read", i,
              what + "; its epoch had been rolled back by " + Describe(*fate.rollback));
        }
        found = true;
      } else {
        Add("dirty read", i, what + "; its epoch was never committed");
        found = true;
      }
    }
    return found;
  }

  void CheckReadCommitted(size_t i) {
    const Event& read = h_.events[i];
    const size_t violations_before = violations_.size();
    const bool dirty = CheckProvenance(i);
    auto at = commits_at_.find(read.position);
    // Checks: T8 — the reported position is a commit's, the result exactly the state there
    if (at == commits_at_.end()) {
      Add("unknown position", i,
          "no commit reported position " + FormatPosition(read.position) +
              ", so the result is not the state of any committed position (T8)");
      return;
    }
    const auto [lo, hi] = at->second;
    observed_commits_.insert(lo);
    const CommitPoint& claimed = commits_[lo];
    // All-or-none per commit and one snapshot per range read: exactly the claimed state.
    if (!dirty) {
      if (read.kind == EventKind::kGet) {
        const std::optional<std::string> expected = Lookup(claimed.state, read.key);
        if (read.value != expected) {
          Add("position mismatch", i,
              "at the position it reports (after " + DescribeCommit(lo) + ") " + Quote(read.key) +
                  " holds " + QuoteOptional(expected));
        }
      } else {
        const std::vector<KeyValue> expected = Restrict(claimed.state, read);
        if (read.records != expected) RangeMismatch(i, lo, expected);
      }
    }
    // A commit takes effect at some instant of its call.
    if (claimed.invoke > read.response) {
      Add("position from the future", i,
          "it reports the position of " + DescribeCommit(lo) + ", which began after the read " +
              "returned");
    }
    const size_t done = LastCommitReturnedBefore(read.invoke);
    const bool overlapped_commit =
        done + 1 < commits_.size() && commits_[done + 1].invoke < read.response;
    if (overlapped_commit) ++overlapping_reads_;
    if (hi < done) {
      Add("stale read", i,
          "it reports the state after " + DescribeCommit(hi) + ", but " + DescribeCommit(done) +
              " had returned before the read was invoked");
    }
    auto [last, fresh] = last_read_of_thread_.try_emplace(read.thread, i, lo, hi);
    if (!fresh) {
      const auto [prev, prev_lo, prev_hi] = last->second;
      if (hi < prev_lo) {
        Add("position went backwards", i,
            "it reports the state after " + DescribeCommit(hi) + ", older than the state after " +
                DescribeCommit(prev_lo) +
                " that the same reader's earlier read saw: " + Describe(prev));
      } else if (lo > prev_hi) {
        Note("T8.reader_position_advances");
      }
      last->second = {i, lo, hi};
    }
    if (violations_.size() == violations_before) NoteReadCommitted(i, overlapped_commit);
  }

  void RangeMismatch(size_t i, size_t claimed, const std::vector<KeyValue>& expected) {
    const Event& read = h_.events[i];
    for (size_t c = 0; c < commits_.size(); ++c) {
      if (Restrict(commits_[c].state, read) == read.records) {
        Add("position mismatch", i,
            "the result is the committed state after " + DescribeCommit(c) +
                ", but the read reports the position of " + DescribeCommit(claimed) +
                ", where the range holds " + FormatRecords(expected));
        return;
      }
    }
    // Checks: T4 — a range read equal to no committed state: torn or mixed snapshots
    Add("torn read", i,
        "the result equals no committed state (part of a commit, or a mix of snapshots); at "
        "the position it reports (after " +
            DescribeCommit(claimed) + ") the range holds " + FormatRecords(expected));
  }

  // The last commit that returned before `t` (0, the initial state, if none): commits are
  // sequential, so their responses are ordered.
  size_t LastCommitReturnedBefore(int64_t t) const {
    auto it = std::partition_point(commits_.begin() + 1, commits_.end(),
                                   [&](const CommitPoint& c) { return c.response < t; });
    return static_cast<size_t>(it - commits_.begin()) - 1;
  }

  // T3: for each key the read covers, the latest write that returned before the read began,
  // or a write that overlapped the read.
  void CheckReadUncommitted(size_t i) {
    const Event& read = h_.events[i];
    const size_t violations_before = violations_.size();
    std::set<std::string> reached;  // Counted only if the whole read holds.
    std::map<std::string, std::optional<std::string>> observed;
    if (read.kind == EventKind::kGet) {
      observed[read.key] = read.value;
    } else {
      for (size_t r = 0; r < read.records.size(); ++r) {
        const KeyValue& kv = read.records[r];
        const bool ordered = r == 0 || (read.reverse ? read.records[r - 1].key > kv.key
                                                     : read.records[r - 1].key < kv.key);
        if (!InBounds(kv.key, read) || !ordered) {
          Add("malformed range", i,
              "record " + Quote(kv.key) + " is out of its bounds or out of order");
          return;
        }
        observed[kv.key] = kv.value;
      }
      for (const auto& [key, writes] : writes_of_key_) {
        if (InBounds(key, read)) observed.try_emplace(key);
      }
    }
    for (const auto& [key, value] : observed) {
      if (value && !put_of_.contains({key, *value})) {
        Add("never written", i, "no Put wrote " + Quote(*value) + " to " + Quote(key));
        continue;
      }
      static const std::vector<size_t> kNone;
      auto found = writes_of_key_.find(key);
      const std::vector<size_t>& writes = found == writes_of_key_.end() ? kNone : found->second;
      // writes[0, done) returned before the read was invoked.
      const size_t done = static_cast<size_t>(
          std::partition_point(writes.begin(), writes.end(),
                               [&](size_t w) { return h_.events[w].response < read.invoke; }) -
          writes.begin());
      auto value_of = [&](size_t w) { return h_.events[w].value; };
      // Checks: T3 — a READ_UNCOMMITTED read sees the last write returned before it began
      bool ok = done == 0 ? !value.has_value() : value_of(writes[done - 1]) == value;
      bool overlapped = false;
      for (size_t j = done; j < writes.size() && h_.events[writes[j]].invoke < read.response; ++j) {
        overlapped = true;
        ok = ok || value_of(writes[j]) == value;
      }
      if (overlapped) ++overlapping_reads_;
      if (ok) {
        if (overlapped) reached.insert("T3.read_overlaps_write");
        if (value) {
          const WriteFate& fate = fate_[put_of_.at({key, *value})];
          if (!fate.commit || commits_[*fate.commit].invoke > read.response) {
            reached.insert("T3.reader_sees_open_epoch");
          }
        } else if (done > 0 && h_.events[writes[done - 1]].kind == EventKind::kDelete) {
          reached.insert("T3.read_sees_delete");
        }
        continue;
      }
      if (value && h_.events[put_of_.at({key, *value})].invoke > read.response) {
        Add("read from the future", i,
            Quote(*value) + " for " + Quote(key) + " was written by " +
                Describe(put_of_.at({key, *value})) + ", which began after the read returned");
      } else {
        Add("stale read", i,
            "it returned " + QuoteOptional(value) + " for " + Quote(key) + ", but " +
                Describe(writes[done - 1]) + " had returned before the read was invoked (T3)");
      }
    }
    if (violations_.size() == violations_before) {
      for (const std::string& r : reached) Note(r);
    }
  }

  Status Finish(std::string* report) {
    const std::string level(IsolationLevelName(isolation_));
    std::string out = "CheckHistory under " + level + ": seed " + std::to_string(h_.seed) + ", " +
                      std::to_string(h_.events.size()) +
                      " events: " + std::to_string(writer_events_) + " by the writer (" +
                      std::to_string(commit_events_) + " commits, " +
                      std::to_string(rollback_events_) + " rollbacks), " + std::to_string(reads_) +
                      " reads by " + std::to_string(h_.readers) + " readers";
    if (isolation_ == IsolationLevel::kReadCommitted) {
      out += "; reads saw " + std::to_string(observed_commits_.size()) + " of the " +
             std::to_string(commits_.size()) + " committed states (the initial one included); " +
             std::to_string(overlapping_reads_) + " reads overlapped a commit";
    } else {
      out += "; " + std::to_string(overlapping_reads_) + " key reads overlapped a write";
    }
    out += ".\n";
    if (violations_.empty()) {
      *report = out + "No violation.\n";
      return Status::Ok();
    }
    std::map<std::string, int> by_kind;
    for (const auto& v : violations_) ++by_kind[v.kind];
    std::string summary = std::to_string(violations_.size()) + " violation(s) of " + level + " (";
    bool first = true;
    for (const auto& [kind, n] : by_kind) {
      summary += (first ? "" : ", ") + kind + ": " + std::to_string(n);
      first = false;
    }
    summary += ")";
    out += summary + "; the first " + std::to_string(std::min(violations_.size(), kMaxReported)) +
           ":\n";
    for (size_t v = 0; v < violations_.size() && v < kMaxReported; ++v) {
      const Violation& x = violations_[v];
      out += std::to_string(v + 1) + ". " + x.kind + ": " + Describe(x.event) + "\n     " + x.why +
             "\n";
    }
    out += "reproduce: the same workload runs again with seed " + std::to_string(h_.seed) +
           "; the thread interleaving is not reproducible, the events above are the evidence.\n";
    *report = out;
    return Status::Aborted(summary + "; first: " + violations_[0].kind + " at " +
                           Describe(violations_[0].event));
  }

  static constexpr size_t kMaxReported = 20;

  const History& h_;
  const IsolationLevel isolation_;
  std::vector<size_t> order_;  // Event indices by invocation.

  std::vector<CommitPoint> commits_;
  std::map<Position, std::pair<size_t, size_t>> commits_at_;      // First and last commit there.
  std::map<std::pair<std::string, std::string>, size_t> put_of_;  // (key, value) -> Put.
  std::map<std::string, std::vector<size_t>> writes_of_key_;      // Ok Puts and Deletes.
  std::map<size_t, WriteFate> fate_;
  // Per reader: its last read and the first and last commit at that read's position.
  std::map<int, std::tuple<size_t, size_t, size_t>> last_read_of_thread_;

  std::vector<Violation> violations_;
  std::string unjudgeable_rule_;  // The rule a history that cannot be judged breaks, if any.
  std::set<std::string> situations_;
  std::vector<size_t> writer_ops_;  // The writer's events, in order (they are sequential).
  std::vector<EpochSpan> epochs_;   // The epochs that wrote, in order.
  std::map<int, int64_t> latest_response_of_thread_;  // Readers, over the reads checked so far.
  std::set<size_t> observed_commits_;                 // Commits some read reported.
  int64_t writer_events_ = 0, commit_events_ = 0, rollback_events_ = 0, reads_ = 0;
  int64_t overlapping_reads_ = 0;
};

}  // namespace

std::string_view RuleOfKvViolation(std::string_view kind, IsolationLevel isolation) {
  // What the reader saw that it must not (T4), or failed to see in time (T3).
  if (kind == "dirty read" || kind == "rolled-back read" || kind == "torn read") return "T4";
  if (kind == "read from the future") return "T3";
  if (kind == "stale read") return isolation == IsolationLevel::kReadCommitted ? "T8" : "T3";
  // The position a read reports, and the state at it (T8).
  if (kind == "unknown position" || kind == "position mismatch" ||
      kind == "position from the future" || kind == "position went backwards" ||
      kind == "commit position") {
    return "T8";
  }
  // A value nobody wrote, a malformed range, a failed call: the store or a view was corrupted
  // by running concurrently (T2).
  // Checks: T2 — a value never written, a malformed range, a failed call: a corrupted store
  return "T2";
}

HistoryVerdict JudgeKvHistory(const History& history, IsolationLevel isolation) {
  return Checker(history, isolation).Run();
}

Status CheckHistory(const History& history, IsolationLevel isolation, std::string* report) {
  HistoryVerdict v = JudgeKvHistory(history, isolation);
  if (report) *report = std::move(v.report);
  return v.status;
}

}  // namespace statecheck::properties::kv_concurrency
