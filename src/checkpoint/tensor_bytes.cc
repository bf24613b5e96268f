// Copyright 2026 The inflow Authors.

#include "checkpoint/tensor_bytes.h"

#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "inflow/io/crc32c.h"

#include "proto/wire.h"

namespace inflow::internal {
namespace {

static_assert(std::endian::native == std::endian::little,
              "bundle data is little-endian; big-endian hosts need swapping");

// The lengths part of the checksum: each length as u32le, or u64le when it
// does not fit in 32 bits.
uint32_t ExtendLength(uint32_t crc, uint64_t len) {
  char buf[8];
  const int width = len > 0xffffffffu ? 8 : 4;
  for (int i = 0; i < width; ++i) buf[i] = static_cast<char>(len >> (8 * i));
  return crc32c::Extend(crc, buf, static_cast<size_t>(width));
}

// The lengths, then the masked length checksum; `*crc` ends covering the
// lengths and the 4 checksum bytes.
std::string StringPrefix(std::span<const std::string> strings, uint32_t* crc) {
  std::string out;
  uint32_t c = 0;
  for (const std::string& s : strings) {
    PutVarint(&out, s.size());
    c = ExtendLength(c, s.size());
  }
  const size_t at = out.size();
  PutFixed32(&out, crc32c::Mask(c));
  *crc = crc32c::Extend(c, out.data() + at, 4);
  return out;
}

}  // namespace

std::string EncodeStringTensor(const Tensor& tensor, uint32_t* crc) {
  std::span<const std::string> strings = tensor.flat<std::string>();
  std::string out = StringPrefix(strings, crc);
  for (const std::string& s : strings) {
    out.append(s);
    *crc = crc32c::Extend(*crc, s.data(), s.size());
  }
  return out;
}

Status AppendTensorBytes(const Tensor& tensor, WritableFile* file,
                         uint64_t* bytes, uint32_t* crc) {
  if (tensor.dtype() == DType::kString) {
    std::span<const std::string> strings = tensor.flat<std::string>();
    uint32_t c;
    const std::string prefix = StringPrefix(strings, &c);
    INFLOW_RETURN_IF_ERROR(file->Append(prefix));
    uint64_t total = prefix.size();
    for (const std::string& s : strings) {
      INFLOW_RETURN_IF_ERROR(file->Append(s));
      c = crc32c::Extend(c, s.data(), s.size());
      total += s.size();
    }
    *bytes = total;
    *crc = c;
    return OkStatus();
  }
  const char* data = static_cast<const char*>(tensor.raw_data());
  const size_t n = tensor.num_bytes();
  uint32_t c = 0;
  for (size_t done = 0; done < n;) {
    const size_t chunk = std::min(kTensorChunkBytes, n - done);
    c = crc32c::Extend(c, data + done, chunk);
    INFLOW_RETURN_IF_ERROR(file->Append(std::string_view(data + done, chunk)));
    done += chunk;
  }
  *bytes = n;
  *crc = c;
  return OkStatus();
}

Status ReadChecksummed(const RandomAccessFile& file, uint64_t offset, size_t n,
                       char* dst, uint32_t* crc) {
  for (size_t done = 0; done < n;) {
    const size_t chunk = std::min(kTensorChunkBytes, n - done);
    Result<size_t> got = ReadFully(file, offset + done, chunk, dst + done);
    if (!got.ok()) return got.status();
    if (*got != chunk) {
      return DataLossError(
          "truncated data: file " + file.name() + " ends at offset " +
          std::to_string(offset + done + *got) +
          " inside a tensor that spans [" + std::to_string(offset) + ", " +
          std::to_string(offset + n) + ")");
    }
    *crc = crc32c::Extend(*crc, dst + done, chunk);
    done += chunk;
  }
  return OkStatus();
}

Status DecodeStringTensor(std::string_view bytes, Tensor* out, uint32_t* crc) {
  Result<std::span<std::string>> strings = out->mutable_flat<std::string>();
  if (!strings.ok()) return strings.status();
  // Lengths first, all checked against the size, before any allocation.
  WireReader reader(bytes);
  std::vector<uint64_t> lengths;
  lengths.reserve(strings->size());
  uint32_t c = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < strings->size(); ++i) {
    uint64_t len;
    if (!reader.ReadVarint(&len)) {
      return DataLossError("malformed length of string " + std::to_string(i) +
                           " at byte " + std::to_string(reader.offset()));
    }
    if (len > bytes.size() || total + len > bytes.size()) {
      return DataLossError("string lengths exceed the tensor's " +
                           std::to_string(bytes.size()) + " stored bytes");
    }
    total += len;
    c = ExtendLength(c, len);
    lengths.push_back(len);
  }
  const size_t checksum_at = reader.offset();
  uint32_t stored;
  if (!reader.ReadFixed32(&stored)) {
    return DataLossError("string tensor data ends inside the length checksum");
  }
  if (stored != crc32c::Mask(c)) {
    return DataLossError("string lengths checksum mismatch at byte " +
                         std::to_string(checksum_at) + ": stored " +
                         std::to_string(stored) + ", computed " +
                         std::to_string(crc32c::Mask(c)));
  }
  c = crc32c::Extend(c, bytes.data() + checksum_at, 4);
  const size_t data_at = reader.offset();
  if (bytes.size() - data_at != total) {
    return DataLossError("string tensor size " + std::to_string(bytes.size()) +
                         " does not match its lengths (" +
                         std::to_string(data_at) + " bytes of lengths and " +
                         std::to_string(total) + " bytes of strings)");
  }
  c = crc32c::Extend(c, bytes.data() + data_at, static_cast<size_t>(total));
  size_t at = data_at;
  for (size_t i = 0; i < lengths.size(); ++i) {
    (*strings)[i].assign(bytes.data() + at, static_cast<size_t>(lengths[i]));
    at += static_cast<size_t>(lengths[i]);
  }
  *crc = c;
  return OkStatus();
}

}  // namespace inflow::internal
