// Copyright 2026 The inflow Authors.
//
// Iterator::Stats and the autotuner. Every stage's iterator is wrapped in
// a TimedIterator that counts its elements and times its first
// Pipeline::kTimedFirst Next calls and then one in Pipeline::kSampleEvery,
// and every call its inputs make within a timed one on the same thread: a timed
// call's own time is its time less its inputs' timed calls within it, so a
// stage's own time is the mean of its timed calls' times its calls (two clock
// reads per timed call: a few nanoseconds an element). A stage with threads of
// its own counts their computing time (a parallel map's function) instead; its
// consumer's wait for them is no one's work.
//
// The autotuner runs from Iterator::Next at most every kTunePeriod. The
// budget is Options::thread_budget threads; the stages with threads of a
// fixed count use what their busy time says they do, and the kAutotune
// maps share the rest (at least one each) in proportion to the work each
// did since the last turn. A map's threads beyond its share wait, so the
// stages never compute on more threads than the budget.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

using Clock = std::chrono::steady_clock;

// The time of the timed calls, in ticks: the CPU's cycle counter where
// there is one (rdtsc: a few nanoseconds, no clock read; a timed batch of
// 128 records times its 128 inputs' calls too), else nanoseconds.
// Pipeline::Stats() converts them at the rate it measures over its life.
inline int64_t Ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return static_cast<int64_t>(__rdtsc());
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
#endif
}

// The timed call this thread is in (its inputs' time within it).
struct Frame {
  int64_t inputs_ticks = 0;
};
thread_local Frame* tls_frame = nullptr;

int64_t NanosSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t)
      .count();
}

class TimedIterator final : public IteratorBase {
 public:
  TimedIterator(std::unique_ptr<IteratorBase> in, StageCounters& counters)
      : in_(std::move(in)), c_(counters) {}
  ~TimedIterator() override { Flush(); }

  Result<std::optional<Tuple>> Next(const CallOptions& o) override {
    return Counted([&] { return in_->Next(o); });
  }
  Result<bool> NextString(const CallOptions& o, std::string* out) override {
    return Counted([&] { return in_->NextString(o, out); });
  }
  Result<bool> NextRow(const CallOptions& o, RowRef* out) override {
    return Counted([&] { return in_->NextRow(o, out); });
  }
  Status Save(StateWriter& w) override { return in_->Save(w); }
  Status Restore(StateReader& r) override { return in_->Restore(r); }

 private:
  // The scope of a timed call: its own time into the counters, its whole
  // time into the caller's timed call (if any).
  class Timed {
   public:
    explicit Timed(TimedIterator& it)
        : it_(it), parent_(tls_frame), start_(Ticks()) {
      tls_frame = &frame_;
    }
    ~Timed() {
      const int64_t ticks = Ticks() - start_;
      if (++it_.timed_ == Pipeline::kTimedFirst) {
        it_.every_ = Pipeline::kSampleEvery;
      }
      tls_frame = parent_;
      if (parent_ != nullptr) parent_->inputs_ticks += ticks;
      it_.c_.sampled_ticks.fetch_add(ticks - frame_.inputs_ticks,
                                     std::memory_order_relaxed);
      it_.c_.sampled_calls.fetch_add(1, std::memory_order_relaxed);
      it_.Flush();
    }

   private:
    TimedIterator& it_;
    Frame frame_;
    Frame* const parent_;
    const int64_t start_;
  };
  // Whether a call gave an element.
  static bool Got(const Result<std::optional<Tuple>>& e) {
    return e.ok() && e->has_value();
  }
  static bool Got(const Result<bool>& got) { return got.ok() && *got; }
  // A call of the input (Next, NextString, NextRow), counted and timed.
  template <typename Call>
  auto Counted(Call call) -> decltype(call()) {
    if (++calls_ < every_ && tls_frame == nullptr) {
      auto got = call();
      if (Got(got)) {
        ++elements_;
      } else {
        Flush();  // exact counts at the end
      }
      return got;
    }
    Timed timed(*this);
    auto got = call();
    if (Got(got)) ++elements_;
    return got;
  }
  void Flush() {
    c_.calls.fetch_add(calls_, std::memory_order_relaxed);
    c_.elements.fetch_add(elements_, std::memory_order_relaxed);
    calls_ = 0;
    elements_ = 0;
  }

