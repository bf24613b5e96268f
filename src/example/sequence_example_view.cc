// Copyright 2026 The inflow Authors.

#include <string_view>
#include <vector>

#include "inflow/example/feature_view.h"

#include "example/feature_entries.h"
#include "example/message_walk.h"

namespace inflow {

using internal::LenField;
using internal::WalkLenFields;

namespace {

// Appends the Features of one FeatureList message to *steps.
Status ParseFeatureList(std::string_view list, const char* base,
                        std::vector<FeatureView>* steps) {
  return WalkLenFields(list, base, "FeatureList", 1, [&](const LenField& f) {
    FeatureView view;
    INFLOW_RETURN_IF_ERROR(FeatureView::Parse(f.payload, base, &view));
    steps->push_back(view);
    return OkStatus();
  });
}

struct ListRange {
  std::string_view key;
  size_t begin;
  size_t end;
};

// Parses a FeatureLists message. A map entry's value given twice merges:
// the steps concatenate.
Status ParseFeatureLists(std::string_view lists, const char* base,
                         std::vector<FeatureView>* steps,
                         std::vector<ListRange>* ranges) {
  return WalkLenFields(
      lists, base, "FeatureLists", 1, [&](const LenField& entry) {
        ListRange range{std::string_view(), steps->size(), 0};
        INFLOW_RETURN_IF_ERROR(
            WalkLenFields(entry.payload, base, "FeatureLists map entry", 2,
                          [&](const LenField& f) {
                            if (f.number == 1) {
                              range.key = f.payload;
                              return OkStatus();
                            }
                            return ParseFeatureList(f.payload, base, steps);
                          }));
        range.end = steps->size();
        ranges->push_back(range);
        return OkStatus();
      });
}

}  // namespace

Status SequenceExampleView::Parse(std::string_view serialized) {
  context_.clear();
  feature_lists_.clear();
  steps_.clear();
  joined_.clear();
  has_context_ = has_feature_lists_ = false;
  const char* base = serialized.data();
  std::vector<ListRange> ranges;
  Status s = WalkLenFields(
      serialized, base, "SequenceExample", 2, [&](const LenField& f) {
        if (f.number == 1) {
          has_context_ = true;
          return internal::ParseFeatures(f.payload, base, &context_, &joined_);
        }
        has_feature_lists_ = true;
        return ParseFeatureLists(f.payload, base, &steps_, &ranges);
      });
  if (!s.ok()) {
    context_.clear();
    steps_.clear();
    joined_.clear();
    has_context_ = has_feature_lists_ = false;
    return s;
  }
  feature_lists_.reserve(ranges.size());
  for (const ListRange& range : ranges) {
    feature_lists_.push_back(
        {range.key, std::span<const FeatureView>(steps_.data() + range.begin,
                                                 range.end - range.begin)});
  }
  return OkStatus();
}

const FeatureView* SequenceExampleView::FindContext(
    std::string_view key) const {
  for (size_t i = context_.size(); i > 0; --i) {
    if (context_[i - 1].key == key) return &context_[i - 1].value;
  }
  return nullptr;
}

const FeatureListEntry* SequenceExampleView::FindFeatureList(
    std::string_view key) const {
  for (size_t i = feature_lists_.size(); i > 0; --i) {
    if (feature_lists_[i - 1].key == key) return &feature_lists_[i - 1];
  }
  return nullptr;
}

}  // namespace inflow
