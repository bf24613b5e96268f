// Copyright 2026 The inflow Authors.
//
// The waiter model's records (queue_core.h): an Attempt, a call that has
// to wait in one of the two attempt lists, and the WakeList of attempts a
// locked section completed, signalled after the lock is released.

#ifndef INFLOW_QUEUE_ATTEMPT_H_
#define INFLOW_QUEUE_ATTEMPT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"

#include "queue/queue_core.h"

namespace inflow::internal {

// A call that has to wait: lives in one of the attempt lists until it
// completes, or until its caller abandons it. Every field is guarded by the
// queue's mu_ (the analysis cannot name it from here).
struct QueueCore::Attempt {
  explicit Attempt(Op o) : op(o) {}

  const Op op;
  bool done = false;  // completed; `status` is final
  bool allow_small_batch = false;
  int64_t requested = 0;    // dequeues: elements still wanted
  std::vector<Tuple> rows;  // enqueues: elements to insert, in order
  // RandomShuffle's EnqueueMany: the batch instead of `rows` (batch_rows
  // rows).
  Tuple batch;
  int64_t batch_rows = 0;
  // The same with a pooled bag: the slots holding the rows (batch empty).
  std::vector<uint32_t> slots;
  size_t next_row = 0;       // enqueues: rows [0, next_row) are in
  std::vector<Tuple> taken;  // dequeues: elements taken, in order
  // RandomShuffle's DequeueMany: the rows taken instead of `taken`.
  std::vector<RowBag::Ref> taken_rows;
  Status status;
  CondVar cv;  // signalled when done
};

// Attempts completed during a flush. Their waiters are signalled when the
// list is destroyed, which callers arrange to happen after the lock is
// released (declare the WakeList before the MutexLock). Holding a
// reference keeps each Attempt, and so its CondVar, alive until then.
class QueueCore::WakeList {
 public:
  WakeList() = default;
  WakeList(const WakeList&) = delete;
  WakeList& operator=(const WakeList&) = delete;
  ~WakeList() { SignalNow(); }
  bool empty() const { return inline_count_ == 0; }
  // Signals everything added so far and forgets it.
  void SignalNow() {
    for (size_t i = 0; i < inline_count_; ++i) {
      inline_[i]->cv.Signal();
      inline_[i].reset();
    }
    inline_count_ = 0;
    for (const auto& a : overflow_) a->cv.Signal();
    overflow_.clear();
  }
  void Add(std::shared_ptr<Attempt> a) {
    if (inline_count_ < inline_.size()) {
      inline_[inline_count_++] = std::move(a);
    } else {
      overflow_.push_back(std::move(a));
    }
  }

 private:
  std::array<std::shared_ptr<Attempt>, 4> inline_;
  size_t inline_count_ = 0;
  std::vector<std::shared_ptr<Attempt>> overflow_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_ATTEMPT_H_
