// Copyright 2026 The inflow Authors.

#include "checkpoint/proto_wire.h"

#include <cstring>

namespace inflow::internal {

bool ProtoReader::ReadVarint(uint64_t* v) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ == buf_.size()) return false;
    const uint8_t byte = static_cast<uint8_t>(buf_[pos_++]);
    result |= uint64_t{byte & 0x7fu} << (7 * i);
    if (byte < 0x80) {
      *v = result;
      return true;
    }
  }
  return false;  // an eleventh byte would follow
}

bool ProtoReader::ReadTag(uint32_t* field, WireType* type) {
  uint64_t tag;
  if (!ReadVarint(&tag) || tag > 0xffffffffu) return false;
  *field = static_cast<uint32_t>(tag >> 3);
  const int wire = static_cast<int>(tag & 7);
  *type = static_cast<WireType>(wire);
  return *field != 0 && wire <= static_cast<int>(WireType::kFixed32);
}

bool ProtoReader::ReadFixed32(uint32_t* v) {
  if (buf_.size() - pos_ < 4) return false;
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    value |= uint32_t{static_cast<uint8_t>(buf_[pos_ + i])} << (8 * i);
  }
  pos_ += 4;
  *v = value;
  return true;
}

bool ProtoReader::ReadLengthDelimited(std::string_view* out) {
  uint64_t len;
  if (!ReadVarint(&len) || len > buf_.size() - pos_) return false;
  *out = buf_.substr(pos_, static_cast<size_t>(len));
  pos_ += static_cast<size_t>(len);
  return true;
}

bool ProtoReader::SkipField(uint32_t field, WireType type, int depth) {
  switch (type) {
    case WireType::kVarint: {
      uint64_t v;
      return ReadVarint(&v);
    }
    case WireType::kFixed64:
      if (buf_.size() - pos_ < 8) return false;
      pos_ += 8;
      return true;
    case WireType::kLen: {
      std::string_view v;
      return ReadLengthDelimited(&v);
    }
    case WireType::kFixed32: {
      uint32_t v;
      return ReadFixed32(&v);
    }
    case WireType::kStartGroup: {
      if (depth >= 64) return false;
      while (true) {
        uint32_t inner;
        WireType inner_type;
        if (!ReadTag(&inner, &inner_type)) return false;
        if (inner_type == WireType::kEndGroup) return inner == field;
        if (!SkipField(inner, inner_type, depth + 1)) return false;
      }
    }
    case WireType::kEndGroup:
      return false;  // an end without a start
  }
  return false;
}

}  // namespace inflow::internal
