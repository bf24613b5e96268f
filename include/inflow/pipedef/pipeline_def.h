// Copyright 2026 The inflow Authors.
//
// Pipeline definitions: a Dataset or a batching Pipeline as a list of
// steps, each a registered op name with its attributes, kept in a readable
// JSON file and built again from it (docs/custom_ops.md, "Pipeline
// definitions"):
//
//   {
//     "version": 1,
//     "kind": "dataset",
//     "op_libraries": ["libzero_out.so"],
//     "steps": [
//       {"op": "tfrecord", "attrs": {"files": ["train-*.tfrecord"]}},
//       {"op": "fixed_len_feature",
//        "attrs": {"key": "x", "dtype": "int32", "shape": [3]}},
//       {"op": "ZeroOut", "attrs": {"preserve_index": 1},
//        "options": {"num_parallel_calls": 2}},
//       {"op": "batch", "attrs": {"batch_size": 32}}
//     ]
//   }
//
//   INFLOW_ASSIGN_OR_RETURN(PipelineDef def, ReadPipelineDef("p.json"));
//   INFLOW_ASSIGN_OR_RETURN(data::Dataset ds, BuildDataset(def));
//
// Built-in steps have lower-case names; a custom op's step is the op's
// registered name (a map of the op over the elements or records). Every
// error names the file and the JSON path of the step:
// "INVALID_ARGUMENT: p.json: $.steps[3].attrs.batch_size: must be an int,
// got a string".

#ifndef INFLOW_PIPEDEF_PIPELINE_DEF_H_
#define INFLOW_PIPEDEF_PIPELINE_DEF_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/metrics.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/data/dataset.h"
#include "inflow/input/pipeline.h"
#include "inflow/io/env.h"
#include "inflow/ops/op.h"
#include "inflow/ops/op_def.h"

namespace inflow::pipedef {

// The version of the file format this inflow reads and writes.
inline constexpr int kPipelineDefVersion = 1;

// One step: an op name and its attributes. `options` are how a custom
// op's step runs, not the op's attributes: "num_parallel_calls" and
// "deterministic" in a Dataset, "unit" ("record" or "chunk") in a
// Pipeline.
struct Step {
  std::string op;
  ops::AttrMap attrs = {};
  ops::AttrMap options = {};
};

enum class DefKind {
  kDataset,   // a data::Dataset: a source, then transformations
  kPipeline,  // a batching Pipeline (input/pipeline.h)
};

// "dataset" or "pipeline".
std::string_view DefKindName(DefKind kind);

// The steps of a Dataset or a Pipeline. A plain value: copy it, edit it,
// build it any number of times.
struct PipelineDef {
  DefKind kind = DefKind::kDataset;
  // Op libraries (ops/op_library.h) loaded before the steps are built, so
  // their ops can be steps. Relative paths are the process's.
  std::vector<std::string> op_libraries = {};
  std::vector<Step> steps = {};
  // Where the definition was read from ("p.json"), for errors; empty for
  // one made in memory.
  std::string source = {};

