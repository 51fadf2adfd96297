// The worker pool's placement (WorkerPool::Pinned): with no more workers than CPUs, each runs its
// batches on a CPU of its own, every thread of it included, except a property's whose cases
// run threads of their own in parallel (PropertySpec::threads), which get every CPU.
#include "tools/campaign_workers.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace statecheck::tools {
namespace {

// The CPUs thread `tid` (0: the calling one) may run on.
int CpusOf(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(tid, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

// A thread that lives as long as its worker process: RocksDB's background threads do. The mutex
// and condition variable outlive the call: the thread still notifies after the caller may have
// seen its tid and returned.
pid_t background_tid = 0;
std::mutex background_mu;
std::condition_variable background_started;
void StartBackgroundThreadOnce() {
  if (background_tid != 0) return;
  std::thread([] {
    {
      const std::lock_guard<std::mutex> lock(background_mu);
      background_tid = ::gettid();
    }
    background_started.notify_one();
    for (;;) ::pause();
  }).detach();
  std::unique_lock<std::mutex> lock(background_mu);
  background_started.wait(lock, [] { return background_tid != 0; });
}

// Its outcome's operations: the CPUs of the batch's thread; cases: those of the background
// thread (started by the first batch the worker runs).
properties::PropertyOutcome ReportCpus(const properties::PropertyParams&) {
  StartBackgroundThreadOnce();
  properties::PropertyOutcome out;
  out.passed = true;
  out.operations = CpusOf(0);
  out.cases = CpusOf(background_tid);
  return out;
}

BatchRun RunOn(WorkerPool& pool, int worker, size_t spec) {
  BatchJob job;
  job.spec = spec;
  EXPECT_TRUE(pool.Start(worker, job).ok());
  int w = -1;
  BatchRun run;
  EXPECT_TRUE(pool.WaitAny(&w, &run).ok());
  EXPECT_EQ(w, worker);
  EXPECT_TRUE(run.died.empty()) << run.died;
  return run;
}

TEST(WorkerPool, AsManyWorkersAsCpusRunOnACpuEachButThreadedPropertiesGetThemAll) {
  const int cpus = static_cast<int>(WorkerPool::AllowedCpus().size());
  if (cpus < 2) GTEST_SKIP() << "this process may run on " << cpus << " CPU: nothing to pin";
  EXPECT_TRUE(WorkerPool::Pinned(cpus));
  EXPECT_TRUE(WorkerPool::Pinned(1));
  EXPECT_FALSE(WorkerPool::Pinned(cpus + 1));  // More workers than CPUs: the scheduler places.

  std::vector<properties::PropertySpec> specs(2);
  specs[0].id = "threaded";
  specs[0].threads = true;
  specs[1].id = "single";
  for (properties::PropertySpec& s : specs) s.run = ReportCpus;
  WorkerPool pool(&specs, cpus);
  // The threaded batch first, in worker 0: the background thread it starts may run anywhere.
  BatchRun run = RunOn(pool, 0, 0);
  EXPECT_EQ(run.outcome.operations, cpus);
  EXPECT_EQ(run.outcome.cases, cpus);
  // Then a single-threaded batch in the same worker: it and the thread are on one CPU.
  run = RunOn(pool, 0, 1);
  EXPECT_EQ(run.outcome.operations, 1);
  EXPECT_EQ(run.outcome.cases, 1);
  // And back.
  run = RunOn(pool, 0, 0);
  EXPECT_EQ(run.outcome.operations, cpus);
  EXPECT_EQ(run.outcome.cases, cpus);
  // The other workers are pinned too.
  for (int w = 1; w < cpus; ++w) EXPECT_EQ(RunOn(pool, w, 1).outcome.operations, 1) << w;
}

TEST(WorkerPool, OneWorkerIsPinnedButMoreWorkersThanCpusAreNot) {
  const int cpus = static_cast<int>(WorkerPool::AllowedCpus().size());
  if (cpus < 2) GTEST_SKIP() << "this process may run on " << cpus << " CPU";
  std::vector<properties::PropertySpec> specs(1);
  specs[0].id = "single";
  specs[0].run = ReportCpus;
  {
    WorkerPool one(&specs, 1);
    EXPECT_EQ(RunOn(one, 0, 0).outcome.operations, 1);
  }
  WorkerPool more(&specs, cpus + 1);
  for (int w = 0; w < cpus + 1; ++w) EXPECT_EQ(RunOn(more, w, 0).outcome.operations, cpus) << w;
}

}  // namespace
}  // namespace statecheck::tools
