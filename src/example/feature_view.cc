// Copyright 2026 The inflow Authors.

#include "inflow/example/feature_view.h"

#include <cstring>

#include "core/string_recycler.h"
#include "example/encoder_layout.h"
#include "example/message_walk.h"
#include "example/packed_varints.h"

namespace inflow {

using internal::kWireFixed32;
using internal::kWireLen;
using internal::kWireVarint;
using internal::Malformed;
using internal::ReadShortLength;
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

// FeatureView::Parse for any layout but the encoders'. Kept out of line
// so that Parse's fast path, which is what records almost always take,
// pays no setup for it.
[[gnu::noinline]] Status ParseAnyFeature(std::string_view feature,
                                         const char* base, FeatureView* out) {
  FeatureKind kind = FeatureKind::kNone;
  int64_t size = 0;
  const char* segment = nullptr;
  int lists = 0;
  std::string_view last;
  INFLOW_RETURN_IF_ERROR(internal::WalkLenFields(
      feature, base, "Feature", 3, [&](const internal::LenField& f) {
        const auto k = static_cast<FeatureKind>(f.number);
        if (k != kind) {
          // Setting another oneof member clears the previous one.
          kind = k;
          size = 0;
          lists = 0;
          segment = f.start;
        }
        const int64_t n = CountList(k, f.payload);
        if (n < 0) return Malformed(FeatureKindName(k), f.payload.data(), base);
        size += n;
        ++lists;
        last = f.payload;
        return OkStatus();
      }));
  if (lists <= 1) {
    internal::FeatureViewAccess::Set(out, kind, size, last, true);
  } else {
    internal::FeatureViewAccess::Set(
        out, kind, size,
        std::string_view(
            segment,
            static_cast<size_t>(feature.data() + feature.size() - segment)),
        false);
  }
  return OkStatus();
}

}  // namespace

Status FeatureView::Parse(std::string_view feature, const char* base,
                          FeatureView* out) {
  // Fast path: one list field, laid out as every encoder writes it.
  // Anything else, malformed input included, takes the general path,
  // which names the offset of what is wrong.
  if (internal::TryParseList(feature, out)) return OkStatus();
  return ParseAnyFeature(feature, base, out);
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
      internal::AssignRecycled(out++, v);
    }
    if (r.done()) return;
    FeatureView rest = *this;
    rest.data_ = data_.substr(r.offset());
    rest.ForEachBytes(
        [&out](std::string_view v) { internal::AssignRecycled(out++, v); });
    return;
  }
  ForEachBytes(
      [&out](std::string_view v) { internal::AssignRecycled(out++, v); });
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

}  // namespace inflow
