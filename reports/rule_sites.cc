#include "reports/rule_sites.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <system_error>
#include <tuple>

namespace statecheck::reports {
namespace {

constexpr std::array<SiteKind, 3> kKinds = {SiteKind::kKeeps, SiteKind::kEncodes,
                                            SiteKind::kChecks};

// " — " (an em dash between spaces) separates the ids from the note.
constexpr std::string_view kNoteSeparator = " \xE2\x80\x94 ";

std::string_view KindName(SiteKind kind) {
  switch (kind) {
    case SiteKind::kKeeps:
      return "engine";
    case SiteKind::kEncodes:
      return "model";
    case SiteKind::kChecks:
      return "property";
  }
  return "";
}

std::string Where(std::string_view path, int line) {
  return std::string(path) + ":" + std::to_string(line);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::string_view SiteFolder(SiteKind kind) {
  return kind == SiteKind::kChecks ? "properties" : KindName(kind);
}

std::string_view SiteWord(SiteKind kind) {
  switch (kind) {
    case SiteKind::kKeeps:
      return "Keeps";
    case SiteKind::kEncodes:
      return "Encodes";
    case SiteKind::kChecks:
      return "Checks";
  }
  return "";
}

Status ParseSiteLine(std::string_view path, int line, std::string_view text,
                     const RuleCatalogue& catalogue, std::vector<RuleSite>* sites) {
  static const std::regex kTag(R"(//\s*(Keeps|Encodes|Checks):(.*)$)");
  static const std::regex kIds(R"(^\s*([A-Z]+[0-9]+(\s*,\s*[A-Z]+[0-9]+)*))");
  if (text.find("Keeps:") == std::string_view::npos &&
      text.find("Encodes:") == std::string_view::npos &&
      text.find("Checks:") == std::string_view::npos) {
    return Status::Ok();  // The common case, without a regex.
  }
  std::match_results<std::string_view::const_iterator> tag;
  if (!std::regex_search(text.begin(), text.end(), tag, kTag)) return Status::Ok();
  const std::string word = tag[1].str();
  const SiteKind kind = word == "Keeps"     ? SiteKind::kKeeps
                        : word == "Encodes" ? SiteKind::kEncodes
                                            : SiteKind::kChecks;
  const std::string where = Where(path, line);
  if (path.ends_with("_test.cc")) {
    return Status::InvalidArgument(where + ": a \"" + word +
                                   ":\" tag in a test file; a rule's tests are listed in "
                                   "reports/rules.json, its sites are in engine/, model/ and "
                                   "properties/");
  }
  const std::string folder(SiteFolder(kind));
  if (!path.starts_with(folder + "/")) {
    return Status::InvalidArgument(where + ": \"" + word + ":\" tags belong in " + folder +
                                   "/ (Keeps: engine/, Encodes: model/, Checks: properties/)");
  }
  const std::string rest = tag[2].str();
  std::smatch ids;
  if (!std::regex_search(rest, ids, kIds)) {
    return Status::InvalidArgument(
        where + ": \"" + word + ":\" is not followed by a rule id (write \"// " + word +
        ": W3 — what is " + (kind == SiteKind::kChecks ? "checked" : "kept") + " here\")");
  }
  std::string_view after = std::string_view(rest).substr(static_cast<size_t>(ids.length(0)));
  std::string note;
  if (!Trim(after).empty()) {
    if (!after.starts_with(kNoteSeparator)) {
      return Status::InvalidArgument(where + ": after the rule ids of a \"" + word +
                                     ":\" tag comes \" — \" and a note, not \"" +
                                     std::string(Trim(after)) + "\"");
    }
    note = std::string(Trim(after.substr(kNoteSeparator.size())));
  }
  std::vector<RuleSite> found;
  const std::string list = ids[1].str();
  static const std::regex kId(R"([A-Z]+[0-9]+)");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), kId); it != std::sregex_iterator();
       ++it) {
    const std::string id = it->str();
    if (catalogue.Find(id) == nullptr) {
      return Status::InvalidArgument(where + ": \"" + word + ": " + id + "\" names no rule of " +
                                     "reports/rules.json (`statecheck list rules` lists them)");
    }
    found.push_back(RuleSite{kind, id, std::string(path), line, note});
  }
  sites->insert(sites->end(), found.begin(), found.end());
  return Status::Ok();
}

