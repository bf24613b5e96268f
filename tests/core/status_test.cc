// Copyright 2026 The inflow Authors.

#include "inflow/core/status.h"

#include <iterator>

#include <gtest/gtest.h>

#include "inflow/core/result.h"

namespace inflow {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, OkCodeIgnoresMessage) {
  Status s(StatusCode::kOk, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, ToStringStartsWithCodeName) {
  Status s = DataLossError("corrupt record at offset 1024 in a.tfrecord");
  EXPECT_EQ(s.ToString(),
            "DATA_LOSS: corrupt record at offset 1024 in a.tfrecord");
}

// Every code maps to TF's name and back, with TF's number.
TEST(StatusTest, EveryCodeHasTfNameAndNumber) {
  struct Row {
    StatusCode code;
    int number;
    const char* name;
  };
  const Row rows[] = {
      {StatusCode::kOk, 0, "OK"},
      {StatusCode::kCancelled, 1, "CANCELLED"},
      {StatusCode::kUnknown, 2, "UNKNOWN"},
      {StatusCode::kInvalidArgument, 3, "INVALID_ARGUMENT"},
      {StatusCode::kDeadlineExceeded, 4, "DEADLINE_EXCEEDED"},
      {StatusCode::kNotFound, 5, "NOT_FOUND"},
      {StatusCode::kAlreadyExists, 6, "ALREADY_EXISTS"},
      {StatusCode::kPermissionDenied, 7, "PERMISSION_DENIED"},
      {StatusCode::kResourceExhausted, 8, "RESOURCE_EXHAUSTED"},
      {StatusCode::kFailedPrecondition, 9, "FAILED_PRECONDITION"},
      {StatusCode::kAborted, 10, "ABORTED"},
      {StatusCode::kOutOfRange, 11, "OUT_OF_RANGE"},
      {StatusCode::kUnimplemented, 12, "UNIMPLEMENTED"},
      {StatusCode::kInternal, 13, "INTERNAL"},
      {StatusCode::kUnavailable, 14, "UNAVAILABLE"},
      {StatusCode::kDataLoss, 15, "DATA_LOSS"},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(static_cast<int>(r.code), r.number);
    EXPECT_EQ(StatusCodeName(r.code), r.name);
    EXPECT_EQ(StatusCodeFromName(r.name), r.code);
  }
  EXPECT_EQ(StatusCodeFromName("NOPE"), std::nullopt);
}

TEST(StatusTest, FactoriesSetCodes) {
  EXPECT_EQ(CancelledError("x").code(), StatusCode::kCancelled);
  EXPECT_EQ(UnknownError("x").code(), StatusCode::kUnknown);
  EXPECT_EQ(InvalidArgumentError("x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DeadlineExceededError("x").code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(NotFoundError("x").code(), StatusCode::kNotFound);
  EXPECT_EQ(AlreadyExistsError("x").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(PermissionDeniedError("x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ResourceExhaustedError("x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(FailedPreconditionError("x").code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(AbortedError("x").code(), StatusCode::kAborted);
  EXPECT_EQ(OutOfRangeError("x").code(), StatusCode::kOutOfRange);
  EXPECT_EQ(UnimplementedError("x").code(), StatusCode::kUnimplemented);
  EXPECT_EQ(InternalError("x").code(), StatusCode::kInternal);
  EXPECT_EQ(UnavailableError("x").code(), StatusCode::kUnavailable);
  EXPECT_EQ(DataLossError("x").code(), StatusCode::kDataLoss);
}

// Each Is* predicate is true for its own code only; ok() is true for OK
// only. Every pair (predicate, code) is checked.
TEST(StatusTest, EachPredicateMatchesExactlyItsOwnCode) {
  struct Row {
    StatusCode code;
    bool (*is)(const Status&);
  };
  const Row rows[] = {
      {StatusCode::kOk, [](const Status& s) { return s.ok(); }},
      {StatusCode::kCancelled, IsCancelled},
      {StatusCode::kUnknown, IsUnknown},
      {StatusCode::kInvalidArgument, IsInvalidArgument},
      {StatusCode::kDeadlineExceeded, IsDeadlineExceeded},
      {StatusCode::kNotFound, IsNotFound},
      {StatusCode::kAlreadyExists, IsAlreadyExists},
      {StatusCode::kPermissionDenied, IsPermissionDenied},
      {StatusCode::kResourceExhausted, IsResourceExhausted},
      {StatusCode::kFailedPrecondition, IsFailedPrecondition},
      {StatusCode::kAborted, IsAborted},
      {StatusCode::kOutOfRange, IsOutOfRange},
      {StatusCode::kUnimplemented, IsUnimplemented},
      {StatusCode::kInternal, IsInternal},
      {StatusCode::kUnavailable, IsUnavailable},
      {StatusCode::kDataLoss, IsDataLoss},
  };
  static_assert(std::size(rows) == kNumStatusCodes);
  for (const Row& predicate : rows) {
    for (const Row& value : rows) {
      const Status s(value.code, "m");
      EXPECT_EQ(predicate.is(s), predicate.code == value.code)
          << "predicate for " << StatusCodeName(predicate.code) << " on " << s;
    }
  }
}

TEST(StatusTest, WithContextPrefixesMessageAndKeepsCode) {
  Status s = DataLossError("bad crc").WithContext("a.tfrecord");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "a.tfrecord: bad crc");
  EXPECT_TRUE(OkStatus().WithContext("x").ok());
}

TEST(StatusTest, CopyAndEquality) {
  Status a = NotFoundError("f");
  Status b = a;
  EXPECT_EQ(a, b);
  b = OkStatus();
  EXPECT_FALSE(a == b);
  Status c = std::move(a);
  EXPECT_EQ(c.code(), StatusCode::kNotFound);
}

Result<int> Half(int x) {
  if (x % 2) return InvalidArgumentError("odd");
  return x / 2;
}

Status UseAssignOrReturn(int x, int* out) {
  INFLOW_ASSIGN_OR_RETURN(*out, Half(x));
  INFLOW_RETURN_IF_ERROR(x > 100 ? OutOfRangeError("big") : OkStatus());
  return OkStatus();
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> r = Half(4);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 2);
  EXPECT_TRUE(r.status().ok());
  Result<int> e = Half(3);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(e.value_or(7), 7);
}

TEST(ResultTest, OkStatusBecomesInternal) {
  Result<int> r{OkStatus()};
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(ResultTest, MacrosPropagate) {
  int out = 0;
  EXPECT_TRUE(UseAssignOrReturn(8, &out).ok());
  EXPECT_EQ(out, 4);
  EXPECT_EQ(UseAssignOrReturn(3, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(UseAssignOrReturn(102, &out).code(), StatusCode::kOutOfRange);
}

TEST(ResultDeathTest, ValueOnErrorAborts) {
  Result<int> e = Half(3);
  EXPECT_DEATH((void)e.value(), "INVALID_ARGUMENT: odd");
}

}  // namespace
}  // namespace inflow
