#include "engine/aggregation/aggregation_internal.h"

#include <algorithm>
#include <charconv>

#include "engine/base/planted.h"

namespace statecheck::internal {

std::string BigEndian(int64_t v) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(static_cast<uint64_t>(v) & 0xff);
    v = static_cast<int64_t>(static_cast<uint64_t>(v) >> 8);
  }
  return out;
}

int64_t FromBigEndian(std::string_view s) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(s[i]);
  return static_cast<int64_t>(v);
}

}  // namespace statecheck::internal

namespace statecheck {

Status ParseLastEmitClose(std::string_view metadata, std::string_view store, int64_t* close) {
  // Parsed aside: bad metadata leaves `*close` as it was.
  int64_t last = kNoCloseTime;
  size_t at = 0;
  while (at < metadata.size()) {
    size_t end = metadata.find(';', at);
    if (end == std::string_view::npos) end = metadata.size();
    const std::string_view entry = metadata.substr(at, end - at);
    at = end + 1;
    const size_t eq = entry.find('=');
    int64_t value = 0;
    const std::string_view number = eq == std::string_view::npos ? "" : entry.substr(eq + 1);
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (eq == std::string_view::npos || ec != std::errc() || ptr != number.data() + number.size()) {
      return Status::Corruption("windowed aggregation: committed metadata \"" +
                                std::string(metadata) +
                                "\" is not \"<store>=<last emitted close time>\"");
    }
    // Keeps: E10 — the entries of this store merge by max
    if (entry.substr(0, eq) == store) last = std::max(last, value);
  }
  *close = last;
  return Status::Ok();
}

std::string LastEmitCloseMetadata(std::string_view store, int64_t close) {
  // Keeps: E6 — the last emitted close time goes into the committed metadata
  if (close == kNoCloseTime || STATECHECK_PLANTED(EmitFinalCloseTimeNotCommitted)) return {};
  return std::string(store) + "=" + std::to_string(close);
}

}  // namespace statecheck

namespace statecheck::internal {

bool DropUnkeyedOrUntimed(const LogRecord& record, AggregationStats* stats, Logger* logger) {
  // Keeps: E1 — a null (empty) key or no timestamp: dropped, counted and logged
  if (!record.key.empty() && record.timestamp != kNoTimestamp) return false;
  ++stats->dropped_records;
  logger->Log(LogLevel::kWarn, std::string("Skipping record due to ") +
                                   (record.key.empty() ? "null key" : "no timestamp") +
                                   ". offset=[" + std::to_string(record.offset) + "]");
  return true;
}

Status CheckAggregator(const Aggregator& a, std::string_view what) {
  if (a.reducer || (a.initializer && a.aggregate)) return Status::Ok();
  return Status::InvalidArgument(std::string(what) +
                                 " option aggregator needs an initializer and an aggregate "
                                 "function, or a reducer");
}

std::string Fold(const Aggregator& a, const LogRecord& record,
                 std::optional<std::string_view> current) {
  if (a.reducer) {
    // Skips() keeps null values away.
    return current ? a.reducer(*current, *record.value) : *record.value;
  }
  const std::string initial = current ? std::string() : a.initializer();
  return a.aggregate(record.key,
                     record.value ? std::optional<std::string_view>(*record.value) : std::nullopt,
                     current ? *current : std::string_view(initial));
}

}  // namespace statecheck::internal
