// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/idx.h"

#include <cstdio>
#include <limits>
#include <vector>

#include "datafiles/array_file.h"
#include "datafiles/byte_order.h"

namespace inflow {

std::optional<DType> IdxTypeToDType(uint8_t code) {
  switch (code) {
    case 0x08:
      return DType::kUInt8;
    case 0x09:
      return DType::kInt8;
    case 0x0B:
      return DType::kInt16;
    case 0x0C:
      return DType::kInt32;
    case 0x0D:
      return DType::kFloat32;
    case 0x0E:
      return DType::kFloat64;
    default:
      return std::nullopt;
  }
}

namespace {

std::string Hex(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "0x%02x", b);
  return buf;
}

std::string DimsString(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t d : dims) {
    if (!s.empty()) s.push_back('x');
    s.append(std::to_string(d));
  }
  return s;
}

}  // namespace

Result<Tensor> ReadIdxFile(Env& env, const std::string& path) {
  using internal::ArrayFileStream;
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<ArrayFileStream> in,
                          ArrayFileStream::Open(env, path));
  uint8_t magic[4];
  INFLOW_RETURN_IF_ERROR(
      in->ReadExactly(reinterpret_cast<char*>(magic), 4, "IDX header (magic)"));
  if (magic[0] != 0 || magic[1] != 0) {
    return in->Malformed(0, "not an IDX file: the magic starts " +
                                Hex(magic[0]) + " " + Hex(magic[1]) +
                                ", expected 0x00 0x00");
  }
  const std::optional<DType> dtype = IdxTypeToDType(magic[2]);
  if (!dtype) {
    return in->Malformed(2, "unknown IDX type code " + Hex(magic[2]) +
                                " (known: 0x08, 0x09, 0x0b, 0x0c, 0x0d, 0x0e)");
  }
  const int rank = magic[3];
  if (rank == 0) return in->Malformed(3, "IDX file with no dimensions");
  std::vector<uint8_t> raw(4 * static_cast<size_t>(rank));
  INFLOW_RETURN_IF_ERROR(in->ReadExactly(reinterpret_cast<char*>(raw.data()),
                                         raw.size(),
                                         "IDX header (dimensions)"));
  std::vector<int64_t> dims(rank);
  const uint64_t element_size = DTypeSize(*dtype);
  uint64_t bytes = element_size;
  for (int i = 0; i < rank; ++i) {
    const uint8_t* p = &raw[4 * i];
    const uint64_t d = (uint64_t{p[0]} << 24) | (uint64_t{p[1]} << 16) |
                       (uint64_t{p[2]} << 8) | uint64_t{p[3]};
    dims[i] = static_cast<int64_t>(d);
    // Every dimension is below 2^32, so the product overflows only if it
    // exceeds 2^63 / 2^32 before the multiplication.
    if (d != 0 && bytes > (uint64_t{std::numeric_limits<int64_t>::max()} / d)) {
      return in->Malformed(4 + 4 * static_cast<uint64_t>(i),
                           "IDX dimensions overflow 2^63 bytes");
    }
    bytes *= d;
  }
  const std::string what = "IDX data (" + std::string(DTypeName(*dtype)) + " " +
                           DimsString(dims) + ")";
  INFLOW_ASSIGN_OR_RETURN(std::string data, in->ReadRest(bytes, what));
  internal::SwapElementBytes(data, element_size);
  return ArrayFileStream::TensorOver(*dtype, TensorShape(std::move(dims)),
                                     std::move(data));
}

}  // namespace inflow