  std::unique_ptr<IteratorBase> in_;
  StageCounters& c_;
  int calls_ = 0;
  int64_t elements_ = 0;
  // Every call is timed at first, then one in kSampleEvery.
  int every_ = 1;
  int64_t timed_ = 0;
};

// WithOptions: no stage of its own; its iterator is its input's.
class OptionsDataset final : public DatasetBase {
 public:
  OptionsDataset(DatasetPtr input, Options options, Status status)
      : DatasetBase("options", {std::move(input)}, std::move(status)),
        options_(options) {}
  int64_t Cardinality() const override { return input().Cardinality(); }
  bool ScalarStrings() const override { return input().ScalarStrings(); }
  bool Rows() const override { return input().Rows(); }
  const Options* options() const override { return &options_; }

 protected:
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext& c) const override {
    return input().MakeIterator(c);
  }

 private:
  const Options options_;
};

// Every stage of the pipeline ending at `top`, each once, inputs first.
void Stages(const DatasetBase* d, std::set<const DatasetBase*>& seen,
            std::vector<const DatasetBase*>& out) {
  if (!seen.insert(d).second) return;
  for (const DatasetPtr& in : d->inputs()) Stages(in.get(), seen, out);
  out.push_back(d);
}

int64_t PhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page
                               : int64_t{1} << 32;
}

}  // namespace

int HardwareThreads() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

Result<std::unique_ptr<IteratorBase>> DatasetBase::MakeIterator(
    const IteratorContext& context) const {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                          MakeIteratorImpl(context));
  if (context.pipeline == nullptr || options() != nullptr) return it;
  return std::unique_ptr<IteratorBase>(std::make_unique<TimedIterator>(
      std::move(it), context.pipeline->For(*this)));
}

Options PipelineOptions(const DatasetBase& top) {
  std::set<const DatasetBase*> seen;
  std::vector<const DatasetBase*> stages;
  Stages(&top, seen, stages);
  Options out;
  // Inputs first: a later (outer) WithOptions sets over an earlier one.
  for (const DatasetBase* d : stages) {
    const Options* o = d->options();
    if (o == nullptr) continue;
    if (o->thread_budget) out.thread_budget = o->thread_budget;
    if (o->ram_budget) out.ram_budget = o->ram_budget;
    if (o->autotune) out.autotune = o->autotune;
  }
  return out;
}

DatasetPtr MakeOptions(DatasetPtr input, Options options) {
  Status s = OkStatus();
  if (options.thread_budget && *options.thread_budget < 1) {
    s = InvalidArgumentError("thread_budget " +
                             std::to_string(*options.thread_budget) +
                             " is not >= 1");
  }
  if (options.ram_budget && *options.ram_budget < 1) {
    s = InvalidArgumentError(
        "ram_budget " + std::to_string(*options.ram_budget) + " is not >= 1");
  }
  return std::make_shared<OptionsDataset>(std::move(input), options,
                                          std::move(s));
}

Pipeline::Pipeline(const DatasetBase& top)
    : top_(top),
      start_(Clock::now()),
      start_ticks_(Ticks()),
      last_tune_(start_) {
  const Options o = PipelineOptions(top);
  thread_budget_ = o.thread_budget.value_or(HardwareThreads());
  ram_budget_ = o.ram_budget.value_or(PhysicalMemory() / 8);
  autotune_ = o.autotune.value_or(true);
}

StageCounters& Pipeline::For(const DatasetBase& stage) {
  MutexLock l(&mu_);
  for (Stage& s : stages_) {
    if (s.stage == &stage) return *s.counters;
  }
  stages_.push_back({&stage, std::make_unique<StageCounters>()});
  return *stages_.back().counters;
}

void Pipeline::Add(Tunable* t) {
  {
    MutexLock l(&mu_);
    tunables_.push_back(t);
  }
  Tune();  // its first share: the others' measured, or an even split
}

void Pipeline::Remove(Tunable* t) {
  MutexLock l(&mu_);
  tunables_.erase(std::remove(tunables_.begin(), tunables_.end(), t),
                  tunables_.end());
}

void Pipeline::MaybeTune() {
  {
    MutexLock l(&mu_);
    if (tunables_.empty() || Clock::now() - last_tune_ < kTunePeriod) return;
  }
  Tune();
}

