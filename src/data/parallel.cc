// Copyright 2026 The inflow Authors.
//
// Map with num_parallel_calls > 1, and Prefetch. Worker threads take the
// input's elements in chunks (one worker at a time: in_mu_ orders the
// pulls), compute them (a map's function; a prefetch has none) outside
// every lock, and the consumer takes whole chunks, in order (or, not
// deterministic, as they finish), then hands their elements out without
// a lock. A map's chunk is up to 16 elements, fewer for large ones
// (about 512 KB a chunk), so that a thread wakes once per chunk, not per
// element; a prefetch's is one element. Wake-ups come in batches too, as
// each costs both threads several microseconds: a worker that found the
// buffer full sleeps until half of it is free, and a consumer waiting for
// a chunk sleeps until half the buffer is computed (or every worker
// waits, or the input ended), but at most 1 ms once the first is: what a
// stalled input already gave still comes out.
//
// The state: before each chunk a worker saves the input's state (a few
// bytes: positions and counters). The iterator's state is the position of
// the oldest element not handed out, the input state saved before its
// chunk with the count of the chunk's elements before it, and, when not
// deterministic, which later elements were handed out already. Restore
// puts the input there, skips those elements (pulled, not computed) and
// drops the ones handed out: a checkpoint never holds an element.

#include <algorithm>
#include <chrono>
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

constexpr int64_t kMaxChunk = 16;
// An autotuned buffer's largest size, in chunks.
constexpr int64_t kMaxAutotunedBuffer = 64;
constexpr int64_t kChunkBytes = 512 << 10;
// The longest a consumer waits for several chunks while one is ready.
constexpr auto kGatherWait = std::chrono::milliseconds(1);

// This thread's time waiting for a parallel stage's elements: taken out
// of the busy time of a worker whose input is such a stage.
thread_local int64_t tls_waited_ns = 0;

class ParallelDataset final : public DatasetBase {
 public:
  ParallelDataset(DatasetPtr input, MapFn fn, std::string kind, int threads,
                  int64_t buffer_size, bool deterministic, Status status,
                  int64_t prefetched = 0, bool tune_buffer = false)
      : DatasetBase(std::move(kind), {std::move(input)}, std::move(status)),
        fn_(std::move(fn)),
        threads_(threads),
        buffer_size_(buffer_size),
        deterministic_(deterministic),
        prefetched_(prefetched),
        tune_buffer_(tune_buffer) {}

  int64_t Cardinality() const override { return input().Cardinality(); }
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext& c) const override;

  const MapFn fn_;
  const int threads_;          // kAutotune: the autotuner's share
  const int64_t buffer_size_;  // chunks; kAutotune: 2 per thread
  const bool deterministic_;
  // Elements of a Prefetch fused into this map: room for that many more.
  const int64_t prefetched_;
  // A kAutotune prefetch (or one fused into this map): the buffer doubles
  // while the consumer finds nothing ready, within the memory budget.
  const bool tune_buffer_;
};

// An element's bytes, a string tensor's strings included (a batch of
// records is its records' bytes, not its std::string objects').
size_t ElementBytes(const Tuple& t) {
  size_t n = 0;
  for (const Tensor& x : t) {
    n += x.num_bytes();
    if (x.dtype() == DType::kString) {
      for (const std::string& s : x.flat<std::string>()) n += s.size();
    }
  }
  return n;
}

