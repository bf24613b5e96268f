// Copyright 2026 The inflow Authors.
//
// FlatMap and Interleave (tf.data's flat_map and interleave: the datasets
// a function makes of the input's elements, read in turn) and Unbatch.
//
// Their states re-read instead of storing elements: an open inner dataset
// is saved as the input's state before the element that made it (the
// element is pulled again on restore and the function called again) and
// the inner iterator's own state; Unbatch saves the input's state before
// the element it is splitting and how many rows it handed out.

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/threads/thread.h"

#include "data/dataset_base.h"

namespace inflow::data::internal {

DatasetPtr BaseOf(const Dataset& d);  // dataset.cc

namespace {

using ItPtr = std::unique_ptr<IteratorBase>;
using Element = std::optional<Tuple>;

class InterleaveDataset final : public DatasetBase {
 public:
  InterleaveDataset(DatasetPtr input, DatasetFn fn, std::string kind,
                    int64_t cycle, int64_t block, int threads,
                    bool deterministic)
      : DatasetBase(std::move(kind), {std::move(input)},
                    Check(fn, cycle, block, threads)),
        fn_(std::move(fn)),
        cycle_(cycle > 0 ? cycle : HardwareThreads()),
        block_(block),
        threads_(threads == kAutotune ? static_cast<int>(std::min<int64_t>(
                                            cycle_, HardwareThreads()))
                                      : threads),
        deterministic_(deterministic) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    return c == 0 ? 0 : kUnknown;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    INFLOW_ASSIGN_OR_RETURN(ItPtr in, input().MakeIterator(c));
    return ItPtr(std::make_unique<It>(*this, c, std::move(in)));
  }

 private:
  static Status Check(const DatasetFn& fn, int64_t cycle, int64_t block,
                      int threads) {
    if (!fn) return InvalidArgumentError("no function");
    if (cycle < 0) return InvalidArgumentError("cycle_length must be >= 0");
    if (block < 1) return InvalidArgumentError("block_length must be >= 1");
    if (threads < 0 && threads != kAutotune) {
      return InvalidArgumentError("num_parallel_calls " +
                                  std::to_string(threads) +
                                  " is not >= 0 or kAutotune");
    }
    return OkStatus();
  }

  // Sequential (threads_ <= 1): the consumer reads each slot's iterator.
  // Parallel: threads_ workers pull each open slot's elements ahead, in
  // chunks, into the slot's buffer (the slot the consumer needs soonest
  // first); the consumer takes them in the same cycle order (or, not
  // deterministic, from any slot with one ready when its own has none).
  // The state of an open slot is its inner iterator's state before the
  // first element not handed out and how many of its chunk come before
  // that element: the same fields whatever the parallelism.
  class It final : public IteratorBase {
   public:
    It(const InterleaveDataset& d, IteratorContext c, ItPtr in)
        : d_(d),
          context_(c),
          in_(std::move(in)),
          slots_(static_cast<size_t>(d.cycle_)) {}
    ~It() override { StopThreads(); }

    // tf.data's InterleaveDatasetOp::Iterator::GetNextInternal.
    Result<Element> Next(const CallOptions& o) override {
      // Parallel: every slot open, so that each one's workers can read
      // ahead. The slots take the input's elements in the order the
      // cycle comes to them, which is the order it would open them in.
      if (parallel()) INFLOW_RETURN_IF_ERROR(FillCycle(o));
      while (!end_of_input_ || open_ > 0) {
        Slot& s = slots_[cycle_index_];
        if (s.open) {
          INFLOW_ASSIGN_OR_RETURN(Item item, Take(s, o));
          if (!item.end) {
            // An error keeps the turn (tf.data's order).
            if (!item.value.ok()) return item.value.status();
            if (!item.from_other && ++block_index_ == d_.block_) Advance();
            return Element(std::move(item.value).value());
          }
          Close(s);
          Advance();
        } else if (!end_of_input_) {
          INFLOW_RETURN_IF_ERROR(OpenNext(s, o));
        } else {
          Advance();
        }
      }
      return Element();
    }

