// Copyright 2026 The inflow Authors.
//
// bench_pipeline: Fashion-MNIST's 60000 training images as 4 TFRecord
// shards of Examples (built in a temporary folder, removed at exit), read
// -> parse -> image to float32 in [0, 1] -> shuffle_batch(128, capacity
// 10000, min_after_dequeue 5000) -> a consumer that sums every batch, three
// ways, with 1 and 2 reader threads:
//   plain     one plain loop per thread, no framework (pipeline_plain.h);
//   pieces    inflow's pieces as a TF1 user composes them (pipeline_inflow.h);
//   pipeline  the Pipeline builder (input/pipeline.h).
// Each round runs every side for both thread counts, a different side
// first each round; figures are medians over the rounds (6 epochs a run).
// Ends with one JSON line (the inflow figures are Pipeline's):
//   {"bench": "pipeline", "samples_per_s": best, "by_threads": {"1": a,
//    "2": b}, "ratio_vs_plain_loop": the lower of the two thread
//    counts' median ratios (pipeline / plain in the same round),
//    "ratio_by_threads": {...}, "plain_by_threads": {...},
//    "pieces_by_threads": {...}, "pieces_ratio_by_threads": {...},
//    "cpu_ns_per_sample_by_threads": {...},
//    "plain_cpu_ns_per_sample_by_threads":
//    {...}, "pieces_cpu_ns_per_sample_by_threads": {...} (the whole
//    process's CPU time over the samples delivered, median over the
//    rounds), "cpu_ratio_by_threads": {...} (Pipeline / plain CPU per
//    sample in the same round, median), "bytes_copied_per_sample":
//    {"plain": .., "pieces": .., "pipeline": ..} (CopiedPerSample),
//    "kernels": {...}}
// --nice=N: the inflow sides' readers add N to their niceness
// (BatchOptions::nice; 0 by default); the JSON line says "nice": N.
// --smoke: 4000 images, one epoch, one round (no figure means anything).
// --profile=plain|pieces|pipeline:<threads>: one side, 20 epochs (or
// --epochs=N), with its CPU time per sample (for perf record).
// --stages: the inflow side's stages alone, ns per record
// (pipeline_stages.h).

#include <sys/resource.h>

#include <algorithm>
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
#include "pipeline_stages.h"

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

// --profile=plain|inflow:<threads>: runs only that side, `epochs` epochs
// (20 unless --epochs=N), for a profiler (perf record
// bin/bench_pipeline --profile=inflow:2).
int Profile(const std::string& what, int nice, int epochs) {
  const size_t colon = what.find(':');
  const std::string side = what.substr(0, colon);
  const int threads =
      colon == std::string::npos ? 1 : std::stoi(what.substr(colon + 1));
  const Images images = LoadFashionMnist(kDatasetDir, 0);
  const Shards shards(images, 4);
  double checksum;
  LoopResult r;
  const double cpu0 = CpuSeconds();
  const double rate = Rate(
      [&] {
        if (side == "plain") {
          r = RunPlainLoops(shards.paths(), epochs, threads);
        } else if (side == "pieces") {
          r = RunInflowPipeline(shards.paths(), epochs, threads, nice);
        } else {
          r = RunPipelineBuilder(shards.paths(), epochs, threads, nice);
        }
        return r;
      },
      &checksum);
  const double cpu_ns = (CpuSeconds() - cpu0) * 1e9 /
                        (epochs * static_cast<double>(shards.total()));
  std::printf(
      "%s, %d thread(s), nice %d: %.0f samples/s, %.0f ns of CPU per "
      "sample\n",
      side.c_str(), threads, nice, rate, cpu_ns);
  if (r.samples > 0 && r.next_cpu_s > 0) {
    const double batches = static_cast<double>(r.samples / kBatchSize);
    std::printf(
        "consumer thread: %.1f us of CPU per batch in Next(), %.1f in "
        "ConsumeBatch()\n",
        r.next_cpu_s * 1e6 / batches, r.consume_cpu_s * 1e6 / batches);
  }
  return 0;
}

