// Copyright 2026 The inflow Authors.
//
// Tensor: a typed n-d array over a reference-counted, 64-byte-aligned
// buffer. Copying a Tensor copies a reference, never the payload; slicing
// along dimension 0 is zero-copy. String tensors hold std::string elements.
//
// Read-only buffers: a buffer that borrows memory inflow must not change
// (TensorBuffer::Wrap, e.g. DecodeRawShared's view of a record's bytes) is
// read-only, and so is every Tensor over it, its slices and reshapes
// included. Reading is always allowed (data(), flat(), raw_data() are
// const). Writing goes through mutable_flat() / mutable_raw_data(), which
// return FAILED_PRECONDITION for a read-only tensor, in every build. Clone,
// Stack, Concat and the queues' batching copy into a new owned buffer,
// which is writable.
//
// Preconditions: the few calls that cannot return a Status (the
// constructor, Uninitialized, data<T>(), flat<T>(), Slice, SubTensor) check
// their preconditions in every build and end the process with a message
// when one is broken (a bug in the caller, as Result::value() on an
// error): going on would read or write outside the buffer. Input that may
// be wrong goes through the factories that return Result<Tensor>.
//
// Thread safety: a Tensor object is thread-compatible. Several Tensors may
// share one buffer from several threads; writers must not race with readers
// of the same elements (inflow only writes into buffers it has just
// allocated, before publishing them).

#ifndef INFLOW_CORE_TENSOR_H_
#define INFLOW_CORE_TENSOR_H_

#include <algorithm>
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
// are constructed and destroyed with it; writable) or borrowed memory with
// a release callback (zero-copy views of record bytes or foreign arrays).
//
// The release callback runs exactly once, on the thread that drops the
// last reference to the buffer: whichever thread destroys or reassigns the
// last Tensor (or shared_ptr) over it, for example a consumer thread after
// a Dequeue, or the thread that destroys a queue still holding it. It
// never runs while inflow holds one of its own locks: queues move tensors
// in and out under their locks but destroy them only after releasing the
// lock, and the rest of inflow holds no lock when it drops a tensor (a
// reader op that dequeues a filename under its own lock destroys that
// element after releasing it). So the callback may take locks of its own
// and call into
// inflow; it should not block for long, since it delays the thread that
// happened to drop the last reference. It must not throw.
//
// Thread-safe: a TensorBuffer is immutable after construction (its bytes
// are governed by the Tensor rules above).
class TensorBuffer {
 public:
  // `num_elements` elements of `dtype`, zero-filled when `zero` (strings are
  // always constructed empty). Writable. Aborts with a message, in every
  // build, when num_elements is negative or its byte size overflows.
  static std::shared_ptr<TensorBuffer> Allocate(DType dtype,
                                                int64_t num_elements,
                                                bool zero = true);
  // Borrows [data, data + size) read-only; `release` (may be empty) runs
  // when the last reference goes. Not for string dtypes.
  static std::shared_ptr<TensorBuffer> Wrap(const void* data, size_t size,
                                            std::function<void()> release);
  // The same, writable: for memory the caller lets inflow change (a
  // foreign array handed over for filling).
  static std::shared_ptr<TensorBuffer> WrapWritable(
      void* data, size_t size, std::function<void()> release);

  // Only the factories above can make a Key, so only they construct.
  class Key {
    friend class TensorBuffer;
    Key() = default;
  };
  explicit TensorBuffer(Key) {}
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  const void* data() const { return data_; }
  size_t size() const { return size_; }
  // True for Wrap()'s buffers: no Tensor writes into them.
  bool read_only() const { return read_only_; }

 private:
  friend class Tensor;

  void* data_ = nullptr;
  size_t size_ = 0;
  int64_t num_strings_ = 0;  // string elements to destroy
  bool read_only_ = false;
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
  // Allocates a zero-filled tensor (strings empty). Precondition, checked
  // in every build (see "Preconditions" below): no dimension of `shape` is
  // negative and its element count fits in int64.
  Tensor(DType dtype, TensorShape shape);

  // Allocates without zero-filling numeric data (for callers that overwrite
  // every byte, such as batch stacking). Precondition as for the
  // constructor.
  static Tensor Uninitialized(DType dtype, TensorShape shape);

  // A view of `buffer` starting `byte_offset` bytes in; read-only when the
  // buffer is. INVALID_ARGUMENT when the dtype is invalid or string (a
  // string element is a std::string object, which no byte buffer holds),
  // when a dimension is negative, or when the buffer is too small or
  // misaligned for `dtype`.
  static Result<Tensor> FromBuffer(DType dtype, TensorShape shape,
                                   std::shared_ptr<TensorBuffer> buffer,
                                   size_t byte_offset = 0);

