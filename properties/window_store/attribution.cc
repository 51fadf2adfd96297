// The window-store property's attribution and situations (window_store_attribution.h).
#include "properties/window_store/attribution.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <tuple>

#include "properties/evidence.h"
#include "properties/generators.h"  // kPresentDayEpochMs

namespace statecheck::properties::window_store {
namespace {


// One record of a step's result: [key, start, end, value] (or [key, start, end] for
// peekNextKey), the key and value unescaped.
struct Rec {
  std::string key;
  int64_t start = 0;
  int64_t end = 0;
  std::string value;
};

std::optional<Rec> ParseRec(const Json& j) {
  if (!j.is_array() || j.size() < 3 || !j[0].is_string() || !j[1].is_number_integer() ||
      !j[2].is_number_integer()) {
    return std::nullopt;
  }
  Rec r;
  if (!UnescapeBytes(j[0].get<std::string>(), &r.key).ok()) return std::nullopt;
  r.start = j[1].get<int64_t>();
  r.end = j[2].get<int64_t>();
  if (j.size() > 3 && j[3].is_string() && !UnescapeBytes(j[3].get<std::string>(), &r.value).ok()) {
    return std::nullopt;
  }
  return r;
}

// Keys compare as unsigned bytes, a prefix first (W7).
int CompareBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() == b.size() ? 0 : a.size() < b.size() ? -1 : 1;
}

bool IsProperPrefix(std::string_view prefix, std::string_view key) {
  return prefix.size() < key.size() && key.substr(0, prefix.size()) == prefix;
}

bool IsBackward(ReadKind kind) {
  return kind == ReadKind::kBackwardFetch || kind == ReadKind::kBackwardFetchKeyRange ||
         kind == ReadKind::kBackwardFetchAll || kind == ReadKind::kBackwardAll;
}

// The key and time bounds a read asks for (before the retention bound raises `from`).
struct ReadShape {
  std::optional<std::string> key_from, key_to;  // Absent = unbounded.
  int64_t from = kMin, to = kMax;
  bool forward = true;
  bool KeyIn(std::string_view key) const {
    return (!key_from || CompareBytes(key, *key_from) >= 0) &&
           (!key_to || CompareBytes(key, *key_to) <= 0);
  }
};

ReadShape ShapeOf(const Op& op) {
  ReadShape s;
  if (ReadTakesKey(op.read)) s.key_from = s.key_to = op.key;
  if (ReadTakesKeyRange(op.read)) {
    s.key_from = op.key_from;
    s.key_to = op.key_to;
  }
  if (ReadTakesTimeRange(op.read)) {
    s.from = op.time_from;
    s.to = op.time_to;
  }
  s.forward = !IsBackward(op.read);
  return s;
}

Json Field(const Json& j, const char* name) {
  auto it = j.find(name);
  return it == j.end() ? Json() : *it;
}

// The counters and stream time after the step (W2, W3, W8); for a put see PutRule.
std::optional<std::string> AfterRule(const Step& step) {
  const Json& e = step.expected["after"];
  const Json& a = Field(step.actual, "after");
  if (e == a) return std::nullopt;
  // Checks: W2 — a step's stream time after it against the model's
  if (Field(e, "stream_time") != Field(a, "stream_time")) return "W2";
  // Checks: W3 — the dropped-records counter against the model's
  if (Field(e, "dropped_records") != Field(a, "dropped_records")) return "W3";
  // What is held: only expiry changes it on a read; closing the store releases it; an iterator
  // step or close must not change it.
  // Checks: W9 — closing an iterator or the store must leave the held records as the model says
  if (step.op.type == OpType::kCloseStore || step.op.type == OpType::kCloseIterator) return "W9";
  // Checks: W8 — any other change to what is held is expiry's
  return "W8";
}

// A put: its stream time (W2), its drop (W3: status, counter, warning), then what it did to
// the records held: an expiry's doing (W8), a delete's (W4), a duplicate's (W5), or the kept
// or dropped put's own (W3).
std::string PutRule(const Step& step) {
  using Effect = model::WindowStoreModelCallReport::PutEffect;
  const Json& e = step.expected;
  const Json& a = step.actual;
  if (step.closed_before) return "W9";
  // Checks: W2 — a put's own start counted into stream time (dropped puts included)
  if (Field(e["after"], "stream_time") != Field(Field(a, "after"), "stream_time")) return "W2";
  // Checks: W3 — the put's drop: status, "Skipping record..." warning, dropped-records
  if (Field(e, "status") != Field(a, "status") || Field(e, "logs") != Field(a, "logs") ||
      Field(e["after"], "dropped_records") != Field(Field(a, "after"), "dropped_records")) {
    return "W3";
  }
  // Checks: W8 — the put expired (or an iterator pinned) segments before it applied
  if (step.report.expired_records > 0 || step.report.pinned_records > 0) return "W8";
  switch (step.report.put) {
    // Checks: W4 — a null value's delete (or no-op with retainDuplicates) differs
    case Effect::kDeleted:
    case Effect::kDeletedNothing:
    case Effect::kNullWithDuplicates:
      return "W4";
    // Checks: W5 — an overwrite without duplicates, a new entry with them
    case Effect::kOverwritten:
      return "W5";
    case Effect::kInserted:
      return step.duplicates && step.report.same_key_and_start_before > 0 ? "W5" : "W3";
    case Effect::kDropped:
    case Effect::kNone:
      break;
  }
  return "W3";
}

// Two lists of records a range read returned: what differs decides the rule.
std::string RecordsRule(const Json& expected, const Json& actual, const Step& step) {
  const ReadShape shape = ShapeOf(step.op);
  const Wide lo = std::max<Wide>(shape.from, step.Bound() + 1);
  std::vector<Rec> e, a;
  for (const Json& j : expected) e.push_back(*ParseRec(j));
  for (const Json& j : actual.is_array() ? actual : Json::array()) {
    std::optional<Rec> r = ParseRec(j);
    if (!r) return "W9";  // hasNext promised a record that next() did not give.
    a.push_back(*r);
  }
  // Checks: W7 — a record outside the read's key or time bounds
  for (const Rec& r : a) {
    if (!shape.KeyIn(r.key) || r.start < shape.from || r.start > shape.to) return "W7";
  }
  auto body = [](const Rec& r) { return std::make_tuple(r.start, r.key, r.value); };
  std::multiset<std::tuple<int64_t, std::string, std::string>> es, as;
  for (const Rec& r : e) es.insert(body(r));
  for (const Rec& r : a) as.insert(body(r));
  std::vector<std::tuple<int64_t, std::string, std::string>> extra, missing;
  std::set_difference(as.begin(), as.end(), es.begin(), es.end(), std::back_inserter(extra));
  std::set_difference(es.begin(), es.end(), as.begin(), as.end(), std::back_inserter(missing));
  // Checks: W6 — a record at or below streamTime - retention returned, or the oldest lost
  for (const auto& r : extra) {
    if (std::get<0>(r) < lo) return "W6";  // A record the retention bound hides.
  }
  for (const auto& r : missing) {
    if (std::get<0>(r) == step.Bound() + 1) return "W6";  // The oldest live start lost.
  }
  // Checks: W7 — the same records in another order (start, key bytes, insertion; reversed)
  if (extra.empty() && missing.empty()) {
    // The same records: their windows or their order differ.
    if (e.size() == a.size()) {
      for (size_t i = 0; i < e.size(); ++i) {
        if (body(e[i]) != body(a[i])) {
          const bool same_entry_group = e[i].key == a[i].key && e[i].start == a[i].start;
          return shape.forward && same_entry_group ? "W5" : "W7";
        }
      }
    }
    return "W7";
  }
  if (step.duplicates) {
    // Only the number of duplicates of some key and start differs.
    auto group = [](const auto& r) { return std::make_pair(std::get<0>(r), std::get<1>(r)); };
    std::set<std::pair<int64_t, std::string>> eg, ag;
    for (const auto& r : es) eg.insert(group(r));
    for (const auto& r : as) ag.insert(group(r));
    // Checks: W5 — only the number of duplicates of one key and start differs
    if (eg == ag) return "W5";
  }
  return "W7";
}

// A point fetch: W5's quirk, W6's bound, else W7's read.
std::string FetchRule(const Step& step) {
  const Json& e = step.expected;
  const Json& a = step.actual;
  if (step.closed_before) return "W9";
  if (Field(e, "status") != Field(a, "status")) return "W7";
  if (Field(e, "value") != Field(a, "value")) {
    // Checks: W5 — a single-point fetch on a retainDuplicates store returns nothing
    if (step.duplicates) return "W5";
    // Checks: W6 — fetch(key, t) with t <= streamTime - retention is empty
    if (step.op.time <= step.Bound()) return "W6";
    return "W7";
  }
  if (Field(e, "logs") != Field(a, "logs")) return "W7";
  return AfterRule(step).value_or("W7");
}

std::string ReadRule(const Step& step) {
  const Json& e = step.expected;
  const Json& a = step.actual;
  if (step.closed_before) return "W9";
  if (Field(e, "status") != Field(a, "status")) return "W7";
  if (step.op.type == OpType::kScan && Field(e, "records") != Field(a, "records")) {
    return RecordsRule(e["records"], Field(a, "records"), step);
  }
  // Checks: W7 — keyFrom > keyTo: empty result plus the warning
  if (Field(e, "logs") != Field(a, "logs")) return "W7";  // keyFrom > keyTo's warning.
  return AfterRule(step).value_or("W7");
}

// hasNext, next, peekNextKey, close on an open iterator.
std::string IteratorRule(const Step& step) {
  IteratorInfo* info = step.iterator;
  // Checks: W9 — an iterator after the store closed: hasNext false, no error
  if (step.closed_before || (info && info->store_closed)) return "W9";
  Json e = step.expected, a = step.actual;
  e.erase("after");
  a.erase("after");
  if (e == a || !info) return AfterRule(step).value_or("W9");
  const bool changed = info->put_since || info->expiry_since;
  if (step.op.type == OpType::kHasNext) return changed ? "W9" : "W7";
  if (step.op.type == OpType::kNext || step.op.type == OpType::kPeekNextKey) {
    const char* field = step.op.type == OpType::kNext ? "record" : "key";
    const std::optional<Rec> got = ParseRec(Field(a, field));
    const std::optional<Rec> want = ParseRec(Field(e, field));
    const ReadShape shape = ShapeOf(info->open);
    if (got) {
      if (!shape.KeyIn(got->key) || got->start < shape.from || got->start > shape.to) {
        return "W7";
      }
      // Checks: W6 — an iterator returns a window below its read's retention bound
      if (got->start < info->lo) return "W6";
      if (info->last_start &&
          (shape.forward ? got->start < *info->last_start : got->start > *info->last_start)) {
        return "W7";
      }
      if (want && want->start == got->start) {
        if (!shape.forward) return "W7";  // Within a segment, backward is the exact reverse.
        if (want->key == got->key && step.duplicates) return "W5";
      }
    }
    // Checks: W9 — an open iterator differs after the store changed under it
    if (changed) return "W9";
    if (info->saw_end || Field(e, "status") == "OutOfRange") return "W9";  // Past the end.
    return "W7";
  }
  return "W9";
}

}  // namespace