    Status Save(StateWriter& w) override {
      MutexLock l(&mu_);
      w.Tag(d_.kind());
      w.Int(cycle_index_);
      w.Int(block_index_);
      w.Int(end_of_input_ ? 1 : 0);
      w.Int(count_);
      for (Slot& s : slots_) {
        w.Int(s.open ? 1 : 0);
        if (!s.open) continue;
        w.Int(s.element);
        w.Bytes(s.snapshot);
        // The inner position: before the oldest element not handed out.
        std::string inner;
        int64_t skip = 0;
        if (!s.buffer.empty()) {
          inner = *s.buffer.front().chunk;
          skip = s.buffer.front().index;
        } else if (s.claimed) {
          inner = *s.chunk;
          skip = s.pushed;
        } else {
          StateWriter iw;
          INFLOW_RETURN_IF_ERROR(s.it->Save(iw));
          inner = iw.Take();
        }
        w.Bytes(inner);
        w.Int(skip);
      }
      return in_->Save(w);
    }

    Status Restore(StateReader& r) override {
      StopThreads();
      INFLOW_RETURN_IF_ERROR(r.Tag(d_.kind()));
      INFLOW_ASSIGN_OR_RETURN(cycle_index_,
                              r.IntIn("cycle index", 0, d_.cycle_ - 1));
      turn_.store(cycle_index_, std::memory_order_relaxed);
      INFLOW_ASSIGN_OR_RETURN(block_index_,
                              r.IntIn("block index", 0, d_.block_ - 1));
      INFLOW_ASSIGN_OR_RETURN(int64_t end, r.IntIn("end of input", 0, 1));
      end_of_input_ = end == 1;
      INFLOW_ASSIGN_OR_RETURN(count_, r.IntIn("elements", 0, INT64_MAX / 4));
      open_ = 0;
      for (Slot& s : slots_) {
        s.Reset();
        INFLOW_ASSIGN_OR_RETURN(int64_t has, r.IntIn("open", 0, 1));
        if (has == 0) continue;
        INFLOW_ASSIGN_OR_RETURN(s.element, r.IntIn("element", 0, count_));
        INFLOW_ASSIGN_OR_RETURN(std::string_view snapshot, r.Bytes());
        s.snapshot = std::string(snapshot);
        // The element again, from a second iterator of the input.
        INFLOW_ASSIGN_OR_RETURN(ItPtr again, d_.input().MakeIterator(context_));
        INFLOW_ASSIGN_OR_RETURN(Tuple e, ElementAt(*again, snapshot, d_));
        INFLOW_RETURN_IF_ERROR(Open(std::move(e), s.element, s));
        INFLOW_ASSIGN_OR_RETURN(std::string_view inner, r.Bytes());
        INFLOW_RETURN_IF_ERROR(RestoreFrom(*s.it, inner, d_));
        INFLOW_ASSIGN_OR_RETURN(int64_t skip, r.IntIn("skip", 0, 1 << 20));
        for (int64_t k = 0; k < skip; ++k) {
          INFLOW_ASSIGN_OR_RETURN(Element pulled, s.it->Next({}));
          if (!pulled) {
            return InvalidArgumentError(
                d_.label() + ": an inner dataset ended before a saved element");
          }
        }
        s.open = true;
        ++open_;
      }
      return in_->Restore(r);
    }

   private:
    // A slot's element, pulled ahead (parallel) or at once (sequential).
    struct Item {
      Result<Tuple> value = Tuple();
      bool end = false;  // the inner dataset ended
      // The inner state before its chunk, and its place in the chunk.
      std::shared_ptr<const std::string> chunk;
      int64_t index = 0;
      bool from_other = false;  // not deterministic: another slot's
    };
    struct Slot {
      DatasetPtr dataset;  // fn(element), alive while `it` reads it
      ItPtr it;
      std::string snapshot;  // the input's state before its element
      int64_t element = 0;   // that element's position
      bool open = false;
      // Parallel, under mu_: the elements pulled ahead; whether a worker
      // is pulling (it alone then uses `it`), the inner state before its
      // chunk and the elements of it pushed so far; whether the end was
      // pulled.
      std::deque<Item> buffer;
      bool claimed = false;
      std::shared_ptr<const std::string> chunk;
      int64_t pushed = 0;
      bool ended = false;
      void Reset() { *this = Slot(); }
    };

    bool parallel() const { return d_.threads_ > 1; }

