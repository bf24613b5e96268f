// Copyright 2026 The inflow Authors.

#include "queue/batch_pool.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"

namespace inflow::internal {

namespace {

constexpr size_t kAlignment = 64;

size_t RoundUp(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

// Shared by the pool and by every buffer it handed out, so that a buffer
// released after the pool is gone still finds where to go (nowhere: it is
// freed).
struct BatchPool::State {
  explicit State(size_t max) : max_free(max) {}
  ~State() {
    MutexLock lock(&mu);
    for (auto& [bytes, buffers] : free) {
      for (void* p : buffers) std::free(p);
    }
  }

  void Release(void* p, size_t bytes) {
    {
      MutexLock lock(&mu);
      std::vector<void*>& list = free[bytes];
      if (open && list.size() < max_free) {
        list.push_back(p);
        return;
      }
    }
    std::free(p);
  }

  const size_t max_free;
  mutable Mutex mu;
  // By rounded size, most recently released last (the warmest).
  std::map<size_t, std::vector<void*>> free INFLOW_GUARDED_BY(mu);
  bool open INFLOW_GUARDED_BY(mu) = true;
  size_t allocated INFLOW_GUARDED_BY(mu) = 0;
  size_t reused INFLOW_GUARDED_BY(mu) = 0;
};

BatchPool::BatchPool(size_t max_free)
    : state_(std::make_shared<State>(max_free)) {}

BatchPool::~BatchPool() {
  if (getenv("INFLOW_POOL_DEBUG")) fprintf(stderr, "pool: allocated %zu reused %zu\n", allocated(), reused());
  std::map<size_t, std::vector<void*>> free;
  {
    MutexLock lock(&state_->mu);
    state_->open = false;
    free.swap(state_->free);
  }
  for (auto& [bytes, buffers] : free) {
    for (void* p : buffers) std::free(p);
  }
}

std::shared_ptr<TensorBuffer> BatchPool::Get(size_t bytes) {
  const size_t rounded = RoundUp(bytes == 0 ? 1 : bytes);
  void* p = nullptr;
  {
    MutexLock lock(&state_->mu);
    auto it = state_->free.find(rounded);
    if (it != state_->free.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      ++state_->reused;
    } else {
      ++state_->allocated;
    }
  }
  if (p == nullptr) {
    p = std::aligned_alloc(kAlignment, rounded);
    if (p == nullptr) std::abort();  // as operator new would, without throwing
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

size_t BatchPool::allocated() const {
  MutexLock lock(&state_->mu);
  return state_->allocated;
}

size_t BatchPool::reused() const {
  MutexLock lock(&state_->mu);
  return state_->reused;
}

}  // namespace inflow::internal
