// Copyright 2026 The inflow Authors.

#include "inflow/example/example_parser.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "example/build_outputs.h"
#include "example/example_fast_parser.h"
#include "example/feature_entries.h"
#include "example/parsed_schema.h"

namespace inflow {

using internal::ParsedSchema;
using Spec = ParsedSchema::Spec;
using Type = ParsedSchema::Type;

const std::vector<std::string>& ParsedFeatures::dense_keys() const {
  static const std::vector<std::string> kNone;
  return schema_ ? schema_->dense_keys : kNone;
}

const std::vector<std::string>& ParsedFeatures::sparse_keys() const {
  static const std::vector<std::string> kNone;
  return schema_ ? schema_->sparse_keys : kNone;
}

const Tensor* ParsedFeatures::FindDense(std::string_view key) const {
  if (!schema_) return nullptr;
  const int s = schema_->Lookup(key);
  if (s < 0) return nullptr;
  const Spec& spec = schema_->specs[static_cast<size_t>(s)];
  if (spec.type == Type::kVarLen) return nullptr;
  return &dense[static_cast<size_t>(spec.out_index)];
}

const SparseTensor* ParsedFeatures::FindSparse(std::string_view key) const {
  if (!schema_) return nullptr;
  const int s = schema_->Lookup(key);
  if (s < 0) return nullptr;
  const Spec& spec = schema_->specs[static_cast<size_t>(s)];
  if (spec.type != Type::kVarLen) return nullptr;
  return &sparse[static_cast<size_t>(spec.out_index)];
}

Result<ExampleParser> ExampleParser::Create(FeatureSpecs specs) {
  INFLOW_ASSIGN_OR_RETURN(
      ParsedSchema schema,
      ParsedSchema::Build(std::move(specs), ParsedSchema::Context::kExample));
  return ExampleParser(std::make_shared<const ParsedSchema>(std::move(schema)));
}

const std::vector<std::string>& ExampleParser::dense_keys() const {
  return schema_->dense_keys;
}

const std::vector<std::string>& ExampleParser::sparse_keys() const {
  return schema_->sparse_keys;
}

namespace {

// Per-thread scratch, so that steady-state parsing does not allocate
// outside the output tensors.
struct Scratch {
  std::vector<FeatureEntry> entries;
  std::vector<FeatureView> views;
  std::vector<int64_t> slots;  // internal::Prefilled::slots
  std::vector<int64_t> int64_arena;
  std::vector<std::string_view> bytes_arena;
  std::vector<char*> fixed;  // internal::FastOutputs::fixed
  std::vector<std::unique_ptr<std::string>> joined;
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

}  // namespace

template <typename Str>
Result<ParsedFeatures> ExampleParser::Parse(std::span<const Str> serialized,
                                            bool single) const {
  const ParsedSchema& schema = *schema_;
  const size_t num_specs = schema.specs.size();
  Scratch& scratch = ThreadScratch();
  scratch.views.assign(serialized.size() * num_specs, FeatureView());
  scratch.slots.assign(serialized.size() * num_specs, internal::kSlotFromView);
  scratch.joined.clear();
  const auto batch = static_cast<int64_t>(serialized.size());
  // The FixedLen outputs, filled while parsing where the fast path can.
  std::vector<Tensor> dense(schema.dense_keys.size());
  scratch.fixed.assign(num_specs, nullptr);
  for (size_t s = 0; s < num_specs; ++s) {
    const ParsedSchema::Spec& spec = schema.specs[s];
    if (spec.type == ParsedSchema::Type::kFixedLen) {
      Tensor& t = dense[static_cast<size_t>(spec.out_index)];
      t = Tensor::Uninitialized(
          spec.dtype, single ? spec.shape : spec.shape.Prepend(batch));
      INFLOW_ASSIGN_OR_RETURN(void* const data, t.mutable_raw_data());
      scratch.fixed[s] = static_cast<char*>(data);
    }
  }
  internal::FastOutputs fast{scratch.fixed, &scratch.int64_arena, 0,
                             &scratch.bytes_arena, 0};
  for (size_t b = 0; b < serialized.size(); ++b) {
    if (b + 1 < serialized.size()) {
      // The next record's first and last bytes: its header and, often, a
      // short feature after a long one (records are usually cold).
      const std::string_view next(serialized[b + 1]);
      if (!next.empty()) {
        __builtin_prefetch(next.data());
        __builtin_prefetch(next.data() + next.size() - 1);
      }
    }
    FeatureView* row = scratch.views.data() + b * num_specs;
    int64_t* slots = scratch.slots.data() + b * num_specs;
    if (internal::ParseExampleFast(std::string_view(serialized[b]), schema,
                                   static_cast<int64_t>(b), row, slots,
                                   &fast)) {
      continue;
    }
    // The general path, from a clean row.
    std::fill_n(row, num_specs, FeatureView());
    std::fill_n(slots, num_specs, internal::kSlotFromView);
    scratch.entries.clear();
    bool has_features = false;
    Status s = internal::ParseExampleEntries(std::string_view(serialized[b]),
                                             &scratch.entries, &scratch.joined,
                                             &has_features);
    if (!s.ok()) {
      scratch.joined.clear();
      return s.WithContext("Name: <unknown>, Index: " + std::to_string(b));
    }
    // Later entries overwrite earlier ones: the last key wins. As in
    // TensorFlow's parsers, an entry with no kind set does not count (a key
    // given twice keeps its last value that has a kind), except for
    // var-length features in a batch, where it empties the feature.
    int next = 0;  // records usually list their keys in one order
    for (const FeatureEntry& e : scratch.entries) {
      const int i = schema.LookupFrom(e.key, next);
      next = i + 1;
      if (i < 0) continue;
      if (e.value.kind() == FeatureKind::kNone &&
          (single || schema.specs[static_cast<size_t>(i)].type !=
                         ParsedSchema::Type::kVarLen)) {
        continue;
      }
      row[i] = e.value;
    }
  }
  const internal::Prefilled prefilled{&dense, scratch.slots,
                                      scratch.int64_arena.data(),
                                      scratch.bytes_arena.data()};
  Result<ParsedFeatures> out = internal::BuildOutputs(
      schema, scratch.views, {}, batch, single, 0, &prefilled);
  scratch.joined.clear();
  if (out.ok()) out->schema_ = schema_;
  return out;
}

Result<ParsedFeatures> ExampleParser::ParseSingle(
    std::string_view serialized) const {
  return Parse(std::span<const std::string_view>(&serialized, 1), true);
}

Result<ParsedFeatures> ExampleParser::ParseBatch(
    std::span<const std::string_view> serialized) const {
  return Parse(serialized, false);
}

Result<ParsedFeatures> ExampleParser::ParseBatch(
    std::span<const std::string> serialized) const {
  return Parse(serialized, false);
}

Result<ParsedFeatures> ParseSingleExample(std::string_view serialized,
                                          FeatureSpecs specs) {
  INFLOW_ASSIGN_OR_RETURN(ExampleParser parser,
                          ExampleParser::Create(std::move(specs)));
  return parser.ParseSingle(serialized);
}

Result<ParsedFeatures> ParseExample(
    std::span<const std::string_view> serialized, FeatureSpecs specs) {
  INFLOW_ASSIGN_OR_RETURN(ExampleParser parser,
                          ExampleParser::Create(std::move(specs)));
  return parser.ParseBatch(serialized);
}

}  // namespace inflow
