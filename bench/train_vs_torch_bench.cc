// Copyright 2026 The inflow Authors.
//
// bench_train_vs_torch: training steps per second of inflow's Mlp
// (784-625-625-10, ReLU, dropout 0.8 / 0.5, softmax cross-entropy,
// RMSProp(0.001, 0.9), batch 128, one thread) against the same model in
// PyTorch (bench/py/train_torch.py, run with /usr/bin/python3, one thread,
// OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset). Both sides train on the
// same batches: Fashion-MNIST's first 12800 training images scaled to
// [0, 1], in order, cycled (random pixels when the dataset is missing).
// Each round runs both sides, a different one first each round; figures
// are medians over the rounds. Ends with one JSON line:
//   {"bench": "train", "steps_per_s": x, "torch_steps_per_s": y,
//    "ratio": x / y, "batch": 128, "rounds": r, "steps_per_round": s,
//    "fashion_mnist": 1 or 0, "kernels": {"train": "avx512"}}
// with "torch_steps_per_s" and "ratio" null and "torch_reason" saying why
// when PyTorch cannot run.
// --smoke: 10 steps a side, one round (no figure means anything).
// --profile: inflow alone, 500 steps (for perf record).

#include <time.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inflow/core/tensor.h"
#include "inflow/train/mlp.h"
#include "inflow/train/optimizer.h"

#include "bench_util.h"
#include "pipeline_data.h"
#include "train/random.h"

#ifndef INFLOW_TORCH_SCRIPT
#define INFLOW_TORCH_SCRIPT "bench/py/train_torch.py"
#endif

