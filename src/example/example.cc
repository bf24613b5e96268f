// Copyright 2026 The inflow Authors.

#include "inflow/example/example.h"

#include <cstring>
#include <utility>

#include "proto/wire.h"

namespace inflow {

using internal::kWireLen;
using internal::PutTag;
using internal::PutVarint;
using internal::VarintSize;

Feature Feature::Bytes(std::vector<std::string> values) {
  Feature f;
  f.kind_ = FeatureKind::kBytes;
  f.bytes_ = std::move(values);
  return f;
}

Feature Feature::Floats(std::vector<float> values) {
  Feature f;
  f.kind_ = FeatureKind::kFloat;
  f.floats_ = std::move(values);
  return f;
}

Feature Feature::Int64s(std::vector<int64_t> values) {
  Feature f;
  f.kind_ = FeatureKind::kInt64;
  f.int64s_ = std::move(values);
  return f;
}

Feature Feature::FromView(const FeatureView& view) {
  const auto n = static_cast<size_t>(view.size());
  switch (view.kind()) {
    case FeatureKind::kBytes: {
      std::vector<std::string> v(n);
      view.CopyBytes(v.data());
      return Bytes(std::move(v));
    }
    case FeatureKind::kFloat: {
      std::vector<float> v(n);
      view.CopyFloats(v.data());
      return Floats(std::move(v));
    }
    case FeatureKind::kInt64: {
      std::vector<int64_t> v(n);
      view.CopyInt64s(v.data());
      return Int64s(std::move(v));
    }
    case FeatureKind::kNone:
      break;
  }
  return Feature();
}

size_t Feature::size() const {
  switch (kind_) {
    case FeatureKind::kBytes:
      return bytes_.size();
    case FeatureKind::kFloat:
      return floats_.size();
    case FeatureKind::kInt64:
      return int64s_.size();
    case FeatureKind::kNone:
      break;
  }
  return 0;
}

bool operator==(const Feature& a, const Feature& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case FeatureKind::kBytes:
      return a.bytes_ == b.bytes_;
    case FeatureKind::kFloat:
      return a.floats_.size() == b.floats_.size() &&
             (a.floats_.empty() ||
              std::memcmp(a.floats_.data(), b.floats_.data(),
                          a.floats_.size() * sizeof(float)) == 0);
    case FeatureKind::kInt64:
      return a.int64s_ == b.int64s_;
    case FeatureKind::kNone:
      break;
  }
  return true;
}

namespace {

// Bytes of the packed-varint payload of an Int64List.
size_t PackedInt64Size(const std::vector<int64_t>& values) {
  size_t n = 0;
  for (int64_t v : values) n += VarintSize(static_cast<uint64_t>(v));
  return n;
}

// Bytes of the list message inside a Feature.
size_t ListSize(const Feature& f) {
  switch (f.kind()) {
    case FeatureKind::kBytes: {
      size_t n = 0;
      for (const std::string& v : f.bytes()) {
        n += 1 + VarintSize(v.size()) + v.size();
      }
      return n;
    }
    case FeatureKind::kFloat: {
      if (f.floats().empty()) return 0;
      const size_t payload = 4 * f.floats().size();
      return 1 + VarintSize(payload) + payload;
    }
    case FeatureKind::kInt64: {
      if (f.int64s().empty()) return 0;
      const size_t payload = PackedInt64Size(f.int64s());
      return 1 + VarintSize(payload) + payload;
    }
    case FeatureKind::kNone:
      break;
  }
  return 0;
}

size_t FeatureSize(const Feature& f) {
  if (f.kind() == FeatureKind::kNone) return 0;
  const size_t list = ListSize(f);
  return 1 + VarintSize(list) + list;
}

size_t EntrySize(std::string_view key, size_t value_size) {
  return 1 + VarintSize(key.size()) + key.size() + 1 + VarintSize(value_size) +
         value_size;
}

size_t FeaturesSize(const FeatureMap& features) {
  size_t n = 0;
  for (const auto& [key, f] : features) {
    const size_t entry = EntrySize(key, FeatureSize(f));
    n += 1 + VarintSize(entry) + entry;
  }
  return n;
}

void AppendFeatures(const FeatureMap& features, std::string* out) {
  for (const auto& [key, f] : features) {
    const size_t fsize = FeatureSize(f);
    PutTag(out, 1, kWireLen);
    PutVarint(out, EntrySize(key, fsize));
    PutTag(out, 1, kWireLen);
    PutVarint(out, key.size());
    out->append(key);
    PutTag(out, 2, kWireLen);
    PutVarint(out, fsize);
    f.AppendTo(out);
  }
}

size_t FeatureListSize(const std::vector<Feature>& steps) {
  size_t n = 0;
  for (const Feature& f : steps) {
    const size_t fs = FeatureSize(f);
    n += 1 + VarintSize(fs) + fs;
  }
  return n;
}

size_t FeatureListsSize(const FeatureListMap& lists) {
  size_t n = 0;
  for (const auto& [key, steps] : lists) {
    const size_t entry = EntrySize(key, FeatureListSize(steps));
    n += 1 + VarintSize(entry) + entry;
  }
  return n;
}

}  // namespace