  // Appends a step; returns *this for chaining.
  PipelineDef& Add(std::string op, ops::AttrMap attrs = {},
                   ops::AttrMap options = {});
};

// The definition as readable JSON (two-space indents, the steps in order,
// each step's attributes sorted by name; a type attribute as its dtype's
// name, "float32"), ending in a newline.
std::string ToJson(const PipelineDef& def);

// Parses what ToJson writes. `source` names the text in errors.
// INVALID_ARGUMENT, naming `source` and the place: a JSON syntax error
// ("line 3, column 7: ..."), a missing or unknown top-level field, another
// version, or a step or attribute of the wrong form ("$.steps[2].attrs.x:
// ..."). An attribute is a number, a bool, a string or a list of one of
// them; null leaves it unset. The steps themselves are checked by the
// Build functions.
Result<PipelineDef> ParsePipelineDef(std::string_view json,
                                     std::string_view source = "<string>");

// The file at `path` (nullptr env: Env::Default()), its path as source.
// NOT_FOUND (or the Env's error) for a file that cannot be read.
Result<PipelineDef> ReadPipelineDef(const std::string& path,
                                    Env* env = nullptr);
// Writes ToJson(def) to `path`, replacing it atomically.
Status WritePipelineDef(const PipelineDef& def, const std::string& path,
                        Env* env = nullptr);

// Loads def.op_libraries (LoadOpLibrary; a library loaded before is
// fine). Errors name the source and "$.op_libraries[i]".
Status LoadOpLibraries(const PipelineDef& def);

// A Dataset of kind kDataset's steps (LoadOpLibraries first). The first
// step is a source:
//   range {start = 0, stop, step = 1}
//   tfrecord {files (names or patterns), compression = "" | "ZLIB" |
//             "GZIP", num_parallel_reads = 1, buffer_size}
//   text_line {files, compression}
//   fixed_length_record {files, record_bytes, header_bytes = 0,
//                        footer_bytes = 0, compression}
// then any of
//   fixed_len_feature {key, dtype, shape = [], default} and
//   var_len_feature {key, dtype}: a run of them parses each element's
//       Example (a string scalar) into the features in order, a
//       var_len_feature as three components: indices, values, dense_shape
//   <a custom op> {its attributes}, options {num_parallel_calls = 0,
//       deterministic = true}: Map(OpMapFn)
//   batch {batch_size, drop_remainder = false, num_parallel_calls = 0}
//   shuffle {buffer_size, seed, reshuffle_each_iteration = true}
//   repeat {count = -1}, take {count}, skip {count},
//   shard {num_shards, index}, enumerate {start = 0}, unbatch {},
//   cache {filename = ""}, prefetch {buffer_size}
// INVALID_ARGUMENT naming the source and the step's path for an unknown
// op, a source out of place, an attribute missing, unknown or of another
// type; a custom op's own errors (Op::Create's) with the same prefix.
Result<data::Dataset> BuildDataset(const PipelineDef& def);

// Resources of a built Pipeline that a file does not hold.
struct BuildOptions {
  Env* env = nullptr;                  // nullptr: Env::Default()
  MetricsRegistry* metrics = nullptr;  // nullptr: the default registry
  std::string name = "pipeline";       // PipelineOptions::name
};

// The PipelineOptions of kind kPipeline's steps, in this order:
//   files {patterns, num_epochs (absent: unlimited), shuffle = true,
//          capacity = 32}
//   tfrecord_reader {compression_type = ""} | text_line_reader
//       {skip_header_lines = 0} | fixed_length_record_reader
//       {record_bytes, header_bytes, footer_bytes, hop_bytes, encoding},
//       each also {num_readers = 1, read_batch = 64, include_key = false}
//       (none: a TFRecord reader with those defaults)
//   fixed_len_feature / var_len_feature, as above (PipelineOptions::features)
//   raw_to_float {feature, length, scale = 1.0}
//   one custom op, options {unit = "record" | "chunk"} (OpPipelineMap; its
//       inputs' static shapes are the parsed features' rows)
//   batch {batch_size = 32, shuffle = false, capacity = 0,
//          min_after_dequeue = 0, seed, graph_seed,
//          allow_smaller_final_batch = false, nice = 0}
// Errors as BuildDataset's.
Result<PipelineOptions> BuildPipelineOptions(const PipelineDef& def,
                                             const BuildOptions& build = {});
// Pipeline::Create of the options above (which starts its threads).
Result<std::shared_ptr<Pipeline>> BuildPipeline(const PipelineDef& def,
                                                const BuildOptions& build = {});

// The definition of a Pipeline made with `options`. `map_op` is the op
// whose OpPipelineMap(map_op, unit) is options.map: a map function of
// one's own cannot be written down (INVALID_ARGUMENT when options.map is
// set without it). env, metrics and name are left out. op_libraries is
// left empty: add the library that registers map_op.
Result<PipelineDef> DescribePipeline(
    const PipelineOptions& options, const ops::Op* map_op = nullptr,
    ops::OpMapUnit unit = ops::OpMapUnit::kRecord);

}  // namespace inflow::pipedef

#endif  // INFLOW_PIPEDEF_PIPELINE_DEF_H_
