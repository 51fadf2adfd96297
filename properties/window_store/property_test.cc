// The window-store property over the option matrix, the construction property, and a check of
// the whole failure path: a store with a planted bug fails, shrinks, writes a trace, and the
// trace replays the failure.
#include "properties/window_store/property.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/kit/test_support.h"
#include "reports/rule_catalogue.h"
#include "statecheck/hooks/planted_bugs.h"
#include "statecheck/in_memory_window_store.h"

namespace statecheck::properties::window_store {
namespace {

// CI settings, overridable: STATECHECK_SEED, STATECHECK_PROPERTY_CASES.
PropertyParams ParamsFromEnvironment() {
  PropertyParams p = kit::TestParams(20261130, 2000, 100, "STATECHECK_PROPERTY_CASES");
  p.trace_dir = (std::filesystem::current_path() / "counterexamples").string();
  return p;
}

void ExpectPassed(const PropertyOutcome& out, const PropertyParams& p) {
  kit::ExpectPassed(out, p);
  ::testing::Test::RecordProperty("cases", out.cases);
  ::testing::Test::RecordProperty("operations", std::to_string(out.operations));
}

}  // namespace

// Test names show the configuration's label, not its bytes.
void PrintTo(const Config& config, std::ostream* os) { *os << config.label; }

namespace {

class WindowStoreProperty : public ::testing::TestWithParam<Config> {};

TEST_P(WindowStoreProperty, MatchesModel) {
  const PropertyParams p = ParamsFromEnvironment();
  const PropertyOutcome out = CheckMatchesModel(EngineFactory(), GetParam(), p);
  ExpectPassed(out, p);
}

INSTANTIATE_TEST_SUITE_P(Matrix, WindowStoreProperty, ::testing::ValuesIn(OptionMatrix()),
                         [](const auto& info) { return info.param.label; });

TEST(WindowStoreProperty, ConstructionMatchesModel) {
  PropertyParams p = ParamsFromEnvironment();
  p.max_success = 500;
  ExpectPassed(CheckConstruction(EngineFactory(), p), p);
}

// A store that forwards every call to the engine's store; the wrong stores below override the
// call they get wrong.
class ForwardingStore : public WindowStore {
 public:
  explicit ForwardingStore(std::unique_ptr<WindowStore> inner) : inner_(std::move(inner)) {}
  const std::string& name() const override { return inner_->name(); }
  int64_t retention_ms() const override { return inner_->retention_ms(); }
  int64_t window_size_ms() const override { return inner_->window_size_ms(); }
  bool retain_duplicates() const override { return inner_->retain_duplicates(); }
  bool is_open() const override { return inner_->is_open(); }
  int64_t stream_time() const override { return inner_->stream_time(); }
  WindowStoreMetrics metrics() const override { return inner_->metrics(); }
  Status Put(std::string_view key, std::optional<std::string_view> value, int64_t start) override {
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

 protected:
  std::unique_ptr<WindowStore> inner_;
};

// The factory of a wrong store T around the engine's.
template <class T>
Status NewWrapped(const WindowStoreOptions& o, std::unique_ptr<WindowStore>* out) {
  std::unique_ptr<WindowStore> inner;
  STATECHECK_RETURN_IF_ERROR(NewInMemoryWindowStore(o, &inner));
  *out = std::make_unique<T>(std::move(inner));
  return Status::Ok();
}

// W3: keeps the drop rule off by one: it also drops a put exactly one above the retention
// bound (without counting it).
class OffByOneDropStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status Put(std::string_view key, std::optional<std::string_view> value, int64_t start) override {
    // Wide: at the ends of int64, st - retention + 1 must not overflow.
    __extension__ typedef __int128 Wide;
    const Wide st = std::max(inner_->stream_time(), start);
    if (inner_->is_open() && st - retention_ms() + 1 == start && value) {
      return inner_->Put(key, std::nullopt, start);  // The bug: the put is lost.
    }
    return inner_->Put(key, value, start);
  }
};

Status NewOffByOneDropStore(const WindowStoreOptions& o, std::unique_ptr<WindowStore>* out) {
  return NewWrapped<OffByOneDropStore>(o, out);
}

// W2: reports as stream time the largest start of a put with a value (deletes not counted).
class StreamTimeSkipsDeletesStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  int64_t stream_time() const override { return stream_time_; }
  Status Put(std::string_view key, std::optional<std::string_view> value, int64_t start) override {
    if (inner_->is_open() && value) stream_time_ = std::max(stream_time_, start);
    return inner_->Put(key, value, start);
  }

