// Copyright 2026 The inflow Authors.
//
// NPY files (NumPy's array format, versions 1.0, 2.0 and 3.0;
// docs/formats.md "NPY"): the magic "\x93NUMPY", a version, the header
// length (2 bytes in 1.0, 4 in 2.0 and 3.0), a Python dict literal with
// exactly the keys 'descr', 'fortran_order' and 'shape', then the raw
// elements. Gzip-compressed files are read too (told apart by their first
// bytes, 1f 8b); .npz archives are not.
//
// Element types: descr b1 (bool), i1 i2 i4 i8, u1 u2 u4 u8, f2 f4 f8, each
// with byte order '<', '>', '|' or '=' (or none). Big-endian elements are
// converted to host order; Fortran-order arrays are transposed to the
// row-major order a Tensor has.
//
// Errors name the file and the byte offset: a file shorter than its header
// or its data is DATA_LOSS; a bad magic, an unknown version, a header that
// does not parse, an unsupported descr (structured, complex, strings,
// objects, dates), a bool byte other than 0 or 1, or bytes after the data
// are INVALID_ARGUMENT; a missing file is NOT_FOUND. Thread-safe
// (functions).

#ifndef INFLOW_DATAFILES_NPY_H_
#define INFLOW_DATAFILES_NPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

namespace inflow {

struct NpyHeader {
  int major_version = 0;  // 1, 2 or 3
  int minor_version = 0;
  DType dtype = DType::kInvalid;
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<int64_t> shape;  // empty for a 0-d array
  uint64_t data_offset = 0;    // where the elements start
};

// Reads and checks the header only.
[[nodiscard]] Result<NpyHeader> ReadNpyHeader(Env& env,
                                              const std::string& path);

// The whole array as a tensor (row-major, host byte order) that owns its
// memory (writable).
[[nodiscard]] Result<Tensor> ReadNpyFile(Env& env, const std::string& path);

}  // namespace inflow

#endif  // INFLOW_DATAFILES_NPY_H_
