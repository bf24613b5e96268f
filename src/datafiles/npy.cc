// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/npy.h"

#include <cstring>
#include <limits>

#include "datafiles/array_file.h"
#include "datafiles/byte_order.h"
#include "datafiles/npy_header.h"

namespace inflow {
namespace {

using internal::ArrayFileStream;

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// NumPy itself refuses headers over 10000 bytes unless told otherwise;
// this bound only keeps a corrupt length from allocating gigabytes.
constexpr uint32_t kMaxHeaderLength = 1 << 20;

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

Result<NpyHeader> ReadHeader(ArrayFileStream& in) {
  char prefix[kMagicSize + 2];
  INFLOW_RETURN_IF_ERROR(
      in.ReadExactly(prefix, sizeof(prefix), "NPY header (magic, version)"));
  if (std::memcmp(prefix, kMagic, kMagicSize) != 0) {
    return in.Malformed(0, "not an NPY file: the magic is not \\x93NUMPY");
  }
  NpyHeader header;
  header.major_version = static_cast<uint8_t>(prefix[6]);
  header.minor_version = static_cast<uint8_t>(prefix[7]);
  if (header.major_version < 1 || header.major_version > 3 ||
      header.minor_version != 0) {
    return in.Malformed(6, "unsupported NPY version " +
                               std::to_string(header.major_version) + "." +
                               std::to_string(header.minor_version) +
                               " (known: 1.0, 2.0, 3.0)");
  }
  const size_t length_size = header.major_version == 1 ? 2 : 4;
  uint8_t len[4] = {0, 0, 0, 0};
  INFLOW_RETURN_IF_ERROR(in.ReadExactly(
      reinterpret_cast<char*>(len), length_size, "NPY header (header length)"));
  const uint32_t header_length = uint32_t{len[0]} | (uint32_t{len[1]} << 8) |
                                 (uint32_t{len[2]} << 16) |
                                 (uint32_t{len[3]} << 24);
  if (header_length > kMaxHeaderLength) {
    return in.Malformed(8, "NPY header length " +
                               std::to_string(header_length) + " exceeds " +
                               std::to_string(kMaxHeaderLength));
  }
  const uint64_t dict_offset = in.offset();
  std::string text(header_length, '\0');
  INFLOW_RETURN_IF_ERROR(
      in.ReadExactly(text.data(), text.size(), "NPY header (dict)"));
  internal::NpyDict dict;
  if (auto error = internal::ParseNpyDict(text, &dict)) {
    return in.Malformed(dict_offset + error->position,
                        "bad NPY header: " + error->message);
  }
  const std::optional<internal::NpyDescr> descr =
      internal::ParseNpyDescr(dict.descr);
  if (!descr) {
    return in.Malformed(dict_offset, "unsupported NPY descr '" + dict.descr +
                                         "' (supported: b1, i1..i8, u1..u8, "
                                         "f2, f4, f8)");
  }
  header.dtype = descr->dtype;
  header.big_endian = descr->big_endian;
  header.fortran_order = dict.fortran_order;
  header.shape = std::move(dict.shape);
  header.data_offset = in.offset();
  return header;
}

// Row-major copy of an array stored column-major (Fortran order).
std::string FromFortranOrder(const std::string& src,
                             const std::vector<int64_t>& shape, size_t item) {
  const size_t rank = shape.size();
  if (rank < 2 || src.empty()) return src;
  std::string dst(src.size(), '\0');
  std::vector<uint64_t> stride(rank);  // in src, in elements
  uint64_t s = 1;
  for (size_t j = 0; j < rank; ++j) {
    stride[j] = s;
    s *= static_cast<uint64_t>(shape[j]);
  }
  std::vector<int64_t> index(rank, 0);
  uint64_t from = 0;
  const size_t count = src.size() / item;
  for (size_t n = 0; n < count; ++n) {
    std::memcpy(&dst[n * item], &src[from * item], item);
    // Advance the row-major odometer (last index fastest).
    for (size_t j = rank; j-- > 0;) {
      from += stride[j];
      if (++index[j] < shape[j]) break;
      from -= stride[j] * static_cast<uint64_t>(shape[j]);
      index[j] = 0;
    }
  }
  return dst;
}

}  // namespace

Result<NpyHeader> ReadNpyHeader(Env& env, const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<ArrayFileStream> in,
                          ArrayFileStream::Open(env, path));
  return ReadHeader(*in);
}

Result<Tensor> ReadNpyFile(Env& env, const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<ArrayFileStream> in,
                          ArrayFileStream::Open(env, path));
  INFLOW_ASSIGN_OR_RETURN(NpyHeader header, ReadHeader(*in));
  const size_t item = DTypeSize(header.dtype);
  uint64_t bytes = item;
  for (int64_t d : header.shape) {
    const uint64_t u = static_cast<uint64_t>(d);
    if (u != 0 && bytes > uint64_t{std::numeric_limits<int64_t>::max()} / u) {
      return in->Malformed(
          header.data_offset,
          "NPY shape " + ShapeString(header.shape) + " overflows 2^63 bytes");
    }
    bytes *= u;
  }
  const std::string what = "NPY data (" + std::string(DTypeName(header.dtype)) +
                           " " + ShapeString(header.shape) + ")";
  INFLOW_ASSIGN_OR_RETURN(std::string data, in->ReadRest(bytes, what));
  if (header.big_endian) internal::SwapElementBytes(data, item);
  if (header.dtype == DType::kBool) {
    for (size_t i = 0; i < data.size(); ++i) {
      if (static_cast<uint8_t>(data[i]) > 1) {
        return in->Malformed(header.data_offset + i,
                             "bool element is neither 0 nor 1");
      }
    }
  }
  if (header.fortran_order) {
    data = FromFortranOrder(data, header.shape, item);
  }
  return ArrayFileStream::TensorOver(
      header.dtype, TensorShape(std::move(header.shape)), std::move(data));
}

}  // namespace inflow