class ParallelIterator final : public IteratorBase, public Tunable {
 public:
  ParallelIterator(const ParallelDataset& d, std::unique_ptr<IteratorBase> in,
                   Pipeline* pipeline)
      : d_(d),
        pipeline_(pipeline),
        counters_(pipeline != nullptr ? &pipeline->For(d) : nullptr),
        autotuned_(d.threads_ == kAutotune &&
                   (pipeline == nullptr || pipeline->autotune())),
        tune_buffer_(d.tune_buffer_ &&
                     (pipeline == nullptr || pipeline->autotune())),
        thread_count_(d.threads_ != kAutotune ? d.threads_
                      : pipeline != nullptr && pipeline->autotune()
                          ? pipeline->thread_budget()
                          : HardwareThreads()),
        in_(std::move(in)),
        buffer_(d.buffer_size_ != kAutotune ? d.buffer_size_
                : d.fn_                     ? 2 * thread_count_
                                            : 2),
        prefetched_(d.prefetched_),
        active_(thread_count_),
        chunk_(d.fn_ ? kMaxChunk : 1) {
    if (counters_ != nullptr) {
      counters_->threads.store(thread_count_);
      counters_->autotuned.store(autotuned_ && pipeline_ != nullptr);
      counters_->buffer_size.store(buffer_);
    }
    if (autotuned_ && pipeline_ != nullptr) pipeline_->Add(this);
  }
  ~ParallelIterator() override {
    if (autotuned_ && pipeline_ != nullptr) pipeline_->Remove(this);
    StopThreads();
  }

  // Tunable: workers past the first n wait.
  void SetActiveThreads(int n) override {
    n = std::clamp(n, 1, thread_count_);
    MutexLock l(&mu_);
    active_ = n;
    counters_->threads.store(n);
    room_cv_.SignalAll();
  }
  StageCounters& counters() override { return *counters_; }

  Result<std::optional<Tuple>> Next(const CallOptions& o) override {
    for (;;) {
      // Elements of the chunk taken last that are computed: no lock.
      if (current_ != nullptr && handed_in_current_ < current_ready_) {
        const size_t i = handed_in_current_++;
        const int64_t position = current_->start + static_cast<int64_t>(i);
        if (skip_.erase(position) > 0) continue;  // handed out before a save
        Result<Tuple>& v = current_->values[i];
        if (!v.ok()) return v.status();
        return std::optional<Tuple>(std::move(v).value());
      }
      if (current_ != nullptr && handed_in_current_ < current_->values.size()) {
        // Its next element is being computed.
        INFLOW_RETURN_IF_ERROR(WaitForCurrent(o));
        continue;
      }
      if (current_ != nullptr && current_->end) {
        return std::optional<Tuple>();  // and again on later calls
      }
      INFLOW_RETURN_IF_ERROR(TakeChunk(o));
    }
  }

  Status Save(StateWriter& w) override {
    MutexLock in(&in_mu_);
    MutexLock l(&mu_);
    w.Tag(d_.kind());
    // The oldest element not handed out: in the current chunk, or the
    // first of the oldest chunk waiting.
    const Chunk* base = nullptr;
    int64_t offset = 0;
    if (current_ != nullptr && handed_in_current_ < current_->values.size()) {
      base = current_.get();
      offset = static_cast<int64_t>(handed_in_current_);
    }
    if (!slots_.empty() &&
        (base == nullptr || slots_.front()->seq < base->seq)) {
      base = slots_.front().get();
      offset = 0;
    }
    std::string now;
    int64_t position;
    if (base != nullptr) {
      position = base->start + offset;
    } else {
      StateWriter s;
      INFLOW_RETURN_IF_ERROR(in_->Save(s));
      now = s.Take();
      position = next_start_;
    }
    w.Int(position);
    w.Bytes(base != nullptr ? std::string_view(base->snapshot)
                            : std::string_view(now));
    w.Int(offset);
    // Not deterministic: the elements after it handed out already.
    std::vector<int64_t> later;
    for (int64_t p : handed_) {
      if (p > position) later.push_back(p - position);
    }
    for (int64_t p : skip_) {
      if (p > position) later.push_back(p - position);
    }
    if (current_ != nullptr && current_.get() != base) {
      for (size_t i = 0; i < handed_in_current_; ++i) {
        const int64_t p = current_->start + static_cast<int64_t>(i);
        if (p > position) later.push_back(p - position);
      }
    }
    std::sort(later.begin(), later.end());
    later.erase(std::unique(later.begin(), later.end()), later.end());
    w.Int(static_cast<int64_t>(later.size()));
    for (int64_t p : later) w.Int(p);
    return OkStatus();
  }

