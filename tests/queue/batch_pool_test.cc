// Copyright 2026 The inflow Authors.
//
// BatchPool (queue/batch_pool.h): a dropped buffer is handed out again, a
// held one never is, buffers outlive the pool, the kept bytes stay within
// the bound, and Get and release may run on any threads at once.

#include "queue/batch_pool.h"

#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

namespace inflow::internal {
namespace {

size_t Rounded(size_t bytes) {
  return (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

const void* Address(const std::shared_ptr<TensorBuffer>& b) {
  return b->data();
}

// Fills `b` with bytes derived from `seed`; Holds checks them.
void Fill(const std::shared_ptr<TensorBuffer>& b, uint32_t seed) {
  auto* p = static_cast<uint8_t*>(const_cast<void*>(b->data()));
  for (size_t i = 0; i < b->size(); ++i) {
    p[i] = static_cast<uint8_t>(seed * 131 + i * 7);
  }
}
bool Holds(const std::shared_ptr<TensorBuffer>& b, uint32_t seed) {
  const auto* p = static_cast<const uint8_t*>(b->data());
  for (size_t i = 0; i < b->size(); ++i) {
    if (p[i] != static_cast<uint8_t>(seed * 131 + i * 7)) return false;
  }
  return true;
}

TEST(BatchPoolTest, ADroppedBufferIsReusedByTheNextGetOfItsSize) {
  BatchPool pool(1 << 20);
  std::shared_ptr<TensorBuffer> a = pool.Get(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->size(), 1000u);
  EXPECT_FALSE(a->read_only());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data()) % kTensorAlignment, 0u);
  const void* first = Address(a);
  a.reset();
  EXPECT_EQ(pool.stats().free_buffers, 1u);
  EXPECT_EQ(pool.stats().free_bytes, Rounded(1000));

  // The same rounded size (1024): the same buffer.
  std::shared_ptr<TensorBuffer> b = pool.Get(1020);
  EXPECT_EQ(Address(b), first);
  EXPECT_EQ(b->size(), 1020u);
  const BatchPool::Stats stats = pool.stats();
  EXPECT_EQ(stats.allocated, 1u);
  EXPECT_EQ(stats.reused, 1u);
  EXPECT_EQ(stats.free_buffers, 0u);
  EXPECT_EQ(stats.free_bytes, 0u);

  // Another size does not take it.
  b.reset();
  std::shared_ptr<TensorBuffer> c = pool.Get(2000);
  EXPECT_NE(Address(c), first);
  EXPECT_EQ(pool.stats().allocated, 2u);
  EXPECT_EQ(pool.stats().free_buffers, 1u);
}

TEST(BatchPoolTest, TheMostRecentlyDroppedBufferComesBackFirst) {
  BatchPool pool(1 << 20);
  std::shared_ptr<TensorBuffer> a = pool.Get(4096);
  std::shared_ptr<TensorBuffer> b = pool.Get(4096);
  const void* b_address = Address(b);
  a.reset();
  b.reset();
  EXPECT_EQ(Address(pool.Get(4096)), b_address);
}

TEST(BatchPoolTest, AHeldBufferIsNeverHandedOutAgain) {
  BatchPool pool(1 << 20);
  std::vector<std::shared_ptr<TensorBuffer>> held;
  for (uint32_t i = 0; i < 8; ++i) {
    held.push_back(pool.Get(512));
    Fill(held.back(), i);
  }
  EXPECT_EQ(pool.stats().allocated, 8u);
  EXPECT_EQ(pool.stats().reused, 0u);
  for (size_t i = 0; i < held.size(); ++i) {
    for (size_t j = i + 1; j < held.size(); ++j) {
      EXPECT_NE(Address(held[i]), Address(held[j]));
    }
  }
  // Drop every other one: Gets reuse those and allocate past them; the
  // held ones keep their bytes.
  for (size_t i = 0; i < held.size(); i += 2) held[i].reset();
  std::vector<std::shared_ptr<TensorBuffer>> more;
  for (uint32_t i = 0; i < 6; ++i) {
    more.push_back(pool.Get(512));
    Fill(more.back(), 100 + i);
  }
  EXPECT_EQ(pool.stats().reused, 4u);
  EXPECT_EQ(pool.stats().allocated, 10u);
  for (size_t i = 1; i < held.size(); i += 2) {
    EXPECT_TRUE(Holds(held[i], static_cast<uint32_t>(i))) << i;
    for (const auto& m : more) EXPECT_NE(Address(m), Address(held[i]));
  }
}

TEST(BatchPoolTest, AViewOfATensorHoldsItsBuffer) {
  BatchPool pool(1 << 20);
  Tensor batch = pool.Uninitialized(DType::kFloat32, TensorShape({4, 3}));
  ASSERT_EQ(batch.dtype(), DType::kFloat32);
  ASSERT_EQ(batch.shape(), TensorShape({4, 3}));
  auto values = batch.mutable_flat<float>();
  ASSERT_TRUE(values.ok());
  for (int i = 0; i < 12; ++i) (*values)[i] = static_cast<float>(i);
  const void* address = batch.raw_data();
  Tensor row = batch.SubTensor(2);
  batch = Tensor();
  // The row still holds the buffer: a Get of its size allocates.
  Tensor other = pool.Uninitialized(DType::kFloat32, TensorShape({4, 3}));
  EXPECT_NE(other.raw_data(), address);
  EXPECT_EQ(pool.stats().reused, 0u);
  EXPECT_EQ(row.flat<float>()[0], 6.0f);
  EXPECT_EQ(row.flat<float>()[2], 8.0f);
  row = Tensor();
  EXPECT_EQ(pool.Uninitialized(DType::kFloat32, TensorShape({4, 3})).raw_data(),
            address);
}

TEST(BatchPoolTest, BuffersOutliveThePool) {
  auto pool = std::make_unique<BatchPool>(1 << 20);
  Tensor kept = pool->Uninitialized(DType::kInt64, TensorShape({100}));
  auto values = kept.mutable_flat<int64_t>();
  ASSERT_TRUE(values.ok());
  for (int64_t i = 0; i < 100; ++i) (*values)[i] = i * i;
  std::shared_ptr<TensorBuffer> raw = pool->Get(3000);
  Fill(raw, 9);
  // A kept buffer too, freed with the pool.
  pool->Get(3000).reset();
  ASSERT_EQ(pool->stats().free_buffers, 1u);
  pool.reset();
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(kept.flat<int64_t>()[i], i * i);
  EXPECT_TRUE(Holds(raw, 9));
  // Dropped after the pool: freed (LeakSanitizer checks there is no leak).
  kept = Tensor();
  raw.reset();
}

TEST(BatchPoolTest, KeptBytesStayWithinTheLimit) {
  BatchPool pool(4096);
  std::vector<std::shared_ptr<TensorBuffer>> held;
  for (int i = 0; i < 10; ++i) held.push_back(pool.Get(1024));
  held.clear();
  EXPECT_EQ(pool.stats().free_buffers, 4u);
  EXPECT_EQ(pool.stats().free_bytes, 4096u);

  // A size that does not fit next to them is freed.
  pool.Get(3000).reset();
  EXPECT_EQ(pool.stats().free_buffers, 4u);
  EXPECT_EQ(pool.stats().free_bytes, 4096u);
}

TEST(BatchPoolTest, ABufferLargerThanTheLimitIsStillKeptTwice) {
  BatchPool pool(1000);
  std::vector<std::shared_ptr<TensorBuffer>> held;
  for (int i = 0; i < 5; ++i) held.push_back(pool.Get(3000));
  held.clear();
  EXPECT_EQ(pool.stats().free_buffers, BatchPool::kMinFreePerSize);
  EXPECT_EQ(pool.stats().free_bytes,
            BatchPool::kMinFreePerSize * Rounded(3000));
  for (int i = 0; i < 5; ++i) held.push_back(pool.Get(3000));
  EXPECT_EQ(pool.stats().reused, BatchPool::kMinFreePerSize);
}

TEST(BatchPoolTest, TheLimitHoldsForAnyMixOfSizes) {
  constexpr size_t kLimit = 20000;
  BatchPool pool(kLimit);
  std::mt19937 random(7);
  std::uniform_int_distribution<size_t> size(1, 12000);
  std::vector<std::shared_ptr<TensorBuffer>> held;
  size_t largest = 0;
  uint64_t gets = 0;
  for (int step = 0; step < 2000; ++step) {
    if (held.empty() || random() % 2 == 0) {
      const size_t bytes = size(random) / 500 * 500 + 1;  // 25 sizes
      held.push_back(pool.Get(bytes));
      ++gets;
      largest = std::max(largest, Rounded(bytes));
    } else {
      std::swap(held[random() % held.size()], held.back());
      held.pop_back();
    }
    const BatchPool::Stats stats = pool.stats();
    ASSERT_LE(stats.free_bytes,
              std::max(kLimit, BatchPool::kMinFreePerSize * largest))
        << "step " << step;
    ASSERT_EQ(stats.allocated + stats.reused, gets);
  }
  EXPECT_GT(pool.stats().reused, 0u);
}

// Threads get buffers, fill them with a value of their own, pass some to
// the next thread and drop the ones passed to them after checking that
// nobody else wrote into them: a buffer handed out twice would show.
TEST(BatchPoolTest, ConcurrentGetAndRelease) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 300;
  constexpr size_t kLimit = 64 << 10;
  BatchPool pool(kLimit);
  struct Passed {
    std::shared_ptr<TensorBuffer> buffer;
    uint32_t seed;
  };
  std::mutex mu;
  std::vector<std::vector<Passed>> inbox(kThreads);
  std::barrier round(kThreads);
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Passed> mine;
      for (int r = 0; r < kRounds; ++r) {
        for (int k = 0; k < 3; ++k) {
          const size_t bytes = 1000 + 1000 * static_cast<size_t>(k);
          const uint32_t seed =
              static_cast<uint32_t>((t * kRounds + r) * 3 + k);
          mine.push_back({pool.Get(bytes), seed});
          Fill(mine.back().buffer, seed);
        }
        // One to the next thread, the rest dropped here (the oldest
        // first), each checked first.
        {
          std::lock_guard<std::mutex> lock(mu);
          inbox[(t + 1) % kThreads].push_back(std::move(mine.back()));
        }
        mine.pop_back();
        while (mine.size() > 1) {
          if (!Holds(mine.front().buffer, mine.front().seed)) ++failures[t];
          mine.erase(mine.begin());
        }
        // Every thread has passed its buffer for this round: take and
        // drop what was passed to this one.
        round.arrive_and_wait();
        std::vector<Passed> received;
        {
          std::lock_guard<std::mutex> lock(mu);
          received.swap(inbox[t]);
        }
        for (const Passed& p : received) {
          if (!Holds(p.buffer, p.seed)) ++failures[t];
        }
        round.arrive_and_wait();
      }
      for (const Passed& p : mine) {
        if (!Holds(p.buffer, p.seed)) ++failures[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << t;
  const BatchPool::Stats stats = pool.stats();
  EXPECT_EQ(stats.allocated + stats.reused,
            static_cast<uint64_t>(kThreads) * kRounds * 3);
  EXPECT_GT(stats.reused, stats.allocated);
  EXPECT_LE(stats.free_bytes, kLimit);
}

}  // namespace
}  // namespace inflow::internal
