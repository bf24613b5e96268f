// Copyright 2026 The inflow Authors.
//
// parse_single_sequence_example: context features as in Examples, feature
// lists step by step.

#include <algorithm>

#include "inflow/example/example_parser.h"

#include "example/build_outputs.h"
#include "example/parsed_schema.h"

namespace inflow {

using internal::ParsedSchema;

namespace {

using Spec = ParsedSchema::Spec;
using Type = ParsedSchema::Type;

std::string Where(const Spec& spec, int64_t step) {
  return "Name: <unknown>, Key: " + spec.key +
         ", Index: " + std::to_string(step) + ".  ";
}

size_t ElementSize(DType dtype) {
  return dtype == DType::kString ? sizeof(std::string) : DTypeSize(dtype);
}

// A feature list for a FixedLenSequenceFeature: [T] + shape.
Result<Tensor> DenseList(const Spec& spec, const FeatureListEntry* list) {
  if (list == nullptr) {
    if (!spec.allow_missing) {
      return InvalidArgumentError("Name: <unknown>, Feature list '" + spec.key +
                                  "' is required but could not be found.");
    }
    return Tensor(spec.dtype, spec.shape.Prepend(0));
  }
  const auto steps = static_cast<int64_t>(list->features.size());
  Tensor t = Tensor::Uninitialized(spec.dtype, spec.shape.Prepend(steps));
  INFLOW_ASSIGN_OR_RETURN(void* const data, t.mutable_raw_data());
  char* dst = static_cast<char*>(data);
  const size_t row_bytes =
      static_cast<size_t>(spec.stride) * ElementSize(spec.dtype);
  for (int64_t i = 0; i < steps; ++i) {
    const FeatureView& v = list->features[static_cast<size_t>(i)];
    if (v.kind() != FeatureKind::kNone && v.kind() != spec.kind) {
      return InvalidArgumentError(
          Where(spec, i) + "Data types don't match. Data type: " +
          std::string(FeatureKindName(v.kind())) +
          " but expected type: " + std::string(DTypeName(spec.dtype)));
    }
    if (v.size() != spec.stride) {
      return InvalidArgumentError(
          Where(spec, i) + "Number of values != expected.  values size: " +
          std::to_string(v.size()) +
          " but output shape: " + spec.shape.DebugString());
    }
    if (v.kind() != FeatureKind::kNone)
      internal::CopyValues(v, spec.dtype, dst);
    dst += row_bytes;
  }
  return t;
}

// A feature list for a VarLenFeature: indices (t, j), dense_shape
// [T, max j].
Result<SparseTensor> SparseList(const Spec& spec,
                                const FeatureListEntry* list) {
  const size_t steps = list ? list->features.size() : 0;
  int64_t total = 0;
  int64_t max_n = 0;
  for (size_t i = 0; i < steps; ++i) {
    const FeatureView& v = list->features[i];
    if (v.kind() == FeatureKind::kNone) continue;
    if (v.kind() != spec.kind) {
      return InvalidArgumentError(
          Where(spec, static_cast<int64_t>(i)) +
          "Data types don't match. Data type: " +
          std::string(FeatureKindName(v.kind())) +
          " but expected type: " + std::string(DTypeName(spec.dtype)));
    }
    total += v.size();
    max_n = std::max(max_n, v.size());
  }
  SparseTensor sp;
  sp.indices = Tensor::Uninitialized(DType::kInt64, TensorShape({total, 2}));
  sp.values = Tensor::Uninitialized(spec.dtype, TensorShape({total}));
  sp.dense_shape = Tensor::FromVector(
      std::vector<int64_t>{static_cast<int64_t>(steps), max_n});
  INFLOW_ASSIGN_OR_RETURN(const std::span<int64_t> indices,
                          sp.indices.mutable_flat<int64_t>());
  int64_t* idx = indices.data();
  INFLOW_ASSIGN_OR_RETURN(void* const data, sp.values.mutable_raw_data());
  char* dst = static_cast<char*>(data);
  for (size_t i = 0; i < steps; ++i) {
    const FeatureView& v = list->features[i];
    if (v.kind() == FeatureKind::kNone || v.size() == 0) continue;
    internal::CopyValues(v, spec.dtype, dst);
    dst += static_cast<size_t>(v.size()) * ElementSize(spec.dtype);
    for (int64_t j = 0; j < v.size(); ++j) {
      *idx++ = static_cast<int64_t>(i);
      *idx++ = j;
    }
  }
  return sp;
}

}  // namespace

Result<SequenceExampleParser> SequenceExampleParser::Create(
    FeatureSpecs context, FeatureSpecs sequence) {
  INFLOW_ASSIGN_OR_RETURN(
      ParsedSchema c,
      ParsedSchema::Build(std::move(context),
                          ParsedSchema::Context::kSequenceContext));
  INFLOW_ASSIGN_OR_RETURN(
      ParsedSchema s,
      ParsedSchema::Build(std::move(sequence),
                          ParsedSchema::Context::kSequenceFeatureLists));
  return SequenceExampleParser(
      std::make_shared<const ParsedSchema>(std::move(c)),
      std::make_shared<const ParsedSchema>(std::move(s)));
}

Result<ParsedSequenceExample> SequenceExampleParser::ParseSingle(
    std::string_view serialized) const {
  SequenceExampleView view;
  INFLOW_RETURN_IF_ERROR(
      view.Parse(serialized).WithContext("Name: <unknown>, Index: 0"));

  // Context: the last entry of a key wins, also one with no kind, which
  // TensorFlow's sequence parser reads as zero values (not as missing).
  std::vector<FeatureView> found(context_->specs.size());
  std::vector<uint8_t> present(context_->specs.size());
  for (const FeatureEntry& e : view.context()) {
    const int i = context_->Lookup(e.key);
    if (i < 0) continue;
    found[static_cast<size_t>(i)] = e.value;
    present[static_cast<size_t>(i)] = 1;
  }
  ParsedSequenceExample out;
  INFLOW_ASSIGN_OR_RETURN(
      out.context,
      internal::BuildOutputs(*context_, found, present, 1, true, 0));
  out.context.schema_ = context_;

  std::vector<const FeatureListEntry*> lists(sequence_->specs.size());
  for (const FeatureListEntry& e : view.feature_lists()) {
    const int i = sequence_->Lookup(e.key);
    if (i >= 0) lists[static_cast<size_t>(i)] = &e;
  }
  out.sequence.dense.resize(sequence_->dense_keys.size());
  out.sequence.sparse.resize(sequence_->sparse_keys.size());
  for (size_t i = 0; i < sequence_->specs.size(); ++i) {
    const Spec& spec = sequence_->specs[i];
    const auto at = static_cast<size_t>(spec.out_index);
    if (spec.type == Type::kVarLen) {
      INFLOW_ASSIGN_OR_RETURN(out.sequence.sparse[at],
                              SparseList(spec, lists[i]));
    } else {
      INFLOW_ASSIGN_OR_RETURN(out.sequence.dense[at],
                              DenseList(spec, lists[i]));
    }
  }
  out.sequence.schema_ = sequence_;
  return out;
}

Result<ParsedSequenceExample> ParseSingleSequenceExample(
    std::string_view serialized, FeatureSpecs context, FeatureSpecs sequence) {
  INFLOW_ASSIGN_OR_RETURN(
      SequenceExampleParser parser,
      SequenceExampleParser::Create(std::move(context), std::move(sequence)));
  return parser.ParseSingle(serialized);
}

}  // namespace inflow
