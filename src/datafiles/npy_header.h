// Copyright 2026 The inflow Authors.
//
// Internal: the parser for the Python dict literal of an NPY header, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (60000, 28, 28), }
// A strict subset of Python: single- or double-quoted strings without
// escapes, True / False, tuples of non-negative integers (an optional 'L'
// suffix, as Python 2 wrote them); exactly the three keys NumPy requires;
// trailing spaces and one newline after the closing brace.

#ifndef INFLOW_DATAFILES_NPY_HEADER_H_
#define INFLOW_DATAFILES_NPY_HEADER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/dtype.h"

namespace inflow::internal {

struct NpyDict {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

struct NpyDictError {
  size_t position;  // character of the header where parsing failed
  std::string message;
};

// Parses `text` into `*dict`; on failure returns where and why.
std::optional<NpyDictError> ParseNpyDict(std::string_view text, NpyDict* dict);

struct NpyDescr {
  DType dtype;
  size_t item_size;
  bool big_endian;
};

// '<f4' and friends; nullopt for anything inflow does not read.
std::optional<NpyDescr> ParseNpyDescr(std::string_view descr);

}  // namespace inflow::internal

#endif  // INFLOW_DATAFILES_NPY_HEADER_H_
