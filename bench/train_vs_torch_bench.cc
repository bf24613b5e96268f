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
//    "ratio": x / y, "cpu_steps_per_s", "torch_cpu_steps_per_s",
//    "cpu_ratio" (the same per second of CPU time, steadier on a loaded
//    machine), "batch": 128, "rounds": r, "steps_per_round": s,
//    "fashion_mnist": 1 or 0, "math_threads": M,
//    "mt_steps_per_s" (inflow with M math threads, MlpOptions.math_threads,
//    run in each round beside the one-thread side), "mt_cpu_steps_per_s"
//    (its steps per second of the process's CPU time), "mt_speedup" (its
//    steps/s over the one-thread side's), "mt_same_losses" (1 when its
//    losses after every round were the one-thread side's, bit for bit),
//    "kernels": {"train": "avx512"}}
// with the torch figures and ratios null and "torch_reason" saying why
// when PyTorch cannot run. INFLOW_TORCH_PYTHON names another Python for
// the torch side.
// --math-threads M: the second inflow side's threads (default 2, 1..64).
// --smoke: 10 steps a side, one round (no figure means anything).
// --profile: inflow alone, 500 steps (for perf record), with M math
// threads when --math-threads is given.
// --products: the step's five large products alone, each with every kernel
// the CPU runs, at the densities the model sees (45% of the inputs
// nonzero after dropout, 25% of the hidden activations and of their
// gradients): ms of CPU per product and GFMA/s counting only the nonzero
// terms, against the dense product's multiply-adds.

#include <sys/wait.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inflow/core/tensor.h"
#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"

#include "bench_util.h"
#include "model/matmul_kernels.h"
#include "model/random.h"
#include "model/sparse_rows.h"
#include "pipeline_data.h"

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

class InflowSide {
 public:
  InflowSide(const Data& data, int math_threads) : data_(data) {
    MlpOptions options;
    options.math_threads = math_threads;
    model_ = OrDie(Mlp::Create(options));
    optimizer_ =
        OrDie(Optimizer::Create(OptimizerOptions{}, model_->variables()));
  }
  std::string_view kernel() const { return model_->kernel(); }

  // Steps per second over `steps` steps (wall time); per second of CPU
  // time in *cpu_rate: this thread's, or with more than one math thread
  // the process's (every math thread; the torch side is another process).
  double Run(int steps, double* cpu_rate = nullptr) {
    const clockid_t clock = model_->options().math_threads > 1
                                ? CLOCK_PROCESS_CPUTIME_ID
                                : CLOCK_THREAD_CPUTIME_ID;
    const double cpu0 = CpuSeconds(clock);
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) Step();
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    if (cpu_rate != nullptr) *cpu_rate = steps / (CpuSeconds(clock) - cpu0);
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

struct Rate {
  double wall;  // steps per second
  double cpu;   // steps per second of CPU time
};

// The torch side's rates, or nullopt and `reason`.
std::optional<Rate> RunTorch(int steps, int warmup, std::string* reason) {
  const char* python = std::getenv("INFLOW_TORCH_PYTHON");
  const std::string cmd =
      "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 " +
      std::string(python != nullptr && *python != 0 ? python
                                                    : "/usr/bin/python3") +
      " " INFLOW_TORCH_SCRIPT " --steps " + std::to_string(steps) +
      " --warmup " + std::to_string(warmup) + " --images " +
      std::to_string(kImages) + " 2>&1";
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
    for (char& c : *reason) {
      if (c == '"' || c == '\\') c = '\'';
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    if (reason->empty()) {
      *reason = "train_torch.py failed (exit status " +
                std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) + ")";
    }
    return std::nullopt;
  }
  const size_t cpu = out.find("\"cpu_steps_per_s\": ", at);
  return Rate{std::stod(out.substr(at + 16)),
              cpu == std::string::npos ? 0.0 : std::stod(out.substr(cpu + 19))};
}

