// Copyright 2026 The inflow Authors.

#include "inflow/threads/queue_runner.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "threads/run_catching.h"

namespace inflow {
namespace {

// Runs one op; an exception escaping it becomes UNKNOWN, so a faulty op
// stops the pipeline instead of the process.
Status RunOp(const QueueOp& op, const CallOptions& options) {
  return internal::RunCatching([&] { return op(options); },
                               "exception in queue op");
}

}  // namespace

QueueOp MakeEnqueueOp(std::shared_ptr<QueueInterface> queue,
                      std::function<Result<Tuple>(const CallOptions&)> produce,
                      bool many) {
  return [queue = std::move(queue), produce = std::move(produce),
          many](const CallOptions& options) -> Status {
    INFLOW_ASSIGN_OR_RETURN(Tuple tuple, produce(options));
    ScopedBlockedTimer blocked;
    return many ? queue->EnqueueMany(std::move(tuple), options)
                : queue->Enqueue(std::move(tuple), options);
  };
}

Result<std::shared_ptr<QueueRunner>> QueueRunner::Create(
    std::shared_ptr<QueueInterface> queue, std::vector<QueueOp> enqueue_ops,
    QueueRunnerOptions options) {
  if (queue == nullptr) {
    return InvalidArgumentError("QueueRunner needs a queue");
  }
  if (enqueue_ops.empty()) {
    return InvalidArgumentError("QueueRunner needs at least one enqueue op");
  }
  for (size_t i = 0; i < enqueue_ops.size(); ++i) {
    if (!enqueue_ops[i]) {
      return InvalidArgumentError("QueueRunner enqueue op " +
                                  std::to_string(i) + " is empty");
    }
  }
  if (options.queue_closed_codes.empty()) {
    return InvalidArgumentError(
        "QueueRunner queue_closed_codes must name at least one error kind");
  }
  INFLOW_RETURN_IF_ERROR(
      CheckNicenessIncrement(options.nice).WithContext("QueueRunner nice"));
  // Private constructor: std::make_shared cannot reach it.
  return std::shared_ptr<QueueRunner>(new QueueRunner(  // NOLINT
      std::move(queue), std::move(enqueue_ops), std::move(options)));
}

QueueRunner::QueueRunner(std::shared_ptr<QueueInterface> queue,
                         std::vector<QueueOp> enqueue_ops,
                         QueueRunnerOptions options)
    : queue_(std::move(queue)),
      enqueue_ops_(std::move(enqueue_ops)),
      close_op_(options.close_op ? std::move(options.close_op)
                                 : QueueOp([q = queue_](const CallOptions& o) {
                                     return q->Close(false, o);
                                   })),
      cancel_op_(options.cancel_op
                     ? std::move(options.cancel_op)
                     : QueueOp([q = queue_](const CallOptions& o) {
                         return q->Close(true, o);
                       })),
      queue_closed_codes_(std::move(options.queue_closed_codes)),
      name_(options.name.empty() ? queue_->name() : options.name),
      nice_(options.nice) {}

bool QueueRunner::IsQueueClosed(const Status& s) const {
  return std::find(queue_closed_codes_.begin(), queue_closed_codes_.end(),
                   s.code()) != queue_closed_codes_.end();
}

std::vector<std::shared_ptr<Thread>> QueueRunner::CreateThreads(
    Coordinator* coord, bool start, const std::string& session) {
  {
    MutexLock lock(&mu_);
    int& live = live_threads_[session];
    if (live > 0) return {};
    live = static_cast<int>(enqueue_ops_.size());
    exceptions_raised_.clear();
  }
  std::vector<std::shared_ptr<Thread>> threads;
  auto self = shared_from_this();
  for (size_t i = 0; i < enqueue_ops_.size(); ++i) {
    threads.push_back(std::make_shared<Thread>(
        name_ + "/enqueue:" + std::to_string(i),
        [self, i, coord, session](std::stop_token own) {
          self->RunEnqueueLoop(i, coord, session, own);
        }));
  }
  if (coord != nullptr) {
    threads.push_back(std::make_shared<Thread>(
        name_ + "/close",
        [self, coord](std::stop_token own) { self->RunCloser(coord, own); }));
  }
  for (const auto& t : threads) {
    if (coord != nullptr) coord->RegisterThread(t);
    // A fresh thread cannot be started twice.
    if (start) t->Start().IgnoreError();
  }
  return threads;
}

void QueueRunner::RunEnqueueLoop(size_t op_index, Coordinator* coord,
                                 const std::string& session,
                                 std::stop_token own) {
  // The op's blocking calls are released by a coordinator stop or by a stop
  // of this thread alone (its Thread being destroyed).
  std::stop_source combined;
  auto fire = [&combined] { combined.request_stop(); };
  std::stop_callback on_own(own, fire);
  std::stop_callback on_coord(coord ? coord->stop_token() : std::stop_token(),
                              fire);
  CallOptions options;
  options.stop = combined.get_token();

  ThreadStats* stats = CurrentThreadStats();
  bool counted_out = false;
  // A thread that cannot lower its priority as asked fails as an op would:
  // the coordinator learns why.
  if (Status niced = AddCurrentThreadNiceness(nice_); !niced.ok()) {
    if (stats) stats->AddError();
    Report(coord, niced.WithContext(name_));
    MutexLock lock(&mu_);
    --live_threads_[session];
    return;
  }
  for (;;) {
    if ((coord != nullptr && coord->ShouldStop()) || own.stop_requested()) {
      break;
    }
    Status s = RunOp(enqueue_ops_[op_index], options);
    if (stats) stats->AddRun();
    if (s.ok()) continue;
    if (IsQueueClosed(s)) {
      bool last;
      {
        MutexLock lock(&mu_);
        last = --live_threads_[session] == 0;
      }
      counted_out = true;
      // Only the last thread closes, and without cancelling, so enqueues
      // still pending in other threads land before consumers see the end.
      if (last) RunOp(close_op_, options).IgnoreError();
      break;
    }
    // A stop of this thread alone is not the pipeline's error.
    if (own.stop_requested()) break;
    if (stats) stats->AddError();
    Report(coord, std::move(s));
    break;
  }
  if (!counted_out) {
    MutexLock lock(&mu_);
    --live_threads_[session];
  }
}

void QueueRunner::Report(Coordinator* coord, Status error) {
  if (coord != nullptr) {
    // After the coordinator was joined nobody is left to take the error.
    coord->RequestStop(std::move(error)).IgnoreError();
  } else {
    MutexLock lock(&mu_);
    exceptions_raised_.push_back(std::move(error));
  }
}

void QueueRunner::RunCloser(Coordinator* coord, std::stop_token own) {
  if (!coord->WaitForStop(std::nullopt, own)) return;  // own stop only
  if (ThreadStats* stats = CurrentThreadStats()) stats->AddRun();
  // Cancelling pending enqueues releases runner threads blocked on a full
  // queue; their CANCELLED errors reach a coordinator that already stopped.
  RunOp(cancel_op_, CallOptions()).IgnoreError();
}

std::vector<Status> QueueRunner::exceptions_raised() const {
  MutexLock lock(&mu_);
  return exceptions_raised_;
}

QueueRunnerCollection& QueueRunnerCollection::Default() {
  static QueueRunnerCollection* const collection =
      new QueueRunnerCollection();  // NOLINT: never destroyed
  return *collection;
}

void QueueRunnerCollection::Add(std::shared_ptr<QueueRunner> runner,
                                const std::string& collection) {
  if (runner == nullptr) return;
  MutexLock lock(&mu_);
  runners_[collection].push_back(std::move(runner));
}

std::vector<std::shared_ptr<QueueRunner>> QueueRunnerCollection::Get(
    const std::string& collection) const {
  MutexLock lock(&mu_);
  auto it = runners_.find(collection);
  return it == runners_.end() ? std::vector<std::shared_ptr<QueueRunner>>()
                              : it->second;
}

void QueueRunnerCollection::Clear(const std::string& collection) {
  MutexLock lock(&mu_);
  runners_.erase(collection);
}

std::vector<std::shared_ptr<Thread>> QueueRunnerCollection::Start(
    Coordinator* coord, bool start, const std::string& collection) {
  std::vector<std::shared_ptr<Thread>> threads;
  for (const auto& runner : Get(collection)) {
    auto more = runner->CreateThreads(coord, start);
    threads.insert(threads.end(), more.begin(), more.end());
  }
  return threads;
}

void AddQueueRunner(std::shared_ptr<QueueRunner> runner,
                    const std::string& collection) {
  QueueRunnerCollection::Default().Add(std::move(runner), collection);
}

std::vector<std::shared_ptr<Thread>> StartQueueRunners(
    Coordinator* coord, bool start, const std::string& collection) {
  return QueueRunnerCollection::Default().Start(coord, start, collection);
}

}  // namespace inflow
