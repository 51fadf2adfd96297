#include "statecheck/state_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace statecheck {
namespace {

using Props = std::map<std::string, std::string>;

constexpr char kGuarantee[] = "processing.guarantee";
constexpr char kIsolation[] = "default.state.isolation.level";
constexpr char kMaxBytes[] = "statestore.uncommitted.max.bytes";

constexpr char kEosReadUncommittedWarning[] =
    "Configuration default.state.isolation.level=READ_UNCOMMITTED with "
    "processing.guarantee=exactly_once_v2: under exactly-once with READ_UNCOMMITTED, state stores "
    "are wiped and restored from the changelog after an unclean shutdown. Set "
    "default.state.isolation.level=READ_COMMITTED (the default under exactly_once_v2) to keep "
    "them.";

StateConfig Resolve(const Props& props) {
  StateConfig config;
  const Status s = ResolveStateConfig(props, &config);
  EXPECT_TRUE(s.ok()) << s;
  return config;
}

// The error for `props`, with `*out` checked to be untouched.
Status ResolveError(const Props& props) {
  StateConfig sentinel;
  sentinel.uncommitted_max_bytes = 42;
  sentinel.warnings = {"sentinel"};
  StateConfig out = sentinel;
  const Status s = ResolveStateConfig(props, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(out, sentinel) << "the output was changed on error";
  return s;
}

Status GuaranteeError(const std::string& value) {
  return Status::InvalidArgument(
      "Invalid value \"" + value +
      "\" for configuration processing.guarantee: allowed values are at_least_once, "
      "exactly_once_v2 (exactly_once and exactly_once_beta are deprecated aliases of "
      "exactly_once_v2)");
}

Status IsolationError(const std::string& value) {
  return Status::InvalidArgument(
      "Invalid value \"" + value +
      "\" for configuration default.state.isolation.level: allowed values are READ_UNCOMMITTED, "
      "READ_COMMITTED (or leave it unset for the default of the processing guarantee)");
}

Status MaxBytesError(const std::string& value) {
  return Status::InvalidArgument(
      "Invalid value \"" + value +
      "\" for configuration statestore.uncommitted.max.bytes: allowed values are integers from "
      "-1 to 9223372036854775807 (-1 = unlimited)");
}

TEST(StateConfig, Names) {
  EXPECT_EQ(ProcessingGuaranteeName(ProcessingGuarantee::kAtLeastOnce), "at_least_once");
  EXPECT_EQ(ProcessingGuaranteeName(ProcessingGuarantee::kExactlyOnceV2), "exactly_once_v2");
  EXPECT_EQ(IsolationLevelName(IsolationLevel::kReadUncommitted), "READ_UNCOMMITTED");
  EXPECT_EQ(IsolationLevelName(IsolationLevel::kReadCommitted), "READ_COMMITTED");
  EXPECT_EQ(kProcessingGuaranteeConfig, kGuarantee);
  EXPECT_EQ(kIsolationLevelConfig, kIsolation);
  EXPECT_EQ(kUncommittedMaxBytesConfig, kMaxBytes);
}

TEST(StateConfig, Defaults) {
  const StateConfig c = Resolve({});
  EXPECT_EQ(c, StateConfig{});
  EXPECT_EQ(c.guarantee, ProcessingGuarantee::kAtLeastOnce);
  EXPECT_EQ(c.uncommitted_max_bytes, 67108864);
  EXPECT_TRUE(c.warnings.empty());
  // Other keys are ignored.
  EXPECT_EQ(Resolve({{"commit.interval.ms", "oops"}, {"Processing.Guarantee", "x"}}), c);
}

TEST(StateConfig, IsolationTable) {
  using IL = IsolationLevel;
  struct Row {
    std::string guarantee;  // "" = unset.
    std::string isolation;  // "" = unset.
    ProcessingGuarantee want_guarantee;
    std::optional<IL> want_configured;
    IL want_isolation;
    bool want_buffer;
    bool want_wipe;
    std::vector<std::string> want_warnings;
  };
  const ProcessingGuarantee alo = ProcessingGuarantee::kAtLeastOnce;
  const ProcessingGuarantee eos = ProcessingGuarantee::kExactlyOnceV2;
  const std::vector<Row> rows = {
      {"at_least_once", "", alo, std::nullopt, IL::kReadUncommitted, false, false, {}},
      {"at_least_once",
       "READ_UNCOMMITTED",
       alo,
       IL::kReadUncommitted,
       IL::kReadUncommitted,
       false,
       false,
       {}},
      {"at_least_once",
       "READ_COMMITTED",
       alo,
       IL::kReadCommitted,
       IL::kReadCommitted,
       true,
       false,
       {}},
      {"exactly_once_v2", "", eos, std::nullopt, IL::kReadCommitted, true, false, {}},
      {"exactly_once_v2",
       "READ_UNCOMMITTED",
       eos,
       IL::kReadUncommitted,
       IL::kReadUncommitted,
       false,
       true,
       {kEosReadUncommittedWarning}},
      {"exactly_once_v2",
       "READ_COMMITTED",
       eos,
       IL::kReadCommitted,
       IL::kReadCommitted,
       true,
       false,
       {}},
  };
  for (const Row& row : rows) {
    // Each row with the guarantee set explicitly and, for at_least_once, left to its default.
    std::vector<Props> variants;
    Props props;
    if (!row.isolation.empty()) props[kIsolation] = row.isolation;
    if (row.guarantee == "at_least_once") variants.push_back(props);
    props[kGuarantee] = row.guarantee;
    variants.push_back(props);
    for (const Props& p : variants) {
      SCOPED_TRACE("guarantee=" + (p.count(kGuarantee) ? row.guarantee : "(unset)") +
                   " isolation=" + (row.isolation.empty() ? "(unset)" : row.isolation));
      const StateConfig c = Resolve(p);
      EXPECT_EQ(c.guarantee, row.want_guarantee);
      EXPECT_EQ(c.configured_isolation, row.want_configured);
      EXPECT_EQ(c.isolation, row.want_isolation);
      EXPECT_EQ(c.buffer_writes, row.want_buffer);
      EXPECT_EQ(c.wipe_on_unclean_shutdown, row.want_wipe);
      EXPECT_EQ(c.uncommitted_max_bytes, kDefaultUncommittedMaxBytes);
      EXPECT_EQ(c.warnings, row.want_warnings);
    }
  }
}

TEST(StateConfig, DeprecatedAliases) {
  for (const std::string alias : {"exactly_once", "exactly_once_beta"}) {
    SCOPED_TRACE(alias);
    const std::string deprecated = "Configuration processing.guarantee=" + alias +
                                   " is deprecated and will be removed in a future release. "
                                   "Please use exactly_once_v2 instead.";
    StateConfig c = Resolve({{kGuarantee, alias}});
    EXPECT_EQ(c.guarantee, ProcessingGuarantee::kExactlyOnceV2);
    EXPECT_EQ(c.isolation, IsolationLevel::kReadCommitted);
    EXPECT_TRUE(c.buffer_writes);
    EXPECT_FALSE(c.wipe_on_unclean_shutdown);
    EXPECT_EQ(c.warnings, std::vector<std::string>{deprecated});

    // The alias resolves exactly as exactly_once_v2 does, warnings apart.
    for (const std::string isolation : {"READ_UNCOMMITTED", "READ_COMMITTED"}) {
      c = Resolve({{kGuarantee, alias}, {kIsolation, isolation}});
      StateConfig v2 = Resolve({{kGuarantee, "exactly_once_v2"}, {kIsolation, isolation}});
      v2.warnings.insert(v2.warnings.begin(), deprecated);
      EXPECT_EQ(c, v2);
    }
    EXPECT_EQ(Resolve({{kGuarantee, alias}, {kIsolation, "READ_UNCOMMITTED"}}).warnings,
              (std::vector<std::string>{deprecated, kEosReadUncommittedWarning}));
  }
}

TEST(StateConfig, InvalidGuarantee) {
  for (const std::string bad : {"exactly-once", "EXACTLY_ONCE_V2", "At_Least_Once", "", "none",
                                "exactly_once_v3", "at_least_once,exactly_once_v2"}) {
    EXPECT_EQ(ResolveError({{kGuarantee, bad}}), GuaranteeError(bad));
  }
  EXPECT_EQ(
      ResolveError({{kGuarantee, "exactly-once"}}).message(),
      "Invalid value \"exactly-once\" for configuration processing.guarantee: allowed values are "
      "at_least_once, exactly_once_v2 (exactly_once and exactly_once_beta are deprecated aliases "
      "of exactly_once_v2)");
}

TEST(StateConfig, InvalidIsolation) {
  for (const std::string bad : {"read_committed", "Read_Committed", "READ-COMMITTED", "",
                                "SERIALIZABLE", "READ_COMMITTED_"}) {
    EXPECT_EQ(ResolveError({{kIsolation, bad}}), IsolationError(bad));
    EXPECT_EQ(ResolveError({{kGuarantee, "exactly_once_v2"}, {kIsolation, bad}}),
              IsolationError(bad));
  }
}

TEST(StateConfig, FirstInvalidKeyIsReported) {
  const Props all_bad = {{kGuarantee, "eos"}, {kIsolation, "rc"}, {kMaxBytes, "many"}};
  EXPECT_EQ(ResolveError(all_bad), GuaranteeError("eos"));
  EXPECT_EQ(ResolveError({{kIsolation, "rc"}, {kMaxBytes, "many"}}), IsolationError("rc"));
  EXPECT_EQ(ResolveError({{kGuarantee, "exactly_once"}, {kMaxBytes, "many"}}),
            MaxBytesError("many"));
}

TEST(StateConfig, UncommittedMaxBytes) {
  auto bytes = [](const std::string& v) { return Resolve({{kMaxBytes, v}}).uncommitted_max_bytes; };
  EXPECT_EQ(bytes("-1"), -1);  // Unlimited.
  EXPECT_EQ(bytes("0"), 0);
  EXPECT_EQ(bytes("1"), 1);
  EXPECT_EQ(bytes("67108864"), kDefaultUncommittedMaxBytes);
  EXPECT_EQ(bytes("1000"), 1000);
  EXPECT_EQ(bytes("9223372036854775807"), std::numeric_limits<int64_t>::max());
  // As Java's Long.parseLong after ConfigDef's trim: a '+' sign, leading zeros and surrounding
  // blanks are accepted.
  EXPECT_EQ(bytes("+5"), 5);
  EXPECT_EQ(bytes("007"), 7);
  EXPECT_EQ(bytes("-0"), 0);
  EXPECT_EQ(bytes(" 5"), 5);
  EXPECT_EQ(bytes("5 "), 5);
  EXPECT_EQ(bytes("\t5\n"), 5);
  // The bound does not change the table.
  const StateConfig c = Resolve({{kMaxBytes, "-1"}, {kGuarantee, "exactly_once_v2"}});
  EXPECT_EQ(c.isolation, IsolationLevel::kReadCommitted);
  EXPECT_TRUE(c.warnings.empty());

  for (const std::string bad :
       {"-2", "-9223372036854775808", "1e3", "", " ", "5x", "5 5", "0x10", "1.0", "+", "-", "+-5",
        "--1", "9223372036854775808", "-9223372036854775809", "99999999999999999999999",
        "unlimited", "64MB"}) {
    EXPECT_EQ(ResolveError({{kMaxBytes, bad}}), MaxBytesError(bad)) << "value \"" << bad << "\"";
  }
  // A NUL inside the value is junk, not an end of string.
  const std::string with_nul(
      "5\0"
      "1",
      3);
  EXPECT_EQ(ResolveError({{kMaxBytes, with_nul}}), MaxBytesError(with_nul));
}

TEST(StateConfig, SurroundingBlanksAreTrimmedAsKafkaDoes) {
  const StateConfig c =
      Resolve({{kGuarantee, " exactly_once_v2\t"}, {kIsolation, "READ_UNCOMMITTED "}});
  EXPECT_EQ(c.guarantee, ProcessingGuarantee::kExactlyOnceV2);
  EXPECT_EQ(c.isolation, IsolationLevel::kReadUncommitted);
  EXPECT_TRUE(c.wipe_on_unclean_shutdown);
  // The deprecation warning names the alias without the blanks.
  EXPECT_EQ(Resolve({{kGuarantee, " exactly_once "}}).warnings.at(0),
            "Configuration processing.guarantee=exactly_once is deprecated and will be removed in "
            "a future release. Please use exactly_once_v2 instead.");
  // The error quotes the value as given.
  EXPECT_EQ(ResolveError({{kGuarantee, " exactly-once "}}), GuaranteeError(" exactly-once "));
  // Blanks inside a value are not trimmed.
  EXPECT_EQ(ResolveError({{kIsolation, "READ COMMITTED"}}), IsolationError("READ COMMITTED"));
}

TEST(StateConfig, OutputIsReplacedWhole) {
  StateConfig out;
  out.warnings = {"stale"};
  out.uncommitted_max_bytes = 1;
  ASSERT_TRUE(ResolveStateConfig({{kGuarantee, "exactly_once_v2"}}, &out).ok());
  EXPECT_TRUE(out.warnings.empty());
  EXPECT_EQ(out.uncommitted_max_bytes, kDefaultUncommittedMaxBytes);
}

}  // namespace
}  // namespace statecheck

