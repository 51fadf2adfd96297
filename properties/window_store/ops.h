// The window-store family's vocabulary (kit/trace.h): its configuration (store options, and
// the construction outcome a trace may expect) and its operations, shared by the property, the
// trace files and replay.
//
// An Op is one call on the WindowStore interface (or on one of its iterators, named by a small
// id). OpRunner applies Ops to one store and describes each outcome as JSON, so that two stores
// (the engine and the model) can be compared result by result, and a trace can carry the
// expected result of any step. The JSON forms are documented in docs/traces.md.
#ifndef STATECHECK_PROPERTIES_WINDOW_STORE_OPS_H_
#define STATECHECK_PROPERTIES_WINDOW_STORE_OPS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/kit/json_lines.h"
#include "properties/kit/trace.h"
#include "properties/recording_logger.h"
#include "statecheck/in_memory_window_store.h"
#include "statecheck/status.h"
#include "statecheck/window_store.h"

namespace statecheck::properties::window_store {

// The range reads of W7, by their Kafka names.
enum class ReadKind {
  kFetch,                  // fetch(key, from, to)
  kBackwardFetch,          // backwardFetch(key, from, to)
  kFetchKeyRange,          // fetch(keyFrom, keyTo, from, to)
  kBackwardFetchKeyRange,  // backwardFetch(keyFrom, keyTo, from, to)
  kFetchAll,               // fetchAll(from, to)
  kBackwardFetchAll,       // backwardFetchAll(from, to)
  kAll,                    // all()
  kBackwardAll,            // backwardAll()
};
inline constexpr int kReadKindCount = 8;

enum class OpType {
  kPut,            // put(key, value | null, start)
  kFetch,          // fetch(key, time): the single-point read
  kScan,           // open a range read, drain it, close it
  kOpen,           // open a range read as iterator `iterator`
  kHasNext,        // iterator.hasNext()
  kNext,           // iterator.next()
  kPeekNextKey,    // iterator.peekNextKey()
  kCloseIterator,  // iterator.close()
  kCloseStore,     // store.close()
  kMetrics,        // the store's counters and stream time
  kRestore,        // a new store, restored from changelog records (Kafka's restore path)
};

// One changelog record of a window store, as Kafka's restore callback receives it: the key,
// the value (null: a delete) and the window start of one put.
struct ChangelogRecord {
  std::string key;
  std::optional<std::string> value;
  int64_t start = 0;
  friend bool operator==(const ChangelogRecord&, const ChangelogRecord&) = default;
};

struct Op {
  OpType type = OpType::kMetrics;
  std::string key;  // kPut, kFetch; kScan/kOpen of kFetch/kBackwardFetch.
  // Where `key` is taken: Kafka's null key ("key": null), which its API refuses with
  // NullPointerException "key cannot be null". The C++ API takes a string_view, which cannot be
  // null: OpRunner answers such an op itself, InvalidArgument, without calling the store.
  bool null_key = false;
  std::optional<std::string> value;     // kPut: null deletes.
  int64_t time = 0;                     // kPut: window start; kFetch: time.
  ReadKind read = ReadKind::kAll;       // kScan, kOpen.
  std::optional<std::string> key_from;  // Key-range reads; absent = unbounded.
  std::optional<std::string> key_to;
  int64_t time_from = 0;  // Reads other than kAll/kBackwardAll.
  int64_t time_to = 0;
  int iterator = 0;                      // kOpen and the iterator steps.
  std::vector<ChangelogRecord> records;  // kRestore.
};

std::string_view OpTypeName(OpType type);
std::string_view ReadKindName(ReadKind kind);
// Whether a read takes a single key / key bounds / a time range.
bool ReadTakesKey(ReadKind kind);
bool ReadTakesKeyRange(ReadKind kind);
bool ReadTakesTimeRange(ReadKind kind);
// Whether an op names an iterator that must already be open.
bool OpUsesIterator(OpType type);

// The op as one JSON object ({"op": "put", ...}), without an expected result.
Json OpToJson(const Op& op);
// Parses OpToJson's form. InvalidArgument naming the field and what is wrong.
Status OpFromJson(const Json& j, Op* op);
// The op in one line, as the property's counterexample shows it.
std::string OpToString(const Op& op);

// Store options as the trace header's "config" object, and back.
Json OptionsToJson(const WindowStoreOptions& options);
Status OptionsFromJson(const Json& j, WindowStoreOptions* options);

// How a store is made: the engine's NewInMemoryWindowStore, the model's, or a user's own.
using Factory = std::function<Status(const WindowStoreOptions&, std::unique_ptr<WindowStore>*)>;

// Applies ops to one store, holding its open iterators by id.
class OpRunner {
 public:
  // Builds the store with `factory`, its logger replaced by a RecordingLogger whose lines each
  // step reports. Returns the factory's error, and no runner, when construction fails. The
  // runner keeps `factory` and the options for kRestore.
  static Status Make(const Factory& factory, WindowStoreOptions options,
                     std::unique_ptr<OpRunner>* runner);

