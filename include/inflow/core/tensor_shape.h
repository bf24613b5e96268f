// Copyright 2026 The inflow Authors.
//
// TensorShape: a fully known shape. PartialShape: a shape whose rank or
// dimensions may be unknown (TF's TensorShape with None dims), used to
// declare queue components and parsing configurations.
// Both are values; thread-compatible.

#ifndef INFLOW_CORE_TENSOR_SHAPE_H_
#define INFLOW_CORE_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inflow/core/result.h"

namespace inflow {

class TensorShape {
 public:
  // A scalar (rank 0, one element).
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Checks that every dim is ≥ 0 and the element count fits in int64.
  static Result<TensorShape> FromDims(std::span<const int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;

  void AddDim(int64_t size) { dims_.push_back(size); }
  void InsertDim(int i, int64_t size) { dims_.insert(dims_.begin() + i, size); }
  void RemoveDim(int i) { dims_.erase(dims_.begin() + i); }
  void set_dim(int i, int64_t size) { dims_[i] = size; }

  // dims [begin, end) as a shape; Slice(1) drops the leading dim.
  TensorShape Slice(int begin, int end = -1) const;
  // [n] + this.
  TensorShape Prepend(int64_t n) const;

  // "[]", "[2,3]".
  std::string DebugString() const;

  friend bool operator==(const TensorShape&, const TensorShape&) = default;

 private:
  std::vector<int64_t> dims_;
};

class PartialShape {
 public:
  static constexpr int64_t kUnknownDim = -1;

  // Unknown rank.
  PartialShape() = default;
  // Known rank; a dim of -1 is unknown.
  PartialShape(std::initializer_list<int64_t> dims)
      : dims_(std::vector(dims)) {}
  explicit PartialShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  PartialShape(const TensorShape& shape)  // NOLINT(implicit)
      : dims_(shape.dims()) {}

  static PartialShape UnknownRank() { return PartialShape(); }

  bool rank_known() const { return dims_.has_value(); }
  // -1 when the rank is unknown.
  int rank() const { return dims_ ? static_cast<int>(dims_->size()) : -1; }
  // Precondition: rank_known().
  int64_t dim(int i) const { return (*dims_)[i]; }
  const std::vector<int64_t>& dims() const { return *dims_; }
  bool IsFullyDefined() const;
  // Precondition: IsFullyDefined().
  TensorShape AsTensorShape() const;

  // True when `shape` could be a value of this partial shape.
  bool IsCompatibleWith(const TensorShape& shape) const;
  // True when some shape could be a value of both.
  bool IsCompatibleWith(const PartialShape& other) const;

  // [n] + this (n may be -1). Unknown rank stays unknown.
  PartialShape Prepend(int64_t n) const;

  // "<unknown>", "[?,3]".
  std::string DebugString() const;

  friend bool operator==(const PartialShape&, const PartialShape&) = default;

 private:
  std::optional<std::vector<int64_t>> dims_;
};

}  // namespace inflow

#endif  // INFLOW_CORE_TENSOR_SHAPE_H_