void Pipeline::Tune() {
  MutexLock l(&mu_);
  const Clock::time_point now = Clock::now();
  const double wall_ns = std::max<double>(
      1, std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_tune_)
             .count());
  last_tune_ = now;
  double fixed_threads = 0;
  for (const Stage& s : stages_) {
    const StageCounters& c = *s.counters;
    if (c.threads.load() == 0 || c.autotuned.load()) continue;
    fixed_threads +=
        std::min<double>(c.threads.load(), WorkSinceLastTune(c) / wall_ns);
  }
  if (tunables_.empty()) return;
  const int n = static_cast<int>(tunables_.size());
  const int share = std::max(
      n, thread_budget_ - static_cast<int>(std::ceil(fixed_threads - 0.25)));
  std::vector<double> work(n);
  double total = 0;
  for (int i = 0; i < n; ++i) {
    work[i] = std::max(0.0, WorkSinceLastTune(tunables_[i]->counters()));
    total += work[i];
  }
  // At least one each; the rest in proportion to the work (evenly before
  // any was measured), by largest remainder.
  std::vector<int> threads(n, 1);
  std::vector<std::pair<double, int>> remainders;
  int left = share - n;
  const int spare = left;
  for (int i = 0; i < n; ++i) {
    const double want =
        total > 0 ? spare * work[i] / total : static_cast<double>(spare) / n;
    const int whole = static_cast<int>(want);
    threads[i] += whole;
    left -= whole;
    remainders.emplace_back(want - whole, i);
  }
  std::sort(remainders.rbegin(), remainders.rend());
  for (int k = 0; left > 0 && k < n; ++k, --left) {
    ++threads[remainders[k].second];
  }
  for (int i = 0; i < n; ++i) tunables_[i]->SetActiveThreads(threads[i]);
}

double Pipeline::WorkSinceLastTune(const StageCounters& c) {
  const int64_t busy = c.busy_ns.load(std::memory_order_relaxed);
  for (auto& [counters, mark] : marks_) {
    if (counters == &c) {
      const int64_t d = busy - mark;
      mark = busy;
      return static_cast<double>(d);
    }
  }
  marks_.emplace_back(&c, busy);
  return static_cast<double>(busy);
}

const StageCounters* Pipeline::Find(const DatasetBase* d) const {
  while (d->options() != nullptr) d = d->inputs()[0].get();  // no stage
  for (const Stage& s : stages_) {
    if (s.stage == d) return s.counters.get();
  }
  return nullptr;
}

IteratorStats Pipeline::Stats() const {
  std::set<const DatasetBase*> seen;
  std::vector<const DatasetBase*> order;
  Stages(&top_, seen, order);
  IteratorStats out;
  out.thread_budget = thread_budget_;
  const int64_t wall_ns = NanosSince(start_);
  out.wall_seconds = static_cast<double>(wall_ns) * 1e-9;
  // Ticks per nanosecond over the pipeline's life so far.
  const double rate =
      wall_ns > 1000 ? static_cast<double>(Ticks() - start_ticks_) / wall_ns
                     : 1.0;
  MutexLock l(&mu_);
  // A stage's own time in its Next calls, from the timed ones.
  auto own_ns = [rate](const StageCounters& c) {
    const int64_t sampled = c.sampled_calls.load();
    if (sampled == 0 || rate <= 0) return 0.0;
    return static_cast<double>(c.sampled_ticks.load()) / rate * c.calls.load() /
           sampled;
  };
  double busiest = 0;
  for (const DatasetBase* d : order) {
    if (d->options() != nullptr) continue;
    const StageCounters* c = Find(d);
    if (c == nullptr) continue;  // not run
    StageStats s;
    s.stage = d->label();
    s.elements = c->elements.load();
    s.threads = c->threads.load();
    double own = 0;
    if (s.threads > 0) {
      own = static_cast<double>(c->own_ns.load());
      s.buffer_size = c->buffer_size.load();
      const int64_t samples = c->fill_samples.load();
      if (samples > 0) {
        s.buffer_fill = c->fill_permille.load() / 1000.0 / samples;
      }
    } else {
      own = std::max(0.0, own_ns(*c));
    }
    s.seconds = own * 1e-9;
    if (out.wall_seconds > 0) {
      s.busy = s.seconds / (out.wall_seconds * std::max(1, s.threads));
    }
    if (s.elements > 0 && s.busy > busiest) {
      busiest = s.busy;
      out.bottleneck = s.stage;
    }
    out.threads += s.threads;
    out.stages.push_back(std::move(s));
  }
  return out;
}

}  // namespace inflow::data::internal