  template <typename T>
  static Tensor Scalar(T value) {
    // Uninitialized: the value overwrites the element (a string is
    // constructed empty either way), so no zero-fill first.
    Tensor t = Uninitialized(kDTypeOf<T>, TensorShape());
    *static_cast<T*>(t.writable_data()) = std::move(value);
    return t;
  }
  static Tensor Scalar(const char* value) {
    return Scalar<std::string>(std::string(value));
  }
  // A 1-D tensor holding `values`.
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    Tensor t = Uninitialized(
        kDTypeOf<T>, TensorShape({static_cast<int64_t>(values.size())}));
    t.FillFrom(values);
    return t;
  }
  // A tensor of `shape` holding `values` in row-major order.
  // INVALID_ARGUMENT, naming both, when `shape` has a negative dimension or
  // holds another number of elements than values.size().
  template <typename T>
  static Result<Tensor> FromVector(const std::vector<T>& values,
                                   TensorShape shape) {
    Status status = CheckElementCount(shape, values.size());
    if (!status.ok()) return status;
    Tensor t(kDTypeOf<T>, std::move(shape));
    t.FillFrom(values);
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
  size_t num_bytes() const {
    return static_cast<size_t>(num_elements_) * element_size();
  }

  // Typed read access in row-major order. Precondition, checked in every
  // build: T matches dtype().
  template <typename T>
  const T* data() const {
    if (kDTypeOf<T> != dtype_) [[unlikely]] {
      TypeMismatchAbort(kDTypeOf<T>);
    }
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  std::span<const T> flat() const {
    return {data<T>(), static_cast<size_t>(num_elements_)};
  }
  const void* raw_data() const {
    if (buffer_ == nullptr) return nullptr;
    return static_cast<const char*>(buffer_->data_) + offset_;
  }

  // True when the buffer is read-only (see the top of this file).
  bool read_only() const { return buffer_ != nullptr && buffer_->read_only(); }

  // Typed write access. FAILED_PRECONDITION for a read-only or
  // uninitialized tensor; INVALID_ARGUMENT when T does not match dtype().
  template <typename T>
  Result<std::span<T>> mutable_flat() {
    if (kDTypeOf<T> != dtype_) return TypeMismatch(kDTypeOf<T>);
    Result<void*> data = mutable_raw_data();
    if (!data.ok()) return std::move(data).status();
    return std::span<T>(static_cast<T*>(*data),
                        static_cast<size_t>(num_elements_));
  }
  // Untyped write access; FAILED_PRECONDITION for a read-only or
  // uninitialized tensor.
  Result<void*> mutable_raw_data() {
    if (buffer_ == nullptr || buffer_->read_only_) [[unlikely]] {
      return NotWritable();
    }
    return writable_data();
  }

  // Rows [begin, end) along dimension 0, sharing this buffer.
  // Precondition, checked in every build: rank() >= 1 and
  // 0 <= begin <= end <= dim_size(0).
  Tensor Slice(int64_t begin, int64_t end) const;
  // Row i along dimension 0 (shape()[1:]), sharing this buffer.
  // Precondition, checked in every build: 0 <= i < dim_size(0).
  Tensor SubTensor(int64_t i) const;
  // *this = batch.SubTensor(i), without allocating when this tensor is
  // already a row of `batch` (a view moved from row to row: a loop over a
  // batch's rows keeps one). Precondition as for SubTensor.
  void AssignSubTensor(const Tensor& batch, int64_t i) {
    // The loop's case inline: already a row of `batch`, moved to row i.
    const std::vector<int64_t>& dims = batch.shape_.dims();
    const std::vector<int64_t>& row = shape_.dims();
    if (buffer_ == batch.buffer_ && dtype_ == batch.dtype_ && i >= 0 &&
        !dims.empty() && i < dims[0] && dims.size() == row.size() + 1 &&
        std::equal(row.begin(), row.end(), dims.begin() + 1)) [[likely]] {
      offset_ = batch.offset_ + static_cast<size_t>(i) * num_bytes();
      return;
    }
    AssignSubTensorSlow(batch, i);
  }
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
  // The same, taking the elements: the strings of a string element whose
  // buffer no other tensor shares are moved, not copied (the element is
  // left with empty strings).
  static Result<Tensor> StackMove(std::vector<Tensor>&& elements);
  // Concatenates tensors of shape [n_i] + s along dimension 0.
  static Result<Tensor> Concat(std::span<const Tensor> parts);

  // Same dtype, shape and element values (numbers compared bitwise).
  friend bool operator==(const Tensor& a, const Tensor& b);

  // "Tensor<float32 [2,3]: [1 2 3 4 5 6]>", at most `max_entries` values.
  // String elements are quoted and escaped as TF prints them (tf.print):
  // \n \r \t \" \' \\, other bytes below 0x20 and 0x7f as three octal
  // digits ("a\000b"), bytes from 0x80 up unchanged.
  std::string DebugString(int max_entries = 16) const;

 private:
  // The constructor's and Uninitialized's (zero: zero-fill numeric data).
  Tensor(DType dtype, TensorShape shape, bool zero);
  // OK when `shape` has no negative dimension and `count` elements.
  static Status CheckElementCount(const TensorShape& shape, size_t count);
  Status TypeMismatch(DType requested) const;
  // Why mutable_raw_data() cannot write.
  Status NotWritable() const;
  [[noreturn]] void TypeMismatchAbort(DType requested) const;
  // For factories filling a buffer they have just allocated.
  void* writable_data() { return static_cast<char*>(buffer_->data_) + offset_; }
  template <typename T>
  void FillFrom(const std::vector<T>& values) {
    T* out = static_cast<T*>(writable_data());
    for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  }

  void AssignSubTensorSlow(const Tensor& batch, int64_t i);
  size_t element_size() const {
    return dtype_ == DType::kString ? sizeof(std::string) : DTypeSize(dtype_);
  }

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
