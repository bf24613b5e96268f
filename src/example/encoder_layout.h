// Copyright 2026 The inflow Authors.
//
// The fast paths of the Example parsers: recognizers for the layout that
// every encoder (TensorFlow's, libprotobuf's, ours) writes. An Example
// holds only `features` fields; a map entry holds its key (under 128
// bytes) and then its value; a Feature holds one list; a numeric list is
// one packed field (or nothing) and a bytes list a run of field-1 values.
//
// Every function here accepts exactly that layout and returns false (or
// -1) for anything else, malformed input included, without naming what is
// wrong: the caller then takes the general path, which validates the
// record against the full wire rules and reports the offset of an error.
// What a recognizer accepts, the general path would accept with the same
// result.

#ifndef INFLOW_EXAMPLE_ENCODER_LAYOUT_H_
#define INFLOW_EXAMPLE_ENCODER_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inflow/example/feature_view.h"

#include "example/packed_varints.h"

namespace inflow {
namespace internal {

// Sets the private state of a FeatureView for the parsers.
struct FeatureViewAccess {
  // `size` values of `kind`: in the list message `data` when `single_list`,
  // else in the lists of that kind in `data`, the tail of a Feature
  // message from the first such list.
  static void Set(FeatureView* v, FeatureKind kind, int64_t size,
                  std::string_view data, bool single_list) {
    v->kind_ = kind;
    v->size_ = size;
    v->data_ = data;
    v->single_list_ = single_list;
  }
  // A view of one list message: `size` values of `kind` in data[0, len).
  static void SetList(FeatureView* v, FeatureKind kind, const uint8_t* data,
                      size_t len, int64_t size) {
    Set(v, kind, size,
        std::string_view(reinterpret_cast<const char*>(data), len), true);
  }
};

// Reads a length of at most 2 varint bytes (up to 16383) at *p, which
// must fit before `end`; false otherwise (ReadLength handles longer
// ones). *p and *len change only on success, so that ReadLength can start
// its general loop from the same position.
inline bool ReadShortLength(const uint8_t** p, const uint8_t* end,
                            size_t* len) {
  const uint8_t* q = *p;
  if (q == end) return false;
  size_t n;
  if (q[0] < 0x80) {
    n = q[0];
    q += 1;
  } else if (end - q >= 2 && q[1] < 0x80) {
    n = (q[0] & 0x7fu) | (size_t{q[1]} << 7);
    q += 2;
  } else {
    return false;
  }
  if (n > static_cast<size_t>(end - q)) return false;
  *len = n;
  *p = q;
  return true;
}

// Reads a varint length (up to 5 bytes) at *p that must fit before `end`.
inline bool ReadLength(const uint8_t** p, const uint8_t* end, size_t* len) {
  if (ReadShortLength(p, end, len)) return true;
  const uint8_t* q = *p;
  uint64_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (q == end) return false;
    const uint8_t b = *q++;
    v |= uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) {
      if (v > static_cast<uint64_t>(end - q)) return false;
      *p = q;
      *len = static_cast<size_t>(v);
      return true;
    }
  }
  return false;
}

// Counts the values of the list message [p, end) of `kind` in the encoder
// layout; -1 for any other layout.
inline int64_t CountSimpleList(FeatureKind kind, const uint8_t* p,
                               const uint8_t* end) {
  if (kind == FeatureKind::kBytes) {
    int64_t n = 0;
    while (p != end) {
      if (*p++ != Tag1(1, kWireLen)) return -1;
      size_t len;
      if (!ReadShortLength(&p, end, &len)) return -1;
      p += len;
      ++n;
    }
    return n;
  }
  if (p == end) return 0;
  if (*p++ != Tag1(1, kWireLen)) return -1;
  size_t len;
  if (!ReadShortLength(&p, end, &len) || p + len != end) return -1;
  if (kind == FeatureKind::kFloat) {
    return len % 4 == 0 ? static_cast<int64_t>(len / 4) : -1;
  }
  return CountPackedVarints(
      std::string_view(reinterpret_cast<const char*>(p), len));
}

// Parses a Feature holding one list in the encoder layout into *out. False
// (and *out unchanged) for anything else, an empty Feature included.
[[gnu::always_inline]] inline bool TryParseList(std::string_view feature,
                                                FeatureView* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(feature.data());
  const auto* end = p + feature.size();
  if (p == end) return false;
  const uint8_t tag = *p++;
  if (tag != Tag1(1, kWireLen) && tag != Tag1(2, kWireLen) &&
      tag != Tag1(3, kWireLen)) {
    return false;
  }
  size_t len;
  if (!ReadShortLength(&p, end, &len) || p + len != end) return false;
  const auto kind = static_cast<FeatureKind>(tag >> 3);
  const int64_t n = CountSimpleList(kind, p, end);
  if (n < 0) return false;
  FeatureViewAccess::SetList(out, kind, p, len, n);
  return true;
}

// Walks an Example in the encoder layout. Calls on_features() at each
// `features` field and on_entry(key, value, value_end) for each map entry,
// where [value, value_end) are the Feature's bytes; false at any other
// layout, or as soon as on_entry returns false.
template <typename OnFeatures, typename OnEntry>
[[gnu::always_inline]] inline bool WalkExampleFast(std::string_view example,
                                                   OnFeatures on_features,
                                                   OnEntry on_entry) {
  const auto* p = reinterpret_cast<const uint8_t*>(example.data());
  const auto* end = p + example.size();
  while (p != end) {
    if (*p++ != Tag1(1, kWireLen)) return false;
    size_t len;
    if (!ReadLength(&p, end, &len)) return false;
    on_features();
    const uint8_t* features_end = p + len;
    while (p != features_end) {
      if (*p++ != Tag1(1, kWireLen)) return false;
      if (!ReadLength(&p, features_end, &len)) return false;
      const uint8_t* entry_end = p + len;
      if (len < 3 || p[0] != Tag1(1, kWireLen) || p[1] >= 0x80 ||
          static_cast<size_t>(p[1]) + 3 > len ||
          p[2 + p[1]] != Tag1(2, kWireLen)) {
        return false;
      }
      const std::string_view key(reinterpret_cast<const char*>(p + 2), p[1]);
      p += 3 + p[1];
      if (!ReadLength(&p, entry_end, &len) || p + len != entry_end) {
        return false;
      }
      if (!on_entry(key, p, entry_end)) return false;
      p = entry_end;
    }
  }
  return true;
}

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_EXAMPLE_ENCODER_LAYOUT_H_
