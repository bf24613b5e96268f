// Copyright 2026 The inflow Authors.

#include "inflow/core/status.h"

#include <array>
#include <cstdio>
#include <cstdlib>

#include "inflow/core/result.h"

namespace inflow {
namespace {

constexpr std::array<std::string_view, kNumStatusCodes> kNames = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
};

}  // namespace

std::string_view StatusCodeName(StatusCode code) {
  const int i = static_cast<int>(code);
  if (i < 0 || i >= kNumStatusCodes) return "UNKNOWN_CODE";
  return kNames[i];
}

std::optional<StatusCode> StatusCodeFromName(std::string_view name) {
  for (int i = 0; i < kNumStatusCodes; ++i) {
    if (kNames[i] == name) return static_cast<StatusCode>(i);
  }
  return std::nullopt;
}

Status::Status(StatusCode code, std::string_view message) {
  if (code != StatusCode::kOk) {
    rep_ = std::make_unique<Rep>(Rep{code, std::string(message)});
  }
}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  }
  return *this;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(rep_->code));
  if (!rep_->message.empty()) {
    out += ": ";
    out += rep_->message;
  }
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string msg(context);
  if (!rep_->message.empty()) {
    msg += ": ";
    msg += rep_->message;
  }
  return Status(rep_->code, msg);
}

std::ostream& operator<<(std::ostream& os, const Status& s) {
  return os << s.ToString();
}

#define INFLOW_DEFINE_ERROR_(Name, Code)      \
  Status Name(std::string_view message) {     \
    return Status(StatusCode::Code, message); \
  }
INFLOW_DEFINE_ERROR_(CancelledError, kCancelled)
INFLOW_DEFINE_ERROR_(UnknownError, kUnknown)
INFLOW_DEFINE_ERROR_(InvalidArgumentError, kInvalidArgument)
INFLOW_DEFINE_ERROR_(DeadlineExceededError, kDeadlineExceeded)
INFLOW_DEFINE_ERROR_(NotFoundError, kNotFound)
INFLOW_DEFINE_ERROR_(AlreadyExistsError, kAlreadyExists)
INFLOW_DEFINE_ERROR_(PermissionDeniedError, kPermissionDenied)
INFLOW_DEFINE_ERROR_(ResourceExhaustedError, kResourceExhausted)
INFLOW_DEFINE_ERROR_(FailedPreconditionError, kFailedPrecondition)
INFLOW_DEFINE_ERROR_(AbortedError, kAborted)
INFLOW_DEFINE_ERROR_(OutOfRangeError, kOutOfRange)
INFLOW_DEFINE_ERROR_(UnimplementedError, kUnimplemented)
INFLOW_DEFINE_ERROR_(InternalError, kInternal)
INFLOW_DEFINE_ERROR_(UnavailableError, kUnavailable)
INFLOW_DEFINE_ERROR_(DataLossError, kDataLoss)
#undef INFLOW_DEFINE_ERROR_

namespace internal {
void ResultValueOnError(const Status& status) {
  std::fprintf(stderr, "inflow: Result::value() called on an error: %s\n",
               status.ToString().c_str());
  std::abort();
}
}  // namespace internal

}  // namespace inflow
