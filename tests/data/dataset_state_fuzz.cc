// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a Dataset iterator state (docs/formats.md
// "Dataset iterator state") restored into a pipeline with every kind of
// stage. The first input byte is a mode: when odd, the last four bytes of
// the rest are replaced by the checksum they should hold, so that the
// fuzzer reaches the parser behind it. Restore must be OK or
// INVALID_ARGUMENT; after either, the iterator gives elements (or errors)
// and ends, without a crash.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "inflow/data/dataset.h"
#include "inflow/io/crc32c.h"

namespace {

inflow::data::Dataset Pipeline() {
  using inflow::data::Dataset;
  auto add_one = [](inflow::Tuple e) -> inflow::Result<inflow::Tuple> {
    return inflow::Tuple{
        inflow::Tensor::Scalar<int64_t>(e[0].flat<int64_t>()[0] + 1)};
  };
  auto odd = [](const inflow::Tuple& e) -> inflow::Result<bool> {
    return e[0].flat<int64_t>()[0] % 2 == 1;
  };
  return Dataset::Range(200)
      .Shard(2, 0)
      .Map(add_one, {.num_parallel_calls = 3})
      .Filter(odd)
      .Shuffle(8, 1)
      .Concatenate(Dataset::Range(5).Skip(1).Take(3))
      .Repeat(2)
      .Batch(3)
      .Prefetch(2)
      .Enumerate();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inflow;
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) != 0 && bytes.size() >= 4) {
    const size_t body = bytes.size() - 4;
    const uint32_t crc = crc32c::Mask(crc32c::Value(bytes.data(), body));
    for (int i = 0; i < 4; ++i) {
      bytes[body + i] = static_cast<char>(crc >> (8 * i));
    }
  }
  static const data::Dataset pipeline = Pipeline();
  Result<data::Iterator> it = pipeline.MakeIterator();
  if (!it.ok()) std::abort();
  Status s = it->Restore(bytes);
  if (!s.ok() && !IsInvalidArgument(s)) std::abort();
  for (int k = 0; k < 1000; ++k) {
    Result<Tuple> e = it->Next();
    if (IsOutOfRange(e.status())) return 0;
  }
  std::abort();  // the pipeline has fewer than 1000 batches
}
