// Copyright 2026 The inflow Authors.
//
// The input producers (producers.h): a FIFOQueue, one QueueRunner whose
// single op enqueues one epoch per step (EpochLimit's check first, then
// TF's shuffle), the fill metric, and the slice producer's step.

#include "inflow/input/producers.h"

#include <string>
#include <utility>
#include <vector>

#include "inflow/input/queue_metrics.h"
#include "inflow/queue/queue_options.h"

#include "input/epoch_shuffle.h"
#include "input/seeds.h"

namespace inflow {
namespace {

// input.shape[1:] merged with `element_shape`.
Result<PartialShape> ElementShape(const Tensor& input,
                                  const PartialShape& element_shape,
                                  const std::string& where) {
  TensorShape rows = input.shape();
  rows.RemoveDim(0);
  if (!element_shape.IsCompatibleWith(rows)) {
    return InvalidArgumentError(where + "element_shape " +
                                element_shape.DebugString() +
                                " does not match the input's element shape " +
                                rows.DebugString() + " (input.shape[1:])");
  }
  return PartialShape(rows);
}

// The scope the producer's names use: TF's name scope made unique by the
// registry ("input_producer", "input_producer_1", ...). The reservation is
// released just before the real gauges take the scope.
MetricGroup ReserveScope(MetricsRegistry& registry, const std::string& base) {
  return registry.AddGroup(base, {{"size", [] { return 0.0; }}});
}

}  // namespace

Result<Producer> InputProducer(Tensor input, PartialShape element_shape,
                               ProducerOptions options) {
  const std::string where = "input_producer: ";
  if (!input.IsInitialized() || input.rank() < 1) {
    return InvalidArgumentError(where +
                                "input must have rank >= 1, got a scalar");
  }
  if (input.dim_size(0) == 0) {
    return InvalidArgumentError(where + "input must not be empty (shape " +
                                input.shape().DebugString() + ")");
  }
  if (options.shuffle && input.dim_size(0) > internal::EpochShuffle::kMaxRows) {
    return InvalidArgumentError(where + "cannot shuffle " +
                                std::to_string(input.dim_size(0)) + " rows");
  }
  INFLOW_ASSIGN_OR_RETURN(PartialShape shape,
                          ElementShape(input, element_shape, where));
  const DType dtype = input.dtype();
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<EpochLimit> epochs,
                          EpochLimit::Create({input}, options.num_epochs));

  MetricsRegistry& registry = options.metrics != nullptr
                                  ? *options.metrics
                                  : MetricsRegistry::Default();
  MetricGroup reserved = ReserveScope(
      registry, options.name.empty() ? "input_producer" : options.name);
  const std::string scope = reserved.scope();

  QueueOptions queue_options;
  queue_options.capacity = options.capacity;
  queue_options.dtypes = {dtype};
  queue_options.shapes = {shape};
  queue_options.name = scope;  // TF names the queue after the scope
  queue_options.shared_name = options.shared_name;
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<QueueInterface> queue,
                          CreateQueue(QueueKind::kFIFO, queue_options));

  std::shared_ptr<internal::EpochShuffle> shuffle;
  if (options.shuffle) {
    shuffle = std::make_shared<internal::EpochShuffle>(
        internal::TfSeeds(options.graph_seed, options.seed));
  }
  auto produce = [epochs, shuffle](const CallOptions&) -> Result<Tuple> {
    INFLOW_ASSIGN_OR_RETURN(Tuple epoch, epochs->Next());
    if (shuffle != nullptr) {
      INFLOW_ASSIGN_OR_RETURN(
          epoch[0], internal::GatherRows(epoch[0], shuffle->NextPermutation(
                                                       epoch[0].dim_size(0))));
    }
    return epoch;
  };
  QueueRunnerOptions runner_options;
  runner_options.name = scope;
  runner_options.cancel_op = std::move(options.cancel_op);
  INFLOW_ASSIGN_OR_RETURN(
      std::shared_ptr<QueueRunner> runner,
      QueueRunner::Create(queue,
                          {MakeEnqueueOp(queue, std::move(produce),
                                         /*many=*/true)},
                          std::move(runner_options)));

  reserved.Reset();
  MetricGroup metrics = PublishQueueMetrics(
      registry, scope, queue, FillMetric::Fraction(queue->Capacity()));
  QueueRunnerCollection& collection = options.collection != nullptr
                                          ? *options.collection
                                          : QueueRunnerCollection::Default();
  collection.Add(runner, options.collection_name);
  return Producer{.queue = std::move(queue),
                  .runner = std::move(runner),
                  .epochs = std::move(epochs),
                  .metrics = std::move(metrics)};
}

