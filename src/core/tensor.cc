// Copyright 2026 The inflow Authors.

#include "inflow/core/tensor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace inflow {

namespace {

[[noreturn]] void PreconditionFailed(const std::string& what) {
  std::fprintf(stderr, "inflow: Tensor precondition failed: %s\n",
               what.c_str());
  std::abort();
}

// The element count of `shape`; ends the process when a dimension is
// negative or the count overflows int64 (no allocation could hold it).
int64_t CheckedNumElements(const TensorShape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dims()) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) {
      PreconditionFailed("invalid shape " + shape.DebugString() +
                         " for a new tensor");
    }
  }
  return n;
}

}  // namespace

Tensor::Tensor(DType dtype, TensorShape shape)
    : Tensor(dtype, std::move(shape), /*zero=*/true) {}

// The buffer is made in place (not assigned after): a shared_ptr returned
// into a temporary and then moved in costs a store-forwarding stall,
// measurable on a tensor made per element.
Tensor::Tensor(DType dtype, TensorShape shape, bool zero)
    : dtype_(dtype),
      shape_(std::move(shape)),
      num_elements_(CheckedNumElements(shape_)),
      buffer_(TensorBuffer::Allocate(dtype, num_elements_, zero)) {}

Tensor Tensor::Uninitialized(DType dtype, TensorShape shape) {
  return Tensor(dtype, std::move(shape), /*zero=*/false);
}

Result<Tensor> Tensor::FromBuffer(DType dtype, TensorShape shape,
                                  std::shared_ptr<TensorBuffer> buffer,
                                  size_t byte_offset) {
  if (!IsValidDType(dtype)) return InvalidArgumentError("invalid dtype");
  if (dtype == DType::kString) {
    return InvalidArgumentError(
        "FromBuffer: a string tensor cannot view a byte buffer (its elements "
        "are std::string objects); build it with FromVector or Tensor()");
  }
  if (buffer == nullptr) return InvalidArgumentError("null buffer");
  Result<TensorShape> checked = TensorShape::FromDims(shape.dims());
  if (!checked.ok()) {
    return InvalidArgumentError(
        "FromBuffer: shape " + shape.DebugString() +
        " is invalid: " + std::string(checked.status().message()));
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.num_elements_ = t.shape_.num_elements();
  const size_t elem = t.element_size();
  const size_t room =
      byte_offset > buffer->size() ? 0 : buffer->size() - byte_offset;
  // Compared by division: the product n * elem may not fit in size_t.
  if (byte_offset > buffer->size() ||
      static_cast<uint64_t>(t.num_elements_) > room / elem) {
    return InvalidArgumentError("buffer of " + std::to_string(buffer->size()) +
                                " bytes is too small for " +
                                t.shape_.DebugString() + " " +
                                std::string(DTypeName(dtype)));
  }
  const auto addr = reinterpret_cast<uintptr_t>(buffer->data()) + byte_offset;
  if (elem > 1 && addr % elem != 0) {
    return InvalidArgumentError("buffer is misaligned for " +
                                std::string(DTypeName(dtype)));
  }
  t.buffer_ = std::move(buffer);
  t.offset_ = byte_offset;
  return t;
}

Status Tensor::NotWritable() const {
  if (buffer_ == nullptr) {
    return FailedPreconditionError("cannot write to an uninitialized tensor");
  }
  return FailedPreconditionError(
      "cannot write to a read-only " + std::string(DTypeName(dtype_)) +
      " tensor " + shape_.DebugString() +
      " (it views borrowed bytes; Clone() it to get a writable copy)");
}

Status Tensor::CheckElementCount(const TensorShape& shape, size_t count) {
  Result<TensorShape> checked = TensorShape::FromDims(shape.dims());
  if (!checked.ok()) {
    return InvalidArgumentError(
        "FromVector: shape " + shape.DebugString() +
        " is invalid: " + std::string(checked.status().message()));
  }
  if (shape.num_elements() != static_cast<int64_t>(count)) {
    return InvalidArgumentError(
        "FromVector: " + std::to_string(count) + " values do not fill shape " +
        shape.DebugString() + " of " + std::to_string(shape.num_elements()) +
        " elements");
  }
  return OkStatus();
}

void Tensor::TypeMismatchAbort(DType requested) const {
  PreconditionFailed("typed access as " + std::string(DTypeName(requested)) +
                     " to a tensor of dtype " + std::string(DTypeName(dtype_)));
}

Status Tensor::TypeMismatch(DType requested) const {
  return InvalidArgumentError("tensor is " + std::string(DTypeName(dtype_)) +
                              ", not " + std::string(DTypeName(requested)));
}

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  if (rank() < 1 || begin < 0 || begin > end || end > dim_size(0)) {
    PreconditionFailed("Slice(" + std::to_string(begin) + ", " +
                       std::to_string(end) + ") of a tensor of shape " +
                       shape_.DebugString());
  }
  Tensor t = *this;
  const int64_t row = dim_size(0) == 0 ? 0 : num_elements_ / dim_size(0);
  t.shape_.set_dim(0, end - begin);
  t.num_elements_ = row * (end - begin);
  t.offset_ = offset_ + static_cast<size_t>(begin * row) * element_size();
  return t;
}

