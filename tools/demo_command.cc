// Copyright 2026 The inflow Authors.
//
// `inflow demo`: the job `make demo` runs. Until the queue pipeline lands
// it builds random examples, stacks them into batches and reduces each
// batch, reporting throughput.

#include <chrono>
#include <cstdio>
#include <random>

#include "inflow/core/tensor.h"

#include "command.h"

namespace inflow::tools {
namespace {

Status RunDemo(int batches, int batch_size) {
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  const auto t0 = std::chrono::steady_clock::now();
  double total = 0;
  for (int b = 0; b < batches; ++b) {
    std::vector<Tensor> rows;
    rows.reserve(batch_size);
    for (int i = 0; i < batch_size; ++i) {
      Tensor row(DType::kFloat32, TensorShape({784}));
      for (float& v : row.flat<float>()) v = dist(rng);
      rows.push_back(std::move(row));
    }
    INFLOW_ASSIGN_OR_RETURN(Tensor batch, Tensor::Stack(rows));
    double sum = 0;
    for (float v : batch.flat<float>()) sum += v;
    total += sum / static_cast<double>(batch.num_elements());
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf(
      "demo: %d batches of %d x 784 floats in %.3f s (%.0f examples/s), "
      "mean of batch means %.5f\n",
      batches, batch_size, secs, batches * batch_size / secs, total / batches);
  return OkStatus();
}

INFLOW_REGISTER_COMMAND("demo", "Run the demo pipeline", [](CLI::App& sub) {
  auto batches = std::make_shared<int>(200);
  auto batch_size = std::make_shared<int>(128);
  sub.add_option("--batches", *batches, "batches to produce");
  sub.add_option("--batch-size", *batch_size, "examples per batch");
  return [batches, batch_size] { return RunDemo(*batches, *batch_size); };
});

}  // namespace
}  // namespace inflow::tools
