#include "properties/kv_concurrency/history_file.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <utility>

#include "properties/key_value/ops.h"
#include "properties/kit/gtest.h"
#include "properties/kit/trace_header.h"

namespace statecheck::properties::kv_concurrency {
namespace {

constexpr std::string_view kKind = "kv_concurrency";
constexpr const char* kEventNames[] = {"put", "delete", "commit", "rollback", "get", "range"};

Json EventJson(const Event& ev) {
  Json j{{"thread", ev.thread},
         {"event", kEventNames[static_cast<int>(ev.kind)]},
         {"invoke", ev.invoke},
         {"response", ev.response},
         {"status", std::string(CodeName(ev.status.code()))}};
  if (!ev.status.ok()) j["message"] = ev.status.message();
  switch (ev.kind) {
    case EventKind::kPut:
      j["epoch"] = ev.epoch;
      j["key"] = EscapeBytes(ev.key);
      j["value"] = BytesJson(ev.value);
      j["position"] = key_value::PositionJson(ev.position);
      break;
    case EventKind::kDelete:
      j["epoch"] = ev.epoch;
      j["key"] = EscapeBytes(ev.key);
      j["position"] = key_value::PositionJson(ev.position);
      break;
    case EventKind::kCommit:
      j["epoch"] = ev.epoch;
      j["position"] = key_value::PositionJson(ev.position);
      break;
    case EventKind::kRollback:
      j["epoch"] = ev.epoch;
      break;
    case EventKind::kGet:
      j["key"] = EscapeBytes(ev.key);
      j["value"] = BytesJson(ev.value);
      j["position"] = key_value::PositionJson(ev.position);
      break;
    case EventKind::kRange: {
      j["from"] = BytesJson(ev.from);
      j["to"] = BytesJson(ev.to);
      j["reverse"] = ev.reverse;
      Json records = Json::array();
      for (const KeyValue& kv : ev.records) {
        records.push_back(Json::array({EscapeBytes(kv.key), EscapeBytes(kv.value)}));
      }
      j["records"] = std::move(records);
      j["position"] = key_value::PositionJson(ev.position);
      break;
    }
  }
  return j;
}

// The reader of one event line's fields, each error naming the field (kit/json_lines.h).
class Fields {
 public:
  explicit Fields(const Json& j) : j_(j) {}

  Status Int(const char* name, int64_t* out) const {
    const Json* f = nullptr;
    STATECHECK_RETURN_IF_ERROR(FieldOf(j_, name, &f));
    return ReadInt64(*f, std::string("\"") + name + "\"", out);
  }
  Status Bytes(const char* name, std::optional<std::string>* out) const {
    const Json* f = nullptr;
    STATECHECK_RETURN_IF_ERROR(FieldOf(j_, name, &f));
    return ReadNullableBytes(*f, std::string("\"") + name + "\"", out);
  }
  Status Key(std::string* out) const {
    const Json* f = nullptr;
    STATECHECK_RETURN_IF_ERROR(FieldOf(j_, "key", &f));
    return ReadBytes(*f, "\"key\"", out);
  }
  Status Position(statecheck::Position* out) const {
    auto it = j_.find("position");
    if (it == j_.end() || !it->is_object()) {
      return Status::InvalidArgument("\"position\" must be an object: partition -> offset");
    }
    statecheck::Position p;
    for (const auto& [partition, offset] : it->items()) {
      STATECHECK_RETURN_IF_ERROR(
          ReadInt64(offset, "\"position\": \"" + partition + "\"", &p[partition]));
    }
    *out = std::move(p);
    return Status::Ok();
  }

