// Copyright 2026 The inflow Authors.
//
// Tensor: a typed n-d array over a reference-counted, 64-byte-aligned
// buffer. Copying a Tensor copies a reference, never the payload; slicing
// along dimension 0 is zero-copy. String tensors hold std::string elements.
//
// Thread safety: a Tensor object is thread-compatible. Several Tensors may
// share one buffer from several threads; writers must not race with readers
// of the same elements (inflow only writes into buffers it has just
// allocated, before publishing them).

#ifndef INFLOW_CORE_TENSOR_H_
#define INFLOW_CORE_TENSOR_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor_shape.h"

namespace inflow {

inline constexpr size_t kTensorAlignment = 64;

// Storage shared by Tensors. Either owned (64-byte aligned; string elements
// are constructed and destroyed with it) or borrowed memory with a release
// callback (zero-copy views of file buffers or foreign arrays).
class TensorBuffer {
 public:
  // `num_elements` elements of `dtype`, zero-filled when `zero` (strings are
  // always constructed empty).
  static std::shared_ptr<TensorBuffer> Allocate(DType dtype,
                                                int64_t num_elements,
                                                bool zero = true);
  // Borrows [data, data + size); `release` runs when the last reference
  // goes. Not for string dtypes.
  static std::shared_ptr<TensorBuffer> Wrap(void* data, size_t size,
                                            std::function<void()> release);

  // Only the factories above can make a Key, so only they construct.
  class Key {
    friend class TensorBuffer;
    Key() = default;
  };
  explicit TensorBuffer(Key) {}
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  int64_t num_strings_ = 0;  // string elements to destroy
  // Owned data lives in the same allocation as this object and its
  // reference count (one allocation per tensor); borrowed data has a
  // release callback instead.
  std::function<void()> release_;
};

class Tensor {
 public:
  // An uninitialized tensor (dtype kInvalid); only assignable and
  // comparable.
  Tensor() = default;
  // Allocates a zero-filled tensor (strings empty).
  Tensor(DType dtype, TensorShape shape);

  // Allocates without zero-filling numeric data (for callers that overwrite
  // every byte, such as batch stacking).
  static Tensor Uninitialized(DType dtype, TensorShape shape);

  // A view of `buffer` starting `byte_offset` bytes in. Fails when the
  // buffer is too small or misaligned for `dtype`.
  static Result<Tensor> FromBuffer(DType dtype, TensorShape shape,
                                   std::shared_ptr<TensorBuffer> buffer,
                                   size_t byte_offset = 0);

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(kDTypeOf<T>, TensorShape());
    t.data<T>()[0] = std::move(value);
    return t;
  }
  static Tensor Scalar(const char* value) {
    return Scalar<std::string>(std::string(value));
  }
  // A tensor of `shape` (default: 1-D of values.size()) holding `values`.
  // Precondition: shape.num_elements() == values.size().
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values,
                      TensorShape({static_cast<int64_t>(values.size())}));
  }
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, TensorShape shape) {
    assert(shape.num_elements() == static_cast<int64_t>(values.size()));
    Tensor t(kDTypeOf<T>, std::move(shape));
    T* out = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
    return t;
  }

  bool IsInitialized() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim_size(int i) const { return shape_.dim(i); }
  int64_t num_elements() const { return num_elements_; }
  // Bytes of element storage (num_elements * sizeof(std::string) for
  // strings).
  size_t num_bytes() const;

  // Typed element access in row-major order. Precondition: T matches
  // dtype().
  template <typename T>
  T* data() {
    assert(kDTypeOf<T> == dtype_);
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    assert(kDTypeOf<T> == dtype_);
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  std::span<T> flat() {
    return {data<T>(), static_cast<size_t>(num_elements_)};
  }
  template <typename T>
  std::span<const T> flat() const {
    return {data<T>(), static_cast<size_t>(num_elements_)};
  }
  void* raw_data() const;

  // Rows [begin, end) along dimension 0, sharing this buffer.
  // Precondition: rank() >= 1 and 0 <= begin <= end <= dim_size(0).
  Tensor Slice(int64_t begin, int64_t end) const;
  // Row i along dimension 0 (shape()[1:]), sharing this buffer.
  Tensor SubTensor(int64_t i) const;
  // The same elements with another shape of equal element count, shared.
  Result<Tensor> Reshape(TensorShape shape) const;
  // A deep copy into a fresh buffer.
  Tensor Clone() const;

  bool SharesBufferWith(const Tensor& other) const {
    return buffer_ != nullptr && buffer_ == other.buffer_;
  }
  const std::shared_ptr<TensorBuffer>& buffer() const { return buffer_; }

  // Stacks equally shaped tensors into one [n] + shape tensor: one copy
  // into a fresh aligned buffer. INVALID_ARGUMENT on a dtype or shape
  // mismatch or an empty list (use Tensor(dtype, shape.Prepend(0))).
  static Result<Tensor> Stack(std::span<const Tensor> elements);
  // Concatenates tensors of shape [n_i] + s along dimension 0.
  static Result<Tensor> Concat(std::span<const Tensor> parts);

  // Same dtype, shape and element values (numbers compared bitwise).
  friend bool operator==(const Tensor& a, const Tensor& b);

  // "Tensor<float32 [2,3]: [1 2 3 4 5 6]>", at most `max_entries` values.
  std::string DebugString(int max_entries = 16) const;

 private:
  size_t element_size() const;

  DType dtype_ = DType::kInvalid;
  TensorShape shape_;
  int64_t num_elements_ = 0;
  std::shared_ptr<TensorBuffer> buffer_;
  size_t offset_ = 0;  // bytes into buffer_
};

// A queue element or batch: one tensor per component.
using Tuple = std::vector<Tensor>;

std::string DebugString(const Tuple& tuple);

}  // namespace inflow

#endif  // INFLOW_CORE_TENSOR_H_
