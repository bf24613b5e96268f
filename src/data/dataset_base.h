// Copyright 2026 The inflow Authors.
//
// The internals of data/dataset.h: every stage is a DatasetBase (immutable,
// shared by the Datasets built on it) that makes IteratorBases. An
// iterator's state is written with StateWriter as a stream of tagged
// fields: each stage writes its tag, its counters and then its input's
// state, so that Restore finds a stage of another kind at once (the bytes
// of another pipeline) and a damaged stream is INVALID_ARGUMENT, never a
// crash. The format is docs/formats.md's "Dataset iterator state".

#ifndef INFLOW_SRC_DATA_DATASET_BASE_H_
#define INFLOW_SRC_DATA_DATASET_BASE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/data/dataset.h"
#include "inflow/threads/thread.h"

namespace inflow::data::internal {

// Base-128 varints (the state's and the cache file's numbers).
void PutVarint(std::string& out, uint64_t v);
// The varint at in[*pos], *pos moved past it; false when it runs off the
// end or past 64 bits.
bool GetVarint(std::string_view in, size_t* pos, uint64_t* v);

class StateWriter {
 public:
  // The start of a stage's fields.
  void Tag(std::string_view stage);
  void Int(int64_t value);  // zigzag varint
  void Bytes(std::string_view bytes);
  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view in) : in_(in) {}
  // INVALID_ARGUMENT unless the next field is the tag of `stage`.
  [[nodiscard]] Status Tag(std::string_view stage);
  [[nodiscard]] Result<int64_t> Int();
  // A view into the reader's input.
  [[nodiscard]] Result<std::string_view> Bytes();
  // An Int in [lo, hi], or INVALID_ARGUMENT naming `what`.
  [[nodiscard]] Result<int64_t> IntIn(std::string_view what, int64_t lo,
                                      int64_t hi);
  bool done() const { return pos_ == in_.size(); }
  size_t position() const { return pos_; }

 private:
  Status Damaged(std::string_view what) const;
  std::string_view in_;
  size_t pos_ = 0;
};

class Pipeline;

struct IteratorContext {
  // The pass over this stage's input (Repeat's epoch), for Shuffle's
  // reshuffle_each_iteration.
  int64_t iteration = 0;
  // The Iterator's counters, budget and autotuner (stats.cc); null for
  // the datasets a FlatMap or Interleave makes per element (their time is
  // that stage's) and for iterators made outside an Iterator.
  Pipeline* pipeline = nullptr;
};

// One stage's counters in one Iterator (Iterator::Stats). Written by the
// threads that run the stage, read by Stats() from any thread.
struct StageCounters {
  std::atomic<int64_t> elements{0};
  std::atomic<int64_t> calls{0};  // Next calls
  // The calls timed (the first ones, then one in kSampleEvery, and those
  // within a timed call of a later stage) and their own time: in Next,
  // less their inputs'.
  std::atomic<int64_t> sampled_calls{0};
  std::atomic<int64_t> sampled_ticks{0};  // stats.cc's Ticks()
  // A stage with threads: their time computing (a map's function), and
  // their time pulling the input or computing (not waiting).
  std::atomic<int64_t> own_ns{0};
  std::atomic<int64_t> busy_ns{0};
  std::atomic<int> threads{0};
  std::atomic<bool> autotuned{false};
  std::atomic<int64_t> buffer_size{0};
  std::atomic<int64_t> fill_samples{0};
  std::atomic<int64_t> fill_permille{0};  // summed over the samples
};

// An autotuned parallel stage, told its share of the thread budget.
class Tunable {
 public:
  virtual ~Tunable() = default;
  virtual void SetActiveThreads(int n) = 0;
  virtual StageCounters& counters() = 0;
};

// A row of a batched element that an iterator holds: row `row` of each
// component of *batch (along its first dimension), or, with row -1, the
// components of *batch themselves. Valid until the next call of the
// iterator that gave it. `owned`: the iterator never reads the row again
// and no other tensor shares its storage, so that a consumer may move its
// strings out instead of copying them (CopyRow does).
struct RowRef {
  const Tuple* batch = nullptr;
  int64_t row = -1;
  bool owned = false;
};

// Whether no tensor but `t`'s own shares the storage of its string
// components: a RowRef of them may be `owned`.
bool StringsUnshared(const Tuple& t);

