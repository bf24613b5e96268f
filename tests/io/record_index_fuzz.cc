// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a record index file (docs/formats.md
// "Record index"). The first input byte is a mode: when odd, the last four
// bytes of the rest are replaced by the checksum they should hold, so that
// the fuzzer reaches the checks behind it; the rest is the file. Parse must
// fail with DATA_LOSS or FAILED_PRECONDITION, or give an index that is
// consistent with itself (records tiling the file it describes) and that
// serializes back to the same bytes.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "inflow/io/crc32c.h"
#include "inflow/io/record_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inflow;
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) != 0 && bytes.size() >= 4) {
    const size_t body = bytes.size() - 4;
    const uint32_t crc = crc32c::Mask(crc32c::Value(bytes.data(), body));
    for (int i = 0; i < 4; ++i)
      bytes[body + i] = static_cast<char>(crc >> (8 * i));
  }
  Result<RecordIndex> index = RecordIndex::Parse(bytes, "fuzz.index");
  if (!index.ok()) {
    if (!IsDataLoss(index.status()) && !IsFailedPrecondition(index.status())) {
      std::abort();
    }
    return 0;
  }
  if (index->Serialize() != bytes) std::abort();
  uint64_t end = 0;
  for (int64_t i = 0; i < index->size(); ++i) {
    if (index->offset(i) != end) std::abort();
    end += index->length(i) + 16;
    if (end > index->file_size()) std::abort();
  }
  if (end != index->file_size()) std::abort();
  if (index->FramedBytes(0, index->size()) != index->file_size()) std::abort();
  return 0;
}
