#include "properties/kv_store/property.h"

#include <filesystem>
#include <map>
#include <utility>

#include "model/state_config_model.h"
#include "properties/harness_rocksdb.h"
#include "properties/key_value/lockstep.h"
#include "properties/kit/family.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck::properties::kv_store {
namespace {

using key_value::GenState;
using key_value::Lockstep;

// The T1 row the model runs a configuration with; false when T1 has none.
bool RowOf(const Config& config, model::T1Row* row, std::string* problem) {
  return model::ExpectedT1Row(config.streams_config, row, problem);
}

struct Family {
  using Vocabulary = kv_store::Vocabulary;
  using Model = GenState;
  using Sut = Lockstep;
  static constexpr std::string_view kStartRule = "T7";

  static Model InitialModel(const Config& config) {
    GenState initial;
    model::T1Row row;
    std::string problem;
    initial.buffered = RowOf(config, &row, &problem) && row.buffer_writes;
    return initial;
  }
  static rc::Gen<Op> GenOp(const Model& state) { return key_value::GenOp(state); }
  static bool Precondition(const Model&, const Op&) { return true; }
  static void Next(Model& state, const Op& op) { key_value::Next(state, op); }

  // T1: the engine's resolution of the configuration against T1's table row.
  static std::optional<Finding> Preflight(const Config& config) {
    StateConfig resolved;
    if (const Status r = ResolveStateConfig(config.streams_config, &resolved); !r.ok()) {
      return Finding(
          "T1", "the engine refused a configuration T1's table has a row for: " + r.ToString());
    }
    model::T1Row row;
    std::string problem;
    if (!RowOf(config, &row, &problem))
      return Finding("T1", "T1's table has no row for " + problem);
    // Checks: T1 — the engine's resolution of the configuration against T1's table row
    return model::CompareT1Row(config.streams_config, resolved, row);
  }
};
static_assert(kit::Family<Family>);

kit::Start<Family> StartWith(Factory factory) {
  return [factory](const Config& config, ReplayTarget target,
                   std::unique_ptr<Lockstep>* out) -> Status {
    StateConfig resolved;
    if (const Status r = ResolveStateConfig(config.streams_config, &resolved); !r.ok()) {
      return Status::InvalidArgument("streams_config: " + r.message());
    }
    model::T1Row row;
    std::string problem;
    if (!RowOf(config, &row, &problem)) {
      return Status::InvalidArgument("streams_config: T1's table has no row for " + problem);
    }
    const std::string dir = target == ReplayTarget::kModel ? "" : KvScratchDirectory("kv");
    auto sut = std::make_unique<Lockstep>(dir, row.isolation,
                                          key_value::T1Situation(config.streams_config));
    if (target != ReplayTarget::kModel) {
      std::filesystem::remove_all(dir);
      std::unique_ptr<KeyValueStore> store;
      if (const Status opened = factory(dir, resolved.isolation, config, &store); !opened.ok()) {
        return Status::Aborted("the store could not be opened: " + opened.ToString());
      }
      const IsolationLevel isolation = resolved.isolation;
      sut->SetStore(std::move(store),
                    [factory, dir, isolation, config](
                        bool crash, std::unique_ptr<KeyValueStore>* st, bool* clean) {
                      crash ? (*st)->Abandon() : (*st)->Close();
                      st->reset();
                      STATECHECK_RETURN_IF_ERROR(factory(dir, isolation, config, st));
                      auto* rocks = dynamic_cast<RocksDBStore*>(st->get());
                      *clean = rocks ? rocks->was_closed_cleanly() : !crash;
                      return Status::Ok();
                    });
    }
    if (target != ReplayTarget::kEngine) {
      sut->SetModel(row.isolation, /*persistent=*/true, /*durable_commits=*/config.use_wal);
    }
    *out = std::move(sut);
    return Status::Ok();
  };
}

}  // namespace

std::vector<Config> OptionMatrix() {
  const std::vector<model::T1Configuration>& rows = model::T1Configurations();
  // Variant-major: the six rows of T1 come first (a short campaign runs the properties in this
  // order, so every row of the table gets cases early), then again with the WAL, then with a
  // tiny write buffer.
  std::vector<Config> out;
  for (const auto& row : rows) out.push_back({row.label + "_nowal", row.props, false, 0});
  for (const auto& row : rows) out.push_back({row.label + "_wal", row.props, true, 0});
  for (const auto& row : rows)
    out.push_back({row.label + "_tinybuffer", row.props, false, 64 << 10});
  return out;
}

PropertyOutcome Check(const Factory& sut, const Config& config, const PropertyParams& params) {
  return kit::CheckProperty<Family>("kv_store/MatchesModel/" + config.label, config, StartWith(sut),
                                    params);
}

TraceKindSpec TraceKind(const Factory& sut) {
  return kit::TraceKindOf<Family>("kv_store", StartWith(sut), EveryReplayTarget());
}

FamilyEntry Entry() {
  FamilyEntry entry;
  std::vector<PropertySpec>& out = entry.properties;
  for (const Config& config : OptionMatrix()) {
    out.push_back(
        {"kv_store/MatchesModel/" + config.label, "kv_store", "KvStoreProperty.MatchesModel",
         [config](const PropertyParams& p) { return Check(EngineFactory(), config, p); }});
    out.back().config = DescribeStreamsConfig(config.streams_config) +
                        (config.use_wal ? ", WAL" : "") +
                        (config.write_buffer_size > 0
                             ? ", write_buffer_size=" + std::to_string(config.write_buffer_size)
                             : "");
  }
  entry.trace_kinds.push_back(TraceKind(EngineFactory()));
  return entry;
}

}  // namespace statecheck::properties::kv_store
