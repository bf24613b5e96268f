// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a pipeline definition (docs/custom_ops.md,
// "Pipeline definitions"). Parsing is OK or INVALID_ARGUMENT; what parses
// writes back to JSON that parses to the same JSON again. A definition of
// in-memory steps only (no files, no cache, no op libraries) is also built
// and its first elements read, without a crash.

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "inflow/pipedef/pipeline_def.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace inflow::pipedef;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  inflow::Result<PipelineDef> def = ParsePipelineDef(text, "fuzz.json");
  if (!def.ok()) {
    if (!inflow::IsInvalidArgument(def.status())) std::abort();
    return 0;
  }
  const std::string json = ToJson(*def);
  inflow::Result<PipelineDef> again = ParsePipelineDef(json, "fuzz.json");
  if (!again.ok() || ToJson(*again) != json) std::abort();

  static const std::set<std::string, std::less<>> kInMemory = {
      "range",     "batch",   "take",    "skip",    "shard",
      "enumerate", "unbatch", "shuffle", "prefetch"};
  if (def->kind != DefKind::kDataset || !def->op_libraries.empty()) return 0;
  for (const Step& step : def->steps) {
    if (!kInMemory.contains(step.op)) return 0;
  }
  inflow::Result<inflow::data::Dataset> ds = BuildDataset(*def);
  if (!ds.ok()) return 0;
  inflow::Result<inflow::data::Iterator> it = ds->MakeIterator();
  if (!it.ok()) return 0;
  for (int i = 0; i < 64; ++i) {
    if (!it->Next().ok()) break;
  }
  return 0;
}
