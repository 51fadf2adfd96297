// libFuzzer target: any bytes as one of the configuration-like inputs. Built only with
// -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over tools/fuzz_corpus/config/.
//
// The first byte picks the parser (byte % 5), the rest is its input:
//   0  the streams configuration (ResolveStateConfig, statecheck/state_config.h): "key=value"
//      lines;
//   1  a rule catalogue (RuleCatalogue::Parse of rules.json, reports/rule_catalogue.h);
//   2  a report.json read back by `statecheck report merge` (ReadReportJson, run_report.h);
//   3  a --shard value (ParseShard, tools/shard.h), and the same text split at its first '/' as
//      each CI convention's index and count variables (ResolveShard);
//   4  a windowed aggregation's commit metadata (ParseLastEmitClose,
//      statecheck/processor_metadata.h): the store name, a newline, the metadata.
// Beyond "no crash, no sanitizer report, no exception", each must keep:
//   * An error has its parser's code and names the problem (the configuration key, "rule
//     catalogue: ", "report.json: ", the --shard text, the metadata), and leaves the output as
//     it was.
//   * On OK, what was read writes back (the resolved configuration's own names, FormatRulesJson,
//     ReportJson, "i/n", LastEmitCloseMetadata) and reads again to the same thing; a shard was
//     digits/digits (leading zeros allowed), nothing else.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/catalogue_format.h"
#include "reports/rule_catalogue.h"
#include "reports/run_report.h"
#include "statecheck/processor_metadata.h"
#include "statecheck/state_config.h"
#include "tools/shard.h"

namespace {

using statecheck::Status;

void Check(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "config_fuzz: invariant broken: %s\n%s\n", what, detail.c_str());
  std::abort();
}

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

