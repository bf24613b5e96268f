// Copyright 2026 The inflow Authors.
//
// `inflow run-pipeline FILE.json [--bench] [--max-batches N]`: builds a
// pipeline definition (docs/custom_ops.md, "Pipeline definitions"), runs it
// to its end, and reports what each stage did.
//
//   without --bench: one JSON line per output element, {"batch": i,
//       "components": [{"dtype": "float32", "shape": [32, 784]}, ...]},
//       then the summary line;
//   with --bench: the summary line alone.
//
// The summary: {"pipeline": FILE, "kind": "dataset" | "pipeline",
// "batches": N, "rows": R (the first component's first dimension, summed),
// "seconds": wall time, "batches_per_second", "rows_per_second",
// "stages": [...]}. A Dataset's stages are Iterator::Stats()'s (each
// stage's elements, elements per second, its own seconds, busy fraction,
// threads, buffer) with its "bottleneck"; a Pipeline's are its queues'
// metrics (input/queue_metrics.h: elements enqueued and dequeued, per
// second, and the time each side waited). Errors, a bad definition's
// included, go to stderr as the Status (exit 1).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "inflow/core/metrics.h"
#include "inflow/core/status.h"
#include "inflow/data/dataset.h"
#include "inflow/pipedef/pipeline_def.h"

#include "command.h"

namespace inflow::tools {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;  // fields in the order written

struct Counts {
  int64_t batches = 0;
  int64_t rows = 0;
};

Json Describe(const Tuple& element, int64_t index) {
  Json components = Json::array();
  for (const Tensor& t : element) {
    components.push_back(
        {{"dtype", DTypeName(t.dtype())}, {"shape", t.shape().dims()}});
  }
  return {{"batch", index}, {"components", components}};
}

// One element: counted, and printed unless benchmarking.
void Take(const Tuple& element, bool bench, Counts& counts) {
  if (!bench)
    std::printf("%s\n", Describe(element, counts.batches).dump().c_str());
  ++counts.batches;
  if (!element.empty()) {
    counts.rows += element[0].rank() > 0 ? element[0].dim_size(0) : 1;
  }
}

double PerSecond(double n, double seconds) {
  return seconds > 0 ? n / seconds : 0.0;
}

Result<Json> RunDataset(const pipedef::PipelineDef& def, bool bench,
                        int64_t max_batches, Counts& counts) {
  INFLOW_ASSIGN_OR_RETURN(data::Dataset ds, pipedef::BuildDataset(def));
  INFLOW_ASSIGN_OR_RETURN(data::Iterator it, ds.MakeIterator());
  while (max_batches < 0 || counts.batches < max_batches) {
    Result<Tuple> element = it.Next();
    if (IsOutOfRange(element.status())) break;
    if (!element.ok()) return element.status();
    Take(*element, bench, counts);
  }
  const data::IteratorStats stats = it.Stats();
  Json stages = Json::array();
  for (const data::StageStats& s : stats.stages) {
    stages.push_back(
        {{"stage", s.stage},
         {"elements", s.elements},
         {"elements_per_second",
          PerSecond(static_cast<double>(s.elements), stats.wall_seconds)},
         {"seconds", s.seconds},
         {"busy", s.busy},
         {"threads", s.threads},
         {"buffer_size", s.buffer_size},
         {"buffer_fill", s.buffer_fill}});
  }
  return Json{{"stages", stages}, {"bottleneck", stats.bottleneck}};
}

Result<Json> RunPipeline(const pipedef::PipelineDef& def, bool bench,
                         int64_t max_batches, Counts& counts, double& seconds) {
  // A registry of its own: the stages' gauges are this pipeline's alone.
  MetricsRegistry registry;
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<Pipeline> pipeline,
                          pipedef::BuildPipeline(def, {.metrics = &registry}));
  const Clock::time_point start = Clock::now();
  Status status = OkStatus();
  while (max_batches < 0 || counts.batches < max_batches) {
    Result<Tuple> batch = pipeline->Next();
    if (IsOutOfRange(batch.status())) break;
    if (!batch.ok()) {
      status = batch.status();
      break;
    }
    Take(*batch, bench, counts);
  }
  seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Read before Close(), which takes the queues' gauges away.
  std::map<std::string, Json> by_stage;
  for (const MetricSample& m : registry.Snapshot()) {
    const size_t slash = m.tag.rfind('/');
    if (slash == std::string::npos) continue;
    const std::string stage = m.tag.substr(0, slash);
    const std::string name = m.tag.substr(slash + 1);
    if (name == "enqueued" || name == "dequeued" ||
        name == "enqueue_blocked_seconds" ||
        name == "dequeue_blocked_seconds" || name == "size") {
      by_stage[stage][name] = m.value;
    }
  }
  Status closed = pipeline->Close();
  INFLOW_RETURN_IF_ERROR(status);
  INFLOW_RETURN_IF_ERROR(closed);
  Json stages = Json::array();
  for (auto& [stage, values] : by_stage) {
    if (!values.contains("enqueued")) continue;
    values["stage"] = stage;
    values["enqueued_per_second"] =
        PerSecond(values["enqueued"].get<double>(), seconds);
    values["dequeued_per_second"] =
        PerSecond(values.value("dequeued", 0.0), seconds);
    stages.push_back(values);
  }
  return Json{{"stages", stages}};
}

Status RunPipelineCommand(const std::string& path, bool bench,
                          int64_t max_batches) {
  INFLOW_ASSIGN_OR_RETURN(pipedef::PipelineDef def,
                          pipedef::ReadPipelineDef(path));
  Counts counts;
  double seconds = 0;
  Json report;
  if (def.kind == pipedef::DefKind::kDataset) {
    const Clock::time_point start = Clock::now();
    INFLOW_ASSIGN_OR_RETURN(report,
                            RunDataset(def, bench, max_batches, counts));
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } else {
    INFLOW_ASSIGN_OR_RETURN(
        report, RunPipeline(def, bench, max_batches, counts, seconds));
  }
  Json out = {
      {"pipeline", path},
      {"kind", std::string(pipedef::DefKindName(def.kind))},
      {"batches", counts.batches},
      {"rows", counts.rows},
      {"seconds", seconds},
      {"batches_per_second",
       PerSecond(static_cast<double>(counts.batches), seconds)},
      {"rows_per_second", PerSecond(static_cast<double>(counts.rows), seconds)},
  };
  out.update(report);
  std::printf("%s\n", out.dump().c_str());
  return OkStatus();
}

INFLOW_REGISTER_COMMAND(
    "run-pipeline",
    "Run a pipeline definition (JSON) and report each stage's throughput",
    [](CLI::App& app) {
      auto path = std::make_shared<std::string>();
      auto bench = std::make_shared<bool>(false);
      auto max_batches = std::make_shared<int64_t>(-1);
      app.add_option("FILE", *path, "the definition (.json)")->required();
      app.add_flag("--bench", *bench,
                   "print only the summary with each stage's throughput");
      app.add_option("--max-batches", *max_batches,
                     "stop after this many batches (default: the end)");
      return [=]() -> Status {
        return RunPipelineCommand(*path, *bench, *max_batches);
      };
    });

}  // namespace
}  // namespace inflow::tools