// --stages: pipeline_stages.h, three times over; then the plain loop's
// whole work on one thread, for scale.
int Stages() {
  const Images images = LoadFashionMnist(kDatasetDir, 0);
  const Shards shards(images, 4);
  for (int i = 0; i < 3; ++i) {
    double total = 0;
    for (const auto& [stage, ns] : MeasureStages(shards.paths())) {
      std::printf("%-8s %7.1f ns/record\n", stage.c_str(), ns);
      total += ns;
    }
    std::printf("%-8s %7.1f ns/record\n", "sum", total);
    double checksum;
    const double rate =
        Rate([&] { return RunPlainLoops(shards.paths(), 1, 1); }, &checksum);
    std::printf("plain loop, one thread: %7.1f ns/record\n\n", 1e9 / rate);
  }
  return 0;
}

// Bytes of one sample written by copies on its way from the file to the
// consumer's batch, per side (docs/ARCHITECTURE.md, "The copies of a
// sample"), from the shards' mean record (with its 16 bytes of framing)
// and the rows' sizes (image float32 [784], label int64):
//   plain     read into its buffer, decode into its shuffle buffer, copy
//             into the batch;
//   pieces    read into the reader's buffer, copy into the RecordBatch,
//             image and label into ParseBatch's tensors, decode into a
//             float tensor, copy into the queue's slots, gather into the
//             batch;
//   pipeline  read into the reader's buffer (the read batch views it),
//             the image's bytes and the label straight into the queue's
//             slots, both gathered into a batch, the image decoded into
//             the output batch (the label goes on as gathered). The
//             record that the reader copies at each refill of its 256 KiB
//             buffer, one in ~290, is left out.
struct CopiedBytes {
  double plain, pieces, pipeline;
};

CopiedBytes CopiedPerSample(const Shards& shards) {
  const double framed =
      static_cast<double>(shards.bytes()) / static_cast<double>(shards.total());
  const double record = framed - 16;
  const double row = kImageBytes * sizeof(float) + sizeof(int64_t);
  const double parsed = kImageBytes + sizeof(int64_t);
  return {.plain = framed + row + row,
          .pieces = framed + record + parsed + row + row + row,
          .pipeline = framed + parsed + parsed + kImageBytes * sizeof(float)};
}

std::string CopiedJson(const CopiedBytes& c) {
  return "{\"plain\": " + Fmt(c.plain) + ", \"pieces\": " + Fmt(c.pieces) +
         ", \"pipeline\": " + Fmt(c.pipeline) + "}";
}

// The three sides, each run once per round and thread count.
enum Side { kPlain, kPieces, kPipeline, kSides };
constexpr const char* kSideNames[] = {"plain", "pieces", "pipeline"};

LoopResult RunSide(int side, const std::vector<std::string>& paths, int epochs,
                   int threads, int nice) {
  switch (side) {
    case kPlain:
      return RunPlainLoops(paths, epochs, threads);
    case kPieces:
      return RunInflowPipeline(paths, epochs, threads, nice);
    default:
      return RunPipelineBuilder(paths, epochs, threads, nice);
  }
}

