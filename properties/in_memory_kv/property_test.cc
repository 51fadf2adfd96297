// The in-memory key-value store family: the engine's store passes; a store with a planted bug
// is caught, credited to the rule the bug breaks, and its saved trace replays to that rule; the
// family's traces have no restarts.
#include "properties/in_memory_kv/property.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "properties/kit/test_support.h"
#include "properties/kit/trace.h"
#include "properties/rapidcheck_runner.h"
#include "testing/forwarding_key_value_store.h"

namespace statecheck::properties::in_memory_kv {
namespace {

PropertyParams Params(int cases) { return kit::TestParams(20261207, cases, 60); }

TEST(InMemoryKvProperty, MatchesModel) {
  const PropertyParams p = kit::TestParams(20261207, 200, 60, "STATECHECK_KV_PROPERTY_CASES");
  const PropertyOutcome out = Check(EngineFactory(), Config{}, p);
  kit::ExpectPassed(out, p);
  // What it checks: T3's visibility, T6's zero bytes, T8's positions among them.
  for (const char* situation :
       {"T3.iq_get_uncommitted_put", "T6.read_uncommitted_zero", "T8.commit_converges"}) {
    EXPECT_TRUE(out.evidence.situations.contains(situation)) << situation;
  }
}

// A view that misses the store's latest write of a key: an interactive query that does not see a
// write that has returned (T3 for a store that writes through).
class StaleView final : public statecheck::testing::ForwardingView {
 public:
  StaleView(std::shared_ptr<QueryView> inner, const std::map<std::string, bool>* written)
      : ForwardingView(std::move(inner)), written_(written) {}
  Status Get(std::string_view key, std::optional<std::string>* value) override {
    STATECHECK_RETURN_IF_ERROR(inner_->Get(key, value));
    if (written_->contains(std::string(key))) value->reset();
    return Status::Ok();
  }

 private:
  const std::map<std::string, bool>* written_;
};

class StaleViewStore final : public statecheck::testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  std::shared_ptr<QueryView> NewQueryView() override {
    return std::make_shared<StaleView>(inner_->NewQueryView(), &written_);
  }
};

TEST(InMemoryKvAttribution, AQueryMissingAWriteIsT3AndItsTraceReplaysSo) {
  PropertyParams p = Params(200);
  p.trace_dir = ScratchDirectory("in-memory-kv-traces");
  const Factory planted = [] {
    return std::make_unique<StaleViewStore>(NewInMemoryKeyValueStore("kv"));
  };
  const PropertyOutcome out = Check(planted, Config{}, p);
  ASSERT_FALSE(out.passed) << "the planted bug was not caught";
  EXPECT_EQ(out.rule, "T3") << out.message;
  ASSERT_FALSE(out.trace_path.empty()) << out.message;
  std::string text;
  ASSERT_TRUE(kit::ReadTextFile(out.trace_path, &text).ok());
  for (ReplayTarget target : {ReplayTarget::kEngine, ReplayTarget::kBoth}) {
    TraceReplay replay;
    ASSERT_TRUE(TraceKind(planted).replay(text, out.trace_path, target, &replay).ok());
    EXPECT_TRUE(replay.diverged) << ReplayTargetName(target) << "\n" << text;
    EXPECT_EQ(replay.rule, "T3") << replay.verdict;
  }
  TraceReplay replay;
  ASSERT_TRUE(
      TraceKind(EngineFactory()).replay(text, out.trace_path, ReplayTarget::kBoth, &replay).ok());
  EXPECT_FALSE(replay.diverged) << "the engine's store fails the trace:\n" << replay.verdict;
  std::filesystem::remove_all(p.trace_dir);
}

TEST(InMemoryKvTrace, HasNoRestarts) {
  kit::Trace<Vocabulary> trace;
  const Status s = kit::ParseTrace<Vocabulary>(
      "{\"statecheck_trace\":1,\"kind\":\"in_memory_kv\",\"config\":{}}\n{\"op\":\"reopen\"}\n",
      "t.jsonl", &trace);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "line 2: reopen: an in-memory store keeps nothing across a close, so an in_memory_kv "
            "trace has no restarts (a kv_store trace does)");
}

}  // namespace
}  // namespace statecheck::properties::in_memory_kv
