// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a record index file (docs/formats.md
// "Record index"). Parse must fail with a status or give an index that is
// consistent with itself (records tiling the file it describes) and that
// serializes back to the same bytes.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "inflow/io/record_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inflow;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
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
