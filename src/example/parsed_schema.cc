// Copyright 2026 The inflow Authors.

#include "example/parsed_schema.h"

#include <bit>
#include <cstring>
#include <string>
#include <type_traits>

namespace inflow::internal {

namespace {

inline uint64_t HashWords(const KeyWords& w, size_t n) {
  uint64_t h = (w.first ^ (n * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 32) ^ w.last) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

Status CheckDType(const std::string& key, DType dtype) {
  if (FeatureKindFor(dtype) == FeatureKind::kNone) {
    return InvalidArgumentError(
        "Feature " + key + ": dtype " + std::string(DTypeName(dtype)) +
        " is not supported; use float32, int64 or string");
  }
  return OkStatus();
}

Result<TensorShape> KnownShape(const std::string& key,
                               const TensorShape& shape) {
  if (!TensorShape::FromDims(shape.dims()).ok()) {
    return InvalidArgumentError("All dimensions of shape for feature " + key +
                                " need to be known but received " +
                                shape.DebugString());
  }
  return shape;
}

Status CheckDefault(const std::string& key, const Tensor& value, DType dtype,
                    int64_t elements) {
  if (value.dtype() != dtype) {
    return InvalidArgumentError(
        "Feature " + key + ": default_value has dtype " +
        std::string(DTypeName(value.dtype())) + " but the feature is " +
        std::string(DTypeName(dtype)));
  }
  if (value.num_elements() != elements) {
    return InvalidArgumentError("Feature " + key + ": default_value has " +
                                std::to_string(value.num_elements()) +
                                " values, but the shape needs " +
                                std::to_string(elements));
  }
  return OkStatus();
}

}  // namespace

Result<ParsedSchema> ParsedSchema::Build(FeatureSpecs specs, Context context) {
  ParsedSchema schema;
  size_t capacity = 8;
  while (capacity < 2 * specs.size()) capacity *= 2;
  schema.table_.assign(capacity, Slot());
  schema.mask_ = capacity - 1;

  for (auto& [key, config] : specs) {
    if (schema.Lookup(key) >= 0) {
      return InvalidArgumentError("Feature " + key + " is configured twice");
    }
    Spec spec;
    spec.key = key;
    spec.words = WordsOf(key);
    spec.allow_missing = false;
    spec.stride = 1;
    if (auto* fixed = std::get_if<FixedLenFeature>(&config)) {
      if (context == Context::kSequenceFeatureLists) {
        return InvalidArgumentError("Unsupported FixedLenFeature for key '" +
                                    key + "' in sequence features");
      }
      INFLOW_RETURN_IF_ERROR(CheckDType(key, fixed->dtype));
      INFLOW_ASSIGN_OR_RETURN(spec.shape, KnownShape(key, fixed->shape));
      spec.type = Type::kFixedLen;
      spec.dtype = fixed->dtype;
      spec.stride = spec.shape.num_elements();
      if (fixed->default_value) {
        INFLOW_RETURN_IF_ERROR(
            CheckDefault(key, *fixed->default_value, spec.dtype, spec.stride));
        // As in TensorFlow, an empty default (a shape with a 0 dim) is no
        // default: the feature stays required.
        if (spec.stride > 0) spec.default_value = fixed->default_value;
      }
    } else if (auto* var = std::get_if<VarLenFeature>(&config)) {
      INFLOW_RETURN_IF_ERROR(CheckDType(key, var->dtype));
      spec.type = Type::kVarLen;
      spec.dtype = var->dtype;
    } else {
      auto& seq = std::get<FixedLenSequenceFeature>(config);
      if (context == Context::kSequenceContext) {
        return InvalidArgumentError(
            "Unsupported FixedLenSequenceFeature for key '" + key +
            "' in context features");
      }
      if (context == Context::kExample && !seq.allow_missing) {
        return InvalidArgumentError(
            "Unsupported: FixedLenSequenceFeature requires allow_missing to "
            "be True.");
      }
      INFLOW_RETURN_IF_ERROR(CheckDType(key, seq.dtype));
      INFLOW_ASSIGN_OR_RETURN(spec.shape, KnownShape(key, seq.shape));
      spec.type = Type::kFixedLenSequence;
      spec.dtype = seq.dtype;
      spec.stride = spec.shape.num_elements();
      spec.allow_missing = seq.allow_missing;
      if (seq.default_value) {
        INFLOW_RETURN_IF_ERROR(
            CheckDefault(key, *seq.default_value, spec.dtype, 1));
        spec.default_value = seq.default_value;
      }
    }
    spec.kind = FeatureKindFor(spec.dtype);
    if (spec.type == Type::kVarLen) {
      spec.out_index = static_cast<int>(schema.sparse_keys.size());
      schema.sparse_keys.push_back(key);
    } else {
      spec.out_index = static_cast<int>(schema.dense_keys.size());
      schema.dense_keys.push_back(key);
    }
    const auto index = static_cast<int32_t>(schema.specs.size());
    schema.specs.push_back(std::move(spec));
    const KeyWords words = WordsOf(key);
    uint64_t slot = HashWords(words, key.size()) & schema.mask_;
    while (schema.table_[slot].index >= 0) slot = (slot + 1) & schema.mask_;
    schema.table_[slot] = {words.first, words.last, key.size(), index};
  }
  return schema;
}

int ParsedSchema::Lookup(std::string_view key) const {
  // Keys of up to 16 bytes (most) compare as two words and a length; only
  // longer ones need the bytes in between compared too.
  const KeyWords words = WordsOf(key);
  const size_t n = key.size();
  uint64_t slot = HashWords(words, n) & mask_;
  for (;;) {
    const Slot& s = table_[slot];
    if (s.index < 0) return -1;
    if (s.first == words.first && s.last == words.last && s.size == n &&
        (n <= 16 || specs[static_cast<size_t>(s.index)].key == key)) {
      return s.index;
    }
    slot = (slot + 1) & mask_;
  }
}

}  // namespace inflow::internal
