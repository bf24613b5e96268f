// Copyright 2026 The inflow Authors.

#include "example/build_outputs.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "inflow/example/example_parser.h"

#include "example/parsed_schema.h"

namespace inflow {

namespace {

using internal::ParsedSchema;
using Spec = ParsedSchema::Spec;
using Type = ParsedSchema::Type;

std::string Where(const Spec& spec, int64_t index) {
  return "Name: <unknown>, Key: " + spec.key +
         ", Index: " + std::to_string(index) + ".  ";
}

Status KindMismatch(const Spec& spec, int64_t index, FeatureKind actual) {
  return InvalidArgumentError(
      Where(spec, index) + "Data types don't match. Data type: " +
      std::string(FeatureKindName(actual)) +
      " but expected type: " + std::string(DTypeName(spec.dtype)));
}

Status Missing(const Spec& spec, int64_t index) {
  return InvalidArgumentError(
      Where(spec, index) + "Feature: " + spec.key +
      " (data type: " + std::string(DTypeName(spec.dtype)) +
      ") is required but could not be found.");
}

// Copies n elements starting at element `from` of `src` to dst.
void CopyElements(const Tensor& src, int64_t from, int64_t n, void* dst) {
  if (src.dtype() == DType::kString) {
    const std::string* s = src.data<std::string>() + from;
    auto* d = static_cast<std::string*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
  } else if (n > 0) {
    const size_t size = DTypeSize(src.dtype());
    std::memcpy(dst, static_cast<const char*>(src.raw_data()) + from * size,
                static_cast<size_t>(n) * size);
  }
}

// Fills n elements at dst with element 0 of `value`, or with 0 / "" when
// there is no value.
void FillPadding(DType dtype, const std::optional<Tensor>& value, int64_t n,
                 void* dst) {
  if (n <= 0) return;
  switch (dtype) {
    case DType::kFloat32:
      std::fill_n(static_cast<float*>(dst), n,
                  value ? value->data<float>()[0] : 0.0f);
      break;
    case DType::kInt64:
      std::fill_n(static_cast<int64_t*>(dst), n,
                  value ? value->data<int64_t>()[0] : int64_t{0});
      break;
    default: {
      auto* d = static_cast<std::string*>(dst);
      for (int64_t i = 0; i < n; ++i) {
        d[i] = value ? value->data<std::string>()[0] : std::string();
      }
      break;
    }
  }
}

char* ElementPtr(char* base, DType dtype, int64_t element) {
  const size_t size =
      dtype == DType::kString ? sizeof(std::string) : DTypeSize(dtype);
  return base + element * size;
}

// Writes the sparse indices (b, 0), (b, 1), ..., (b, n - 1) to idx.
void FillIndexPairs(int64_t b, int64_t n, int64_t* idx) {
#if defined(__SSE2__)
  __m128i pair = _mm_set_epi64x(0, b);  // (b, 0): b in the low lane
  const __m128i step = _mm_set_epi64x(1, 0);
#pragma GCC unroll 4
  for (int64_t j = 0; j < n; ++j) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(idx + 2 * j), pair);
    pair = _mm_add_epi64(pair, step);
  }
#else
  for (int64_t j = 0; j < n; ++j) {
    idx[2 * j] = b;
    idx[2 * j + 1] = j;
  }
#endif
}

Tensor Int64Vector(std::initializer_list<int64_t> values) {
  return Tensor::FromVector(std::vector<int64_t>(values));
}

}  // namespace

namespace internal {
namespace {

// What one BuildOutputs call was given, as each spec's builder reads it.
struct Batch {
  std::span<const FeatureView> views;
  std::span<const uint8_t> present;
  int64_t size;
  bool single;
  int64_t index_offset;
  const Prefilled* prefilled;
  size_t num_specs;

