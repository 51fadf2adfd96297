#include "engine/runtime/restore_plan.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace statecheck::internal {
namespace {

using Action = StoreOpenAction;
constexpr auto kCurrent = StateFormat::kCurrent;
constexpr auto kLegacy = StateFormat::kLegacy;
constexpr std::optional<StateFormat> kNewStore = std::nullopt;

struct Row {
  const char* what;
  StoreOpenFacts facts;
  Action action;
  std::optional<int64_t> legacy_offset;
  bool clean;
  const char* why;  // A part of wipe_why ("" : none).
};

StoreOpenFacts Facts(bool legacy_configured, std::optional<StateFormat> found, bool clean,
                     bool wipe_on_unclean, bool eos, LegacyEntry entry = LegacyEntry::kMissing,
                     int64_t offset = 0) {
  StoreOpenFacts f;
  f.legacy_configured = legacy_configured;
  f.found_format = found;
  f.was_closed_cleanly = clean;
  f.wipe_on_unclean_shutdown = wipe_on_unclean;
  f.eos = eos;
  f.legacy = entry;
  f.legacy_offset = offset;
  return f;
}

// Every row of the decision a task makes per store (task.h "Formats", SPEC T10, U1–U5).
TEST(RestorePlan, EachRowOfTheFormatAndShutdownTable) {
  const std::vector<Row> rows = {
      {"current, a new store", Facts(false, kNewStore, true, true, true), Action::kKeep,
       std::nullopt, true, ""},
      {"current, unclean, T1 says wipe (T10)", Facts(false, kCurrent, false, true, true),
       Action::kWipe, std::nullopt, false, ""},
      {"current, unclean, T1 says keep", Facts(false, kCurrent, false, false, false), Action::kKeep,
       std::nullopt, false, ""},
      {"current, clean", Facts(false, kCurrent, true, true, true), Action::kKeep, std::nullopt,
       true, ""},
      {"upgrade with an offset (U1)",
       Facts(false, kLegacy, false, true, true, LegacyEntry::kOffset, 7), Action::kImport, 7, true,
       ""},
      {"upgrade, offset unknown (-4)",
       Facts(false, kLegacy, true, true, false, LegacyEntry::kUnknown), Action::kImport,
       std::nullopt, true, ""},
      {"upgrade, no .checkpoint entry, EOS",
       Facts(false, kLegacy, true, true, true, LegacyEntry::kMissing), Action::kWipe, std::nullopt,
       true, "under EOS"},
      {"upgrade, untrusted files (U5), unclean marker",
       Facts(false, kLegacy, false, true, true, LegacyEntry::kUntrusted), Action::kWipe,
       std::nullopt, true, "(U5)"},
      {"downgrade (U3)", Facts(true, kCurrent, true, false, false, LegacyEntry::kOffset, 3),
       Action::kWipe, std::nullopt, true, "(U3)"},
      {"legacy with an offset", Facts(true, kLegacy, true, false, true, LegacyEntry::kOffset, 5),
       Action::kKeep, 5, true, ""},
      {"legacy, offset unknown", Facts(true, kLegacy, true, false, false, LegacyEntry::kUnknown),
       Action::kKeep, std::nullopt, true, ""},
      {"legacy, no entry, ALOS", Facts(true, kLegacy, true, false, false, LegacyEntry::kMissing),
       Action::kWipe, std::nullopt, true, "never committed"},
      {"legacy, untrusted files (U5)",
       Facts(true, kLegacy, true, false, false, LegacyEntry::kUntrusted, 9), Action::kWipe,
       std::nullopt, true, "(U5)"},
      {"legacy, a new store, unclean marker, T1 says wipe: the marker means nothing there",
       Facts(true, kNewStore, false, true, true, LegacyEntry::kMissing), Action::kKeep,
       std::nullopt, false, ""},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    const StoreOpenPlan plan = PlanStoreOpen(row.facts);
    EXPECT_EQ(plan.action, row.action);
    EXPECT_EQ(plan.legacy_offset, row.legacy_offset);
    EXPECT_EQ(plan.was_closed_cleanly, row.clean);
    if (*row.why == '\0') {
      EXPECT_EQ(plan.wipe_why, "");
    } else {
      EXPECT_NE(plan.wipe_why.find(row.why), std::string::npos) << plan.wipe_why;
    }
  }
}

}  // namespace
}  // namespace statecheck::internal
