#include "properties/window_store/gtest_emitter.h"

#include <cstdio>
#include <set>
#include <sstream>

#include "properties/kit/gtest.h"

namespace statecheck::properties::window_store {
namespace {

// `bytes` as a C++ string literal: printable ASCII as itself, anything else as a three-digit
// octal escape (which no following character can extend); with a trailing `s` (a std::string
// literal) when it holds a NUL.
std::string Literal(std::string_view bytes) {
  std::string out = "\"";
  bool nul = false;
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += c;
    } else if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      char esc[5];
      std::snprintf(esc, sizeof esc, "\\%03o", u);
      out += esc;
      nul = nul || u == 0;
    }
  }
  out += '"';
  return nul ? out + "s" : out;
}

std::string Optional(const std::optional<std::string>& s) {
  return s ? "std::optional<std::string_view>(" + Literal(*s) + ")" : "std::nullopt";
}

// An expected byte string of the trace (escaped, docs/traces.md) as a literal.
Status ExpectedLiteral(const Json& j, const std::string& what, std::string* out) {
  if (!j.is_string()) return Status::InvalidArgument(what + " is not a string");
  std::string bytes;
  STATECHECK_RETURN_IF_ERROR(UnescapeBytes(j.get<std::string>(), &bytes));
  *out = Literal(bytes);
  return Status::Ok();
}

// A record [key, start, end, value] of an expectation as a WindowedRecord expression.
Status RecordExpr(const Json& r, const std::string& where, std::string* out) {
  if (!r.is_array() || r.size() != 4 || !r[1].is_number_integer() || !r[2].is_number_integer()) {
    return Status::InvalidArgument(where +
                                   ": --emit-gtest takes records as [key, start, end, "
                                   "value], not " +
                                   r.dump());
  }
  std::string key, value;
  STATECHECK_RETURN_IF_ERROR(ExpectedLiteral(r[0], where + ": a record's key", &key));
  STATECHECK_RETURN_IF_ERROR(ExpectedLiteral(r[3], where + ": a record's value", &value));
  *out = "statecheck::WindowedRecord{" + key + ", {" + std::to_string(r[1].get<int64_t>()) + ", " +
         std::to_string(r[2].get<int64_t>()) + "}, " + value + "}";
  return Status::Ok();
}

// The call that opens `op`'s read into `it`.
std::string OpenCall(const Op& op, const std::string& it) {
  const std::string from = std::to_string(op.time_from), to = std::to_string(op.time_to);
  switch (op.read) {
    case ReadKind::kFetch:
      return "store->Fetch(" + Literal(op.key) + ", " + from + ", " + to + ", &" + it + ")";
    case ReadKind::kBackwardFetch:
      return "store->BackwardFetch(" + Literal(op.key) + ", " + from + ", " + to + ", &" + it + ")";
    case ReadKind::kFetchKeyRange:
      return "store->Fetch(" + Optional(op.key_from) + ", " + Optional(op.key_to) + ", " + from +
             ", " + to + ", &" + it + ")";
    case ReadKind::kBackwardFetchKeyRange:
      return "store->BackwardFetch(" + Optional(op.key_from) + ", " + Optional(op.key_to) + ", " +
             from + ", " + to + ", &" + it + ")";
    case ReadKind::kFetchAll:
      return "store->FetchAll(" + from + ", " + to + ", &" + it + ")";
    case ReadKind::kBackwardFetchAll:
      return "store->BackwardFetchAll(" + from + ", " + to + ", &" + it + ")";
    case ReadKind::kAll:
      return "store->All(&" + it + ")";
    case ReadKind::kBackwardAll:
      return "store->BackwardAll(&" + it + ")";
  }
  return "";
}

std::string Iterator(int id) { return "it" + std::to_string(id); }

// EXPECTs for the store's counters and stream time that `expected` names (a metrics step's
// result, or a step's "after").
std::string MetricsChecks(const Json& expected, const std::string& at) {
  std::string out;
  static const std::pair<const char*, const char*> kFields[] = {
      {"stream_time", "store->stream_time()"},
      {"dropped_records", "store->metrics().dropped_records"},
      {"retained_records", "store->metrics().retained_records"},
      {"retained_segments", "store->metrics().retained_segments"}};
  for (const auto& [field, expr] : kFields) {
    if (expected.contains(field)) {
      out +=
          "  EXPECT_EQ(" + std::string(expr) + ", " + expected[field].dump() + ") << " + at + ";\n";
    }
  }
  return out;
}

