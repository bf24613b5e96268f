// Copyright 2026 The inflow Authors.

#include "inflow/core/tensor_shape.h"

#include <limits>

namespace inflow {

Result<TensorShape> TensorShape::FromDims(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return InvalidArgumentError("negative dimension " + std::to_string(d));
    }
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      return InvalidArgumentError("shape has too many elements");
    }
    n *= d;
  }
  return TensorShape(std::vector<int64_t>(dims.begin(), dims.end()));
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

TensorShape TensorShape::Slice(int begin, int end) const {
  if (end < 0) end = rank();
  return TensorShape(
      std::vector<int64_t>(dims_.begin() + begin, dims_.begin() + end));
}

TensorShape TensorShape::Prepend(int64_t n) const {
  std::vector<int64_t> dims;
  dims.reserve(dims_.size() + 1);
  dims.push_back(n);
  dims.insert(dims.end(), dims_.begin(), dims_.end());
  return TensorShape(std::move(dims));
}

namespace {
std::string DimsString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ",";
    out += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return out + "]";
}
}  // namespace

std::string TensorShape::DebugString() const { return DimsString(dims_); }

bool PartialShape::IsFullyDefined() const {
  if (!dims_) return false;
  for (int64_t d : *dims_) {
    if (d < 0) return false;
  }
  return true;
}

TensorShape PartialShape::AsTensorShape() const { return TensorShape(*dims_); }

bool PartialShape::IsCompatibleWith(const TensorShape& shape) const {
  if (!dims_) return true;
  if (static_cast<int>(dims_->size()) != shape.rank()) return false;
  for (int i = 0; i < shape.rank(); ++i) {
    if ((*dims_)[i] >= 0 && (*dims_)[i] != shape.dim(i)) return false;
  }
  return true;
}

bool PartialShape::IsCompatibleWith(const PartialShape& other) const {
  if (!dims_ || !other.dims_) return true;
  if (dims_->size() != other.dims_->size()) return false;
  for (size_t i = 0; i < dims_->size(); ++i) {
    const int64_t a = (*dims_)[i], b = (*other.dims_)[i];
    if (a >= 0 && b >= 0 && a != b) return false;
  }
  return true;
}

PartialShape PartialShape::Prepend(int64_t n) const {
  if (!dims_) return *this;
  std::vector<int64_t> dims;
  dims.reserve(dims_->size() + 1);
  dims.push_back(n);
  dims.insert(dims.end(), dims_->begin(), dims_->end());
  return PartialShape(std::move(dims));
}

std::string PartialShape::DebugString() const {
  return dims_ ? DimsString(*dims_) : "<unknown>";
}

}  // namespace inflow
