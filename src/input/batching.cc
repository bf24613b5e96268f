// Copyright 2026 The inflow Authors.
//
// Batch, BatchJoin, ShuffleBatch, ShuffleBatchJoin and the Maybe* forms:
// one queue, one QueueRunner and one fill metric per call, as TF's
// input.py builds them.

#include "inflow/input/batching.h"

#include <string>
#include <utility>
#include <vector>

#include "inflow/input/queue_metrics.h"
#include "inflow/queue/queue_options.h"

#include "input/batch_signature.h"
#include "input/keep_input.h"
#include "input/seeds.h"
#include "input/sparse_rows.h"

namespace inflow {
namespace {

// What distinguishes the four calls.
struct Call {
  const char* function;                // "batch", ... (TF's default name scope)
  bool join;                           // one thread per input
  const ShuffleBatchOptions* shuffle;  // nullptr: batch / batch_join
};

// Thread-safe: every member is set at construction; the queue is.
class BatcherImpl final : public Batcher {
 public:
  BatcherImpl(std::shared_ptr<QueueInterface> queue,
              std::shared_ptr<QueueRunner> runner, MetricGroup metrics,
              std::string tag, std::vector<PartialShape> output_shapes,
              std::vector<bool> sparse,
              std::shared_ptr<internal::SparseRows> sparse_rows,
              int64_t batch_size, bool allow_smaller_final_batch)
      : queue_(std::move(queue)),
        runner_(std::move(runner)),
        metrics_(std::move(metrics)),
        tag_(std::move(tag)),
        output_shapes_(std::move(output_shapes)),
        sparse_(std::move(sparse)),
        sparse_rows_(std::move(sparse_rows)),
        batch_size_(batch_size),
        allow_smaller_final_batch_(allow_smaller_final_batch) {}

  Result<Tuple> Next(const CallOptions& options) override {
    Result<Tuple> dequeued = allow_smaller_final_batch_
                                 ? queue_->DequeueUpTo(batch_size_, options)
                                 : queue_->DequeueMany(batch_size_, options);
    if (sparse_rows_ == nullptr || !dequeued.ok()) return dequeued;
    return sparse_rows_->Take(std::move(dequeued).value());
  }
  const std::vector<PartialShape>& output_shapes() const override {
    return output_shapes_;
  }
  const std::vector<bool>& sparse() const override { return sparse_; }
  const std::shared_ptr<QueueInterface>& queue() const override {
    return queue_;
  }
  const std::shared_ptr<QueueRunner>& runner() const override {
    return runner_;
  }
  const std::string& fill_metric_tag() const override { return tag_; }

