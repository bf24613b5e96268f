// Copyright 2026 The inflow Authors.
//
// The few protobuf wire-format primitives the bundle index codec needs
// (docs/formats.md, "The .index file"): varints, tags, fixed32 and
// length-delimited fields, and skipping unknown fields. Readers never read
// past their buffer and report malformed input by returning false.
//
// Internal to the checkpoint component. Thread-compatible value types.

#ifndef INFLOW_CHECKPOINT_PROTO_WIRE_H_
#define INFLOW_CHECKPOINT_PROTO_WIRE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace inflow::internal {

enum class WireType : int {
  kVarint = 0,
  kFixed64 = 1,
  kLen = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// A cursor over one serialized message.
class ProtoReader {
 public:
  explicit ProtoReader(std::string_view buf) : buf_(buf) {}

  bool done() const { return pos_ == buf_.size(); }
  // Bytes consumed so far.
  size_t offset() const { return pos_; }

  // At most 10 bytes; bits beyond 64 are dropped, as libprotobuf does.
  bool ReadVarint(uint64_t* v);
  // False at a malformed tag, field number 0 or wire type 6 or 7.
  bool ReadTag(uint32_t* field, WireType* type);
  bool ReadFixed32(uint32_t* v);
  bool ReadLengthDelimited(std::string_view* out);
  // Skips the value of a field whose tag was just read; a group is skipped
  // to its matching end (nested at most 64 deep).
  bool SkipField(uint32_t field, WireType type, int depth = 0);

 private:
  std::string_view buf_;
  size_t pos_ = 0;
};

inline void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

inline void PutTag(std::string* out, uint32_t field, WireType type) {
  PutVarint(out, (uint64_t{field} << 3) | static_cast<uint64_t>(type));
}

// proto3 scalar fields: nothing is written for zero. Negative values take
// ten bytes (two's complement, not zigzag).
inline void PutVarintField(std::string* out, uint32_t field, int64_t v) {
  if (v == 0) return;
  PutTag(out, field, WireType::kVarint);
  PutVarint(out, static_cast<uint64_t>(v));
}

inline void PutFixed32Field(std::string* out, uint32_t field, uint32_t v) {
  if (v == 0) return;
  PutTag(out, field, WireType::kFixed32);
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// Written even when empty (a set sub-message).
inline void PutMessageField(std::string* out, uint32_t field,
                            std::string_view payload) {
  PutTag(out, field, WireType::kLen);
  PutVarint(out, payload.size());
  out->append(payload);
}

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_PROTO_WIRE_H_