class IteratorBase {
 public:
  virtual ~IteratorBase() = default;
  // The next element; nullopt at the end.
  [[nodiscard]] virtual Result<std::optional<Tuple>> Next(
      const CallOptions& options) = 0;
  [[nodiscard]] virtual Status Save(StateWriter& w) = 0;
  // On an iterator made by the same DatasetBase with the same context.
  [[nodiscard]] virtual Status Restore(StateReader& r) = 0;
  // The records' path, for iterators whose dataset's ScalarStrings() is
  // true: the next element's one string, in *out (whose storage it may
  // reuse), with no Tuple or Tensor made for it; false at the end. The
  // same elements, errors and states as Next(). This default takes
  // Next()'s element.
  [[nodiscard]] virtual Result<bool> NextString(const CallOptions& options,
                                                std::string* out);
  // The rows' path, for iterators whose dataset's Rows() is true: the
  // next element as a row the iterator holds (*out), with no Tuple or
  // Tensor made for it; false at the end. The same elements, errors and
  // states as Next(). This default holds Next()'s element.
  [[nodiscard]] virtual Result<bool> NextRow(const CallOptions& options,
                                             RowRef* out);

 private:
  Tuple row_;  // the default NextRow's element
};

// The rows' path's helpers (rows.cc). Whether `r` has `like`'s components
// (one or more), dtypes and row shapes (like's component shapes less their
// first dimension when `batched`).
bool SameRowLayout(const RowRef& r, const Tuple& like, bool batched);
// Copies r's components into row `at` of `to`'s (the whole of each with
// at -1); `to` has r's layout (SameRowLayout) and owns its storage. The
// strings of an owned row are moved, leaving it empty strings.
void CopyRow(const RowRef& r, Tuple& to, int64_t at);
// `rows` (tensors of [n, ...]) made `capacity` rows long, their first
// `filled` moved into the new tensors.
void GrowRows(Tuple& rows, int64_t filled, int64_t capacity);
// The row in tensors of its own: `rows` of it stacked ([rows, ...], its
// storage uninitialized) or, with rows -1, a copy of it.
Tuple NewRows(const RowRef& r, int64_t rows);

class DatasetBase {
 public:
  // `kind`: "map", "batch", ...; `inputs`: the stages it reads.
  DatasetBase(std::string kind,
              std::vector<std::shared_ptr<const DatasetBase>> inputs,
              Status status = OkStatus());
  virtual ~DatasetBase() = default;
  DatasetBase(const DatasetBase&) = delete;
  DatasetBase& operator=(const DatasetBase&) = delete;

  const std::string& kind() const { return kind_; }
  // "map (stage 3)": the stage's kind and its place from the source (0).
  const std::string& label() const { return label_; }
  // This stage's bad argument, else its inputs'.
  const Status& status() const { return status_; }
  const std::vector<std::shared_ptr<const DatasetBase>>& inputs() const {
    return inputs_;
  }
  virtual int64_t Cardinality() const = 0;
  // MakeIteratorImpl's iterator, counted in context.pipeline's stats.
  [[nodiscard]] Result<std::unique_ptr<IteratorBase>> MakeIterator(
      const IteratorContext& context) const;
  // The pipeline's options set here (WithOptions' stage), else null.
  virtual const Options* options() const { return nullptr; }
  // Whether every element is one scalar string (a record or a line):
  // then a Shuffle or Batch over it moves strings (NextString).
  virtual bool ScalarStrings() const { return false; }
  // Whether its iterators give rows that they hold (NextRow: Unbatch, a
  // Shuffle over it): then a Shuffle or Batch over it copies each row once
  // into its own storage instead of moving a Tuple of tensors per element.
  virtual bool Rows() const { return false; }

 protected:
  [[nodiscard]] virtual Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext& context) const = 0;

  // Input 0 (most stages have one).
  const DatasetBase& input() const { return *inputs_[0]; }

 private:
  const std::string kind_;
  const std::vector<std::shared_ptr<const DatasetBase>> inputs_;
  int depth_ = 0;  // 0 for a source, else 1 + the deepest input's
  std::string label_;
  Status status_;
};

// A source's iterator whose state is one position in [0, n]: Range,
// FromTensorSlices, ListFiles.
class PositionIterator : public IteratorBase {
 public:
  Status Save(StateWriter& w) override {
    w.Tag(stage_.kind());
    w.Int(i_);
    return OkStatus();
  }
  Status Restore(StateReader& r) override;

