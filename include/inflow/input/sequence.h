// Copyright 2026 The inflow Authors.
//
// Sequence and OrderedEnqueuer: Keras's Sequence (`__len__`, `__getitem__`,
// `on_epoch_end`) and OrderedEnqueuer for C++ batches, computed by worker
// threads that run fully in parallel and handed out in index order, each
// index exactly once per epoch (docs/conformance.md, "Sequences and
// enqueuers").
//
//   class Batches : public inflow::Sequence {
//    public:
//     int64_t size() override { return 100; }
//     Result<Tuple> Get(int64_t i, const CallOptions& options) override;
//   };
//   OrderedEnqueuer enqueuer(std::make_shared<Batches>(),
//                            {.shuffle = true, .seed = 7});
//   Status s = enqueuer.Start(/*workers=*/4, /*max_queue_size=*/10);
//   for (int step = 0; step < 1000; ++step) {
//     Result<Tuple> batch = enqueuer.Get();  // epoch after epoch
//     if (!batch.ok()) break;  // "batch 7: <the Sequence's error>"
//     ...
//   }
//   s = enqueuer.Stop();
//
// GeneratorEnqueuer (input/generator_enqueuer.h) is the form for a
// generator.

#ifndef INFLOW_INPUT_SEQUENCE_H_
#define INFLOW_INPUT_SEQUENCE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "inflow/core/call_options.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"

namespace inflow {

namespace internal {
class EnqueuerRunner;
class EnqueuerSlots;
class EpochShuffle;
}  // namespace internal

// A dataset that hands out batch i of size() on demand (Keras's Sequence).
//
// Thread safety: Get() is called from several worker threads at once and
// must be safe for that. size() and OnEpochEnd() are called from one
// thread at a time (the enqueuer's producer; size() from Start() for the
// first epoch), never while a Get() of the enqueuer is running.
class Sequence {
 public:
  virtual ~Sequence() = default;

  // The number of batches of the coming epoch (`__len__`). Read once per
  // epoch: an implementation may change it in OnEpochEnd().
  virtual int64_t size() = 0;
  // Batch i, 0 <= i < size() (`__getitem__`). An error reaches the
  // consumer's Get() as "batch <i>: <error>", with its code. A Get that
  // may block should honour `options.stop`, which fires when the enqueuer
  // stops: Stop() waits for running Gets (up to its timeout).
  [[nodiscard]] virtual Result<Tuple> Get(int64_t i,
                                          const CallOptions& options) = 0;
  // Called once after each epoch (`on_epoch_end`); by default does nothing.
  virtual void OnEpochEnd() {}
};

struct OrderedEnqueuerOptions {
  // Each epoch in a fresh permutation of [0, size()) instead of index
  // order.
  bool shuffle = false;
  // Seeds the permutations: the same seed gives the same order, epoch after
  // epoch (a new permutation each epoch). nullopt: a random seed. The
  // permutations are the input producers' (TF's RandomShuffle with the op
  // seed `seed`), not NumPy's: Keras's orders are not reproduced.
  std::optional<int64_t> seed = std::nullopt;
  // The first epoch starts at this position of its order (index order, or
  // the epoch's permutation): the batches before it are neither computed
  // nor handed out, and the epoch ends (OnEpochEnd) after its last batch as
  // usual. For resuming in the middle of an epoch, with a Sequence whose
  // epochs were advanced (OnEpochEnd) to the epoch to resume (with
  // `shuffle`, the first epoch's permutation is still the seed's first).
  // Start() fails with INVALID_ARGUMENT when it is outside [0, size()).
  int64_t first_index = 0;
  // Prefix of the threads' names ("<name>/worker:<k>", "<name>/producer").
  std::string name = "ordered_enqueuer";
};

// Thread-safe: every method may be called from any thread.
//
// Start() starts `workers` threads that call Sequence::Get and a producer
// thread that, per epoch: reads size(), submits the epoch's indices in
// order (or in the epoch's permutation) with at most `max_queue_size`
// batches submitted and not yet taken by Get(), waits until Get() has
// taken every batch of the epoch, then calls OnEpochEnd() and starts the
// next epoch. So epochs never interleave, OnEpochEnd() runs exactly once
// per epoch, after the epoch's last batch was handed out (possibly while
// the consumer still uses it) and before any Get() of the next epoch.
// Waits are on condition variables, none polls.
//
// An empty Sequence has no batches: size() <= 0 for the first epoch fails
// Start() with INVALID_ARGUMENT; for a later epoch, Get() returns that
// INVALID_ARGUMENT after the previous epoch's batches (and the enqueuer
// stops). It never waits for the Sequence to fill, nor spins (TF calls
// on_epoch_end every 0.1 s).
//
// The destructor stops the enqueuer and waits for its threads, without a
// time limit: a Sequence::Get that ignores the stop token delays it.
class OrderedEnqueuer {
 public:
  // A null `sequence` fails Start() with INVALID_ARGUMENT.
  explicit OrderedEnqueuer(std::shared_ptr<Sequence> sequence,
                           OrderedEnqueuerOptions options = {});
  ~OrderedEnqueuer();
  OrderedEnqueuer(const OrderedEnqueuer&) = delete;
  OrderedEnqueuer& operator=(const OrderedEnqueuer&) = delete;

  // Reads size() for the first epoch and starts the threads.
  // INVALID_ARGUMENT for workers < 1, max_queue_size < 1 (Keras takes 0 as
  // "unbounded"; here the bound is required), an empty Sequence, or, with
  // shuffle, a size() above 2^31 - 2. FAILED_PRECONDITION when started
  // before (an enqueuer runs once).
  [[nodiscard]] Status Start(int workers = 1, int64_t max_queue_size = 10);

  // The next batch: epoch 1's batches in order, then epoch 2's, without
  // end. Waits for that batch even when later ones are ready. An error of
  // Sequence::Get(i) is returned as "batch <i>: <error>" (its code kept;
  // an exception escaping Get as UNKNOWN) once the batches before it were
  // handed out, and stops the enqueuer; every later call returns it again.
  // After Stop(): CANCELLED. Before Start(): FAILED_PRECONDITION.
  // `options.timeout` bounds the wait (DEADLINE_EXCEEDED) and `options.stop`
  // releases it (CANCELLED); neither loses a batch nor stops the enqueuer.
  [[nodiscard]] Result<Tuple> Get(const CallOptions& options = {});

  // Started and not stopped (by Stop() or by an error handed out).
  bool IsRunning() const;

  // Stops: drops the batches not yet taken, releases every wait (a
  // Sequence::Get through its stop token), and waits up to `timeout`
  // (nullopt: no limit) for the threads to return. OK when they did;
  // otherwise UNKNOWN naming those still running (the destructor waits for
  // them). Idempotent; OK when never started.
  Status Stop(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

 private:
  void ProducerLoop(internal::EnqueuerSlots* slots, int64_t first_size);
  bool SubmitEpoch(internal::EnqueuerSlots* slots, int64_t size, int64_t from);
  Result<int64_t> ReadSize(int64_t epoch);
  void WorkerLoop(internal::EnqueuerSlots* slots, const CallOptions& options);

  const std::shared_ptr<Sequence> sequence_;
  const OrderedEnqueuerOptions options_;
  const std::unique_ptr<internal::EpochShuffle> shuffle_;  // with shuffle
  // Last: destroyed first, stopping and joining the threads while the
  // members above are alive.
  const std::unique_ptr<internal::EnqueuerRunner> runner_;
};

}  // namespace inflow

#endif  // INFLOW_INPUT_SEQUENCE_H_
