#include "properties/crash/crash_runner.h"

#include <fcntl.h>
#include <fiu-control.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "faults/fail_points.h"
#include "faults/fault_fs.h"
#include "model/state_config_model.h"
#include "model/task_model.h"
#include "properties/generators.h"
#include "properties/harness_rocksdb.h"
#include "properties/store_state.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/log.h"
#include "statecheck/task.h"

namespace statecheck::properties {
namespace {

namespace fs = std::filesystem;

constexpr char kInput[] = "input";
constexpr char kOutput[] = "output";

using Record = std::pair<std::string, std::optional<std::string>>;

// Cycle `cycle`'s input records.
std::vector<Record> CycleInput(const CrashRunOptions& o, int cycle) {
  std::mt19937_64 rng(Mix(o.seed ^ Mix(2 * static_cast<uint64_t>(cycle) + 1)));
  std::vector<Record> out;
  for (int i = 0; i < o.records_per_cycle; ++i) {
    // Appended, not "k" + std::to_string(...): that trips gcc 12's -Wrestrict at -O3 (a false
    // positive, GCC bug 105329).
    std::string key = "k";
    key += std::to_string(rng() % o.keys);
    std::optional<std::string> value;
    if (rng() % 8 != 0) value = "v" + std::to_string(rng() % 1000);
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

// What cycle `cycle` does beyond appending its input, from the seed.
struct CyclePlan {
  int64_t commit_interval_records = 0;
  int64_t kill_at = 0;  // The processor-operation tick it dies at; 0 = none.
  // Or: the fail point it dies at (an engine step, or any fsync of the file system), the
  // kill_at-th time the point is reached.
  std::string kill_point;
  bool clean_close = false;
};

CyclePlan Plan(const CrashRunOptions& o, int cycle) {
  std::mt19937_64 rng(Mix(o.seed ^ Mix(2 * static_cast<uint64_t>(cycle) + 2)));
  CyclePlan p;
  const int64_t intervals[] = {1, 3, 10, 50};
  p.commit_interval_records = intervals[rng() % 4];
  // Each record makes 4 processor operations, each ticked before and after: 8 ticks. On
  // average a cycle then processes about as many records as it appends; one cycle in 8 has no
  // kill point and works through the whole backlog.
  p.kill_at = rng() % 8 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % (8 * o.records_per_cycle * 2));
  p.clean_close = rng() % 2 == 0;
  // Half of the kills land on a fail point instead: inside a commit or a restore, or at an
  // fsync — places a processor step never reaches.
  const uint64_t where = rng() % 4;
  if (p.kill_at != 0 && where == 0) {
    const auto& points = EngineFailPoints();
    p.kill_point = std::string(points[rng() % points.size()].name);
    p.kill_at = 1 + static_cast<int64_t>(rng() % 3);
  } else if (p.kill_at != 0 && where == 1) {
    p.kill_point = "statecheck/fs/sync/*";
    p.kill_at = 1 + static_cast<int64_t>(rng() % 40);
  }
  return p;
}

// Dies by SIGKILL at the `kill_at`-th tick.
class KillSwitch {
 public:
  explicit KillSwitch(int64_t kill_at) : remaining_(kill_at) {}
  void Tick() {
    if (remaining_ > 0 && --remaining_ == 0) ::raise(SIGKILL);
  }

 private:
  int64_t remaining_;
};

class KillingContext final : public ProcessorContext {
 public:
  KillingContext(ProcessorContext* inner, KillSwitch* kill) : inner_(inner), kill_(kill) {}
  Status Get(std::string_view store, std::string_view key,
             std::optional<std::string>* value) override {
    kill_->Tick();
    Status s = inner_->Get(store, key, value);
    kill_->Tick();
    return s;
  }
  Status Put(std::string_view store, std::string_view key,
             std::optional<std::string_view> value) override {
    kill_->Tick();
    Status s = inner_->Put(store, key, value);
    kill_->Tick();
    return s;
  }
  Status Range(std::string_view store, std::optional<std::string_view> from,
               std::optional<std::string_view> to, std::unique_ptr<KeyValueIterator>* it) override {
    kill_->Tick();
    Status s = inner_->Range(store, from, to, it);
    kill_->Tick();
    return s;
  }
  Status Forward(std::string_view key, std::optional<std::string_view> value,
                 int64_t timestamp) override {
    kill_->Tick();
    Status s = inner_->Forward(key, value, timestamp);
    kill_->Tick();
    return s;
  }
  int64_t RecordTimestamp() const override { return inner_->RecordTimestamp(); }
  int64_t WallClockMs() const override { return inner_->WallClockMs(); }

 private:
  ProcessorContext* inner_;
  KillSwitch* kill_;
};

class KillingProcessor final : public Processor {
 public:
  KillingProcessor(std::unique_ptr<Processor> inner, KillSwitch* kill)
      : inner_(std::move(inner)), kill_(kill) {}
  std::vector<std::string> StoreNames() const override { return inner_->StoreNames(); }
  Status Process(const LogRecord& record, ProcessorContext* context) override {
    KillingContext k(context, kill_);
    return inner_->Process(record, &k);
  }
  std::string CommitMetadata() const override { return inner_->CommitMetadata(); }
  Status Init(std::string_view metadata) override { return inner_->Init(metadata); }

 private:
  std::unique_ptr<Processor> inner_;
  KillSwitch* kill_;
};

std::string StripCount(const std::optional<std::string>& v) {
  if (!v) return "<null>";
  return v->substr(0, v->rfind('#'));
}

std::string Show(const model::StoreState& s) {
  std::ostringstream out;
  out << "{";
  bool first = true;
  for (const auto& [k, v] : s) {
    out << (first ? "" : ", ") << k << "=" << v;
    first = false;
  }
  return out.str() + "}";
}

// The recovering child's checks (see the header); held, or the finding of the rule the check
// enforces. A read that fails sets `*read_error` (the engine's error, not a failed check).
model::CheckResult Verify(const CrashRunOptions& o, const StateConfig& config, Log* log, Task* task,
                          const std::vector<Record>& input, int64_t previous_committed,
                          int64_t* committed, Status* read_error) {
  CommittedOffsets offsets;
  Status s = log->GetCommittedOffsets(task->OffsetsGroup(), &offsets);
  if (!s.ok() && s.code() != Status::Code::kNotFound) {
    *read_error = s;
    return model::Finding("F2", "reading committed offsets: " + s.ToString());
  }
  *committed = offsets.offsets.count(kInput) ? offsets.offsets[kInput] : 0;
  // Checks: C1 — across kills the committed input offset never goes back
  if (*committed < previous_committed) {
    return model::Finding("C1", "the committed input offset went back from " +
                                    std::to_string(previous_committed) + " to " +
                                    std::to_string(*committed));
  }
  if (*committed != task->next_input_offset()) {
    return model::Finding("C1", "the task resumes at " + std::to_string(task->next_input_offset()) +
                                    ", the committed input offset is " +
                                    std::to_string(*committed));
  }
  if (*committed > static_cast<int64_t>(input.size())) {
    return model::Finding("C1", "committed input offset " + std::to_string(*committed) +
                                    " is past the input (" + std::to_string(input.size()) +
                                    " records)");
  }
  // The exactly-once truth: input[0, c) processed once.
  model::TaskModelConfig mc;
  mc.guarantee = ProcessingGuarantee::kExactlyOnceV2;
  mc.isolation = IsolationLevel::kReadCommitted;
  mc.commit_interval_ms = int64_t{1} << 60;
  model::TaskModel truth(mc, 0);
  for (const Record& r : input) truth.AppendInput(r.first, r.second);
  truth.Process(*committed, 0);
  truth.Commit(0);

  model::StoreState kv, counts;
  s = ReadStoreState(*task->Store("kv"), &kv);
  if (s.ok()) s = ReadStoreState(*task->Store("counts"), &counts);
  if (!s.ok()) {
    *read_error = s;
    return model::Finding("F2", "reading the stores: " + s.ToString());
  }
  std::vector<LogRecord> out;
  s = log->Read(kOutput, 0, 1 << 30, IsolationLevel::kReadCommitted, &out);
  if (!s.ok()) {
    *read_error = s;
    return model::Finding("F2", "reading the output: " + s.ToString());
  }

  // Checks: C3 — after kills the stores and output are input[0, c) processed once
  if (config.guarantee == ProcessingGuarantee::kExactlyOnceV2) {
    if (kv != truth.Current("kv")) {
      return model::Finding("C3", "store kv is " + Show(kv) + ", processing input[0, " +
                                      std::to_string(*committed) + ") once gives " +
                                      Show(truth.Current("kv")));
    }
    if (counts != truth.Current("counts")) {
      return model::Finding("C3", "store counts is " + Show(counts) + ", processing input[0, " +
                                      std::to_string(*committed) + ") once gives " +
                                      Show(truth.Current("counts")));
    }
    const auto& expected = truth.committed_output();
    bool same = out.size() == expected.size();
    for (size_t i = 0; same && i < out.size(); ++i) {
      same = out[i].key == expected[i].key && out[i].value == expected[i].value;
    }
    if (!same) {
      return model::Finding("C3", "the committed output has " + std::to_string(out.size()) +
                                      " records, not the " + std::to_string(expected.size()) +
                                      " of processing input[0, " + std::to_string(*committed) +
                                      ") once");
    }
    return std::nullopt;
  }
  // at_least_once (C4). Per key, store kv holds the effect of its last record before c or of
  // a later one: re-processing after a crash may have applied later records (and re-applied
  // some) but never loses a committed one.
  std::map<std::string, int64_t> last_before;  // Key → index of its last record in [0, c).
  for (int64_t i = 0; i < *committed; ++i) last_before[input[i].first] = i;
  std::set<std::string> keys;
  for (const Record& r : input) keys.insert(r.first);
  for (const auto& [key, value] : kv) keys.insert(key);
  for (const std::string& key : keys) {
    auto it = kv.find(key);
    const std::optional<std::string> held =
        it == kv.end() ? std::nullopt : std::optional<std::string>(it->second);
    auto lb = last_before.find(key);
    bool allowed = lb == last_before.end() && !held;
    for (int64_t i = lb == last_before.end() ? *committed : lb->second;
         !allowed && i < static_cast<int64_t>(input.size()); ++i) {
      allowed = input[i].first == key && input[i].second == held &&
                (i >= *committed || (lb != last_before.end() && i == lb->second));
    }
    // Checks: C4 — kv holds the effect of a key's last record before c or a later one
    if (!allowed) {
      return model::Finding("C4", "store kv holds " + key + "=" + held.value_or("<none>") +
                                      ", the effect of no record of " + key +
                                      " from its last one before input offset " +
                                      std::to_string(*committed) + " on");
    }
  }
  for (const auto& [key, n] : truth.Current("counts")) {
    auto it = counts.find(key);
    if (it == counts.end() || std::stoll(it->second) < std::stoll(n)) {
      return model::Finding("C4", "store counts has " + key + "=" +
                                      (it == counts.end() ? "none" : it->second) +
                                      ", fewer than the " + n + " records of input[0, " +
                                      std::to_string(*committed) + ")");
    }
  }
  size_t matched = 0;
  const auto& expected = truth.committed_output();
  for (size_t i = 0; i < out.size() && matched < expected.size(); ++i) {
    if (out[i].key == expected[matched].key &&
        StripCount(out[i].value) == StripCount(expected[matched].value)) {
      ++matched;
    }
  }
  if (matched != expected.size()) {
    return model::Finding("C4", "the committed output lacks record " + std::to_string(matched) +
                                    " (" + expected[matched].key + "=" +
                                    StripCount(expected[matched].value) +
                                    ") of processing input[0, " + std::to_string(*committed) + ")");
  }
  return std::nullopt;
}

// The verdict file of a child that did not verify: the finding, "<rule>: <message>"; read back
// by FindingOfVerdict.
model::Finding FindingOfVerdict(const std::string& verdict) {
  const size_t colon = verdict.find(": ");
  const std::string rule = verdict.substr(0, colon);
  const bool is_rule = colon != std::string::npos && rule.size() >= 2 && rule.size() <= 3 &&
                       std::isupper(static_cast<unsigned char>(rule[0])) &&
                       std::all_of(rule.begin() + 1, rule.end(), [](char c) {
                         return std::isdigit(static_cast<unsigned char>(c));
                       });
  if (is_rule) return model::Finding(rule, verdict.substr(colon + 2));
  return model::Finding("F2", verdict);
}

// The verdict file is the harness's own I/O, not the engine's: under fiu-run's random
// system-call failures (ci/fiu-smoke.sh) its reads and writes fail like any other, and a verdict
// lost that way would read as a child that died before verifying (F2). So each call is retried
// until it goes through (at most kIoAttempts times; at the smoke test's probability of 0.0005 a
// second attempt all but always does).
constexpr int kIoAttempts = 1000;

void WriteVerdict(const std::string& path, const std::string& text) {
  int fd = -1;
  for (int i = 0; fd < 0 && i < kIoAttempts; ++i) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (fd < 0) return;  // The parent reads no verdict and says so.
  size_t done = 0;
  for (int failures = 0; done < text.size() && failures < kIoAttempts;) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else {
      ++failures;
    }
  }
  ::close(fd);
}

// The verdict file's text; "" if there is none.
std::string ReadVerdict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buffer[4096];
  for (int failures = 0; failures < kIoAttempts;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else {
      ++failures;
    }
  }
  ::close(fd);
  return text;
}

// The file-system fail points that --io-errors fails at random.
constexpr const char* kRandomErrorFamilies[] = {"statecheck/fs/read/*", "statecheck/fs/append/*",
                                                "statecheck/fs/sync/*", "statecheck/fs/truncate/*"};

// How a child ends besides 0 (verified, and finished without a kill); its message is in the
// verdict file.
constexpr int kExitCheckFailed = 3;
constexpr int kExitEngineError = 4;    // An engine call failed...
constexpr int kExitEngineIOError = 5;  // ... with an I/O error.

// The child: one cycle. Never returns.
[[noreturn]] void RunChild(const CrashRunOptions& o, const StateConfig& config, int cycle,
                           bool final_check, int64_t previous_committed,
                           const std::string& verdict_path) {
  auto finish = [&](int code, const std::string& message) {
    WriteVerdict(verdict_path, message);
    ::_exit(code);
  };
  auto engine_exit = [](const Status& s) {
    return s.code() == Status::Code::kIOError ? kExitEngineIOError : kExitEngineError;
  };
  // An engine call that fails: the child cannot recover from the kill (F2).
  auto engine_failed = [&](const std::string& what, const Status& s) {
    finish(engine_exit(s), model::Finding("F2", what + ": " + s.ToString()).ToString());
  };
  // The final check reads the result without injected system-call failures (fiu-run -x).
  if (final_check && o.tolerate_io_errors) fiu_disable("posix/io/rw/*");
  // The real disk, through the fault file system: its fail points mark every fsync.
  faults::FaultEnv env = faults::NewFaultEnv(faults::BaseFileSystem::kDisk);
  env.fs->RegisterLogDirectory(o.directory + "/log");
  if (o.io_error_probability > 0 && !final_check) {
    faults::FaultSpec random{faults::FaultSpec::Mode::kProbability, 1, o.io_error_probability};
    uint64_t family_seed = Mix(o.seed ^ Mix(2 * static_cast<uint64_t>(cycle) + 2));
    for (const char* family : kRandomErrorFamilies) {
      const Status enabled = faults::FailPoints::Enable(family, random, family_seed++);
      if (!enabled.ok())
        finish(kExitEngineError, "enabling " + std::string(family) + ": " + enabled.ToString());
    }
  }
  const CyclePlan plan = Plan(o, cycle);
  // A kill point is armed once the cycle has recovered and checked — but a restore's before
  // the task opens (that cycle then dies without a verdict).
  auto arm = [&] {
    if (final_check || plan.kill_point.empty()) return;
    const Status armed = faults::FailPoints::Enable(
        plan.kill_point,
        {faults::FaultSpec::Mode::kOnce, static_cast<uint64_t>(plan.kill_at), 0, /*kill=*/true}, 0);
    if (!armed.ok()) engine_failed("arming " + plan.kill_point, armed);
  };
  LogOptions lo;
  lo.directory = o.directory + "/log";
  lo.env = env.env.get();
  lo.logger = NullLogger();
  lo.segment_bytes = o.log_segment_bytes;
  std::unique_ptr<Log> log;
  Status s = OpenLog(lo, &log);
  if (!s.ok()) engine_failed("opening the log", s);
  std::vector<Record> input;
  const int appended_cycles = final_check ? cycle : cycle + 1;
  for (int c = 0; c < appended_cycles; ++c) {
    for (Record& r : CycleInput(o, c)) input.push_back(std::move(r));
  }
  if (!final_check) {
    int64_t end = 0;
    s = log->EndOffset(kInput, &end);
    // A cycle may have died after appending: append only what is missing.
    for (int64_t i = end; s.ok() && i < static_cast<int64_t>(input.size()); ++i) {
      int64_t offset = 0;
      const auto& [k, v] = input[i];
      s = log->Append(kInput, k, v ? std::optional<std::string_view>(*v) : std::nullopt, &offset);
    }
    if (s.ok()) s = log->Sync();
    if (!s.ok()) engine_failed("appending input", s);
  }
  KillSwitch kill(final_check || !plan.kill_point.empty() ? 0 : plan.kill_at);  // 0: never.
  TaskOptions to;
  to.application_id = "crash";
  to.input_partition = kInput;
  to.output_partition = kOutput;
  to.state_directory = o.directory + "/state";
  to.log = log.get();
  to.config = config;
  to.commit_interval_records = plan.commit_interval_records;
  to.changelog_compaction_min_bytes = o.changelog_compaction ? 0 : -1;
  to.changelog_compaction_min_dirty_ratio = 0;
  to.clock = std::make_shared<ManualClock>();
  to.env = env.env.get();
  to.logger = NullLogger();
  to.store_config_setter = HarnessRocksDBConfig();
  std::unique_ptr<Task> task;
  if (plan.kill_point == kFailTaskRestoreBatch) arm();
  s = OpenTask(to,
               std::make_unique<KillingProcessor>(
                   o.processor ? o.processor() : NewKeyValueProcessor(), &kill),
               &task);
  if (!s.ok()) engine_failed("opening the task", s);
  int64_t committed = 0;
  Status read_error;
  const model::CheckResult why =
      Verify(o, config, log.get(), task.get(), input, previous_committed, &committed, &read_error);
  if (!read_error.ok()) finish(engine_exit(read_error), why->ToString());
  if (why) finish(kExitCheckFailed, why->ToString());
  WriteVerdict(verdict_path, "verified " + std::to_string(committed));
  if (final_check) {
    task->Abandon();
    ::_exit(0);
  }
  if (plan.kill_point != kFailTaskRestoreBatch) arm();
  for (int64_t n = 1; n > 0;) {
    s = task->Process(o.records_per_cycle, &n);
    if (!s.ok()) engine_failed("processing", s);
  }
  if (plan.clean_close) {
    s = task->Close();
    if (!s.ok()) engine_failed("closing", s);
  }
  ::_exit(0);  // Without a clean close: destructors and flushes never run.
}

}  // namespace

