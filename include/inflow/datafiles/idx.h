// Copyright 2026 The inflow Authors.
//
// IDX files (the MNIST and Fashion-MNIST format; docs/formats.md "IDX"):
// two zero bytes, a type code, the number of dimensions, each dimension as
// a big-endian uint32, then the elements in row-major order, big-endian.
// Files may be gzip-compressed as a whole (as Debian ships them); the
// reader tells that from the first two bytes (1f 8b), not from the name.
//
//   Result<Tensor> images = ReadIdxFile(Env::Default(),
//       "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
//   // uint8 [60000, 28, 28]
//
// Errors name the file and the byte offset (of the decompressed stream,
// for gzip files): a file shorter than its header or than the data the
// header promises is DATA_LOSS; a bad magic, an unknown type code, no
// dimensions, a byte count that overflows or bytes after the data are
// INVALID_ARGUMENT; a missing file is NOT_FOUND. Thread-safe (a function).

#ifndef INFLOW_DATAFILES_IDX_H_
#define INFLOW_DATAFILES_IDX_H_

#include <cstdint>
#include <optional>
#include <string>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

namespace inflow {

// The DType of an IDX type code (0x08 uint8, 0x09 int8, 0x0B int16,
// 0x0C int32, 0x0D float32, 0x0E float64); nullopt for any other.
std::optional<DType> IdxTypeToDType(uint8_t code);

// The whole file as a tensor of the file's type and dimensions, elements
// converted to host byte order. The tensor owns its memory (writable).
[[nodiscard]] Result<Tensor> ReadIdxFile(Env& env, const std::string& path);

}  // namespace inflow

#endif  // INFLOW_DATAFILES_IDX_H_
