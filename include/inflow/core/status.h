// Copyright 2026 The inflow Authors.
//
// Status: the outcome of an operation, modelled on absl::Status with
// TensorFlow's canonical error codes (the numbers are TF's, so they can be
// written to and compared with files and logs produced by TF).
//
// Thread-compatible: a Status is a value; distinct objects may be used from
// distinct threads.

#ifndef INFLOW_CORE_STATUS_H_
#define INFLOW_CORE_STATUS_H_

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace inflow {

// TensorFlow's canonical codes (tensorflow/core/protobuf/error_codes.proto).
enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
};

inline constexpr int kNumStatusCodes = 16;

// "OK", "CANCELLED", ..., "DATA_LOSS" (TF's names).
std::string_view StatusCodeName(StatusCode code);
// The inverse of StatusCodeName; nullopt for an unknown name.
std::optional<StatusCode> StatusCodeFromName(std::string_view name);

class [[nodiscard]] Status {
 public:
  // OK.
  Status() = default;
  // A `code` of kOk ignores `message`.
  Status(StatusCode code, std::string_view message);

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  std::string_view message() const {
    return rep_ ? std::string_view(rep_->message) : std::string_view();
  }

  // "OK", or "<CODE_NAME>: <message>", e.g.
  // "DATA_LOSS: corrupt record at offset 1024 in a.tfrecord".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>". OK stays OK.
  // Errors gather context as they travel up: file, offset, stage.
  Status WithContext(std::string_view context) const;

  // Drops the status on purpose, visibly.
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;
};

inline Status OkStatus() { return Status(); }

std::ostream& operator<<(std::ostream& os, const Status& s);

Status CancelledError(std::string_view message);
Status UnknownError(std::string_view message);
Status InvalidArgumentError(std::string_view message);
Status DeadlineExceededError(std::string_view message);
Status NotFoundError(std::string_view message);
Status AlreadyExistsError(std::string_view message);
Status PermissionDeniedError(std::string_view message);
Status ResourceExhaustedError(std::string_view message);
Status FailedPreconditionError(std::string_view message);
Status AbortedError(std::string_view message);
Status OutOfRangeError(std::string_view message);
Status UnimplementedError(std::string_view message);
Status InternalError(std::string_view message);
Status UnavailableError(std::string_view message);
Status DataLossError(std::string_view message);

// One predicate per canonical code but OK (use Status::ok() for that):
// true when `s` has that code.
#define INFLOW_DEFINE_IS_(Name, Code) \
  inline bool Name(const Status& s) { return s.code() == StatusCode::Code; }
INFLOW_DEFINE_IS_(IsCancelled, kCancelled)
INFLOW_DEFINE_IS_(IsUnknown, kUnknown)
INFLOW_DEFINE_IS_(IsInvalidArgument, kInvalidArgument)
INFLOW_DEFINE_IS_(IsDeadlineExceeded, kDeadlineExceeded)
INFLOW_DEFINE_IS_(IsNotFound, kNotFound)
INFLOW_DEFINE_IS_(IsAlreadyExists, kAlreadyExists)
INFLOW_DEFINE_IS_(IsPermissionDenied, kPermissionDenied)
INFLOW_DEFINE_IS_(IsResourceExhausted, kResourceExhausted)
INFLOW_DEFINE_IS_(IsFailedPrecondition, kFailedPrecondition)
INFLOW_DEFINE_IS_(IsAborted, kAborted)
INFLOW_DEFINE_IS_(IsOutOfRange, kOutOfRange)
INFLOW_DEFINE_IS_(IsUnimplemented, kUnimplemented)
INFLOW_DEFINE_IS_(IsInternal, kInternal)
INFLOW_DEFINE_IS_(IsUnavailable, kUnavailable)
INFLOW_DEFINE_IS_(IsDataLoss, kDataLoss)
#undef INFLOW_DEFINE_IS_

}  // namespace inflow

#define INFLOW_STATUS_CONCAT_INNER_(a, b) a##b
#define INFLOW_STATUS_CONCAT_(a, b) INFLOW_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define INFLOW_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::inflow::Status inflow_status_ = (expr);        \
    if (!inflow_status_.ok()) return inflow_status_; \
  } while (0)

// `lhs = value of rexpr` where rexpr is a Result<T>; returns its status
// from the enclosing function when it is an error.
#define INFLOW_ASSIGN_OR_RETURN(lhs, rexpr) \
  INFLOW_ASSIGN_OR_RETURN_IMPL_(            \
      INFLOW_STATUS_CONCAT_(inflow_result_, __LINE__), lhs, rexpr)
#define INFLOW_ASSIGN_OR_RETURN_IMPL_(result, lhs, rexpr) \
  auto result = (rexpr);                                  \
  if (!result.ok()) return std::move(result).status();    \
  lhs = std::move(result).value()

#endif  // INFLOW_CORE_STATUS_H_
