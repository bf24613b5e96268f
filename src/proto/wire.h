// Copyright 2026 The inflow Authors.
//
// The protobuf wire format, once for the whole library (docs/formats.md,
// "Protobuf wire format"): the reader (varints, tags, fixed-width values,
// length-delimited payloads, skipping a field), the writers, and the field
// walker the message codecs are written with. The LevelDB-format tables'
// varints and fixed-width integers are the same encodings and use the same
// functions.
//
// Readers never read past the buffer they are given and report malformed
// input by returning false; callers turn that into a Status with context.
// A varint is at most 10 bytes and, as libprotobuf reads it, bits beyond 64
// in the tenth byte are dropped.
//
// Internal. Free functions are thread-safe; WireReader is a value type.

#ifndef INFLOW_PROTO_WIRE_H_
#define INFLOW_PROTO_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace inflow::internal {

// Wire types.
inline constexpr int kWireVarint = 0;
inline constexpr int kWireFixed64 = 1;
inline constexpr int kWireLen = 2;
inline constexpr int kWireStartGroup = 3;
inline constexpr int kWireEndGroup = 4;
inline constexpr int kWireFixed32 = 5;

// Groups nested deeper than this are malformed (libprotobuf's default
// recursion limit).
inline constexpr int kMaxGroupDepth = 100;

// Tags as single bytes for field numbers 1..15.
constexpr uint8_t Tag1(int field, int wire_type) {
  return static_cast<uint8_t>((field << 3) | wire_type);
}

// Fixed-width little-endian integers at `p` (which holds 4 or 8 bytes).
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // little-endian hosts only (checked in wire.cc)
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void EncodeFixed32(char* dst, uint32_t v) { std::memcpy(dst, &v, 4); }
inline void EncodeFixed64(char* dst, uint64_t v) { std::memcpy(dst, &v, 8); }

// A cursor over one serialized message.
class WireReader {
 public:
  explicit WireReader(std::string_view buf)
      : p_(reinterpret_cast<const uint8_t*>(buf.data())),
        end_(p_ + buf.size()),
        begin_(p_) {}

  bool done() const { return p_ == end_; }
  // Bytes consumed so far.
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  const char* pos() const { return reinterpret_cast<const char*>(p_); }

  bool ReadVarint(uint64_t* v) {
    if (p_ < end_ && *p_ < 0x80) {
      *v = *p_++;
      return true;
    }
    // Two bytes: lengths of 128 to 16383 bytes, common for bytes values.
    if (end_ - p_ >= 2 && p_[1] < 0x80) {
      *v = (p_[0] & 0x7fu) | (uint64_t{p_[1]} << 7);
      p_ += 2;
      return true;
    }
    return ReadVarintSlow(v);
  }

  // An int32 field's value: libprotobuf keeps the varint's low 32 bits.
  bool ReadInt32(int32_t* v) {
    uint64_t wide;
    if (!ReadVarint(&wide)) return false;
    *v = static_cast<int32_t>(static_cast<uint32_t>(wide));
    return true;
  }
  bool ReadInt64(int64_t* v) {
    uint64_t wide;
    if (!ReadVarint(&wide)) return false;
    *v = static_cast<int64_t>(wide);
    return true;
  }

  // Reads a tag as libprotobuf's parser does: at most five bytes, bits
  // beyond 32 dropped. False at a tag cut short or longer than five bytes,
  // field number 0, or a wire type that does not exist (6, 7).
  bool ReadTag(uint32_t* field, int* wire_type) {
    uint32_t tag;
    if (p_ < end_ && *p_ < 0x80) {
      tag = *p_++;
    } else if (!ReadTagSlow(&tag)) {
      return false;
    }
    *field = tag >> 3;
    *wire_type = static_cast<int>(tag & 7);
    return *field != 0 && *wire_type <= kWireFixed32;
  }

  bool ReadFixed32(uint32_t* v) {
    if (end_ - p_ < 4) return false;
    *v = DecodeFixed32(pos());
    p_ += 4;
    return true;
  }

  bool ReadFixed64(uint64_t* v) {
    if (end_ - p_ < 8) return false;
    *v = DecodeFixed64(pos());
    p_ += 8;
    return true;
  }

