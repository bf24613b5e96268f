// Copyright 2026 The inflow Authors.
//
// bench_batching: what Batch and ShuffleBatch cost per element over the
// same work written as one plain loop. Elements are float32 [784] rows
// (a Fashion-MNIST image as floats), each a pre-made tensor with its own
// buffer (as a parser's output), so the step costs next to nothing and the
// figure is batching's own: the runner thread, the queue's Enqueue, the
// consumer's DequeueMany (one copy of each row into a fresh batch) and a
// consumer that touches every batch. The plain loop copies the same rows into a
// fresh [128, 784] batch (and, for the shuffle, picks each row at random from a
// pool of min_after_dequeue rows) on one thread.
//
// Ends with one JSON line:
//   {"bench": "batching", "samples_per_s": {"batch": .., "shuffle_batch": ..,
//    "plain_batch": .., "plain_shuffle": ..}, "ratio_vs_plain_loop":
//    {"batch": .., "shuffle_batch": ..}, "kernels": {}}

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "inflow/input/batching.h"
#include "inflow/threads/coordinator.h"

#include "bench_util.h"

namespace inflow {
namespace {

constexpr int64_t kRow = 784;
constexpr int64_t kBatch = 128;
constexpr int64_t kCapacity = 10000;
constexpr int64_t kMinAfter = 5000;
constexpr int64_t kSourceRows = 4096;

using Clock = std::chrono::steady_clock;

// kSourceRows rows of kRow floats, each its own tensor; element i is row
// i % kSourceRows.
std::vector<Tensor> SourceRows() {
  std::vector<Tensor> rows;
  for (int64_t r = 0; r < kSourceRows; ++r) {
    Tensor t(DType::kFloat32, TensorShape({kRow}));
    auto flat = t.mutable_flat<float>().value();
    for (int64_t i = 0; i < kRow; ++i) flat[i] = float((r + i) % 251) / 251;
    rows.push_back(std::move(t));
  }
  return rows;
}

// Samples per second through Batch (shuffle: ShuffleBatch) of n elements.
double RunPipeline(const std::vector<Tensor>& source, int64_t n, bool shuffle) {
  auto next = std::make_shared<std::atomic<int64_t>>(0);
  BatchInput in{
      .dtypes = {DType::kFloat32},
      .shapes = {PartialShape({kRow})},
      .step = [next, n, &source](const CallOptions&) -> Result<Tuple> {
        const int64_t i = next->fetch_add(1);
        if (i >= n) return OutOfRangeError("done");
        return Tuple{source[i % kSourceRows]};
      }};
  MetricsRegistry registry;
  QueueRunnerCollection collection;
  ShuffleBatchOptions o;
  o.batch_size = kBatch;
  o.capacity = kCapacity;
  o.metrics = &registry;
  o.collection = &collection;
  std::shared_ptr<Batcher> batcher;
  if (shuffle) {
    o.min_after_dequeue = kMinAfter;
    o.seed = 1;
    batcher = ShuffleBatch(in, o).value();
  } else {
    batcher = Batch(in, o).value();
  }
  Coordinator coord;
  const auto start = Clock::now();
  auto threads = collection.Start(&coord);
  int64_t samples = 0;
  double touch = 0;
  for (;;) {
    Result<Tuple> b = batcher->Next(coord.MakeCallOptions());
    if (!b.ok()) break;
    const Tensor& x = (*b)[0];
    const float* d = x.data<float>();
    for (int64_t r = 0; r < x.dim_size(0); ++r) touch += d[r * kRow];
    samples += x.dim_size(0);
  }
  const double secs =
      std::chrono::duration<double>(Clock::now() - start).count();
  coord.RequestStop();
  Status s = coord.Join(threads);
  if (!s.ok() || touch < 0) std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return double(samples) / secs;
}

// The same rows batched by one plain loop (shuffle: through a pool of
// kMinAfter rows, each batch row picked at random from it).
double RunPlain(const std::vector<Tensor>& source, int64_t n, bool shuffle) {
  std::mt19937_64 rng(1);
  std::vector<int64_t> pool;
  int64_t i = 0;
  if (shuffle) {
    for (; i < kMinAfter && i < n; ++i) pool.push_back(i);
  }
  const auto start = Clock::now();
  int64_t samples = 0;
  double touch = 0;
  while (samples + kBatch <= n) {
    Tensor batch =
        Tensor::Uninitialized(DType::kFloat32, TensorShape({kBatch, kRow}));
    float* out = static_cast<float*>(batch.mutable_raw_data().value());
    for (int64_t r = 0; r < kBatch; ++r) {
      int64_t row = i;
      if (shuffle) {
        const size_t k = rng() % pool.size();
        row = pool[k];
        pool[k] = i < n ? i : pool.back();
        if (i >= n) pool.pop_back();
      }
      ++i;
      std::memcpy(out + r * kRow, source[row % kSourceRows].data<float>(),
                  kRow * sizeof(float));
    }
    for (int64_t r = 0; r < kBatch; ++r) touch += out[r * kRow];
    samples += kBatch;
  }
  const double secs =
      std::chrono::duration<double>(Clock::now() - start).count();
  if (touch < 0) std::fprintf(stderr, "negative\n");
  return double(samples) / secs;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  using namespace inflow;
  const bool smoke = bench::TakeSmokeFlag(&argc, argv);
  const int64_t n = smoke ? 20000 : 2000000;
  const int rounds = smoke ? 1 : 5;
  const std::vector<Tensor> source = SourceRows();
  std::vector<double> batch, shuffle, plain_batch, plain_shuffle;
  for (int r = 0; r < rounds; ++r) {
    plain_batch.push_back(RunPlain(source, n, false));
    batch.push_back(RunPipeline(source, n, false));
    plain_shuffle.push_back(RunPlain(source, n, true));
    shuffle.push_back(RunPipeline(source, n, true));
  }
  const double b = bench::Median(batch), s = bench::Median(shuffle);
  const double pb = bench::Median(plain_batch);
  const double ps = bench::Median(plain_shuffle);
  std::printf(
      "{\"bench\": \"batching\", \"samples_per_s\": {\"batch\": %.0f, "
      "\"shuffle_batch\": %.0f, \"plain_batch\": %.0f, \"plain_shuffle\": "
      "%.0f}, \"ratio_vs_plain_loop\": {\"batch\": %.3f, \"shuffle_batch\": "
      "%.3f}, \"kernels\": {}}\n",
      b, s, pb, ps, b / pb, s / ps);
  return 0;
}