void Feature::AppendTo(std::string* out) const {
  if (kind_ == FeatureKind::kNone) return;
  PutTag(out, static_cast<int>(kind_), kWireLen);
  PutVarint(out, ListSize(*this));
  switch (kind_) {
    case FeatureKind::kBytes:
      for (const std::string& v : bytes_) {
        PutTag(out, 1, kWireLen);
        PutVarint(out, v.size());
        out->append(v);
      }
      break;
    case FeatureKind::kFloat:
      if (!floats_.empty()) {
        PutTag(out, 1, kWireLen);
        PutVarint(out, 4 * floats_.size());
        // Little-endian hosts only (wire.cc asserts it).
        out->append(reinterpret_cast<const char*>(floats_.data()),
                    4 * floats_.size());
      }
      break;
    case FeatureKind::kInt64:
      if (!int64s_.empty()) {
        PutTag(out, 1, kWireLen);
        PutVarint(out, PackedInt64Size(int64s_));
        for (int64_t v : int64s_) PutVarint(out, static_cast<uint64_t>(v));
      }
      break;
    case FeatureKind::kNone:
      break;
  }
}

Example& Example::Set(std::string key, Feature feature) {
  features_.insert_or_assign(std::move(key), std::move(feature));
  return *this;
}

std::string Example::Serialize() const {
  std::string out;
  const size_t features = FeaturesSize(features_);
  out.reserve(1 + VarintSize(features) + features);
  PutTag(&out, 1, kWireLen);
  PutVarint(&out, features);
  AppendFeatures(features_, &out);
  return out;
}

Result<Example> Example::Parse(std::string_view serialized) {
  ExampleView view;
  INFLOW_RETURN_IF_ERROR(view.Parse(serialized));
  Example example;
  // Later entries replace earlier ones: the last wins.
  for (const FeatureEntry& e : view.entries()) {
    example.features_.insert_or_assign(std::string(e.key),
                                       Feature::FromView(e.value));
  }
  return example;
}

SequenceExample& SequenceExample::SetContext(std::string key, Feature feature) {
  context_.insert_or_assign(std::move(key), std::move(feature));
  return *this;
}

SequenceExample& SequenceExample::SetFeatureList(std::string key,
                                                 std::vector<Feature> steps) {
  feature_lists_.insert_or_assign(std::move(key), std::move(steps));
  return *this;
}

SequenceExample& SequenceExample::AddStep(std::string_view key, Feature step) {
  auto it = feature_lists_.find(key);
  if (it == feature_lists_.end()) {
    it = feature_lists_.emplace(std::string(key), std::vector<Feature>()).first;
  }
  it->second.push_back(std::move(step));
  return *this;
}

std::string SequenceExample::Serialize() const {
  std::string out;
  const size_t context = FeaturesSize(context_);
  const size_t lists = FeatureListsSize(feature_lists_);
  out.reserve(2 + VarintSize(context) + context + VarintSize(lists) + lists);
  PutTag(&out, 1, kWireLen);
  PutVarint(&out, context);
  AppendFeatures(context_, &out);
  PutTag(&out, 2, kWireLen);
  PutVarint(&out, lists);
  for (const auto& [key, steps] : feature_lists_) {
    const size_t list = FeatureListSize(steps);
    PutTag(&out, 1, kWireLen);
    PutVarint(&out, EntrySize(key, list));
    PutTag(&out, 1, kWireLen);
    PutVarint(&out, key.size());
    out.append(key);
    PutTag(&out, 2, kWireLen);
    PutVarint(&out, list);
    for (const Feature& f : steps) {
      PutTag(&out, 1, kWireLen);
      PutVarint(&out, FeatureSize(f));
      f.AppendTo(&out);
    }
  }
  return out;
}

Result<SequenceExample> SequenceExample::Parse(std::string_view serialized) {
  SequenceExampleView view;
  INFLOW_RETURN_IF_ERROR(view.Parse(serialized));
  SequenceExample out;
  for (const FeatureEntry& e : view.context()) {
    out.context_.insert_or_assign(std::string(e.key),
                                  Feature::FromView(e.value));
  }
  for (const FeatureListEntry& e : view.feature_lists()) {
    std::vector<Feature> steps;
    steps.reserve(e.features.size());
    for (const FeatureView& f : e.features) {
      steps.push_back(Feature::FromView(f));
    }
    out.feature_lists_.insert_or_assign(std::string(e.key), std::move(steps));
  }
  return out;
}

}  // namespace inflow
