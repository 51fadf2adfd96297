#include "tools/shard.h"

#include <charconv>
#include <string_view>
#include <system_error>

namespace statecheck::tools {
namespace {

// Decimal digits only, the whole of `s`, fitting in `*out`'s type.
template <class Int>
bool ParseDigits(std::string_view s, Int* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
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

Status ParseBatch(const std::string& text, std::string* property, uint64_t* number) {
  const std::string_view t(text);
  const size_t colon = t.rfind(':');
  uint64_t k = 0;
  if (colon == std::string_view::npos || colon == 0 || !ParseDigits(t.substr(colon + 1), &k)) {
    return Status::InvalidArgument(
        "--batch takes PROPERTY:K (a property id, as `statecheck run` reports it, and a batch "
        "number), not \"" + text + "\"");
  }
  *property = std::string(t.substr(0, colon));
  *number = k;
  return Status::Ok();
}

}  // namespace statecheck::tools
