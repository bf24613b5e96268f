// Copyright 2026 The inflow Authors.
//
// Map with num_parallel_calls > 1, and Prefetch: worker threads take the
// input's elements one at a time (in_mu_ orders the pulls), compute them
// (a map's function; a prefetch has none) outside every lock, and the
// consumer takes them in order (or, not deterministic, as they finish).
//
// The state: before each pull a worker saves the input's state (a few
// bytes: positions and counters), and the iterator's state is the one
// saved before the oldest element not yet handed out, plus, when not
// deterministic, which later elements were handed out before it. Restore
// puts the input there and computes those elements again: a checkpoint
// never holds an element.

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/threads/thread.h"

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

class ParallelDataset final : public DatasetBase {
 public:
  ParallelDataset(DatasetPtr input, MapFn fn, std::string kind, int threads,
                  int64_t buffer_size, bool deterministic, Status status)
      : DatasetBase(std::move(kind), {std::move(input)}, std::move(status)),
        fn_(std::move(fn)),
        threads_(threads),
        buffer_size_(buffer_size),
        deterministic_(deterministic) {}

  int64_t Cardinality() const override { return input().Cardinality(); }
  Result<std::unique_ptr<IteratorBase>> MakeIterator(
      const IteratorContext& c) const override;

  const MapFn fn_;
  const int threads_;
  const int64_t buffer_size_;
  const bool deterministic_;
};

class ParallelIterator final : public IteratorBase {
 public:
  ParallelIterator(const ParallelDataset& d, std::unique_ptr<IteratorBase> in)
      : d_(d), in_(std::move(in)) {}
  ~ParallelIterator() override { StopThreads(); }

  Result<std::optional<Tuple>> Next(const CallOptions& o) override {
    INFLOW_RETURN_IF_ERROR(StartThreads());
    std::unique_ptr<Slot> slot;
    {
      // Before the lock: a token already stopped runs it at once.
      std::stop_callback wake(o.stop, [this] {
        MutexLock w(&mu_);
        cv_.SignalAll();
      });
      MutexLock l(&mu_);
      const auto deadline = o.timeout.has_value()
                                ? CondVar::Clock::now() + *o.timeout
                                : CondVar::Clock::time_point::max();
      for (;;) {
        auto it = Ready();
        if (it != slots_.end()) {
          slot = std::move(*it);
          if (it != slots_.begin()) handed_.insert(slot->seq);
          slots_.erase(it);
          --reserved_;
          if (!slots_.empty()) {
            handed_.erase(handed_.begin(),
                          handed_.lower_bound(slots_.front()->seq));
          } else {
            handed_.clear();
          }
          cv_.SignalAll();
          if (skip_.erase(slot->seq) > 0)
            continue;  // handed out before a restore
          break;
        }
        if (o.stop.stop_requested())
          return CancelledError(d_.label() + ": cancelled");
        if (deadline == CondVar::Clock::time_point::max()) {
          cv_.Wait(&mu_);
        } else if (!cv_.WaitUntil(&mu_, deadline)) {
          return DeadlineExceededError(d_.label() + ": no element in time");
        }
      }
    }
    if (slot->end) {
      // Handed out again by later calls.
      MutexLock l(&mu_);
      slots_.push_front(std::move(slot));
      ++reserved_;
      return std::optional<Tuple>();
    }
    if (!slot->value.ok()) return std::move(slot->value).status();
    return std::optional<Tuple>(std::move(slot->value).value());
  }

  Status Save(StateWriter& w) override {
    MutexLock in(&in_mu_);
    MutexLock l(&mu_);
    w.Tag(d_.kind());
    if (!slots_.empty()) {
      const Slot& front = *slots_.front();
      w.Int(base_ + front.seq);
      w.Bytes(front.snapshot);
      std::vector<int64_t> later;
      for (int64_t s : handed_) {
        if (s > front.seq) later.push_back(s - front.seq);
      }
      for (int64_t s : skip_) {
        if (s > front.seq) later.push_back(s - front.seq);
      }
      std::sort(later.begin(), later.end());
      w.Int(static_cast<int64_t>(later.size()));
      for (int64_t s : later) w.Int(s);
      return OkStatus();
    }
    StateWriter now;
    INFLOW_RETURN_IF_ERROR(in_->Save(now));
    w.Int(base_ + next_seq_);
    w.Bytes(now.bytes());
    w.Int(0);
    return OkStatus();
  }

  Status Restore(StateReader& r) override {
    StopThreads();
    INFLOW_RETURN_IF_ERROR(r.Tag(d_.kind()));
    INFLOW_ASSIGN_OR_RETURN(int64_t base,
                            r.IntIn("position", 0, INT64_MAX / 4));
    INFLOW_ASSIGN_OR_RETURN(std::string_view snapshot, r.Bytes());
    INFLOW_ASSIGN_OR_RETURN(int64_t n, r.IntIn("handed-out count", 0, 1 << 16));
    std::set<int64_t> skip;
    for (int64_t k = 0; k < n; ++k) {
      INFLOW_ASSIGN_OR_RETURN(int64_t s,
                              r.IntIn("handed-out element", 1, INT64_MAX / 4));
      skip.insert(s);
    }
    StateReader inner(snapshot);
    {
      MutexLock in(&in_mu_);
      INFLOW_RETURN_IF_ERROR(in_->Restore(inner));
    }
    if (!inner.done()) {
      return InvalidArgumentError(d_.label() +
                                  ": the input's state has bytes left over");
    }
    MutexLock l(&mu_);
    slots_.clear();
    handed_.clear();
    skip_ = std::move(skip);
    base_ = base;
    next_seq_ = 0;
    reserved_ = 0;
    input_end_ = false;
    return OkStatus();
  }