Result<Producer> StringInputProducer(std::vector<std::string> strings,
                                     ProducerOptions options) {
  if (strings.empty()) {
    return InvalidArgumentError(
        "string_input_producer requires a non-null input tensor (strings is "
        "empty)");
  }
  return InputProducer(Tensor::FromVector(strings), PartialShape(TensorShape()),
                       std::move(options));
}

Result<Producer> RangeInputProducer(int32_t limit, ProducerOptions options) {
  if (limit <= 0) {
    return InvalidArgumentError(
        "range_input_producer: limit must be > 0, got " +
        std::to_string(limit));
  }
  std::vector<int32_t> range(static_cast<size_t>(limit));
  for (int32_t i = 0; i < limit; ++i) range[static_cast<size_t>(i)] = i;
  return InputProducer(Tensor::FromVector(range), PartialShape(TensorShape()),
                       std::move(options));
}

Result<SliceProducer> SliceInputProducer(Tuple tensors,
                                         ProducerOptions options) {
  const std::string where = "slice_input_producer: ";
  if (tensors.empty()) {
    return InvalidArgumentError(where + "tensor_list must not be empty");
  }
  SliceProducer slice;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    const std::string name = "tensor_list[" + std::to_string(i) + "]";
    if (!t.IsInitialized() || t.rank() < 1) {
      return InvalidArgumentError(where + name +
                                  " must have rank >= 1, got a scalar");
    }
    if (t.dim_size(0) != tensors[0].dim_size(0)) {
      return InvalidArgumentError(where + name + " has " +
                                  std::to_string(t.dim_size(0)) +
                                  " rows, tensor_list[0] has " +
                                  std::to_string(tensors[0].dim_size(0)));
    }
    TensorShape row = t.shape();
    row.RemoveDim(0);
    slice.dtypes.push_back(t.dtype());
    slice.shapes.push_back(row);
  }
  const int64_t rows = tensors[0].dim_size(0);
  if (rows == 0 || rows > internal::EpochShuffle::kMaxRows) {
    return InvalidArgumentError(where + "tensor_list[0] has " +
                                std::to_string(rows) +
                                " rows; need 1 .. 2^31-2");
  }
  // TF builds the range producer inside the slice producer's own scope:
  // "input_producer/input_producer/fraction_of_32_full".
  {
    MetricsRegistry& registry = options.metrics != nullptr
                                    ? *options.metrics
                                    : MetricsRegistry::Default();
    MetricGroup outer = ReserveScope(
        registry, options.name.empty() ? "input_producer" : options.name);
    options.name = outer.scope() + "/input_producer";
  }
  INFLOW_ASSIGN_OR_RETURN(
      slice.indices,
      RangeInputProducer(static_cast<int32_t>(rows), std::move(options)));
  std::shared_ptr<QueueInterface> queue = slice.indices.queue;
  slice.step = [queue, tensors = std::move(tensors)](
                   const CallOptions& call) -> Result<Tuple> {
    INFLOW_ASSIGN_OR_RETURN(Tuple index, queue->Dequeue(call));
    const int64_t i = *index[0].data<int32_t>();
    Tuple out;
    out.reserve(tensors.size());
    for (const Tensor& t : tensors) out.push_back(t.SubTensor(i));
    return out;
  };
  return slice;
}

}  // namespace inflow
