// Copyright 2026 The inflow Authors.
//
// bench_queue: producer/consumer throughput of inflow's FIFOQueue next to
// moodycamel::BlockingConcurrentQueue and tbb::concurrent_bounded_queue,
// all carrying the same payload: one-element Tuples holding a small tensor
// (float32 [16]), built per operation, moved in and moved out. Then
// DequeueMany(128) against 128 Dequeue calls. moodycamel's queue has no
// bound, so it is compared with an unbounded FIFOQueue; TBB's is bounded to
// 1024 like the FIFOQueue it is compared with. Ends with one JSON line:
//   {"bench": "queue", "ratio_vs_moodycamel": {...}, "ratio_vs_tbb": {...},
//    "dequeue_many_speedup": k, "kernels": {}}
// ("kernels" is empty: the queues run none of the SIMD kernels.)
// Ratios are ops/s, inflow over the peer. Each comparison runs in
// kRounds rounds, every round running ours and the peer one right after
// the other (ours first in even rounds, the peer first in odd ones); a
// ratio is the median over the rounds of that round's ratio, since on a
// shared machine the speed threads get drifts over seconds.

#include <concurrentqueue/blockingconcurrentqueue.h>
#include <tbb/concurrent_queue.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "inflow/core/tensor.h"
#include "inflow/queue/fifo_queue.h"

#include "bench_util.h"

