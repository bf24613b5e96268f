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
#include "example/wire.h"

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
  WireReader r(entry);
  std::string_view key;
  std::string_view value;
  int values = 0;
  std::unique_ptr<std::string> merged;
  while (!r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) {
      return Malformed("Features map entry", tag_pos, base);
    }
    if ((field == 1 || field == 2) && wt == kWireLen) {
      std::string_view payload;
      if (!r.ReadLengthDelimited(&payload)) {
        return Malformed("Features map entry", tag_pos, base);
      }
      if (field == 1) {
        key = payload;
      } else {
        if (values == 1) merged = std::make_unique<std::string>(value);
        if (values >= 1) merged->append(payload);
        value = payload;
        ++values;
      }
    } else if (!r.SkipField(field, wt)) {
      return Malformed("Features map entry", tag_pos, base);
    }
  }
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
  WireReader r(features);
  while (!r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("Features", tag_pos, base);
    if (field == 1 && wt == kWireLen) {
      std::string_view entry;
      if (!r.ReadLengthDelimited(&entry)) {
        return Malformed("Features", tag_pos, base);
      }
      INFLOW_RETURN_IF_ERROR(ParseFeatureEntry(entry, base, entries, joined));
    } else if (!r.SkipField(field, wt)) {
      return Malformed("Features", tag_pos, base);
    }
  }
  return OkStatus();
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
  WireReader r(example);
  while (!r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("Example", tag_pos, base);
    if (field == 1 && wt == kWireLen) {
      std::string_view features;
      if (!r.ReadLengthDelimited(&features)) {
        return Malformed("Example", tag_pos, base);
      }
      // Several `features` fields merge their maps.
      *has_features = true;
      INFLOW_RETURN_IF_ERROR(ParseFeatures(features, base, entries, joined));
    } else if (!r.SkipField(field, wt)) {
      return Malformed("Example", tag_pos, base);
    }
  }
  return OkStatus();
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
