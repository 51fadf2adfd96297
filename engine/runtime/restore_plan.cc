#include "engine/runtime/restore_plan.h"

namespace statecheck::internal {
namespace {

// What the legacy files say of the store: its offset (nullopt: restore from 0), or why it must
// be wiped (`*wipe_why`).
std::optional<int64_t> LegacyOffset(const StoreOpenFacts& f, std::string* wipe_why) {
  switch (f.legacy) {
    case LegacyEntry::kUntrusted:
      // Keeps: U5 — an untrusted file yields no offset: its stores are wiped and restored in full
      *wipe_why = "its .checkpoint or .position file cannot be trusted (U5)";
      return std::nullopt;
    case LegacyEntry::kMissing:
      // Kafka wipes only under exactly-once and restores over the store under at-least-once;
      // the result is the same here, minus any key the changelog never got.
      *wipe_why = f.eos ? "it has no offset in .checkpoint (written only at a clean close under "
                          "exactly-once), and under EOS it has the risk of getting uncommitted "
                          "data in stores"
                        : "it has no offset in .checkpoint (its task never committed, or the file "
                          "was lost), so nothing says which of its writes the changelog has";
      return std::nullopt;
    case LegacyEntry::kUnknown:
      return std::nullopt;
    case LegacyEntry::kOffset:
      return f.legacy_offset;
  }
  return std::nullopt;
}

}  // namespace

StoreOpenPlan PlanStoreOpen(const StoreOpenFacts& f) {
  StoreOpenPlan plan;
  plan.was_closed_cleanly = f.was_closed_cleanly;
  // Keeps: U4 — the format found on disk, not the one last configured, decides what follows
  if (f.legacy_configured && f.found_format == StateFormat::kCurrent) {
    // Keeps: U3 — a downgrade: the legacy format wipes a current-format store and restores it
    plan.wipe_why = "it has the current format (offsets kept in the store), which state.format=" +
                    std::string(StateFormatName(StateFormat::kLegacy)) + " cannot use (U3)";
  } else if (f.legacy_configured && f.found_format) {
    plan.legacy_offset = LegacyOffset(f, &plan.wipe_why);
  } else if (!f.legacy_configured && f.found_format == StateFormat::kLegacy) {
    // U1: import what the legacy files say, atomically with the current-format mark. (A legacy
    // store's open-status marker means nothing: the files say how it was closed.)
    plan.was_closed_cleanly = true;
    plan.legacy_offset = LegacyOffset(f, &plan.wipe_why);
    if (plan.wipe_why.empty()) plan.action = StoreOpenAction::kImport;
  }
  if (!plan.wipe_why.empty()) {
    plan.action = StoreOpenAction::kWipe;
    plan.legacy_offset.reset();
  } else if (!plan.was_closed_cleanly && f.wipe_on_unclean_shutdown && !f.legacy_configured) {
    // Keeps: T10 — an unclean shutdown where the T1 table says wipe: wipe, restore from 0
    plan.action = StoreOpenAction::kWipe;
  }
  return plan;
}

}  // namespace statecheck::internal