Status RunCrashCycles(const CrashRunOptions& o,
                      const std::function<void(const CrashCycleReport&)>& progress,
                      CrashRunResult* result) {
  *result = CrashRunResult();
  if (o.cycles < 1) return Status::InvalidArgument("cycles must be at least 1");
  if (o.records_per_cycle < 1 || o.keys < 1) {
    return Status::InvalidArgument("records per cycle and keys must be at least 1");
  }
  if (o.directory.empty()) return Status::InvalidArgument("the crash runner needs a directory");
  std::error_code ec;
  if (fs::exists(o.directory, ec) && !fs::is_empty(o.directory, ec)) {
    return Status::InvalidArgument("crash directory " + o.directory +
                                   " is not empty: give a new or empty directory");
  }
  fs::create_directories(o.directory, ec);
  if (ec) return Status::IOError("cannot create " + o.directory + ": " + ec.message());
  StateConfig config;
  STATECHECK_RETURN_IF_ERROR(ResolveStateConfig(o.streams_config, &config));
  const std::string verdict_path = o.directory + "/verdict";
  const auto start = std::chrono::steady_clock::now();
  int64_t committed = 0;
  // With `keep`, the final check runs on a copy, so the directories stay as the last cycle
  // left them (for statecheck inspect).
  CrashRunOptions final_options = o;
  if (o.keep) final_options.directory = o.directory + ".final-check";
  for (int cycle = 0; cycle <= o.cycles; ++cycle) {
    const bool final_check = cycle == o.cycles;
    if (final_check && o.keep) {
      fs::remove_all(final_options.directory, ec);
      fs::create_directories(final_options.directory, ec);
      for (const char* sub : {"log", "state"}) {
        if (fs::exists(o.directory + "/" + sub)) {
          fs::copy(o.directory + "/" + sub, final_options.directory + "/" + sub,
                   fs::copy_options::recursive, ec);
        }
        if (ec) return Status::IOError("copying " + o.directory + ": " + ec.message());
      }
    }
    fs::remove(verdict_path, ec);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) return Status::IOError(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      RunChild(final_check ? final_options : o, config, cycle, final_check, committed,
               verdict_path);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) {
      return Status::IOError(std::string("waitpid failed: ") + std::strerror(errno));
    }
    std::string verdict = ReadVerdict(verdict_path);
    const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    const bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (killed && verdict.empty() && !final_check &&
        Plan(o, cycle).kill_point == kFailTaskRestoreBatch) {
      // Killed while restoring, before it could check anything: the next cycle does.
      ++result->cycles;
      ++result->kills;
      ++result->kills_by_point[std::string(kFailTaskRestoreBatch)];
      if (progress) progress({cycle, killed, committed});
      continue;
    }
    const bool io_error = WIFEXITED(status) && WEXITSTATUS(status) == kExitEngineIOError;
    const bool aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    if ((o.tolerate_io_errors || o.io_error_probability > 0) && !final_check &&
        (io_error || aborted || (exited_ok && verdict.empty()))) {
      // Died of an injected system-call failure: a crash like any other.
      ++result->cycles;
      ++(aborted ? result->aborts : result->io_errors);
      if (progress) progress({cycle, false, committed});
      continue;
    }
    // Checks: F2 — after a kill (a real process crash) the next child recovers and verifies
    if (verdict.rfind("verified ", 0) != 0 || (!killed && !exited_ok)) {
      result->failed_cycle = cycle;
      if (verdict.rfind("verified ", 0) == 0) {
        verdict = WIFSIGNALED(status)
                      ? "the child died of signal " + std::to_string(WTERMSIG(status))
                      : "the child exited with " + std::to_string(WEXITSTATUS(status));
      }
      if (verdict.empty()) {
        const CyclePlan plan = Plan(o, cycle);
        const std::string how = WIFSIGNALED(status)
                                    ? "killed by signal " + std::to_string(WTERMSIG(status))
                                    : "exited with " + std::to_string(WEXITSTATUS(status));
        const std::string where =
            plan.kill_at == 0 ? "no kill planned"
            : plan.kill_point.empty()
                ? "its kill planned at processor step " + std::to_string(plan.kill_at)
                : "its kill planned at reach " + std::to_string(plan.kill_at) + " of " +
                      plan.kill_point;
        result->finding =
            model::Finding("F2", "the child died before its verdict (" + how + "; " + where + ")");
      } else {
        result->finding = FindingOfVerdict(verdict);
      }
      result->failure = result->finding->ToString();
      break;
    }
    committed = std::stoll(verdict.substr(9));
    ++result->cycles;
    result->kills += killed;
    if (killed) {
      const std::string point = Plan(o, cycle).kill_point;
      ++result->kills_by_point[point.empty() ? "processor step" : point];
    }
    if (progress && !final_check) progress({cycle, killed, committed});
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result->final_committed_input = committed;
  result->input_records = static_cast<int64_t>(o.cycles) * o.records_per_cycle;
  result->passed = result->failed_cycle < 0;
  if (result->cycles > o.cycles) result->cycles = o.cycles;  // The final check is not a cycle.
  if (o.keep) fs::remove_all(final_options.directory, ec);
  if (result->passed && !o.keep) fs::remove_all(o.directory, ec);
  return Status::Ok();
}

}  // namespace statecheck::properties
