// Copyright 2026 The inflow Authors.

#include "inflow/data/dataset.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "inflow/io/crc32c.h"

#include "data/dataset_base.h"

namespace inflow::data {
namespace {

using internal::DatasetPtr;

// The state's first field: the format's name and version.
constexpr std::string_view kStateTag = "inflow.data.Iterator/1";

}  // namespace

namespace internal {
DatasetPtr BaseOf(const Dataset& d) { return d.base_; }
}  // namespace internal

Dataset Dataset::Range(int64_t start, int64_t stop, int64_t step) {
  return Dataset(internal::MakeRange(start, stop, step));
}
Dataset Dataset::FromTensorSlices(Tuple components) {
  return Dataset(internal::MakeTensorSlices(std::move(components)));
}
Dataset Dataset::TFRecord(std::vector<std::string> files,
                          TFRecordOptions options) {
  if (options.index.has_value() || options.shuffle_records) {
    return Dataset(internal::MakeIndexedTFRecord(std::move(files), options));
  }
  int64_t reads = options.num_parallel_reads;
  if (reads == kAutotune) reads = internal::HardwareThreads();
  // Each source reads its files one after another; a count below 1 is
  // left for it to refuse (its status, INVALID_ARGUMENT).
  if (reads >= 1) options.num_parallel_reads = 1;
  if (reads <= 1 || files.size() < 2) {
    return Dataset(internal::MakeTFRecord(std::move(files), options));
  }
  // tf.data's order: one TFRecord per file, interleaved.
  Tensor names(DType::kString,
               TensorShape({static_cast<int64_t>(files.size())}));
  std::span<std::string> n = names.mutable_flat<std::string>().value();
  for (size_t i = 0; i < files.size(); ++i) n[i] = std::move(files[i]);
  return FromTensorSlices({std::move(names)})
      .Interleave(
          [options](Tuple file) -> Result<Dataset> {
            return TFRecord({file[0].flat<std::string>()[0]}, options);
          },
          {.cycle_length = reads, .block_length = 1});
}
Dataset Dataset::Zip(std::vector<Dataset> datasets) {
  std::vector<DatasetPtr> inputs;
  for (Dataset& d : datasets) inputs.push_back(std::move(d.base_));
  return Dataset(internal::MakeZip(std::move(inputs)));
}

Dataset Dataset::TextLine(std::vector<std::string> files,
                          TFRecordOptions options) {
  return Dataset(internal::MakeTextLine(std::move(files), options));
}
Dataset Dataset::FixedLengthRecord(std::vector<std::string> files,
                                   int64_t record_bytes, int64_t header_bytes,
                                   int64_t footer_bytes,
                                   TFRecordOptions options) {
  return Dataset(internal::MakeFixedLength(
      std::move(files), record_bytes, header_bytes, footer_bytes, options));
}
Dataset Dataset::ListFiles(std::vector<std::string> patterns, bool shuffle,
                           std::optional<int64_t> seed, Env* env) {
  return Dataset(
      internal::MakeListFiles(std::move(patterns), shuffle, seed, env));
}
Dataset Dataset::FromGenerator(std::function<Result<Generator>()> make) {
  return Dataset(internal::MakeGenerator(std::move(make)));
}
Dataset Dataset::FlatMap(DatasetFn fn) const {
  return Dataset(internal::MakeFlatMap(base_, std::move(fn)));
}
Dataset Dataset::Interleave(DatasetFn fn, InterleaveOptions options) const {
  return Dataset(internal::MakeInterleave(
      base_, std::move(fn), options.cycle_length, options.block_length,
      options.num_parallel_calls, options.deterministic));
}
Dataset Dataset::Unbatch() const {
  return Dataset(internal::MakeUnbatch(base_));
}
Dataset Dataset::PaddedBatch(int64_t batch_size,
                             PaddedBatchOptions options) const {
  return Dataset(
      internal::MakePaddedBatch(base_, batch_size, std::move(options)));
}

Dataset Dataset::Map(MapFn fn, MapOptions options) const {
  const int threads = options.num_parallel_calls;
  if (threads == 0 || threads == 1) {
    return Dataset(internal::MakeMap(base_, std::move(fn)));
  }
  return Dataset(internal::MakeParallel(
      base_, std::move(fn), "map", threads,
      threads == kAutotune ? kAutotune : 2 * static_cast<int64_t>(threads),
      options.deterministic));
}
Dataset Dataset::RaggedBatch(int64_t batch_size, bool drop_remainder) const {
  return Dataset(internal::MakeRaggedBatch(base_, batch_size, drop_remainder));
}
Dataset Dataset::SparseBatch(int64_t batch_size,
                             std::vector<int64_t> row_shape) const {
  return Dataset(
      internal::MakeSparseBatch(base_, batch_size, std::move(row_shape)));
}
Dataset Dataset::Filter(PredicateFn fn) const {
  return Dataset(internal::MakeFilter(base_, std::move(fn)));
}
Dataset Dataset::Batch(int64_t batch_size, bool drop_remainder,
                       int num_parallel_calls) const {
  return Dataset(internal::MakeBatch(base_, batch_size, drop_remainder,
                                     num_parallel_calls));
}
Dataset Dataset::Shuffle(int64_t buffer_size, std::optional<int64_t> seed,
                         bool reshuffle_each_iteration) const {
  return Dataset(internal::MakeShuffle(base_, buffer_size, seed,
                                       reshuffle_each_iteration));
}
Dataset Dataset::Repeat(int64_t count) const {
  return Dataset(internal::MakeRepeat(base_, count));
}
Dataset Dataset::Take(int64_t count) const {
  return Dataset(internal::MakeTake(base_, count));
}
Dataset Dataset::Skip(int64_t count) const {
  return Dataset(internal::MakeSkip(base_, count));
}
Dataset Dataset::Shard(int64_t num_shards, int64_t index) const {
  if (DatasetPtr direct = internal::ShardIndexed(base_, num_shards, index)) {
    return Dataset(std::move(direct));
  }
  return Dataset(internal::MakeShard(base_, num_shards, index));
}
Dataset Dataset::Enumerate(int64_t start) const {
  return Dataset(internal::MakeEnumerate(base_, start));
}
Dataset Dataset::Concatenate(const Dataset& other) const {
  return Dataset(internal::MakeConcatenate(base_, other.base_));
}
Dataset Dataset::Cache(std::string filename, Env* env) const {
  return Dataset(internal::MakeCache(base_, std::move(filename), env));
}
Dataset Dataset::Prefetch(int64_t buffer_size) const {
  // After a parallel map, its own buffer grows instead: the consumer takes
  // from the map's workers directly (as tf.data fuses them).
  if (DatasetPtr fused = internal::FusePrefetch(base_, buffer_size)) {
    return Dataset(std::move(fused));
  }
  return Dataset(
      internal::MakeParallel(base_, nullptr, "prefetch", 1, buffer_size, true));
}

Dataset Dataset::WithOptions(const Options& options) const {
  return Dataset(internal::MakeOptions(base_, options));
}
Options Dataset::options() const { return internal::PipelineOptions(*base_); }

int64_t Dataset::Cardinality() const {
  return base_->status().ok() ? base_->Cardinality() : kUnknown;
}
Status Dataset::status() const { return base_->status(); }

std::string Dataset::DebugString() const {
  std::string out;
  for (const internal::DatasetBase* d = base_.get(); d != nullptr;
       d = d->inputs().empty() ? nullptr : d->inputs()[0].get()) {
    out = out.empty() ? d->kind() : d->kind() + " -> " + out;
  }
  return out;
}

Result<Iterator> Dataset::MakeIterator() const {
  INFLOW_RETURN_IF_ERROR(base_->status());
  auto pipeline = std::make_shared<internal::Pipeline>(*base_);
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<internal::IteratorBase> impl,
                          base_->MakeIterator({.pipeline = pipeline.get()}));
  return Iterator(base_, std::move(pipeline), std::move(impl));
}

