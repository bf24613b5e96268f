// Copyright 2026 The inflow Authors.

#include <string_view>
#include <vector>

#include "inflow/example/feature_view.h"

#include "example/feature_entries.h"
#include "example/message_walk.h"
#include "example/wire.h"

namespace inflow {

using internal::kWireLen;
using internal::Malformed;
using internal::WireReader;

namespace {

// Appends the Features of one FeatureList message to *steps.
Status ParseFeatureList(std::string_view list, const char* base,
                        std::vector<FeatureView>* steps) {
  WireReader r(list);
  while (!r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("FeatureList", tag_pos, base);
    if (field == 1 && wt == kWireLen) {
      std::string_view feature;
      if (!r.ReadLengthDelimited(&feature)) {
        return Malformed("FeatureList", tag_pos, base);
      }
      FeatureView view;
      INFLOW_RETURN_IF_ERROR(FeatureView::Parse(feature, base, &view));
      steps->push_back(view);
    } else if (!r.SkipField(field, wt)) {
      return Malformed("FeatureList", tag_pos, base);
    }
  }
  return OkStatus();
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
  WireReader r(lists);
  while (!r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) {
      return Malformed("FeatureLists", tag_pos, base);
    }
    if (!(field == 1 && wt == kWireLen)) {
      if (!r.SkipField(field, wt)) {
        return Malformed("FeatureLists", tag_pos, base);
      }
      continue;
    }
    std::string_view entry;
    if (!r.ReadLengthDelimited(&entry)) {
      return Malformed("FeatureLists", tag_pos, base);
    }
    ListRange range{std::string_view(), steps->size(), 0};
    WireReader e(entry);
    while (!e.done()) {
      const char* entry_tag = e.pos();
      uint32_t f;
      int t;
      if (!e.ReadTag(&f, &t)) {
        return Malformed("FeatureLists map entry", entry_tag, base);
      }
      if ((f == 1 || f == 2) && t == kWireLen) {
        std::string_view payload;
        if (!e.ReadLengthDelimited(&payload)) {
          return Malformed("FeatureLists map entry", entry_tag, base);
        }
        if (f == 1) {
          range.key = payload;
        } else {
          INFLOW_RETURN_IF_ERROR(ParseFeatureList(payload, base, steps));
        }
      } else if (!e.SkipField(f, t)) {
        return Malformed("FeatureLists map entry", entry_tag, base);
      }
    }
    range.end = steps->size();
    ranges->push_back(range);
  }
  return OkStatus();
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
  WireReader r(serialized);
  Status s;
  while (s.ok() && !r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) {
      s = Malformed("SequenceExample", tag_pos, base);
      break;
    }
    std::string_view payload;
    if ((field == 1 || field == 2) && wt == kWireLen) {
      if (!r.ReadLengthDelimited(&payload)) {
        s = Malformed("SequenceExample", tag_pos, base);
      } else if (field == 1) {
        has_context_ = true;
        s = internal::ParseFeatures(payload, base, &context_, &joined_);
      } else {
        has_feature_lists_ = true;
        s = ParseFeatureLists(payload, base, &steps_, &ranges);
      }
    } else if (!r.SkipField(field, wt)) {
      s = Malformed("SequenceExample", tag_pos, base);
    }
  }
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
