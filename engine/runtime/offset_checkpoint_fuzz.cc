// libFuzzer target: any bytes as an offset checkpoint file (statecheck/offset_checkpoint.h).
// Built only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// engine/fuzz_corpus/offset_checkpoint/.
//
// Beyond "no crash, no sanitizer report", each input must keep:
//   * An error is a Corruption that names the file, and leaves the map empty.
//   * On OK, every entry is one Kafka would write (non-empty topic without whitespace,
//     partition >= 0, offset >= 0 or -4); every warning is a skipped negative offset other
//     than -4; the entries and the warnings add up to the count on line 2.
//   * On OK, FormatOffsetCheckpoint of the map succeeds and parses back to the same map with no
//     warning, and formatting that again gives the same text.
//   * Collecting warnings or not changes nothing else.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "statecheck/offset_checkpoint.h"

namespace {

using statecheck::CheckpointOffsets;
using statecheck::Status;

constexpr std::string_view kSource = "fuzz/.checkpoint";

void Check(bool ok, const char* what, const std::string& detail = "") {
  if (ok) return;
  std::fprintf(stderr, "offset_checkpoint_fuzz: invariant broken: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The second line of `text` (lines end at "\n", "\r\n" or "\r", as for Java's readLine).
std::string_view SecondLine(std::string_view text) {
  size_t end = text.find_first_of("\r\n");
  if (end == std::string_view::npos) return {};
  size_t begin = end + 1;
  if (text[end] == '\r' && begin < text.size() && text[begin] == '\n') ++begin;
  text.remove_prefix(begin);
  return text.substr(0, text.find_first_of("\r\n"));
}

// A decimal long with at most one leading sign, or false.
bool ParseLong(std::string_view s, int64_t* out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return false;
  }
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

bool HasWhitespace(std::string_view s) {
  return s.find_first_of(" \t\n\v\f\r") != std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckpointOffsets offsets;
  std::vector<std::string> warnings;
  const Status s = statecheck::ParseOffsetCheckpoint(text, kSource, &offsets, &warnings);

  CheckpointOffsets quiet;
  const Status quiet_status = statecheck::ParseOffsetCheckpoint(text, kSource, &quiet, nullptr);
  Check(quiet_status == s && quiet == offsets, "collecting warnings changed the result",
        s.ToString() + " vs " + quiet_status.ToString());

  if (!s.ok()) {
    Check(s.code() == Status::Code::kCorruption, "an error that is not a Corruption", s.ToString());
    Check(s.message().rfind(std::string(kSource) + ": ", 0) == 0, "an error not naming the file",
          s.ToString());
    Check(offsets.empty(), "entries left after an error", s.ToString());
    return 0;
  }

  for (const auto& [tp, offset] : offsets) {
    Check(!tp.topic.empty() && !HasWhitespace(tp.topic), "a topic Kafka would not write", tp.topic);
    Check(tp.partition >= 0, "a negative partition", std::to_string(tp.partition));
    Check(offset >= 0 || offset == statecheck::kOffsetUnknown, "an invalid offset kept",
          std::to_string(offset));
  }
  constexpr std::string_view kSkipping = "skipping invalid offset ";
  for (const std::string& w : warnings) {
    Check(w.rfind(std::string(kSource) + ": ", 0) == 0, "a warning not naming the file", w);
    const size_t at = w.find(kSkipping);
    Check(at != std::string::npos, "a warning that is not a skipped offset", w);
    const std::string_view rest = std::string_view(w).substr(at + kSkipping.size());
    int64_t skipped = 0;
    Check(ParseLong(rest.substr(0, rest.find(' ')), &skipped) && skipped < 0 &&
              skipped != statecheck::kOffsetUnknown,
          "a warning for an offset that is valid", w);
  }
  int64_t count = -1;
  Check(ParseLong(SecondLine(text), &count), "OK without a count on line 2",
        std::string(SecondLine(text)));
  Check(count == static_cast<int64_t>(offsets.size() + warnings.size()),
        "entries and warnings do not add up to the count",
        std::to_string(count) + " != " + std::to_string(offsets.size()) + " + " +
            std::to_string(warnings.size()));

  std::string formatted;
  const Status f = statecheck::FormatOffsetCheckpoint(offsets, &formatted);
  Check(f.ok(), "the reader accepted entries the writer refuses", f.ToString());
  CheckpointOffsets reparsed;
  std::vector<std::string> rewarnings;
  const Status r = statecheck::ParseOffsetCheckpoint(formatted, kSource, &reparsed, &rewarnings);
  Check(r.ok(), "the writer's text does not parse", r.ToString() + "\n" + formatted);
  Check(reparsed == offsets, "the writer's text parses to other entries", formatted);
  Check(rewarnings.empty(), "the writer's text parses with warnings", formatted);
  std::string reformatted;
  Check(statecheck::FormatOffsetCheckpoint(reparsed, &reformatted).ok() && reformatted == formatted,
        "formatting is not stable", formatted + "\nvs\n" + reformatted);
  return 0;
}
