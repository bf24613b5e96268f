// Copyright 2026 The inflow Authors.
//
// Parsing serialized Examples into tensors with TensorFlow's semantics:
// tf.io.parse_single_example, tf.io.parse_example and
// tf.io.parse_single_sequence_example (docs/formats.md, "Example").
//
//   INFLOW_ASSIGN_OR_RETURN(ExampleParser parser, ExampleParser::Create({
//       {"image", FixedLenFeature{{}, DType::kString}},
//       {"label", FixedLenFeature{{1}, DType::kInt64}},
//       {"tags", VarLenFeature{DType::kString}}}));
//   INFLOW_ASSIGN_OR_RETURN(ParsedFeatures f, parser.ParseBatch(records));
//   const Tensor& labels = *f.FindDense("label");  // int64 [B, 1]
//
// Errors are INVALID_ARGUMENT naming the feature and the example's index:
// malformed bytes, a required feature that is missing, a list of another
// kind than the dtype (also when empty), a wrong number of values. A bad
// configuration fails in Create, also with INVALID_ARGUMENT.
//
// Where TensorFlow's parsers depart from plain protobuf semantics, these
// do as TensorFlow does (docs/formats.md lists the cases): a Feature with
// no kind is missing and does not hide an earlier entry of its key, except
// for var-length features in a batch and in SequenceExample context, and a
// default with no elements leaves the feature required.

#ifndef INFLOW_EXAMPLE_EXAMPLE_PARSER_H_
#define INFLOW_EXAMPLE_EXAMPLE_PARSER_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"

namespace inflow {

// A feature with a fixed number of values, prod(shape), laid out row-major.
// `default_value`, when given, must have that many elements of `dtype` and
// is used when the feature is missing; otherwise a missing feature is an
// error.
struct FixedLenFeature {
  FixedLenFeature(TensorShape shape, DType dtype,
                  std::optional<Tensor> default_value = std::nullopt)
      : shape(std::move(shape)),
        dtype(dtype),
        default_value(std::move(default_value)) {}

  TensorShape shape;  // every dim >= 0 (-1, "unknown", is rejected)
  DType dtype;
  std::optional<Tensor> default_value;
};

// Any number of values, returned as a SparseTensor.
struct VarLenFeature {
  explicit VarLenFeature(DType dtype) : dtype(dtype) {}

  DType dtype;
};

// A variable number of elements of `shape`, stacked along a new leading
// dimension. In Examples, `allow_missing` must be true; `default_value` (one
// element) pads short rows of a batch (0 or "" when absent). In
// SequenceExample feature lists, each step holds one element.
struct FixedLenSequenceFeature {
  FixedLenSequenceFeature(TensorShape shape, DType dtype,
                          bool allow_missing = false,
                          std::optional<Tensor> default_value = std::nullopt)
      : shape(std::move(shape)),
        dtype(dtype),
        allow_missing(allow_missing),
        default_value(std::move(default_value)) {}

  TensorShape shape;  // of one element; every dim >= 0
  DType dtype;
  bool allow_missing;
  std::optional<Tensor> default_value;
};

using FeatureSpec =
    std::variant<FixedLenFeature, VarLenFeature, FixedLenSequenceFeature>;
// Feature key and its configuration; keys must be distinct.
using FeatureSpecs = std::vector<std::pair<std::string, FeatureSpec>>;

// tf.SparseTensor: indices int64 [n, rank], values [n], dense_shape int64
// [rank].
struct SparseTensor {
  Tensor indices;
  Tensor values;
  Tensor dense_shape;
};

namespace internal {
struct ParsedSchema;
}  // namespace internal

// Parsed tensors. Fixed-length and sequence features are dense, var-length
// features sparse; each list follows the order of the specs of its sort.
class ParsedFeatures {
 public:
  ParsedFeatures() = default;

  std::vector<Tensor> dense;
  std::vector<SparseTensor> sparse;

  // Keys, in the order of `dense` and `sparse`.
  const std::vector<std::string>& dense_keys() const;
  const std::vector<std::string>& sparse_keys() const;
  // The output for `key`, or nullptr when no such feature was configured.
  const Tensor* FindDense(std::string_view key) const;
  const SparseTensor* FindSparse(std::string_view key) const;

 private:
  friend class ExampleParser;
  friend class SequenceExampleParser;
  std::shared_ptr<const internal::ParsedSchema> schema_;
};

// Parses Examples for one configuration. Create() validates it once.
// Thread-safe: const methods may run concurrently.
class ExampleParser {
 public:
  static Result<ExampleParser> Create(FeatureSpecs specs);

  // One Example (parse_single_example): FixedLen -> shape,
  // FixedLenSequence -> [k] + shape, VarLen -> indices [n,1].
  Result<ParsedFeatures> ParseSingle(std::string_view serialized) const;
  // A batch (parse_example): FixedLen -> [B] + shape, FixedLenSequence ->
  // [B, max k] + shape padded with the default, VarLen -> indices [n,2],
  // dense_shape [B, max n].
  Result<ParsedFeatures> ParseBatch(
      std::span<const std::string_view> serialized) const;
  Result<ParsedFeatures> ParseBatch(
      std::span<const std::string> serialized) const;

  const std::vector<std::string>& dense_keys() const;
  const std::vector<std::string>& sparse_keys() const;

 private:
  friend class SequenceExampleParser;
  explicit ExampleParser(std::shared_ptr<const internal::ParsedSchema> schema)
      : schema_(std::move(schema)) {}
  template <typename Str>
  Result<ParsedFeatures> Parse(std::span<const Str> serialized,
                               bool single) const;

  std::shared_ptr<const internal::ParsedSchema> schema_;
};

// parse_single_example / parse_example in one call (builds the parser each
// time; keep an ExampleParser for repeated use).
Result<ParsedFeatures> ParseSingleExample(std::string_view serialized,
                                          FeatureSpecs specs);
Result<ParsedFeatures> ParseExample(
    std::span<const std::string_view> serialized, FeatureSpecs specs);

struct ParsedSequenceExample {
  ParsedFeatures context;
  ParsedFeatures sequence;
};

// parse_single_sequence_example. Context specs: FixedLenFeature and
// VarLenFeature. Sequence specs: FixedLenSequenceFeature (each step must
// hold prod(shape) values; output [T] + shape) and VarLenFeature (indices
// (t, j), dense_shape [T, max j]). Thread-safe.
class SequenceExampleParser {
 public:
  static Result<SequenceExampleParser> Create(FeatureSpecs context,
                                              FeatureSpecs sequence);
  Result<ParsedSequenceExample> ParseSingle(std::string_view serialized) const;

 private:
  SequenceExampleParser(std::shared_ptr<const internal::ParsedSchema> context,
                        std::shared_ptr<const internal::ParsedSchema> sequence)
      : context_(std::move(context)), sequence_(std::move(sequence)) {}
  std::shared_ptr<const internal::ParsedSchema> context_;
  std::shared_ptr<const internal::ParsedSchema> sequence_;
};

Result<ParsedSequenceExample> ParseSingleSequenceExample(
    std::string_view serialized, FeatureSpecs context, FeatureSpecs sequence);

}  // namespace inflow

#endif  // INFLOW_EXAMPLE_EXAMPLE_PARSER_H_