void FuzzStateConfig(std::string_view text) {
  std::map<std::string, std::string> props;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    props[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  statecheck::StateConfig config;
  config.warnings.push_back("sentinel");
  const statecheck::StateConfig sentinel = config;
  const Status s = statecheck::ResolveStateConfig(props, &config);
  if (!s.ok()) {
    Check(s.code() == Status::Code::kInvalidArgument, "a config error that is not InvalidArgument",
          s.ToString());
    bool names_key = false;
    for (const auto& [key, value] : props) {
      names_key |= s.message().find("for configuration " + key) != std::string::npos;
    }
    Check(names_key, "a config error not naming the key", s.ToString());
    Check(config == sentinel, "an error changed the output");
    return;
  }
  for (const std::string& w : config.warnings) Check(!w.empty(), "an empty warning");
  // The configuration in its own names resolves to itself.
  std::map<std::string, std::string> canonical = {
      {std::string(statecheck::kProcessingGuaranteeConfig),
       std::string(statecheck::ProcessingGuaranteeName(config.guarantee))},
      {std::string(statecheck::kUncommittedMaxBytesConfig),
       std::to_string(config.uncommitted_max_bytes)},
      {std::string(statecheck::kStateFormatConfig),
       std::string(statecheck::StateFormatName(config.format))}};
  if (config.configured_isolation) {
    canonical[std::string(statecheck::kIsolationLevelConfig)] =
        statecheck::IsolationLevelName(*config.configured_isolation);
  }
  statecheck::StateConfig again;
  Check(statecheck::ResolveStateConfig(canonical, &again).ok(), "the canonical names fail");
  again.warnings = config.warnings;  // A deprecated alias warns only as written.
  Check(again == config, "the canonical names resolve to another configuration");
}

void FuzzRuleCatalogue(std::string_view text) {
  const auto& builtin = statecheck::reports::RuleCatalogue::Builtin();
  statecheck::reports::RuleCatalogue catalogue = builtin;
  const Status s = statecheck::reports::RuleCatalogue::Parse(text, &catalogue);
  if (!s.ok()) {
    Check(s.code() == Status::Code::kInvalidArgument && StartsWith(s.message(), "rule catalogue: "),
          "a catalogue error that does not say so", s.ToString());
    Check(catalogue.rules() == builtin.rules(), "an error changed the catalogue");
    return;
  }
  std::vector<const statecheck::reports::Rule*> rules;
  for (const auto& r : catalogue.rules()) rules.push_back(&r);
  const std::string json = statecheck::reports::FormatRulesJson(rules);
  statecheck::reports::RuleCatalogue again;
  const Status r = statecheck::reports::RuleCatalogue::Parse(json, &again);
  Check(r.ok() && again.rules() == catalogue.rules(), "FormatRulesJson does not read back",
        r.ToString() + "\n" + json);
}

void FuzzReport(std::string_view text) {
  statecheck::reports::RunReport report;
  report.commit = "sentinel";
  const Status s = statecheck::reports::ReadReportJson(std::string(text), &report);
  if (!s.ok()) {
    Check(s.code() == Status::Code::kInvalidArgument && StartsWith(s.message(), "report.json: "),
          "a report error that does not say so", s.ToString());
    Check(report.commit == "sentinel" && report.properties.empty() && report.seed == 0,
          "an error changed the report");
    return;
  }
  std::vector<const statecheck::reports::Rule*> rules;
  for (const auto& r : statecheck::reports::RuleCatalogue::Builtin().rules()) rules.push_back(&r);
  const std::string json =
      statecheck::reports::ReportJson(report, statecheck::reports::RuleVerdicts(rules, report));
  statecheck::reports::RunReport again;
  const Status r = statecheck::reports::ReadReportJson(json, &again);
  Check(r.ok(), "ReportJson's text does not read back", r.ToString() + "\n" + json);
  Check(statecheck::reports::ReportJson(again, statecheck::reports::RuleVerdicts(rules, again)) ==
            json,
        "a report does not write the same after a round trip", json);
}

void FuzzShard(std::string_view text) {
  int index = -7, count = -7;
  const Status s = statecheck::tools::ParseShard(std::string(text), &index, &count);
  if (!s.ok()) {
    Check(s.code() == Status::Code::kInvalidArgument &&
              s.message().find("--shard takes i/n") != std::string::npos,
          "a --shard error that does not say so", s.ToString());
    Check(index == -7 && count == -7, "an error changed the output");
    return;
  }
  Check(0 <= index && index < count, "a shard out of range");
  const size_t slash = text.find('/');
  Check(slash != std::string_view::npos && slash > 0 && slash + 1 < text.size() &&
            text.find_first_not_of("0123456789/") == std::string_view::npos &&
            text.find('/', slash + 1) == std::string_view::npos,
        "a shard that is not digits/digits", std::string(text));
  int i = -1, n = -1;
  Check(statecheck::tools::ParseShard(std::to_string(index) + "/" + std::to_string(count), &i, &n)
                .ok() &&
            i == index && n == count,
        "a shard that does not read back", std::string(text));
}

// `text` split at its first '/' as a CI convention's two variables (tools/shard.h), and whole as
// STATECHECK_SHARD: an error names a variable and leaves the choice as it was; on OK the shard
// is in range and its source names the variables.
void FuzzShardEnvironment(std::string_view text) {
  const std::string t(text);
  const size_t slash = t.find('/');
  const std::string index = t.substr(0, slash);
  const std::string count = slash == std::string::npos ? "" : t.substr(slash + 1);
  std::vector<std::pair<std::string, std::string>> pairs = {{"STATECHECK_SHARD", ""}};
  for (const statecheck::tools::ShardConvention& c : statecheck::tools::kShardConventions) {
    pairs.emplace_back(c.index, c.count);
  }
  for (const auto& [index_var, count_var] : pairs) {
    std::map<std::string, std::string> vars;
    if (count_var.empty()) {
      vars[index_var] = t;
    } else {
      vars[index_var] = index;
      if (slash != std::string::npos) vars[count_var] = count;
    }
    const auto env = [&vars](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
    statecheck::tools::ShardChoice choice;
    choice.index = -7;
    const Status s = statecheck::tools::ResolveShard("", env, &choice);
    if (!s.ok()) {
      Check(s.code() == Status::Code::kInvalidArgument &&
                s.message().find(index_var + "=") != std::string::npos,
            "a shard variable's error that does not name it", s.ToString());
      Check(choice.index == -7, "an error changed the choice");
      continue;
    }
    Check(choice.count >= 1 && 0 <= choice.index && choice.index < choice.count,
          "a shard out of range from the environment", t);
    Check(choice.source.find(index_var + "=") != std::string::npos,
          "a shard whose source does not name its variable", choice.source);
  }
}

void FuzzLastEmitClose(std::string_view input) {
  const size_t nl = input.find('\n');
  const std::string_view store = nl == std::string_view::npos ? "store" : input.substr(0, nl);
  const std::string_view metadata = nl == std::string_view::npos ? input : input.substr(nl + 1);
  int64_t close = 12345;
  const Status s = statecheck::ParseLastEmitClose(metadata, store, &close);
  if (!s.ok()) {
    Check(s.code() == Status::Code::kCorruption &&
              s.message().find("committed metadata") != std::string::npos,
          "a metadata error that does not say so", s.ToString());
    Check(close == 12345, "an error changed the output");
    return;
  }
  if (store.find_first_of(";=") != std::string_view::npos) return;
  const std::string written = statecheck::LastEmitCloseMetadata(store, close);
  int64_t again = 0;
  Check(statecheck::ParseLastEmitClose(written, store, &again).ok() && again == close,
        "the metadata does not read back", written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      FuzzStateConfig(rest);
      break;
    case 1:
      FuzzRuleCatalogue(rest);
      break;
    case 2:
      FuzzReport(rest);
      break;
    case 3:
      FuzzShard(rest);
      FuzzShardEnvironment(rest);
      break;
    default:
      FuzzLastEmitClose(rest);
      break;
  }
  return 0;
}
