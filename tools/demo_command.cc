// Copyright 2026 The inflow Authors.
//
// `inflow demo`: the job `make demo` runs. A small queue pipeline end to
// end, as a TF 1.x training script would build it:
//
//   QueueRunner, N threads --EnqueueMany--> RandomShuffleQueue (or FIFO)
//     --DequeueMany / DequeueUpTo--> logistic-regression SGD step
//
// Each producer thread synthesizes labelled examples (features ~ N(0, 1),
// label = [w* . x + noise > 0]) until the requested number is reached; then
// the end-of-input cascade closes the queue, the trainer drains it and gets
// OUT_OF_RANGE, requests a clean stop, and joins every thread. A looper
// thread prints a progress line every second from the thread registry; the
// summary reports examples/s, the queue fill, and the model's accuracy on
// held-out examples.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/tensor.h"
#include "inflow/queue/fifo_queue.h"
#include "inflow/queue/random_shuffle_queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/looper_thread.h"
#include "inflow/threads/queue_runner.h"
#include "inflow/threads/thread_registry.h"

#include "command.h"
#include "flag_checks.h"

namespace inflow::tools {
namespace {

using Clock = std::chrono::steady_clock;

struct DemoOptions {
  int threads = 4;
  int64_t examples = 1000000;
  int batch_size = 128;
  int features = 64;
  int capacity = 2048;
  int min_after_dequeue = 512;
  std::string queue = "shuffle";
  double learning_rate = 0.5;
  double max_seconds = 8;
  uint64_t seed = 42;
  // > 0: producer 0 fails with DATA_LOSS on its step N (shows an error
  // stopping every thread and reaching the exit status).
  int64_t fail_at_step = 0;
};

// Rows one producer step makes and enqueues with EnqueueMany.
constexpr int64_t kRowsPerStep = 64;

// The hidden rule the labels follow.
std::vector<float> TrueWeights(const DemoOptions& o) {
  std::mt19937 rng(o.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(o.features);
  for (float& v : w) v = normal(rng);
  return w;
}

// Fills `x` (rows x features) and `y` (rows) with labelled examples.
void Synthesize(const std::vector<float>& w_true, std::mt19937& rng, float* x,
                float* y, int64_t rows) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t d = static_cast<int64_t>(w_true.size());
  for (int64_t r = 0; r < rows; ++r) {
    float dot = 0;
    for (int64_t j = 0; j < d; ++j) {
      x[r * d + j] = normal(rng);
      dot += w_true[j] * x[r * d + j];
    }
    y[r] = dot + 0.5f * std::sqrt(static_cast<float>(d)) * normal(rng) > 0
               ? 1.0f
               : 0.0f;
  }
}

// Logistic regression trained with plain SGD. Not thread-safe: the trainer
// thread owns it.
class Model {
 public:
  explicit Model(int features) : w_(features, 0.0), grad_(features) {}

  // One step on a batch; returns the mean log loss before the step.
  double Step(const Tensor& x, const Tensor& y, double lr) {
    const int64_t n = x.dim_size(0), d = x.dim_size(1);
    const float* xs = x.data<float>();
    const float* ys = y.data<float>();
    std::fill(grad_.begin(), grad_.end(), 0.0);
    double grad_b = 0, loss = 0;
    for (int64_t r = 0; r < n; ++r) {
      const double p = Predict(xs + r * d);
      const double err = p - ys[r];
      for (int64_t j = 0; j < d; ++j) grad_[j] += err * xs[r * d + j];
      grad_b += err;
      loss -= ys[r] > 0.5f ? std::log(std::max(p, 1e-12))
                           : std::log(std::max(1 - p, 1e-12));
    }
    for (int64_t j = 0; j < d; ++j) w_[j] -= lr * grad_[j] / n;
    b_ -= lr * grad_b / n;
    return loss / n;
  }

  double Predict(const float* x) const {
    double z = b_;
    for (size_t j = 0; j < w_.size(); ++j) z += w_[j] * x[j];
    return 1.0 / (1.0 + std::exp(-z));
  }

