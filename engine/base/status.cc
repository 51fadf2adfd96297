#include "statecheck/status.h"

#include <array>

namespace statecheck {
namespace {

constexpr std::array<std::string_view, 9> kCodeNames = {
    "OK",      "InvalidArgument",    "NotFound",   "Corruption",    "IOError",
    "Aborted", "FailedPrecondition", "OutOfRange", "Unimplemented",
};

}  // namespace

std::string_view CodeName(Status::Code code) {
  const auto i = static_cast<size_t>(code);
  return i < kCodeNames.size() ? kCodeNames[i] : "Unknown";
}

bool CodeFromName(std::string_view name, Status::Code* code) {
  for (size_t i = 0; i < kCodeNames.size(); ++i) {
    if (kCodeNames[i] == name) {
      *code = static_cast<Status::Code>(i);
      return true;
    }
  }
  return false;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(CodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

}  // namespace statecheck
