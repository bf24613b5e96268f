// Copyright 2026 The inflow Authors.

#include "example/example_fast_parser.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/string_recycler.h"
#include "example/encoder_layout.h"
#include "example/packed_varints.h"

namespace inflow::internal {

namespace {

// The list payload [p, end) of a float or int64 feature as encoders write
// it: nothing, or one packed field. False for any other layout.
inline bool PackedPayload(const uint8_t* p, const uint8_t* end,
                          const uint8_t** data, size_t* len) {
  if (p == end) {
    *data = p;
    *len = 0;
    return true;
  }
  if (*p++ != Tag1(1, kWireLen)) return false;
  if (!ReadShortLength(&p, end, len) || p + *len != end) return false;
  *data = p;
  return true;
}

// Validates and decodes packed int64 values (DecodePackedVarintsChecked).
inline int64_t DecodeInt64s(std::string_view packed, int64_t* out,
                            int64_t capacity, size_t slack) {
  if (packed.size() <= 16) {
    return DecodeShortPackedVarintsChecked(packed, out, capacity);
  }
  return DecodePackedVarintsChecked(packed, out, capacity, slack);
}

// Parses one Feature [p, end) for spec `spec` (spec index s, see
// ParseExampleFast) into *view and *slot.
inline bool ParseFeatureFast(const uint8_t* p, const uint8_t* end,
                             const uint8_t* record_end,
                             const ParsedSchema::Spec& spec, char* fixed,
                             int64_t b, FeatureView* view, int64_t* slot,
                             FastOutputs* out) {
  // One list field covering the Feature (an empty Feature, kind none, takes
  // the general path).
  if (p == end) return false;
  const uint8_t tag = *p++;
  if (tag != Tag1(1, kWireLen) && tag != Tag1(2, kWireLen) &&
      tag != Tag1(3, kWireLen)) {
    return false;
  }
  size_t list_len;
  if (!ReadShortLength(&p, end, &list_len) || p + list_len != end) {
    return false;
  }
  const auto kind = static_cast<FeatureKind>(tag >> 3);
  int64_t n;
  *slot = kSlotFromView;
  const bool is_fixed = spec.type == ParsedSchema::Type::kFixedLen;
  if (kind != spec.kind ||
      (!is_fixed && spec.type != ParsedSchema::Type::kVarLen)) {
    n = CountSimpleList(kind, p, end);
    if (n < 0) return false;
  } else if (kind == FeatureKind::kInt64) {
    const uint8_t* data;
    size_t len;
    if (!PackedPayload(p, end, &data, &len)) return false;
    const std::string_view packed(reinterpret_cast<const char*>(data), len);
    // The rest of the record may be read past the payload.
    const auto slack = static_cast<size_t>(record_end - end);
    if (is_fixed) {
      int64_t* row = reinterpret_cast<int64_t*>(fixed) + b * spec.stride;
      n = DecodeInt64s(packed, row, spec.stride, slack);
      if (n < 0) return false;
      if (n == spec.stride) *slot = kSlotInPlace;
    } else {
      // At most one value per byte.
      std::vector<int64_t>& arena = *out->int64_arena;
      if (arena.size() < out->int64_used + len) {
        arena.resize(std::max(out->int64_used + len, 2 * arena.size()));
      }
      n = DecodeInt64s(packed, arena.data() + out->int64_used,
                       static_cast<int64_t>(len), slack);
      if (n < 0) return false;
      *slot = static_cast<int64_t>(out->int64_used);
      out->int64_used += static_cast<size_t>(n);
    }
  } else if (kind == FeatureKind::kFloat) {
    const uint8_t* data;
    size_t len;
    if (!PackedPayload(p, end, &data, &len) || len % 4 != 0) return false;
    n = static_cast<int64_t>(len / 4);
    if (is_fixed && n == spec.stride) {
      if (len > 0) {
        std::memcpy(reinterpret_cast<float*>(fixed) + b * spec.stride, data,
                    len);
      }
      *slot = kSlotInPlace;
    }
  } else if (is_fixed) {
    // Bytes values as a run of field-1 values, assigned to the output row
    // while they fit.
    std::string* row = reinterpret_cast<std::string*>(fixed) + b * spec.stride;
    n = 0;
    for (const uint8_t* q = p; q != end;) {
      if (*q++ != Tag1(1, kWireLen)) return false;
      size_t len;
      if (!ReadShortLength(&q, end, &len)) return false;
      if (n < spec.stride) {
        // Recycled storage: the parsed string is often dropped on another
        // thread (a pipeline's next stage).
        AssignRecycled(&row[n],
                       std::string_view(reinterpret_cast<const char*>(q), len));
      }
      q += len;
      ++n;
    }
    if (n == spec.stride) *slot = kSlotInPlace;
  } else {
    // Var-len bytes: the values listed for BuildOutputs (each takes at
    // least 2 bytes of the list).
    std::vector<std::string_view>& arena = *out->bytes_arena;
    const size_t most = out->bytes_used + list_len / 2;
    if (arena.size() < most) arena.resize(std::max(most, 2 * arena.size()));
    std::string_view* values = arena.data() + out->bytes_used;
    n = 0;
    for (const uint8_t* q = p; q != end;) {
      if (*q++ != Tag1(1, kWireLen)) return false;
      size_t len;
      if (!ReadShortLength(&q, end, &len)) return false;
      values[n++] = std::string_view(reinterpret_cast<const char*>(q), len);
      q += len;
    }
    *slot = static_cast<int64_t>(out->bytes_used);
    out->bytes_used += static_cast<size_t>(n);
  }
  FeatureViewAccess::SetList(view, kind, p, list_len, n);
  return true;
}

}  // namespace

bool ParseExampleFast(std::string_view record, const ParsedSchema& schema,
                      int64_t b, FeatureView* row, int64_t* slots,
                      FastOutputs* out) {
  // Each feature parsed for its spec as the walk meets it.
  const auto* end =
      reinterpret_cast<const uint8_t*>(record.data()) + record.size();
  int next = 0;  // records usually list their keys in one order
  return WalkExampleFast(
      record, [] {},
      [&](std::string_view key, const uint8_t* value, const uint8_t* value_end)
          __attribute__((always_inline)) {
            const int i = schema.LookupFrom(key, next);
            next = i + 1;
            if (i < 0) {
              // Not wanted: validated only.
              FeatureView unused;
              return TryParseList(
                  std::string_view(reinterpret_cast<const char*>(value),
                                   static_cast<size_t>(value_end - value)),
                  &unused);
            }
            return ParseFeatureFast(
                value, value_end, end, schema.specs[static_cast<size_t>(i)],
                out->fixed[static_cast<size_t>(i)], b, &row[i], &slots[i], out);
          });
}

}  // namespace inflow::internal
