// Copyright 2026 The inflow Authors.
//
// Builders of IDX and NPY file bytes, and gzip, for the dataset file tests.

#ifndef INFLOW_TESTS_TRAIN_DATASET_BYTES_H_
#define INFLOW_TESTS_TRAIN_DATASET_BYTES_H_

#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace inflow::testing {

// An IDX file: magic 00 00 TYPE RANK, big-endian dims, then `payload`
// (already big-endian).
inline std::string IdxBytes(uint8_t type, const std::vector<uint32_t>& dims,
                            const std::string& payload) {
  std::string out = {0, 0, static_cast<char>(type),
                     static_cast<char>(dims.size())};
  for (uint32_t d : dims) {
    out.push_back(static_cast<char>(d >> 24));
    out.push_back(static_cast<char>(d >> 16));
    out.push_back(static_cast<char>(d >> 8));
    out.push_back(static_cast<char>(d));
  }
  return out + payload;
}

// An NPY file of version `major`.0 with header dict `dict` (padded with
// spaces and a newline to a multiple of 64 bytes, as NumPy writes it).
inline std::string NpyBytes(int major, std::string dict,
                            const std::string& payload) {
  const size_t prefix = major == 1 ? 10 : 12;
  const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const uint32_t len = static_cast<uint32_t>(dict.size());
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>((len >> 8) & 0xff));
  if (major != 1) {
    out.push_back(static_cast<char>((len >> 16) & 0xff));
    out.push_back(static_cast<char>(len >> 24));
  }
  return out + dict + payload;
}

// `data` as one gzip member.
inline std::string Gzip(const std::string& data) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END)
    throw std::runtime_error("deflate");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_TRAIN_DATASET_BYTES_H_
