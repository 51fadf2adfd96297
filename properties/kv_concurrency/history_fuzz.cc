// libFuzzer target: any bytes as a concurrency history (kv_concurrency/history_file.h). Built
// only with -DSTATECHECK_FUZZ=ON under clang; ci/fuzz.sh runs it over
// properties/kv_concurrency/fuzz_corpus/.
//
// Beyond "no crash, no sanitizer report, no exception": an error is an InvalidArgument naming a
// line of the text (or saying the text is empty or has no events) and leaves the caller's history
// as it was; an accepted history formats to a text that parses to a history that formats the
// same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "properties/kv_concurrency/history_file.h"
#include "properties/trace_fuzz_util.h"

namespace {

using statecheck::Status;
using statecheck::properties::fuzz::Check;
using statecheck::properties::kv_concurrency::FormatHistory;
using statecheck::properties::kv_concurrency::HistoryFile;
using statecheck::properties::kv_concurrency::ParseHistory;

constexpr char kTarget[] = "kv_concurrency_history_fuzz";
constexpr char kSource[] = "fuzz.jsonl";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  HistoryFile file;
  file.expect_rule = "sentinel";
  const Status s = ParseHistory(text, kSource, &file);
  if (!s.ok()) {
    if (s.message() != std::string(kSource) + " has no events: a history that checks nothing") {
      statecheck::properties::fuzz::CheckTraceError(kTarget, s, text,
                                                    std::string(kSource) + " is empty");
    }
    Check(file.expect_rule == "sentinel" && file.history.events.empty(), kTarget,
          "an error changed the history");
    return 0;
  }
  const std::string once = FormatHistory(file.history, file.info);
  HistoryFile again;
  const Status r = ParseHistory(once, kSource, &again);
  Check(r.ok(), kTarget, "the formatted history does not parse", r.ToString() + "\n" + once);
  Check(FormatHistory(again.history, again.info) == once, kTarget,
        "the history does not format the same after a round trip", once);
  return 0;
}
