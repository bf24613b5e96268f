// Copyright 2026 The inflow Authors.
//
// RandomShuffleQueue: dequeues a uniformly random stored element (TF's
// RandomShuffleQueue, including its Philox generator, so a seeded queue
// reproduces TF's order for the same sequence of operations). While open,
// an element may only leave when more than min_after_dequeue are stored;
// after Close the queue drains to empty.
//
// Seeds are the op's (seed, seed2) attributes. TF's Python layer derives
// them from the graph and op seeds: with only an op seed `s` it passes
// (87654321, s), so QueueOptions{.seed = 87654321, .seed2 = s} replays the
// order of tf.compat.v1.RandomShuffleQueue(..., seed=s).
//
// Thread-safe: every method may be called from any thread.

#ifndef INFLOW_QUEUE_RANDOM_SHUFFLE_QUEUE_H_
#define INFLOW_QUEUE_RANDOM_SHUFFLE_QUEUE_H_

#include <memory>

#include "inflow/core/result.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

namespace inflow {

class RandomShuffleQueue : public QueueInterface {
 public:
  static constexpr QueueKind kKind = QueueKind::kRandomShuffle;

  // INVALID_ARGUMENT for bad options (see QueueOptions) or, for a shared
  // queue, a mismatch with the existing one.
  static Result<std::shared_ptr<RandomShuffleQueue>> Create(
      const QueueOptions& options);

 protected:
  RandomShuffleQueue() = default;
};

}  // namespace inflow

#endif  // INFLOW_QUEUE_RANDOM_SHUFFLE_QUEUE_H_
