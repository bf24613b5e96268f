// Copyright 2026 The inflow Authors.
//
// tf.train.Example and tf.train.SequenceExample as plain values, with a
// builder-style API, an encoder that writes what TensorFlow writes (packed
// numeric lists, fields in field-number order, map entries sorted by key),
// and a decoder that copies a serialized record into these values.
//
//   std::string record = Example()
//       .Set("image", Feature::Bytes({raw}))
//       .Set("label", Feature::Int64s({7}))
//       .Serialize();
//
// Values; thread-compatible.

#ifndef INFLOW_EXAMPLE_EXAMPLE_H_
#define INFLOW_EXAMPLE_EXAMPLE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/example/feature_view.h"

namespace inflow {

// One tf.train.Feature: a bytes, float or int64 list, or no kind at all.
class Feature {
 public:
  // A Feature with no kind set (legal on the wire; parsers treat it as
  // missing).
  Feature() = default;

  static Feature Bytes(std::vector<std::string> values);
  static Feature Floats(std::vector<float> values);
  static Feature Int64s(std::vector<int64_t> values);
  // Copies the values of a parsed view.
  static Feature FromView(const FeatureView& view);

  FeatureKind kind() const { return kind_; }
  const std::vector<std::string>& bytes() const { return bytes_; }
  const std::vector<float>& floats() const { return floats_; }
  const std::vector<int64_t>& int64s() const { return int64s_; }
  // Number of values of the set kind.
  size_t size() const;

  // Appends the serialized Feature message to *out.
  void AppendTo(std::string* out) const;

  // Floats compare bitwise (NaN payloads included).
  friend bool operator==(const Feature& a, const Feature& b);

 private:
  FeatureKind kind_ = FeatureKind::kNone;
  std::vector<std::string> bytes_;
  std::vector<float> floats_;
  std::vector<int64_t> int64s_;
};

using FeatureMap = std::map<std::string, Feature, std::less<>>;

class Example {
 public:
  Example() = default;

  // Adds or replaces a feature; returns *this for chaining.
  Example& Set(std::string key, Feature feature);

  const FeatureMap& features() const { return features_; }
  FeatureMap& mutable_features() { return features_; }

  // The serialized tf.train.Example. The `features` field is always
  // written (also when empty), as TensorFlow's builders do.
  std::string Serialize() const;

  // Copies a serialized Example. INVALID_ARGUMENT when malformed. Duplicate
  // keys: the last wins.
  static Result<Example> Parse(std::string_view serialized);

  friend bool operator==(const Example&, const Example&) = default;

 private:
  FeatureMap features_;
};

using FeatureListMap = std::map<std::string, std::vector<Feature>, std::less<>>;

class SequenceExample {
 public:
  SequenceExample() = default;

  SequenceExample& SetContext(std::string key, Feature feature);
  SequenceExample& SetFeatureList(std::string key, std::vector<Feature> steps);
  // Appends one step to the list `key` (creating it).
  SequenceExample& AddStep(std::string_view key, Feature step);

  const FeatureMap& context() const { return context_; }
  const FeatureListMap& feature_lists() const { return feature_lists_; }
  FeatureMap& mutable_context() { return context_; }
  FeatureListMap& mutable_feature_lists() { return feature_lists_; }

  // Writes `context` and `feature_lists` always (also when empty).
  std::string Serialize() const;
  static Result<SequenceExample> Parse(std::string_view serialized);

  friend bool operator==(const SequenceExample&,
                         const SequenceExample&) = default;

 private:
  FeatureMap context_;
  FeatureListMap feature_lists_;
};

}  // namespace inflow

#endif  // INFLOW_EXAMPLE_EXAMPLE_H_
