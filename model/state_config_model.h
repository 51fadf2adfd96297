// The T1 table (SPEC T1, with SPEC U's legacy format) as the model reads it: the effective row
// of a configuration, computed from the configuration keys by a plain table lookup, apart from
// the engine's ResolveStateConfig. The properties configure their models from this row and
// check the engine's resolution against it, so that a wrong row in the engine is a finding
// rather than a mistake the engine and the model share.
#ifndef STATECHECK_MODEL_STATE_CONFIG_MODEL_H_
#define STATECHECK_MODEL_STATE_CONFIG_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/finding.h"
#include "statecheck/state_config.h"

namespace statecheck::model {

struct T1Row {
  ProcessingGuarantee guarantee = ProcessingGuarantee::kAtLeastOnce;
  IsolationLevel isolation = IsolationLevel::kReadUncommitted;  // Effective.
  bool buffer_writes = false;
  bool wipe_on_unclean_shutdown = false;
  StateFormat format = StateFormat::kCurrent;
  int64_t uncommitted_max_bytes = kDefaultUncommittedMaxBytes;
};

// One configuration of each row of T1's table, as the harness's matrices name them: "alos_unset",
// "alos_ru", "alos_rc", "eos_unset", "eos_ru", "eos_rc" (processing.guarantee ×
// default.state.isolation.level, unset or set), in that order. Inline: the trace parsers' fuzz
// build reads these labels without the model's library.
struct T1Configuration {
  std::string label;
  std::map<std::string, std::string> props;
};
inline const std::vector<T1Configuration>& T1Configurations() {
  static const auto* const rows = new std::vector<T1Configuration>{
      {"alos_unset", {}},
      {"alos_ru", {{"default.state.isolation.level", "READ_UNCOMMITTED"}}},
      {"alos_rc", {{"default.state.isolation.level", "READ_COMMITTED"}}},
      {"eos_unset", {{"processing.guarantee", "exactly_once_v2"}}},
      {"eos_ru",
       {{"processing.guarantee", "exactly_once_v2"},
        {"default.state.isolation.level", "READ_UNCOMMITTED"}}},
      {"eos_rc",
       {{"processing.guarantee", "exactly_once_v2"},
        {"default.state.isolation.level", "READ_COMMITTED"}}},
  };
  return *rows;
}

// The row of `props`. Only the values the SPEC allows (the deprecated aliases included); false,
// with the key and value in *problem, for anything else — the property's own matrix has none.
bool ExpectedT1Row(const std::map<std::string, std::string>& props, T1Row* row,
                   std::string* problem);

// Held (nullopt) when the engine's resolution is the row; otherwise a T1 finding naming the
// configuration and the row each side has.
[[nodiscard]] CheckResult CompareT1Row(const std::map<std::string, std::string>& props,
                                       const StateConfig& engine, const T1Row& expected);

}  // namespace statecheck::model

#endif  // STATECHECK_MODEL_STATE_CONFIG_MODEL_H_
