// Copyright 2026 The inflow Authors.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/example/feature_view.h"

#include "example/encoder_layout.h"
#include "example/feature_entries.h"
#include "example/message_walk.h"
#include "proto/wire.h"

namespace inflow {
namespace internal {

namespace {

// Parses one map<string, Feature> entry. A key or value given twice: the
// last key wins and the values merge, as libprotobuf merges messages.
Status ParseFeatureEntry(std::string_view entry, const char* base,
                         std::vector<FeatureEntry>* entries,
                         std::vector<std::unique_ptr<std::string>>* joined) {
  // Fast path: key field (under 128 bytes), then value field, nothing
  // else.
  const auto* p = reinterpret_cast<const uint8_t*>(entry.data());
  const auto* end = p + entry.size();
  if (entry.size() >= 4 && p[0] == Tag1(1, kWireLen) && p[1] < 0x80 &&
      static_cast<size_t>(p[1]) + 3 <= entry.size() &&
      p[2 + p[1]] == Tag1(2, kWireLen)) {
    const std::string_view key(entry.data() + 2, p[1]);
    const uint8_t* q = p + 3 + p[1];
    size_t len;
    if (ReadShortLength(&q, end, &len) && q + len == end) {
      FeatureEntry& e = entries->emplace_back();
      e.key = key;
      Status s = FeatureView::Parse(
          std::string_view(reinterpret_cast<const char*>(q), len), base,
          &e.value);
      if (!s.ok()) entries->pop_back();
      return s;
    }
  }
  std::string_view key;
  std::string_view value;
  int values = 0;
  std::unique_ptr<std::string> merged;
  INFLOW_RETURN_IF_ERROR(WalkLenFields(
      entry, base, "Features map entry", 2, [&](const LenField& f) {
        if (f.number == 1) {
          key = f.payload;
        } else {
          if (values == 1) merged = std::make_unique<std::string>(value);
          if (values >= 1) merged->append(f.payload);
          value = f.payload;
          ++values;
        }
        return OkStatus();
      }));
  FeatureView view;
  if (values == 1) {
    INFLOW_RETURN_IF_ERROR(FeatureView::Parse(value, base, &view));
  } else if (values > 1) {
    INFLOW_RETURN_IF_ERROR(
        FeatureView::Parse(*merged, merged->data(), &view)
            .WithContext("in a Feature split over several fields"));
    joined->push_back(std::move(merged));
  }
  entries->push_back({key, view});
  return OkStatus();
}

// ParseExampleEntries' fast path: false at any layout but the encoders'
// (encoder_layout.h), having appended entries that the caller must drop.
inline bool ParseExampleEntriesFast(std::string_view example,
                                    std::vector<FeatureEntry>* entries,
                                    bool* has_features) {
  return WalkExampleFast(
      example, [&] { *has_features = true; },
      [&](std::string_view key, const uint8_t* value,
          const uint8_t* value_end) {
        FeatureEntry& e = entries->emplace_back();
        e.key = key;
        return TryParseList(
            std::string_view(reinterpret_cast<const char*>(value),
                             static_cast<size_t>(value_end - value)),
            &e.value);
      });
}

}  // namespace

Status ParseFeatures(std::string_view features, const char* base,
                     std::vector<FeatureEntry>* entries,
                     std::vector<std::unique_ptr<std::string>>* joined) {
  return WalkLenFields(features, base, "Features", 1, [&](const LenField& f) {
    return ParseFeatureEntry(f.payload, base, entries, joined);
  });
}

Status ParseExampleEntries(std::string_view example,
                           std::vector<FeatureEntry>* entries,
                           std::vector<std::unique_ptr<std::string>>* joined,
                           bool* has_features) {
  const size_t first = entries->size();
  if (ParseExampleEntriesFast(example, entries, has_features)) {
    return OkStatus();
  }
  entries->resize(first);
  const char* base = example.data();
  // Several `features` fields merge their maps.
  return WalkLenFields(example, base, "Example", 1, [&](const LenField& f) {
    *has_features = true;
    return ParseFeatures(f.payload, base, entries, joined);
  });
}

}  // namespace internal

Status ExampleView::Parse(std::string_view serialized) {
  entries_.clear();
  joined_.clear();
  has_features_ = false;
  Status s = internal::ParseExampleEntries(serialized, &entries_, &joined_,
                                           &has_features_);
  if (!s.ok()) {
    entries_.clear();
    joined_.clear();
    has_features_ = false;
  }
  return s;
}

const FeatureView* ExampleView::Find(std::string_view key) const {
  for (size_t i = entries_.size(); i > 0; --i) {
    if (entries_[i - 1].key == key) return &entries_[i - 1].value;
  }
  return nullptr;
}

}  // namespace inflow
