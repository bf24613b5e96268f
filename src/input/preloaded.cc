// Copyright 2026 The inflow Authors.
//
// Preloaded: slice_input_producer over tensors in memory, then batch or
// shuffle_batch with one thread.

#include <utility>

#include "inflow/input/batch_source.h"
#include "inflow/input/batching.h"
#include "inflow/input/producers.h"

#include "threaded_source.h"

namespace inflow {
namespace {

class PreloadedSource : public BatchSource {
 public:
  PreloadedSource(std::vector<std::string> names, std::vector<DType> dtypes,
                  std::vector<PartialShape> row_shapes,
                  std::chrono::milliseconds grace)
      : source_(std::move(names), std::move(dtypes), std::move(row_shapes),
                grace) {}

  Result<Tuple> Next(const CallOptions& options) override {
    return source_.Next(options);
  }
  const std::vector<std::string>& names() const override {
    return source_.names();
  }
  const std::vector<DType>& dtypes() const override { return source_.dtypes(); }
  const std::vector<PartialShape>& row_shapes() const override {
    return source_.row_shapes();
  }
  Status Close() override { return source_.Close(); }

  Status Build(Tuple tensors, const PreloadedOptions& options) {
    ProducerOptions p;
    p.num_epochs = options.num_epochs;
    p.shuffle = options.shuffle;
    p.seed = options.batching.seed;
    p.graph_seed = options.batching.graph_seed;
    p.name = options.name + "/input_producer";
    p.metrics = options.metrics;
    p.collection = source_.collection();
    INFLOW_ASSIGN_OR_RETURN(slices_, SliceInputProducer(std::move(tensors), p));
    BatchInput in;
    in.dtypes = source_.dtypes();
    in.shapes = source_.row_shapes();
    in.names = source_.names();
    in.step = slices_.step;
    std::vector<BatchInput> inputs;
    inputs.push_back(std::move(in));
    INFLOW_ASSIGN_OR_RETURN(
        std::shared_ptr<Batcher> batcher,
        internal::MakeBatcher(std::move(inputs), source_.row_shapes(),
                              /*enqueue_many=*/false, options.batching,
                              options.name, options.metrics,
                              source_.collection()));
    source_.Start(std::move(batcher));
    return OkStatus();
  }

 private:
  SliceProducer slices_;
  internal::ThreadedSource source_;
};

}  // namespace

Result<std::shared_ptr<BatchSource>> Preloaded::Create(
    Tuple tensors, PreloadedOptions options) {
  if (tensors.empty()) {
    return InvalidArgumentError("Preloaded needs at least one tensor");
  }
  if (!options.names.empty() && options.names.size() != tensors.size()) {
    return InvalidArgumentError(
        "Preloaded: " + std::to_string(tensors.size()) + " tensors but " +
        std::to_string(options.names.size()) + " names");
  }
  std::vector<DType> dtypes;
  std::vector<PartialShape> rows;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.rank() < 1) {
      return InvalidArgumentError("Preloaded: tensor " + std::to_string(i) +
                                  " is a scalar; each needs one row per "
                                  "example along its first dimension");
    }
    if (t.dim_size(0) != tensors[0].dim_size(0)) {
      return InvalidArgumentError("Preloaded: tensor " + std::to_string(i) +
                                  " has " + std::to_string(t.dim_size(0)) +
                                  " rows, tensor 0 has " +
                                  std::to_string(tensors[0].dim_size(0)));
    }
    dtypes.push_back(t.dtype());
    rows.push_back(PartialShape(t.shape().Slice(1)));
  }
  auto source = std::make_shared<PreloadedSource>(
      options.names, std::move(dtypes), std::move(rows),
      options.stop_grace_period);
  INFLOW_RETURN_IF_ERROR(source->Build(std::move(tensors), options));
  return std::shared_ptr<BatchSource>(std::move(source));
}

}  // namespace inflow