 private:
  const std::shared_ptr<QueueInterface> queue_;
  const std::shared_ptr<QueueRunner> runner_;
  const MetricGroup metrics_;
  const std::string tag_;
  const std::vector<PartialShape> output_shapes_;
  const std::vector<bool> sparse_;
  // nullptr without sparse components.
  const std::shared_ptr<internal::SparseRows> sparse_rows_;
  const int64_t batch_size_;
  const bool allow_smaller_final_batch_;
};

Result<std::shared_ptr<Batcher>> MakeBatcher(std::vector<BatchInput> inputs,
                                             const KeepInputFn* keep_input,
                                             const BatchOptions& options,
                                             const Call& call) {
  const std::string function = call.function;
  if (call.shuffle != nullptr &&
      options.capacity <= call.shuffle->min_after_dequeue) {
    return InvalidArgumentError(
        function + ": capacity " + std::to_string(options.capacity) +
        " must be bigger than min_after_dequeue " +
        std::to_string(call.shuffle->min_after_dequeue) + ".");
  }
  if (call.shuffle != nullptr && options.dynamic_pad) {
    return InvalidArgumentError(function + ": dynamic_pad is not supported");
  }
  if (keep_input != nullptr && !*keep_input) {
    return InvalidArgumentError(function + ": keep_input is empty");
  }
  INFLOW_ASSIGN_OR_RETURN(
      internal::BatchSignature sig,
      internal::MakeBatchSignature(inputs, options, function));
  if (sig.has_sparse && !options.shared_name.empty()) {
    // The handles in a shared queue would point into another call's rows.
    return InvalidArgumentError(function +
                                ": shared_name is not supported with "
                                "SparseTensor components");
  }

  MetricsRegistry& registry = options.metrics != nullptr
                                  ? *options.metrics
                                  : MetricsRegistry::Default();
  // The registry makes the scope unique ("batch_1"); the queue and the
  // threads are named under the scope the metrics get.
  std::string scope;
  {
    MetricGroup reserved =
        registry.AddGroup(options.name.empty() ? function : options.name, {});
    scope = reserved.scope();
  }

  QueueOptions qo;
  qo.capacity = options.capacity;
  qo.dtypes = sig.dtypes;
  qo.shapes = sig.shapes;
  qo.names = sig.names;
  qo.shared_name = options.shared_name;
  QueueKind kind =
      options.dynamic_pad ? QueueKind::kPaddingFIFO : QueueKind::kFIFO;
  FillMetric fill = FillMetric::Fraction(options.capacity);
  if (call.shuffle != nullptr) {
    kind = QueueKind::kRandomShuffle;
    qo.min_after_dequeue = call.shuffle->min_after_dequeue;
    // TF's get_seed; a graph seed alone pairs with op index 0 (TF counts
    // the graph's unseeded ops; a call here knows of no others).
    const internal::TfSeedPair seeds =
        internal::TfSeeds(call.shuffle->graph_seed, call.shuffle->seed);
    qo.seed = seeds.seed;
    qo.seed2 = seeds.seed2;
    fill =
        FillMetric::OverMin(call.shuffle->min_after_dequeue, options.capacity);
  }
  qo.name = scope + "/" +
            (kind == QueueKind::kFIFO          ? "fifo_queue"
             : kind == QueueKind::kPaddingFIFO ? "padding_fifo_queue"
                                               : "random_shuffle_queue");
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<QueueInterface> queue,
                          CreateQueue(kind, qo));

  // One store for every input's sparse components (TF's shared
  // SparseTensorsMap of the *_join forms).
  std::shared_ptr<internal::SparseRows> sparse_rows;
  if (sig.has_sparse) {
    sparse_rows = std::make_shared<internal::SparseRows>(
        sig.components, options.enqueue_many, qo.name);
  }
  std::vector<QueueOp> ops;
  const size_t threads =
      call.join ? inputs.size() : static_cast<size_t>(options.num_threads);
  for (size_t i = 0; i < threads; ++i) {
    const BatchInput& input = inputs[call.join ? i : 0];
    if (keep_input != nullptr) {
      ops.push_back(internal::MakeKeepInputEnqueueOp(
          queue, input.step, *keep_input, options.enqueue_many, sparse_rows,
          input.sparse_row_extents));
    } else if (sparse_rows != nullptr) {
      ops.push_back(internal::MakeSparseEnqueueOp(
          queue, input.step, sparse_rows, options.enqueue_many,
          input.sparse_row_extents));
    } else if (input.enqueue_step && options.enqueue_many) {
      ops.push_back(
          [queue, step = input.enqueue_step](const CallOptions& call) {
            return step(*queue, call);
          });
    } else {
      ops.push_back(MakeEnqueueOp(queue, input.step, options.enqueue_many));
    }
  }
  // TF's batching runners use QueueRunner's default: only OUT_OF_RANGE
  // means "input exhausted".
  QueueRunnerOptions ro;
  ro.name = scope;
  ro.nice = options.nice;
  INFLOW_ASSIGN_OR_RETURN(
      std::shared_ptr<QueueRunner> runner,
      QueueRunner::Create(queue, std::move(ops), std::move(ro)));

  MetricGroup metrics = PublishQueueMetrics(registry, scope, queue, fill);
  std::string tag = metrics.scope() + "/" + fill.name;