  // A length-delimited payload, viewed in place.
  bool ReadLengthDelimited(std::string_view* out) {
    uint64_t len;
    if (!ReadVarint(&len)) return false;
    if (len > static_cast<uint64_t>(end_ - p_)) return false;
    *out = std::string_view(reinterpret_cast<const char*>(p_),
                            static_cast<size_t>(len));
    p_ += len;
    return true;
  }

  // Skips the value of a field whose tag was just read. A start-group
  // skips to its matching end-group (nested at most kMaxGroupDepth deep);
  // a stray end-group is malformed.
  bool SkipField(uint32_t field, int wire_type);

 private:
  bool ReadVarintSlow(uint64_t* v);
  bool ReadTagSlow(uint32_t* tag);
  bool SkipGroup(uint32_t field, int depth);

  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
};

// Walks the fields of `msg` in wire order. For each, calls
// on_field(field, wire_type, reader) -> bool, with `reader` just past the
// tag: it reads the value and returns true, returns true without reading
// anything to have the field skipped, or returns false to stop (malformed
// input, or the caller's own failure). Returns false at a field that does
// not parse or when on_field stops; *bad_offset, when given, is then the
// offset in `msg` of that field's tag.
template <typename OnField>
[[gnu::always_inline]] inline bool WalkFields(std::string_view msg,
                                              OnField&& on_field,
                                              size_t* bad_offset = nullptr) {
  WireReader r(msg);
  while (!r.done()) {
    const size_t at = r.offset();
    uint32_t field;
    int wire_type;
    bool ok = r.ReadTag(&field, &wire_type);
    if (ok) {
      const size_t value_at = r.offset();
      ok = on_field(field, wire_type, r);
      // Every value takes at least one byte: nothing read means skip it.
      if (ok && r.offset() == value_at) ok = r.SkipField(field, wire_type);
    }
    if (!ok) {
      if (bad_offset != nullptr) *bad_offset = at;
      return false;
    }
  }
  return true;
}

// The consuming forms LevelDB-format tables use: read from the front of
// *input and advance past what was read; false (and *input unchanged) when
// it does not parse. GetVarint32 also fails on a value above 2^32 - 1.
inline bool GetVarint64(std::string_view* input, uint64_t* v) {
  WireReader r(*input);
  if (!r.ReadVarint(v)) return false;
  input->remove_prefix(r.offset());
  return true;
}
inline bool GetVarint32(std::string_view* input, uint32_t* v) {
  WireReader r(*input);
  uint64_t wide;
  if (!r.ReadVarint(&wide) || wide > 0xffffffffu) return false;
  *v = static_cast<uint32_t>(wide);
  input->remove_prefix(r.offset());
  return true;
}

// Encoding.
inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline void PutVarint(std::string* out, uint64_t v) {
  char buf[10];
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, n);
}

inline void PutFixed32(std::string* out, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  out->append(buf, 4);
}
inline void PutFixed64(std::string* out, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  out->append(buf, 8);
}

inline void PutTag(std::string* out, uint32_t field, int wire_type) {
  PutVarint(out, (uint64_t{field} << 3) | static_cast<uint64_t>(wire_type));
}

// A length-delimited field, written even when empty (a present
// sub-message, a set bytes field).
inline void PutLengthDelimited(std::string* out, uint32_t field,
                               std::string_view payload) {
  PutTag(out, field, kWireLen);
  PutVarint(out, payload.size());
  out->append(payload);
}

// proto3 scalar fields: nothing is written for zero. A negative int takes
// ten bytes (two's complement, not zigzag), as protobuf writes int32/int64.
inline void PutVarintField(std::string* out, uint32_t field, int64_t v) {
  if (v == 0) return;
  PutTag(out, field, kWireVarint);
  PutVarint(out, static_cast<uint64_t>(v));
}
inline void PutFixed32Field(std::string* out, uint32_t field, uint32_t v) {
  if (v == 0) return;
  PutTag(out, field, kWireFixed32);
  PutFixed32(out, v);
}
inline void PutFixed64Field(std::string* out, uint32_t field, uint64_t v) {
  if (v == 0) return;
  PutTag(out, field, kWireFixed64);
  PutFixed64(out, v);
}

}  // namespace inflow::internal

#endif  // INFLOW_PROTO_WIRE_H_