  explicit OpRunner(std::unique_ptr<WindowStore> store,
                    std::shared_ptr<RecordingLogger> logs = nullptr)
      : store_(std::move(store)), logs_(std::move(logs)) {}

  // Applies `op` and returns its outcome: {"status": "OK"} for a put; for reads the value,
  // records or key read; for iterator steps {"hasNext": b} or the record; "logs" when the
  // store logged. Statuses are compared by code only (implementations word their messages
  // differently). An iterator op naming no open iterator answers as an exhausted iterator.
  // kRestore closes the store (and so every open iterator, whose ids then answer as exhausted
  // ones), makes a new one with the same options and puts each record into it in order, as
  // Kafka's restore callback does — so records past retention are dropped (W3) and every start
  // counts for stream time (W2); its status is the first failed put's, or OK.
  // FailedPrecondition on a runner built without a factory.
  Json Apply(const Op& op);

  // The store's counters and stream time as JSON (W2, W3, W8).
  Json Metrics() const;

  // The store the ops run on (the property asks the model what it did, to explain a
  // difference).
  WindowStore& store() { return *store_; }

 private:
  Status OpenRead(const Op& op, std::unique_ptr<WindowStoreIterator>* it);
  Json ApplyOp(const Op& op);

  Json Restore(const std::vector<ChangelogRecord>& records);

  std::unique_ptr<WindowStore> store_;
  std::shared_ptr<RecordingLogger> logs_;
  Factory factory_;  // Null when built without Make: no kRestore.
  WindowStoreOptions options_;
  std::map<int, std::unique_ptr<WindowStoreIterator>> iterators_;
};

// One configuration: the store's options, and for a trace the outcome its construction must
// have (W1).
struct Config {
  std::string label;  // e.g. "ret10_size3_dups": test names and trace file names; not in a trace.
  WindowStoreOptions options;
  // {"status": "OK"} or {"status": "InvalidArgument", "message": "..."}; absent = it must build.
  std::optional<Json> construction;
};

struct Vocabulary {
  static constexpr std::string_view kKind = "window_store";
  using Config = window_store::Config;
  using Op = window_store::Op;
  // The options: {"name", "retention_ms", "window_size_ms", "retain_duplicates"}.
  static Json ConfigToJson(const Config& config) { return OptionsToJson(config.options); }
  static Status ConfigFromJson(const Json& j, Config* config) {
    return OptionsFromJson(j, &config->options);
  }
  static Json OpToJson(const Op& op) { return window_store::OpToJson(op); }
  // OpToJson's form, and no key it does not write.
  static Status OpFromJson(const Json& j, Op* op);
  // The header's "construction" (W1), beside "config".
  static const std::vector<std::string>& HeaderKeys();
  static Status HeaderFromJson(const Json& extra, Config* config);
  static Json HeaderToJson(const Config& config);
  // An iterator step names an iterator opened before and not closed since; an open names a new
  // id; a trace whose construction must fail has no step.
  template <class Trace>
  static Status CheckTrace(const Trace& trace) {
    std::vector<std::pair<const Op*, int>> steps;
    for (const auto& step : trace.steps) steps.emplace_back(&step.op, step.line);
    return CheckSteps(trace.config, steps);
  }
  static Status CheckSteps(const Config& config,
                           const std::vector<std::pair<const Op*, int>>& steps);
};

}  // namespace statecheck::properties::window_store

#endif  // STATECHECK_PROPERTIES_WINDOW_STORE_OPS_H_
