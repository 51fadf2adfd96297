// The worker pool's placement (WorkerPool::Pinned): with no more workers than CPUs, each runs its
// batches on a CPU of its own, every thread of it included, except a property's whose cases
// run threads of their own in parallel (PropertySpec::threads), which get every CPU. And how
// many CPUs the campaign's default --jobs counts (WorkerPool::UsableCpus).
#include "tools/campaign_workers.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tools/campaign.h"

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

// The default --jobs: the CPUs the process may use, not the machine's. Under `taskset -c 0` (or a
// one-CPU cpuset) a campaign on a 2-core machine ran 2 workers unpinned on one CPU.
TEST(WorkerPool, UsableCpusFollowTheAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(::sched_getaffinity(0, sizeof saved, &saved), 0);
  const int allowed = static_cast<int>(WorkerPool::AllowedCpus().size());
  EXPECT_GE(WorkerPool::UsableCpus(), 1);
  EXPECT_LE(WorkerPool::UsableCpus(), allowed);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(WorkerPool::AllowedCpus().front(), &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
  const int usable = WorkerPool::UsableCpus();
  const int jobs = CampaignOptions::DefaultJobs();
  ASSERT_EQ(::sched_setaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(usable, 1);
  EXPECT_EQ(jobs, 1);
}

TEST(CgroupCpuQuota, CpuMaxIsReadAsCpusRoundedUp) {
  EXPECT_EQ(CpusOfCpuMax("max 100000\n"), std::nullopt);
  EXPECT_EQ(CpusOfCpuMax("100000 100000\n"), 1);
  EXPECT_EQ(CpusOfCpuMax("150000 100000\n"), 2);  // docker --cpus=1.5
  EXPECT_EQ(CpusOfCpuMax("20000 100000"), 1);     // A fifth of a CPU still runs one worker.
  EXPECT_EQ(CpusOfCpuMax(""), std::nullopt);
  EXPECT_EQ(CpusOfCpuMax("12x 100000"), std::nullopt);
  EXPECT_EQ(CpusOfCpuMax("100000 0"), std::nullopt);
}

TEST(CgroupCpuQuota, TheTightestQuotaOnThePathToTheRootCounts) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / ("cgroup_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "a" / "b" / "c");
  auto write = [&](const std::filesystem::path& dir, const std::string& text) {
    std::ofstream(root / dir / "cpu.max") << text;
  };
  EXPECT_EQ(CgroupCpuQuota(root.string(), "/a/b/c"), std::nullopt);  // No cpu.max anywhere.
  write("a/b/c", "max 100000\n");
  write("a/b", "400000 100000\n");
  write("a", "250000 100000\n");
  EXPECT_EQ(CgroupCpuQuota(root.string(), "/a/b/c"), 3);
  EXPECT_EQ(CgroupCpuQuota(root.string(), "/a/b"), 3);
  write("", "100000 100000\n");  // A container's own cgroup, mounted as the root.
  EXPECT_EQ(CgroupCpuQuota(root.string(), "/a/b/c"), 1);
  EXPECT_EQ(CgroupCpuQuota(root.string(), "/"), 1);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace statecheck::tools
