#include "tools/campaign_workers.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "faults/fault_fs.h"
#include "properties/fault_tally.h"
#include "statecheck/hooks/fail_points.h"

namespace statecheck::tools {
namespace {

using Json = nlohmann::json;

// name -> (reached, fired), the engine's and the file system's fail points.
std::map<std::string, std::pair<uint64_t, uint64_t>> FailPointCountsNow() {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  for (const FailPointCount& c : EngineFailPointCounts()) out[c.name] = {c.reached, c.fired};
  for (const auto& [name, c] : faults::FsFailPointCounts()) out[name] = {c.reached, c.fired};
  return out;
}

// ---- Frames: an 8-byte length, then that many bytes of CBOR.

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::recv(fd, data, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EOF: the other side is gone.
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool WriteFrame(int fd, const Json& j) {
  const std::vector<uint8_t> bytes = Json::to_cbor(j);
  const uint64_t size = bytes.size();
  return WriteAll(fd, reinterpret_cast<const char*>(&size), sizeof size) &&
         WriteAll(fd, reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

bool ReadFrame(int fd, Json* j) {
  uint64_t size = 0;
  if (!ReadAll(fd, reinterpret_cast<char*>(&size), sizeof size)) return false;
  std::vector<uint8_t> bytes(size);
  if (!ReadAll(fd, reinterpret_cast<char*>(bytes.data()), bytes.size())) return false;
  *j = Json::from_cbor(bytes, /*strict=*/true, /*allow_exceptions=*/false);
  return !j->is_discarded();
}

// ---- The messages. Strings go as CBOR byte strings, so that raw key bytes stay exact.

Json Bytes(const std::string& s) { return Json::binary(std::vector<uint8_t>(s.begin(), s.end())); }

std::string Str(const Json& j) {
  const auto& b = j.get_binary();
  return std::string(b.begin(), b.end());
}

Json JobJson(const BatchJob& job) {
  return Json{{"spec", job.spec},
              {"number", job.number},
              {"seed", job.params.seed},
              {"max_success", job.params.max_success},
              {"max_size", job.params.max_size},
              {"shrink", job.params.shrink},
              {"trace_dir", Bytes(job.params.trace_dir)},
              {"kill_worker", job.kill_worker},
              {"hang_worker", job.hang_worker}};
}

BatchJob JobFromJson(const Json& j) {
  BatchJob job;
  job.spec = j.at("spec").get<size_t>();
  job.number = j.at("number").get<uint64_t>();
  job.params.seed = j.at("seed").get<uint64_t>();
  job.params.max_success = j.at("max_success").get<int>();
  job.params.max_size = j.at("max_size").get<int>();
  job.params.shrink = j.at("shrink").get<bool>();
  job.params.trace_dir = Str(j.at("trace_dir"));
  job.kill_worker = j.at("kill_worker").get<bool>();
  job.hang_worker = j.at("hang_worker").get<bool>();
  return job;
}

Json RunJson(const BatchRun& r) {
  const properties::PropertyOutcome& o = r.outcome;
  Json counterexample = Json::array();
  for (const std::string& line : o.counterexample) counterexample.push_back(Bytes(line));
  Json points = Json::array();
  for (const auto& [name, c] : r.fail_points) points.push_back({name, c.first, c.second});
  return Json{{"property", Bytes(o.property)},
              {"passed", o.passed},
              {"cases", o.cases},
              {"operations", o.operations},
              {"message", Bytes(o.message)},
              {"rule", o.rule},
              {"trace_path", Bytes(o.trace_path)},
              {"reproduce", Bytes(o.reproduce)},
              {"counterexample", std::move(counterexample)},
              {"situations", o.evidence.situations},
              {"rule_cases", o.evidence.rule_cases},
              {"seconds", r.seconds},
              {"crashes", r.crashes},
              {"power_losses", r.power_losses},
              {"faulted_cases", r.faulted_cases},
              {"fs_fired", r.fs_fired},
              {"engine_fired", r.engine_fired},
              {"fail_points", std::move(points)}};
}

BatchRun RunFromJson(const Json& j) {
  BatchRun r;
  properties::PropertyOutcome& o = r.outcome;
  o.property = Str(j.at("property"));
  o.passed = j.at("passed").get<bool>();
  o.cases = j.at("cases").get<int>();
  o.operations = j.at("operations").get<int64_t>();
  o.message = Str(j.at("message"));
  o.rule = j.at("rule").get<std::string>();
  o.trace_path = Str(j.at("trace_path"));
  o.reproduce = Str(j.at("reproduce"));
  for (const Json& line : j.at("counterexample")) o.counterexample.push_back(Str(line));
  o.evidence.situations = j.at("situations").get<std::map<std::string, int64_t>>();
  o.evidence.rule_cases = j.at("rule_cases").get<std::map<std::string, int64_t>>();
  r.seconds = j.at("seconds").get<double>();
  r.crashes = j.at("crashes").get<int64_t>();
  r.power_losses = j.at("power_losses").get<int64_t>();
  r.faulted_cases = j.at("faulted_cases").get<int64_t>();
  r.fs_fired = j.at("fs_fired").get<uint64_t>();
  r.engine_fired = j.at("engine_fired").get<uint64_t>();
  for (const Json& p : j.at("fail_points")) {
    r.fail_points[p.at(0).get<std::string>()] = {p.at(1).get<uint64_t>(), p.at(2).get<uint64_t>()};
  }
  return r;
}

// The worker's end of its socket, for the heartbeat.
int heartbeat_fd = -1;

// At the end of each case (properties::SetCaseEndHook), at most four times a second: a frame
// that tells the watchdog cases still end, so that a batch is bounded per case, not whole (its
// shrinking may take long).
void Heartbeat() {
  using Clock = std::chrono::steady_clock;
  static Clock::time_point last;
  const Clock::time_point now = Clock::now();
  if (now - last < std::chrono::milliseconds(250)) return;
  last = now;
  WriteFrame(heartbeat_fd, Json{{"alive", true}});
}

// ---- Where a worker runs (WorkerPool::Pinned).

cpu_set_t OneCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return set;
}

// Sets every thread of this process to run on `set`: the calling one, then the others (RocksDB's
// background threads). A thread created later inherits its creator's set.
void RunEveryThreadOn(const cpu_set_t& set) {
  (void)::sched_setaffinity(0, sizeof set, &set);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    // A thread that ended meanwhile has nothing to set: the error is moot.
    const pid_t tid = static_cast<pid_t>(std::atoi(entry.path().filename().c_str()));
    if (tid > 0) (void)::sched_setaffinity(tid, sizeof set, &set);
  }
}

// A worker's life: run each batch it is sent until its requests end. `cpu` >= 0: it is pinned
// there, except for the batches of a property whose cases need every CPU (PropertySpec::threads).
[[noreturn]] void WorkerMain(const std::vector<properties::PropertySpec>& specs, int fd, int cpu) {
  heartbeat_fd = fd;
  properties::SetCaseEndHook(&Heartbeat);
  cpu_set_t every;
  CPU_ZERO(&every);
  if (cpu >= 0) (void)::sched_getaffinity(0, sizeof every, &every);
  const cpu_set_t own = cpu >= 0 ? OneCpu(cpu) : every;
  bool on_own = false;
  for (;;) {
    Json request;
    if (!ReadFrame(fd, &request)) ::_exit(0);  // The campaign is done (or gone).
    const BatchJob job = JobFromJson(request);
    if (job.kill_worker) ::raise(SIGKILL);
    while (job.hang_worker) ::pause();
    if (const bool own_cpu = !specs.at(job.spec).threads; cpu >= 0 && own_cpu != on_own) {
      RunEveryThreadOn(own_cpu ? own : every);
      on_own = own_cpu;
    }
    const BatchRun run = RunBatchHere(specs.at(job.spec), job.params);
    if (!WriteFrame(fd, RunJson(run))) ::_exit(1);
  }
}

}  // namespace

std::vector<int> WorkerPool::AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

int WorkerPool::UsableCpus() {
  int cpus = std::max<int>(1, static_cast<int>(AllowedCpus().size()));
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);) {
    if (line.rfind("0::", 0) != 0) continue;  // cgroup v2's line; v1 has no cpu.max.
    if (const std::optional<int> quota = CgroupCpuQuota("/sys/fs/cgroup", line.substr(3))) {
      cpus = std::min(cpus, *quota);
    }
  }
  return cpus;
}