 private:
  const Json& j_;
};

Status ParseEvent(const Json& j, int readers, Event* out) {
  if (!j.is_object()) return Status::InvalidArgument("each event must be a JSON object");
  const Fields f(j);
  Event ev;
  int64_t thread = 0;
  STATECHECK_RETURN_IF_ERROR(f.Int("thread", &thread));
  if (thread < 0 || thread > readers) {
    return Status::InvalidArgument("\"thread\" is 0 (the writer) or a reader from 1 to " +
                                   std::to_string(readers) + ", not " + std::to_string(thread));
  }
  ev.thread = static_cast<int>(thread);
  auto name = j.find("event");
  const auto* found =
      name != j.end() && name->is_string()
          ? std::find(std::begin(kEventNames), std::end(kEventNames), name->get<std::string>())
          : std::end(kEventNames);
  if (found == std::end(kEventNames)) {
    return Status::InvalidArgument(
        "\"event\" is one of put, delete, commit, rollback (the writer's), get, range (a "
        "reader's)");
  }
  ev.kind = static_cast<EventKind>(found - std::begin(kEventNames));
  if (IsWriterEvent(ev.kind) != (ev.thread == 0)) {
    return Status::InvalidArgument(
        std::string("a ") + *found + " is " +
        (IsWriterEvent(ev.kind) ? "the writer's (thread 0)" : "a reader's (thread 1 or more)"));
  }
  STATECHECK_RETURN_IF_ERROR(f.Int("invoke", &ev.invoke));
  STATECHECK_RETURN_IF_ERROR(f.Int("response", &ev.response));
  if (ev.response < ev.invoke) {
    return Status::InvalidArgument("\"response\" comes before \"invoke\"");
  }
  auto status = j.find("status");
  Status::Code code = Status::Code::kOk;
  if (status == j.end() || !status->is_string() ||
      !CodeFromName(status->get<std::string>(), &code)) {
    return Status::InvalidArgument("\"status\" must name a status code (OK, IOError, ...)");
  }
  std::string message;
  if (auto m = j.find("message"); m != j.end()) {
    if (!m->is_string() || code == Status::Code::kOk) {
      return Status::InvalidArgument("\"message\" is a string, beside a status other than OK");
    }
    message = m->get<std::string>();
  }
  ev.status = Status::FromCode(code, message);
  switch (ev.kind) {
    case EventKind::kPut:
    case EventKind::kDelete:
    case EventKind::kCommit:
    case EventKind::kRollback:
      STATECHECK_RETURN_IF_ERROR(f.Int("epoch", &ev.epoch));
      break;
    default:
      break;
  }
  if (ev.kind == EventKind::kPut || ev.kind == EventKind::kDelete || ev.kind == EventKind::kGet) {
    STATECHECK_RETURN_IF_ERROR(f.Key(&ev.key));
  }
  if (ev.kind == EventKind::kPut || ev.kind == EventKind::kGet) {
    STATECHECK_RETURN_IF_ERROR(f.Bytes("value", &ev.value));
  }
  if (ev.kind == EventKind::kRange) {
    STATECHECK_RETURN_IF_ERROR(f.Bytes("from", &ev.from));
    STATECHECK_RETURN_IF_ERROR(f.Bytes("to", &ev.to));
    auto reverse = j.find("reverse");
    if (reverse == j.end() || !reverse->is_boolean()) {
      return Status::InvalidArgument("\"reverse\" must be true or false");
    }
    ev.reverse = reverse->get<bool>();
    auto records = j.find("records");
    if (records == j.end() || !records->is_array()) {
      return Status::InvalidArgument("\"records\" must be an array of [key, value]");
    }
    for (const Json& r : *records) {
      std::string key, value;
      if (!r.is_array() || r.size() != 2 || !r[0].is_string() || !r[1].is_string() ||
          !UnescapeBytes(r[0].get<std::string>(), &key).ok() ||
          !UnescapeBytes(r[1].get<std::string>(), &value).ok()) {
        return Status::InvalidArgument("each of \"records\" must be [key, value], escaped bytes");
      }
      ev.records.push_back({std::move(key), std::move(value)});
    }
  }
  if (ev.kind != EventKind::kRollback) STATECHECK_RETURN_IF_ERROR(f.Position(&ev.position));
  std::vector<std::string> keys = KeysOf(EventJson(ev));
  keys.push_back("message");
  STATECHECK_RETURN_IF_ERROR(CheckKeys(j, keys, std::string("a ") + *found + " event"));
  *out = std::move(ev);
  return Status::Ok();
}

// `message` with each event it names ("#12 ...", DescribeKvEvent) followed by its line.
std::string WithLines(const std::string& message, const std::vector<int>& lines) {
  std::string out;
  for (size_t i = 0; i < message.size(); ++i) {
    out += message[i];
    if (message[i] != '#' || i + 1 >= message.size() ||
        std::isdigit(static_cast<unsigned char>(message[i + 1])) == 0) {
      continue;
    }
    size_t end = i + 1;
    while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])) != 0) {
      ++end;
    }
    const size_t index = std::stoul(message.substr(i + 1, end - i - 1));
    out += message.substr(i + 1, end - i - 1);
    if (index < lines.size()) out += " (line " + std::to_string(lines[index]) + ")";
    i = end - 1;
  }
  return out;
}

