// Copyright 2026 The inflow Authors.
//
// The model's math threads: MathPool runs every part once, part 0 on the
// caller, on workers named in the thread registry that are joined when
// the pool goes; and training with 1, 2 or 3 math threads gives the same
// losses, gradients and parameters, bit for bit, with every kernel the CPU
// runs and every optimizer. Small models and few steps: this binary runs
// under TSan.

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"
#include "inflow/threads/thread_registry.h"

#include "model/math_pool.h"
#include "train_test_util.h"

namespace inflow {
namespace {

using internal::MathPool;

int RegisteredMathThreads() {
  int n = 0;
  for (const ThreadSnapshot& t : ThreadRegistry::Global().Snapshot()) {
    n += t.name.rfind("inflow-math-", 0) == 0;
  }
  return n;
}

TEST(MathPoolTest, RunCallsEveryPartOnceWithPartZeroOnTheCaller) {
  MathPool pool(3);
  ASSERT_EQ(pool.threads(), 3);
  const std::thread::id caller = std::this_thread::get_id();
  for (int round = 0; round < 200; ++round) {
    std::atomic<int> calls[3] = {0, 0, 0};
    std::thread::id ids[3];
    pool.Run([&](int part) {
      ASSERT_GE(part, 0);
      ASSERT_LT(part, 3);
      calls[part].fetch_add(1);
      ids[part] = std::this_thread::get_id();
    });
    // Run returned: every part has, and its writes are visible here.
    for (int p = 0; p < 3; ++p) EXPECT_EQ(calls[p].load(), 1) << p;
    EXPECT_EQ(ids[0], caller);
  }
}

TEST(MathPoolTest, WorkersRunPartsWhileTheCallerRunsPartZero) {
  MathPool pool(3);
  const std::thread::id caller = std::this_thread::get_id();
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> others{0};
    std::thread::id ids[3];
    pool.Run([&](int part) {
      ids[part] = std::this_thread::get_id();
      if (part != 0) {
        others.fetch_add(1);
        return;
      }
      // Only the workers can run parts 1 and 2 meanwhile (bounded wait:
      // a failure, not a hang, if they never do).
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (others.load() < 2 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    });
    EXPECT_EQ(others.load(), 2);
    EXPECT_NE(ids[1], caller);
    EXPECT_NE(ids[2], caller);  // (one worker may have run both)
  }
}

TEST(MathPoolTest, TheCallerRunsPartsNoWorkerHasClaimed) {
  // Part 1 blocks until part 2 has run: with one worker busy in part 1 (or
  // still asleep) and the caller done with part 0, part 2 is the caller's.
  MathPool pool(3);
  for (int round = 0; round < 20; ++round) {
    std::atomic<bool> two_done{false};
    std::atomic<int> calls{0};
    pool.Run([&](int part) {
      calls.fetch_add(1);
      if (part == 2) two_done.store(true);
      if (part != 1) return;
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!two_done.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    });
    EXPECT_EQ(calls.load(), 3);
    EXPECT_TRUE(two_done.load());
  }
}

TEST(MathPoolTest, WorkersAfterSleepingStillRunTheirParts) {
  MathPool pool(2);
  for (int round = 0; round < 5; ++round) {
    // Longer than the spin: the worker is asleep when the task comes.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::atomic<int> sum{0};
    pool.Run([&](int part) { sum.fetch_add(part + 1); });
    EXPECT_EQ(sum.load(), 3);
  }
}

TEST(MathPoolTest, AnExceptionFromAPartIsRethrownOnceEveryPartFinished) {
  MathPool pool(3);
  for (int thrower : {0, 1, 2}) {
    std::atomic<int> finished{0};
    EXPECT_THROW(pool.Run([&](int part) {
      if (part == thrower) throw std::runtime_error("part failed");
      finished.fetch_add(1);
    }),
                 std::runtime_error);
    EXPECT_EQ(finished.load(), 2) << thrower;
  }
  // The pool still runs tasks.
  std::atomic<int> sum{0};
  pool.Run([&](int part) { sum.fetch_add(part + 1); });
  EXPECT_EQ(sum.load(), 6);
}

TEST(MathPoolTest, OneThreadRunsOnTheCallerAndStartsNothing) {
  const int before = RegisteredMathThreads();
  MathPool pool(1);
  EXPECT_EQ(RegisteredMathThreads(), before);
  std::thread::id id;
  int calls = 0;
  pool.Run([&](int part) {
    EXPECT_EQ(part, 0);
    ++calls;
    id = std::this_thread::get_id();
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(MathPoolTest, WorkersAreNamedInTheRegistryUntilThePoolGoes) {
  const int before = RegisteredMathThreads();
  {
    MathPool pool(4);
    std::set<std::string> names;
    for (const ThreadSnapshot& t : ThreadRegistry::Global().Snapshot()) {
      if (t.name.rfind("inflow-math-", 0) == 0) names.insert(t.name);
    }
    EXPECT_TRUE(names.count("inflow-math-1") && names.count("inflow-math-2") &&
                names.count("inflow-math-3"));
    EXPECT_EQ(RegisteredMathThreads(), before + 3);
    pool.Run([](int) {});
  }
  EXPECT_EQ(RegisteredMathThreads(), before);
}

TEST(MathPoolTest, PoolsAreJoinedWhenDestroyedRunOrNot) {
  // Bounded by ctest's timeout: a destructor that did not wake a sleeping
  // or spinning worker would hang here.
  for (int i = 0; i < 20; ++i) {
    MathPool idle(3);
    MathPool used(3);
    used.Run([](int) {});
    if (i % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(MathPool(0).threads(), 1);  // clamped
  EXPECT_EQ(MathPool(1000).threads(), MathPool::kMaxThreads);
}

TEST(MathPoolTest, SplitCoversTheRangeInAlignedContiguousParts) {
  for (int64_t n : {0, 1, 10, 15, 16, 17, 625, 784, 1000}) {
    for (int parts = 1; parts <= 5; ++parts) {
      int64_t at = 0;
      for (int p = 0; p < parts; ++p) {
        int64_t begin, end;
        MathPool::Split(n, 16, p, parts, &begin, &end);
        EXPECT_EQ(begin, at) << n << " " << parts << " " << p;
        EXPECT_LE(begin, end);
        if (p + 1 < parts) {
          EXPECT_TRUE(end % 16 == 0 || end == n);
        }
        at = end;
      }
      EXPECT_EQ(at, n) << n << " " << parts;
    }
  }
  int64_t begin, end;
  MathPool::Split(625, 16, 0, 2, &begin, &end);
  EXPECT_EQ(end, 320);  // 20 of the 40 lines of 16
}

TEST(MlpMathThreadsTest, MathThreadsOutsideOneTo64AreInvalidArgument) {
  for (int m : {0, -1, 65}) {
    MlpOptions o;
    o.math_threads = m;
    Result<std::unique_ptr<Mlp>> model = Mlp::Create(o);
    ASSERT_FALSE(model.ok()) << m;
    EXPECT_TRUE(IsInvalidArgument(model.status()));
    EXPECT_NE(model.status().message().find("math_threads"), std::string::npos)
        << model.status();
  }
  MlpOptions o;
  o.layer_sizes = {4, 3};
  o.math_threads = 64;
  EXPECT_TRUE(Mlp::Create(o).ok());
}

struct Trained {
  std::vector<float> losses;
  std::vector<Tensor> params;  // copies after the last step
  std::vector<Tensor> grads;   // of the last step
  Tensor predictions;
};

// `steps` steps of a model whose products take both splits: with 2 and 3
// threads the 256-wide layer splits its columns, the 10-wide output its
// rows, and the 130-wide layer its columns with 2 and its rows with 3.
Trained Train(int math_threads, const std::string& optimizer, int steps) {
  MlpOptions o;
  o.layer_sizes = {200, 256, 130, 10};
  o.seed = 11;
  o.init_stddev = 0.1f;
  o.math_threads = math_threads;
  std::unique_ptr<Mlp> model = Mlp::Create(o).value();
  OptimizerOptions oo;
  oo.kind = ParseOptimizerKind(optimizer).value();
  std::unique_ptr<Optimizer> opt =
      Optimizer::Create(oo, model->variables()).value();
  opt->ShareMathThreads(*model);
  std::mt19937 rng(3);
  Trained run;
  for (int s = 0; s < steps; ++s) {
    // Batch sizes vary: row splits with fewer rows than threads included.
    const int64_t batch = s == 0 ? 2 : 24 + 8 * s;
    const Tensor x = testing::RandomImages(&rng, batch, 200, 0.5);
    const Tensor y = testing::RandomLabels(&rng, batch, 10);
    run.losses.push_back(model->ComputeGradients(x, y, s).value());
    EXPECT_TRUE(opt->Apply(model->gradients()).ok());
  }
  for (auto& [name, t] : model->variables()) {
    run.params.push_back(Tensor(t->dtype(), t->shape()));
    std::copy_n(t->data<float>(), t->num_elements(),
                run.params.back().mutable_flat<float>().value().data());
  }
  run.grads = model->gradients();
  const Tensor x = testing::RandomImages(&rng, 50, 200, 0.5);
  run.predictions = model->Predict(x).value();
  return run;
}

void ExpectSameBits(const Trained& want, const Trained& got,
                    const std::string& what) {
  ASSERT_EQ(want.losses.size(), got.losses.size());
  for (size_t s = 0; s < want.losses.size(); ++s) {
    EXPECT_EQ(testing::Bits(want.losses[s]), testing::Bits(got.losses[s]))
        << what << " loss of step " << s;
  }
  for (size_t i = 0; i < want.params.size(); ++i) {
    EXPECT_TRUE(want.params[i] == got.params[i]) << what << " parameter " << i;
    EXPECT_TRUE(want.grads[i] == got.grads[i]) << what << " gradient " << i;
  }
  EXPECT_TRUE(want.predictions == got.predictions) << what << " predictions";
}

TEST(MlpMathThreadsTest, OneTwoAndThreeThreadsGiveTheSameBitsWithEveryKernel) {
  for (auto kernel : testing::RunnableTrainKernels("math threads")) {
    const std::string name(internal::TrainKernelName(kernel));
    testing::ScopedEnv env("INFLOW_TRAIN_KERNEL", name);
    const Trained one = Train(1, "rmsprop", 4);
    for (int m : {2, 3}) {
      ExpectSameBits(one, Train(m, "rmsprop", 4),
                     name + " with " + std::to_string(m) + " threads");
    }
  }
}

TEST(MlpMathThreadsTest, EveryOptimizerGivesTheSameBitsOnTwoThreads) {
  for (const char* optimizer : {"adam", "sgd"}) {
    ExpectSameBits(Train(1, optimizer, 3), Train(2, optimizer, 3), optimizer);
  }
}

TEST(MlpMathThreadsTest, TheDefaultModelGivesTheSameBitsOnTwoThreads) {
  // 784-625-625-10 at batch 128: the input layer's transposed gradient.
  std::mt19937 rng(4);
  const Tensor x = testing::RandomImages(&rng, 128, 784, 0.5);
  const Tensor y = testing::RandomLabels(&rng, 128, 10);
  MlpOptions o;
  std::unique_ptr<Mlp> one = Mlp::Create(o).value();
  o.math_threads = 2;
  std::unique_ptr<Mlp> two = Mlp::Create(o).value();
  EXPECT_EQ(testing::Bits(one->ComputeGradients(x, y, 7).value()),
            testing::Bits(two->ComputeGradients(x, y, 7).value()));
  for (size_t i = 0; i < one->gradients().size(); ++i) {
    EXPECT_TRUE(one->gradients()[i] == two->gradients()[i]) << i;
  }
}

}  // namespace
}  // namespace inflow
