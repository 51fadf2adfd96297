// The windowed aggregation family's vocabulary (kit/trace.h): its configuration and operations
// (property.h) as the JSON of a windowed trace (docs/traces.md), and what a step's "expect" may
// say. Kept apart from the property so that the parser builds alone (the windowed_trace_fuzz
// target).
#ifndef STATECHECK_PROPERTIES_WINDOWED_OPS_H_
#define STATECHECK_PROPERTIES_WINDOWED_OPS_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/aggregation_model.h"
#include "properties/kit/json_lines.h"
#include "statecheck/status.h"

namespace statecheck::properties::windowed {

enum class WindowKind { kTime, kSliding, kSession, kUnlimited };

struct Config {
  std::string label;  // e.g. "hopping_final": test and report ids.
  WindowKind kind = WindowKind::kTime;
  // Time windows: the size; sliding windows: the time difference D; sessions: the gap G;
  // unlimited windows: none (the generator's timestamps step by it).
  int64_t size_ms = 10;
  int64_t start_ms = 0;     // Unlimited windows only: where they start.
  int64_t advance_ms = 10;  // Time windows only.
  int64_t grace_ms = 0;
  bool emit_final = false;
  bool in_memory_store = false;  // Time windows only: the in-memory window store (KIP-428).
  // Time windows only: the store's retention, Materialized.withRetention (at least size + grace,
  // Kafka's check); -1: size + grace on the persistent store, sut.h's kInMemoryRetentionMs on
  // the in-memory one.
  int64_t retention_ms = -1;
  int64_t emit_interval_ms = 50;  // Emit-final's emit interval (E5).
  // count, reduce or aggregate (model/aggregation_model.h).
  model::AggregatorKind aggregator = model::AggregatorKind::kCount;
  // suppress(untilWindowCloses) after the aggregation (time windows, emit-eager).
  bool suppress = false;
  // processing.guarantee (exactly_once_v2 or at_least_once) and an isolation level.
  std::map<std::string, std::string> streams_config;
  friend bool operator==(const Config&, const Config&) = default;
};

// {"window": {"kind": "time", "size_ms", "advance_ms", "grace_ms"} (sliding: "time_difference_ms",
// session: "gap_ms"; unlimited: {"kind": "unlimited", "start_ms"}, start optional), "emit":
// "ON_WINDOW_UPDATE"|"ON_WINDOW_CLOSE", "emit_interval_ms" (optional, default 50), "store":
// "persistent"|"in_memory", "retention_ms" (optional, time windows; written only when set),
// "aggregator": "count"|"reduce"|"aggregate" (optional, default count; written only when not
// count), "streams_config": {...}}, and back. ConfigFromJson: InvalidArgument
// naming the field for anything missing or of the wrong type, leaving `*config` unchanged.
Json ConfigToJson(const Config& config);
Status ConfigFromJson(const Json& json, Config* config);

// One step of the property.
// kMetrics reads the task's metrics by Kafka's names. kFetch, kFetchAll and kFetchRange are
// interactive queries of the aggregation's store (Kafka's ReadOnlyWindowStore.fetch(key,
// timeFrom, timeTo), fetchAll(timeFrom, timeTo) and fetch(keyFrom, keyTo, timeFrom, timeTo), or
// with `backward` their backward variants): the windows starting in [from, to], of one key, of
// every key, or of the keys in [key_from, key_to].
enum class OpType {
  kAppend,
  kProcess,
  kAdvanceClock,
  kCommit,
  kCrash,
  kRestart,
  kFetch,
  kFetchAll,
  kMetrics,
  kFetchRange
};
inline constexpr const char* kOpNames[] = {"append",  "process",   "advanceClock", "commit",
                                           "crash",   "restart",   "fetch",        "fetchAll",
                                           "metrics", "fetchRange"};
inline constexpr int kOpCount = 10;
// Whether `type` is an interactive query of the store.
inline bool IsQuery(OpType type) {
  return type == OpType::kFetch || type == OpType::kFetchAll || type == OpType::kFetchRange;
}

// The value of an input record a trace does not give one (a count does not read it).
inline constexpr char kDefaultRecordValue[] = "v";

// One input record of an append.
struct Record {
  std::string key;                                         // "" stands for Kafka's null key.
  int64_t timestamp = -1;                                  // -1: none.
  std::optional<std::string> value = kDefaultRecordValue;  // nullopt: a null value.
  friend bool operator==(const Record&, const Record&) = default;
};

struct Op {
  OpType type = OpType::kCommit;
  std::vector<Record> records;  // kAppend.
  int64_t n = 0;                // kProcess: records; kAdvanceClock: ms.
  std::string key;              // kFetch (never "", Kafka's null key: fetch refuses it).
  // kFetchRange: the key range, both included; std::nullopt: unbounded.
  std::optional<std::string> key_from;
  std::optional<std::string> key_to;
  bool backward = false;  // A query's backward variant.
  int64_t from = 0;       // A query: the window starts asked for, inclusive.
  int64_t to = 0;
  // The generator's aim after a kAppend (property.cc: where its timestamps count from, in
  // window steps), drawn with the op so that the next state follows from the op alone. Not in a
  // trace.
  int64_t cursor_after = 0;
  int64_t origin_after = 0;
  friend bool operator==(const Op&, const Op&) = default;
};

Json OpToJson(const Op& op);
std::string OpToString(const Op& op);
// The inverse of OpToJson. InvalidArgument naming what is wrong; `*op` is reset first.
Status OpFromJson(const Json& j, Op* op);

// Whether an emitted record of a trace's expectation is `actual` (OutputToJson's): the same
// fields with the same values, in any order; a value may be written as a number ("value": 2 is
// the count "2").
bool SameEmittedRecord(const Json& expected, const Json& actual);

// A windowed trace (JSON Lines): a header {"statecheck_trace": 1, "kind": "windowed", "config":
// ConfigToJson, and carried along: property, seed, reproduce, failure}, then one operation per
// line: {"op":"append","records":[["a",10],["",-1],["b",12,"x"],["b",13,null]]} (a value, when
// not kDefaultRecordValue, third), {"op":"process","max_records":3},
// {"op":"advanceClock","ms":50}, {"op":"commit"}, {"op":"crash"}, {"op":"restart"}, each with an
// optional "expect": {"emitted": [{"window":[start,end],"key":K,"value":V,"timestamp":T}, ...]
// (the output this step made visible: committed; written under at_least_once), "dropped_records": N
// (the task's count after it)}; {"op":"fetch","key":"a","from":0,"to":100} and
// {"op":"fetchAll","from":0,"to":100} may also expect "windows": [{"window":[start,end],"key":K,
// "value":V,"timestamp":T}, ...] (what the query returned, by start, then key); {"op":"metrics"}
// may expect "metrics": {"dropped-records-total": N, "emit-final-records-total": M}.

struct Vocabulary {
  static constexpr std::string_view kKind = "windowed";
  using Config = windowed::Config;
  using Op = windowed::Op;
  static Json ConfigToJson(const Config& config) { return windowed::ConfigToJson(config); }
  static Status ConfigFromJson(const Json& j, Config* config) {
    return windowed::ConfigFromJson(j, config);
  }
  static Json OpToJson(const Op& op) { return windowed::OpToJson(op); }
  // OpToJson's form, and no key it does not write.
  static Status OpFromJson(const Json& j, Op* op);
  // A step's "expect": {"emitted": [record, ...], "dropped_records": N}, for a query also
  // "windows": [record, ...], for metrics "metrics": {...}; each record {"window": [start, end],
  // "key", "value", "timestamp"}. InvalidArgument naming the key that is not one of these.
  static Status CheckExpect(const Op& op, const Json& expect);
};

}  // namespace statecheck::properties::windowed

#endif  // STATECHECK_PROPERTIES_WINDOWED_OPS_H_