namespace statecheck {
namespace {

TEST(StateConfig, LegacyFormatWritesDirectlyAndWipesUnderExactlyOnce) {
  EXPECT_EQ(Resolve({}).format, StateFormat::kCurrent);
  EXPECT_EQ(StateFormatName(StateFormat::kLegacy), "legacy");
  for (const char* guarantee : {"at_least_once", "exactly_once_v2"}) {
    SCOPED_TRACE(guarantee);
    const bool eos = std::string(guarantee) == "exactly_once_v2";
    const StateConfig c = Resolve({{kGuarantee, guarantee}, {"state.format", " legacy "}});
    EXPECT_EQ(c.format, StateFormat::kLegacy);
    EXPECT_EQ(c.isolation, IsolationLevel::kReadUncommitted);
    EXPECT_FALSE(c.buffer_writes);
    EXPECT_EQ(c.wipe_on_unclean_shutdown, eos);
    EXPECT_TRUE(c.warnings.empty());
    const StateConfig rc = Resolve(
        {{kGuarantee, guarantee}, {kIsolation, "READ_COMMITTED"}, {"state.format", "legacy"}});
    EXPECT_EQ(rc.isolation, IsolationLevel::kReadUncommitted);
    ASSERT_EQ(rc.warnings.size(), 1u);
    EXPECT_NE(rc.warnings[0].find("has no effect with state.format=legacy"), std::string::npos);
  }
  const Status s = ResolveError({{"state.format", "old"}});
  EXPECT_EQ(s.message(),
            "Invalid value \"old\" for configuration state.format: allowed values are current "
            "(offsets kept in the stores, the default), legacy (offsets in .checkpoint files, as "
            "before KIP-892)");
}

}  // namespace
}  // namespace statecheck