  Status Restore(StateReader& r) override {
    StopThreads();
    INFLOW_RETURN_IF_ERROR(r.Tag(d_.kind()));
    INFLOW_ASSIGN_OR_RETURN(int64_t position,
                            r.IntIn("position", 0, INT64_MAX / 4));
    INFLOW_ASSIGN_OR_RETURN(std::string_view snapshot, r.Bytes());
    INFLOW_ASSIGN_OR_RETURN(int64_t offset, r.IntIn("offset", 0, position));
    INFLOW_ASSIGN_OR_RETURN(int64_t n, r.IntIn("handed-out count", 0, 1 << 16));
    std::set<int64_t> skip;
    for (int64_t k = 0; k < n; ++k) {
      INFLOW_ASSIGN_OR_RETURN(int64_t s,
                              r.IntIn("handed-out element", 1, INT64_MAX / 4));
      skip.insert(position + s);
    }
    {
      MutexLock in(&in_mu_);
      INFLOW_RETURN_IF_ERROR(RestoreFrom(*in_, snapshot, d_));
      // The chunk's elements before the position: pulled, not computed.
      for (int64_t k = 0; k < offset; ++k) {
        INFLOW_ASSIGN_OR_RETURN(std::optional<Tuple> e, in_->Next({}));
        if (!e) {
          return InvalidArgumentError(
              d_.label() + ": the input ended before the saved position");
        }
      }
    }
    MutexLock l(&mu_);
    slots_.clear();
    handed_.clear();
    current_.reset();
    handed_in_current_ = 0;
    skip_ = std::move(skip);
    next_start_ = position;
    next_seq_ = 0;
    reserved_ = 0;
    input_end_ = false;
    return OkStatus();
  }

 private:
  struct Chunk {
    int64_t seq = 0;
    int64_t start = 0;     // the position of its first element
    std::string snapshot;  // the input's state before it
    // Sized when pulled; the first `ready` are computed (a worker fills
    // them in order, under mu_).
    std::vector<Result<Tuple>> values;
    size_t ready = 0;
    bool end = false;  // the input ended after these
    bool done() const { return ready == values.size(); }
  };

  static CondVar::Clock::time_point Deadline(const CallOptions& o) {
    return o.timeout.has_value() ? CondVar::Clock::now() + *o.timeout
                                 : CondVar::Clock::time_point::max();
  }

  // One wait of the consumer for a worker's signal: CANCELLED when `o`
  // is stopped, DEADLINE_EXCEEDED past `deadline`.
  Status WaitReady(const CallOptions& o, CondVar::Clock::time_point deadline)
      INFLOW_REQUIRES(mu_) {
    if (o.stop.stop_requested()) {
      return CancelledError(d_.label() + ": cancelled");
    }
    ++consumer_waiting_;
    bool in_time = true;
    const auto start = std::chrono::steady_clock::now();
    if (deadline == CondVar::Clock::time_point::max()) {
      ready_cv_.Wait(&mu_);
    } else {
      in_time = ready_cv_.WaitUntil(&mu_, deadline);
    }
    tls_waited_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    --consumer_waiting_;
    if (!in_time) {
      return DeadlineExceededError(d_.label() + ": no element in time");
    }
    return OkStatus();
  }

  // Waits until current_'s next element is computed.
  Status WaitForCurrent(const CallOptions& o) {
    std::stop_callback wake(o.stop, [this] {
      MutexLock w(&mu_);
      ready_cv_.SignalAll();
    });
    MutexLock l(&mu_);
    const CondVar::Clock::time_point deadline = Deadline(o);
    while (current_->ready <= handed_in_current_) {
      waiting_current_ = true;
      Status s = WaitReady(o, deadline);
      waiting_current_ = false;
      INFLOW_RETURN_IF_ERROR(s);
    }
    current_ready_ = current_->ready;
    return OkStatus();
  }

