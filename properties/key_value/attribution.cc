// The key-value store property's attribution (attribution.h): the rule a step's
// difference breaks, from what differs.
#include "properties/key_value/attribution.h"

#include <initializer_list>
#include <string>

namespace statecheck::properties::key_value {
namespace {

Json Without(Json j, std::initializer_list<const char*> keys) {
  if (j.is_object()) {
    for (const char* k : keys) j.erase(k);
  }
  return j;
}

Json Part(const Json& j, const char* key) { return j.contains(key) ? j[key] : Json(); }

}  // namespace

Finding Attribute(const Op& op, IsolationLevel isolation, const Json& expected,
                  const Json& actual) {
  const bool rc = isolation == IsolationLevel::kReadCommitted;
  const char* visibility = rc ? "T4" : "T3";
  const Json result_e = Without(expected, {"probe", "after"});
  const Json result_a = Without(actual, {"probe", "after"});
  const Json probe_e = Part(expected, "probe"), probe_a = Part(actual, "probe");
  const Json after_e = Part(expected, "after"), after_a = Part(actual, "after");
  auto finding = [](const char* rule, const std::string& what) { return Finding(rule, what); };
  if (result_e != result_a) {
    // Checks: T5 — the writer's reads and conditional writes see its buffer over committed
    if (IsWrite(op.type) || IsWriterRead(op.type)) {
      return finding("T5", "the writer's " + std::string(kOpNames[static_cast<int>(op.type)]) +
                               " differs (read-your-writes)");
    }
    if (IsIqRead(op.type)) {
      // Checks: T3, T4 — an IQ read's result: every write (RU) or only committed ones (RC)
      if (Without(result_e, {"position"}) != Without(result_a, {"position"})) {
        return finding(visibility, std::string("the IQ read's result differs (") +
                                       (rc ? "READ_COMMITTED" : "READ_UNCOMMITTED") + ")");
      }
      // Checks: T8 — a READ_COMMITTED IQ read reports the committed position
      return finding("T8", "the IQ read's reported position differs");
    }
    switch (op.type) {
      case OpType::kCommit:
        return finding("T7", "the commit's status differs");
      case OpType::kRollback:
        return finding("T9", "the rollback's status differs");
      case OpType::kReopen:
        return finding("T7", "the restart after a clean close differs (status or open marker)");
      case OpType::kCrash:
        // Checks: T7 — the open-status marker: set while open, cleared on clean close
        if (Part(result_e, "clean") != Part(result_a, "clean")) {
          return finding("T7",
                         "the restart after a crash differs in whether it found a clean "
                         "shutdown (the open-status marker)");
        }
        return finding("T9", "the restart after a crash fails");
      default:
        break;
    }
  }
  if (probe_e != probe_a) {
    const bool data =
        Part(probe_e, "writer") != Part(probe_a, "writer") ||
        Without(Part(probe_e, "iq"), {"position"}) != Without(Part(probe_a, "iq"), {"position"});
    switch (op.type) {
      case OpType::kCommit:
        if (!data) return finding("T8", "after the commit, an IQ read's position differs");
        if (Without(Part(probe_e, "iq"), {"position"}) !=
            Without(Part(probe_a, "iq"), {"position"})) {
          return finding(visibility, "after the commit, what an IQ reader sees differs");
        }
        return finding("T5", "after the commit, what the writer reads differs");
      case OpType::kRollback:
        // Checks: T9 — a rollback leaves exactly the last committed state
        return finding("T9", "after the rollback, the state differs from the last committed one");
      case OpType::kReopen:
        if (!data) return finding("T8", "after the restart, an IQ read's position differs");
        return finding("T7", "after a clean close and reopen, the store's data differs");
      case OpType::kCrash:
        if (!data) return finding("T8", "after the crash, an IQ read's position differs");
        // Checks: T9 — after a crash the store is its last committed state, not wiped
        return finding("T9", "after a crash, the store is not its last committed state");
      default:
        break;
    }
  }
  const bool rollback = op.type == OpType::kRollback;
  // Checks: T6 — approximateNumUncommittedBytes against the model's (0 unbuffered)
  if (Part(after_e, "uncommitted_bytes") != Part(after_a, "uncommitted_bytes")) {
    return rollback ? finding("T9", "after the rollback, the uncommitted bytes differ")
                    : finding("T6", "approximateNumUncommittedBytes differs");
  }
  // Checks: T7 — the changelog offsets committed with the data (clears included)
  if (Part(after_e, "offsets") != Part(after_a, "offsets")) {
    return rollback ? finding("T9", "after the rollback, the committed offsets differ")
                    : finding("T7", "the committed changelog offsets differ");
  }
  if (rollback) return finding("T9", "after the rollback, the positions differ");
  return finding("T8", "the uncommitted or committed position differs");
}
}  // namespace statecheck::properties::key_value