std::optional<int> CpusOfCpuMax(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string quota;
  int64_t period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  char* end = nullptr;
  const long long q = std::strtoll(quota.c_str(), &end, 10);
  if (*end != '\0' || q <= 0) return std::nullopt;
  return static_cast<int>(std::max<int64_t>(1, (q + period - 1) / period));
}

std::optional<int> CgroupCpuQuota(const std::string& mount, const std::string& cgroup) {
  std::optional<int> tightest;
  for (std::filesystem::path p = std::filesystem::path(cgroup).lexically_normal();;
       p = p.parent_path()) {
    std::ifstream file(std::filesystem::path(mount) / p.relative_path() / "cpu.max");
    std::string text;  // cpu.max is one line; a missing file leaves it empty.
    std::getline(file, text);
    if (const std::optional<int> cpus = CpusOfCpuMax(text)) {
      tightest = std::min(tightest.value_or(*cpus), *cpus);
    }
    if (!p.has_relative_path()) break;  // The root: nothing above it.
  }
  return tightest;
}

bool WorkerPool::Pinned(int workers) {
  return workers >= 1 && static_cast<size_t>(workers) <= AllowedCpus().size();
}

BatchRun RunBatchHere(const properties::PropertySpec& spec,
                      const properties::PropertyParams& params) {
  const properties::FailPointsFired fired_before = properties::FailPointsFiredSoFar();
  const properties::FaultTally tally_before = properties::CurrentFaultTally();
  const auto points_before = FailPointCountsNow();
  const auto t0 = std::chrono::steady_clock::now();
  BatchRun r;
  r.outcome = spec.run(params);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const properties::FailPointsFired fired = properties::FailPointsFiredSoFar();
  const properties::FaultTally tally = properties::CurrentFaultTally();
  r.crashes = tally.crashes - tally_before.crashes;
  r.power_losses = tally.power_losses - tally_before.power_losses;
  r.faulted_cases = tally.faulted_cases - tally_before.faulted_cases;
  r.fs_fired = fired.fs - fired_before.fs;
  r.engine_fired = fired.engine - fired_before.engine;
  for (const auto& [name, c] : FailPointCountsNow()) {
    auto it = points_before.find(name);
    const auto before = it == points_before.end() ? std::pair<uint64_t, uint64_t>{} : it->second;
    if (c != before) r.fail_points[name] = {c.first - before.first, c.second - before.second};
  }
  return r;
}