 protected:
  PositionIterator(const DatasetBase& stage, int64_t n)
      : stage_(stage), n_(n) {}
  const DatasetBase& stage_;
  const int64_t n_;
  int64_t i_ = 0;
};

using DatasetPtr = std::shared_ptr<const DatasetBase>;

// What the stages of one Iterator share (stats.cc): each stage's counters,
// the thread and memory budgets, and the autotuner, which gives the
// kAutotune maps their shares of the threads from the work each did.
class Pipeline {
 public:
  // The resolved options of the pipeline ending at `top`.
  explicit Pipeline(const DatasetBase& top);
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  StageCounters& For(const DatasetBase& stage) INFLOW_EXCLUDES(mu_);
  int thread_budget() const { return thread_budget_; }
  int64_t ram_budget() const { return ram_budget_; }
  bool autotune() const { return autotune_; }

  void Add(Tunable* t) INFLOW_EXCLUDES(mu_);
  void Remove(Tunable* t) INFLOW_EXCLUDES(mu_);
  // Gives the tunables their shares when kTunePeriod has passed since
  // the last time (called by Iterator::Next now and then).
  void MaybeTune() INFLOW_EXCLUDES(mu_);
  void Tune() INFLOW_EXCLUDES(mu_);

  IteratorStats Stats() const INFLOW_EXCLUDES(mu_);

  static constexpr auto kTunePeriod = std::chrono::milliseconds(50);
  // A stage's first kTimedFirst Next calls are timed, then one in
  // kSampleEvery (two clock reads: tens of nanoseconds).
  static constexpr int64_t kTimedFirst = 256;
  static constexpr int kSampleEvery = 64;

 private:
  struct Stage {
    const DatasetBase* stage;
    std::unique_ptr<StageCounters> counters;
  };
  // The work (busy_ns) a stage with threads did since the last turn.
  double WorkSinceLastTune(const StageCounters& c) INFLOW_REQUIRES(mu_);
  // The counters of `d` (of its input, for an options stage); null when
  // it has not run.
  const StageCounters* Find(const DatasetBase* d) const INFLOW_REQUIRES(mu_);
  const DatasetBase& top_;
  int thread_budget_;
  int64_t ram_budget_;
  bool autotune_;
  const std::chrono::steady_clock::time_point start_;
  const int64_t start_ticks_;
  mutable Mutex mu_;
  std::vector<Stage> stages_ INFLOW_GUARDED_BY(mu_);
  std::vector<Tunable*> tunables_ INFLOW_GUARDED_BY(mu_);
  std::chrono::steady_clock::time_point last_tune_ INFLOW_GUARDED_BY(mu_);
  // busy_ns of each stage with threads at the last tune.
  std::vector<std::pair<const StageCounters*, int64_t>> marks_
      INFLOW_GUARDED_BY(mu_);
};

// The options set along the pipeline ending at `top` (the outermost
// WithOptions' fields first).
Options PipelineOptions(const DatasetBase& top);
DatasetPtr MakeOptions(DatasetPtr input, Options options);
int HardwareThreads();

// The stages (sources.cc, transforms.cc, shuffle.cc, parallel.cc).
DatasetPtr MakeRange(int64_t start, int64_t stop, int64_t step);
DatasetPtr MakeTensorSlices(Tuple components);
DatasetPtr MakeTFRecord(std::vector<std::string> files,
                        TFRecordOptions options);
DatasetPtr MakeZip(std::vector<DatasetPtr> inputs);
DatasetPtr MakeMap(DatasetPtr input, MapFn fn);
DatasetPtr MakeFilter(DatasetPtr input, PredicateFn fn);
// threads > 1 (or kAutotune): the rows gathered in order and stacked on
// that many threads (a "batch_gather" stage and a parallel "batch").
DatasetPtr MakeBatch(DatasetPtr input, int64_t batch_size, bool drop_remainder,
                     int threads = 0);
DatasetPtr MakeShuffle(DatasetPtr input, int64_t buffer_size,
                       std::optional<int64_t> seed, bool reshuffle);