 private:
  std::vector<double> w_;
  std::vector<double> grad_;
  double b_ = 0;
};

// What the trainer reports and the progress line reads.
struct Progress {
  Mutex mu;
  int64_t steps INFLOW_GUARDED_BY(mu) = 0;
  int64_t examples INFLOW_GUARDED_BY(mu) = 0;
  double loss INFLOW_GUARDED_BY(mu) = 0;  // moving average
  double fill_sum INFLOW_GUARDED_BY(mu) = 0;
};

Result<std::shared_ptr<QueueInterface>> MakeQueue(const DemoOptions& o) {
  QueueOptions q;
  q.capacity = o.capacity;
  q.dtypes = {DType::kFloat32, DType::kFloat32};
  q.shapes = {PartialShape({o.features}), PartialShape(TensorShape())};
  if (o.queue == "fifo") {
    q.name = "demo_fifo_queue";
    INFLOW_ASSIGN_OR_RETURN(auto fifo, FIFOQueue::Create(q));
    return std::shared_ptr<QueueInterface>(std::move(fifo));
  }
  if (o.queue != "shuffle") {
    return InvalidArgumentError("--queue must be 'fifo' or 'shuffle', not '" +
                                o.queue + "'");
  }
  q.name = "demo_shuffle_queue";
  q.min_after_dequeue = o.min_after_dequeue;
  q.seed = static_cast<int64_t>(o.seed);
  INFLOW_ASSIGN_OR_RETURN(auto rsq, RandomShuffleQueue::Create(q));
  return std::shared_ptr<QueueInterface>(std::move(rsq));
}

// The producers' blocked share of their lifetime so far, from the registry.
std::string ProducerLine(const std::string& prefix, double elapsed_s) {
  int n = 0;
  int64_t runs = 0;
  double blocked_s = 0;
  for (const ThreadSnapshot& t : ThreadRegistry::Global().Snapshot()) {
    if (t.name.rfind(prefix + "/enqueue:", 0) != 0) continue;
    ++n;
    runs += t.runs;
    blocked_s += std::chrono::duration<double>(t.blocked).count();
  }
  char buf[128];
  std::snprintf(buf, sizeof(buf), "%d producers, %lld steps, %.0f%% blocked", n,
                static_cast<long long>(runs),
                n && elapsed_s > 0 ? 100.0 * blocked_s / (n * elapsed_s) : 0.0);
  return buf;
}

// The producer ops, one per thread: each step claims up to kRowsPerStep of
// the remaining examples; OUT_OF_RANGE once none remain (the end of input).
// `o` and `w_true` must outlive the ops.
std::vector<QueueOp> MakeProducerOps(
    const DemoOptions& o, const std::shared_ptr<QueueInterface>& queue,
    const std::vector<float>& w_true) {
  auto remaining = std::make_shared<std::atomic<int64_t>>(o.examples);
  std::vector<QueueOp> ops;
  for (int i = 0; i < o.threads; ++i) {
    auto rng = std::make_shared<std::mt19937>(o.seed + 1 + i);
    auto steps = std::make_shared<int64_t>(0);  // this op's thread only
    ops.push_back(MakeEnqueueOp(
        queue,
        [&o, &w_true, rng, remaining, steps,
         i](const CallOptions&) -> Result<Tuple> {
          if (i == 0 && ++*steps == o.fail_at_step) {
            return DataLossError("demo producer 0: injected failure at step " +
                                 std::to_string(o.fail_at_step));
          }
          const int64_t left = remaining->fetch_sub(kRowsPerStep);
          const int64_t rows = std::min(left, kRowsPerStep);
          if (rows <= 0) return OutOfRangeError("all examples produced");
          Tensor x = Tensor::Uninitialized(DType::kFloat32,
                                           TensorShape({rows, o.features}));
          Tensor y =
              Tensor::Uninitialized(DType::kFloat32, TensorShape({rows}));
          INFLOW_ASSIGN_OR_RETURN(const std::span<float> xs,
                                  x.mutable_flat<float>());
          INFLOW_ASSIGN_OR_RETURN(const std::span<float> ys,
                                  y.mutable_flat<float>());
          Synthesize(w_true, *rng, xs.data(), ys.data(), rows);
          return Tuple{std::move(x), std::move(y)};
        },
        /*many=*/true));
  }
  return ops;
}

// Starts the looper thread that prints a progress line every second from
// `progress` and the thread registry. `o`, `queue` and `progress` must
// outlive it.
Result<std::shared_ptr<Thread>> StartProgressLine(const DemoOptions& o,
                                                  const QueueInterface* queue,
                                                  Clock::time_point start,
                                                  Coordinator* coord,
                                                  Progress* progress) {
  LooperOptions looper_options;
  looper_options.name = "demo/progress";
  return LooperThread::Loop(
      coord, std::chrono::seconds(1),
      [&o, queue, start, progress, first_tick = true]() mutable -> Status {
        if (first_tick) {  // the first call comes at once: nothing yet
          first_tick = false;
          return OkStatus();
        }
        const double t =
            std::chrono::duration<double>(Clock::now() - start).count();
        MutexLock lock(&progress->mu);
        std::printf(
            "[%5.1fs] step %6lld  %9lld examples  %8.0f examples/s  "
            "queue %4lld/%d  loss %.4f  %s\n",
            t, static_cast<long long>(progress->steps),
            static_cast<long long>(progress->examples), progress->examples / t,
            static_cast<long long>(queue->Size()), o.capacity, progress->loss,
            ProducerLine(queue->name(), t).c_str());
        std::fflush(stdout);
        return OkStatus();
      },
      looper_options);
}

// The trainer, on the calling thread as in a TF 1.x script: an SGD step
// per batch until the queue is closed and drained, an error stops `coord`,
// or --max-seconds have passed since `start`. Returns whether the time ran
// out.
bool TrainUntilStopped(const DemoOptions& o, QueueInterface* queue,
                       Clock::time_point start, Coordinator* coord,
                       Model* model, Progress* progress) {
  while (!coord->ShouldStop()) {
    if (std::chrono::duration<double>(Clock::now() - start).count() >
        o.max_seconds) {
      coord->RequestStop();
      return true;
    }
    const double fill =
        static_cast<double>(queue->Size()) / static_cast<double>(o.capacity);
    // DequeueUpTo: full batches while the queue is open, then the short
    // remainder once the end of input closed it.
    Result<Tuple> batch =
        queue->DequeueUpTo(o.batch_size, coord->MakeCallOptions());
    if (!batch.ok()) {
      // OUT_OF_RANGE: closed and drained, a clean stop. Anything else is
      // the error Join returns.
      coord->RequestStop(batch.status()).IgnoreError();
      break;
    }
    const double loss = model->Step((*batch)[0], (*batch)[1], o.learning_rate);
    MutexLock lock(&progress->mu);
    progress->loss =
        progress->steps == 0 ? loss : 0.95 * progress->loss + 0.05 * loss;
    progress->steps++;
    progress->examples += (*batch)[0].dim_size(0);
    progress->fill_sum += fill;
  }
  return false;
}

// Held-out examples the summary scores the model on.
constexpr int64_t kEval = 4096;

// How many of the kEval held-out examples the model, and the hidden rule
// without its noise (the best any model can score), label right.
struct HeldOutScore {
  int64_t correct = 0;
  int64_t rule_correct = 0;
};

HeldOutScore ScoreHeldOut(const DemoOptions& o,
                          const std::vector<float>& w_true,
                          const Model& model) {
  std::vector<float> ex(kEval * o.features), ey(kEval);
  std::mt19937 eval_rng(o.seed + 1000);
  Synthesize(w_true, eval_rng, ex.data(), ey.data(), kEval);
  HeldOutScore score;
  for (int64_t r = 0; r < kEval; ++r) {
    const float* x = &ex[r * o.features];
    score.correct += (model.Predict(x) > 0.5) == (ey[r] > 0.5f);
    float dot = 0;
    for (int j = 0; j < o.features; ++j) dot += w_true[j] * x[j];
    score.rule_correct += (dot > 0) == (ey[r] > 0.5f);
  }
  return score;
}

// The summary lines and one line per thread, once every thread has joined.
void PrintSummary(const DemoOptions& o, Progress* progress, bool out_of_time,
                  double train_seconds, double join_ms,
                  const HeldOutScore& score,
                  const std::vector<std::shared_ptr<Thread>>& threads) {
  MutexLock lock(&progress->mu);
  std::printf(
      "summary: %lld examples in %lld steps, %.2f s, %.0f examples/s%s\n"
      "summary: mean queue fill %.0f%% of %d; stop to joined %.1f ms\n"
      "summary: final loss %.4f, held-out accuracy %.3f on %lld examples "
      "(the noiseless rule scores %.3f)\n",
      static_cast<long long>(progress->examples),
      static_cast<long long>(progress->steps), train_seconds,
      progress->examples / train_seconds,
      out_of_time ? " (stopped at --max-seconds)" : "",
      progress->steps ? 100.0 * progress->fill_sum / progress->steps : 0.0,
      o.capacity, join_ms, progress->loss,
      static_cast<double>(score.correct) / kEval, static_cast<long long>(kEval),
      static_cast<double>(score.rule_correct) / kEval);
  for (const auto& t : threads) {
    std::printf("thread %-28s runs %8lld  errors %lld  blocked %.3f s\n",
                t->name().c_str(), static_cast<long long>(t->stats().runs()),
                static_cast<long long>(t->stats().errors()),
                std::chrono::duration<double>(t->stats().blocked()).count());
  }
}

Status RunDemo(const DemoOptions& o) {
  if (o.threads < 1 || o.batch_size < 1 || o.features < 1 || o.examples < 1 ||
      o.capacity < 1) {
    return InvalidArgumentError(
        "--threads, --batch-size, --features, --examples and --capacity "
        "must be positive");
  }
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<QueueInterface> queue, MakeQueue(o));
  const std::vector<float> w_true = TrueWeights(o);
  INFLOW_ASSIGN_OR_RETURN(
      auto runner,
      QueueRunner::Create(queue, MakeProducerOps(o, queue, w_true)));

