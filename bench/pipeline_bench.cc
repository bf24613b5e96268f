// Copyright 2026 The inflow Authors.
//
// bench_pipeline: Fashion-MNIST's 60000 training images as 4 TFRecord
// shards of Examples (built in a temporary folder, removed at exit), read
// -> parse -> image to float32 in [0, 1] -> shuffle_batch(128, capacity
// 10000, min_after_dequeue 5000) -> a consumer that sums every batch,
// through inflow's pipeline (pipeline_inflow.h) and as plain loops with no
// framework (pipeline_plain.h), with 1 and 2 reader threads (plain: 1 and
// 2 loops), in turns: each round runs both sides for both thread counts,
// alternating which side goes first. Figures are medians over the rounds.
// Ends with one JSON line:
//   {"bench": "pipeline", "samples_per_s": best inflow figure,
//    "by_threads": {"1": a, "2": b}, "plain_by_threads": {...},
//    "ratio_vs_plain_loop": inflow / plain with 2 threads,
//    "ratio_by_threads": {...}, "kernels": {...}}
// --smoke: 4000 images, one epoch, one round (no figure means anything).

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "core/convert_kernels.h"
#include "example/varint_kernels.h"
#include "io/crc32c_internal.h"
#include "pipeline_data.h"
#include "pipeline_inflow.h"
#include "pipeline_plain.h"

namespace inflow::bench {
namespace {

struct Config {
  size_t images;
  int epochs;
  int rounds;
};

template <typename Run>
double Rate(Run run, double* checksum) {
  const auto t0 = std::chrono::steady_clock::now();
  const LoopResult r = run();
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  *checksum = r.checksum;
  return s > 0 ? static_cast<double>(r.samples) / s : 0;
}

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", v);
  return buf;
}

std::string Fmt3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", v);
  return buf;
}

std::string ByThreads(const std::map<int, double>& m,
                      std::string (*fmt)(double)) {
  std::string s = "{";
  for (const auto& [threads, v] : m) {
    if (s.size() > 1) s += ", ";
    s.append("\"").append(std::to_string(threads)).append("\": ");
    s.append(fmt(v));
  }
  return s + "}";
}

// User + system time of the process so far.
double CpuSeconds() {
  rusage u;
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// --profile=plain|inflow:<threads>: runs only that side, 20 epochs, for a
// profiler (perf record bin/bench_pipeline --profile=inflow:2).
int Profile(const std::string& what) {
  const size_t colon = what.find(':');
  const std::string side = what.substr(0, colon);
  const int threads =
      colon == std::string::npos ? 1 : std::stoi(what.substr(colon + 1));
  const Images images = LoadFashionMnist(kDatasetDir, 0);
  const Shards shards(images, 4);
  double checksum;
  const double cpu0 = CpuSeconds();
  const double rate = Rate(
      [&] {
        return side == "plain" ? RunPlainLoops(shards.paths(), 20, threads)
                               : RunInflowPipeline(shards.paths(), 20, threads);
      },
      &checksum);
  const double cpu_ns = (CpuSeconds() - cpu0) * 1e9 / (20.0 * shards.total());
  std::printf("%s, %d thread(s): %.0f samples/s, %.0f ns of CPU per sample\n",
              side.c_str(), threads, rate, cpu_ns);
  return 0;
}

int Main(bool smoke) {
  const Config config = smoke ? Config{4000, 1, 1} : Config{0, 10, 5};
  const Images images = LoadFashionMnist(kDatasetDir, config.images);
  const Shards shards(images, 4);
  const std::vector<std::string>& paths = shards.paths();
  const size_t expected =
      config.epochs * shards.total() / kBatchSize * kBatchSize;
  // Warm the page cache and the allocator.
  double checksum;
  Rate([&] { return RunPlainLoops(paths, 1, 2); }, &checksum);
  Rate([&] { return RunInflowPipeline(paths, 1, 2); }, &checksum);

  std::map<int, std::vector<double>> inflow_rates, plain_rates, ratios;
  bool inflow_first = true;
  for (int round = 0; round < config.rounds; ++round) {
    for (int threads : {1, 2}) {
      double plain = 0, inflow = 0, plain_sum = 0, inflow_sum = 0;
      for (int k = 0; k < 2; ++k) {
        if ((k == 0) == inflow_first) {
          inflow = Rate(
              [&] { return RunInflowPipeline(paths, config.epochs, threads); },
              &inflow_sum);
        } else {
          plain =
              Rate([&] { return RunPlainLoops(paths, config.epochs, threads); },
                   &plain_sum);
        }
      }
      inflow_first = !inflow_first;
      std::fprintf(stderr,
                   "round %d, %d thread(s): inflow %.0f samples/s, plain "
                   "%.0f samples/s, ratio %.3f (pixel sums %.6g / %.6g)\n",
                   round, threads, inflow, plain, inflow / plain, inflow_sum,
                   plain_sum);
      inflow_rates[threads].push_back(inflow);
      plain_rates[threads].push_back(plain);
      ratios[threads].push_back(inflow / plain);
    }
  }
  (void)expected;
  std::map<int, double> inflow_med, plain_med, ratio_med;
  double best = 0;
  for (int threads : {1, 2}) {
    inflow_med[threads] = Median(inflow_rates[threads]);
    plain_med[threads] = Median(plain_rates[threads]);
    ratio_med[threads] = Median(ratios[threads]);
    best = std::max(best, inflow_med[threads]);
  }
  using crc32c::internal::KernelName;
  using crc32c::internal::SelectedKernel;
  std::printf(
      "{\"bench\": \"pipeline\", \"samples_per_s\": %s, \"by_threads\": %s, "
      "\"plain_by_threads\": %s, \"ratio_vs_plain_loop\": %s, "
      "\"ratio_by_threads\": %s, \"kernels\": %s}\n",
      Fmt(best).c_str(), ByThreads(inflow_med, Fmt).c_str(),
      ByThreads(plain_med, Fmt).c_str(), Fmt3(ratio_med[2]).c_str(),
      ByThreads(ratio_med, Fmt3).c_str(),
      KernelsJson({{"crc32c", KernelName(SelectedKernel())},
                   {"convert", internal::ConvertKernelName(
                                   internal::SelectedConvertKernel())},
                   {"varint", internal::VarintKernelName(
                                  internal::SelectedVarintKernel())}})
          .c_str());
  return 0;
}

}  // namespace
}  // namespace inflow::bench

int main(int argc, char** argv) {
  const bool smoke = inflow::bench::TakeSmokeFlag(&argc, argv);
  // Takes the benchmark library's flags (e.g. --benchmark_color), which
  // the smoke check passes; this program registers no benchmarks.
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--profile=")) {
      return inflow::bench::Profile(std::string(arg.substr(10)));
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  return inflow::bench::Main(smoke);
}
