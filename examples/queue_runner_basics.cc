// Copyright 2026 The inflow Authors.
//
// A FIFOQueue of capacity 5 kept full by a QueueRunner whose threads
// produce random 128x1024 float batches; the main loop dequeues them and
// keeps a running mean and variance of every feature (Welford), then stops
// the coordinator and joins the threads. Prints how long it took.
//
//   build/release/bin/example_queue_runner_basics [threads 1-4] [batches]

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "inflow/queue/fifo_queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

namespace {

constexpr int64_t kRows = 128;
constexpr int64_t kCols = 1024;

using inflow::Status;

Status Run(int num_threads, int num_batches) {
  inflow::QueueOptions options;
  options.capacity = 5;
  options.dtypes = {inflow::DType::kFloat32};
  options.shapes = {inflow::PartialShape({kRows, kCols})};
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<inflow::QueueInterface> queue,
                          inflow::FIFOQueue::Create(options));

  // One enqueue op per thread, each with its own generator.
  std::vector<inflow::QueueOp> ops;
  for (int i = 0; i < num_threads; ++i) {
    auto rng = std::make_shared<std::mt19937>(1234 + i);
    ops.push_back(inflow::MakeEnqueueOp(
        queue,
        [rng](const inflow::CallOptions&) -> inflow::Result<inflow::Tuple> {
          std::normal_distribution<float> normal(0.0f, 1.0f);
          inflow::Tensor batch = inflow::Tensor::Uninitialized(
              inflow::DType::kFloat32, inflow::TensorShape({kRows, kCols}));
          inflow::Result<std::span<float>> values = batch.mutable_flat<float>();
          if (!values.ok()) return values.status();
          for (float& v : *values) v = normal(*rng);
          return inflow::Tuple{std::move(batch)};
        }));
  }
  INFLOW_ASSIGN_OR_RETURN(auto runner,
                          inflow::QueueRunner::Create(queue, std::move(ops)));

  const auto start = std::chrono::steady_clock::now();
  inflow::Coordinator coord;
  auto threads = runner->CreateThreads(&coord, /*start=*/true);

  // Running mean and sum of squared deviations of each of the 1024 features.
  std::vector<double> mean(kCols, 0.0), m2(kCols, 0.0);
  int64_t n = 0;
  for (int b = 0; b < num_batches && !coord.ShouldStop(); ++b) {
    inflow::Result<inflow::Tuple> got = queue->Dequeue(coord.MakeCallOptions());
    if (!got.ok()) {
      coord.RequestStop(got.status()).IgnoreError();
      break;
    }
    const float* x = (*got)[0].data<float>();
    for (int64_t r = 0; r < kRows; ++r) {
      ++n;
      for (int64_t c = 0; c < kCols; ++c) {
        const double v = x[r * kCols + c];
        const double delta = v - mean[c];
        mean[c] += delta / static_cast<double>(n);
        m2[c] += delta * (v - mean[c]);
      }
    }
  }
  coord.RequestStop();
  Status joined = coord.Join(threads, std::chrono::seconds(10));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!joined.ok()) return joined;

  double mean_of_means = 0, mean_of_vars = 0;
  for (int64_t c = 0; c < kCols; ++c) {
    mean_of_means += mean[c] / kCols;
    mean_of_vars += m2[c] / static_cast<double>(n - 1) / kCols;
  }
  std::printf(
      "%lld batches of %lldx%lld floats from %d thread(s) in %.3f s "
      "(%.0f batches/s)\n"
      "feature means average %.4f (expect 0), variances average %.4f "
      "(expect 1)\n",
      static_cast<long long>(n / kRows), static_cast<long long>(kRows),
      static_cast<long long>(kCols), num_threads, secs, (n / kRows) / secs,
      mean_of_means, mean_of_vars);
  return inflow::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int batches = argc > 2 ? std::atoi(argv[2]) : 200;
  if (threads < 1 || threads > 4 || batches < 1) {
    std::fprintf(stderr, "usage: %s [threads 1-4] [batches >= 1]\n", argv[0]);
    return 2;
  }
  Status s = Run(threads, batches);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