DatasetPtr MakeRepeat(DatasetPtr input, int64_t count);
DatasetPtr MakeTake(DatasetPtr input, int64_t count);
DatasetPtr MakeSkip(DatasetPtr input, int64_t count);
DatasetPtr MakeShard(DatasetPtr input, int64_t num_shards, int64_t index);
DatasetPtr MakeEnumerate(DatasetPtr input, int64_t start);
DatasetPtr MakeConcatenate(DatasetPtr first, DatasetPtr second);
// Batch's iterator (its state too) with `combine` putting each batch's
// rows together; `status`: a bad argument of the caller's.
using RowsFn = std::function<Result<Tuple>(std::vector<Tuple>)>;
DatasetPtr MakeRowsBatch(DatasetPtr input, std::string kind, int64_t batch_size,
                         bool drop_remainder, RowsFn combine,
                         Status status = OkStatus());
DatasetPtr MakeRaggedBatch(DatasetPtr input, int64_t batch_size,
                           bool drop_remainder);
DatasetPtr MakeSparseBatch(DatasetPtr input, int64_t batch_size,
                           std::vector<int64_t> row_shape);
DatasetPtr MakePaddedBatch(DatasetPtr input, int64_t batch_size,
                           PaddedBatchOptions options);
DatasetPtr MakeInterleave(DatasetPtr input, DatasetFn fn, int64_t cycle,
                          int64_t block, int threads, bool deterministic);
DatasetPtr MakeFlatMap(DatasetPtr input, DatasetFn fn);
DatasetPtr MakeUnbatch(DatasetPtr input);
// TFRecord read by record number (options.index or shuffle_records).
DatasetPtr MakeIndexedTFRecord(std::vector<std::string> files,
                               TFRecordOptions options);
// `input` sharded by reading only the shard's records, when `input` reads
// records by number (else null).
DatasetPtr ShardIndexed(const DatasetPtr& input, int64_t num_shards,
                        int64_t index);
DatasetPtr MakeTextLine(std::vector<std::string> files,
                        TFRecordOptions options);
DatasetPtr MakeFixedLength(std::vector<std::string> files, int64_t record,
                           int64_t header, int64_t footer,
                           TFRecordOptions options);
DatasetPtr MakeListFiles(std::vector<std::string> patterns, bool shuffle,
                         std::optional<int64_t> seed, Env* env);
DatasetPtr MakeCache(DatasetPtr input, std::string filename, Env* env);
DatasetPtr MakeGenerator(std::function<Result<Generator>()> make);
// The stage under a Dataset (for the stages that take Datasets from a
// function: FlatMap, Interleave).
DatasetPtr BaseOf(const Dataset& d);
// fn null: a prefetch (the work is pulling the input).
// threads kAutotune: the autotuner's share of the budget; buffer_size
// kAutotune (a prefetch): 2 chunks, grown while the consumer waits.
DatasetPtr MakeParallel(DatasetPtr input, MapFn fn, std::string kind,
                        int threads, int64_t buffer_size, bool deterministic);
// A parallel map `input` with room for `elements` more computed ahead, as
// a Prefetch(elements) after it would hold (without the prefetch's thread
// and its hand-off per element; kAutotune: 2, grown as a prefetch's);
// null when `input` is no parallel map.
DatasetPtr FusePrefetch(const DatasetPtr& input, int64_t elements);

// `seed`, or a random one when it has none.
int64_t SeedOrRandom(std::optional<int64_t> seed);

// SplitMix64's finalizer: seeds of generators from (seed, pass).
inline uint64_t MixSeed(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Restores `it` from `state`, a stage's saved state of its input (a
// nested stream, without the leading tag): all of it, or
// INVALID_ARGUMENT naming `stage`.
[[nodiscard]] Status RestoreFrom(IteratorBase& it, std::string_view state,
                                 const DatasetBase& stage);
// The element `it` gives at `state` (restored as RestoreFrom does):
// pulled again; INVALID_ARGUMENT naming `stage` when the input ends there.
[[nodiscard]] Result<Tuple> ElementAt(IteratorBase& it, std::string_view state,
                                      const DatasetBase& stage);

// Starts `n` threads "inflow-data-<kind>-<i>" running work(stop, i), into
// *threads; a failure to start one is returned naming the stage, with
// the threads started so far in *threads (for the caller to stop).
[[nodiscard]] Status StartStageThreads(
    const DatasetBase& stage, int n,
    const std::function<void(std::stop_token, int)>& work,
    std::vector<std::unique_ptr<Thread>>* threads);

// "stage: element k: " context for an error of a stage's k-th element.
Status ElementError(const Status& s, const DatasetBase& stage, int64_t k);

}  // namespace inflow::data::internal

#endif  // INFLOW_SRC_DATA_DATASET_BASE_H_
