// Copyright 2026 The inflow Authors.
//
// Internal: byte swapping of array elements in place, for big-endian file
// formats (IDX always, NPY when its descr says '>'). Hosts are
// little-endian (checked where the wire format is read).

#ifndef INFLOW_DATAFILES_BYTE_ORDER_H_
#define INFLOW_DATAFILES_BYTE_ORDER_H_

#include <algorithm>
#include <cstddef>
#include <string>

namespace inflow::internal {

// Reverses the bytes of every `element_size`-byte element of `bytes`.
inline void SwapElementBytes(std::string& bytes, size_t element_size) {
  if (element_size <= 1) return;
  char* p = bytes.data();
  char* const end = p + bytes.size() / element_size * element_size;
  for (; p != end; p += element_size) std::reverse(p, p + element_size);
}

}  // namespace inflow::internal

#endif  // INFLOW_DATAFILES_BYTE_ORDER_H_