 private:
  int64_t stream_time_ = -1;
};

// W4: a delete does nothing (it still advances stream time and counts as a put: it deletes a
// key no test uses).
class DeleteIgnoredStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status Put(std::string_view key, std::optional<std::string_view> value, int64_t start) override {
    if (!value) return inner_->Put(std::string_view("\x01never-put", 10), std::nullopt, start);
    return inner_->Put(key, value, start);
  }
};

// W5: a point fetch on a retainDuplicates store returns the first duplicate.
class DuplicatesPointFetchStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status Fetch(std::string_view key, int64_t t, std::optional<std::string>* v) override {
    if (!retain_duplicates()) return inner_->Fetch(key, t, v);
    v->reset();
    std::unique_ptr<WindowStoreIterator> it;
    STATECHECK_RETURN_IF_ERROR(inner_->Fetch(key, t, t, &it));
    WindowedRecord r;
    if (it->HasNext() && it->Next(&r).ok()) *v = r.value;
    return Status::Ok();
  }
};

// W6: fetchAll starts one above the oldest live start.
class FetchAllBoundOffByOneStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status FetchAll(int64_t from, int64_t to, std::unique_ptr<WindowStoreIterator>* it) override {
    __extension__ typedef __int128 Wide;
    const Wide lo = static_cast<Wide>(inner_->stream_time()) - retention_ms() + 2;
    if (lo > from && lo <= std::numeric_limits<int64_t>::max()) from = static_cast<int64_t>(lo);
    return inner_->FetchAll(from, to, it);
  }
};

// W7: backwardFetchAll and backwardAll read forwards.
class BackwardIsForwardStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status BackwardFetchAll(int64_t from, int64_t to,
                          std::unique_ptr<WindowStoreIterator>* it) override {
    return inner_->FetchAll(from, to, it);
  }
  Status BackwardAll(std::unique_ptr<WindowStoreIterator>* it) override { return inner_->All(it); }
};

// W7: a key range's upper bound also takes the keys it is a byte-prefix of ("ab" for "a").
class PrefixLeakStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status Fetch(std::optional<std::string_view> kf, std::optional<std::string_view> kt, int64_t from,
               int64_t to, std::unique_ptr<WindowStoreIterator>* it) override {
    std::string wide_to;
    if (kt) wide_to = std::string(*kt) + std::string(8, '\xff');
    return inner_->Fetch(kf, kt ? std::optional<std::string_view>(wide_to) : std::nullopt, from, to,
                         it);
  }
};

// W8: the first read leaves an all() iterator open inside the store, whose pin then keeps
// every segment from its first one against expiry (reads still hide them).
class LeakedIteratorStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status FetchAll(int64_t from, int64_t to, std::unique_ptr<WindowStoreIterator>* it) override {
    if (!leaked_ && inner_->is_open()) {
      STATECHECK_RETURN_IF_ERROR(inner_->All(&leaked_));
      leaked_->HasNext();  // Enters (and pins) its first segment.
    }
    return inner_->FetchAll(from, to, it);
  }
  void Close() override {
    leaked_.reset();
    inner_->Close();
  }

 private:
  std::unique_ptr<WindowStoreIterator> leaked_;
};

// W9: its iterators read one record ahead, which they keep answering after the store closed.
class ReadAheadIterator final : public WindowStoreIterator {
 public:
  explicit ReadAheadIterator(std::unique_ptr<WindowStoreIterator> inner)
      : inner_(std::move(inner)) {}
  bool HasNext() override {
    Fill();
    return ahead_.has_value();
  }
  Status Next(WindowedRecord* record) override {
    Fill();
    if (!ahead_) return Status::OutOfRange("The iterator has no more records.");
    *record = *std::exchange(ahead_, std::nullopt);
    return Status::Ok();
  }
  Status PeekNextKey(WindowedKey* key) override {
    Fill();
    if (!ahead_) return Status::OutOfRange("The iterator has no more records.");
    *key = WindowedKey{ahead_->key, ahead_->window};
    return Status::Ok();
  }
  void Close() override {
    ahead_.reset();
    inner_->Close();
  }

 private:
  void Fill() {
    WindowedRecord r;
    if (!ahead_ && inner_->HasNext() && inner_->Next(&r).ok()) ahead_ = std::move(r);
  }
  std::unique_ptr<WindowStoreIterator> inner_;
  std::optional<WindowedRecord> ahead_;
};

class ReadAheadStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status All(std::unique_ptr<WindowStoreIterator>* it) override {
    return Wrap(inner_->All(it), it);
  }
  Status FetchAll(int64_t from, int64_t to, std::unique_ptr<WindowStoreIterator>* it) override {
    return Wrap(inner_->FetchAll(from, to, it), it);
  }

 private:
  static Status Wrap(Status s, std::unique_ptr<WindowStoreIterator>* it) {
    if (s.ok()) *it = std::make_unique<ReadAheadIterator>(std::move(*it));
    return s;
  }
};

// W1: accepts a window size above the retention (it builds the store with size = retention).
Status NewLenientStore(const WindowStoreOptions& o, std::unique_ptr<WindowStore>* out) {
  WindowStoreOptions lenient = o;
  if (lenient.retention_ms >= 0 && lenient.window_size_ms > lenient.retention_ms) {
    lenient.window_size_ms = lenient.retention_ms;
  }
  return NewInMemoryWindowStore(lenient, out);
}

// Runs the property over the option matrix against `factory` until one configuration fails.
PropertyOutcome FirstFailure(const Factory& factory) {
  const PropertyParams p = kit::TestParams(16, 300, 80);
  PropertyOutcome last;
  for (const Config& config : OptionMatrix()) {
    last = CheckMatchesModel(factory, config, p);
    if (!last.passed) return last;
  }
  return last;
}

struct WrongStore {
  const char* name;
  Factory factory;
  const char* rule;  // The rule its failure must be credited to.
};

class WindowStoreAttribution : public ::testing::TestWithParam<WrongStore> {};

TEST_P(WindowStoreAttribution, FailureIsCreditedToTheRuleTheStoreBreaks) {
  const PropertyOutcome out = FirstFailure(GetParam().factory);
  ASSERT_FALSE(out.passed) << GetParam().name << " went unnoticed";
  EXPECT_EQ(out.rule, GetParam().rule) << out.property << ":\n" << out.message;
  EXPECT_EQ(out.message.rfind(std::string(GetParam().rule) + ": ", 0), 0u) << out.message;
}

