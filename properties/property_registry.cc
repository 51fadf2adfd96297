#include "properties/property_registry.h"

#include <rapidcheck.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>
#include <utility>

#include "properties/in_memory_kv/property.h"
#include "properties/kv_concurrency/history.h"
#include "properties/kv_concurrency/history_file.h"
#include "properties/kv_store/property.h"
#include "properties/task/property.h"
#include "properties/window_store/property.h"
#include "properties/windowed/property.h"
#include "statecheck/rocksdb_store.h"

namespace rc::detail {
std::unordered_map<std::string, Reproduce> stringToReproduceMap(const std::string& str);
}  // namespace rc::detail

namespace statecheck::properties {
namespace {

// The families on the state-machine kit, each in a folder of its own, one entry each
// (properties/README.md), in the order the campaign runs them.
std::vector<FamilyEntry> KitFamilies() {
  std::vector<FamilyEntry> out;
  out.push_back(window_store::Entry());
  out.push_back(kv_store::Entry());
  out.push_back(in_memory_kv::Entry());
  out.push_back(task::Entry());
  out.push_back(windowed::Entry());
  return out;
}

}  // namespace

std::vector<TraceKindSpec> AllTraceKinds() {
  std::vector<TraceKindSpec> out;
  for (FamilyEntry& family : KitFamilies()) {
    for (TraceKindSpec& kind : family.trace_kinds) out.push_back(std::move(kind));
  }
  out.push_back(kv_concurrency::HistoryKind());
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> DeclaredFamilyRules() {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (FamilyEntry& family : KitFamilies()) {
    if (family.rules.empty() || family.properties.empty()) continue;
    out.emplace_back(family.properties.front().family, std::move(family.rules));
  }
  return out;
}

std::vector<PropertySpec> AllProperties() {
  std::vector<PropertySpec> out;
  for (FamilyEntry& family : KitFamilies()) {
    for (PropertySpec& spec : family.properties) out.push_back(std::move(spec));
  }
  // The concurrency check (T2, T3, T4, T8): one writer and three readers on the real store, the
  // history judged afterwards (kv_concurrency::Check, kv_concurrency/history.h). Not a rapidcheck
  // property: a batch runs max(1, max_success / 20) workloads, each one case and from its own seed;
  // a failure is reported with the seed that produced its history (thread interleaving is the
  // machine's, so a rerun may not repeat it exactly).
  for (IsolationLevel level : {IsolationLevel::kReadCommitted, IsolationLevel::kReadUncommitted}) {
    const std::string name(IsolationLevelName(level));
    out.push_back({"kv_concurrency/" + name, "kv_concurrency",
                   level == IsolationLevel::kReadCommitted
                       ? "KvConcurrency.ReadCommittedHistoryIsClean"
                       : "KvConcurrency.ReadUncommittedHistoryIsClean",
                   [level](const PropertyParams& p) { return kv_concurrency::Check(level, p); }});
    out.back().config = "one writer and three reader threads, " + name;
    out.back().threads = true;
  }
  return out;
}

Status PropertyIdOfReproduce(const std::string& reproduce, std::string* id) {
  std::unordered_map<std::string, rc::detail::Reproduce> map;
  try {
    map = rc::detail::stringToReproduceMap(reproduce);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("not a reproduce string: ") + e.what() +
                                   ". Copy it whole from the failure's output or report.");
  }
  if (map.size() != 1) {
    return Status::InvalidArgument("the reproduce string names " + std::to_string(map.size()) +
                                   " properties; statecheck replays one at a time");
  }
  *id = map.begin()->first;
  return Status::Ok();
}

}  // namespace statecheck::properties
