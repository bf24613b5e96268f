// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a chunk of records through the
// Pipeline's raw_to_float parse (input/raw_to_float.h), with the other
// features read from the record's view (numeric ones) or by the parser (a
// string among them). Whatever the fast path accepts must be exactly what
// the general path (ExampleParser::ParseBatch, then Convert) gives; the
// queue's form (Prepare, then Write into rows) must write the rows the
// general path gives as bytes (ToBytes), which Decode turns into the same
// floats. Input: records of at most 255 bytes, each one length byte
// followed by its bytes.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/example/example_parser.h"
#include "inflow/input/pipeline.h"
#include "inflow/input/record_batch.h"

#include "input/raw_to_float.h"

namespace {

using inflow::DType;
using inflow::FixedLenFeature;
using inflow::PipelineOptions;
using inflow::Tensor;
using inflow::Tuple;
using inflow::internal::RawToFloat;

void Check(bool ok) {
  if (!ok) std::abort();
}

PipelineOptions Options(bool with_string) {
  PipelineOptions o;
  o.features = {{"img", FixedLenFeature({}, DType::kString)},
                {"id", FixedLenFeature({}, DType::kInt64)},
                {"xy", FixedLenFeature({2}, DType::kFloat32)}};
  if (with_string) {
    o.features.push_back({"name", FixedLenFeature({}, DType::kString)});
  }
  o.raw_to_float = {{.feature = "img", .length = 4, .scale = 0.5f}};
  return o;
}

void Run(const inflow::RecordBatch& records, bool with_string) {
  const PipelineOptions options = Options(with_string);
  const std::optional<RawToFloat> raw = RawToFloat::Create(options).value();
  const inflow::ExampleParser parser =
      inflow::ExampleParser::Create(options.features).value();
  RawToFloat::Scratch scratch;
  const std::optional<Tuple> fast = raw->TryParse(records, &scratch);
  if (!fast.has_value()) return;
  inflow::Result<inflow::ParsedFeatures> general =
      parser.ParseBatch(records.values());
  Check(general.ok());
  Tuple rows = std::move(general->dense);
  Check(raw->Convert(records, &rows).ok());
  Check(rows.size() == fast->size());
  for (size_t c = 0; c < rows.size(); ++c) Check(rows[c] == (*fast)[c]);
  if (with_string) return;  // in place needs numeric components

  // The queue's form: Prepare + Write must write the rows the general
  // path gives as bytes (ParseBatch + ToBytes), and Decode must turn those
  // into the float rows.
  inflow::Result<inflow::ParsedFeatures> parsed =
      parser.ParseBatch(records.values());
  Check(parsed.ok());
  Tuple bytes = std::move(parsed->dense);
  Check(raw->ToBytes(records, &bytes).ok());
  Check(raw->Prepare(records, &scratch));
  const size_t n = records.size();
  std::vector<std::vector<char>> storage(bytes.size() * n);
  std::vector<char*> to(bytes.size() * n);
  for (size_t c = 0; c < bytes.size(); ++c) {
    const size_t row_bytes = bytes[c].num_bytes() / n;
    for (size_t r = 0; r < n; ++r) {
      storage[c * n + r].assign(row_bytes + 1, '\xee');
      to[c * n + r] = storage[c * n + r].data();
    }
  }
  raw->Write(scratch, to);
  for (size_t c = 0; c < bytes.size(); ++c) {
    const size_t row_bytes = bytes[c].num_bytes() / n;
    const char* want = static_cast<const char*>(bytes[c].raw_data());
    for (size_t r = 0; r < n; ++r) {
      Check(std::memcmp(to[c * n + r], want + r * row_bytes, row_bytes) == 0);
      Check(storage[c * n + r][row_bytes] == '\xee');  // nothing past it
    }
  }
  inflow::internal::BatchPool pool(1 << 20);
  raw->Decode(&bytes, &pool);
  for (size_t c = 0; c < rows.size(); ++c) Check(bytes[c] == rows[c]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  inflow::RecordBatch records;
  size_t pos = 0;
  while (pos < input.size() && records.size() < 16) {
    const size_t len = static_cast<uint8_t>(input[pos++]);
    const std::string_view value = input.substr(pos, len);
    records.AppendAt("fuzz", pos, value);
    pos += value.size();
  }
  records.Seal();
  if (records.empty()) return 0;  // a Pipeline never parses an empty chunk
  Run(records, /*with_string=*/false);
  Run(records, /*with_string=*/true);
  return 0;
}