  // Waits for the next chunk (the oldest, or any done one when not
  // deterministic) and makes it current_.
  Status TakeChunk(const CallOptions& o) {
    INFLOW_RETURN_IF_ERROR(StartThreads());
    // Before the lock: a token already stopped runs it at once.
    std::stop_callback wake(o.stop, [this] {
      MutexLock w(&mu_);
      ready_cv_.SignalAll();
    });
    MutexLock l(&mu_);
    const CondVar::Clock::time_point deadline = Deadline(o);
    bool gather = Limit() > 1;
    for (;;) {
      auto it = Ready();
      if (it != slots_.end()) {
        if (current_ != nullptr && !d_.deterministic_) {
          // Its elements count as handed out while older ones wait.
          for (size_t i = 0; i < current_->values.size(); ++i) {
            handed_.insert(current_->start + static_cast<int64_t>(i));
          }
        }
        if (counters_ != nullptr) {
          counters_->fill_samples.fetch_add(1, std::memory_order_relaxed);
          counters_->fill_permille.fetch_add(
              std::min<int64_t>(1000, 1000 * DoneChunks() / Limit()),
              std::memory_order_relaxed);
        }
        current_ = std::move(*it);
        handed_in_current_ = 0;
        current_ready_ = current_->ready;
        slots_.erase(it);
        --reserved_;
        if (!slots_.empty()) {
          handed_.erase(handed_.begin(),
                        handed_.lower_bound(
                            std::min(slots_.front()->start, current_->start)));
        } else {
          handed_.erase(handed_.begin(), handed_.lower_bound(current_->start));
        }
        // Workers wake when half the buffer is free, to fill it in one go.
        if (workers_waiting_ > 0 &&
            reserved_ <= Limit() - std::max<int64_t>(1, Limit() / 2)) {
          room_cv_.SignalAll();
        }
        if (current_->end) {
          // Handed out again by later calls; nothing is pulled after it.
          input_end_ = true;
        }
        return OkStatus();
      }
      // Woken when half the buffer is computed (or nothing more is under
      // way, or at the end): one wake-up per several chunks. A wait for
      // more than one is bounded (kGatherWait): when the input stalls, the
      // chunks computed so far come out then, and the wait goes on for
      // the next one alone.
      MaybeGrowBuffer();
      CondVar::Clock::time_point until = deadline;
      if (gather) {
        until = std::min(deadline, CondVar::Clock::now() + kGatherWait);
        wake_at_ = std::max<int64_t>(1, Limit() / 2);
      }
      Status s = WaitReady(o, until);
      wake_at_ = 1;
      if (IsDeadlineExceeded(s)) {
        if (Ready() != slots_.end()) continue;
        if (until < deadline) {
          gather = false;
          continue;
        }
      }
      INFLOW_RETURN_IF_ERROR(s);
    }
  }

  // The chunks the buffer holds: the map's, and a fused prefetch's
  // elements in chunks of the current size.
  int64_t Limit() const INFLOW_REQUIRES(mu_) {
    return buffer_ + (prefetched_ + chunk_ - 1) / chunk_;
  }

  // An autotuned buffer whose consumer found nothing ready: twice the
  // room, up to kMaxAutotunedBuffer chunks and the memory budget.
  void MaybeGrowBuffer() INFLOW_REQUIRES(mu_) {
    if (!tune_buffer_ || input_end_ || element_bytes_ < 0 ||
        Limit() >= kMaxAutotunedBuffer) {
      return;
    }
    const int64_t budget =
        pipeline_ != nullptr ? pipeline_->ram_budget() : int64_t{1} << 30;
    if (2 * Limit() * chunk_ * std::max<int64_t>(1, element_bytes_) > budget) {
      return;
    }
    if (d_.fn_ == nullptr) {
      buffer_ = std::min(2 * buffer_, kMaxAutotunedBuffer);
    } else {
      prefetched_ = std::min(2 * std::max<int64_t>(prefetched_, 1),
                             kMaxAutotunedBuffer * chunk_);
    }
    if (counters_ != nullptr) counters_->buffer_size.store(Limit());
    room_cv_.SignalAll();
  }

