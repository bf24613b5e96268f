// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes through the Example and SequenceExample
// views and parsers. Anything may be rejected; nothing may crash, and what
// parses must survive a decode / encode / decode round trip unchanged.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "inflow/example/example.h"
#include "inflow/example/example_parser.h"
#include "inflow/example/feature_view.h"

namespace {

using inflow::DType;
using inflow::FixedLenFeature;
using inflow::FixedLenSequenceFeature;
using inflow::VarLenFeature;

const inflow::ExampleParser& Parser() {
  static const auto* kParser = new inflow::ExampleParser(
      inflow::ExampleParser::Create(
          {{"a", FixedLenFeature{{2},
                                 DType::kInt64,
                                 inflow::Tensor::FromVector(
                                     std::vector<int64_t>{0, 0})}},
           {"b", VarLenFeature{DType::kFloat32}},
           {"c", VarLenFeature{DType::kString}},
           {"d", FixedLenSequenceFeature{{}, DType::kFloat32, true}},
           {"", VarLenFeature{DType::kInt64}}})
          .value());
  return *kParser;
}

const inflow::SequenceExampleParser& SeqParser() {
  static const auto* kParser = new inflow::SequenceExampleParser(
      inflow::SequenceExampleParser::Create(
          {{"a", VarLenFeature{DType::kInt64}}},
          {{"s", FixedLenSequenceFeature{{}, DType::kString, true}},
           {"t", VarLenFeature{DType::kFloat32}}})
          .value());
  return *kParser;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  inflow::Result<inflow::Example> ex = inflow::Example::Parse(bytes);
  if (ex.ok()) {
    inflow::Result<inflow::Example> again =
        inflow::Example::Parse(ex->Serialize());
    if (!again.ok() || !(*again == *ex)) std::abort();
  }
  Parser().ParseSingle(bytes).IgnoreError();
  const std::string_view batch[] = {bytes, bytes.substr(size / 2)};
  Parser().ParseBatch(batch).IgnoreError();
  inflow::Result<inflow::SequenceExample> se =
      inflow::SequenceExample::Parse(bytes);
  if (se.ok()) {
    inflow::Result<inflow::SequenceExample> again =
        inflow::SequenceExample::Parse(se->Serialize());
    if (!again.ok() || !(*again == *se)) std::abort();
  }
  SeqParser().ParseSingle(bytes).IgnoreError();
  return 0;
}
