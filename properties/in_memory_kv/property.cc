#include "properties/in_memory_kv/property.h"

#include <string>
#include <utility>

#include "properties/key_value/lockstep.h"
#include "properties/kit/family.h"

namespace statecheck::properties::in_memory_kv {
namespace {

using key_value::GenState;
using key_value::Lockstep;

struct Family {
  using Vocabulary = in_memory_kv::Vocabulary;
  using Model = GenState;
  using Sut = Lockstep;
  // Making the engine's store cannot fail; a user's factory that makes none breaks no rule of
  // T: such a finding is unattributed.
  static constexpr std::string_view kStartRule = "";

  static Model InitialModel(const Config&) {
    GenState initial;
    initial.buffered = false;  // It writes through: what the generator aims at is committed.
    initial.restarts = false;  // Nothing survives a close.
    return initial;
  }
  static rc::Gen<Op> GenOp(const Model& state) { return key_value::GenOp(state); }
  static bool Precondition(const Model&, const Op& op) {
    return op.type != OpType::kReopen && op.type != OpType::kCrash;
  }
  static void Next(Model& state, const Op& op) { key_value::Next(state, op); }
};
static_assert(kit::Family<Family>);

kit::Start<Family> StartWith(Factory factory) {
  return [factory](const Config&, ReplayTarget target, std::unique_ptr<Lockstep>* out) -> Status {
    auto sut = std::make_unique<Lockstep>("", IsolationLevel::kReadUncommitted, "");
    if (target != ReplayTarget::kModel) {
      std::unique_ptr<KeyValueStore> store = factory();
      if (!store) return Status::Aborted("the factory made no store");
      sut->SetStore(std::move(store), [](bool, std::unique_ptr<KeyValueStore>*, bool*) {
        return Status::FailedPrecondition("an in-memory store has no restart");
      });
    }
    if (target != ReplayTarget::kEngine) {
      sut->SetModel(IsolationLevel::kReadUncommitted, /*persistent=*/false);
    }
    *out = std::move(sut);
    return Status::Ok();
  };
}

}  // namespace

Factory EngineFactory() {
  return [] { return NewInMemoryKeyValueStore("kv"); };
}

PropertyOutcome Check(const Factory& sut, const Config& config, const PropertyParams& params) {
  return kit::CheckProperty<Family>("in_memory_kv/MatchesModel/" + config.label, config,
                                    StartWith(sut), params);
}

TraceKindSpec TraceKind(const Factory& sut) {
  return kit::TraceKindOf<Family>("in_memory_kv", StartWith(sut), EveryReplayTarget());
}

FamilyEntry Entry() {
  FamilyEntry entry;
  const Config config;
  entry.properties.push_back({"in_memory_kv/MatchesModel/" + config.label, "in_memory_kv",
                              "InMemoryKvProperty.MatchesModel", [config](const PropertyParams& p) {
                                return Check(EngineFactory(), config, p);
                              }});
  entry.properties.back().config = "the engine's in-memory key-value store, READ_UNCOMMITTED";
  entry.trace_kinds.push_back(TraceKind(EngineFactory()));
  // The key-value rules a store that writes through is held to (T4 is READ_COMMITTED's).
  entry.rules = {"T3", "T5", "T6", "T7", "T8", "T9"};
  return entry;
}

}  // namespace statecheck::properties::in_memory_kv