  // Wakes the consumer waiting for a chunk once wake_at_ are computed, or
  // when every worker waits for room (nothing else will come), or at the
  // end; or waiting for the current chunk's next element, at each element.
  void MaybeWakeConsumer() INFLOW_REQUIRES(mu_) {
    if (consumer_waiting_ == 0) return;
    bool wake = waiting_current_ || workers_waiting_ == thread_count_ ||
                input_end_ || stopping_;
    if (!wake && Ready() != slots_.end()) wake = DoneChunks() >= wake_at_;
    if (wake) ready_cv_.SignalAll();
  }

  // The chunks in the buffer computed whole.
  int64_t DoneChunks() const INFLOW_REQUIRES(mu_) {
    int64_t done = 0;
    for (const auto& c : slots_) done += c->done() ? 1 : 0;
    return done;
  }

  std::deque<std::unique_ptr<Chunk>>::iterator Ready() INFLOW_REQUIRES(mu_) {
    if (slots_.empty()) return slots_.end();
    // The oldest chunk as soon as its first element is computed (the rest
    // are handed out as they come); not deterministic, any chunk computed
    // whole first. The end only once every chunk before it is handed out.
    const Chunk& front = *slots_.front();
    const bool front_ready = front.ready > 0 || front.done();
    if (d_.deterministic_ || front.end) {
      return front_ready ? slots_.begin() : slots_.end();
    }
    for (auto it = slots_.begin(); it != slots_.end(); ++it) {
      if ((*it)->done() && !(*it)->end) return it;
    }
    return front_ready ? slots_.begin() : slots_.end();
  }

  Status StartThreads() {
    if (!threads_.empty()) return OkStatus();
    {
      MutexLock l(&mu_);
      stopping_ = false;
    }
    Status s = StartStageThreads(
        d_, thread_count_,
        [this](std::stop_token stop, int t) { Work(stop, t); }, &threads_);
    if (!s.ok()) StopThreads();
    return s;
  }

  void StopThreads() {
    {
      MutexLock l(&mu_);
      stopping_ = true;
      room_cv_.SignalAll();
      ready_cv_.SignalAll();
    }
    for (auto& t : threads_) t->RequestStop();
    threads_.clear();  // joins
  }

  // Worker `index`: it computes while index < active_.
  void Work(std::stop_token stop, int index) {
    CallOptions call;
    call.stop = stop;
    for (;;) {
      if (!Reserve(index)) return;
      std::vector<Tuple> inputs;
      Chunk* chunk = nullptr;
      if (!Pull(call, &inputs, &chunk)) return;
      if (!inputs.empty()) Compute(std::move(inputs), chunk);
    }
  }

  // Waits for room in the buffer (and its turn) and takes a place; false
  // when stopping.
  bool Reserve(int index) {
    MutexLock l(&mu_);
    while (!stopping_ &&
           (input_end_ || reserved_ >= Limit() || index >= active_)) {
      ++workers_waiting_;
      MaybeWakeConsumer();
      room_cv_.Wait(&mu_);
      --workers_waiting_;
    }
    if (stopping_) return false;
    ++reserved_;
    return true;
  }

