// Copyright 2026 The inflow Authors.
//
// Hand-built protobuf encodings for tests: every field spelled out, so a
// test can produce what no encoder we own would (unpacked lists, fields out
// of order, unknown fields, duplicates).

#ifndef INFLOW_TESTS_EXAMPLE_WIRE_BUILDER_H_
#define INFLOW_TESTS_EXAMPLE_WIRE_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace inflow::testing {

inline std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

inline std::string Tag(uint32_t field, int wire_type) {
  return Varint((static_cast<uint64_t>(field) << 3) |
                static_cast<uint64_t>(wire_type));
}

// A length-delimited field.
inline std::string Len(uint32_t field, std::string_view payload) {
  return Tag(field, 2) + Varint(payload.size()) + std::string(payload);
}

inline std::string VarintField(uint32_t field, uint64_t v) {
  return Tag(field, 0) + Varint(v);
}

inline std::string Fixed32Field(uint32_t field, float v) {
  std::string out = Tag(field, 5);
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
  return out;
}

inline std::string PackedFloats(std::initializer_list<float> values) {
  std::string payload;
  for (float v : values) {
    char b[4];
    std::memcpy(b, &v, 4);
    payload.append(b, 4);
  }
  return Len(1, payload);
}

inline std::string PackedInt64s(std::initializer_list<int64_t> values) {
  std::string payload;
  for (int64_t v : values) payload += Varint(static_cast<uint64_t>(v));
  return Len(1, payload);
}

// Feature{bytes_list|float_list|int64_list = list}.
inline std::string BytesListFeature(std::string_view list) {
  return Len(1, list);
}
inline std::string FloatListFeature(std::string_view list) {
  return Len(2, list);
}
inline std::string Int64ListFeature(std::string_view list) {
  return Len(3, list);
}

// One map<string, Feature> entry, key first.
inline std::string Entry(std::string_view key, std::string_view feature) {
  return Len(1, Len(1, key) + Len(2, feature));
}

// Example{features{entries...}}.
inline std::string ExampleOf(std::string_view entries) {
  return Len(1, entries);
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_EXAMPLE_WIRE_BUILDER_H_