int Products() {
  struct Product {
    const char* name;
    int64_t m, k, n;
    double density;
  };
  const Product products[] = {{"forward layer1", 128, 784, 625, 0.45},
                              {"forward layer2", 128, 625, 625, 0.25},
                              {"dW2 = h1^T d2", 625, 128, 625, 0.25},
                              {"d1 = d2 W2^T", 128, 625, 625, 0.25},
                              {"dW1 = x^T d1", 784, 128, 625, 0.45}};
  internal::TrainRandom random(1, 1);
  for (const Product& p : products) {
    std::vector<float> a(p.m * p.k), b(p.k * p.n), c(p.m * p.n);
    for (float& v : a) {
      v = random.Uniform() < p.density ? static_cast<float>(random.Uniform())
                                       : 0.0f;
    }
    for (float& v : b) v = static_cast<float>(random.Uniform());
    internal::SparseRows rows;
    rows.AssignDense(a.data(), p.m, p.k);
    for (internal::TrainKernel kernel : internal::kAllTrainKernels) {
      if (!internal::TrainKernelSupported(kernel)) continue;
      const int reps = kernel == internal::TrainKernel::kPortable ? 5 : 40;
      internal::SparseMatMul(kernel, rows, b.data(), p.n, c.data());
      const double cpu0 = ThreadCpuSeconds();
      for (int r = 0; r < reps; ++r) {
        internal::SparseMatMul(kernel, rows, b.data(), p.n, c.data());
      }
      const double seconds = (ThreadCpuSeconds() - cpu0) / reps;
      std::fprintf(stderr,
                   "%-15s %-8s %6.3f ms  %5.1f GFMA/s  (%lld of %lld "
                   "multiply-adds)\n",
                   p.name,
                   std::string(internal::TrainKernelName(kernel)).c_str(),
                   seconds * 1e3,
                   static_cast<double>(rows.nonzeros() * p.n) / seconds / 1e9,
                   static_cast<long long>(rows.nonzeros() * p.n),
                   static_cast<long long>(p.m * p.k * p.n));
    }
  }
  return 0;
}

