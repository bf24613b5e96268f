// Copyright 2026 The inflow Authors.

#include "inflow/example/feature_view.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "example/parsed_schema.h"
#include "example/wire.h"

namespace inflow {

using internal::kWireFixed32;
using internal::kWireLen;
using internal::kWireVarint;
using internal::WireReader;

std::string_view FeatureKindName(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kBytes:
      return "bytes_list";
    case FeatureKind::kFloat:
      return "float_list";
    case FeatureKind::kInt64:
      return "int64_list";
    case FeatureKind::kNone:
      break;
  }
  return "none";
}

FeatureKind FeatureKindFor(DType dtype) {
  switch (dtype) {
    case DType::kString:
      return FeatureKind::kBytes;
    case DType::kFloat32:
      return FeatureKind::kFloat;
    case DType::kInt64:
      return FeatureKind::kInt64;
    default:
      return FeatureKind::kNone;
  }
}

namespace {

Status Malformed(std::string_view what, const char* pos, const char* base) {
  return InvalidArgumentError("Could not parse example input: malformed " +
                              std::string(what) + " at byte offset " +
                              std::to_string(pos - base));
}

// When `msg` is exactly one length-delimited field (the tag a single
// byte), sets *tag and *payload. What every encoder writes for a Feature,
// a list and a map entry's parts, so the parsers try this first.
inline bool SingleField(std::string_view msg, uint8_t* tag,
                        std::string_view* payload) {
  if (msg.size() < 2) return false;
  WireReader r(msg.substr(1));
  uint64_t len;
  if (!r.ReadVarint(&len) || len != msg.size() - 1 - r.offset()) return false;
  *tag = static_cast<uint8_t>(msg[0]);
  *payload = msg.substr(1 + r.offset());
  return true;
}

// Validates one list message of `kind` and counts its values; -1 when it
// is malformed.
int64_t CountList(FeatureKind kind, std::string_view payload) {
  uint8_t tag;
  std::string_view packed;
  if (kind != FeatureKind::kBytes && SingleField(payload, &tag, &packed) &&
      tag == internal::Tag1(1, kWireLen)) {
    if (kind == FeatureKind::kFloat) {
      return packed.size() % 4 == 0 ? static_cast<int64_t>(packed.size() / 4)
                                    : -1;
    }
    return internal::CountPackedVarints(packed);
  }
  WireReader r(payload);
  int64_t n = 0;
  while (!r.done()) {
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return -1;
    if (field == 1) {
      if (kind == FeatureKind::kBytes && wt == kWireLen) {
        std::string_view v;
        if (!r.ReadLengthDelimited(&v)) return -1;
        ++n;
        continue;
      }
      if (kind == FeatureKind::kFloat) {
        if (wt == kWireLen) {
          std::string_view v;
          if (!r.ReadLengthDelimited(&v) || v.size() % 4 != 0) return -1;
          n += static_cast<int64_t>(v.size() / 4);
          continue;
        }
        if (wt == kWireFixed32) {
          uint32_t v;
          if (!r.ReadFixed32(&v)) return -1;
          ++n;
          continue;
        }
      }
      if (kind == FeatureKind::kInt64) {
        if (wt == kWireLen) {
          std::string_view v;
          if (!r.ReadLengthDelimited(&v)) return -1;
          const int64_t k = internal::CountPackedVarints(v);
          if (k < 0) return -1;
          n += k;
          continue;
        }
        if (wt == kWireVarint) {
          uint64_t v;
          if (!r.ReadVarint(&v)) return -1;
          ++n;
          continue;
        }
      }
    }
    // Unknown fields, and field 1 with a wire type it cannot have.
    if (!r.SkipField(field, wt)) return -1;
  }
  return n;
}

// Reads a length of at most 2 varint bytes (up to 16383) at *p, which
// must fit before `end`; false otherwise (the general path handles longer
// ones).
inline bool ReadShortLength(const uint8_t** p, const uint8_t* end,
                            size_t* len) {
  // *p and *len change only on success: ReadLength falls back to its
  // general loop from the same position when this fails.
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

// Counts the values of a list message of `kind` laid out as encoders write
// it: numbers as one packed field (or nothing), bytes as a run of field-1
// values. -1 for any other layout (including malformed ones).
inline int64_t CountSimpleList(FeatureKind kind, const uint8_t* p,
                               const uint8_t* end) {
  if (kind == FeatureKind::kBytes) {
    int64_t n = 0;
    while (p != end) {
      if (*p++ != internal::Tag1(1, kWireLen)) return -1;
      size_t len;
      if (!ReadShortLength(&p, end, &len)) return -1;
      p += len;
      ++n;
    }
    return n;
  }
  if (p == end) return 0;
  if (*p++ != internal::Tag1(1, kWireLen)) return -1;
  size_t len;
  if (!ReadShortLength(&p, end, &len) || p + len != end) return -1;
  if (kind == FeatureKind::kFloat) {
    return len % 4 == 0 ? static_cast<int64_t>(len / 4) : -1;
  }
  return internal::CountPackedVarints(
      std::string_view(reinterpret_cast<const char*>(p), len));
}

}  // namespace

[[gnu::always_inline]] inline bool FeatureView::TryParseList(
    std::string_view feature, FeatureView* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(feature.data());
  const auto* end = p + feature.size();
  if (p == end) return false;
  const uint8_t tag = *p++;
  if (tag != internal::Tag1(1, kWireLen) &&
      tag != internal::Tag1(2, kWireLen) &&
      tag != internal::Tag1(3, kWireLen)) {
    return false;
  }
  size_t len;
  if (!ReadShortLength(&p, end, &len) || p + len != end) return false;
  const auto kind = static_cast<FeatureKind>(tag >> 3);
  const int64_t n = CountSimpleList(kind, p, end);
  if (n < 0) return false;
  out->kind_ = kind;
  out->size_ = n;
  out->single_list_ = true;
  out->data_ = std::string_view(reinterpret_cast<const char*>(p), len);
  return true;
}

Status FeatureView::Parse(std::string_view feature, const char* base,
                          FeatureView* out) {
  // Fast path: one list field, laid out as every encoder writes it
  // (TryParseList). Anything else, malformed input included, takes the
  // general path below, which names the offset of what is wrong.
  if (TryParseList(feature, out)) return OkStatus();
  WireReader r(feature);
  FeatureKind kind = FeatureKind::kNone;
  int64_t size = 0;
  const char* segment = nullptr;
  int lists = 0;
  std::string_view last;
  while (!r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed("Feature", tag_pos, base);
    if (wt == kWireLen && field >= 1 && field <= 3) {
      std::string_view payload;
      if (!r.ReadLengthDelimited(&payload)) {
        return Malformed("Feature", tag_pos, base);
      }
      const auto k = static_cast<FeatureKind>(field);
      if (k != kind) {
        // Setting another oneof member clears the previous one.
        kind = k;
        size = 0;
        lists = 0;
        segment = tag_pos;
      }
      const int64_t n = CountList(k, payload);
      if (n < 0) return Malformed(FeatureKindName(k), payload.data(), base);
      size += n;
      ++lists;
      last = payload;
    } else if (!r.SkipField(field, wt)) {
      return Malformed("Feature", tag_pos, base);
    }
  }
  out->kind_ = kind;
  out->size_ = size;
  if (lists <= 1) {
    out->single_list_ = true;
    out->data_ = last;
  } else {
    out->single_list_ = false;
    out->data_ = std::string_view(
        segment,
        static_cast<size_t>(feature.data() + feature.size() - segment));
  }
  return OkStatus();
}

template <typename F>
void FeatureView::ForEachList(F&& f) const {
  if (single_list_) {
    if (kind_ != FeatureKind::kNone) f(data_);
    return;
  }
  // Validated by Parse: every read succeeds.
  WireReader r(data_);
  const auto want = static_cast<uint32_t>(kind_);
  while (!r.done()) {
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return;
    if (field == want && wt == kWireLen) {
      std::string_view payload;
      if (!r.ReadLengthDelimited(&payload)) return;
      f(payload);
    } else if (!r.SkipField(field, wt)) {
      return;
    }
  }
}

namespace {

// When `list` is exactly one packed field 1 (the layout encoders write),
// sets *packed to its payload.
inline bool OnePackedField(std::string_view list, std::string_view* packed) {
  const auto* p = reinterpret_cast<const uint8_t*>(list.data());
  const auto* end = p + list.size();
  if (p == end || *p++ != internal::Tag1(1, kWireLen)) return false;
  size_t len;
  if (!ReadShortLength(&p, end, &len) || p + len != end) return false;
  *packed = std::string_view(reinterpret_cast<const char*>(p), len);
  return true;
}

}  // namespace

void FeatureView::CopyFloats(float* out) const {
  std::string_view packed;
  if (single_list_ && OnePackedField(data_, &packed)) {
    if (!packed.empty()) std::memcpy(out, packed.data(), packed.size());
    return;
  }
  ForEachList([&out](std::string_view list) {
    WireReader r(list);
    while (!r.done()) {
      uint32_t field;
      int wt;
      if (!r.ReadTag(&field, &wt)) return;
      if (field == 1 && wt == kWireLen) {
        std::string_view v;
        if (!r.ReadLengthDelimited(&v)) return;
        if (!v.empty()) {  // out may be null when there are no values
          std::memcpy(out, v.data(), v.size());
          out += v.size() / 4;
        }
      } else if (field == 1 && wt == kWireFixed32) {
        uint32_t bits;
        if (!r.ReadFixed32(&bits)) return;
        std::memcpy(out++, &bits, 4);
      } else if (!r.SkipField(field, wt)) {
        return;
      }
    }
  });
}

void FeatureView::CopyInt64s(int64_t* out) const {
  std::string_view packed;
  if (single_list_ && OnePackedField(data_, &packed)) {
    internal::DecodePackedVarints(packed, out);
    return;
  }
  ForEachList([&out](std::string_view list) {
    WireReader r(list);
    while (!r.done()) {
      uint32_t field;
      int wt;
      if (!r.ReadTag(&field, &wt)) return;
      if (field == 1 && wt == kWireLen) {
        std::string_view v;
        if (!r.ReadLengthDelimited(&v)) return;
        out += internal::DecodePackedVarints(v, out);
      } else if (field == 1 && wt == kWireVarint) {
        uint64_t v;
        if (!r.ReadVarint(&v)) return;
        *out++ = static_cast<int64_t>(v);
      } else if (!r.SkipField(field, wt)) {
        return;
      }
    }
  });
}

void FeatureView::CopyBytes(std::string* out) const {
  if (single_list_ && kind_ == FeatureKind::kBytes) {
    // The common layout, a run of field-1 values, read directly (Parse
    // validated it); any other field hands the rest to the general
    // iterator.
    WireReader r(data_);
    while (!r.done() &&
           static_cast<uint8_t>(*r.pos()) == internal::Tag1(1, kWireLen)) {
      uint32_t field;
      int wt;
      std::string_view v;
      if (!r.ReadTag(&field, &wt) || !r.ReadLengthDelimited(&v)) return;
      (out++)->assign(v);
    }
    if (r.done()) return;
    FeatureView rest = *this;
    rest.data_ = data_.substr(r.offset());
    rest.ForEachBytes([&out](std::string_view v) { (out++)->assign(v); });
    return;
  }
  ForEachBytes([&out](std::string_view v) { (out++)->assign(v); });
}

FeatureView::BytesIterator::BytesIterator(const FeatureView& view)
    : single_(view.single_list_) {
  if (view.kind_ != FeatureKind::kBytes) return;
  if (single_) {
    list_ = view.data_;
  } else {
    outer_ = view.data_;
  }
}

bool FeatureView::BytesIterator::Next(std::string_view* value) {
  for (;;) {
    while (!list_.empty()) {
      WireReader r(list_);
      uint32_t field;
      int wt;
      bool found = false;
      if (!r.ReadTag(&field, &wt)) return false;
      if (field == 1 && wt == kWireLen) {
        if (!r.ReadLengthDelimited(value)) return false;
        found = true;
      } else if (!r.SkipField(field, wt)) {
        return false;
      }
      list_.remove_prefix(r.offset());
      if (found) return true;
    }
    if (outer_.empty()) return false;
    WireReader r(outer_);
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return false;
    if (field == 1 && wt == kWireLen) {
      if (!r.ReadLengthDelimited(&list_)) return false;
    } else if (!r.SkipField(field, wt)) {
      return false;
    }
    outer_.remove_prefix(r.offset());
  }
}

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
  if (entry.size() >= 4 && p[0] == internal::Tag1(1, kWireLen) && p[1] < 0x80 &&
      static_cast<size_t>(p[1]) + 3 <= entry.size() &&
      p[2 + p[1]] == internal::Tag1(2, kWireLen)) {
    const std::string_view key(entry.data() + 2, p[1]);
    const uint8_t* q = p + 3 + p[1];
    uint64_t len;
    bool ok = false;
    if (q < end && q[0] < 0x80) {
      len = q[0];
      ok = true;
      ++q;
    } else if (end - q >= 2 && q[1] < 0x80) {
      len = (q[0] & 0x7fu) | (uint64_t{q[1]} << 7);
      ok = true;
      q += 2;
    }
    if (ok && len == static_cast<uint64_t>(end - q)) {
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

namespace {

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

}  // namespace

// The fast path of ParseExampleEntries, for records laid out as every
// encoder writes them: only `features` fields, whose map entries hold a
// key (under 128 bytes) and then a Feature with one list (see
// FeatureView::TryParseList). False at anything else, malformed input
// included, having appended entries that the caller must drop.
// `try_parse_list` is FeatureView::TryParseList, passed in by its friend.
// The walk of an Example laid out as every encoder writes it: only
// `features` fields, whose map entries hold a key (under 128 bytes) and
// then a Feature. Calls on_features() at each `features` field and
// on_entry(key, value, value_end) for each entry, where [value, value_end)
// are the Feature's bytes; false at anything else (or when on_entry is).
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

static inline bool ParseExampleEntriesFast(
    std::string_view example, std::vector<FeatureEntry>* entries,
    bool* has_features,
    bool (*try_parse_list)(std::string_view, FeatureView*)) {
  return WalkExampleFast(
      example, [&] { *has_features = true; },
      [&](std::string_view key, const uint8_t* value,
          const uint8_t* value_end) {
        FeatureEntry& e = entries->emplace_back();
        e.key = key;
        return try_parse_list(
            std::string_view(reinterpret_cast<const char*>(value),
                             static_cast<size_t>(value_end - value)),
            &e.value);
      });
}

struct FeatureViewAccess {
  static void SetList(FeatureView* v, FeatureKind kind, const uint8_t* data,
                      size_t len, int64_t size) {
    v->kind_ = kind;
    v->size_ = size;
    v->single_list_ = true;
    v->data_ = std::string_view(reinterpret_cast<const char*>(data), len);
  }
  static bool TryParseList(std::string_view feature, FeatureView* out) {
    return FeatureView::TryParseList(feature, out);
  }
};

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
        row[n] = std::string(reinterpret_cast<const char*>(q), len);
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
              return FeatureViewAccess::TryParseList(
                  std::string_view(reinterpret_cast<const char*>(value),
                                   static_cast<size_t>(value_end - value)),
                  &unused);
            }
            return ParseFeatureFast(
                value, value_end, end, schema.specs[static_cast<size_t>(i)],
                out->fixed[static_cast<size_t>(i)], b, &row[i], &slots[i], out);
          });
}

Status ParseExampleEntries(std::string_view example,
                           std::vector<FeatureEntry>* entries,
                           std::vector<std::unique_ptr<std::string>>* joined,
                           bool* has_features) {
  const size_t first = entries->size();
  if (ParseExampleEntriesFast(example, entries, has_features,
                              &FeatureView::TryParseList)) {
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