    // The slot's next element: its iterator's (sequential), or the first
    // its workers pulled, waited for.
    Result<Item> Take(Slot& s, const CallOptions& o) {
      if (!parallel()) {
        Item item;
        Result<Element> e = s.it->Next(o);
        if (!e.ok()) {
          item.value = e.status();
        } else if (!e->has_value()) {
          item.end = true;
        } else {
          item.value = std::move(**e);
        }
        return item;
      }
      INFLOW_RETURN_IF_ERROR(StartThreads());
      std::stop_callback wake(o.stop, [this] {
        MutexLock w(&mu_);
        ready_cv_.SignalAll();
      });
      MutexLock l(&mu_);
      const CondVar::Clock::time_point deadline =
          o.timeout.has_value() ? CondVar::Clock::now() + *o.timeout
                                : CondVar::Clock::time_point::max();
      for (;;) {
        if (!s.buffer.empty()) return Pop(s);
        if (!d_.deterministic_) {
          for (Slot& other : slots_) {
            if (&other == &s || !other.open || other.buffer.empty() ||
                other.buffer.front().end) {
              continue;
            }
            Item item = Pop(other);
            item.from_other = true;
            return item;
          }
        }
        if (o.stop.stop_requested()) {
          return CancelledError(d_.label() + ": cancelled");
        }
        waiting_ = &s;
        work_cv_.SignalAll();  // the slot needed now goes first
        bool in_time = true;
        if (deadline == CondVar::Clock::time_point::max()) {
          ready_cv_.Wait(&mu_);
        } else {
          in_time = ready_cv_.WaitUntil(&mu_, deadline);
        }
        waiting_ = nullptr;
        if (!in_time && s.buffer.empty()) {
          return DeadlineExceededError(d_.label() + ": no element in time");
        }
      }
    }

    Item Pop(Slot& s) INFLOW_REQUIRES(mu_) {
      Item item = std::move(s.buffer.front());
      s.buffer.pop_front();
      // Waiting workers wake when the slot is half empty (to fill it in
      // one go), not at each element: a wake-up costs both threads
      // microseconds.
      if (workers_waiting_ > 0 && !s.claimed &&
          static_cast<int64_t>(s.buffer.size()) <= kSlotBuffer / 2) {
        work_cv_.SignalAll();
      }
      return item;
    }

    // The input's next element's dataset into `s` (or the end of input).
    Status OpenNext(Slot& s, const CallOptions& o) {
      StateWriter w;
      INFLOW_RETURN_IF_ERROR(in_->Save(w));
      std::string snapshot = w.Take();
      INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
      if (!e) {
        end_of_input_ = true;
        return OkStatus();
      }
      INFLOW_RETURN_IF_ERROR(Open(std::move(*e), count_, s));
      s.snapshot = std::move(snapshot);
      s.element = count_++;
      MutexLock l(&mu_);
      s.open = true;
      ++open_;
      work_cv_.SignalAll();
      return OkStatus();
    }

    // Opens the closed slots in cycle order from the current one.
    Status FillCycle(const CallOptions& o) {
      for (int64_t k = 0; k < d_.cycle_ && !end_of_input_; ++k) {
        Slot& s = slots_[(cycle_index_ + k) % d_.cycle_];
        if (!s.open) INFLOW_RETURN_IF_ERROR(OpenNext(s, o));
      }
      return OkStatus();
    }

    void Close(Slot& s) {
      MutexLock l(&mu_);
      s.Reset();  // its worker is done with it: the end was its last pull
      --open_;
    }

    void Advance() {
      block_index_ = 0;
      cycle_index_ = (cycle_index_ + 1) % d_.cycle_;
      turn_.store(cycle_index_, std::memory_order_relaxed);
    }

    // fn(element k)'s dataset and an iterator of it, into `s`.
    Status Open(Tuple element, int64_t k, Slot& s) {
      Result<Dataset> ds = d_.fn_(std::move(element));
      if (!ds.ok()) return ElementError(ds.status(), d_, k);
      DatasetPtr base = BaseOf(*ds);
      if (!base->status().ok()) return ElementError(base->status(), d_, k);
      // Its passes are this one's (a reshuffle follows the outer Repeat);
      // its time is this stage's (one dataset per element: no counters).
      IteratorContext inner = context_;
      inner.pipeline = nullptr;
      Result<ItPtr> it = base->MakeIterator(inner);
      if (!it.ok()) return ElementError(it.status(), d_, k);
      s.dataset = std::move(base);
      s.it = std::move(it).value();
      return OkStatus();
    }

    Status StartThreads() {
      if (!threads_.empty()) return OkStatus();
      {
        MutexLock l(&mu_);
        stopping_ = false;
      }
      Status s = StartStageThreads(
          d_, d_.threads_, [this](std::stop_token stop, int) { Work(stop); },
          &threads_);
      if (!s.ok()) StopThreads();
      return s;
    }

