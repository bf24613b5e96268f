// Copyright 2026 The inflow Authors.
//
// How a tensor's value is laid out in a bundle's data file
// (docs/formats.md, "The data file"), and its CRC:
//
//   numeric  the elements' raw little-endian bytes, row-major; the CRC is
//            over exactly those bytes (an empty tensor: CRC of nothing).
//   string   [varint64 len_i]... [u32le masked length checksum] [bytes_i]...
//            The length checksum is CRC-32C over each length as u32le (u64le
//            when it exceeds 0xffffffff), not over the varints; the entry's
//            CRC continues it over the 4 stored checksum bytes and then the
//            string bytes.
//
// Large numeric tensors move in chunks of kTensorChunkBytes, each CRC'd
// while it is in cache, rather than in one pass per step.
//
// Internal to the checkpoint component.

#ifndef INFLOW_CHECKPOINT_TENSOR_BYTES_H_
#define INFLOW_CHECKPOINT_TENSOR_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

namespace inflow::internal {

inline constexpr size_t kTensorChunkBytes = size_t{1} << 20;

// Appends `tensor`'s stored form to `file`; sets `*bytes` to its size and
// `*crc` to its (unmasked) CRC-32C. Errors are the file's.
Status AppendTensorBytes(const Tensor& tensor, WritableFile* file,
                         uint64_t* bytes, uint32_t* crc);

// The stored form of a string tensor, and its unmasked CRC (for tests and
// small tensors).
std::string EncodeStringTensor(const Tensor& tensor, uint32_t* crc);

// Reads `n` bytes at `offset` of `file` into `dst`, extending `*crc` over
// them. DATA_LOSS naming the file and offset when the file ends first.
Status ReadChecksummed(const RandomAccessFile& file, uint64_t offset, size_t n,
                       char* dst, uint32_t* crc);

// Decodes the stored form of `out->num_elements()` strings into `*out`,
// whose elements are overwritten (the buffer is not reallocated). Sets
// `*crc` to the entry CRC it computed. DATA_LOSS for malformed lengths, a
// length checksum mismatch, or a size that does not match the lengths;
// messages are relative to the start of `bytes`.
Status DecodeStringTensor(std::string_view bytes, Tensor* out, uint32_t* crc);

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_TENSOR_BYTES_H_
