// Copyright 2026 The inflow Authors.
//
// BuildDataset: a definition's steps as Dataset calls, one step at a time.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/example/example_parser.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"
#include "inflow/ops/op.h"
#include "inflow/pipedef/pipeline_def.h"

#include "pipedef/step_attrs.h"

namespace inflow::pipedef {

namespace {

using data::Dataset;
using internal::StepAttrs;
using internal::StepError;

bool IsSource(std::string_view op) {
  return op == "range" || op == "tfrecord" || op == "text_line" ||
         op == "fixed_length_record";
}

// The files of a source: each name or pattern expanded (a pattern that
// matches nothing is NOT_FOUND naming it).
Result<std::vector<std::string>> Files(StepAttrs& a, std::string_view name) {
  INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> patterns,
                          a.StringList(name));
  if (patterns.empty()) return a.Error(name, "no files");
  std::vector<std::string> files;
  for (const std::string& p : patterns) {
    Result<std::vector<std::string>> matched =
        GetMatchingPaths(Env::Default(), p);
    if (!matched.ok()) return a.Error(name, matched.status().ToString());
    if (matched->empty()) {
      return Status(NotFoundError(
          a.Error(name, "no file matches '" + p + "'").message()));
    }
    files.insert(files.end(), matched->begin(), matched->end());
  }
  return files;
}

Result<data::TFRecordOptions> FileOptions(StepAttrs& a, bool tfrecord) {
  data::TFRecordOptions options;
  INFLOW_ASSIGN_OR_RETURN(std::string compression, a.String("compression", ""));
  Result<CompressionType> type = ParseCompressionType(compression);
  if (!type.ok()) {
    return a.Error("compression", std::string(type.status().message()));
  }
  options.compression = *type;
  INFLOW_ASSIGN_OR_RETURN(
      int64_t buffer,
      a.Int("buffer_size", static_cast<int64_t>(options.buffer_size)));
  if (buffer < 1) return a.Error("buffer_size", "must be >= 1");
  options.buffer_size = static_cast<size_t>(buffer);
  if (tfrecord) {
    INFLOW_ASSIGN_OR_RETURN(int64_t reads, a.Int("num_parallel_reads", 1));
    options.num_parallel_reads = static_cast<int>(reads);
  }
  return options;
}

Result<Dataset> Source(const PipelineDef& def, size_t i) {
  StepAttrs a(def, i);
  const std::string& op = def.steps[i].op;
  Dataset ds = Dataset::Range(0);
  if (op == "range") {
    INFLOW_ASSIGN_OR_RETURN(int64_t start, a.Int("start", 0));
    INFLOW_ASSIGN_OR_RETURN(int64_t stop, a.Int("stop"));
    INFLOW_ASSIGN_OR_RETURN(int64_t step, a.Int("step", 1));
    if (step == 0) return a.Error("step", "must not be 0");
    ds = Dataset::Range(start, stop, step);
  } else if (op == "tfrecord" || op == "text_line") {
    INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> files, Files(a, "files"));
    INFLOW_ASSIGN_OR_RETURN(data::TFRecordOptions options,
                            FileOptions(a, op == "tfrecord"));
    ds = op == "tfrecord" ? Dataset::TFRecord(std::move(files), options)
                          : Dataset::TextLine(std::move(files), options);
  } else {
    INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> files, Files(a, "files"));
    INFLOW_ASSIGN_OR_RETURN(int64_t record, a.Int("record_bytes"));
    INFLOW_ASSIGN_OR_RETURN(int64_t header, a.Int("header_bytes", 0));
    INFLOW_ASSIGN_OR_RETURN(int64_t footer, a.Int("footer_bytes", 0));
    INFLOW_ASSIGN_OR_RETURN(data::TFRecordOptions options,
                            FileOptions(a, false));
    ds = Dataset::FixedLengthRecord(std::move(files), record, header, footer,
                                    options);
  }
  INFLOW_RETURN_IF_ERROR(a.CheckNoOthers());
  return ds;
}

// A run of feature steps: each element, an Example as a string scalar,
// parsed into the features in order (a VarLenFeature as indices, values
// and dense_shape).
Result<data::MapFn> ParseFn(const PipelineDef& def, size_t begin, size_t end) {
  FeatureSpecs specs;
  for (size_t i = begin; i < end; ++i) {
    INFLOW_ASSIGN_OR_RETURN(auto feature, internal::ReadFeature(def, i));
    specs.push_back(std::move(feature));
  }
  std::vector<bool> sparse;
  for (const auto& [key, spec] : specs) {
    sparse.push_back(std::holds_alternative<VarLenFeature>(spec));
  }
  Result<ExampleParser> parser = ExampleParser::Create(std::move(specs));
  if (!parser.ok()) {
    return parser.status().WithContext(internal::StepPath(def, begin));
  }
  return data::MapFn(
      [parser = std::move(parser).value(),
       sparse = std::move(sparse)](Tuple element) -> Result<Tuple> {
        if (element.size() != 1 || element[0].dtype() != DType::kString ||
            element[0].rank() != 0) {
          return InvalidArgumentError(
              "parsing Examples needs elements of one string scalar");
        }
        INFLOW_ASSIGN_OR_RETURN(
            ParsedFeatures parsed,
            parser.ParseSingle(element[0].flat<std::string>()[0]));
        Tuple out;
        size_t dense = 0, var = 0;
        for (bool s : sparse) {
          if (s) {
            SparseTensor& t = parsed.sparse[var++];
            out.push_back(std::move(t.indices));
            out.push_back(std::move(t.values));
            out.push_back(std::move(t.dense_shape));
          } else {
            out.push_back(std::move(parsed.dense[dense++]));
          }
        }
        return out;
      });
}

