// Copyright 2026 The inflow Authors.
//
// QueueRunner: tf.train.QueueRunner (docs/conformance.md, "QueueRunner").
// Threads that each run one enqueue op in a loop to keep a queue filled,
// plus a closer thread that cancels pending enqueues when the coordinator
// stops.
//
//   auto runner = QueueRunner::Create(queue, {op, op, op}).value();
//   Coordinator coord;
//   auto threads = runner->CreateThreads(&coord, /*start=*/true);
//
// End of input: when an op fails with a queue-closed kind (OUT_OF_RANGE by
// default), its thread ends; the last thread to end that way closes the
// queue (without cancelling), so consumers drain what is left and then get
// OUT_OF_RANGE. Any other error goes to the coordinator (or, without one,
// to exceptions_raised()) and does not close the queue.

#ifndef INFLOW_THREADS_QUEUE_RUNNER_H_
#define INFLOW_THREADS_QUEUE_RUNNER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/queue/queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/thread.h"

namespace inflow {

// One step of work on a queue: an enqueue op produces an element or a batch
// (reading, parsing, dequeuing upstream) and enqueues it. It must pass
// `options` to its blocking calls so that a stop releases it.
using QueueOp = std::function<Status(const CallOptions& options)>;

// An enqueue op that calls `produce` and enqueues the tuple it returns
// (EnqueueMany when `many`). An error from `produce` (OUT_OF_RANGE at the
// end of input) is returned as is. Time spent in the enqueue counts as the
// thread's blocked time.
QueueOp MakeEnqueueOp(std::shared_ptr<QueueInterface> queue,
                      std::function<Result<Tuple>(const CallOptions&)> produce,
                      bool many = false);

struct QueueRunnerOptions {
  // Run by the last thread to end on a queue-closed error. Empty: the
  // queue's Close(false).
  QueueOp close_op;
  // Run by the closer thread once the coordinator stops. Empty: the queue's
  // Close(true).
  QueueOp cancel_op;
  // Error kinds that mean "input is exhausted"; a common choice is
  // {OUT_OF_RANGE, CANCELLED} when ops dequeue from other queues.
  std::vector<StatusCode> queue_closed_codes = {StatusCode::kOutOfRange};
  // Prefix of the thread names ("<name>/enqueue:<i>", "<name>/close");
  // empty: the queue's name.
  std::string name;
  // Niceness each enqueue thread adds to its own when it starts (0..19;
  // AddCurrentThreadNiceness): on a machine with fewer cores than busy
  // threads, runners filling a queue ahead of its consumer then yield the
  // CPU to the consumer (the training step) rather than take turns with
  // it, and still get every cycle the consumer leaves. A thread cannot
  // take the priority back, so it keeps the niceness to its end. 0 (TF's
  // behaviour): the threads run at the priority of the thread that
  // started them. The closer thread, which only waits, keeps that one.
  int nice = 0;
};

// Thread-safe. Created with Create(); the threads it makes keep it alive.
class QueueRunner : public std::enable_shared_from_this<QueueRunner> {
 public:
  // INVALID_ARGUMENT for a null queue, no enqueue ops, an empty op, an
  // empty queue_closed_codes or a nice outside [0, 19].
  static Result<std::shared_ptr<QueueRunner>> Create(
      std::shared_ptr<QueueInterface> queue, std::vector<QueueOp> enqueue_ops,
      QueueRunnerOptions options = {});

  // One thread per enqueue op, plus a closer thread when `coord` is given;
  // each registered with `coord` and started when `start`. Returns no
  // threads while threads made earlier for the same `session` are still
  // running (TF's per-session count). Clears exceptions_raised().
  //
  // `coord`, when given, must outlive the threads.
  std::vector<std::shared_ptr<Thread>> CreateThreads(
      Coordinator* coord = nullptr, bool start = false,
      const std::string& session = "") INFLOW_EXCLUDES(mu_);

  // Errors of threads that ran without a coordinator.
  std::vector<Status> exceptions_raised() const INFLOW_EXCLUDES(mu_);

  const std::shared_ptr<QueueInterface>& queue() const { return queue_; }
  size_t num_enqueue_ops() const { return enqueue_ops_.size(); }
  const std::string& name() const { return name_; }

 private:
  QueueRunner(std::shared_ptr<QueueInterface> queue,
              std::vector<QueueOp> enqueue_ops, QueueRunnerOptions options);

  void RunEnqueueLoop(size_t op_index, Coordinator* coord,
                      const std::string& session, std::stop_token own)
      INFLOW_EXCLUDES(mu_);
  // An enqueue thread's error: to `coord`'s RequestStop, or (none) to
  // exceptions_raised().
  void Report(Coordinator* coord, Status error) INFLOW_EXCLUDES(mu_);
  void RunCloser(Coordinator* coord, std::stop_token own);
  bool IsQueueClosed(const Status& s) const;

  const std::shared_ptr<QueueInterface> queue_;
  const std::vector<QueueOp> enqueue_ops_;
  const QueueOp close_op_;
  const QueueOp cancel_op_;
  const std::vector<StatusCode> queue_closed_codes_;
  const std::string name_;
  const int nice_;

  mutable Mutex mu_;
  std::map<std::string, int> live_threads_ INFLOW_GUARDED_BY(mu_);
  std::vector<Status> exceptions_raised_ INFLOW_GUARDED_BY(mu_);
};

inline constexpr char kQueueRunnersCollection[] = "queue_runners";

// Thread-safe. Named lists of queue runners (tf.train's graph collection).
class QueueRunnerCollection {
 public:
  // The process-wide collection AddQueueRunner / StartQueueRunners use.
  static QueueRunnerCollection& Default();

  void Add(std::shared_ptr<QueueRunner> runner,
           const std::string& collection = kQueueRunnersCollection)
      INFLOW_EXCLUDES(mu_);
  std::vector<std::shared_ptr<QueueRunner>> Get(
      const std::string& collection = kQueueRunnersCollection) const
      INFLOW_EXCLUDES(mu_);
  void Clear(const std::string& collection = kQueueRunnersCollection)
      INFLOW_EXCLUDES(mu_);

  // CreateThreads(coord, start) on every runner of `collection`; all their
  // threads, in order.
  std::vector<std::shared_ptr<Thread>> Start(
      Coordinator* coord = nullptr, bool start = true,
      const std::string& collection = kQueueRunnersCollection);

 private:
  mutable Mutex mu_;
  std::map<std::string, std::vector<std::shared_ptr<QueueRunner>>> runners_
      INFLOW_GUARDED_BY(mu_);
};

// tf.train.add_queue_runner on the default collection.
void AddQueueRunner(std::shared_ptr<QueueRunner> runner,
                    const std::string& collection = kQueueRunnersCollection);
// tf.train.start_queue_runners on the default collection.
std::vector<std::shared_ptr<Thread>> StartQueueRunners(
    Coordinator* coord = nullptr, bool start = true,
    const std::string& collection = kQueueRunnersCollection);

}  // namespace inflow

#endif  // INFLOW_THREADS_QUEUE_RUNNER_H_