WorkerPool::WorkerPool(const std::vector<properties::PropertySpec>* specs, int workers,
                       double hang_seconds)
    : specs_(specs),
      workers_(static_cast<size_t>(std::max(1, workers))),
      hang_seconds_(hang_seconds) {
  if (Pinned(size())) cpus_ = AllowedCpus();
  for (Worker& w : workers_) Fork(&w);
}

WorkerPool::~WorkerPool() {
  for (Worker& w : workers_) End(&w, /*kill=*/w.busy);
}

void WorkerPool::Fork(Worker* w) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    std::perror("statecheck: socketpair");
    std::abort();
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("statecheck: fork");
    std::abort();
  }
  if (pid == 0) {
    ::close(fds[0]);
    // The other workers' sockets are theirs: holding them would keep them from seeing the end.
    for (const Worker& other : workers_) {
      if (&other != w && other.requests >= 0) ::close(other.requests);
    }
    const size_t index = static_cast<size_t>(w - workers_.data());
    WorkerMain(*specs_, fds[1], index < cpus_.size() ? cpus_[index] : -1);
  }
  ::close(fds[1]);
  w->pid = pid;
  w->requests = w->replies = fds[0];
  w->busy = false;
  ++started_;
}

void WorkerPool::End(Worker* w, bool kill) {
  if (w->pid < 0) return;
  if (kill) ::kill(w->pid, SIGKILL);
  ::close(w->requests);
  int status = 0;
  while (::waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  *w = Worker();
}

std::string WorkerPool::Reap(Worker* w) {
  int status = 0;
  while (::waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(w->requests);
  w->pid = -1;
  w->requests = w->replies = -1;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return "killed by signal " + std::to_string(sig) +
           (name ? " (SIG" + std::string(name) + ")" : "");
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

int WorkerPool::busy() const {
  int n = 0;
  for (const Worker& w : workers_) n += w.busy;
  return n;
}

int WorkerPool::FindIdle() const {
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (!workers_[i].busy) return static_cast<int>(i);
  }
  return -1;
}

Status WorkerPool::Start(int index, const BatchJob& job) {
  Worker& w = workers_.at(static_cast<size_t>(index));
  if (!WriteFrame(w.requests, JobJson(job))) {
    const std::string how = Reap(&w);
    Fork(&w);
    return Status::IOError("a campaign worker could not be sent a batch: it " + how);
  }
  w.busy = true;
  w.job = job;
  w.sent = std::chrono::steady_clock::now();
  return Status::Ok();
}

BatchRun WorkerPool::Died(Worker* w, const std::string& how) {
  BatchRun run;
  run.died = how;
  run.outcome.property = specs_->at(w->job.spec).id;
  run.outcome.passed = false;
  w->busy = false;
  Fork(w);
  return run;
}

Status WorkerPool::WaitAny(int* index, BatchRun* run) {
  std::vector<pollfd> fds;
  std::vector<int> which;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (!workers_[i].busy) continue;
    fds.push_back({workers_[i].replies, POLLIN, 0});
    which.push_back(static_cast<int>(i));
  }
  if (fds.empty()) return Status::FailedPrecondition("WaitAny: no worker is running a batch");
  using Clock = std::chrono::steady_clock;
  const auto bound =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(hang_seconds_));
  for (;;) {
    // The watchdog: poll until the first busy worker's bound, and kill a worker past it: one
    // from which neither a result nor a heartbeat (a case ended) came for hang_seconds_.
    int timeout_ms = -1;
    if (hang_seconds_ > 0) {
      const Clock::time_point now = Clock::now();
      for (int i : which) {
        Worker& w = workers_[static_cast<size_t>(i)];
        if (now - w.sent < bound) {
          const auto left = std::chrono::ceil<std::chrono::milliseconds>(w.sent + bound - now);
          timeout_ms = timeout_ms < 0 ? static_cast<int>(left.count())
                                      : std::min(timeout_ms, static_cast<int>(left.count()));
          continue;
        }
        ::kill(w.pid, SIGKILL);
        Reap(&w);
        *index = i;
        *run = Died(&w, "killed by the campaign's watchdog (SIGKILL)");
        run->hung_seconds = hang_seconds_;
        return Status::Ok();
      }
    }
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IOError(std::string("poll: ") + std::strerror(errno));
    for (size_t k = 0; n > 0 && k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      Worker& w = workers_[static_cast<size_t>(which[k])];
      Json reply;
      const bool read = ReadFrame(w.replies, &reply);
      if (read && reply.contains("alive")) {
        w.sent = Clock::now();  // A heartbeat: its cases still end.
        continue;
      }
      *index = which[k];
      w.busy = false;
      *run = read ? RunFromJson(reply) : Died(&w, Reap(&w));
      return Status::Ok();
    }
  }
}