// The statements of one step: the call, then an EXPECT per field its expectation names.
// `iterators`: the ids of every iterator the test declares.
Status StepCode(const kit::TraceStep<Vocabulary>& step, const std::string& at,
                const std::set<int>& iterators, std::string* out) {
  const Op& op = step.op;
  const Json expect = step.expect ? *step.expect : Json::object();
  const std::string where = "line " + std::to_string(step.line);
  std::string c = "  // " + where + ": " + OpToJson(op).dump() + "\n";
  auto status = [&](const std::string& var) {
    return expect.contains("status")
               ? "    EXPECT_EQ(Code(" + var + "), " +
                     Literal(expect["status"].get<std::string>()) + ") << " + at + ";\n"
               : std::string();
  };
  const std::string it = Iterator(op.iterator);
  // Kafka refuses a null key (NullPointerException "key cannot be null"); the C++ API takes a
  // string_view, which cannot be null: there is nothing to call.
  const OpType type = op.null_key ? OpType::kMetrics : op.type;
  if (op.null_key) c += "  // A null key: Kafka's API refuses it; this one cannot be given one.\n";
  switch (type) {
    case OpType::kPut:
      c += "  {\n    const statecheck::Status s = store->Put(" + Literal(op.key) + ", " +
           Optional(op.value) + ", " + std::to_string(op.time) + ");\n" + status("s") + "  }\n";
      break;
    case OpType::kFetch: {
      c += "  {\n    std::optional<std::string> value;\n    const statecheck::Status s = "
           "store->Fetch(" +
           Literal(op.key) + ", " + std::to_string(op.time) + ", &value);\n" + status("s");
      if (expect.contains("value")) {
        std::string v = "std::nullopt";
        if (!expect["value"].is_null()) {
          STATECHECK_RETURN_IF_ERROR(ExpectedLiteral(expect["value"], where + ": value", &v));
          v = "std::optional<std::string>(" + v + ")";
        }
        c += "    EXPECT_EQ(value, " + v + ") << " + at + ";\n";
      }
      c += "  }\n";
      break;
    }
    case OpType::kScan: {
      c += "  {\n    std::unique_ptr<statecheck::WindowStoreIterator> it;\n    const "
           "statecheck::Status s = " +
           OpenCall(op, "it") + ";\n" + status("s");
      if (expect.contains("records")) {
        std::string records;
        for (const Json& r : expect["records"]) {
          std::string rec;
          STATECHECK_RETURN_IF_ERROR(RecordExpr(r, where, &rec));
          records += "\n                                        " + rec + ",";
        }
        c += "    EXPECT_EQ(it ? Drain(*it) : std::vector<statecheck::WindowedRecord>{},\n"
             "              (std::vector<statecheck::WindowedRecord>{" +
             records + "}))\n        << " + at + ";\n";
      }
      c += "  }\n";
      break;
    }
    case OpType::kOpen:
      c += "  {\n    const statecheck::Status s = " + OpenCall(op, it) + ";\n" + status("s") +
           "  }\n";
      break;
    case OpType::kHasNext:
      c += "  {\n    const bool has_next = " + it + " && " + it + "->HasNext();\n";
      if (expect.contains("hasNext")) {
        c += "    EXPECT_EQ(has_next, " + expect["hasNext"].dump() + ") << " + at + ";\n";
      }
      c += "  }\n";
      break;
    case OpType::kNext: {
      c += "  {\n    statecheck::WindowedRecord r;\n    const statecheck::Status s =\n        " +
           it + " ? " + it + "->Next(&r) : statecheck::Status::OutOfRange(\"no iterator\");\n" +
           status("s");
      if (expect.contains("record")) {
        std::string rec;
        STATECHECK_RETURN_IF_ERROR(RecordExpr(expect["record"], where, &rec));
        c += "    EXPECT_EQ(r, (" + rec + ")) << " + at + ";\n";
      }
      c += "  }\n";
      break;
    }
    case OpType::kPeekNextKey: {
      c += "  {\n    statecheck::WindowedKey k;\n    const statecheck::Status s =\n        " + it +
           " ? " + it + "->PeekNextKey(&k) : statecheck::Status::OutOfRange(\"no iterator\");\n" +
           status("s");
      if (expect.contains("key")) {
        const Json& k = expect["key"];
        if (!k.is_array() || k.size() != 3) {
          return Status::InvalidArgument(where + ": a key is [key, start, end], not " + k.dump());
        }
        std::string key;
        STATECHECK_RETURN_IF_ERROR(ExpectedLiteral(k[0], where + ": the key", &key));
        c += "    EXPECT_EQ(k, (statecheck::WindowedKey{" + key + ", {" + k[1].dump() + ", " +
             k[2].dump() + "}})) << " + at + ";\n";
      }
      c += "  }\n";
      break;
    }
    case OpType::kCloseIterator:
      c += "  if (" + it + ") {\n    " + it + "->Close();\n    " + it + ".reset();\n  }\n";
      break;
    case OpType::kCloseStore:
      c += "  store->Close();\n";
      break;
    case OpType::kMetrics:
      if (!op.null_key) c += MetricsChecks(expect, at);
      break;
    case OpType::kRestore: {
      // Kafka's restore path: a new store, each changelog record put into it in order.
      c += "  store->Close();\n";
      for (const int id : iterators) c += "  " + Iterator(id) + ".reset();\n";
      c += "  {\n    statecheck::Status s = statecheck::NewInMemoryWindowStore(options, &store);\n";
      for (const ChangelogRecord& r : op.records) {
        c += "    if (s.ok()) s = store->Put(" + Literal(r.key) + ", " + Optional(r.value) + ", " +
             std::to_string(r.start) + ");\n";
      }
      c += status("s") + "  }\n";
      break;
    }
  }
  // The lines the step logged (taken every step, so that each step sees its own).
  if (expect.contains("logs")) {
    std::string lines;
    for (const Json& l : expect["logs"]) {
      if (!l.is_string()) return Status::InvalidArgument(where + ": a log line is not a string");
      lines += (lines.empty() ? "" : ", ") + Literal(l.get<std::string>());
    }
    c += "  EXPECT_EQ(logs->Take(), (std::vector<std::string>{" + lines + "})) << " + at + ";\n";
  } else {
    c += "  logs->Take();\n";
  }
  if (expect.contains("after")) c += MetricsChecks(expect["after"], at);
  *out += c;
  return Status::Ok();
}

