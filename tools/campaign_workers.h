// The campaign's batch executors: one batch run in this process (RunBatchHere), or batches run
// by a pool of worker processes (WorkerPool) — `statecheck run --jobs N`.
//
// Processes, not threads: the properties keep process-wide state (the fault tally, the evidence,
// the fail-point counters, planted bugs), RocksDB is happiest with one owner per process, and a
// worker that crashes, aborts or is killed takes nothing down with it: the pool reports the batch
// it was running as died (BatchRun::died) and forks a new worker in its place.
//
// Workers are forked from the campaign's process before it runs any property, so they inherit
// the registry, the reset counters and an activated planted bug (statecheck selftest), and no
// RocksDB thread. A batch's request and its result travel as length-prefixed CBOR over a pipe
// each way (CBOR keeps the raw bytes of keys in messages and counterexamples exact). A worker
// runs each batch exactly as RunBatchHere would, so a batch's result does not depend on which
// worker, or how many, ran it.
#ifndef STATECHECK_TOOLS_CAMPAIGN_WORKERS_H_
#define STATECHECK_TOOLS_CAMPAIGN_WORKERS_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/property_registry.h"
#include "statecheck/status.h"

namespace statecheck::tools {

// A batch to run: which property (an index into the campaign's specs) with which parameters.
struct BatchJob {
  size_t spec = 0;
  uint64_t number = 0;  // The batch's number (for messages; params.seed derives from it).
  properties::PropertyParams params;
  // Test hooks (campaign_test): the worker kills itself with SIGKILL when it starts this batch,
  // or (hang_worker) sleeps instead of running it, as a case that never ends would.
  bool kill_worker = false;
  bool hang_worker = false;
};

// What a batch did.
struct BatchRun {
  properties::PropertyOutcome outcome;
  double seconds = 0;
  // Deltas over the batch: crashes, power losses, cases that met any fault; the fail points that
  // fired (file system, engine); each fail point's reached and fired counts.
  int64_t crashes = 0;
  int64_t power_losses = 0;
  int64_t faulted_cases = 0;
  uint64_t fs_fired = 0;
  uint64_t engine_fired = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> fail_points;
  // Non-empty when the worker died while running it: "killed by signal 9 (SIGKILL)".
  std::string died;
  // > 0 when the batch gave no result within the pool's hang bound, this many seconds: the
  // watchdog killed its worker (`died` says so too). A hang, not a crash.
  double hung_seconds = 0;
};

// The CPUs a cgroup v2 cpu.max file's text allows, rounded up ("150000 100000": 2), or nullopt
// for no quota ("max 100000") or text that is not a quota.
std::optional<int> CpusOfCpuMax(std::string_view text);
// The tightest cpu.max quota on the path from the cgroup `cgroup` (as /proc/self/cgroup's "0::"
// line names it) up to the hierarchy's root, which is mounted at `mount`; nullopt if none.
std::optional<int> CgroupCpuQuota(const std::string& mount, const std::string& cgroup);

// Runs `spec` with `params` in this process and measures what it did.
BatchRun RunBatchHere(const properties::PropertySpec& spec,
                      const properties::PropertyParams& params);

class WorkerPool {
 public:
  // Forks `workers` processes (at least 1) that run batches of `specs`, which must outlive the
  // pool and be the same vector in every process (it is: the workers are forks). A batch from
  // which neither its result nor a heartbeat came for `hang_seconds` (> 0; 0: no bound) is a
  // hang: WaitAny kills its worker with SIGKILL and returns it as a run with `hung_seconds` set
  // — a stuck case never stalls the campaign. A worker sends a heartbeat as its cases end
  // (properties::SetCaseEndHook; at most four a second), so the bound is on one case (or one
  // shrinking step), not on a whole batch, however long its shrinking takes.
  WorkerPool(const std::vector<properties::PropertySpec>* specs, int workers,
             double hang_seconds = 0);
  // Ends every worker (EOF on its requests; SIGKILL for one still running a batch) and reaps it.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The CPUs this process may run on (its affinity mask), in order.
  static std::vector<int> AllowedCpus();
  // How many CPUs this process can keep busy, at least 1: those of its affinity mask (taskset, a
  // container's cpuset), or fewer where a cgroup v2 CPU quota allows less (cpu.max of its cgroup
  // or of an ancestor, rounded up: "150000 100000", a quota of 1.5 CPUs, gives 2). The campaign's
  // default --jobs.
  // std::thread::hardware_concurrency() counts every CPU online in the machine instead.
  static int UsableCpus();
  // Whether a pool of `workers` pins them: with no more than the CPUs this process may run on,
  // worker i (and its replacement) runs on the i-th of them, every thread of it included. A
  // case then waits on RocksDB's background threads (a flush at a commit) on its own CPU, not
  // across CPUs, which costs a wake-up of another CPU each time: on the project's 2-core
  // machine the task family ran 14-20% more cases so with one worker, 3-5% more with two
  // (`statecheck run --family task`). A batch of a property whose cases run threads of their
  // own in parallel (PropertySpec::threads) runs on every allowed CPU.
  static bool Pinned(int workers);

  int size() const { return static_cast<int>(workers_.size()); }
  // Workers forked over the pool's life, replacements of dead ones included.
  int started() const { return started_; }
  int busy() const;
  // An idle worker's index, or -1.
  int FindIdle() const;

  // Sends `job` to idle worker `w`. IOError when the request cannot be written (the worker is
  // then replaced).
  Status Start(int w, const BatchJob& job);

  // Waits until a busy worker finishes its batch (or dies running it, or runs past the hang
  // bound) and returns which and what. A dead or hung worker's run has `died` set (and its
  // outcome says so) and the worker is replaced.
  // REQUIRES: busy() > 0.
  Status WaitAny(int* w, BatchRun* run);

  // Kills every busy worker (their batches are dropped) and replaces them.
  void AbandonBusy();

 private:
  struct Worker {
    pid_t pid = -1;
    int requests = -1;  // Write end: the parent's requests.
    int replies = -1;   // Read end: the worker's results.
    bool busy = false;
    BatchJob job;                                // The batch it runs, while busy.
    std::chrono::steady_clock::time_point sent;  // When it was sent that batch.
  };
  void Fork(Worker* w);
  // A busy worker's run as the pool saw it die (`how`), and its replacement forked.
  BatchRun Died(Worker* w, const std::string& how);
  void End(Worker* w, bool kill);
  // The worker's exit in words, after it closed its pipe: "killed by signal 9 (SIGKILL)".
  std::string Reap(Worker* w);

  const std::vector<properties::PropertySpec>* specs_;
  std::vector<Worker> workers_;
  const double hang_seconds_;
  std::vector<int> cpus_;  // Worker i runs on cpus_[i]; empty: the workers are not pinned.
  int started_ = 0;
};

// Runs `task(i)` for each i in [0, count) in a process of its own, forked from this one, at most
// `jobs` at a time, and returns what each returned (as a JSON value, in order of i). A task whose
// process died instead has {"died": "killed by signal 9 (SIGKILL)"}. For the crash runner's
// configurations (statecheck crash --jobs): each forks and kills children of its own, and the
// caller, like the campaign's, never opens RocksDB. The tasks print their own progress.
std::vector<nlohmann::json> ForkEach(size_t count, int jobs,
                                     const std::function<nlohmann::json(size_t)>& task);

}  // namespace statecheck::tools

#endif  // STATECHECK_TOOLS_CAMPAIGN_WORKERS_H_