Result<Dataset> Transform(const PipelineDef& def, size_t i, Dataset ds) {
  StepAttrs a(def, i);
  const std::string& op = def.steps[i].op;
  if (op == "batch") {
    INFLOW_ASSIGN_OR_RETURN(int64_t size, a.Int("batch_size"));
    INFLOW_ASSIGN_OR_RETURN(bool drop, a.Bool("drop_remainder", false));
    INFLOW_ASSIGN_OR_RETURN(int64_t calls, a.Int("num_parallel_calls", 0));
    ds = ds.Batch(size, drop, static_cast<int>(calls));
  } else if (op == "shuffle") {
    INFLOW_ASSIGN_OR_RETURN(int64_t size, a.Int("buffer_size"));
    INFLOW_ASSIGN_OR_RETURN(std::optional<int64_t> seed, a.OptionalInt("seed"));
    INFLOW_ASSIGN_OR_RETURN(bool reshuffle,
                            a.Bool("reshuffle_each_iteration", true));
    ds = ds.Shuffle(size, seed, reshuffle);
  } else if (op == "repeat") {
    INFLOW_ASSIGN_OR_RETURN(int64_t count, a.Int("count", data::kInfinite));
    ds = ds.Repeat(count);
  } else if (op == "take") {
    INFLOW_ASSIGN_OR_RETURN(int64_t count, a.Int("count"));
    ds = ds.Take(count);
  } else if (op == "skip") {
    INFLOW_ASSIGN_OR_RETURN(int64_t count, a.Int("count"));
    ds = ds.Skip(count);
  } else if (op == "shard") {
    INFLOW_ASSIGN_OR_RETURN(int64_t shards, a.Int("num_shards"));
    INFLOW_ASSIGN_OR_RETURN(int64_t index, a.Int("index"));
    ds = ds.Shard(shards, index);
  } else if (op == "enumerate") {
    INFLOW_ASSIGN_OR_RETURN(int64_t start, a.Int("start", 0));
    ds = ds.Enumerate(start);
  } else if (op == "unbatch") {
    ds = ds.Unbatch();
  } else if (op == "cache") {
    INFLOW_ASSIGN_OR_RETURN(std::string file, a.String("filename", ""));
    ds = ds.Cache(file);
  } else if (op == "prefetch") {
    INFLOW_ASSIGN_OR_RETURN(int64_t size, a.Int("buffer_size"));
    ds = ds.Prefetch(size);
  } else {
    // A custom op, mapped over the elements.
    StepAttrs options(def, i, /*options=*/true);
    INFLOW_ASSIGN_OR_RETURN(int64_t calls,
                            options.Int("num_parallel_calls", 0));
    INFLOW_ASSIGN_OR_RETURN(bool deterministic,
                            options.Bool("deterministic", true));
    INFLOW_RETURN_IF_ERROR(options.CheckNoOthers());
    INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<ops::Op> made,
                            internal::CreateStepOp(def, i));
    return ds.Map(ops::OpMapFn(std::move(made)),
                  {.num_parallel_calls = static_cast<int>(calls),
                   .deterministic = deterministic});
  }
  INFLOW_RETURN_IF_ERROR(a.CheckNoOthers());
  if (!def.steps[i].options.empty()) {
    return StepError(def, i, "options are for a custom op's step");
  }
  // A bad argument (Batch(0), ...) makes a dataset whose status says so.
  if (Status s = ds.status(); !s.ok()) {
    return s.WithContext(internal::StepPath(def, i));
  }
  return ds;
}

}  // namespace

Result<Dataset> BuildDataset(const PipelineDef& def) {
  if (def.kind != DefKind::kDataset) {
    return InvalidArgumentError(
        (def.source.empty() ? "" : def.source + ": ") +
        "$.kind: a pipeline definition, not a dataset's");
  }
  if (def.steps.empty() || !IsSource(def.steps[0].op)) {
    return InvalidArgumentError(
        (def.source.empty() ? std::string() : def.source + ": ") +
        (def.steps.empty() ? "$.steps: no steps"
                           : "$.steps[0].op: a dataset starts with a source "
                             "(range, tfrecord, text_line, "
                             "fixed_length_record), not '" +
                                 def.steps[0].op + "'"));
  }
  INFLOW_RETURN_IF_ERROR(LoadOpLibraries(def));
  INFLOW_ASSIGN_OR_RETURN(Dataset ds, Source(def, 0));
  if (Status s = ds.status(); !s.ok()) {
    return s.WithContext(internal::StepPath(def, 0));
  }
  for (size_t i = 1; i < def.steps.size();) {
    const std::string& op = def.steps[i].op;
    if (IsSource(op)) {
      return StepError(def, i,
                       "'" + op + "' is a source: only the first step is one");
    }
    if (internal::IsFeatureStep(op)) {
      size_t end = i;
      while (end < def.steps.size() &&
             internal::IsFeatureStep(def.steps[end].op)) {
        ++end;
      }
      INFLOW_ASSIGN_OR_RETURN(data::MapFn parse, ParseFn(def, i, end));
      ds = ds.Map(std::move(parse));
      i = end;
      continue;
    }
    INFLOW_ASSIGN_OR_RETURN(ds, Transform(def, i, std::move(ds)));
    ++i;
  }
  return ds;
}

}  // namespace inflow::pipedef