  std::printf(
      "demo: %d producer threads -> %s (capacity %d) -> batches of %d -> "
      "logistic regression on %d features, %lld examples\n",
      o.threads, queue->name().c_str(), o.capacity, o.batch_size, o.features,
      static_cast<long long>(o.examples));
  std::fflush(stdout);

  const auto start = Clock::now();
  Coordinator coord;
  Progress progress;
  std::vector<std::shared_ptr<Thread>> threads =
      runner->CreateThreads(&coord, /*start=*/true);
  INFLOW_ASSIGN_OR_RETURN(
      std::shared_ptr<Thread> looper,
      StartProgressLine(o, queue.get(), start, &coord, &progress));
  threads.push_back(looper);

  Model model(o.features);
  const bool out_of_time =
      TrainUntilStopped(o, queue.get(), start, &coord, &model, &progress);
  const auto trained = Clock::now();
  INFLOW_RETURN_IF_ERROR(coord.Join(threads, std::chrono::seconds(10)));
  const auto joined = Clock::now();

  const HeldOutScore score = ScoreHeldOut(o, w_true, model);
  PrintSummary(
      o, &progress, out_of_time,
      std::chrono::duration<double>(trained - start).count(),
      std::chrono::duration<double, std::milli>(joined - trained).count(),
      score, threads);
  return OkStatus();
}

INFLOW_REGISTER_COMMAND(
    "demo", "Run the demo pipeline: queue runners feeding a training loop",
    [](CLI::App& sub) {
      auto o = std::make_shared<DemoOptions>();
      constexpr int64_t kInt = std::numeric_limits<int>::max();
      constexpr int64_t kInt64 = std::numeric_limits<int64_t>::max();
      sub.add_option("--threads", o->threads, "producer threads")
          ->transform(IntegerIn(1, kInt))
          ->capture_default_str();
      sub.add_option("--examples", o->examples, "examples to produce")
          ->transform(IntegerIn(1, kInt64))
          ->capture_default_str();
      sub.add_option("--batch-size", o->batch_size, "examples per batch")
          ->transform(IntegerIn(1, kInt))
          ->capture_default_str();
      sub.add_option("--features", o->features, "features per example")
          ->transform(IntegerIn(1, kInt))
          ->capture_default_str();
      sub.add_option("--queue", o->queue, "fifo or shuffle")
          ->check(CLI::IsMember({"fifo", "shuffle"}))
          ->capture_default_str();
      sub.add_option("--capacity", o->capacity, "queue capacity")
          ->transform(IntegerIn(1, kInt))
          ->capture_default_str();
      sub.add_option("--min-after-dequeue", o->min_after_dequeue,
                     "shuffle queue's min_after_dequeue (below --capacity)")
          ->transform(IntegerIn(0, kInt))
          ->capture_default_str();
      sub.add_option("--learning-rate", o->learning_rate, "SGD step size")
          ->check(PositiveFinite())
          ->capture_default_str();
      sub.add_option("--max-seconds", o->max_seconds,
                     "stop early after this long")
          ->check(PositiveFinite())
          ->capture_default_str();
      sub.add_option("--seed", o->seed, "seed of the data and the shuffle")
          ->transform(IntegerIn(0, kInt64))
          ->capture_default_str();
      sub.add_option("--fail-at-step", o->fail_at_step,
                     "make producer 0 fail with DATA_LOSS on this step "
                     "(0: never)")
          ->transform(IntegerIn(0, kInt64));
      // Checked with the flags, so that it is a usage error too.
      sub.callback([o] {
        if (o->queue == "shuffle" && o->min_after_dequeue >= o->capacity) {
          throw CLI::ValidationError("--min-after-dequeue",
                                     std::to_string(o->min_after_dequeue) +
                                         " is not below --capacity " +
                                         std::to_string(o->capacity));
        }
      });
      return [o] { return RunDemo(*o); };
    });

}  // namespace
}  // namespace inflow::tools