  // Pulls the next chunk of the input (this worker alone: in_mu_) and
  // publishes it; its elements to compute go to `inputs` (a map's).
  // False when stopping.
  bool Pull(const CallOptions& call, std::vector<Tuple>* inputs,
            Chunk** chunk) {
    MutexLock in(&in_mu_);
    const Busy busy(counters_, nullptr);
    int64_t want;
    {
      MutexLock l(&mu_);
      if (stopping_ || input_end_) {
        --reserved_;  // the input ended while this worker waited
        return !stopping_;
      }
      want = chunk_;
    }
    auto made = std::make_unique<Chunk>();
    StateWriter w;
    Status pulled_ok = in_->Save(w);
    made->snapshot = w.Take();
    size_t bytes = 0;
    while (pulled_ok.ok() && static_cast<int64_t>(inputs->size()) < want) {
      Result<std::optional<Tuple>> e = in_->Next(call);
      if (!e.ok()) {
        pulled_ok = e.status();
        break;
      }
      if (!e->has_value()) {
        made->end = true;
        break;
      }
      bytes += ElementBytes(**e);
      inputs->push_back(std::move(**e));
    }
    MutexLock l(&mu_);
    if (stopping_) {
      --reserved_;
      return false;
    }
    made->seq = next_seq_++;
    made->start = next_start_;
    next_start_ +=
        static_cast<int64_t>(inputs->size()) + (pulled_ok.ok() ? 0 : 1);
    if (made->end) input_end_ = true;
    if (!inputs->empty()) {
      element_bytes_ = static_cast<int64_t>(bytes / inputs->size());
    }
    if (!inputs->empty() && d_.fn_) {
      // Chunks of about kChunkBytes of input.
      const size_t each = std::max<size_t>(1, bytes / inputs->size());
      chunk_ = std::clamp<int64_t>(static_cast<int64_t>(kChunkBytes / each), 1,
                                   kMaxChunk);
    }
    made->values.reserve(inputs->size() + 1);
    if (!d_.fn_) {
      for (Tuple& t : *inputs) made->values.emplace_back(std::move(t));
      inputs->clear();
    } else {
      made->values.assign(inputs->size(), InternalError("not computed"));
    }
    if (!pulled_ok.ok()) made->values.emplace_back(pulled_ok);
    if (inputs->empty()) made->ready = made->values.size();
    *chunk = made.get();
    slots_.push_back(std::move(made));
    MaybeWakeConsumer();
    return true;
  }

  // Outside every lock: the map function on each element, each result
  // published as it comes (a pull error the chunk may end with is last).
  void Compute(std::vector<Tuple> inputs, Chunk* chunk) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      Result<Tuple> out = [&] {
        const Busy busy(counters_, counters_);
        return d_.fn_(std::move(inputs[i]));
      }();
      if (!out.ok()) {
        out = ElementError(out.status(), d_,
                           chunk->start + static_cast<int64_t>(i));
      }
      MutexLock l(&mu_);
      chunk->values[i] = std::move(out);
      ++chunk->ready;
      if (i + 1 == inputs.size()) chunk->ready = chunk->values.size();
      MaybeWakeConsumer();
    }
  }

  // Adds the time of its scope, less its waits for a parallel input, to
  // `busy`'s busy_ns and `own`'s own_ns (either may be null).
  class Busy {
   public:
    Busy(StageCounters* busy, StageCounters* own)
        : busy_(busy),
          own_(own),
          waited_(tls_waited_ns),
          start_(std::chrono::steady_clock::now()) {}
    ~Busy() {
      if (busy_ == nullptr && own_ == nullptr) return;
      const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - start_)
                             .count() -
                         (tls_waited_ns - waited_);
      if (busy_ != nullptr) {
        busy_->busy_ns.fetch_add(ns, std::memory_order_relaxed);
      }
      if (own_ != nullptr)
        own_->own_ns.fetch_add(ns, std::memory_order_relaxed);
    }

   private:
    StageCounters* busy_;
    StageCounters* own_;
    const int64_t waited_;
    const std::chrono::steady_clock::time_point start_;
  };

  const ParallelDataset& d_;
  Pipeline* const pipeline_;
  StageCounters* const counters_;  // null outside an Iterator's pipeline
  const bool autotuned_;           // its threads are the autotuner's share
  const bool tune_buffer_;         // its buffer grows while the consumer waits
  const int thread_count_;         // started
  Mutex in_mu_;                    // taken before mu_
  std::unique_ptr<IteratorBase> in_ INFLOW_GUARDED_BY(in_mu_);
  Mutex mu_;
  CondVar room_cv_;   // workers wait for room in the buffer
  CondVar ready_cv_;  // the consumer waits for its chunk
  int workers_waiting_ INFLOW_GUARDED_BY(mu_) = 0;
  int consumer_waiting_ INFLOW_GUARDED_BY(mu_) = 0;
  bool waiting_current_ INFLOW_GUARDED_BY(mu_) = false;
  int64_t wake_at_ INFLOW_GUARDED_BY(mu_) = 1;  // computed chunks it waits for
  std::deque<std::unique_ptr<Chunk>> slots_ INFLOW_GUARDED_BY(mu_);
  int64_t reserved_ INFLOW_GUARDED_BY(mu_) = 0;  // chunks + pulls under way
  int64_t next_seq_ INFLOW_GUARDED_BY(mu_) = 0;
  int64_t next_start_ INFLOW_GUARDED_BY(mu_) = 0;  // the next pull's position
  int64_t buffer_ INFLOW_GUARDED_BY(mu_);          // chunks (a map's own)
  int64_t prefetched_ INFLOW_GUARDED_BY(mu_);      // a fused prefetch's
  int active_ INFLOW_GUARDED_BY(mu_);              // workers that compute
  // The last pull's mean element bytes; -1 before the first.
  int64_t element_bytes_ INFLOW_GUARDED_BY(mu_) = -1;
  int64_t chunk_ INFLOW_GUARDED_BY(mu_);  // elements a pull takes
  bool input_end_ INFLOW_GUARDED_BY(mu_) = false;
  bool stopping_ INFLOW_GUARDED_BY(mu_) = false;
  // The consumer's own (Next, Save and Restore come from one thread at a
  // time, the stage's consumer): the chunk it took last and how many of
  // its elements it handed out; not deterministic, the elements handed out
  // while an older one was not; after a restore, the elements handed out
  // before the save, dropped when they come again.
  std::unique_ptr<Chunk> current_;
  size_t handed_in_current_ = 0;
  size_t current_ready_ = 0;  // current_->ready when last looked at
  std::set<int64_t> handed_;
  std::set<int64_t> skip_;
  std::vector<std::unique_ptr<Thread>> threads_;
};

