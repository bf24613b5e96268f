// Copyright 2026 The inflow Authors.

#include "queue/batch_pool.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"

#if defined(__SANITIZE_ADDRESS__)
#define INFLOW_BATCH_POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INFLOW_BATCH_POOL_ASAN 1
#endif
#endif
#ifdef INFLOW_BATCH_POOL_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace inflow::internal {

namespace {

size_t RoundUp(size_t bytes) {
  return (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

// Under AddressSanitizer a kept buffer is poisoned until it is handed out
// again, so a use of a dropped batch's memory is still reported.
void Poison(void* p, size_t bytes) {
#ifdef INFLOW_BATCH_POOL_ASAN
  ASAN_POISON_MEMORY_REGION(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

void Unpoison(void* p, size_t bytes) {
#ifdef INFLOW_BATCH_POOL_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace

// Shared by the pool and by the release callback of every buffer it
// handed out, so that a buffer dropped after the pool is gone still finds
// where to go (nowhere: `open` is false, it is freed).
struct BatchPool::State {
  explicit State(size_t max_free_bytes) : max_free_bytes(max_free_bytes) {}

  // Keeps `p` (of `bytes`, rounded) or frees it (see "Bound" in the
  // header).
  void Release(void* p, size_t bytes) INFLOW_EXCLUDES(mu) {
    {
      MutexLock lock(&mu);
      // limit >= bytes: the subtraction does not wrap.
      const size_t limit = std::max(max_free_bytes, kMinFreePerSize * bytes);
      if (open && free_bytes <= limit - bytes) {
        // Poisoned before another Get can see it.
        Poison(p, bytes);
        free[bytes].push_back(p);
        free_bytes += bytes;
        ++free_buffers;
        return;
      }
    }
    std::free(p);
  }

  const size_t max_free_bytes;
  mutable Mutex mu;
  // By rounded size, most recently released last; no empty lists.
  std::map<size_t, std::vector<void*>> free INFLOW_GUARDED_BY(mu);
  size_t free_bytes INFLOW_GUARDED_BY(mu) = 0;
  size_t free_buffers INFLOW_GUARDED_BY(mu) = 0;
  bool open INFLOW_GUARDED_BY(mu) = true;
  uint64_t allocated INFLOW_GUARDED_BY(mu) = 0;
  uint64_t reused INFLOW_GUARDED_BY(mu) = 0;
};

BatchPool::BatchPool(size_t max_free_bytes)
    : state_(std::make_shared<State>(max_free_bytes)) {}

BatchPool::~BatchPool() {
  std::map<size_t, std::vector<void*>> free;
  {
    MutexLock lock(&state_->mu);
    state_->open = false;
    free.swap(state_->free);
    state_->free_bytes = 0;
    state_->free_buffers = 0;
  }
  for (auto& [bytes, buffers] : free) {
    for (void* p : buffers) {
      Unpoison(p, bytes);
      std::free(p);
    }
  }
}

std::shared_ptr<TensorBuffer> BatchPool::Get(size_t bytes) {
  const size_t rounded = RoundUp(std::max<size_t>(bytes, 1));
  void* p = nullptr;
  {
    MutexLock lock(&state_->mu);
    auto it = state_->free.find(rounded);
    if (it != state_->free.end()) {
      p = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) state_->free.erase(it);
      state_->free_bytes -= rounded;
      --state_->free_buffers;
      ++state_->reused;
    } else {
      ++state_->allocated;
    }
  }
  if (p != nullptr) {
    Unpoison(p, rounded);
  } else {
    p = std::aligned_alloc(kTensorAlignment, rounded);
    if (p == nullptr) {
      std::fprintf(stderr, "inflow: BatchPool: out of memory (%zu bytes)\n",
                   rounded);
      std::abort();
    }
  }
  return TensorBuffer::WrapWritable(
      p, bytes, [state = state_, p, rounded] { state->Release(p, rounded); });
}

Tensor BatchPool::Uninitialized(DType dtype, const TensorShape& shape) {
  const size_t bytes =
      static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
  Result<Tensor> t = Tensor::FromBuffer(dtype, shape, Get(bytes));
  // Get's buffer is writable, aligned and exactly large enough: FromBuffer
  // cannot refuse it for a numeric dtype.
  return std::move(t).value();
}

BatchPool::Stats BatchPool::stats() const {
  MutexLock lock(&state_->mu);
  Stats stats;
  stats.allocated = state_->allocated;
  stats.reused = state_->reused;
  stats.free_buffers = state_->free_buffers;
  stats.free_bytes = state_->free_bytes;
  return stats;
}

}  // namespace inflow::internal