namespace inflow::bench {
namespace {

constexpr int64_t kBatch = 128;
constexpr size_t kImages = 12800;

struct Data {
  std::vector<Tensor> images;  // float32 [128, 784] each
  std::vector<Tensor> labels;  // int64 [128]
  bool fashion_mnist = false;
};

Data MakeData() {
  Data data;
  std::FILE* probe = std::fopen(
      (std::string(kDatasetDir) + "/train-images-idx3-ubyte.gz").c_str(), "rb");
  std::vector<float> pixels(kImages * 784);
  std::vector<int64_t> labels(kImages);
  if (probe != nullptr) {
    std::fclose(probe);
    const Images images = LoadFashionMnist(kDatasetDir, kImages);
    for (size_t i = 0; i < pixels.size(); ++i) {
      pixels[i] = static_cast<float>(images.pixels[i]) / 255.0f;
    }
    for (size_t i = 0; i < kImages; ++i) labels[i] = images.labels[i];
    data.fashion_mnist = true;
  } else {
    internal::TrainRandom random(0, 0);
    for (float& p : pixels) p = static_cast<float>(random.Uniform());
    for (int64_t& l : labels) l = static_cast<int64_t>(random.Next() % 10);
  }
  for (size_t b = 0; b + kBatch <= kImages; b += kBatch) {
    Tensor x(DType::kFloat32, TensorShape({kBatch, 784}));
    Tensor y(DType::kInt64, TensorShape({kBatch}));
    std::copy(pixels.begin() + b * 784, pixels.begin() + (b + kBatch) * 784,
              OrDie(x.mutable_flat<float>()).begin());
    std::copy(labels.begin() + b, labels.begin() + b + kBatch,
              OrDie(y.mutable_flat<int64_t>()).begin());
    data.images.push_back(x);
    data.labels.push_back(y);
  }
  return data;
}

double ThreadCpuSeconds() {
  timespec t;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

class InflowSide {
 public:
  explicit InflowSide(const Data& data) : data_(data) {
    model_ = OrDie(Mlp::Create(MlpOptions{}));
    optimizer_ =
        OrDie(Optimizer::Create(OptimizerOptions{}, model_->variables()));
  }
  std::string_view kernel() const { return model_->kernel(); }

  // Steps per second over `steps` steps (wall time); per second of this
  // thread's CPU time in *cpu_rate.
  double Run(int steps, double* cpu_rate = nullptr) {
    const double cpu0 = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) Step();
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    if (cpu_rate != nullptr) *cpu_rate = steps / (ThreadCpuSeconds() - cpu0);
    return steps / elapsed.count();
  }
  float last_loss() const { return loss_; }

 private:
  void Step() {
    const size_t b = static_cast<size_t>(next_++) % data_.images.size();
    loss_ = OrDie(model_->ComputeGradients(data_.images[b], data_.labels[b],
                                           optimizer_->step()));
    OrDie(optimizer_->Apply(model_->gradients()));
  }

  const Data& data_;
  std::unique_ptr<Mlp> model_;
  std::unique_ptr<Optimizer> optimizer_;
  int64_t next_ = 0;
  float loss_ = 0;
};

// The torch side's steps per second, or nullopt and `reason`.
std::optional<double> RunTorch(int steps, int warmup, std::string* reason) {
  const std::string cmd =
      "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 "
      "/usr/bin/python3 " INFLOW_TORCH_SCRIPT " --steps " +
      std::to_string(steps) + " --warmup " + std::to_string(warmup) +
      " --images " + std::to_string(kImages) + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) {
    *reason = "cannot run /usr/bin/python3";
    return std::nullopt;
  }
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  const int rc = ::pclose(pipe);
  const size_t at = out.rfind("{\"steps_per_s\": ");
  if (rc != 0 || at == std::string::npos) {
    while (!out.empty() && (out.back() == '\n' || out.back() == '"'))
      out.pop_back();
    const size_t line = out.rfind('\n');
    *reason = out.substr(line == std::string::npos ? 0 : line + 1);
    for (char& c : *reason) c = c == '"' || c == '\\' ? '\'' : c;
    if (reason->empty()) *reason = "train_torch.py failed";
    return std::nullopt;
  }
  return std::stod(out.substr(at + 16));
}

int Main(bool smoke, bool profile) {
  const Data data = MakeData();
  InflowSide inflow(data);
  if (profile) {
    double cpu_rate;
    const double rate = inflow.Run(500, &cpu_rate);
    std::fprintf(stderr, "inflow: %.1f steps/s, %.1f per CPU second\n", rate,
                 cpu_rate);
    return 0;
  }
  const int steps = smoke ? 10 : 300;
  const int rounds = smoke ? 1 : 5;
  const int warmup = smoke ? 2 : 20;
  inflow.Run(warmup);
  std::vector<double> ours, theirs, ratios;
  std::string reason;
  bool torch_ok = true;
  for (int round = 0; round < rounds; ++round) {
    double mine = 0;
    std::optional<double> torch;
    for (int k = 0; k < 2; ++k) {
      if ((k + round) % 2 == 0) {
        mine = inflow.Run(steps);
      } else if (torch_ok) {
        torch = RunTorch(steps, warmup, &reason);
        torch_ok = torch.has_value();
      }
    }
    ours.push_back(mine);
    std::fprintf(stderr, "round %d: inflow %.1f steps/s (loss %.4f)", round,
                 mine, inflow.last_loss());
    if (torch) {
      theirs.push_back(*torch);
      ratios.push_back(mine / *torch);
      std::fprintf(stderr, ", torch %.1f steps/s, ratio %.3f", *torch,
                   mine / *torch);
    }
    std::fprintf(stderr, "\n");
  }
  const double x = Median(ours);
  std::string torch_json = "null", ratio_json = "null", reason_json;
  if (torch_ok) {
    torch_json = std::to_string(Median(theirs));
    ratio_json = std::to_string(Median(ratios));
  } else {
    reason_json = ", \"torch_reason\": \"" + reason + "\"";
  }
  std::printf(
      "{\"bench\": \"train\", \"steps_per_s\": %.2f, \"torch_steps_per_s\": "
      "%s, \"ratio\": %s%s, \"batch\": %lld, \"rounds\": %d, "
      "\"steps_per_round\": %d, \"fashion_mnist\": %d, \"kernels\": "
      "{\"train\": \"%s\"}}\n",
      x, torch_json.c_str(), ratio_json.c_str(), reason_json.c_str(),
      static_cast<long long>(kBatch), rounds, steps, data.fashion_mnist ? 1 : 0,
      std::string(inflow.kernel()).c_str());
  return 0;
}

}  // namespace
}  // namespace inflow::bench

int main(int argc, char** argv) {
  const bool smoke = inflow::bench::TakeSmokeFlag(&argc, argv);
  bool profile = false;
  // Takes (and ignores) the benchmark library's flags, which the smoke
  // check passes; this program registers no benchmarks.
  for (int i = 1; i < argc; ++i) {
    profile = profile || std::string_view(argv[i]) == "--profile";
  }
  return inflow::bench::Main(smoke, profile);
}
