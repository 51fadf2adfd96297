#include "statecheck/state_config.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "engine/base/planted.h"
#include "statecheck/status.h"

namespace statecheck {
namespace {

constexpr std::string_view kAtLeastOnce = "at_least_once";
constexpr std::string_view kExactlyOnceV2 = "exactly_once_v2";
constexpr std::string_view kExactlyOnce = "exactly_once";           // Deprecated alias.
constexpr std::string_view kExactlyOnceBeta = "exactly_once_beta";  // Deprecated alias.
constexpr std::string_view kReadUncommitted = "READ_UNCOMMITTED";
constexpr std::string_view kReadCommitted = "READ_COMMITTED";
constexpr std::string_view kCurrentFormat = "current";
constexpr std::string_view kLegacyFormat = "legacy";

// Kafka's ConfigDef trims every string value (Java's String.trim: code points <= U+0020) before
// it parses or validates it, so " exactly_once_v2 " and " 5" are accepted there; so here.
std::string_view Trim(std::string_view s) {
  auto blank = [](char c) { return static_cast<unsigned char>(c) <= 0x20; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// The value of `key` in `props`, or std::nullopt when the key is absent.
std::optional<std::string_view> Find(const std::map<std::string, std::string>& props,
                                     std::string_view key) {
  auto it = props.find(std::string(key));
  if (it == props.end()) return std::nullopt;
  return std::string_view(it->second);
}

// Keeps: T1 — any other value: InvalidArgument naming the key and the allowed values
Status InvalidValue(std::string_view key, std::string_view value, std::string_view allowed) {
  std::string msg = "Invalid value \"";
  msg.append(value);
  msg.append("\" for configuration ");
  msg.append(key);
  msg.append(": allowed values are ");
  msg.append(allowed);
  return Status::InvalidArgument(msg);
}

// Java's Long.parseLong on ASCII digits: an optional '+' or '-', then one or more digits, and
// nothing else; false on anything else or on overflow.
bool ParseLong(std::string_view s, int64_t* out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return false;  // from_chars would take "+-5".
  }
  if (s.empty()) return false;
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  *out = v;
  return true;
}

}  // namespace

std::string_view ProcessingGuaranteeName(ProcessingGuarantee g) {
  switch (g) {
    case ProcessingGuarantee::kAtLeastOnce:
      return kAtLeastOnce;
    case ProcessingGuarantee::kExactlyOnceV2:
      return kExactlyOnceV2;
  }
  return "unknown";
}

std::string_view IsolationLevelName(IsolationLevel l) {
  switch (l) {
    case IsolationLevel::kReadUncommitted:
      return kReadUncommitted;
    case IsolationLevel::kReadCommitted:
      return kReadCommitted;
  }
  return "UNKNOWN";
}

std::string_view StateFormatName(StateFormat f) {
  return f == StateFormat::kLegacy ? kLegacyFormat : kCurrentFormat;
}

Status ResolveStateConfig(const std::map<std::string, std::string>& props, StateConfig* out) {
  StateConfig config;

  if (const auto raw = Find(props, kProcessingGuaranteeConfig)) {
    const std::string_view v = Trim(*raw);
    if (v == kAtLeastOnce) {
      config.guarantee = ProcessingGuarantee::kAtLeastOnce;
    } else if (v == kExactlyOnceV2) {
      config.guarantee = ProcessingGuarantee::kExactlyOnceV2;
    } else if (v == kExactlyOnce || v == kExactlyOnceBeta) {
      // Keeps: T1 — the deprecated aliases mean exactly_once_v2, with a warning
      config.guarantee = ProcessingGuarantee::kExactlyOnceV2;
      config.warnings.push_back("Configuration " + std::string(kProcessingGuaranteeConfig) + "=" +
                                std::string(v) +
                                " is deprecated and will be removed in a future release. Please "
                                "use " +
                                std::string(kExactlyOnceV2) + " instead.");
    } else {
      return InvalidValue(kProcessingGuaranteeConfig, *raw,
                          "at_least_once, exactly_once_v2 (exactly_once and exactly_once_beta are "
                          "deprecated aliases of exactly_once_v2)");
    }
  }

  if (const auto raw = Find(props, kIsolationLevelConfig)) {
    const std::string_view v = Trim(*raw);
    if (v == kReadUncommitted) {
      config.configured_isolation = IsolationLevel::kReadUncommitted;
    } else if (v == kReadCommitted) {
      config.configured_isolation = IsolationLevel::kReadCommitted;
    } else {
      return InvalidValue(kIsolationLevelConfig, *raw,
                          "READ_UNCOMMITTED, READ_COMMITTED (or leave it unset for the default "
                          "of the processing guarantee)");
    }
  }

  if (const auto raw = Find(props, kUncommittedMaxBytesConfig)) {
    int64_t v = 0;
    if (!ParseLong(Trim(*raw), &v) || v < -1) {
      return InvalidValue(kUncommittedMaxBytesConfig, *raw,
                          "integers from -1 to " +
                              std::to_string(std::numeric_limits<int64_t>::max()) +
                              " (-1 = unlimited)");
    }
    config.uncommitted_max_bytes = v;
  }

  if (const auto raw = Find(props, kStateFormatConfig)) {
    const std::string_view v = Trim(*raw);
    if (v == kCurrentFormat) {
      config.format = StateFormat::kCurrent;
    } else if (v == kLegacyFormat) {
      config.format = StateFormat::kLegacy;
    } else {
      return InvalidValue(kStateFormatConfig, *raw,
                          "current (offsets kept in the stores, the default), legacy (offsets in "
                          ".checkpoint files, as before KIP-892)");
    }
  }

  // The T1 table. Unset means READ_COMMITTED under exactly-once-v2, READ_UNCOMMITTED otherwise;
  // only exactly-once-v2 with an explicit READ_UNCOMMITTED keeps the legacy wipe (T10).
  const bool eos = config.guarantee == ProcessingGuarantee::kExactlyOnceV2;
  // Keeps: T1 — the effective level and write buffering, per row of the T1 table
  config.isolation = config.configured_isolation.value_or(eos ? IsolationLevel::kReadCommitted
                                                              : IsolationLevel::kReadUncommitted);
  config.buffer_writes = config.isolation == IsolationLevel::kReadCommitted;
  // Keeps: T10 — the wipe row: exactly_once_v2 with READ_UNCOMMITTED, and no other
  config.wipe_on_unclean_shutdown =
      STATECHECK_PLANTED(ConfigWipesEveryExactlyOnceStore)
          ? eos
          : eos && config.isolation == IsolationLevel::kReadUncommitted;
  if (config.wipe_on_unclean_shutdown && config.format == StateFormat::kCurrent) {
    config.warnings.push_back(
        "Configuration " + std::string(kIsolationLevelConfig) + "=" +
        std::string(kReadUncommitted) + " with " + std::string(kProcessingGuaranteeConfig) + "=" +
        std::string(kExactlyOnceV2) +
        ": under exactly-once with READ_UNCOMMITTED, state stores are wiped and restored from "
        "the changelog after an unclean shutdown. Set " +
        std::string(kIsolationLevelConfig) + "=" + std::string(kReadCommitted) +
        " (the default under exactly_once_v2) to keep them.");
  }

  if (config.format == StateFormat::kLegacy) {
    // Before KIP-892: no transaction buffer; under exactly-once a store is wiped unless a clean
    // close left its offset in the .checkpoint file.
    if (config.isolation == IsolationLevel::kReadCommitted && config.configured_isolation) {
      config.warnings.push_back("Configuration " + std::string(kIsolationLevelConfig) + "=" +
                                std::string(kReadCommitted) + " has no effect with " +
                                std::string(kStateFormatConfig) + "=" + std::string(kLegacyFormat) +
                                ": legacy-format stores write directly (READ_UNCOMMITTED).");
    }
    config.isolation = IsolationLevel::kReadUncommitted;
    config.buffer_writes = false;
    config.wipe_on_unclean_shutdown = eos;
  }

  *out = std::move(config);
  return Status::Ok();
}

}  // namespace statecheck