Tensor Tensor::SubTensor(int64_t i) const {
  if (rank() < 1 || i < 0 || i >= dim_size(0)) {
    PreconditionFailed("SubTensor(" + std::to_string(i) +
                       ") of a tensor of shape " + shape_.DebugString());
  }
  Tensor t = Slice(i, i + 1);
  t.shape_.RemoveDim(0);
  return t;
}

void Tensor::AssignSubTensorSlow(const Tensor& batch, int64_t i) {
  *this = batch.SubTensor(i);  // checks the precondition
}

Result<Tensor> Tensor::Reshape(TensorShape shape) const {
  if (shape.num_elements() != num_elements_) {
    return InvalidArgumentError("cannot reshape " + shape_.DebugString() +
                                " to " + shape.DebugString());
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

namespace {

// Copies n elements of `dtype` from src to dst (strings by assignment).
void CopyElements(DType dtype, const void* src, void* dst, int64_t n) {
  if (dtype == DType::kString) {
    const auto* s = static_cast<const std::string*>(src);
    auto* d = static_cast<std::string*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
  } else if (n > 0) {
    std::memcpy(dst, src, static_cast<size_t>(n) * DTypeSize(dtype));
  }
}

}  // namespace

Tensor Tensor::Clone() const {
  if (!IsInitialized()) return Tensor();
  Tensor t = Uninitialized(dtype_, shape_);
  CopyElements(dtype_, raw_data(), t.writable_data(), num_elements_);
  return t;
}

Result<Tensor> Tensor::Stack(std::span<const Tensor> elements) {
  if (elements.empty()) {
    return InvalidArgumentError("Stack needs at least one tensor");
  }
  const Tensor& first = elements[0];
  for (size_t i = 1; i < elements.size(); ++i) {
    if (elements[i].dtype() != first.dtype() ||
        elements[i].shape() != first.shape()) {
      return InvalidArgumentError(
          "Stack: element " + std::to_string(i) + " is " +
          std::string(DTypeName(elements[i].dtype())) +
          elements[i].shape().DebugString() + ", expected " +
          std::string(DTypeName(first.dtype())) + first.shape().DebugString());
    }
  }
  Tensor out = Uninitialized(
      first.dtype(),
      first.shape().Prepend(static_cast<int64_t>(elements.size())));
  const size_t row_bytes = first.num_bytes();
  char* dst = static_cast<char*>(out.writable_data());
  for (const Tensor& e : elements) {
    CopyElements(first.dtype(), e.raw_data(), dst, e.num_elements());
    dst += row_bytes;
  }
  return out;
}

Result<Tensor> Tensor::StackMove(std::vector<Tensor>&& elements) {
  if (elements.empty() || elements[0].dtype() != DType::kString) {
    return Stack(std::span<const Tensor>(elements));
  }
  INFLOW_RETURN_IF_ERROR(
      Stack(std::span<const Tensor>(elements.data(), 1)).status());
  const Tensor& first = elements[0];
  for (size_t i = 1; i < elements.size(); ++i) {
    if (elements[i].dtype() != first.dtype() ||
        elements[i].shape() != first.shape()) {
      return Stack(std::span<const Tensor>(elements));  // its error
    }
  }
  Tensor out(DType::kString,
             first.shape().Prepend(static_cast<int64_t>(elements.size())));
  std::string* dst = static_cast<std::string*>(out.writable_data());
  const int64_t n = first.num_elements();
  for (Tensor& e : elements) {
    const bool own =
        e.buffer_ != nullptr && e.buffer_.use_count() == 1 && !e.read_only();
    if (own) {
      std::string* src = static_cast<std::string*>(e.writable_data());
      for (int64_t i = 0; i < n; ++i) dst[i] = std::move(src[i]);
    } else {
      const std::string* src = e.data<std::string>();
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
    }
    dst += n;
  }
  return out;
}

Result<Tensor> Tensor::Concat(std::span<const Tensor> parts) {
  if (parts.empty()) {
    return InvalidArgumentError("Concat needs at least one tensor");
  }
  const Tensor& first = parts[0];
  if (first.rank() < 1) return InvalidArgumentError("Concat of a scalar");
  const TensorShape row = first.shape().Slice(1);
  int64_t n = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].dtype() != first.dtype() || parts[i].rank() < 1 ||
        parts[i].shape().Slice(1) != row) {
      return InvalidArgumentError("Concat: part " + std::to_string(i) +
                                  " does not match part 0");
    }
    n += parts[i].dim_size(0);
  }
  Tensor out = Uninitialized(first.dtype(), row.Prepend(n));
  char* dst = static_cast<char*>(out.writable_data());
  for (const Tensor& p : parts) {
    CopyElements(first.dtype(), p.raw_data(), dst, p.num_elements());
    dst += p.num_bytes();
  }
  return out;
}

bool operator==(const Tensor& a, const Tensor& b) {
  if (a.dtype_ != b.dtype_ || a.shape_ != b.shape_) return false;
  if (!a.IsInitialized()) return true;
  if (a.dtype_ == DType::kString) {
    const auto* x = a.data<std::string>();
    const auto* y = b.data<std::string>();
    for (int64_t i = 0; i < a.num_elements_; ++i) {
      if (x[i] != y[i]) return false;
    }
    return true;
  }
  return std::memcmp(a.raw_data(), b.raw_data(), a.num_bytes()) == 0;
}

}  // namespace inflow