INSTANTIATE_TEST_SUITE_P(
    WrongStores, WindowStoreAttribution,
    ::testing::Values(
        WrongStore{"StreamTimeSkipsDeletes", NewWrapped<StreamTimeSkipsDeletesStore>, "W2"},
        WrongStore{"OffByOneDrop", NewOffByOneDropStore, "W3"},
        WrongStore{"DeleteIgnored", NewWrapped<DeleteIgnoredStore>, "W4"},
        WrongStore{"DuplicatesPointFetch", NewWrapped<DuplicatesPointFetchStore>, "W5"},
        WrongStore{"FetchAllBoundOffByOne", NewWrapped<FetchAllBoundOffByOneStore>, "W6"},
        WrongStore{"BackwardIsForward", NewWrapped<BackwardIsForwardStore>, "W7"},
        WrongStore{"PrefixLeak", NewWrapped<PrefixLeakStore>, "W7"},
        WrongStore{"LeakedIterator", NewWrapped<LeakedIteratorStore>, "W8"},
        WrongStore{"ReadAhead", NewWrapped<ReadAheadStore>, "W9"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(WindowStoreProperty, ConstructionFailureIsCreditedToW1) {
  PropertyParams p;
  p.seed = 16;
  p.max_success = 500;
  const PropertyOutcome out = CheckConstruction(NewLenientStore, p);
  ASSERT_FALSE(out.passed) << "a store accepting size > retention went unnoticed";
  EXPECT_EQ(out.rule, "W1") << out.message;
}

// Every situation W1–W9 declare is reached and checked by a short run of the family (fixed seed,
// a few hundred cases per configuration: far less than a campaign's share), and every
// situation the run counted is declared.
TEST(WindowStoreProperty, EveryDeclaredSituationIsReached) {
  const PropertyParams p = kit::TestParams(42, 200, 80);
  Evidence evidence;
  const PropertyOutcome construction = CheckConstruction(EngineFactory(), p);
  ASSERT_TRUE(construction.passed) << construction.message;
  evidence += construction.evidence;
  for (const Config& config : OptionMatrix()) {
    const PropertyOutcome out = CheckMatchesModel(EngineFactory(), config, p);
    ASSERT_TRUE(out.passed) << out.property << ": " << out.message;
    evidence += out.evidence;
  }
  const reports::RuleCatalogue& catalogue = reports::RuleCatalogue::Builtin();
  for (const auto& [name, cases] : evidence.situations) {
    EXPECT_NE(catalogue.FindSituation(name), nullptr) << name << " is counted but not declared";
    EXPECT_GT(cases, 0) << name;
  }
  int declared = 0;
  for (const char* id : {"W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9"}) {
    const reports::Rule* rule = catalogue.Find(id);
    ASSERT_NE(rule, nullptr) << id;
    EXPECT_GE(rule->situations.size(), reports::kMinSituations) << id;
    for (const reports::Situation& s : rule->situations) {
      ++declared;
      EXPECT_GT(evidence.situations[s.name], 0) << s.name << " (" << s.text << ") never reached";
    }
    EXPECT_GT(evidence.rule_cases[id], 0) << id;
  }
  EXPECT_GT(declared, 0);
}

// The planted build only: each planted bug of the window store is caught, and its finding cites
// one of the rules the bug breaks (engine/base/planted_bugs.inc).
TEST(WindowStoreProperty, PlantedBugsAreCreditedToTheirRules) {
  if (!planted::Compiled()) GTEST_SKIP() << "not the planted build";
  int checked = 0;
  for (const planted::PlantedBug& bug : planted::Catalogue()) {
    if (bug.name.rfind("window_store/", 0) != 0) continue;
    ASSERT_TRUE(planted::Activate(bug.name).ok()) << bug.name;
    const PropertyOutcome out = FirstFailure(EngineFactory());
    planted::DeactivateAll();
    ++checked;
    ASSERT_FALSE(out.passed) << bug.name << " went unnoticed";
    std::vector<std::string> rules;
    for (std::string_view rest = bug.rules; !rest.empty();) {
      const size_t comma = std::min(rest.find(','), rest.size());
      rules.emplace_back(rest.substr(0, comma));
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
    EXPECT_NE(std::find(rules.begin(), rules.end(), out.rule), rules.end())
        << bug.name << " (breaks " << bug.rules << ") was credited to " << out.rule << ":\n"
        << out.message;
  }
  EXPECT_GT(checked, 0);
}

TEST(WindowStoreProperty, PlantedBugIsCaughtShrunkAndReplayed) {
  PropertyParams p = ParamsFromEnvironment();
  p.trace_dir = (std::filesystem::path(::testing::TempDir()) / "planted").string();
  Config config = OptionMatrix()[2];  // ret10_size3
  ASSERT_EQ(config.label, "ret10_size3");
  const PropertyOutcome out = CheckMatchesModel(NewOffByOneDropStore, config, p);
  ASSERT_FALSE(out.passed) << "the planted bug went unnoticed";
  EXPECT_EQ(out.rule, "W3") << out.message;
  EXPECT_LE(out.counterexample.size(), 6u) << out.message;
  ASSERT_FALSE(out.trace_path.empty()) << out.message;
  EXPECT_FALSE(out.reproduce.empty());

  kit::Trace<Vocabulary> trace;
  std::string text;
  ASSERT_TRUE(kit::ReadTextFile(out.trace_path, &text).ok());
  ASSERT_TRUE(kit::ParseTrace(text, out.trace_path, &trace).ok());
  EXPECT_LE(trace.steps.size(), 6u);
  // The trace fails on the planted store, credited to the same rule, and passes on the engine
  // and the model.
  TraceReplay buggy;
  ASSERT_TRUE(Replay(trace, ReplayTarget::kEngine, NewOffByOneDropStore, &buggy).ok());
  EXPECT_TRUE(buggy.diverged);
  EXPECT_EQ(buggy.rule, "W3") << buggy.message;
  EXPECT_NE(buggy.message.find("engine vs trace"), std::string::npos) << buggy.message;
  TraceReplay fixed;
  ASSERT_TRUE(Replay(trace, ReplayTarget::kBoth, EngineFactory(), &fixed).ok());
  EXPECT_FALSE(fixed.diverged) << fixed.verdict;

  // The reproduce string re-runs exactly the shrunk case.
  PropertyParams again = p;
  again.reproduce = out.reproduce;
  const PropertyOutcome reproduced = CheckMatchesModel(NewOffByOneDropStore, config, again);
  EXPECT_FALSE(reproduced.passed);
  EXPECT_EQ(reproduced.counterexample, out.counterexample);
}

}  // namespace
}  // namespace statecheck::properties::window_store
