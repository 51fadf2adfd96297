// Status: the outcome of an engine operation, as a value.
//
// Unlike an exception, a Status never unwinds: every engine call that can fail returns one and
// the caller decides. The set of codes is small and canonical (as in Abseil); a code says what
// kind of failure it is, the message says what went wrong and, where it can, what to do.
// RocksDB's statuses are converted in exactly one place (engine/base/rocksdb_status.h).
#ifndef STATECHECK_STATUS_H_
#define STATECHECK_STATUS_H_

#include <ostream>
#include <string>
#include <string_view>

namespace statecheck {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,     // The caller passed something the operation cannot take.
    kNotFound,            // A named thing does not exist.
    kCorruption,          // Stored data is damaged.
    kIOError,             // The file system failed.
    kAborted,             // The operation was abandoned (a conflict, a rollback).
    kFailedPrecondition,  // The object is not in a state that allows the call (e.g. closed).
    kOutOfRange,          // Reading past the end of an iterator or a range.
    kUnimplemented,       // Not supported by this implementation.
  };

  // An OK status.
  Status() = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string_view msg) { return {Code::kInvalidArgument, msg}; }
  static Status NotFound(std::string_view msg) { return {Code::kNotFound, msg}; }
  static Status Corruption(std::string_view msg) { return {Code::kCorruption, msg}; }
  static Status IOError(std::string_view msg) { return {Code::kIOError, msg}; }
  static Status Aborted(std::string_view msg) { return {Code::kAborted, msg}; }
  static Status FailedPrecondition(std::string_view msg) {
    return {Code::kFailedPrecondition, msg};
  }
  static Status OutOfRange(std::string_view msg) { return {Code::kOutOfRange, msg}; }
  static Status Unimplemented(std::string_view msg) { return {Code::kUnimplemented, msg}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  // The message alone, without the code ("" for OK).
  const std::string& message() const { return message_; }
  // "OK", or "<CodeName>: <message>".
  std::string ToString() const;
  // This status with "<context>: " before its message (same code); OK stays OK.
  [[nodiscard]] Status Annotate(std::string_view context) const {
    if (ok()) return *this;
    std::string message(context);
    message += ": ";
    message += message_;
    return {code_, message};
  }

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

  // A status of `code` with `msg` (none for kOk): for code that reads a status back from its
  // code's name (CodeFromName).
  static Status FromCode(Code code, std::string_view msg) {
    return code == Code::kOk ? Status() : Status(code, msg);
  }

 private:
  Status(Code code, std::string_view msg) : code_(code), message_(msg) {}

  Code code_ = Code::kOk;
  std::string message_;
};

// "OK", "InvalidArgument", ... ; stable names used in traces and reports.
std::string_view CodeName(Status::Code code);
// The inverse of CodeName. Returns false when `name` names no code.
bool CodeFromName(std::string_view name, Status::Code* code);

inline std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

}  // namespace statecheck

// Returns early from the enclosing function when `expr` is not OK.
#define STATECHECK_RETURN_IF_ERROR(expr) \
  do {                                   \
    ::statecheck::Status _st = (expr);   \
    if (!_st.ok()) return _st;           \
  } while (0)

#endif  // STATECHECK_STATUS_H_