Status ScanRuleSites(const std::string& root, const RuleCatalogue& catalogue,
                     std::vector<RuleSite>* sites) {
  namespace fs = std::filesystem;
  std::vector<RuleSite> found;
  for (SiteKind kind : kKinds) {
    const fs::path dir = fs::path(root) / SiteFolder(kind);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      return Status::InvalidArgument(root + " is not a statecheck source tree: it has no " +
                                     dir.filename().string() +
                                     "/ (give the repository's top directory)");
    }
    std::vector<fs::path> files;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (it->is_regular_file() && (p.extension() == ".cc" || p.extension() == ".h")) {
        files.push_back(p);
      }
    }
    if (ec) return Status::IOError("cannot list " + dir.string() + ": " + ec.message());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::ifstream in(file);
      if (!in) return Status::IOError("cannot read " + file.string());
      const std::string rel = fs::relative(file, root).generic_string();
      std::string text;
      for (int line = 1; std::getline(in, text); ++line) {
        STATECHECK_RETURN_IF_ERROR(ParseSiteLine(rel, line, text, catalogue, &found));
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const RuleSite& a, const RuleSite& b) {
    return std::tie(a.path, a.line) < std::tie(b.path, b.line);
  });
  *sites = std::move(found);
  return Status::Ok();
}

std::vector<std::string> MissingSites(const RuleCatalogue& catalogue,
                                      const std::vector<RuleSite>& sites) {
  std::vector<std::string> missing;
  for (const Rule& rule : catalogue.rules()) {
    if (rule.property_families.empty()) continue;
    for (SiteKind kind : kKinds) {
      const bool has = std::any_of(sites.begin(), sites.end(), [&](const RuleSite& s) {
        return s.kind == kind && s.rule == rule.id;
      });
      if (!has) {
        missing.push_back(rule.id + ": no " + std::string(KindName(kind)) + " site (// " +
                          std::string(SiteWord(kind)) + ": " + rule.id + " in " +
                          std::string(SiteFolder(kind)) + "/)");
      }
    }
  }
  return missing;
}

namespace {

// The sites of `rule` of `kind`, in path and line order.
std::vector<const RuleSite*> SitesOf(const std::vector<RuleSite>& sites, const Rule& rule,
                                     SiteKind kind) {
  std::vector<const RuleSite*> out;
  for (const RuleSite& s : sites) {
    if (s.kind == kind && s.rule == rule.id) out.push_back(&s);
  }
  return out;
}

}  // namespace

std::string FormatSitesText(const std::vector<const Rule*>& rules,
                            const std::vector<RuleSite>& sites) {
  std::string out;
  for (const Rule* rule : rules) {
    out += rule->id + "  " + rule->title + "\n";
    bool any = false;
    for (SiteKind kind : kKinds) {
      std::string word(SiteWord(kind));
      word[0] = static_cast<char>(word[0] - 'A' + 'a');
      for (const RuleSite* s : SitesOf(sites, *rule, kind)) {
        any = true;
        std::string where = Where(s->path, s->line);
        out += "  " + word + std::string(9 - word.size(), ' ') + where;
        if (!s->note.empty()) {
          out += std::string(where.size() < 44 ? 44 - where.size() : 1, ' ') + s->note;
        }
        out += "\n";
      }
    }
    if (!any) out += "  (no site tagged)\n";
  }
  return out;
}

std::string FormatSitesJson(const std::vector<const Rule*>& rules,
                            const std::vector<RuleSite>& sites) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Rule* rule : rules) {
    nlohmann::ordered_json r;
    r["id"] = rule->id;
    r["title"] = rule->title;
    for (SiteKind kind : kKinds) {
      std::string word(SiteWord(kind));
      word[0] = static_cast<char>(word[0] - 'A' + 'a');
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const RuleSite* s : SitesOf(sites, *rule, kind)) {
        list.push_back({{"path", s->path}, {"line", s->line}, {"note", s->note}});
      }
      r[word] = std::move(list);
    }
    out.push_back(std::move(r));
  }
  return out.dump(2) + "\n";
}

}  // namespace statecheck::reports