    void StopThreads() {
      {
        MutexLock l(&mu_);
        stopping_ = true;
        work_cv_.SignalAll();
        ready_cv_.SignalAll();
      }
      for (auto& t : threads_) t->RequestStop();
      threads_.clear();  // joins
      MutexLock l(&mu_);
      for (Slot& s : slots_) {
        s.buffer.clear();
        s.claimed = false;
        s.ended = false;
      }
    }

    // The open slot that needs elements soonest: the one the consumer
    // waits for, else in cycle order from the consumer's.
    Slot* NextToFill() INFLOW_REQUIRES(mu_) {
      if (waiting_ != nullptr && !waiting_->claimed && !waiting_->ended &&
          waiting_->open) {
        return waiting_;
      }
      const int64_t turn = turn_.load(std::memory_order_relaxed);
      for (int64_t k = 0; k < d_.cycle_; ++k) {
        Slot& s = slots_[(turn + k) % d_.cycle_];
        if (s.open && !s.claimed && !s.ended &&
            static_cast<int64_t>(s.buffer.size()) < kSlotBuffer) {
          return &s;
        }
      }
      return nullptr;
    }

    void Work(std::stop_token stop) {
      CallOptions call;
      call.stop = stop;
      MutexLock l(&mu_);
      while (!stopping_) {
        Slot* s = NextToFill();
        if (s == nullptr) {
          ++workers_waiting_;
          work_cv_.Wait(&mu_);
          --workers_waiting_;
          continue;
        }
        StateWriter w;
        Status saved = s->it->Save(w);
        s->claimed = true;
        s->chunk = std::make_shared<const std::string>(w.Take());
        s->pushed = 0;
        IteratorBase* it = s->it.get();
        for (int64_t k = 0; k < kChunk && !stopping_; ++k) {
          Item item;
          item.chunk = s->chunk;
          item.index = s->pushed;
          if (!saved.ok()) {
            item.value = saved;
          } else {
            mu_.unlock();
            Result<Element> e = it->Next(call);
            mu_.lock();
            if (stopping_) break;
            if (!e.ok()) {
              item.value = e.status();
            } else if (!e->has_value()) {
              item.end = true;
              s->ended = true;
            } else {
              item.value = std::move(**e);
            }
          }
          s->buffer.push_back(std::move(item));
          ++s->pushed;
          // The consumer waiting for this slot wakes at its first element
          // and then at the chunk's end.
          if (k == 0 && (waiting_ == s || !d_.deterministic_)) {
            ready_cv_.SignalAll();
          }
          if (s->ended || !saved.ok() ||
              static_cast<int64_t>(s->buffer.size()) >= kSlotBuffer) {
            break;
          }
        }
        s->claimed = false;
        if (waiting_ != nullptr) ready_cv_.SignalAll();
      }
    }

    static constexpr int64_t kChunk = 8;        // elements a worker pulls
    static constexpr int64_t kSlotBuffer = 16;  // elements a slot holds

    const InterleaveDataset& d_;
    const IteratorContext context_;
    ItPtr in_;  // the consumer's
    Mutex mu_;
    CondVar work_cv_;   // workers wait for a slot to fill
    CondVar ready_cv_;  // the consumer waits for its slot's element
    std::vector<Slot> slots_;
    Slot* waiting_ INFLOW_GUARDED_BY(mu_) = nullptr;
    int workers_waiting_ INFLOW_GUARDED_BY(mu_) = 0;
    bool stopping_ INFLOW_GUARDED_BY(mu_) = false;
    std::vector<std::unique_ptr<Thread>> threads_;
    int64_t cycle_index_ = 0;
    // cycle_index_, for the workers' choice of the slot to fill (a hint).
    std::atomic<int64_t> turn_{0};
    int64_t block_index_ = 0;
    int64_t open_ = 0;
    int64_t count_ = 0;  // input elements pulled
    bool end_of_input_ = false;
  };

