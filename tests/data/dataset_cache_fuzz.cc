// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as the one record of a Dataset cache file
// (docs/formats.md, "Dataset cache file") read by Dataset::Cache. Each
// element is given, or the read is DATA_LOSS; never a crash, never more
// than the bytes could hold.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "inflow/data/dataset.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inflow;
  MemEnv env;
  {
    Result<std::unique_ptr<RecordWriter>> w = RecordWriter::Create(env, "/c");
    if (!w.ok()) std::abort();
    std::string_view record(reinterpret_cast<const char*>(data), size);
    if (!(*w)->WriteRecord(record).ok() || !(*w)->Close().ok()) std::abort();
  }
  Result<data::Iterator> it =
      data::Dataset::Range(3).Cache("/c", &env).MakeIterator();
  if (!it.ok()) std::abort();
  Result<Tuple> e = it->Next();
  if (e.ok()) {
    size_t bytes = 0;
    for (const Tensor& t : *e) {
      bytes += t.dtype() == DType::kString ? t.num_elements() : t.num_bytes();
    }
    if (bytes > size) std::abort();
  } else if (!IsDataLoss(e.status())) {
    std::abort();
  }
  if (!IsOutOfRange(it->Next().status())) std::abort();
  return 0;
}
