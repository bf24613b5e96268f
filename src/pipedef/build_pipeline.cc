// Copyright 2026 The inflow Authors.
//
// A batching Pipeline's definition: its steps to PipelineOptions
// (BuildPipelineOptions) and PipelineOptions to steps (DescribePipeline).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/ops/op.h"
#include "inflow/pipedef/pipeline_def.h"

#include "pipedef/step_attrs.h"

namespace inflow::pipedef {

namespace {

using internal::StepAttrs;
using internal::StepError;

// The order of a pipeline's steps; each but features and raw_to_float at
// most once.
enum Phase {
  kFiles = 0,
  kReader = 1,
  kFeatures = 2,
  kRawToFloat = 3,
  kMap = 4,
  kBatch = 5,
};

constexpr const char* kOrder =
    "a pipeline's steps are files, a reader, features, raw_to_float, one "
    "custom op and batch, in this order";

Phase PhaseOf(std::string_view op) {
  if (op == "files") return kFiles;
  if (op == "tfrecord_reader" || op == "text_line_reader" ||
      op == "fixed_length_record_reader") {
    return kReader;
  }
  if (internal::IsFeatureStep(op)) return kFeatures;
  if (op == "raw_to_float") return kRawToFloat;
  if (op == "batch") return kBatch;
  return kMap;
}

Status ReadFiles(StepAttrs& a, PipelineOptions& o) {
  INFLOW_ASSIGN_OR_RETURN(o.files, a.StringList("patterns"));
  if (o.files.empty()) return a.Error("patterns", "no files");
  INFLOW_ASSIGN_OR_RETURN(o.num_epochs, a.OptionalInt("num_epochs"));
  INFLOW_ASSIGN_OR_RETURN(o.shuffle_files, a.Bool("shuffle", true));
  INFLOW_ASSIGN_OR_RETURN(o.filename_capacity,
                          a.Int("capacity", o.filename_capacity));
  return OkStatus();
}

Status ReadReader(const std::string& op, StepAttrs& a, PipelineOptions& o) {
  if (op == "tfrecord_reader") {
    o.format = RecordFormat::kTFRecord;
    INFLOW_ASSIGN_OR_RETURN(o.compression_type,
                            a.String("compression_type", ""));
  } else if (op == "text_line_reader") {
    o.format = RecordFormat::kTextLine;
    INFLOW_ASSIGN_OR_RETURN(o.skip_header_lines, a.Int("skip_header_lines", 0));
  } else {
    o.format = RecordFormat::kFixedLength;
    FixedLengthRecordOptions& f = o.fixed_length;
    INFLOW_ASSIGN_OR_RETURN(f.record_bytes, a.Int("record_bytes"));
    INFLOW_ASSIGN_OR_RETURN(f.header_bytes, a.Int("header_bytes", 0));
    INFLOW_ASSIGN_OR_RETURN(f.footer_bytes, a.Int("footer_bytes", 0));
    INFLOW_ASSIGN_OR_RETURN(f.hop_bytes, a.Int("hop_bytes", 0));
    INFLOW_ASSIGN_OR_RETURN(f.encoding, a.String("encoding", ""));
  }
  INFLOW_ASSIGN_OR_RETURN(int64_t readers, a.Int("num_readers", 1));
  if (readers < 1 || readers > 4096) {
    return a.Error("num_readers", "must be 1 to 4096");
  }
  o.num_readers = static_cast<int>(readers);
  INFLOW_ASSIGN_OR_RETURN(o.read_batch, a.Int("read_batch", o.read_batch));
  INFLOW_ASSIGN_OR_RETURN(o.include_key, a.Bool("include_key", false));
  return OkStatus();
}

Status ReadBatch(StepAttrs& a, BatchingOptions& b) {
  INFLOW_ASSIGN_OR_RETURN(b.batch_size, a.Int("batch_size", b.batch_size));
  INFLOW_ASSIGN_OR_RETURN(b.shuffle, a.Bool("shuffle", false));
  INFLOW_ASSIGN_OR_RETURN(b.capacity, a.Int("capacity", 0));
  INFLOW_ASSIGN_OR_RETURN(b.min_after_dequeue, a.Int("min_after_dequeue", 0));
  INFLOW_ASSIGN_OR_RETURN(b.seed, a.OptionalInt("seed"));
  INFLOW_ASSIGN_OR_RETURN(b.graph_seed, a.OptionalInt("graph_seed"));
  INFLOW_ASSIGN_OR_RETURN(b.allow_smaller_final_batch,
                          a.Bool("allow_smaller_final_batch", false));
  INFLOW_ASSIGN_OR_RETURN(int64_t nice, a.Int("nice", 0));
  if (nice < 0 || nice > 19) return a.Error("nice", "must be 0 to 19");
  b.nice = static_cast<int>(nice);
  return OkStatus();
}

// The static shape of each component a map's op gets: the parsed
// features' rows (raw_to_float's as float32 [length]), the key.
std::vector<PartialShape> MapInputShapes(const PipelineOptions& o,
                                         ops::OpMapUnit unit) {
  std::vector<PartialShape> shapes;
  if (o.features.empty()) {
    shapes.push_back(PartialShape(std::vector<int64_t>{}));
  }
  for (const auto& [key, spec] : o.features) {
    std::vector<int64_t> dims;
    if (const auto* f = std::get_if<FixedLenFeature>(&spec)) {
      dims = f->shape.dims();
    }
    for (const PipelineOptions::RawToFloat& r : o.raw_to_float) {
      if (r.feature == key) dims = {r.length};
    }
    shapes.push_back(PartialShape(std::move(dims)));
  }
  if (o.include_key) shapes.push_back(PartialShape(std::vector<int64_t>{}));
  if (unit == ops::OpMapUnit::kChunk) {
    for (PartialShape& s : shapes) {
      std::vector<int64_t> dims = {-1};
      dims.insert(dims.end(), s.dims().begin(), s.dims().end());
      s = PartialShape(std::move(dims));
    }
  }
  return shapes;
}

}  // namespace

Result<PipelineOptions> BuildPipelineOptions(const PipelineDef& def,
                                             const BuildOptions& build) {
  const std::string where = def.source.empty() ? "" : def.source + ": ";
  if (def.kind != DefKind::kPipeline) {
    return InvalidArgumentError(where +
                                "$.kind: a dataset definition, not a "
                                "pipeline's");
  }
  INFLOW_RETURN_IF_ERROR(LoadOpLibraries(def));
  PipelineOptions o;
  o.env = build.env;
  o.metrics = build.metrics;
  o.name = build.name;
  int last = -1;
  bool have_files = false, have_batch = false;
  std::optional<size_t> map_step;
  for (size_t i = 0; i < def.steps.size(); ++i) {
    const std::string& op = def.steps[i].op;
    const Phase phase = PhaseOf(op);
    const bool repeats = phase == kFeatures || phase == kRawToFloat;
    if (phase < last || (phase == last && !repeats)) {
      return StepError(def, i, "'" + op + "' out of place (" + kOrder + ")");
    }
    last = phase;
    if (phase != kMap && !def.steps[i].options.empty()) {
      return StepError(def, i, "options are for a custom op's step");
    }
    StepAttrs a(def, i);
    switch (phase) {
      case kFiles:
        INFLOW_RETURN_IF_ERROR(ReadFiles(a, o));
        have_files = true;
        break;
      case kReader:
        INFLOW_RETURN_IF_ERROR(ReadReader(op, a, o));
        break;
      case kFeatures: {
        INFLOW_ASSIGN_OR_RETURN(auto feature, internal::ReadFeature(def, i));
        o.features.push_back(std::move(feature));
        continue;  // ReadFeature checked the attributes
      }
      case kRawToFloat: {
        PipelineOptions::RawToFloat r;
        INFLOW_ASSIGN_OR_RETURN(r.feature, a.String("feature"));
        INFLOW_ASSIGN_OR_RETURN(r.length, a.Int("length"));
        INFLOW_ASSIGN_OR_RETURN(double scale, a.Float("scale", 1.0));
        r.scale = static_cast<float>(scale);
        o.raw_to_float.push_back(std::move(r));
        break;
      }
      case kMap:
        map_step = i;  // made once the features are known
        continue;
      case kBatch:
        INFLOW_RETURN_IF_ERROR(ReadBatch(a, o.batching));
        have_batch = true;
        break;
    }
    INFLOW_RETURN_IF_ERROR(a.CheckNoOthers());
  }
  if (!have_files || !have_batch) {
    return InvalidArgumentError(where + "$.steps: no '" +
                                (have_files ? "batch" : "files") + "' step (" +
                                kOrder + ")");
  }
  if (map_step) {
    const size_t i = *map_step;
    StepAttrs options(def, i, /*options=*/true);
    INFLOW_ASSIGN_OR_RETURN(std::string unit_name,
                            options.String("unit", "record"));
    if (unit_name != "record" && unit_name != "chunk") {
      return options.Error(
          "unit", "must be \"record\" or \"chunk\", got \"" + unit_name + "\"");
    }
    INFLOW_RETURN_IF_ERROR(options.CheckNoOthers());
    const ops::OpMapUnit unit =
        unit_name == "chunk" ? ops::OpMapUnit::kChunk : ops::OpMapUnit::kRecord;
    INFLOW_ASSIGN_OR_RETURN(
        std::shared_ptr<ops::Op> made,
        internal::CreateStepOp(def, i, MapInputShapes(o, unit)));
    Result<MapFunction> map = ops::OpPipelineMap(std::move(made), unit);
    if (!map.ok()) return map.status().WithContext(internal::StepPath(def, i));
    o.map = std::move(map).value();
  }
  return o;
}

Result<std::shared_ptr<Pipeline>> BuildPipeline(const PipelineDef& def,
                                                const BuildOptions& build) {
  INFLOW_ASSIGN_OR_RETURN(PipelineOptions options,
                          BuildPipelineOptions(def, build));
  Result<std::shared_ptr<Pipeline>> made = Pipeline::Create(std::move(options));
  if (!made.ok() && !def.source.empty()) {
    return made.status().WithContext(def.source);
  }
  return made;
}

Result<PipelineDef> DescribePipeline(const PipelineOptions& o,
                                     const ops::Op* map_op,
                                     ops::OpMapUnit unit) {
  if (o.map && map_op == nullptr) {
    return InvalidArgumentError(
        "the Pipeline's map is a function of its own, which a definition "
        "cannot hold: make it a custom op (ops::OpPipelineMap) and pass the "
        "op");
  }
  PipelineDef def;
  def.kind = DefKind::kPipeline;
  ops::AttrMap files{{"patterns", o.files},
                     {"shuffle", o.shuffle_files},
                     {"capacity", o.filename_capacity}};
  if (o.num_epochs) files.Set("num_epochs", *o.num_epochs);
  def.Add("files", std::move(files));

  ops::AttrMap reader{{"num_readers", o.num_readers},
                      {"read_batch", o.read_batch},
                      {"include_key", o.include_key}};
  switch (o.format) {
    case RecordFormat::kTFRecord:
      reader.Set("compression_type", o.compression_type);
      def.Add("tfrecord_reader", std::move(reader));
      break;
    case RecordFormat::kTextLine:
      reader.Set("skip_header_lines", o.skip_header_lines);
      def.Add("text_line_reader", std::move(reader));
      break;
    case RecordFormat::kFixedLength:
      reader.Set("record_bytes", o.fixed_length.record_bytes);
      reader.Set("header_bytes", o.fixed_length.header_bytes);
      reader.Set("footer_bytes", o.fixed_length.footer_bytes);
      reader.Set("hop_bytes", o.fixed_length.hop_bytes);
      reader.Set("encoding", o.fixed_length.encoding);
      def.Add("fixed_length_record_reader", std::move(reader));
      break;
  }
  for (const auto& [key, spec] : o.features) {
    INFLOW_ASSIGN_OR_RETURN(Step step, internal::FeatureStep(key, spec));
    def.steps.push_back(std::move(step));
  }
  for (const PipelineOptions::RawToFloat& r : o.raw_to_float) {
    def.Add("raw_to_float", {{"feature", r.feature},
                             {"length", r.length},
                             {"scale", static_cast<double>(r.scale)}});
  }
  if (map_op != nullptr) {
    def.Add(map_op->name(), map_op->attrs(),
            {{"unit", unit == ops::OpMapUnit::kChunk ? "chunk" : "record"}});
  }
  const BatchingOptions& b = o.batching;
  ops::AttrMap batch{{"batch_size", b.batch_size},
                     {"shuffle", b.shuffle},
                     {"capacity", b.capacity},
                     {"min_after_dequeue", b.min_after_dequeue},
                     {"allow_smaller_final_batch", b.allow_smaller_final_batch},
                     {"nice", b.nice}};
  if (b.seed) batch.Set("seed", *b.seed);
  if (b.graph_seed) batch.Set("graph_seed", *b.graph_seed);
  def.Add("batch", std::move(batch));
  return def;
}

}  // namespace inflow::pipedef
