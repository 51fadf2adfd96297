// The window-store property over the option matrix, the construction property, and a check of
// the whole failure path: a store with a planted bug fails, shrinks, writes a trace, and the
// trace replays the failure.
#include "properties/window_store_property.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "statecheck/in_memory_window_store.h"

namespace statecheck::properties {
namespace {

// CI settings, overridable: STATECHECK_SEED, STATECHECK_PROPERTY_CASES.
PropertyParams ParamsFromEnvironment() {
  PropertyParams p;
  p.seed = 20261130;
  p.max_success = 2000;
  p.max_size = 100;
  if (const char* seed = std::getenv("STATECHECK_SEED")) p.seed = std::strtoull(seed, nullptr, 10);
  if (const char* cases = std::getenv("STATECHECK_PROPERTY_CASES"))
    p.max_success = std::atoi(cases);
  p.trace_dir = (std::filesystem::current_path() / "counterexamples").string();
  return p;
}

void ExpectPassed(const PropertyOutcome& out, const PropertyParams& p) {
  EXPECT_TRUE(out.passed) << out.property << " failed after " << out.cases << " cases (seed "
                          << p.seed << "):\n"
                          << out.message << "\ntrace: " << out.trace_path
                          << "\nreplay: statecheck replay " << out.trace_path
                          << "\nreproduce=" << out.reproduce;
  ::testing::Test::RecordProperty("cases", out.cases);
  ::testing::Test::RecordProperty("operations", std::to_string(out.operations));
}

}  // namespace

// Test names show the configuration's label, not its bytes.
void PrintTo(const WindowStoreConfig& config, std::ostream* os) { *os << config.label; }

namespace {

class WindowStoreProperty : public ::testing::TestWithParam<WindowStoreConfig> {};

TEST_P(WindowStoreProperty, MatchesModel) {
  const PropertyParams p = ParamsFromEnvironment();
  const PropertyOutcome out =
      CheckWindowStoreMatchesModel(EngineWindowStoreFactory(), GetParam(), p);
  ExpectPassed(out, p);
  EXPECT_EQ(out.cases, p.max_success);
}

INSTANTIATE_TEST_SUITE_P(Matrix, WindowStoreProperty,
                         ::testing::ValuesIn(WindowStoreOptionMatrix()),
                         [](const auto& info) { return info.param.label; });

TEST(WindowStoreProperty, ConstructionMatchesModel) {
  PropertyParams p = ParamsFromEnvironment();
  p.max_success = 500;
  ExpectPassed(CheckWindowStoreConstruction(EngineWindowStoreFactory(), p), p);
}

// A store that keeps W3's drop rule off by one: it also drops a put exactly one above the
// retention bound. Everything else is the engine's.
class OffByOneDropStore final : public WindowStore {
 public:
  explicit OffByOneDropStore(std::unique_ptr<WindowStore> inner) : inner_(std::move(inner)) {}
  const std::string& name() const override { return inner_->name(); }
  int64_t retention_ms() const override { return inner_->retention_ms(); }
  int64_t window_size_ms() const override { return inner_->window_size_ms(); }
  bool retain_duplicates() const override { return inner_->retain_duplicates(); }
  bool is_open() const override { return inner_->is_open(); }
  int64_t stream_time() const override { return inner_->stream_time(); }
  WindowStoreMetrics metrics() const override { return inner_->metrics(); }
  Status Put(std::string_view key, std::optional<std::string_view> value, int64_t start) override {
    const int64_t st = std::max(inner_->stream_time(), start);
    if (inner_->is_open() && st - retention_ms() + 1 == start && value) {
      return inner_->Put(key, std::nullopt, start);  // The bug: the put is lost.
    }
    return inner_->Put(key, value, start);
  }
  Status Fetch(std::string_view key, int64_t t, std::optional<std::string>* v) override {
    return inner_->Fetch(key, t, v);
  }
  Status Fetch(std::string_view key, int64_t from, int64_t to,
               std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->Fetch(key, from, to, it);
  }
  Status BackwardFetch(std::string_view key, int64_t from, int64_t to,
                       std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->BackwardFetch(key, from, to, it);
  }
  Status Fetch(std::optional<std::string_view> kf, std::optional<std::string_view> kt, int64_t from,
               int64_t to, std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->Fetch(kf, kt, from, to, it);
  }
  Status BackwardFetch(std::optional<std::string_view> kf, std::optional<std::string_view> kt,
                       int64_t from, int64_t to,
                       std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->BackwardFetch(kf, kt, from, to, it);
  }
  Status FetchAll(int64_t from, int64_t to, std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->FetchAll(from, to, it);
  }
  Status BackwardFetchAll(int64_t from, int64_t to,
                          std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->BackwardFetchAll(from, to, it);
  }
  Status All(std::unique_ptr<WindowStoreIterator>* it) override { return inner_->All(it); }
  Status BackwardAll(std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->BackwardAll(it);
  }
  void Close() override { inner_->Close(); }

 private:
  std::unique_ptr<WindowStore> inner_;
};

Status NewOffByOneDropStore(const WindowStoreOptions& o, std::unique_ptr<WindowStore>* out) {
  std::unique_ptr<WindowStore> inner;
  STATECHECK_RETURN_IF_ERROR(NewInMemoryWindowStore(o, &inner));
  *out = std::make_unique<OffByOneDropStore>(std::move(inner));
  return Status::Ok();
}

TEST(WindowStoreProperty, PlantedBugIsCaughtShrunkAndReplayed) {
  PropertyParams p = ParamsFromEnvironment();
  p.trace_dir = (std::filesystem::path(::testing::TempDir()) / "planted").string();
  WindowStoreConfig config = WindowStoreOptionMatrix()[2];  // ret10_size3
  ASSERT_EQ(config.label, "ret10_size3");
  const PropertyOutcome out = CheckWindowStoreMatchesModel(NewOffByOneDropStore, config, p);
  ASSERT_FALSE(out.passed) << "the planted bug went unnoticed";
  EXPECT_LE(out.counterexample.size(), 6u) << out.message;
  ASSERT_FALSE(out.trace_path.empty()) << out.message;
  EXPECT_FALSE(out.reproduce.empty());

  Trace trace;
  ASSERT_TRUE(ReadTraceFile(out.trace_path, &trace).ok());
  EXPECT_LE(trace.steps.size(), 6u);
  // The trace fails on the planted store, and passes on the engine and the model.
  const ReplayOutcome buggy =
      ReplayTrace(trace, ReplayTarget::kEngine, NewOffByOneDropStore, ModelWindowStoreFactory());
  EXPECT_TRUE(buggy.diverged);
  EXPECT_EQ(buggy.what, "engine vs trace");
  const ReplayOutcome fixed = ReplayTrace(trace, ReplayTarget::kBoth, EngineWindowStoreFactory(),
                                          ModelWindowStoreFactory());
  EXPECT_FALSE(fixed.diverged) << fixed.what << " at line " << fixed.line;

  // The reproduce string re-runs exactly the shrunk case.
  PropertyParams again = p;
  again.reproduce = out.reproduce;
  const PropertyOutcome reproduced =
      CheckWindowStoreMatchesModel(NewOffByOneDropStore, config, again);
  EXPECT_FALSE(reproduced.passed);
  EXPECT_EQ(reproduced.counterexample, out.counterexample);
}

}  // namespace
}  // namespace statecheck::properties