 private:
  struct Slot {
    int64_t seq = 0;
    std::string snapshot;  // the input's state before this element
    bool done = false;
    bool end = false;
    Result<Tuple> value = InternalError("not computed");
  };

  // The slot to hand out next, or end().
  std::deque<std::unique_ptr<Slot>>::iterator Ready() INFLOW_REQUIRES(mu_) {
    if (slots_.empty()) return slots_.end();
    if (d_.deterministic_ || slots_.front()->end) {
      return slots_.front()->done ? slots_.begin() : slots_.end();
    }
    for (auto it = slots_.begin(); it != slots_.end(); ++it) {
      if ((*it)->done && !(*it)->end) return it;
    }
    return slots_.end();
  }

  Status StartThreads() {
    if (!threads_.empty()) return OkStatus();
    {
      MutexLock l(&mu_);
      stopping_ = false;
    }
    for (int t = 0; t < d_.threads_; ++t) {
      auto thread = std::make_unique<Thread>(
          "inflow-data-" + d_.kind() + "-" + std::to_string(t),
          [this](std::stop_token stop) { Work(stop); });
      Status s = thread->Start();
      if (!s.ok()) {
        StopThreads();
        return s.WithContext(d_.label() + ": starting its threads");
      }
      threads_.push_back(std::move(thread));
    }
    return OkStatus();
  }

  void StopThreads() {
    {
      MutexLock l(&mu_);
      stopping_ = true;
      cv_.SignalAll();
    }
    for (auto& t : threads_) t->RequestStop();
    threads_.clear();  // joins
  }

  void Work(std::stop_token stop) {
    CallOptions call;
    call.stop = stop;
    for (;;) {
      {
        MutexLock l(&mu_);
        while (!stopping_ && (input_end_ || reserved_ >= d_.buffer_size_)) {
          cv_.Wait(&mu_);
        }
        if (stopping_) return;
        ++reserved_;
      }
      Slot* slot = nullptr;
      std::optional<Tuple> element;
      {
        MutexLock in(&in_mu_);
        {
          MutexLock l(&mu_);
          if (stopping_ || input_end_) {
            --reserved_;
            cv_.SignalAll();
            continue;
          }
        }
        auto made = std::make_unique<Slot>();
        StateWriter w;
        Status saved = in_->Save(w);
        made->snapshot = w.Take();
        Result<std::optional<Tuple>> pulled =
            saved.ok() ? in_->Next(call) : Result<std::optional<Tuple>>(saved);
        MutexLock l(&mu_);
        if (stopping_) {
          --reserved_;
          return;
        }
        made->seq = next_seq_++;
        if (!pulled.ok()) {
          made->value = pulled.status();
          made->done = true;
        } else if (!pulled->has_value()) {
          made->end = true;
          made->done = true;
          input_end_ = true;
        } else if (!d_.fn_) {
          made->value = std::move(**pulled);
          made->done = true;
        } else {
          element = std::move(**pulled);
        }
        slot = made.get();
        slots_.push_back(std::move(made));
        cv_.SignalAll();
      }
      if (!element.has_value()) continue;
      Result<Tuple> out = d_.fn_(std::move(*element));
      MutexLock l(&mu_);
      if (!out.ok()) {
        out = ElementError(out.status(), d_, base_ + slot->seq);
      }
      slot->value = std::move(out);
      slot->done = true;
      cv_.SignalAll();
    }
  }

  const ParallelDataset& d_;
  Mutex in_mu_;  // taken before mu_
  std::unique_ptr<IteratorBase> in_ INFLOW_GUARDED_BY(in_mu_);
  Mutex mu_;
  CondVar cv_;
  std::deque<std::unique_ptr<Slot>> slots_ INFLOW_GUARDED_BY(mu_);
  int64_t reserved_ INFLOW_GUARDED_BY(mu_) = 0;  // slots + pulls under way
  int64_t next_seq_ INFLOW_GUARDED_BY(mu_) = 0;
  int64_t base_ INFLOW_GUARDED_BY(mu_) = 0;  // the position of seq 0
  bool input_end_ INFLOW_GUARDED_BY(mu_) = false;
  bool stopping_ INFLOW_GUARDED_BY(mu_) = false;
  // Not deterministic: elements handed out while an earlier one was not.
  std::set<int64_t> handed_ INFLOW_GUARDED_BY(mu_);
  // After a restore: elements handed out before the save, dropped.
  std::set<int64_t> skip_ INFLOW_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Thread>> threads_;  // the consumer's
};

Result<std::unique_ptr<IteratorBase>> ParallelDataset::MakeIterator(
    const IteratorContext& c) const {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                          input().MakeIterator(c));
  return std::unique_ptr<IteratorBase>(
      std::make_unique<ParallelIterator>(*this, std::move(in)));
}

}  // namespace

DatasetPtr MakeParallel(DatasetPtr input, MapFn fn, std::string kind,
                        int threads, int64_t buffer_size, bool deterministic) {
  Status status = OkStatus();
  if (kind == "map" && !fn) status = InvalidArgumentError("no function");
  if (threads < 1 || buffer_size < 1) {
    status = InvalidArgumentError("parallelism " + std::to_string(threads) +
                                  " and buffer " + std::to_string(buffer_size) +
                                  " must be >= 1");
  }
  return std::make_shared<ParallelDataset>(
      std::move(input), std::move(fn), std::move(kind), threads, buffer_size,
      deterministic, std::move(status));
}

}  // namespace inflow::data::internal