void WorkerPool::AbandonBusy() {
  for (Worker& w : workers_) {
    if (!w.busy) continue;
    End(&w, /*kill=*/true);
    Fork(&w);
  }
}

std::vector<Json> ForkEach(size_t count, int jobs, const std::function<Json(size_t)>& task) {
  std::vector<Json> results(count);
  struct Child {
    pid_t pid;
    int fd;
    size_t index;
  };
  std::vector<Child> running;
  size_t next = 0;
  auto reap = [&](const Child& c) {
    Json j;
    const bool got = ReadFrame(c.fd, &j);
    ::close(c.fd);
    int status = 0;
    while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got) {
      results[c.index] = std::move(j);
    } else if (WIFSIGNALED(status)) {
      const char* name = sigabbrev_np(WTERMSIG(status));
      results[c.index] = Json{{"died", "killed by signal " + std::to_string(WTERMSIG(status)) +
                                           (name ? " (SIG" + std::string(name) + ")" : "")}};
    } else {
      results[c.index] = Json{{"died", "exited with status " + std::to_string(WEXITSTATUS(status)) +
                                           " without a result"}};
    }
  };
  while (next < count || !running.empty()) {
    while (next < count && running.size() < static_cast<size_t>(std::max(1, jobs))) {
      int fds[2];
      if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        std::perror("statecheck: socketpair");
        std::abort();
      }
      std::cout.flush();
      std::cerr.flush();
      const pid_t pid = ::fork();
      if (pid < 0) {
        std::perror("statecheck: fork");
        std::abort();
      }
      if (pid == 0) {
        ::close(fds[0]);
        for (const Child& c : running) ::close(c.fd);
        const Json result = task(next);
        std::cout.flush();
        ::_exit(WriteFrame(fds[1], result) ? 0 : 1);
      }
      ::close(fds[1]);
      running.push_back({pid, fds[0], next++});
    }
    // The first to finish: poll them all.
    std::vector<pollfd> fds;
    for (const Child& c : running) fds.push_back({c.fd, POLLIN, 0});
    while (::poll(fds.data(), fds.size(), -1) < 0 && errno == EINTR) {
    }
    for (size_t k = fds.size(); k-- > 0;) {
      if (fds[k].revents == 0) continue;
      reap(running[k]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  return results;
}

}  // namespace statecheck::tools
