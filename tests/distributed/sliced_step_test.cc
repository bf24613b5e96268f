// Copyright 2026 The inflow Authors.
//
// Host memory over the in-process group (its barrier, a rank leaving
// mid-barrier) and SlicedStep against DataParallel::Sum: the same
// parameters and slots after the same steps, on one host and on several.
// Ranks are threads (run under TSan: label concurrency).

#include "inflow/distributed/sliced_step.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/distributed/communicator.h"
#include "inflow/distributed/data_parallel.h"
#include "inflow/model/optimizer.h"

namespace inflow::distributed {
namespace {

using ::testing::HasSubstr;

// Runs fn(rank's communicator) on `size` threads and joins them.
void OnRanks(int size, int ranks_per_host,
             const std::function<void(Communicator&)>& fn) {
  std::vector<std::unique_ptr<Communicator>> group =
      MakeLocalGroup(size, ranks_per_host);
  std::vector<std::jthread> threads;
  for (auto& comm : group) {
    threads.emplace_back([&fn, c = comm.get()] { fn(*c); });
  }
}

TEST(HostMemoryTest, BarrierShowsEachRanksWritesToTheRanksOfItsHost) {
  // {ranks, ranks per host}
  for (std::pair<int, int> shape : {std::pair{1, 0}, {2, 0}, {3, 0}, {4, 2}}) {
    const int size = shape.first, per_host = shape.second;
    OnRanks(size, per_host, [size, per_host](Communicator& c) {
      Result<std::shared_ptr<HostMemory>> host =
          c.ShareHostMemory(16 * sizeof(int), 16 * sizeof(int));
      ASSERT_TRUE(host.ok()) << host.status();
      HostMemory& h = **host;
      const int local = per_host == 0 ? size : per_host;
      ASSERT_EQ(h.size(), local);
      ASSERT_EQ(h.hosts(), size / local);
      ASSERT_EQ(h.rank(), c.rank() % local);
      ASSERT_GE(h.bytes().size(), (16 + 16 * local) * sizeof(int));
      int* words = reinterpret_cast<int*>(h.bytes().data());
      for (int round = 1; round <= 50; ++round) {
        words[h.rank()] = round * 100 + c.rank();
        ASSERT_TRUE(h.Barrier().ok());
        for (int r = 0; r < h.size(); ++r) {
          // The host's ranks are consecutive ranks of the group.
          EXPECT_EQ(words[r], round * 100 + c.rank() - h.rank() + r);
        }
        ASSERT_TRUE(h.Barrier().ok());  // before the next round's writes
      }
      std::vector<float> across = {1.0f + c.rank()};
      ASSERT_TRUE(h.AllreduceAcrossHosts(across).ok());
      float want = 0;
      for (int r = h.rank(); r < size; r += local) want += 1.0f + r;
      EXPECT_EQ(across[0], want);
    });
  }
}

TEST(HostMemoryTest, ARankThatLeavesMidBarrierIsNamedAndNobodyHangs) {
  std::vector<std::unique_ptr<Communicator>> group = MakeLocalGroup(3);
  std::vector<std::shared_ptr<HostMemory>> hosts(3);
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < 3; ++r) {
      threads.emplace_back([&, r] {
        group[r]->SetActivity("the allreduce of step 8");
        hosts[r] = group[r]->ShareHostMemory(64).value();
      });
    }
  }
  Status waiting[2];
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < 2; ++r) {
      threads.emplace_back([&, r] { waiting[r] = hosts[r]->Barrier(); });
    }
    group[2].reset();  // rank 2 leaves before or while the others wait
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  for (const Status& s : waiting) {
    EXPECT_EQ(s.code(), StatusCode::kUnavailable);
    EXPECT_THAT(std::string(s.message()), HasSubstr("local rank 2"));
    EXPECT_THAT(std::string(s.message()), HasSubstr("step 8"));
  }
}

// A model's worth of parameters: sizes that do not fill whole cache lines
// and one smaller than a rank's slice.
std::vector<int64_t> Sizes() { return {1000, 37, 300, 5}; }

// Each rank's gradients of parameter i at `step`, as a flat buffer like
// Mlp's (64-byte aligned views, then the reserved floats).
struct Model {
  Model(int rank, int ranks) : rank_(rank), ranks_(ranks) {
    int64_t total = 0;
    for (int64_t n : Sizes()) {
      offsets.push_back(total);
      total += (n + 15) / 16 * 16;
    }
    flat =
        Tensor(DType::kFloat32,
               TensorShape({total + int64_t{DataParallel::kReservedFloats}}));
    std::mt19937 init(5);  // the same parameters on every rank
    for (size_t i = 0; i < Sizes().size(); ++i) {
      params.emplace_back(DType::kFloat32, TensorShape({Sizes()[i]}));
      const std::span<float> values =
          params.back().mutable_flat<float>().value();
      for (float& v : values) v = static_cast<float>(init() % 1000) / 1000.0f;
    }
    Bind(flat.buffer(), 0);
  }
  void Bind(std::shared_ptr<TensorBuffer> buffer, size_t offset) {
    Tensor moved =
        Tensor::FromBuffer(DType::kFloat32, flat.shape(), buffer, offset)
            .value();
    if (moved.raw_data() != flat.raw_data()) {
      std::memcpy(moved.mutable_flat<float>().value().data(), flat.raw_data(),
                  flat.num_elements() * 4);
    }
    flat = moved;
    grads.clear();
    for (size_t i = 0; i < Sizes().size(); ++i) {
      grads.push_back(Tensor::FromBuffer(DType::kFloat32,
                                         TensorShape({Sizes()[i]}), buffer,
                                         offset + offsets[i] * 4)
                          .value());
    }
  }
  void Gradients(int64_t step) {
    std::mt19937 draw(static_cast<uint32_t>(step * 1000 + rank_));
    for (Tensor& g : grads) {
      const std::span<float> values = g.mutable_flat<float>().value();
      for (float& v : values) {
        v = (static_cast<float>(draw() % 2001) - 1000.0f) / 1000.0f / ranks_;
      }
    }
  }
  std::span<float> span() { return flat.mutable_flat<float>().value(); }
  std::vector<std::pair<std::string, Tensor*>> named() {
    std::vector<std::pair<std::string, Tensor*>> out;
    for (size_t i = 0; i < params.size(); ++i) {
      out.emplace_back("p" + std::to_string(i), &params[i]);
    }
    return out;
  }

