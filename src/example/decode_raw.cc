// Copyright 2026 The inflow Authors.

#include "inflow/example/decode_raw.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>

#include "core/convert_kernels.h"

namespace inflow {

namespace {

Result<size_t> ElementSize(DType dtype) {
  // Complex values are not decoded (their halves would need swapping
  // apart for big-endian input).
  if (dtype == DType::kString || dtype == DType::kComplex64 ||
      dtype == DType::kComplex128 || !IsValidDType(dtype)) {
    return InvalidArgumentError("DecodeRaw: unsupported out_type " +
                                std::string(DTypeName(dtype)));
  }
  return DTypeSize(dtype);
}

Status CheckMultiple(size_t bytes, size_t size, DType dtype) {
  if (bytes % size != 0) {
    return InvalidArgumentError(
        "Input to DecodeRaw has length " + std::to_string(bytes) +
        " that is not a multiple of " + std::to_string(size) +
        ", the size of " + std::string(DTypeName(dtype)));
  }
  return OkStatus();
}

// Copies `bytes` to dst, reversing each element's bytes when the wanted
// order is not the host's.
void CopyOrdered(std::string_view bytes, size_t size, bool little_endian,
                 char* dst) {
  if (bytes.empty()) return;
  std::memcpy(dst, bytes.data(), bytes.size());
  const bool host_little = std::endian::native == std::endian::little;
  if (size > 1 && little_endian != host_little) {
    for (size_t i = 0; i < bytes.size(); i += size) {
      std::reverse(dst + i, dst + i + size);
    }
  }
}

}  // namespace

Result<Tensor> DecodeRaw(std::string_view bytes, DType dtype,
                         bool little_endian) {
  INFLOW_ASSIGN_OR_RETURN(const size_t size, ElementSize(dtype));
  INFLOW_RETURN_IF_ERROR(CheckMultiple(bytes.size(), size, dtype));
  Tensor t = Tensor::Uninitialized(
      dtype, TensorShape({static_cast<int64_t>(bytes.size() / size)}));
  INFLOW_ASSIGN_OR_RETURN(void* const dst, t.mutable_raw_data());
  CopyOrdered(bytes, size, little_endian, static_cast<char*>(dst));
  return t;
}

namespace {

// The common length of `in`'s elements, or DecodeRaw's error.
template <typename Str>
Result<size_t> CommonLength(std::span<const Str> in) {
  const size_t len = in.empty() ? 0 : in[0].size();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].size() != len) {
      return InvalidArgumentError(
          "DecodeRaw requires input strings to all be the same size, but "
          "element " +
          std::to_string(i) + " has size " + std::to_string(in[i].size()) +
          " != " + std::to_string(len));
    }
  }
  return len;
}

}  // namespace

Result<Tensor> DecodeRaw(const Tensor& bytes, DType dtype, bool little_endian) {
  if (bytes.dtype() != DType::kString) {
    return InvalidArgumentError("DecodeRaw: input must be a string tensor");
  }
  INFLOW_ASSIGN_OR_RETURN(const size_t size, ElementSize(dtype));
  const std::span<const std::string> in = bytes.flat<std::string>();
  INFLOW_ASSIGN_OR_RETURN(const size_t len, CommonLength(in));
  INFLOW_RETURN_IF_ERROR(CheckMultiple(len, size, dtype));
  TensorShape shape = bytes.shape();
  shape.AddDim(static_cast<int64_t>(len / size));
  Tensor t = Tensor::Uninitialized(dtype, shape);
  INFLOW_ASSIGN_OR_RETURN(void* const out, t.mutable_raw_data());
  char* dst = static_cast<char*>(out);
  for (const std::string& s : in) {
    CopyOrdered(s, size, little_endian, dst);
    dst += len;
  }
  return t;
}

namespace {

// Rows ahead that ToFloat asks the cache for.
constexpr size_t kAhead = 4;

template <typename Str>
Result<Tensor> ToFloat(std::span<const Str> in, TensorShape shape,
                       float scale) {
  INFLOW_ASSIGN_OR_RETURN(const size_t len, CommonLength(in));
  shape.AddDim(static_cast<int64_t>(len));
  Tensor t = Tensor::Uninitialized(DType::kFloat32, shape);
  INFLOW_ASSIGN_OR_RETURN(std::span<float> out, t.mutable_flat<float>());
  float* dst = out.data();
  for (size_t i = 0; i < in.size(); ++i) {
    // The bytes of the row kAhead on: a batch's values are often scattered
    // and cold (records drawn from a shuffle buffer, or parsed in place),
    // and a conversion waiting on each row's misses in turn runs at memory
    // latency, not bandwidth.
    if (i + kAhead < in.size()) {
      const char* next = in[i + kAhead].data();
      for (size_t o = 0; o < len; o += 64) __builtin_prefetch(next + o);
    }
    internal::Uint8ToFloatScaled(reinterpret_cast<const uint8_t*>(in[i].data()),
                                 len, scale, dst);
    dst += len;
  }
  return t;
}

}  // namespace

Result<Tensor> DecodeRawToFloat(const Tensor& bytes, float scale) {
  if (bytes.dtype() != DType::kString) {
    return InvalidArgumentError("DecodeRaw: input must be a string tensor");
  }
  return ToFloat(bytes.flat<std::string>(), bytes.shape(), scale);
}

Result<Tensor> DecodeRawToFloat(std::span<const std::string_view> bytes,
                                float scale) {
  return ToFloat(bytes, TensorShape({static_cast<int64_t>(bytes.size())}),
                 scale);
}

Result<Tensor> DecodeRawShared(std::shared_ptr<const std::string> owner,
                               std::string_view bytes, DType dtype,
                               bool little_endian) {
  INFLOW_ASSIGN_OR_RETURN(const size_t size, ElementSize(dtype));
  INFLOW_RETURN_IF_ERROR(CheckMultiple(bytes.size(), size, dtype));
  const bool inside =
      owner != nullptr &&
      std::less_equal<const char*>()(owner->data(), bytes.data()) &&
      std::less_equal<const char*>()(bytes.data() + bytes.size(),
                                     owner->data() + owner->size());
  if (!inside) {
    return InvalidArgumentError(
        "DecodeRawShared: the bytes do not lie inside the owning buffer");
  }
  const bool host_order = size == 1 || little_endian == (std::endian::native ==
                                                         std::endian::little);
  const auto addr = reinterpret_cast<uintptr_t>(bytes.data());
  if (!host_order || addr % size != 0) {
    return DecodeRaw(bytes, dtype, little_endian);
  }
  // A read-only view; the release callback holds the record until the
  // last view goes.
  auto buffer = TensorBuffer::Wrap(bytes.data(), bytes.size(),
                                   [owner = std::move(owner)] { (void)owner; });
  return Tensor::FromBuffer(
      dtype, TensorShape({static_cast<int64_t>(bytes.size() / size)}),
      std::move(buffer));
}

}  // namespace inflow