Result<std::unique_ptr<IteratorBase>> ParallelDataset::MakeIteratorImpl(
    const IteratorContext& c) const {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                          input().MakeIterator(c));
  return std::unique_ptr<IteratorBase>(
      std::make_unique<ParallelIterator>(*this, std::move(in), c.pipeline));
}

}  // namespace

DatasetPtr FusePrefetch(const DatasetPtr& input, int64_t elements) {
  const auto* map = dynamic_cast<const ParallelDataset*>(input.get());
  if (map == nullptr || !map->fn_ || !map->status().ok() ||
      (elements < 1 && elements != kAutotune)) {
    return nullptr;
  }
  const bool tune = elements == kAutotune;
  return std::make_shared<ParallelDataset>(
      map->inputs()[0], map->fn_, map->kind(), map->threads_, map->buffer_size_,
      map->deterministic_, OkStatus(), map->prefetched_ + (tune ? 2 : elements),
      map->tune_buffer_ || tune);
}

DatasetPtr MakeParallel(DatasetPtr input, MapFn fn, std::string kind,
                        int threads, int64_t buffer_size, bool deterministic) {
  Status status = OkStatus();
  if (kind == "map" && !fn) status = InvalidArgumentError("no function");
  if ((threads < 1 && threads != kAutotune) ||
      (buffer_size < 1 && buffer_size != kAutotune)) {
    status = InvalidArgumentError("parallelism " + std::to_string(threads) +
                                  " and buffer " + std::to_string(buffer_size) +
                                  " must be >= 1");
  }
  const bool tune = !fn && buffer_size == kAutotune;
  return std::make_shared<ParallelDataset>(
      std::move(input), std::move(fn), std::move(kind), threads, buffer_size,
      deterministic, std::move(status), 0, tune);
}

}  // namespace inflow::data::internal
