#include "tools/shard.h"

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

namespace statecheck::tools {
namespace {

// Decimal digits only, the whole of `s`, fitting in `*out`'s type.
template <class Int>
bool ParseDigits(std::string_view s, Int* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::string Shown(const char* name, const char* value) { return std::string(name) + "=" + value; }

// The shard `c` names in `env`: nullopt when it names none; InvalidArgument when it is
// half-set or its values are not a shard.
Status FromConvention(const ShardConvention& c, const Environment& env,
                      std::optional<ShardChoice>* out) {
  out->reset();
  const char* index = env(c.index);
  const char* count = env(c.count);
  if (!index && !count) return Status::Ok();
  if (!index && std::string_view(count) == "1") return Status::Ok();
  const std::string seen = index && count ? Shown(c.index, index) + " " + Shown(c.count, count)
                                          : Shown(index ? c.index : c.count, index ? index : count);
  if (!index || !count) {
    return Status::InvalidArgument(seen + " (" + c.system + ") names a shard without its " +
                                   (index ? c.count : c.index) +
                                   ": set both, or neither (or pass --shard i/n, which wins)");
  }
  int i = 0, n = 0;
  if (!ParseDigits(std::string_view(index), &i) || !ParseDigits(std::string_view(count), &n) ||
      n < 1 || i < c.base || i - c.base >= n) {
    return Status::InvalidArgument(seen + " (" + c.system + ") is not a shard: " + c.index +
                                   " counts from " + std::to_string(c.base) + " to " + c.count +
                                   (c.base == 0 ? " - 1" : "") + ", both whole numbers");
  }
  *out = ShardChoice{i - c.base, n, seen + " (" + c.system + ")"};
  return Status::Ok();
}

}  // namespace

Status ParseShard(const std::string& text, int* index, int* count) {
  const std::string_view t(text);
  const size_t slash = t.find('/');
  int i = -1, n = 0;
  if (slash == std::string_view::npos || !ParseDigits(t.substr(0, slash), &i) ||
      !ParseDigits(t.substr(slash + 1), &n) || n < 1 || i >= n) {
    return Status::InvalidArgument("--shard takes i/n with 0 <= i < n (shard i of n), not \"" +
                                   text + "\"");
  }
  *index = i;
  *count = n;
  return Status::Ok();
}

Status ResolveShard(const std::string& flag, const Environment& env, ShardChoice* out) {
  if (!flag.empty()) {
    ShardChoice c;
    STATECHECK_RETURN_IF_ERROR(ParseShard(flag, &c.index, &c.count));
    c.source = "--shard";
    *out = std::move(c);
    return Status::Ok();
  }
  std::vector<ShardChoice> found;
  if (const char* own = env("STATECHECK_SHARD")) {
    ShardChoice c;
    const Status s = ParseShard(own, &c.index, &c.count);
    if (!s.ok()) {
      return Status::InvalidArgument(Shown("STATECHECK_SHARD", own) +
                                     " is not a shard: it takes i/n with 0 <= i < n");
    }
    c.source = Shown("STATECHECK_SHARD", own);
    found.push_back(std::move(c));
  }
  for (const ShardConvention& convention : kShardConventions) {
    std::optional<ShardChoice> c;
    STATECHECK_RETURN_IF_ERROR(FromConvention(convention, env, &c));
    if (c) found.push_back(std::move(*c));
  }
  for (const ShardChoice& other : found) {
    const ShardChoice& first = found.front();
    if (other.index != first.index || other.count != first.count) {
      return Status::InvalidArgument(
          "two shards are named: " + first.source + " says shard " + std::to_string(first.index) +
          "/" + std::to_string(first.count) + ", " + other.source + " says " +
          std::to_string(other.index) + "/" + std::to_string(other.count) +
          "; unset one, or pass --shard i/n, which wins");
    }
  }
  ShardChoice c;
  if (!found.empty()) {
    c = found.front();
    for (size_t k = 1; k < found.size(); ++k) c.source += ", " + found[k].source;
  }
  *out = std::move(c);
  return Status::Ok();
}

Status ParseBatch(const std::string& text, std::string* property, uint64_t* number) {
  const std::string_view t(text);
  const size_t colon = t.rfind(':');
  uint64_t k = 0;
  if (colon == std::string_view::npos || colon == 0 || !ParseDigits(t.substr(colon + 1), &k)) {
    return Status::InvalidArgument(
        "--batch takes PROPERTY:K (a property id, as `statecheck run` reports it, and a batch "
        "number), not \"" +
        text + "\"");
  }
  *property = std::string(t.substr(0, colon));
  *number = k;
  return Status::Ok();
}

}  // namespace statecheck::tools
