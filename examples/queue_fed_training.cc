// Copyright 2026 The inflow Authors.
//
// A queue-fed training loop, as TF 1.x programs wrote it: two QueueRunner
// threads make random batches (128 x 1024 floats, labels in 0..9) into a
// FIFOQueue; the training thread dequeues them and trains a net of two
// 1024-unit ReLU layers with Adam, printing the loss every 500 steps and
// the time taken. The labels are random, so the loss only shows that the
// loop runs; the queue keeps the model from waiting for data.
//
//   build/release/bin/example_queue_fed_training [steps] [log_every]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"
#include "inflow/queue/fifo_queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

namespace {

constexpr int64_t kBatch = 128, kInputs = 1024, kClasses = 10;
using inflow::Status;

inflow::QueueOp RandomBatches(std::shared_ptr<inflow::QueueInterface> queue,
                              uint32_t seed) {
  auto rng = std::make_shared<std::mt19937>(seed);
  return inflow::MakeEnqueueOp(
      std::move(queue),
      [rng](const inflow::CallOptions&) -> inflow::Result<inflow::Tuple> {
        std::normal_distribution<float> normal(0.0f, 1.0f);
        inflow::Tensor x(inflow::DType::kFloat32,
                         inflow::TensorShape({kBatch, kInputs}));
        inflow::Tensor y(inflow::DType::kInt64, inflow::TensorShape({kBatch}));
        std::span<float> xs = x.mutable_flat<float>().value();
        std::span<int64_t> ys = y.mutable_flat<int64_t>().value();
        for (float& v : xs) v = normal(*rng);
        for (int64_t& v : ys) v = (*rng)() % kClasses;
        return inflow::Tuple{std::move(x), std::move(y)};
      });
}

Status Run(int steps, int log_every) {
  inflow::QueueOptions options;
  options.capacity = 8;
  options.dtypes = {inflow::DType::kFloat32, inflow::DType::kInt64};
  options.shapes = {inflow::PartialShape({kBatch, kInputs}),
                    inflow::PartialShape({kBatch})};
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<inflow::QueueInterface> queue,
                          inflow::FIFOQueue::Create(options));
  std::vector<inflow::QueueOp> ops = {RandomBatches(queue, 1),
                                      RandomBatches(queue, 2)};
  INFLOW_ASSIGN_OR_RETURN(auto runner,
                          inflow::QueueRunner::Create(queue, std::move(ops)));

  INFLOW_ASSIGN_OR_RETURN(
      std::unique_ptr<inflow::Mlp> model,
      inflow::Mlp::Create({.layer_sizes = {kInputs, 1024, 1024, kClasses},
                           .input_keep_prob = 1.0f,
                           .hidden_keep_prob = 1.0f}));
  INFLOW_ASSIGN_OR_RETURN(
      std::unique_ptr<inflow::Optimizer> adam,
      inflow::Optimizer::Create(
          {.kind = inflow::OptimizerKind::kAdam, .learning_rate = {}},
          model->variables()));

  const auto start = std::chrono::steady_clock::now();
  inflow::Coordinator coord;
  auto threads = runner->CreateThreads(&coord, /*start=*/true);
  Status status;
  for (int step = 1; step <= steps && !coord.ShouldStop(); ++step) {
    inflow::Result<inflow::Tuple> batch =
        queue->Dequeue(coord.MakeCallOptions());
    if (!batch.ok()) {
      status = batch.status();
      break;
    }
    inflow::Result<float> loss =
        model->ComputeGradients((*batch)[0], (*batch)[1], adam->step());
    if (!loss.ok()) {
      status = loss.status();
      break;
    }
    status = adam->Apply(model->gradients());
    if (!status.ok()) break;
    if (step % log_every == 0) std::printf("step %d: loss %.4f\n", step, *loss);
  }
  coord.RequestStop();
  Status joined = coord.Join(threads, std::chrono::seconds(10));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!status.ok()) return status;
  if (!joined.ok()) return joined;
  std::printf("%d steps in %.2f s (%.1f steps/s)\n", steps, secs, steps / secs);
  return inflow::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int log_every = argc > 2 ? std::atoi(argv[2]) : 500;
  if (steps < 1 || log_every < 1) {
    std::fprintf(stderr, "usage: %s [steps >= 1] [log_every >= 1]\n", argv[0]);
    return 2;
  }
  Status s = Run(steps, log_every);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
