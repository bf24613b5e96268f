// Copyright 2026 The inflow Authors.
//
// Protobuf wire-format primitives for the Example parser and encoder
// (docs/formats.md, "Example"). Readers never read past the buffer they
// are given and report malformed input by returning false; callers turn
// that into a Status with context.

#ifndef INFLOW_EXAMPLE_WIRE_H_
#define INFLOW_EXAMPLE_WIRE_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace inflow::internal {

inline constexpr int kWireVarint = 0;
inline constexpr int kWireFixed64 = 1;
inline constexpr int kWireLen = 2;
inline constexpr int kWireStartGroup = 3;
inline constexpr int kWireEndGroup = 4;
inline constexpr int kWireFixed32 = 5;

// Tags as single bytes for field numbers 1..15.
constexpr uint8_t Tag1(int field, int wire_type) {
  return static_cast<uint8_t>((field << 3) | wire_type);
}

// A cursor over one serialized message. Not thread-safe (a value type).
class WireReader {
 public:
  explicit WireReader(std::string_view buf)
      : p_(reinterpret_cast<const uint8_t*>(buf.data())),
        end_(p_ + buf.size()),
        begin_(p_) {}

  bool done() const { return p_ == end_; }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  const char* pos() const { return reinterpret_cast<const char*>(p_); }

  // Reads a varint of at most 10 bytes. Like libprotobuf, bits beyond 64
  // in the tenth byte are dropped.
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

  // Reads a tag; false at a malformed tag, field number 0, or a wire type
  // that does not exist (6, 7).
  bool ReadTag(uint32_t* field, int* wire_type) {
    uint64_t tag;
    if (p_ < end_ && *p_ < 0x80) {
      tag = *p_++;
    } else if (!ReadVarintSlow(&tag) || tag > 0xffffffffu) {
      return false;
    }
    *field = static_cast<uint32_t>(tag >> 3);
    *wire_type = static_cast<int>(tag & 7);
    return *field != 0 && *wire_type <= kWireFixed32;
  }

  bool ReadFixed32(uint32_t* v) {
    if (end_ - p_ < 4) return false;
    std::memcpy(v, p_, 4);  // little-endian hosts only (checked in .cc)
    p_ += 4;
    return true;
  }

  bool ReadFixed64(uint64_t* v) {
    if (end_ - p_ < 8) return false;
    std::memcpy(v, p_, 8);
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
  // skips to its matching end-group; a stray end-group is malformed.
  bool SkipField(uint32_t field, int wire_type);

 private:
  bool ReadVarintSlow(uint64_t* v);
  bool SkipGroup(uint32_t field, int depth);

  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
};

// Counts the varints in a packed payload; -1 when one runs past the end or
// exceeds 10 bytes.
int64_t CountPackedVarints(std::string_view payload);

// Decodes varints known to be well formed (CountPackedVarints agreed);
// returns how many were written to out. This and DecodePackedVarintsChecked
// run the kernel varint_kernels.h chooses.
int64_t DecodePackedVarints(std::string_view payload, int64_t* out);

// Validates and decodes in one pass: -1 when CountPackedVarints would say
// so, else the number of varints. Values are written to out[0, capacity)
// only when all of them fit (count <= capacity); otherwise the first
// values may or may not have been written, and none past capacity.
// `slack` is how many bytes after the payload may be read (they lie in the
// same buffer); with 64 or more, no load needs a bounds check.
int64_t DecodePackedVarintsChecked(std::string_view payload, int64_t* out,
                                   int64_t capacity, size_t slack = 0);
// DecodePackedVarintsChecked for short payloads (a few values): one
// WireReader::ReadVarint per value, cheaper there than the block machinery.
inline int64_t DecodeShortPackedVarintsChecked(std::string_view payload,
                                               int64_t* out, int64_t capacity) {
  WireReader reader(payload);
  int64_t count = 0;
  while (!reader.done()) {
    uint64_t v;
    // An 11th byte, or the payload ends inside the varint.
    if (!reader.ReadVarint(&v)) return -1;
    if (count < capacity) out[count] = static_cast<int64_t>(v);
    ++count;
  }
  return count;
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

inline void PutTag(std::string* out, int field, int wire_type) {
  PutVarint(out, (static_cast<uint64_t>(field) << 3) |
                     static_cast<uint64_t>(wire_type));
}

inline void PutLengthDelimited(std::string* out, int field,
                               std::string_view payload) {
  PutTag(out, field, kWireLen);
  PutVarint(out, payload.size());
  out->append(payload);
}

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_WIRE_H_
