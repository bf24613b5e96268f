// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes through the Example and SequenceExample
// views and parsers. Anything may be rejected; nothing may crash, and what
// parses must survive a decode / encode / decode round trip unchanged. A
// well-formed record must parse to the same tensors (or error) with an
// unknown field appended, which sends it down the general path instead of
// the fast one.

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

// Fixed-length features of every kind without defaults, which the fast
// path writes straight into its outputs.
const inflow::ExampleParser& FixedParser() {
  static const auto* kParser = new inflow::ExampleParser(
      inflow::ExampleParser::Create(
          {{"a", FixedLenFeature{{2}, DType::kInt64}},
           {"b", FixedLenFeature{{1}, DType::kFloat32}},
           {"c", FixedLenFeature{{}, DType::kString}},
           {"e", VarLenFeature{DType::kInt64}}})
          .value());
  return *kParser;
}

bool SameOutputs(const inflow::Result<inflow::ParsedFeatures>& x,
                 const inflow::Result<inflow::ParsedFeatures>& y) {
  if (x.ok() != y.ok()) return false;
  if (!x.ok()) return x.status() == y.status();
  if (x->dense.size() != y->dense.size()) return false;
  for (size_t i = 0; i < x->dense.size(); ++i) {
    if (!(x->dense[i] == y->dense[i])) return false;
  }
  for (size_t i = 0; i < x->sparse.size(); ++i) {
    if (!(x->sparse[i].indices == y->sparse[i].indices) ||
        !(x->sparse[i].values == y->sparse[i].values) ||
        !(x->sparse[i].dense_shape == y->sparse[i].dense_shape)) {
      return false;
    }
  }
  return true;
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
  inflow::ExampleView view;
  if (view.Parse(bytes).ok()) {
    // Field 2 (unknown), varint 1.
    const std::string general = std::string(bytes) + "\x10\x01";
    for (const inflow::ExampleParser* p : {&Parser(), &FixedParser()}) {
      if (!SameOutputs(p->ParseSingle(bytes), p->ParseSingle(general))) {
        std::abort();
      }
      const std::string_view fast_batch[] = {bytes, bytes};
      const std::string_view general_batch[] = {general, bytes};
      if (!SameOutputs(p->ParseBatch(fast_batch),
                       p->ParseBatch(general_batch))) {
        std::abort();
      }
    }
  } else if (Parser().ParseSingle(bytes).ok()) {
    std::abort();  // the view and the parser disagree on malformed input
  }
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
