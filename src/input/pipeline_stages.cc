// Copyright 2026 The inflow Authors.

#include "pipeline_stages.h"

#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <variant>

#include "inflow/threads/thread_registry.h"

namespace inflow {
namespace internal {
namespace {

// The values (or the keys) of `records` as a string tensor [n].
Tensor StringColumn(const RecordBatch& records, bool keys) {
  Tensor t(DType::kString, TensorShape({static_cast<int64_t>(records.size())}));
  std::span<std::string> out = t.mutable_flat<std::string>().value();
  for (size_t i = 0; i < records.size(); ++i) {
    out[i] = keys ? records.key(i) : std::string(records.value(i));
  }
  return t;
}

// "record f.rec:0" or "records f.rec:0 .. f.rec:5210 (64)".
std::string DescribeRecords(const RecordBatch& records) {
  if (records.size() == 1) return "record " + records.key(0);
  return "records " + records.key(0) + " .. " +
         records.key(records.size() - 1) + " (" +
         std::to_string(records.size()) + ")";
}

Status CheckSignature(const Signature& s, std::string_view what) {
  const std::string w(what);
  if (s.dtypes.empty()) return InvalidArgumentError(w + " has no components");
  if (s.row_shapes.size() != s.dtypes.size()) {
    return InvalidArgumentError(
        w + " has " + std::to_string(s.dtypes.size()) + " dtypes but " +
        std::to_string(s.row_shapes.size()) + " row shapes");
  }
  if (!s.names.empty() && s.names.size() != s.dtypes.size()) {
    return InvalidArgumentError(w + " has " + std::to_string(s.dtypes.size()) +
                                " dtypes but " +
                                std::to_string(s.names.size()) + " names");
  }
  for (size_t i = 0; i < s.row_shapes.size(); ++i) {
    if (!s.row_shapes[i].IsFullyDefined()) {
      return InvalidArgumentError(
          w + ": the row shape of component " + std::to_string(i) +
          " is not fully defined: " + s.row_shapes[i].DebugString());
    }
  }
  return OkStatus();
}

}  // namespace

Result<std::unique_ptr<ReaderBase>> NewReader(Env& env,
                                              const PipelineOptions& options) {
  switch (options.format) {
    case RecordFormat::kTFRecord:
      return NewTFRecordReader(env, options.compression_type);
    case RecordFormat::kTextLine:
      return NewTextLineReader(env, options.skip_header_lines);
    case RecordFormat::kFixedLength:
      return NewFixedLengthRecordReader(env, options.fixed_length);
  }
  return InvalidArgumentError("unknown record format");
}

Result<std::shared_ptr<const ReadStage::Shared>> ReadStage::MakeShared(
    const PipelineOptions& options) {
  auto shared = std::make_shared<Shared>();
  shared->read_batch = options.read_batch;
  shared->include_key = options.include_key;
  Signature& parsed = shared->parsed;
  if (options.features.empty()) {
    parsed = {{"value"}, {DType::kString}, {PartialShape({})}};
  } else {
    bool any_sparse = false;
    for (const auto& [key, spec] : options.features) {
      parsed.names.push_back(key);
      if (const auto* var = std::get_if<VarLenFeature>(&spec)) {
        parsed.dtypes.push_back(var->dtype);
        parsed.row_shapes.push_back(PartialShape({-1}));
        parsed.sparse.resize(parsed.names.size() - 1, false);
        parsed.sparse.push_back(true);
        any_sparse = true;
        continue;
      }
      const auto* fixed = std::get_if<FixedLenFeature>(&spec);
      if (fixed == nullptr) {
        return InvalidArgumentError(
            "pipeline: feature \"" + key +
            "\" must be a FixedLenFeature or a VarLenFeature (batching needs "
            "one fixed shape per row, or a SparseTensor)");
      }
      parsed.dtypes.push_back(fixed->dtype);
      parsed.row_shapes.push_back(PartialShape(fixed->shape));
    }
    if (any_sparse) parsed.sparse.resize(parsed.names.size(), false);
    if (any_sparse && !options.raw_to_float.empty()) {
      return InvalidArgumentError(
          "pipeline: raw_to_float is not supported with VarLenFeature "
          "features");
    }
    if (any_sparse && options.map.has_value()) {
      return InvalidArgumentError(
          "pipeline: a map is not supported with VarLenFeature features");
    }
    INFLOW_ASSIGN_OR_RETURN(ExampleParser parser,
                            ExampleParser::Create(options.features));
    shared->parser.emplace(std::move(parser));
    INFLOW_ASSIGN_OR_RETURN(shared->raw_to_float, RawToFloat::Create(options));
    if (shared->raw_to_float.has_value()) {
      const RawToFloat& r = *shared->raw_to_float;
      for (size_t k = 0; k < r.num_fused(); ++k) {
        parsed.dtypes[r.component(k)] = DType::kFloat32;
        parsed.row_shapes[r.component(k)] = PartialShape({r.length(k)});
      }
    }
  }
  if (options.features.empty() && !options.raw_to_float.empty()) {
    return InvalidArgumentError(
        "pipeline: raw_to_float needs the features it names");
  }
  if (options.include_key) {
    parsed.names.push_back("key");
    parsed.dtypes.push_back(DType::kString);
    parsed.row_shapes.push_back(PartialShape({}));
    if (!parsed.sparse.empty()) parsed.sparse.push_back(false);
  }
  shared->output = parsed;
  shared->in_place = shared->raw_to_float.has_value() && !options.include_key &&
                     !options.map.has_value();
  for (DType d : parsed.dtypes) {
    shared->in_place = shared->in_place && d != DType::kString;
  }

  if (options.map.has_value()) {
    const MapFunction& map = *options.map;
    if (!map.fn) return InvalidArgumentError("pipeline: the map has no fn");
    Signature out{map.names, map.dtypes, map.row_shapes};
    INFLOW_RETURN_IF_ERROR(CheckSignature(out, "pipeline: the map's output"));
    shared->output = std::move(out);
    shared->map = map;
  }
  shared->queued = shared->output;
  if (shared->in_place) {
    const RawToFloat& r = *shared->raw_to_float;
    for (size_t k = 0; k < r.num_fused(); ++k) {
      shared->queued.dtypes[r.component(k)] = DType::kUInt8;
    }
  }
  return std::shared_ptr<const Shared>(std::move(shared));
}

Status ReadStage::Read(const CallOptions& options) {
  Status read =
      reader_->ReadUpTo(*filenames_, shared_->read_batch, &records_, options);
  if (read.ok() || IsOutOfRange(read) || IsCancelled(read)) return read;
  return read.WithContext("read");
}

Result<Tuple> ReadStage::Step(const CallOptions& options) {
  INFLOW_RETURN_IF_ERROR(Read(options));
  INFLOW_ASSIGN_OR_RETURN(Tuple rows, Parse());
  if (!shared_->map.has_value()) return rows;
  return Map(std::move(rows));
}

Status ReadStage::StepInto(QueueInterface& queue, const CallOptions& options) {
  INFLOW_RETURN_IF_ERROR(Read(options));
  const RawToFloat& raw_to_float = *shared_->raw_to_float;
  if (!raw_to_float.Prepare(records_, &raw_to_float_scratch_)) {
    INFLOW_ASSIGN_OR_RETURN(Tuple rows, ParseAll());
    if (Status s = raw_to_float.ToBytes(records_, &rows); !s.ok()) {
      return s.WithContext("parse");
    }
    ScopedBlockedTimer blocked;
    return queue.EnqueueMany(std::move(rows), options);
  }
  // Blocked from when the rows are written until the queue takes them.
  std::optional<ScopedBlockedTimer> blocked;
  return queue.EnqueueManyInPlace(
      static_cast<int64_t>(records_.size()),
      [&](std::span<char* const> rows) {
        raw_to_float.Write(raw_to_float_scratch_, rows);
        blocked.emplace();
        return OkStatus();
      },
      options);
}

Result<Tuple> ReadStage::Parse() {
  Tuple rows;
  if (shared_->parser.has_value()) {
    std::optional<Tuple> fused;
    if (shared_->raw_to_float.has_value()) {
      fused = shared_->raw_to_float->TryParse(records_, &raw_to_float_scratch_);
    }
    if (fused.has_value()) {
      rows = std::move(*fused);
    } else {
      INFLOW_ASSIGN_OR_RETURN(rows, ParseAll());
      if (shared_->raw_to_float.has_value()) {
        Status s = shared_->raw_to_float->Convert(records_, &rows);
        if (!s.ok()) return s.WithContext("parse");
      }
    }
  } else {
    rows.push_back(StringColumn(records_, /*keys=*/false));
  }
  if (shared_->include_key) rows.push_back(StringColumn(records_, true));
  return rows;
}

Result<Tuple> ReadStage::ParseAll() const {
  Result<ParsedFeatures> parsed =
      shared_->parser->ParseBatch(records_.values());
  if (!parsed.ok()) {
    // Name the first record that fails on its own.
    for (size_t i = 0; i < records_.size(); ++i) {
      Result<ParsedFeatures> one =
          shared_->parser->ParseSingle(records_.value(i));
      if (!one.ok()) {
        return one.status().WithContext("parse: record " + records_.key(i));
      }
    }
    return parsed.status().WithContext("parse: " + DescribeRecords(records_));
  }
  Tuple rows;
  const std::vector<bool>& sparse = shared_->parsed.sparse;
  if (sparse.empty()) {
    rows = std::move(parsed->dense);
  } else {
    // The features in their order; a VarLenFeature's three tensors in its
    // place.
    size_t d = 0, v = 0;
    for (size_t c = 0; c < shared_->parser->dense_keys().size() +
                               shared_->parser->sparse_keys().size();
         ++c) {
      if (!sparse[c]) {
        rows.push_back(std::move(parsed->dense[d++]));
        continue;
      }
      SparseTensor& st = parsed->sparse[v++];
      rows.push_back(std::move(st.indices));
      rows.push_back(std::move(st.values));
      rows.push_back(std::move(st.dense_shape));
    }
  }
  return rows;
}

Result<Tuple> ReadStage::Map(Tuple rows) const {
  const auto context = [this] { return "map: " + DescribeRecords(records_); };
  Result<Tuple> mapped = shared_->map->fn(std::move(rows));
  if (!mapped.ok()) return mapped.status().WithContext(context());
  const Signature& out = shared_->output;
  const int64_t n = static_cast<int64_t>(records_.size());
  if (mapped->size() != out.dtypes.size()) {
    return InvalidArgumentError(
        context() + ": returned " + std::to_string(mapped->size()) +
        " components, declared " + std::to_string(out.dtypes.size()));
  }
  for (size_t i = 0; i < mapped->size(); ++i) {
    const Tensor& t = (*mapped)[i];
    const PartialShape want = out.row_shapes[i].Prepend(n);
    if (t.dtype() != out.dtypes[i] || !want.IsCompatibleWith(t.shape())) {
      return InvalidArgumentError(
          context() + ": component " + std::to_string(i) + " is " +
          std::string(DTypeName(t.dtype())) + " " + t.shape().DebugString() +
          ", declared " + std::string(DTypeName(out.dtypes[i])) + " " +
          want.DebugString());
    }
  }
  return mapped;
}

}  // namespace internal
}  // namespace inflow