std::string StepRule(const Step& step) {
  switch (step.op.type) {
    case OpType::kPut:
      return PutRule(step);
    case OpType::kFetch:
      return FetchRule(step);
    case OpType::kScan:
    case OpType::kOpen:
      return ReadRule(step);
    case OpType::kHasNext:
    case OpType::kNext:
    case OpType::kPeekNextKey:
    case OpType::kCloseIterator:
      return IteratorRule(step);
    case OpType::kCloseStore:
      return "W9";
    case OpType::kRestore:
      // Checks: W3 — a restore puts each changelog record: dropped ones counted and logged
      if (Field(step.expected, "status") != Field(step.actual, "status") ||
          Field(step.expected, "logs") != Field(step.actual, "logs")) {
        return "W3";
      }
      return AfterRule(step).value_or("W3");
    case OpType::kMetrics: {
      Json e = step.expected, a = step.actual;
      e.erase("after");
      a.erase("after");
      if (e != a) {
        if (Field(e, "stream_time") != Field(a, "stream_time")) return "W2";
        if (Field(e, "dropped_records") != Field(a, "dropped_records")) return "W3";
        return "W8";
      }
      return AfterRule(step).value_or("W8");
    }
  }
  return "W9";
}

// The situations of W2–W9 (reports/rules.json) the step reached, from what the model did.
void NoteSituations(const Step& step, model::WindowStoreModel& model) {
  using Effect = model::WindowStoreModelCallReport::PutEffect;
  const Op& op = step.op;
  const model::WindowStoreModelCallReport& r = step.report;
  const Json& e = step.expected;
  if (step.closed_before) {
    if (step.iterator && op.type == OpType::kHasNext) Reached("W9.store_closed");
    return;
  }
  if (e["after"]["stream_time"] == -1 && op.type != OpType::kCloseStore) {
    Reached("W2.starts_at_minus_one");
  }
  // Expiry (W8), at the start of every put and read.
  const bool read =
      op.type == OpType::kFetch || op.type == OpType::kScan || op.type == OpType::kOpen;
  if (r.expired_segments > 0) Reached(read ? "W8.read_expires" : "W8.put_expires");
  ReachedIf(r.expired_boundary, "W8.boundary_segment");
  ReachedIf(r.pinned_records > 0, "W8.iterator_pins");
  ReachedIf(r.released_records > 0, "W8.released_after_close");
  const Wide bound = step.Bound();
  switch (op.type) {
    case OpType::kPut: {
      const bool dropped = r.put == Effect::kDropped;
      if (op.time > step.stream_time_before) {
        if (dropped) {
          Reached("W2.dropped_put_advances");
          Reached("W3.drop_advances_stream_time");
        } else {
          Reached(op.value ? "W2.put_advances" : "W2.delete_advances");
        }
      } else if (op.time < step.stream_time_before) {
        Reached("W2.older_put_keeps_it");
      }
      ReachedIf(op.time == kMax, "W2.max_start");
      ReachedIf(
          op.time > step.stream_time_before && op.time >= kPresentDayEpochMs && op.time < kMax - 1,
          "W2.epoch_start");
      ReachedIf(dropped && op.time == bound, "W3.at_boundary");
      ReachedIf(!dropped && op.time == bound + 1, "W3.just_above");
      ReachedIf(dropped && op.time < bound, "W3.below_bound");
      ReachedIf(dropped && !op.value, "W3.dropped_delete");
      if (r.put == Effect::kDeleted) {
        Reached(r.emptied_segment ? "W4.delete_empties_segment" : "W4.delete_keeps_segment");
      }
      ReachedIf(r.put == Effect::kDeletedNothing, "W4.delete_absent");
      ReachedIf(r.put == Effect::kNullWithDuplicates && r.same_key_and_start_before > 0,
                "W4.null_with_duplicates");
      ReachedIf(r.put == Effect::kInserted && step.duplicates && r.same_key_and_start_before > 0,
                "W5.same_key_and_start");
      ReachedIf(r.put == Effect::kOverwritten, "W5.overwrite_without");
      break;
    }
    case OpType::kFetch:
      ReachedIf(op.time == bound, "W6.point_at_bound");
      ReachedIf(op.time == bound + 1 && !e["value"].is_null(), "W6.point_oldest_live");
      ReachedIf(r.point_hidden_by_duplicates, "W5.point_fetch_empty");
      ReachedIf(r.hidden_by_bound > 0, "W6.pinned_hidden");
      break;
    case OpType::kScan:
    case OpType::kOpen: {
      const ReadShape shape = ShapeOf(op);
      ReachedIf(r.hidden_by_bound > 0, "W6.pinned_hidden");
      if (ReadTakesTimeRange(op.read)) {
        ReachedIf(op.time_from <= bound && op.time_to > bound, "W6.range_clamped");
        ReachedIf(op.time_from > op.time_to, "W7.empty_time_range");
      }
      if (ReadTakesKeyRange(op.read)) {
        ReachedIf(op.key_from && op.key_to && CompareBytes(*op.key_from, *op.key_to) > 0 &&
                      e.contains("logs"),
                  "W7.reversed_key_range");
      }
      // A key bound that is a byte-prefix of a key the model holds in the read's time range.
      if (shape.key_to) {
        const Wide lo = std::max<Wide>(shape.from, bound + 1);
        for (const model::WindowStoreModelEntry& entry : model.Entries()) {
          if (entry.start >= lo && entry.start <= shape.to &&
              IsProperPrefix(*shape.key_to, entry.key)) {
            Reached("W7.prefix_key_excluded");
            break;
          }
        }
      }
      if (op.type != OpType::kScan) break;
      std::vector<Rec> recs;
      for (const Json& j : e["records"]) recs.push_back(*ParseRec(j));
      ReachedIf(ReadTakesKeyRange(op.read) && (!op.key_from || !op.key_to) && !recs.empty(),
                "W7.unbounded_key");
      for (size_t i = 0; i < recs.size(); ++i) {
        const Rec& x = recs[i];
        ReachedIf(step.window_size > 0 && x.start > kMax - step.window_size,
                  "W7.window_end_saturates");
        if (i == 0) continue;
        const Rec& prev = recs[i - 1];
        if (prev.start != x.start) {
          ReachedIf(ReadTakesKey(op.read), "W7.single_key_by_start");
          continue;
        }
        if (prev.key == x.key) {
          Reached(shape.forward ? "W5.insertion_order" : "W5.backward_duplicates");
        } else if (shape.forward) {
          Reached("W7.multi_key_order");
        }
        ReachedIf(!shape.forward, "W7.backward_segment");
      }
      break;
    }
    case OpType::kHasNext:
    case OpType::kNext:
    case OpType::kPeekNextKey: {
      IteratorInfo* info = step.iterator;
      if (!info) break;
      ReachedIf(info->put_since, "W9.put_while_open");
      ReachedIf(info->expiry_since, "W9.expiry_while_open");
      if (op.type != OpType::kHasNext && e["status"] == "OutOfRange") Reached("W9.past_end");
      if (op.type == OpType::kNext && e.contains("record")) {
        const Rec rec = *ParseRec(e["record"]);
        ReachedIf(!info->at_open.count({rec.key, rec.start, rec.value}), "W9.sees_later_put");
        ReachedIf(rec.start <= bound, "W9.returns_expired");
      }
      break;
    }
    case OpType::kRestore:
      ReachedIf(e["after"]["dropped_records"] > 0, "W3.restore_drops_expired");
      break;
    case OpType::kCloseIterator:
    case OpType::kCloseStore:
    case OpType::kMetrics:
      break;
  }
}