  // Index of (example b, spec s) in views, present and prefilled->slots.
  size_t Slot(int64_t b, size_t s) const {
    return static_cast<size_t>(b) * num_specs + s;
  }
};

// The builders below run once per spec per call, and ParseSingle makes a
// call per record. BuildFixedLen stays inlined: where the fast path wrote
// the rows in place it does next to nothing, and a call would be most of
// its cost. The other two allocate their outputs, beside which a call is
// nothing, and out of line they leave BuildOutputs a smaller body: with all
// three inlined, bench_example's FashionMnistSingle ran 4% slower than the
// one function they were cut from (37 more instructions per BuildOutputs
// call, by callgrind).

// Fills the dense [batch] + shape output `t` of FixedLen spec s (allocated
// here unless the fast path allocated it and wrote the rows it marked
// kSlotInPlace).
[[gnu::always_inline]] inline Status BuildFixedLen(const Batch& in,
                                                   const Spec& spec, size_t s,
                                                   Tensor* t) {
  if (in.prefilled == nullptr) {
    *t = Tensor::Uninitialized(
        spec.dtype, in.single ? spec.shape : spec.shape.Prepend(in.size));
  }
  INFLOW_ASSIGN_OR_RETURN(void* const data, t->mutable_raw_data());
  char* const base = static_cast<char*>(data);
  const size_t row_bytes =
      static_cast<size_t>(spec.stride) * (spec.dtype == DType::kString
                                              ? sizeof(std::string)
                                              : DTypeSize(spec.dtype));
  for (int64_t b = 0; b < in.size; ++b) {
    if (in.prefilled != nullptr &&
        in.prefilled->slots[in.Slot(b, s)] == kSlotInPlace) {
      continue;  // kind and count checked while parsing
    }
    const FeatureView& v = in.views[in.Slot(b, s)];
    char* dst = base + static_cast<size_t>(b) * row_bytes;
    if (v.kind() == FeatureKind::kNone && !in.present.empty() &&
        in.present[in.Slot(b, s)]) {
      // Present with no kind: zero values of any type.
      if (spec.stride == 0) continue;
      return InvalidArgumentError(
          Where(spec, b + in.index_offset) +
          "Unexpected number of elements: 0 values but output shape " +
          spec.shape.DebugString());
    }
    if (v.kind() == FeatureKind::kNone) {
      if (!spec.default_value) return Missing(spec, b + in.index_offset);
      CopyElements(*spec.default_value, 0, spec.stride, dst);
      continue;
    }
    if (v.kind() != spec.kind) {
      return KindMismatch(spec, b + in.index_offset, v.kind());
    }
    if (v.size() != spec.stride) {
      return InvalidArgumentError(
          Where(spec, b + in.index_offset) + "Number of " +
          std::string(DTypeName(spec.dtype)) +
          " values != expected.  Values size: " + std::to_string(v.size()) +
          " but output shape: " + spec.shape.DebugString());
    }
    CopyValues(v, spec.dtype, dst);
  }
  return OkStatus();
}

// Builds the dense [batch, rows] + shape output of FixedLenSequence spec s:
// every example padded (with the default, or 0 / "") to the longest one's
// rows.
[[gnu::noinline]] Status BuildFixedLenSequence(const Batch& in,
                                               const Spec& spec, size_t s,
                                               Tensor* out) {
  // First pass: check every example and find the row count.
  int64_t max_rows = 0;
  for (int64_t b = 0; b < in.size; ++b) {
    const FeatureView& v = in.views[in.Slot(b, s)];
    if (v.kind() == FeatureKind::kNone) continue;
    if (v.kind() != spec.kind) {
      return KindMismatch(spec, b + in.index_offset, v.kind());
    }
    if (spec.stride == 0 ? v.size() != 0 : v.size() % spec.stride != 0) {
      return InvalidArgumentError(
          Where(spec, b + in.index_offset) +
          "Error while parsing feature with key " + spec.key +
          ": number of elements should be divisible by " +
          std::to_string(spec.stride) + ", found " + std::to_string(v.size()) +
          " instead");
    }
    if (spec.stride > 0) {
      max_rows = std::max(max_rows, v.size() / spec.stride);
    }
  }
  TensorShape shape = spec.shape.Prepend(max_rows);
  if (!in.single) shape = shape.Prepend(in.size);
  Tensor t = Tensor::Uninitialized(spec.dtype, shape);
  INFLOW_ASSIGN_OR_RETURN(void* const data, t.mutable_raw_data());
  char* const base = static_cast<char*>(data);
  const int64_t row = max_rows * spec.stride;
  for (int64_t b = 0; b < in.size; ++b) {
    const FeatureView& v = in.views[in.Slot(b, s)];
    char* dst = ElementPtr(base, spec.dtype, b * row);
    int64_t n = 0;
    if (v.kind() != FeatureKind::kNone) {
      CopyValues(v, spec.dtype, dst);
      n = v.size();
    }
    FillPadding(spec.dtype, spec.default_value, row - n,
                ElementPtr(base, spec.dtype, b * row + n));
  }
  *out = std::move(t);
  return OkStatus();
}

// Builds the sparse output of VarLen spec s, taking values the fast path
// already decoded from its arenas.
[[gnu::noinline]] Status BuildVarLen(const Batch& in, const Spec& spec,
                                     size_t s, SparseTensor* out) {
  // First pass: check every example and size the outputs.
  int64_t total = 0;
  int64_t max_n = 0;
  for (int64_t b = 0; b < in.size; ++b) {
    const FeatureView& v = in.views[in.Slot(b, s)];
    if (v.kind() == FeatureKind::kNone) continue;
    if (v.kind() != spec.kind) {
      return KindMismatch(spec, b + in.index_offset, v.kind());
    }
    total += v.size();
    max_n = std::max(max_n, v.size());
  }
  SparseTensor sp;
  sp.indices = Tensor::Uninitialized(DType::kInt64,
                                     TensorShape({total, in.single ? 1 : 2}));
  sp.values = Tensor::Uninitialized(spec.dtype, TensorShape({total}));
  sp.dense_shape =
      in.single ? Int64Vector({max_n}) : Int64Vector({in.size, max_n});
  INFLOW_ASSIGN_OR_RETURN(const std::span<int64_t> indices,
                          sp.indices.mutable_flat<int64_t>());
  int64_t* idx = indices.data();
  INFLOW_ASSIGN_OR_RETURN(void* const data, sp.values.mutable_raw_data());
  char* const values = static_cast<char*>(data);
  const size_t value_bytes = spec.dtype == DType::kString
                                 ? sizeof(std::string)
                                 : DTypeSize(spec.dtype);
  int64_t at = 0;
  for (int64_t b = 0; b < in.size; ++b) {
    const FeatureView& v = in.views[in.Slot(b, s)];
    if (v.kind() == FeatureKind::kNone || v.size() == 0) continue;
    const int64_t n = v.size();
    const int64_t slot = in.prefilled != nullptr
                             ? in.prefilled->slots[in.Slot(b, s)]
                             : kSlotFromView;
    if (slot >= 0 && spec.dtype == DType::kString) {
      std::string* dst = reinterpret_cast<std::string*>(values) + at;
      const std::string_view* src = in.prefilled->bytes_arena + slot;
      for (int64_t j = 0; j < n; ++j) dst[j] = std::string(src[j]);
    } else if (slot >= 0) {
      std::memcpy(values + static_cast<size_t>(at) * value_bytes,
                  in.prefilled->int64_arena + slot,
                  static_cast<size_t>(n) * sizeof(int64_t));
    } else {
      CopyValues(v, spec.dtype, values + static_cast<size_t>(at) * value_bytes);
    }
    if (in.single) {
      for (int64_t j = 0; j < n; ++j) idx[j] = j;
      idx += n;
    } else {
      FillIndexPairs(b, n, idx);
      idx += 2 * n;
    }
    at += n;
  }
  *out = std::move(sp);
  return OkStatus();
}

}  // namespace

Result<ParsedFeatures> BuildOutputs(const ParsedSchema& schema,
                                    std::span<const FeatureView> views,
                                    std::span<const uint8_t> present,
                                    int64_t batch, bool single,
                                    int64_t index_offset,
                                    const Prefilled* prefilled) {
  ParsedFeatures out;
  if (prefilled != nullptr) {
    out.dense = std::move(*prefilled->dense);
  } else {
    out.dense.resize(schema.dense_keys.size());
  }
  out.sparse.resize(schema.sparse_keys.size());
  const Batch in{.views = views,
                 .present = present,
                 .size = batch,
                 .single = single,
                 .index_offset = index_offset,
                 .prefilled = prefilled,
                 .num_specs = schema.specs.size()};
  for (size_t s = 0; s < in.num_specs; ++s) {
    const Spec& spec = schema.specs[s];
    const size_t o = static_cast<size_t>(spec.out_index);
    switch (spec.type) {
      case Type::kFixedLen:
        INFLOW_RETURN_IF_ERROR(BuildFixedLen(in, spec, s, &out.dense[o]));
        break;
      case Type::kFixedLenSequence:
        INFLOW_RETURN_IF_ERROR(
            BuildFixedLenSequence(in, spec, s, &out.dense[o]));
        break;
      case Type::kVarLen:
        INFLOW_RETURN_IF_ERROR(BuildVarLen(in, spec, s, &out.sparse[o]));
        break;
    }
  }
  return out;
}

}  // namespace internal

}  // namespace inflow
