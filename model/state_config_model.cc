#include "model/state_config_model.h"

#include <cstdlib>

namespace statecheck::model {
namespace {

std::string Describe(const std::map<std::string, std::string>& props) {
  std::string out;
  for (const auto& [k, v] : props) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return "{" + out + "}";
}

std::string Row(ProcessingGuarantee g, IsolationLevel i, bool buffered, bool wipe, StateFormat f,
                int64_t max_bytes) {
  return std::string(ProcessingGuaranteeName(g)) + ", " + std::string(IsolationLevelName(i)) +
         (buffered ? ", buffered" : ", not buffered") + (wipe ? ", wipe" : ", no wipe") + ", " +
         std::string(StateFormatName(f)) + ", max " + std::to_string(max_bytes) + " bytes";
}

}  // namespace

bool ExpectedT1Row(const std::map<std::string, std::string>& props, T1Row* row,
                   std::string* problem) {
  T1Row r;
  std::string isolation;  // "" = unset.
  for (const auto& [key, value] : props) {
    if (key == "processing.guarantee") {
      // Encodes: T1 — at_least_once, exactly_once_v2 and its two deprecated aliases; else error
      if (value == "at_least_once") {
        r.guarantee = ProcessingGuarantee::kAtLeastOnce;
      } else if (value == "exactly_once_v2" || value == "exactly_once" ||
                 value == "exactly_once_beta") {
        r.guarantee = ProcessingGuarantee::kExactlyOnceV2;
      } else {
        *problem = key + "=" + value;
        return false;
      }
    } else if (key == "default.state.isolation.level") {
      if (value != "READ_UNCOMMITTED" && value != "READ_COMMITTED") {
        *problem = key + "=" + value;
        return false;
      }
      isolation = value;
    } else if (key == "statestore.uncommitted.max.bytes") {
      char* end = nullptr;
      // Encodes: T6 — the bound: default 67108864 (T1Row), -1 = no limit, below -1 an error
      r.uncommitted_max_bytes = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || r.uncommitted_max_bytes < -1) {
        *problem = key + "=" + value;
        return false;
      }
    } else if (key == "state.format") {
      if (value != "current" && value != "legacy") {
        *problem = key + "=" + value;
        return false;
      }
      r.format = value == "legacy" ? StateFormat::kLegacy : StateFormat::kCurrent;
    }
  }
  const bool eos = r.guarantee == ProcessingGuarantee::kExactlyOnceV2;
  if (r.format == StateFormat::kLegacy) {
    // Before KIP-892: stores write directly; exactly-once wipes what no clean close vouches for.
    r.isolation = IsolationLevel::kReadUncommitted;
    r.buffer_writes = false;
    r.wipe_on_unclean_shutdown = eos;
  } else {
    // The table's six rows, as SPEC T1 lists them.
    struct Entry {
      bool eos;
      const char* set;
      IsolationLevel effective;
      bool buffered, wipe;
    };
    // Encodes: T1, T10 — effective level, buffering, and the one row that wipes when unclean
    static constexpr Entry kTable[] = {
        {false, "", IsolationLevel::kReadUncommitted, false, false},
        {false, "READ_UNCOMMITTED", IsolationLevel::kReadUncommitted, false, false},
        {false, "READ_COMMITTED", IsolationLevel::kReadCommitted, true, false},
        {true, "", IsolationLevel::kReadCommitted, true, false},
        {true, "READ_UNCOMMITTED", IsolationLevel::kReadUncommitted, false, true},
        {true, "READ_COMMITTED", IsolationLevel::kReadCommitted, true, false},
    };
    for (const Entry& e : kTable) {
      if (e.eos == eos && isolation == e.set) {
        r.isolation = e.effective;
        r.buffer_writes = e.buffered;
        r.wipe_on_unclean_shutdown = e.wipe;
      }
    }
  }
  *row = r;
  return true;
}

CheckResult CompareT1Row(const std::map<std::string, std::string>& props, const StateConfig& engine,
                         const T1Row& expected) {
  if (engine.guarantee == expected.guarantee && engine.isolation == expected.isolation &&
      engine.buffer_writes == expected.buffer_writes &&
      engine.wipe_on_unclean_shutdown == expected.wipe_on_unclean_shutdown &&
      engine.format == expected.format &&
      engine.uncommitted_max_bytes == expected.uncommitted_max_bytes) {
    return std::nullopt;
  }
  // Encodes: T1 — the engine's resolution differs from the table's row
  return Finding(
      "T1",
      "the engine resolves " + Describe(props) + " to (" +
          Row(engine.guarantee, engine.isolation, engine.buffer_writes,
              engine.wipe_on_unclean_shutdown, engine.format, engine.uncommitted_max_bytes) +
          "); T1's table says (" +
          Row(expected.guarantee, expected.isolation, expected.buffer_writes,
              expected.wipe_on_unclean_shutdown, expected.format, expected.uncommitted_max_bytes) +
          ")");
}

}  // namespace statecheck::model
