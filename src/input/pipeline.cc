// Copyright 2026 The inflow Authors.

#include "inflow/input/pipeline.h"

#include <string_view>
#include <utility>
#include <variant>

#include "inflow/input/batching.h"
#include "inflow/input/file_match.h"
#include "inflow/input/producers.h"

#include "pipeline_stages.h"
#include "queue/batch.h"
#include "queue/batch_pool.h"
#include "threaded_source.h"

namespace inflow {
namespace {

using internal::ReadStage;
using internal::Signature;

class PipelineImpl : public Pipeline {
 public:
  PipelineImpl(Signature signature, std::vector<std::string> files,
               std::chrono::milliseconds grace)
      : files_(std::move(files)),
        source_(std::move(signature.names), std::move(signature.dtypes),
                std::move(signature.row_shapes), grace,
                std::move(signature.sparse)) {}

  Result<Tuple> Next(const CallOptions& options) override {
    Result<Tuple> batch = source_.Next(options);
    if (decode_ == nullptr || !batch.ok()) return batch;
    decode_->Decode(&*batch, decoded_.get());
    return batch;
  }
  const std::vector<std::string>& names() const override {
    return source_.names();
  }
  const std::vector<DType>& dtypes() const override { return source_.dtypes(); }
  const std::vector<PartialShape>& row_shapes() const override {
    return source_.row_shapes();
  }
  const std::vector<bool>& sparse() const override { return source_.sparse(); }
  Status Close() override { return source_.Close(); }
  const std::vector<std::string>& files() const override { return files_; }
  const std::string& fill_metric_tag() const override {
    return source_.batcher()->fill_metric_tag();
  }

  Status Build(const PipelineOptions& options, Env& env,
               std::shared_ptr<const ReadStage::Shared> shared) {
    // The queue's signature: the output's, but the fused values as bytes
    // when the readers write in place (pipeline_stages.h).
    const Signature& queued = shared->queued;
    if (shared->in_place) {
      decode_ = &*shared->raw_to_float;
      // Buffers for the decoded batches, within a full queue of them.
      decoded_ = std::make_unique<internal::BatchPool>(
          internal::RowBytes(source_.dtypes(), source_.row_shapes()) *
          static_cast<size_t>(internal::EffectiveCapacity(options.batching)));
    }
    shared_ = shared;
    ProducerOptions p;
    p.num_epochs = options.num_epochs;
    p.shuffle = options.shuffle_files;
    p.seed = options.batching.seed;
    p.graph_seed = options.batching.graph_seed;
    p.capacity = options.filename_capacity;
    p.name = options.name + "/input_producer";
    p.metrics = options.metrics;
    p.collection = source_.collection();
    INFLOW_ASSIGN_OR_RETURN(producer_, StringInputProducer(files_, p));

    std::vector<BatchInput> inputs;
    for (int i = 0; i < options.num_readers; ++i) {
      INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<ReaderBase> reader,
                              internal::NewReader(env, options));
      auto stage = std::make_shared<ReadStage>(shared, std::move(reader),
                                               producer_.queue);
      BatchInput in;
      in.dtypes = queued.dtypes;
      for (const PartialShape& s : queued.row_shapes) {
        in.shapes.push_back(s.Prepend(-1));
      }
      in.names = source_.names();
      in.sparse = source_.sparse();
      // Each row its own dense shape, as parse_single_example gives it:
      // the batches do not depend on read_batch.
      in.sparse_row_extents = true;
      in.step = [stage](const CallOptions& call) { return stage->Step(call); };
      if (shared->in_place) {
        in.enqueue_step = [stage](QueueInterface& queue,
                                  const CallOptions& call) {
          return stage->StepInto(queue, call);
        };
      }
      inputs.push_back(std::move(in));
    }
    // The queue's shapes: a SparseTensor's handle is int64 [1].
    std::vector<PartialShape> queue_shapes = source_.row_shapes();
    for (size_t c = 0; c < source_.sparse().size(); ++c) {
      if (source_.sparse()[c]) queue_shapes[c] = PartialShape({1});
    }
    INFLOW_ASSIGN_OR_RETURN(
        std::shared_ptr<Batcher> batcher,
        internal::MakeBatcher(std::move(inputs), std::move(queue_shapes), true,
                              options.batching, options.name, options.metrics,
                              source_.collection()));
    source_.Start(std::move(batcher));
    return OkStatus();
  }

 private:
  const std::vector<std::string> files_;
  Producer producer_;
  // With in-place readers: what turns a dequeued batch into the output,
  // its buffers, and what keeps it.
  const internal::RawToFloat* decode_ = nullptr;
  std::unique_ptr<internal::BatchPool> decoded_;
  std::shared_ptr<const ReadStage::Shared> shared_;
  // Last: its threads stop and join before the members above go.
  internal::ThreadedSource source_;
};

}  // namespace

Result<std::shared_ptr<Pipeline>> Pipeline::Create(PipelineOptions options) {
  if (options.num_readers < 1) {
    return InvalidArgumentError("num_readers must be >= 1, got " +
                                std::to_string(options.num_readers));
  }
  if (options.read_batch < 1) {
    return InvalidArgumentError("read_batch must be >= 1, got " +
                                std::to_string(options.read_batch));
  }
  Env& env = options.env != nullptr ? *options.env : Env::Default();
  INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> files,
                          MatchFiles(env, options.files));
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<const ReadStage::Shared> shared,
                          ReadStage::MakeShared(options));
  auto pipeline = std::make_shared<PipelineImpl>(
      shared->output, std::move(files), options.stop_grace_period);
  INFLOW_RETURN_IF_ERROR(pipeline->Build(options, env, std::move(shared)));
  return std::shared_ptr<Pipeline>(std::move(pipeline));
}

}  // namespace inflow