namespace inflow {
namespace {

constexpr int kCapacity = 1024;

Tensor Payload() { return Tensor(DType::kFloat32, TensorShape({16})); }

// Threads [0, n/2) produce, [n/2, n) consume; every thread runs the same
// number of iterations, so producers and consumers stay balanced.
bool IsProducer(const benchmark::State& state) {
  return state.thread_index() < state.threads() / 2;
}

std::shared_ptr<QueueInterface> inflow_queue;

// state.range(0): the FIFOQueue's capacity (-1: unbounded).
void BM_Inflow(benchmark::State& state) {
  if (state.thread_index() == 0) {
    inflow_queue = *FIFOQueue::Create({.capacity = state.range(0),
                                       .dtypes = {DType::kFloat32},
                                       .shapes = {PartialShape({16})}});
  }
  const Tensor payload = Payload();
  const bool producer = IsProducer(state);
  for (auto _ : state) {
    if (producer) {
      Tuple t{payload};
      if (!inflow_queue->Enqueue(std::move(t)).ok())
        state.SkipWithError("enqueue");
    } else {
      Result<Tuple> t = inflow_queue->Dequeue();
      if (!t.ok()) state.SkipWithError("dequeue");
      benchmark::DoNotOptimize(t);
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) inflow_queue.reset();
}

std::unique_ptr<moodycamel::BlockingConcurrentQueue<Tuple>> moody_queue;

void BM_Moodycamel(benchmark::State& state) {
  if (state.thread_index() == 0) {
    moody_queue =
        std::make_unique<moodycamel::BlockingConcurrentQueue<Tuple>>();
  }
  const Tensor payload = Payload();
  const bool producer = IsProducer(state);
  for (auto _ : state) {
    if (producer) {
      Tuple t{payload};
      moody_queue->enqueue(std::move(t));
    } else {
      Tuple t;
      moody_queue->wait_dequeue(t);
      benchmark::DoNotOptimize(t);
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) moody_queue.reset();
}

std::unique_ptr<tbb::concurrent_bounded_queue<Tuple>> tbb_queue;

void BM_Tbb(benchmark::State& state) {
  if (state.thread_index() == 0) {
    tbb_queue = std::make_unique<tbb::concurrent_bounded_queue<Tuple>>();
    tbb_queue->set_capacity(kCapacity);
  }
  const Tensor payload = Payload();
  const bool producer = IsProducer(state);
  for (auto _ : state) {
    if (producer) {
      Tuple t{payload};
      tbb_queue->push(std::move(t));
    } else {
      Tuple t;
      tbb_queue->pop(t);
      benchmark::DoNotOptimize(t);
    }
  }
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) tbb_queue.reset();
}

// Single thread: take 128 stored elements with one DequeueMany(128) (one
// stacked [128, 16] batch) or with 128 Dequeue calls. Items are elements.
void BM_InflowTake128(benchmark::State& state) {
  const bool many = state.range(0) == 1;
  auto queue = *FIFOQueue::Create({.capacity = kCapacity,
                                   .dtypes = {DType::kFloat32},
                                   .shapes = {PartialShape({16})}});
  const Tensor payload = Payload();
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < 128; ++i) {
      if (!queue->Enqueue(Tuple{payload}).ok()) state.SkipWithError("enqueue");
    }
    state.ResumeTiming();
    if (many) {
      Result<Tuple> batch = queue->DequeueMany(128);
      benchmark::DoNotOptimize(batch);
    } else {
      for (int i = 0; i < 128; ++i) {
        Result<Tuple> t = queue->Dequeue();
        benchmark::DoNotOptimize(t);
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * 128);
}

// Prints as usual and remembers items/s per benchmark name.
class RateReporter : public benchmark::ConsoleReporter {
 public:
  // Colours only on a terminal, so that the JSON line starts its line.
  RateReporter()
      : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      auto it = run.counters.find("items_per_second");
      if (it != run.counters.end()) {
        rates_[run.run_name.function_name].push_back(it->second.value);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  // Median items/s over the repetitions (--benchmark_repetitions).
  double Rate(const std::string& name) const {
    auto it = rates_.find(name);
    if (it == rates_.end() || it->second.empty()) return 0;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  double Ratio(const std::string& ours, const std::string& theirs) const {
    const double b = Rate(theirs);
    return b > 0 ? Rate(ours) / b : 0;
  }
  // The median over rounds of ours/label/round:i over theirs/label/round:i.
  double RoundsRatio(const std::string& ours, const std::string& theirs,
                     const std::string& label, int rounds) const {
    std::vector<double> v;
    for (int i = 0; i < rounds; ++i) {
      const std::string suffix = "/" + label + "/round:" + std::to_string(i);
      const double r = Ratio(ours + suffix, theirs + suffix);
      if (r > 0) v.push_back(r);
    }
    return bench::Median(std::move(v));
  }

 private:
  std::map<std::string, std::vector<double>> rates_;
};

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  using namespace inflow;
  // --smoke (bench_util.h): one round of about a millisecond per case.
  const bool smoke = bench::TakeSmokeFlag(&argc, argv);
  const std::vector<std::pair<std::string, int>> configs = {
      {"1p1c", 2}, {"2p2c", 4}, {"4p4c", 8}};
  // An even number of rounds, half of them with the peer first, so that
  // whatever a benchmark inherits from the one run just before it (the
  // heap's arenas, grown or fragmented) falls on both sides alike. (Per
  // round, no order effect stood out from the noise.)
  const int kRounds = smoke ? 1 : 6;
  for (int round = 0; round < kRounds; ++round) {
    const bool peer_first = round % 2 == 1;
    for (const auto& [label, threads] : configs) {
      const std::string suffix =
          "/" + label + "/round:" + std::to_string(round);
      // Unbounded against moodycamel (which has no bound), capacity 1024
      // against TBB's queue bounded to 1024.
      auto inflow_unbounded = [&] {
        benchmark::RegisterBenchmark(("inflow_unbounded" + suffix).c_str(),
                                     BM_Inflow)
            ->Arg(-1)
            ->Threads(threads)
            ->UseRealTime();
      };
      auto moodycamel = [&] {
        benchmark::RegisterBenchmark(("moodycamel" + suffix).c_str(),
                                     BM_Moodycamel)
            ->Threads(threads)
            ->UseRealTime();
      };
      auto inflow_bounded = [&] {
        benchmark::RegisterBenchmark(("inflow" + suffix).c_str(), BM_Inflow)
            ->Arg(kCapacity)
            ->Threads(threads)
            ->UseRealTime();
      };
      auto tbb = [&] {
        benchmark::RegisterBenchmark(("tbb" + suffix).c_str(), BM_Tbb)
            ->Threads(threads)
            ->UseRealTime();
      };
      if (peer_first) {
        moodycamel();
        inflow_unbounded();
        tbb();
        inflow_bounded();
      } else {
        inflow_unbounded();
        moodycamel();
        inflow_bounded();
        tbb();
      }
    }
  }
  benchmark::RegisterBenchmark("inflow/take128_dequeue", BM_InflowTake128)
      ->Arg(0);
  benchmark::RegisterBenchmark("inflow/take128_dequeue_many", BM_InflowTake128)
      ->Arg(1);

  bench::BenchArgs args(argc, argv, smoke);
  benchmark::Initialize(args.argc(), args.argv());
  if (benchmark::ReportUnrecognizedArguments(*args.argc(), args.argv())) {
    return 1;
  }
  RateReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto ratios = [&](const std::string& ours, const std::string& peer) {
    std::string s = "{";
    for (size_t i = 0; i < configs.size(); ++i) {
      const std::string& label = configs[i].first;
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%s\"%s\": %.3f", i ? ", " : "",
                    label.c_str(),
                    reporter.RoundsRatio(ours, peer, label, kRounds));
      s += buf;
    }
    return s + "}";
  };
  std::printf(
      "{\"bench\": \"queue\", \"ratio_vs_moodycamel\": %s, \"ratio_vs_tbb\": "
      "%s, \"dequeue_many_speedup\": %.3f, \"kernels\": %s}\n",
      ratios("inflow_unbounded", "moodycamel").c_str(),
      ratios("inflow", "tbb").c_str(),
      reporter.Ratio("inflow/take128_dequeue_many", "inflow/take128_dequeue"),
      bench::KernelsJson({}).c_str());
  return 0;
}