  int rank_, ranks_;
  std::vector<int64_t> offsets;
  Tensor flat;
  std::vector<Tensor> grads, params;
};

// Every rank's parameters and slots after `steps` steps of `kind`.
std::vector<std::vector<float>> Train(int size, int per_host, bool sliced,
                                      OptimizerKind kind, int steps) {
  std::vector<std::vector<float>> result(size);
  OnRanks(size, per_host, [&](Communicator& c) {
    Model model(c.rank(), size);
    OptimizerOptions options;
    options.kind = kind;
    std::unique_ptr<Optimizer> opt =
        Optimizer::Create(options, model.named()).value();
    DataParallel dp(&c);
    std::unique_ptr<SlicedStep> step;
    if (sliced) {
      std::vector<Tensor*> shared;
      for (Tensor& p : model.params) shared.push_back(&p);
      for (Tensor* t : opt->parameter_slots()) shared.push_back(t);
      step = SlicedStep::Create(&dp, model.span(), model.grads, shared).value();
      model.Bind(step->gradient_buffer(), step->gradient_offset());
    }
    for (int64_t s = 1; s <= steps; ++s) {
      model.Gradients(s);
      if (sliced) {
        Result<StepOutcome> out = step->Sum(s, 1.0f, {}, OkStatus());
        ASSERT_TRUE(out.ok()) << out.status();
        EXPECT_EQ(out->loss, static_cast<float>(size));
        ASSERT_TRUE(opt->ApplyRanges(model.grads, step->ranges()).ok());
        ASSERT_TRUE(step->EndStep().ok());
      } else {
        Result<StepOutcome> out = dp.Sum(s, model.span(), 1.0f, {}, OkStatus());
        ASSERT_TRUE(out.ok()) << out.status();
        ASSERT_TRUE(opt->Apply(model.grads).ok());
      }
    }
    std::vector<float>& mine = result[c.rank()];
    for (Tensor& p : model.params) {
      for (float v : p.flat<float>()) mine.push_back(v);
    }
    for (Tensor* t : opt->parameter_slots()) {
      for (float v : t->flat<float>()) mine.push_back(v);
    }
  });
  return result;
}

TEST(SlicedStepTest, GivesTheParametersAndSlotsOfTheAllreducePath) {
  for (OptimizerKind kind : {OptimizerKind::kRmsProp, OptimizerKind::kAdam}) {
    for (auto [size, per_host] :
         {std::pair{2, 0}, {3, 0}, {4, 0}, {2, 1}, {3, 1}, {4, 2}}) {
      SCOPED_TRACE(std::to_string(size) + " ranks, " +
                   std::to_string(per_host) + " a host");
      const auto want = Train(size, per_host, false, kind, 4);
      const auto got = Train(size, per_host, true, kind, 4);
      for (int r = 0; r < size; ++r) {
        ASSERT_EQ(got[r].size(), want[r].size());
        if (per_host == 0 || per_host == 1) {
          // The sums are made in rank order on both paths: the same bits.
          EXPECT_EQ(got[r], want[0]) << "rank " << r;
          continue;
        }
        // Hosts of two: (g0 + g1) + (g2 + g3) against rank order.
        for (size_t i = 0; i < want[0].size(); ++i) {
          ASSERT_NEAR(got[r][i], want[0][i], 1e-5f)
              << "rank " << r << ", " << i;
        }
      }
    }
  }
}

TEST(SlicedStepTest, ARanksErrorOrStopReachesEveryRankAtThatStep) {
  OnRanks(3, 0, [](Communicator& c) {
    Model model(c.rank(), 3);
    DataParallel dp(&c);
    std::vector<Tensor*> shared;
    for (Tensor& p : model.params) shared.push_back(&p);
    std::unique_ptr<SlicedStep> step =
        SlicedStep::Create(&dp, model.span(), model.grads, shared).value();
    model.Bind(step->gradient_buffer(), step->gradient_offset());
    for (int64_t s = 1; s <= 2; ++s) {
      StepFlags flags;
      flags.stop = c.rank() == 2 && s == 1;
      Result<StepOutcome> out = step->Sum(s, 0.5f, flags, OkStatus());
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->stop, s == 1);
      if (out->apply()) {
        ASSERT_TRUE(step->EndStep().ok());
      }
    }
    const Status local =
        c.rank() == 1 ? DataLossError("shard 3 is corrupt") : OkStatus();
    Result<StepOutcome> out = step->Sum(3, 0.5f, {}, local);
    EXPECT_EQ(out.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr("local rank 1: shard 3 is corrupt (step 3)"));
  });
}

}  // namespace
}  // namespace inflow::distributed
