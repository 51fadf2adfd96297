#include "faults/fail_points.h"

#include <fiu-control.h>
#include <fiu.h>
#include <signal.h>

#include <map>
#include <mutex>
#include <random>

namespace statecheck::faults {
namespace {

struct Point {
  FaultSpec spec;
  std::mt19937_64 rng;
  FailPointCounts counts;
  bool enabled = false;
};

struct Registry {
  std::mutex mu;
  std::map<std::string, Point> points;
};

Registry& GetRegistry() {
  static auto* registry = [] {
    fiu_init(0);
    return new Registry;
  }();
  return *registry;
}

// libfiu calls this each time an enabled point is evaluated: nonzero means fail.
int Decide(const char* name, int* failnum, void** failinfo, unsigned int* flags) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.points.find(name);
  if (it == r.points.end() || !it->second.enabled) return 0;
  Point& p = it->second;
  const uint64_t reach = ++p.counts.reached;
  bool fire = false;
  switch (p.spec.mode) {
    case FaultSpec::Mode::kNever:
      break;
    case FaultSpec::Mode::kOnce:
      fire = reach == p.spec.n;
      break;
    case FaultSpec::Mode::kEveryNth:
      fire = reach % p.spec.n == 0;
      break;
    case FaultSpec::Mode::kProbability:
      fire = std::uniform_real_distribution<double>(0, 1)(p.rng) < p.spec.p;
      break;
  }
  if (fire) ++p.counts.fired;
  if (fire && p.spec.kill) ::raise(SIGKILL);
  if (!fire) return 0;
  *failnum = 1 + static_cast<int>(p.spec.error);  // What fiu_fail returns.
  return 1;
}

}  // namespace

Status FailPoints::Enable(const std::string& name, const FaultSpec& spec, uint64_t seed) {
  if ((spec.mode == FaultSpec::Mode::kOnce || spec.mode == FaultSpec::Mode::kEveryNth) &&
      spec.n == 0) {
    return Status::InvalidArgument("fail point " + name + ": n must be at least 1");
  }
  if (spec.mode == FaultSpec::Mode::kProbability && !(spec.p >= 0 && spec.p <= 1)) {
    return Status::InvalidArgument("fail point " + name + ": p must be in [0, 1]");
  }
  Registry& r = GetRegistry();
  bool was_enabled;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    Point& p = r.points[name];
    was_enabled = p.enabled;
    p.spec = spec;
    // Each point's stream depends on the seed and its name, not on the order of Enable calls.
    p.rng.seed(seed ^ std::hash<std::string>()(name));
    p.enabled = true;
  }
  // libfiu leaks the old entry's name when a point is enabled twice: replace it cleanly.
  if (was_enabled) fiu_disable(name.c_str());
  if (fiu_enable_external(name.c_str(), 1, nullptr, 0, Decide) != 0) {
    std::lock_guard<std::mutex> lock(r.mu);
    r.points[name].enabled = false;
    return Status::IOError("libfiu refused to enable fail point " + name);
  }
  return Status::Ok();
}

Status FailPoints::Disable(const std::string& name) {
  Registry& r = GetRegistry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.points.find(name);
    if (it == r.points.end() || !it->second.enabled) {
      return Status::NotFound("fail point " + name + " is not enabled");
    }
    it->second.enabled = false;
  }
  fiu_disable(name.c_str());
  return Status::Ok();
}

std::vector<std::pair<std::string, FailPointCounts>> FailPoints::Counts() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::pair<std::string, FailPointCounts>> out;
  for (const auto& [name, p] : r.points) out.emplace_back(name, p.counts);
  return out;
}

void FailPoints::Reset() {
  Registry& r = GetRegistry();
  std::vector<std::string> enabled;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& [name, p] : r.points) {
      if (p.enabled) enabled.push_back(name);
    }
    r.points.clear();
  }
  // Not under r.mu: libfiu holds its own lock while it calls Decide, which takes r.mu.
  for (const std::string& name : enabled) fiu_disable(name.c_str());
}

}  // namespace statecheck::faults