// Keeps the iterator table up to date after a step that held.
void TrackIterators(const Step& step, const model::WindowStoreModel& model,
                    std::map<int, IteratorInfo>* iterators) {
  using Effect = model::WindowStoreModelCallReport::PutEffect;
  const Op& op = step.op;
  const model::WindowStoreModelCallReport& r = step.report;
  if (r.expired_records > 0 || r.pinned_records > 0) {
    for (auto& [id, info] : (*iterators)) info.expiry_since = true;
  }
  switch (op.type) {
    case OpType::kPut:
      if (r.put != Effect::kNone) {
        for (auto& [id, info] : (*iterators)) info.put_since = true;
      }
      break;
    case OpType::kOpen: {
      if (step.expected["status"] != "OK") break;
      IteratorInfo info;
      info.open = op;
      info.lo = std::max<Wide>(ShapeOf(op).from, step.Bound() + 1);
      for (const model::WindowStoreModelEntry& entry : model.Entries()) {
        info.at_open.insert({entry.key, entry.start, entry.value});
      }
      (*iterators)[op.iterator] = std::move(info);
      break;
    }
    case OpType::kHasNext:
      if (step.iterator && step.expected["hasNext"] == false) step.iterator->saw_end = true;
      break;
    case OpType::kNext:
    case OpType::kPeekNextKey:
      if (!step.iterator) break;
      if (step.expected["status"] == "OutOfRange") step.iterator->saw_end = true;
      if (op.type == OpType::kNext && step.expected.contains("record")) {
        step.iterator->last_start = ParseRec(step.expected["record"])->start;
      }
      break;
    case OpType::kCloseIterator:
      (*iterators).erase(op.iterator);
      break;
    case OpType::kCloseStore:
      for (auto& [id, info] : (*iterators)) info.store_closed = true;
      break;
    case OpType::kRestore:  // The old store is gone, and its iterators with it.
      (*iterators).clear();
      break;
    case OpType::kFetch:
    case OpType::kScan:
    case OpType::kMetrics:
      break;
  }
}

}  // namespace statecheck::properties::window_store