Iterator::Iterator(std::shared_ptr<const internal::DatasetBase> dataset,
                   std::shared_ptr<internal::Pipeline> pipeline,
                   std::unique_ptr<internal::IteratorBase> impl)
    : dataset_(std::move(dataset)),
      pipeline_(std::move(pipeline)),
      impl_(std::move(impl)) {}

IteratorStats Iterator::Stats() const { return pipeline_->Stats(); }
Iterator::Iterator(Iterator&&) noexcept = default;
Iterator& Iterator::operator=(Iterator&&) noexcept = default;
Iterator::~Iterator() = default;

Result<Tuple> Iterator::Next(const CallOptions& options) {
  if ((++calls_ & 63) == 0) pipeline_->MaybeTune();
  INFLOW_ASSIGN_OR_RETURN(std::optional<Tuple> e, impl_->Next(options));
  if (!e) return OutOfRangeError("end of the dataset");
  return std::move(*e);
}

Result<std::string> Iterator::Save() {
  internal::StateWriter w;
  w.Tag(kStateTag);
  INFLOW_RETURN_IF_ERROR(impl_->Save(w));
  std::string out = w.Take();
  const uint32_t crc = crc32c::Mask(crc32c::Value(out.data(), out.size()));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(crc >> (8 * i)));
  return out;
}

namespace {

// The state without its checksum; INVALID_ARGUMENT when it does not match.
Result<std::string_view> CheckedBody(std::string_view state) {
  if (state.size() < 4) {
    return InvalidArgumentError(
        "dataset iterator state: " + std::to_string(state.size()) +
        " bytes, too short to be one");
  }
  const std::string_view body = state.substr(0, state.size() - 4);
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) {
    stored |=
        static_cast<uint32_t>(static_cast<uint8_t>(state[body.size() + i]))
        << (8 * i);
  }
  if (stored != crc32c::Mask(crc32c::Value(body.data(), body.size()))) {
    return InvalidArgumentError(
        "dataset iterator state: its checksum does not match (damaged)");
  }
  return body;
}

}  // namespace

Status Iterator::Restore(std::string_view state) {
  Result<std::string_view> body = CheckedBody(state);
  internal::StateReader r(body.ok() ? *body : std::string_view());
  Status s = body.ok() ? r.Tag(kStateTag) : body.status();
  if (s.ok()) s = impl_->Restore(r);
  if (s.ok() && !r.done()) {
    s = InvalidArgumentError(
        "dataset iterator state: " +
        std::to_string(state.size() - r.position()) +
        " bytes left over (the state of another pipeline)");
  }
  if (s.ok()) return s;
  // Back at the start, so that the iterator is never half restored.
  Result<std::unique_ptr<internal::IteratorBase>> fresh =
      dataset_->MakeIterator({.pipeline = pipeline_.get()});
  if (fresh.ok()) impl_ = std::move(fresh).value();
  return s;
}

}  // namespace inflow::data