  const DatasetFn fn_;
  const int64_t cycle_;
  const int64_t block_;
  const int threads_;  // <= 1: sequential
  const bool deterministic_;
};

class UnbatchDataset final : public DatasetBase {
 public:
  explicit UnbatchDataset(DatasetPtr input)
      : DatasetBase("unbatch", {std::move(input)}) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    return c == 0 || c == kInfinite ? c : kUnknown;
  }
  bool Rows() const override { return true; }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    INFLOW_ASSIGN_OR_RETURN(ItPtr in, input().MakeIterator(c));
    return ItPtr(std::make_unique<It>(*this, std::move(in)));
  }

 private:
  class It final : public IteratorBase {
   public:
    It(const UnbatchDataset& d, ItPtr in) : d_(d), in_(std::move(in)) {}
    Result<Element> Next(const CallOptions& o) override {
      INFLOW_ASSIGN_OR_RETURN(bool got, Advance(o));
      if (!got) return Element();
      Tuple out;
      out.reserve(element_.size());
      for (const Tensor& t : element_) out.push_back(t.SubTensor(row_));
      ++row_;
      return Element(std::move(out));
    }
    Result<bool> NextRow(const CallOptions& o, RowRef* out) override {
      INFLOW_ASSIGN_OR_RETURN(bool got, Advance(o));
      if (!got) return false;
      // A row handed out is not read again (a restore pulls the element
      // anew): owned while no other tensor shares the element's strings.
      *out = RowRef{&element_, row_++, StringsUnshared(element_)};
      return true;
    }
    Status Save(StateWriter& w) override {
      w.Tag("unbatch");
      w.Int(count_);
      w.Int(row_ < rows_ ? row_ : -1);
      if (row_ < rows_) {
        w.Bytes(snapshot_);
        return OkStatus();
      }
      return in_->Save(w);
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("unbatch"));
      INFLOW_ASSIGN_OR_RETURN(count_, r.IntIn("elements", 0, INT64_MAX / 4));
      INFLOW_ASSIGN_OR_RETURN(int64_t row, r.IntIn("row", -1, INT64_MAX / 4));
      element_.clear();
      row_ = rows_ = 0;
      if (row < 0) return in_->Restore(r);
      // The element being split, pulled again; its first `row` rows were
      // handed out.
      INFLOW_ASSIGN_OR_RETURN(std::string_view snapshot, r.Bytes());
      if (count_ < 1) {
        return InvalidArgumentError(d_.label() +
                                    ": a row of an element before the first");
      }
      INFLOW_ASSIGN_OR_RETURN(Tuple e, ElementAt(*in_, snapshot, d_));
      INFLOW_RETURN_IF_ERROR(Take(std::move(e), count_ - 1));
      snapshot_ = std::string(snapshot);
      if (row >= rows_) {
        return InvalidArgumentError(d_.label() + ": row " +
                                    std::to_string(row) + " of an element of " +
                                    std::to_string(rows_));
      }
      row_ = row;
      return OkStatus();
    }

   private:
    // Pulls input elements until one has a row left; false at the end.
    Result<bool> Advance(const CallOptions& o) {
      while (row_ >= rows_) {
        StateWriter w;
        INFLOW_RETURN_IF_ERROR(in_->Save(w));
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (!e) return false;
        const int64_t k = count_++;
        INFLOW_RETURN_IF_ERROR(Take(std::move(*e), k));
        snapshot_ = w.Take();
      }
      return true;
    }
    Status Take(Tuple e, int64_t k) {
      if (e.empty())
        return ElementError(InvalidArgumentError("no components"), d_, k);
      for (size_t c = 0; c < e.size(); ++c) {
        if (e[c].rank() < 1 || e[0].rank() < 1 ||
            e[c].dim_size(0) != e[0].dim_size(0)) {
          return ElementError(
              InvalidArgumentError("component " + std::to_string(c) +
                                   " has no first dimension of the "
                                   "components' common size"),
              d_, k);
        }
      }
      element_ = std::move(e);
      rows_ = element_[0].dim_size(0);
      row_ = 0;
      return OkStatus();
    }

    const UnbatchDataset& d_;
    ItPtr in_;
    Tuple element_;         // being split
    std::string snapshot_;  // the input's state before it
    int64_t rows_ = 0, row_ = 0;
    int64_t count_ = 0;  // input elements pulled
  };
};

}  // namespace

DatasetPtr MakeInterleave(DatasetPtr input, DatasetFn fn, int64_t cycle,
                          int64_t block, int threads, bool deterministic) {
  return std::make_shared<InterleaveDataset>(std::move(input), std::move(fn),
                                             "interleave", cycle, block,
                                             threads, deterministic);
}
DatasetPtr MakeFlatMap(DatasetPtr input, DatasetFn fn) {
  return std::make_shared<InterleaveDataset>(std::move(input), std::move(fn),
                                             "flat_map", 1, 1, 0, true);
}
DatasetPtr MakeUnbatch(DatasetPtr input) {
  return std::make_shared<UnbatchDataset>(std::move(input));
}

}  // namespace inflow::data::internal