constexpr const char* kPreamble = R"(#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "statecheck/in_memory_window_store.h"
#include "statecheck/logger.h"
#include "statecheck/status.h"
#include "statecheck/window_store.h"

namespace {

using namespace std::string_literals;

// The lines the store logs, as "[WARN] text", since the last Take() (a trace's "logs").
class Lines final : public statecheck::Logger {
 public:
  void Log(statecheck::LogLevel level, std::string_view message) override {
    std::string line = "[";
    line += statecheck::LogLevelName(level);
    line += "] ";
    line += message;
    lines_.push_back(std::move(line));
  }
  std::vector<std::string> Take() { return std::exchange(lines_, {}); }

 private:
  std::vector<std::string> lines_;
};

std::string Code(const statecheck::Status& s) { return std::string(statecheck::CodeName(s.code())); }

// The records left in `it`, in order (a read that fails ends them).
std::vector<statecheck::WindowedRecord> Drain(statecheck::WindowStoreIterator& it) {
  std::vector<statecheck::WindowedRecord> out;
  statecheck::WindowedRecord r;
  while (it.HasNext() && it.Next(&r).ok()) out.push_back(r);
  return out;
}

}  // namespace

)";

}  // namespace

Status EmitGTest(const kit::Trace<Vocabulary>& trace, const std::string& source,
                 std::string test_name, std::string* out) {
  STATECHECK_RETURN_IF_ERROR(kit::GTestName(source, &test_name));
  std::string body;
  const WindowStoreOptions& o = trace.config.options;
  body += "  auto logs = std::make_shared<Lines>();\n  statecheck::WindowStoreOptions options;\n";
  body += "  options.name = " + Literal(o.name) + ";\n";
  body += "  options.retention_ms = " + std::to_string(o.retention_ms) + ";\n";
  body += "  options.window_size_ms = " + std::to_string(o.window_size_ms) + ";\n";
  body += "  options.retain_duplicates = " + std::string(o.retain_duplicates ? "true" : "false") +
          ";\n  options.logger = logs;\n";
  body += "  std::unique_ptr<statecheck::WindowStore> store;\n";
  body +=
      "  const statecheck::Status built = statecheck::NewInMemoryWindowStore(options, &store);\n";
  const Json construction =
      trace.config.construction ? *trace.config.construction : Json{{"status", std::string("OK")}};
  const std::string status = construction.value("status", std::string("OK"));
  if (status != "OK") {
    body += "  EXPECT_EQ(Code(built), " + Literal(status) + ");\n";
    if (construction.contains("message")) {
      body += "  EXPECT_EQ(built.message(), " +
              Literal(construction["message"].get<std::string>()) + ");\n";
    }
    body += "  EXPECT_EQ(store, nullptr);\n";
  } else {
    body += "  ASSERT_EQ(Code(built), \"OK\") << built;\n";
    std::set<int> iterators;
    for (const kit::TraceStep<Vocabulary>& step : trace.steps) {
      if (step.op.type == OpType::kOpen) iterators.insert(step.op.iterator);
    }
    for (const int id : iterators) {
      body += "  std::unique_ptr<statecheck::WindowStoreIterator> " + Iterator(id) + ";\n";
    }
    for (const kit::TraceStep<Vocabulary>& step : trace.steps) {
      STATECHECK_RETURN_IF_ERROR(
          StepCode(step, Literal(source + ":" + std::to_string(step.line)), iterators, &body));
    }
  }
  std::string head = "// Generated by `statecheck replay " + source +
                     " --emit-gtest`:\n// the trace's steps on the engine through its public "
                     "API, each recorded expectation an EXPECT.\n";
  if (trace.info.contains("note") && trace.info["note"].is_string()) {
    // The note, its words wrapped into comment lines of at most 100 columns.
    std::string line = "//";
    std::istringstream words(trace.info["note"].get<std::string>());
    for (std::string word; words >> word;) {
      if (line.size() + 1 + word.size() > 100 && line != "//") {
        head += line + "\n";
        line = "//";
      }
      line += " " + word;
    }
    if (line != "//") head += line + "\n";
  }
  *out = head + kPreamble + "TEST(ReplayedTrace, " + test_name + ") {\n" + body + "}\n";
  return Status::Ok();
}

}  // namespace statecheck::properties::window_store
