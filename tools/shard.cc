#include "tools/shard.h"

#include <charconv>
#include <string_view>
#include <system_error>

namespace statecheck::tools {
namespace {

// Decimal digits only, the whole of `s`, fitting in an int.
bool ParseDigits(std::string_view s, int* out) {
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

}  // namespace statecheck::tools
