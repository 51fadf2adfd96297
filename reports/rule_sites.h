// Rule sites: where the code keeps, encodes and checks each rule of docs/spec.md, read from
// one-line tags in the sources (what `statecheck list rules --sites` prints).
//
// A tag is a `//` comment that starts with `Keeps:` (in engine/: the code that keeps the rule),
// `Encodes:` (in model/: the reference model's decision) or `Checks:` (in properties/: where a
// campaign property compares the engine with the model for it), then rule ids separated by
// commas, then optionally " — " and what exactly is kept, encoded or checked there:
//
//   // Keeps: W3 — a put at or below stream time − retention is dropped and counted
//   if (expired) {
//
// The site is the tag's line. Test files (*_test.cc) hold no tags: a rule's tests are listed in
// rules.json.
#ifndef STATECHECK_REPORTS_RULE_SITES_H_
#define STATECHECK_REPORTS_RULE_SITES_H_

#include <string>
#include <string_view>
#include <vector>

#include "reports/rule_catalogue.h"
#include "statecheck/status.h"

namespace statecheck::reports {

enum class SiteKind { kKeeps, kEncodes, kChecks };

// "engine" / "model" / "properties": the folder each kind lives in.
std::string_view SiteFolder(SiteKind kind);
// "Keeps" / "Encodes" / "Checks": the tag's word.
std::string_view SiteWord(SiteKind kind);

struct RuleSite {
  SiteKind kind;
  std::string rule;  // "W3".
  std::string path;  // Relative to the scanned root: "engine/store/in_memory_window_store.cc".
  int line = 0;      // 1-based.
  std::string note;  // The text after " — "; may be empty.
  friend bool operator==(const RuleSite&, const RuleSite&) = default;
};

// Parses one source line. Returns OK and appends one site per rule id of the line's tag to
// `*sites` (none when the line holds no tag). Returns InvalidArgument naming `path`, `line` and
// the problem when the tag is malformed (no id, an id the catalogue lacks, text after the ids
// without " — "), its word does not belong in `path`'s folder, or `path` is a test file; then
// `*sites` is unchanged. REQUIRES: sites != nullptr.
Status ParseSiteLine(std::string_view path, int line, std::string_view text,
                     const RuleCatalogue& catalogue, std::vector<RuleSite>* sites);

// Every tag in the .h and .cc files under `root`'s engine/, model/ and properties/ folders,
// ordered by path and line. On a malformed or misplaced tag (see ParseSiteLine), or when a
// folder is missing or unreadable, returns the error and leaves `*sites` unchanged.
// REQUIRES: sites != nullptr.
Status ScanRuleSites(const std::string& root, const RuleCatalogue& catalogue,
                     std::vector<RuleSite>* sites);

// One line per missing site, for every rule with campaign properties (property_families not
// empty) that lacks a site of some kind: "T4: no model site (// Encodes: T4 in model/)".
std::vector<std::string> MissingSites(const RuleCatalogue& catalogue,
                                      const std::vector<RuleSite>& sites);

// Per rule (in the given order) its id and title, then each site as "  keeps    path:line  note"
// (kinds in the order keeps, encodes, checks); a rule with none says so. Ends with a newline.
std::string FormatSitesText(const std::vector<const Rule*>& rules,
                            const std::vector<RuleSite>& sites);

// A JSON array of {id, title, keeps: [{path, line, note}], encodes: [...], checks: [...]} per
// rule, in the given order. Indented by two spaces; ends with a newline.
std::string FormatSitesJson(const std::vector<const Rule*>& rules,
                            const std::vector<RuleSite>& sites);

}  // namespace statecheck::reports

#endif  // STATECHECK_REPORTS_RULE_SITES_H_