int Main(bool smoke, bool profile, int math_threads) {
  const Data data = MakeData();
  if (profile) {
    InflowSide side(data, math_threads);
    double cpu_rate;
    const double rate = side.Run(500, &cpu_rate);
    std::fprintf(stderr,
                 "inflow (%d math threads): %.1f steps/s, %.1f per CPU "
                 "second\n",
                 math_threads, rate, cpu_rate);
    return 0;
  }
  InflowSide inflow(data, 1);
  InflowSide threaded(data, math_threads);
  const int steps = smoke ? 10 : 300;
  const int rounds = smoke ? 1 : 5;
  const int warmup = smoke ? 2 : 20;
  inflow.Run(warmup);
  threaded.Run(warmup);
  std::vector<double> ours, theirs, ratios, ours_cpu, theirs_cpu, cpu_ratios;
  std::vector<double> mt, mt_cpu, mt_speedups;
  bool same_losses = true;
  std::string reason;
  bool torch_ok = true;
  for (int round = 0; round < rounds; ++round) {
    Rate mine{};
    std::optional<Rate> torch;
    double mine_mt = 0, mine_mt_cpu = 0;
    // One-thread inflow, threaded inflow, torch, rotated by round.
    for (int k = 0; k < 3; ++k) {
      const int side = (k + round) % 3;
      if (side == 0) {
        mine.wall = inflow.Run(steps, &mine.cpu);
      } else if (side == 1) {
        mine_mt = threaded.Run(steps, &mine_mt_cpu);
      } else if (torch_ok) {
        torch = RunTorch(steps, warmup, &reason);
        torch_ok = torch.has_value();
      }
    }
    ours.push_back(mine.wall);
    ours_cpu.push_back(mine.cpu);
    mt.push_back(mine_mt);
    mt_cpu.push_back(mine_mt_cpu);
    mt_speedups.push_back(mine_mt / mine.wall);
    const float loss = inflow.last_loss(), loss_mt = threaded.last_loss();
    same_losses =
        same_losses && std::memcmp(&loss, &loss_mt, sizeof(float)) == 0;
    std::fprintf(
        stderr,
        "round %d: inflow %.1f steps/s, %.1f per CPU second (loss "
        "%.4f); %d math threads %.1f steps/s, %.1f per CPU second (loss "
        "%.4f)",
        round, mine.wall, mine.cpu, inflow.last_loss(), math_threads, mine_mt,
        mine_mt_cpu, threaded.last_loss());
    if (torch) {
      theirs.push_back(torch->wall);
      theirs_cpu.push_back(torch->cpu);
      ratios.push_back(mine.wall / torch->wall);
      cpu_ratios.push_back(mine.cpu / torch->cpu);
      std::fprintf(stderr,
                   "; torch %.1f steps/s, %.1f per CPU second; ratio %.3f, "
                   "per CPU second %.3f",
                   torch->wall, torch->cpu, mine.wall / torch->wall,
                   mine.cpu / torch->cpu);
    }
    std::fprintf(stderr, "\n");
  }
  auto fmt = [](double v) { return std::to_string(v); };
  std::string torch_json = "null", ratio_json = "null", reason_json;
  std::string torch_cpu_json = "null", cpu_ratio_json = "null";
  if (torch_ok) {
    torch_json = fmt(Median(theirs));
    ratio_json = fmt(Median(ratios));
    torch_cpu_json = fmt(Median(theirs_cpu));
    cpu_ratio_json = fmt(Median(cpu_ratios));
  } else {
    reason_json = ", \"torch_reason\": \"" + reason + "\"";
  }
  std::printf(
      "{\"bench\": \"train\", \"steps_per_s\": %.2f, \"torch_steps_per_s\": "
      "%s, \"ratio\": %s%s, \"cpu_steps_per_s\": %.2f, "
      "\"torch_cpu_steps_per_s\": %s, \"cpu_ratio\": %s, \"batch\": %lld, "
      "\"rounds\": %d, \"steps_per_round\": %d, \"fashion_mnist\": %d, "
      "\"math_threads\": %d, \"mt_steps_per_s\": %.2f, "
      "\"mt_cpu_steps_per_s\": %.2f, \"mt_speedup\": %.3f, "
      "\"mt_same_losses\": %d, \"kernels\": {\"train\": \"%s\"}}\n",
      Median(ours), torch_json.c_str(), ratio_json.c_str(), reason_json.c_str(),
      Median(ours_cpu), torch_cpu_json.c_str(), cpu_ratio_json.c_str(),
      static_cast<long long>(kBatch), rounds, steps, data.fashion_mnist ? 1 : 0,
      math_threads, Median(mt), Median(mt_cpu), Median(mt_speedups),
      same_losses ? 1 : 0, std::string(inflow.kernel()).c_str());
  return 0;
}

}  // namespace
}  // namespace inflow::bench

int main(int argc, char** argv) {
  const bool smoke = inflow::bench::TakeSmokeFlag(&argc, argv);
  bool profile = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--products") {
      return inflow::bench::Products();
    }
  }
  // Takes (and ignores) the benchmark library's flags, which the smoke
  // check passes; this program registers no benchmarks.
  int math_threads = 2;
  bool threads_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    profile = profile || arg == "--profile";
    if (arg == "--math-threads" && i + 1 < argc) {
      char* end = nullptr;
      const long m = std::strtol(argv[++i], &end, 10);
      if (*end != 0 || m < 1 || m > 64) {
        std::fprintf(stderr, "--math-threads %s: want 1 to 64\n", argv[i]);
        return 2;
      }
      math_threads = static_cast<int>(m);
      threads_given = true;
    }
  }
  if (profile && !threads_given) math_threads = 1;
  return inflow::bench::Main(smoke, profile, math_threads);
}