// The index of the first event `message` names ("#12 ..."), if it names one below `events`.
std::optional<size_t> FirstEventNamed(const std::string& message) {
  for (size_t i = 0; i + 1 < message.size(); ++i) {
    if (message[i] == '#' && std::isdigit(static_cast<unsigned char>(message[i + 1])) != 0) {
      return std::stoul(message.substr(i + 1));
    }
  }
  return std::nullopt;
}

}  // namespace

std::string FormatHistory(const History& history, const Json& info) {
  kit::TraceHeader header;
  header.kind = std::string(kKind);
  header.config = Json{{"isolation", std::string(IsolationLevelName(history.isolation))},
                       {"readers", history.readers},
                       {"seed", history.seed}};
  header.info = info;
  std::string out = kit::TraceHeaderJson(header).dump() + "\n";
  for (const Event& ev : history.events) out += EventJson(ev).dump() + "\n";
  return out;
}

Status ParseHistory(std::string_view text, const std::string& source, HistoryFile* out) {
  HistoryFile file;
  bool have_header = false;
  STATECHECK_RETURN_IF_ERROR(ForEachJsonLine(text, [&](int line, Json j) -> Status {
    if (!have_header) {
      kit::TraceHeader h;
      STATECHECK_RETURN_IF_ERROR(kit::ParseTraceHeader(line, j, kKind, false, {"expect"}, &h));
      const Json& c = h.config;
      Status s = c.is_object() ? CheckKeys(c, {"isolation", "readers", "seed"}, "config")
                               : Status::InvalidArgument("config must be an object");
      if (s.ok()) {
        const Json isolation = c.value("isolation", Json());
        if (isolation == "READ_COMMITTED") {
          file.history.isolation = IsolationLevel::kReadCommitted;
        } else if (isolation == "READ_UNCOMMITTED") {
          file.history.isolation = IsolationLevel::kReadUncommitted;
        } else {
          s = Status::InvalidArgument(
              "config: \"isolation\" must be READ_COMMITTED or READ_UNCOMMITTED");
        }
      }
      if (s.ok() && (!c.contains("readers") || !c["readers"].is_number_integer() ||
                     c["readers"].get<int64_t>() < 1 || c["readers"].get<int64_t>() > 1000)) {
        s = Status::InvalidArgument("config: \"readers\" must be a number from 1 to 1000");
      }
      if (s.ok() && c.contains("seed") && !c["seed"].is_number_unsigned()) {
        s = Status::InvalidArgument("config: \"seed\" must be a number of 0 or more");
      }
      if (s.ok() && h.extra.contains("expect")) {
        const Json& e = h.extra["expect"];
        if (!e.is_object() || !e.contains("rule") || !e["rule"].is_string() ||
            e["rule"].get<std::string>().empty() || !CheckKeys(e, {"rule"}, "expect").ok()) {
          s = Status::InvalidArgument(
              "\"expect\" must be {\"rule\": \"T4\"}: the rule of the violation the checker must "
              "find");
        } else {
          file.expect_rule = e["rule"].get<std::string>();
        }
      }
      if (!s.ok()) return LineError(line, s.message());
      file.history.readers = static_cast<int>(c["readers"].get<int64_t>());
      if (c.contains("seed")) file.history.seed = c["seed"].get<uint64_t>();
      file.info = std::move(h.info);
      have_header = true;
      return Status::Ok();
    }
    Event ev;
    if (Status s = ParseEvent(j, file.history.readers, &ev); !s.ok()) {
      return LineError(line, s.message());
    }
    if (!file.history.events.empty() && ev.invoke < file.history.events.back().invoke) {
      return LineError(line, "events are in invocation order: this one is invoked at " +
                                 std::to_string(ev.invoke) + ", before the line above (" +
                                 std::to_string(file.history.events.back().invoke) + ")");
    }
    file.history.events.push_back(std::move(ev));
    file.lines.push_back(line);
    return Status::Ok();
  }));
  if (!have_header) return Status::InvalidArgument(source + " is empty");
  if (file.history.events.empty()) {
    return Status::InvalidArgument(source + " has no events: a history that checks nothing");
  }
  *out = std::move(file);
  return Status::Ok();
}