  std::vector<PartialShape> output_shapes;
  const int64_t lead =
      options.allow_smaller_final_batch ? -1 : options.batch_size;
  std::vector<bool> sparse;
  for (size_t c = 0; c < sig.shapes.size(); ++c) {
    const internal::SparseRows::Component& comp = sig.components[c];
    sparse.push_back(comp.sparse);
    if (!comp.sparse) {
      output_shapes.push_back(sig.shapes[c].Prepend(lead));
    } else if (comp.rank < 0) {
      output_shapes.push_back(PartialShape::UnknownRank());
    } else {
      // TF's: the dense shape is computed at dequeue, so no dim is known.
      output_shapes.push_back(PartialShape(std::vector<int64_t>(
          static_cast<size_t>(comp.rank) + 1, PartialShape::kUnknownDim)));
    }
  }

  QueueRunnerCollection& collection = options.collection != nullptr
                                          ? *options.collection
                                          : QueueRunnerCollection::Default();
  collection.Add(runner, options.collection_name);
  return std::shared_ptr<Batcher>(std::make_shared<BatcherImpl>(
      std::move(queue), std::move(runner), std::move(metrics), std::move(tag),
      std::move(output_shapes), std::move(sparse), std::move(sparse_rows),
      options.batch_size, options.allow_smaller_final_batch));
}

std::vector<BatchInput> One(BatchInput input) {
  std::vector<BatchInput> inputs;
  inputs.push_back(std::move(input));
  return inputs;
}

}  // namespace

Result<NamedTuple> Batcher::NextNamed(const CallOptions& options) {
  if (queue()->component_names().empty()) {
    return InvalidArgumentError(queue()->name() +
                                ": NextNamed needs an input with names");
  }
  for (size_t c = 0; c < sparse().size(); ++c) {
    if (sparse()[c]) {
      return InvalidArgumentError(
          queue()->name() + ": NextNamed cannot return the SparseTensor \"" +
          queue()->component_names()[c] + "\" (three tensors); use Next()");
    }
  }
  INFLOW_ASSIGN_OR_RETURN(Tuple batch, Next(options));
  return queue()->NamedFromTuple(std::move(batch));
}

Result<std::shared_ptr<Batcher>> Batch(BatchInput input,
                                       const BatchOptions& options) {
  return MakeBatcher(One(std::move(input)), nullptr, options,
                     {"batch", false, nullptr});
}

Result<std::shared_ptr<Batcher>> BatchJoin(std::vector<BatchInput> inputs,
                                           const BatchOptions& options) {
  return MakeBatcher(std::move(inputs), nullptr, options,
                     {"batch_join", true, nullptr});
}

Result<std::shared_ptr<Batcher>> ShuffleBatch(
    BatchInput input, const ShuffleBatchOptions& options) {
  return MakeBatcher(One(std::move(input)), nullptr, options,
                     {"shuffle_batch", false, &options});
}

Result<std::shared_ptr<Batcher>> ShuffleBatchJoin(
    std::vector<BatchInput> inputs, const ShuffleBatchOptions& options) {
  return MakeBatcher(std::move(inputs), nullptr, options,
                     {"shuffle_batch_join", true, &options});
}

Result<std::shared_ptr<Batcher>> MaybeBatch(BatchInput input,
                                            KeepInputFn keep_input,
                                            const BatchOptions& options) {
  return MakeBatcher(One(std::move(input)), &keep_input, options,
                     {"batch", false, nullptr});
}

Result<std::shared_ptr<Batcher>> MaybeBatchJoin(std::vector<BatchInput> inputs,
                                                KeepInputFn keep_input,
                                                const BatchOptions& options) {
  return MakeBatcher(std::move(inputs), &keep_input, options,
                     {"batch_join", true, nullptr});
}

Result<std::shared_ptr<Batcher>> MaybeShuffleBatch(
    BatchInput input, KeepInputFn keep_input,
    const ShuffleBatchOptions& options) {
  return MakeBatcher(One(std::move(input)), &keep_input, options,
                     {"shuffle_batch", false, &options});
}

Result<std::shared_ptr<Batcher>> MaybeShuffleBatchJoin(
    std::vector<BatchInput> inputs, KeepInputFn keep_input,
    const ShuffleBatchOptions& options) {
  return MakeBatcher(std::move(inputs), &keep_input, options,
                     {"shuffle_batch_join", true, &options});
}

}  // namespace inflow
