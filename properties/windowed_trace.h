// Windowed traces (docs/traces.md): the windowed aggregation property's configuration and
// operations (windowed_aggregation_property.h) as JSON, and the JSON Lines trace a failing case
// is saved as, parsed from text. Kept apart from the property so that the parser builds alone
// (the windowed_trace_fuzz target).
#ifndef STATECHECK_PROPERTIES_WINDOWED_TRACE_H_
#define STATECHECK_PROPERTIES_WINDOWED_TRACE_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/aggregation_model.h"
#include "statecheck/status.h"

namespace statecheck::properties {

using Json = nlohmann::ordered_json;

enum class WindowKind { kTime, kSliding, kSession, kUnlimited };

struct WindowedAggregationConfig {
  std::string label;  // e.g. "hopping_final": test and report ids.
  WindowKind kind = WindowKind::kTime;
  // Time windows: the size; sliding windows: the time difference D; sessions: the gap G;
  // unlimited windows: none (the generator's timestamps step by it).
  int64_t size_ms = 10;
  int64_t start_ms = 0;     // Unlimited windows only: where they start.
  int64_t advance_ms = 10;  // Time windows only.
  int64_t grace_ms = 0;
  bool emit_final = false;
  bool in_memory_store = false;   // Time windows only: the in-memory window store (KIP-428).
  int64_t emit_interval_ms = 50;  // Emit-final's emit interval (E5).
  // count, reduce or aggregate (model/aggregation_model.h); time windows only for the last two.
  model::AggregatorKind aggregator = model::AggregatorKind::kCount;
  // suppress(untilWindowCloses) after the aggregation (time windows, emit-eager).
  bool suppress = false;
  // processing.guarantee (exactly_once_v2 or at_least_once) and an isolation level.
  std::map<std::string, std::string> streams_config;
  friend bool operator==(const WindowedAggregationConfig&,
                         const WindowedAggregationConfig&) = default;
};

// {"window": {"kind": "time", "size_ms", "advance_ms", "grace_ms"} (sliding: "time_difference_ms",
// session: "gap_ms"; unlimited: {"kind": "unlimited", "start_ms"}, start optional), "emit":
// "ON_WINDOW_UPDATE"|"ON_WINDOW_CLOSE", "emit_interval_ms" (optional, default 50), "store":
// "persistent"|"in_memory", "aggregator": "count"|"reduce"|"aggregate" (optional, default count;
// written only when not count), "streams_config": {...}}, and back. ConfigFromJson: InvalidArgument
// naming the field for anything missing or of the wrong type, leaving `*config` unchanged.
Json ConfigToJson(const WindowedAggregationConfig& config);
Status ConfigFromJson(const Json& json, WindowedAggregationConfig* config);

// One step of the property.
// kMetrics reads the task's metrics by Kafka's names. kFetch and kFetchAll are interactive queries
// of the aggregation's store (Kafka's ReadOnlyWindowStore.fetch(key, timeFrom, timeTo) and
// fetchAll(timeFrom, timeTo)): the windows starting in [from, to], of one key or of every key.
enum class WOpType {
  kAppend,
  kProcess,
  kAdvanceClock,
  kCommit,
  kCrash,
  kRestart,
  kFetch,
  kFetchAll,
  kMetrics
};
inline constexpr const char* kWOpNames[] = {"append",  "process", "advanceClock", "commit", "crash",
                                            "restart", "fetch",   "fetchAll",     "metrics"};
inline constexpr int kWOpCount = 9;

// The value of an input record a trace does not give one (a count does not read it).
inline constexpr char kDefaultRecordValue[] = "v";

// One input record of an append.
struct WRecord {
  std::string key;                                         // "" stands for Kafka's null key.
  int64_t timestamp = -1;                                  // -1: none.
  std::optional<std::string> value = kDefaultRecordValue;  // nullopt: a null value.
  friend bool operator==(const WRecord&, const WRecord&) = default;
};

struct WOp {
  WOpType type = WOpType::kCommit;
  std::vector<WRecord> records;  // kAppend.
  int64_t n = 0;                 // kProcess: records; kAdvanceClock: ms.
  std::string key;               // kFetch (never "", Kafka's null key: fetch refuses it).
  int64_t from = 0;              // kFetch, kFetchAll: the window starts asked for, inclusive.
  int64_t to = 0;
  friend bool operator==(const WOp&, const WOp&) = default;
};

Json WOpToJson(const WOp& op);
std::string WOpToString(const WOp& op);
// The inverse of WOpToJson. InvalidArgument naming what is wrong; `*op` is reset first.
Status WOpFromJson(const Json& j, WOp* op);

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
struct WindowedTrace {
  WindowedAggregationConfig config;
  Json info;                                // The header.
  std::vector<std::pair<int, Json>> steps;  // (line, operation).
};

// Whether an emitted record of a trace's expectation is `actual` (OutputToJson's): the same
// fields with the same values, in any order; a value may be written as a number ("value": 2 is
// the count "2").
bool SameEmittedRecord(const Json& expected, const Json& actual);

// Parses a windowed trace read from `source` (a file name, for the message of an empty trace).
// InvalidArgument "line N: <what is wrong>" for a malformed one (an unknown key anywhere
// included), "<source> is empty" for one without a header; `*trace` is left unchanged on any
// error. Blank lines are ignored anywhere.
Status ParseWindowedTrace(std::string_view text, const std::string& source, WindowedTrace* trace);

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_WINDOWED_TRACE_H_