TraceKindSpec HistoryKind() {
  auto replay = [](std::string_view text, const std::string& path, ReplayTarget target,
                   TraceReplay* out) -> Status {
    if (target != ReplayTarget::kBoth) {
      return Status::InvalidArgument(
          "a kv_concurrency history is judged again by the checker; it runs no store: drop "
          "--against");
    }
    HistoryFile file;
    STATECHECK_RETURN_IF_ERROR(ParseHistory(text, path, &file));
    const History& h = file.history;
    out->steps = static_cast<int>(h.events.size());
    out->description =
        std::to_string(h.events.size()) + " events of one writer and " + std::to_string(h.readers) +
        " readers under " + std::string(IsolationLevelName(h.isolation)) + ", judged again" +
        (file.expect_rule.empty() ? "" : " (it must break " + file.expect_rule + ")");
    if (file.info.contains("failure") && file.info["failure"].is_string()) {
      out->recorded_failure = file.info["failure"].get<std::string>();
    }
    HistoryVerdict verdict = JudgeKvHistory(h, h.isolation);
    // The checker's advice on re-running a workload does not apply to a history read from a file.
    if (const size_t cut = verdict.report.find("\nreproduce: "); cut != std::string::npos) {
      verdict.report.resize(cut);
    }
    if (verdict.status.code() == Status::Code::kInvalidArgument) {
      return Status::InvalidArgument(path + ": the checker cannot judge this history: " +
                                     WithLines(verdict.status.message(), file.lines));
    }
    const std::string found = verdict.finding ? verdict.finding->rule : "";
    if (found == file.expect_rule) {
      out->steps_run = out->steps;
      out->verdict = found.empty() ? "OK: the checker finds every read explained\n"
                                   : "OK: the checker finds the " + found +
                                         " violation the history expects\n" +
                                         WithLines(verdict.report, file.lines) + "\n";
      return Status::Ok();
    }
    out->diverged = true;
    out->step = 0;  // The header's expectation, or the first violating event below.
    out->line = 1;
    out->op = "judge";
    if (verdict.finding) {
      out->rule = verdict.finding->rule;
      out->message = WithLines(verdict.finding->ToString(), file.lines);
      const std::optional<size_t> event = FirstEventNamed(verdict.finding->message);
      if (event && *event < file.lines.size()) {
        out->step = static_cast<int>(*event) + 1;
        out->line = file.lines[*event];
        out->op = DescribeKvEvent(h, *event);
      }
    } else {
      out->rule = file.expect_rule;
      out->message = file.expect_rule + ": the history expects a " + file.expect_rule +
                     " violation; the checker found every read explained";
    }
    out->verdict = "DIVERGED at step " + std::to_string(out->step) + " (line " +
                   std::to_string(out->line) + ")\n  event: " + out->op + "\n  " + out->message +
                   "\n" + WithLines(verdict.report, file.lines) + "\n";
    return Status::Ok();
  };
  // As a test: the history held in it, re-judged through the registry.
  auto emit_gtest = [](std::string_view text, const std::string& source, std::string test_name,
                       std::string* out) {
    HistoryFile file;  // Bad input is said here, not by the test.
    STATECHECK_RETURN_IF_ERROR(ParseHistory(text, source, &file));
    return kit::EmitReplayGTest(text, std::string(kKind), source, std::move(test_name), out);
  };
  return TraceKindSpec{std::string(kKind), "kv_concurrency", std::move(replay),
                       std::move(emit_gtest)};
}

}  // namespace statecheck::properties::kv_concurrency
