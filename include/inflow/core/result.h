// Copyright 2026 The inflow Authors.
//
// Result<T>: a T or an error Status, modelled on absl::StatusOr<T>.
// Thread-compatible.

#ifndef INFLOW_CORE_RESULT_H_
#define INFLOW_CORE_RESULT_H_

#include <cassert>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

#include "inflow/core/status.h"

namespace inflow {

namespace internal {
[[noreturn]] void ResultValueOnError(const Status& status);
}  // namespace internal

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>,
                "Result<Status> is not allowed");

 public:
  // An error result. `status` must not be OK (an OK status becomes
  // INTERNAL, since it carries no value).
  Result(Status status) : rep_(std::move(status)) {  // NOLINT(implicit)
    if (std::get<0>(rep_).ok()) {
      rep_ = InternalError("Result constructed from an OK status");
    }
  }
  Result(const T& value) : rep_(value) {}        // NOLINT(implicit)
  Result(T&& value) : rep_(std::move(value)) {}  // NOLINT(implicit)
  template <typename U, typename = std::enable_if_t<
                            std::is_constructible_v<T, U&&> &&
                            !std::is_same_v<std::decay_t<U>, Result> &&
                            !std::is_same_v<std::decay_t<U>, Status> &&
                            !std::is_same_v<std::decay_t<U>, T>>>
  Result(U&& value)
      : rep_(std::in_place_index<1>,  // NOLINT(implicit)
             std::forward<U>(value)) {}

  bool ok() const { return rep_.index() == 1; }

  // OK when a value is held.
  Status status() const& { return ok() ? Status() : std::get<0>(rep_); }
  Status status() && { return ok() ? Status() : std::move(std::get<0>(rep_)); }

  // Precondition: ok(). Aborts with the status otherwise (a bug in the
  // caller, never a way to report input errors).
  const T& value() const& {
    Check();
    return std::get<1>(rep_);
  }
  T& value() & {
    Check();
    return std::get<1>(rep_);
  }
  T&& value() && {
    Check();
    return std::move(std::get<1>(rep_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? std::get<1>(rep_) : static_cast<T>(std::forward<U>(fallback));
  }

  void IgnoreError() const {}

 private:
  void Check() const {
    if (!ok()) internal::ResultValueOnError(std::get<0>(rep_));
  }
  std::variant<Status, T> rep_;
};

}  // namespace inflow

#endif  // INFLOW_CORE_RESULT_H_
