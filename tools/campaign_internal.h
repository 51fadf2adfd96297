// Internal to the campaign (tools/campaign*.cc): the Campaign class that runs one `statecheck
// run` (its plan, scheduling and progress: campaign.cc; its regression corpus:
// campaign_regressions.cc) and the text helpers its files share.
#ifndef STATECHECK_TOOLS_CAMPAIGN_INTERNAL_H_
#define STATECHECK_TOOLS_CAMPAIGN_INTERNAL_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/property_registry.h"
#include "reports/run_report.h"
#include "statecheck/status.h"
#include "tools/campaign.h"
#include "tools/campaign_workers.h"

namespace statecheck::tools::internal {

using Clock = std::chrono::steady_clock;

// "12.3k", "4.6M": a count or a rate in a few characters.
std::string Compact(double v);
// `s` as one shell word: bare when it is safe, else in single quotes.
std::string ShellQuote(const std::string& s);

// One campaign run: the plan of batches, the executor (this process or the workers), what the
// batches did, and the progress line.
class Campaign {
 public:
  Campaign(const CampaignOptions& options, std::vector<properties::PropertySpec> specs,
           uint64_t seed, CampaignResult* result)
      : options_(options), specs_(std::move(specs)), seed_(seed), result_(result) {}

  Status Run();

 private:
  // A property's batches in this shard: the next batch number to run, how many are left (with a
  // fixed count), and the seconds its batches took (with those running counted at an estimate).
  struct Plan {
    uint64_t next = 0;
    int64_t left = -1;  // -1: until the budget ends.
    double seconds = 0;
    int64_t runs = 0;
    int64_t in_flight_cases = 0;  // Of batches handed out and not yet back.
  };

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  uint64_t Advance(const std::string& id, uint64_t from) const {
    while (ShardOf(id, from, options_.shard_count) != options_.shard_index) ++from;
    return from;
  }
  bool Inline() const { return jobs_ == 0; }
  void MakePlans();
  // Replays the regression corpus into the report (RunReport::regressions).
  Status ReplayRegressions();
  // The binary as a replay command names it: a command that works pasted into any shell (an
  // absolute path, quoted), in the planted build with the active planted bug in its environment.
  std::string ReplayExecutable() const;
  // The next batch to run: the property whose family has had the least time, then the property
  // of the family that has; -1 when none is left (or the budget is spent).
  int NextSpec();
  BatchJob MakeJob(size_t spec);
  double Estimate(size_t spec) const;
  // 1 + 2 × the share of the situations its rules declare that no case has reached yet: a
  // family whose evidence is thin gets up to three times the time of one whose is complete.
  double EvidenceWeight(const std::string& family) const;
  void Absorb(const BatchJob& job, const BatchRun& run);
  void RecordFailure(const BatchJob& job, const BatchRun& run, reports::PropertyResult* r);
  void Sample();
  void ShowProgress();
  bool Done() const;

  const CampaignOptions& options_;
  const std::vector<properties::PropertySpec> specs_;
  const uint64_t seed_;
  CampaignResult* const result_;
  int jobs_ = 0;  // 0: batches run in this process.
  std::vector<Plan> plans_;
  std::map<std::string, double> family_seconds_;
  std::map<std::string, std::vector<std::string>> family_situations_;  // Of its rules.
  std::set<std::string> reached_;  // Situations some case has reached so far.
  std::map<std::string, std::pair<uint64_t, uint64_t>> fail_points_;  // name -> reached, fired.
  Clock::time_point start_;
  int64_t total_ops_ = 0, total_cases_ = 0, batches_run_ = 0, total_batches_ = 0;
  double last_sample_ = 0;
  bool stop_ = false;
};

}  // namespace statecheck::tools::internal

#endif  // STATECHECK_TOOLS_CAMPAIGN_INTERNAL_H_