int Main(bool smoke, int nice) {
  const Config config = smoke ? Config{4000, 1, 1} : Config{0, 6, 5};
  const Images images = LoadFashionMnist(kDatasetDir, config.images);
  const Shards shards(images, 4);
  const std::vector<std::string>& paths = shards.paths();
  // Warm the page cache and the allocator.
  double checksum;
  for (int side = 0; side < kSides; ++side) {
    Rate([&] { return RunSide(side, paths, 1, 2, nice); }, &checksum);
  }

  // rates[side][threads]: one per round; likewise CPU ns per sample and
  // its ratio to the plain loop's.
  std::map<int, std::vector<double>> rates[kSides], ratios[kSides];
  std::map<int, std::vector<double>> cpu_ns[kSides], cpu_ratios[kSides];
  for (int round = 0; round < config.rounds; ++round) {
    for (int threads : {1, 2}) {
      double rate[kSides], sum[kSides], cpu[kSides];
      // A different side goes first each round.
      for (int k = 0; k < kSides; ++k) {
        const int side = (k + round) % kSides;
        const double cpu0 = CpuSeconds();
        size_t samples = 0;
        rate[side] = Rate(
            [&] {
              const LoopResult r =
                  RunSide(side, paths, config.epochs, threads, nice);
              samples = r.samples;
              return r;
            },
            &sum[side]);
        cpu[side] = samples > 0 ? (CpuSeconds() - cpu0) * 1e9 /
                                      static_cast<double>(samples)
                                : 0;
      }
      for (int side = 0; side < kSides; ++side) {
        rates[side][threads].push_back(rate[side]);
        ratios[side][threads].push_back(rate[side] / rate[kPlain]);
        cpu_ns[side][threads].push_back(cpu[side]);
        cpu_ratios[side][threads].push_back(
            cpu[kPlain] > 0 ? cpu[side] / cpu[kPlain] : 0);
        std::fprintf(stderr,
                     "round %d, %d thread(s): %-8s %9.0f samples/s, ratio "
                     "%.3f, %6.0f ns of CPU per sample (sum %.6g)\n",
                     round, threads, kSideNames[side], rate[side],
                     rate[side] / rate[kPlain], cpu[side], sum[side]);
      }
    }
  }
  std::map<int, double> med[kSides], ratio_med[kSides], cpu_med[kSides],
      cpu_ratio_med[kSides];
  double best = 0;
  for (int side = 0; side < kSides; ++side) {
    for (int threads : {1, 2}) {
      med[side][threads] = Median(rates[side][threads]);
      ratio_med[side][threads] = Median(ratios[side][threads]);
      cpu_med[side][threads] = Median(cpu_ns[side][threads]);
      cpu_ratio_med[side][threads] = Median(cpu_ratios[side][threads]);
    }
  }

  for (int threads : {1, 2}) best = std::max(best, med[kPipeline][threads]);
  using crc32c::internal::KernelName;
  using crc32c::internal::SelectedKernel;
  std::printf(
      "{\"bench\": \"pipeline\", \"samples_per_s\": %s, \"by_threads\": %s, "
      "\"ratio_vs_plain_loop\": %s, \"ratio_by_threads\": %s, "
      "\"plain_by_threads\": %s, \"pieces_by_threads\": %s, "
      "\"pieces_ratio_by_threads\": %s, \"cpu_ns_per_sample_by_threads\": "
      "%s, \"plain_cpu_ns_per_sample_by_threads\": %s, "
      "\"pieces_cpu_ns_per_sample_by_threads\": %s, "
      "\"cpu_ratio_by_threads\": %s, \"bytes_copied_per_sample\": %s, "
      "\"nice\": %d, \"kernels\": %s}\n",
      Fmt(best).c_str(), ByThreads(med[kPipeline], Fmt).c_str(),
      Fmt3(std::min(ratio_med[kPipeline][1], ratio_med[kPipeline][2])).c_str(),
      ByThreads(ratio_med[kPipeline], Fmt3).c_str(),
      ByThreads(med[kPlain], Fmt).c_str(), ByThreads(med[kPieces], Fmt).c_str(),
      ByThreads(ratio_med[kPieces], Fmt3).c_str(),
      ByThreads(cpu_med[kPipeline], Fmt).c_str(),
      ByThreads(cpu_med[kPlain], Fmt).c_str(),
      ByThreads(cpu_med[kPieces], Fmt).c_str(),
      ByThreads(cpu_ratio_med[kPipeline], Fmt3).c_str(),
      CopiedJson(CopiedPerSample(shards)).c_str(), nice,
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
  int nice = 0;
  int epochs = 20;
  bool epochs_given = false;
  std::string profile;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--stages") return inflow::bench::Stages();
    if (arg.starts_with("--profile=")) {
      profile = arg.substr(10);
    } else if (arg.starts_with("--nice=")) {
      nice = std::stoi(std::string(arg.substr(7)));
    } else if (arg.starts_with("--epochs=")) {
      epochs = std::stoi(std::string(arg.substr(9)));
      epochs_given = true;
      if (epochs < 1) {
        std::fprintf(stderr, "bench_pipeline: --epochs must be at least 1\n");
        return 2;
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (epochs_given && profile.empty()) {
    std::fprintf(stderr,
                 "bench_pipeline: --epochs applies to --profile only\n");
    return 2;
  }
  if (!profile.empty()) return inflow::bench::Profile(profile, nice, epochs);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  return inflow::bench::Main(smoke, nice);
}
