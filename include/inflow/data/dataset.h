// Copyright 2026 The inflow Authors.
//
// Dataset: tf.data's model (docs/ARCHITECTURE.md, "data"): an immutable
// description of an input pipeline, a source followed by transformations,
// and Iterators that run it. Elements are Tuples (one tensor per
// component).
//
//   Dataset ds = Dataset::TFRecord({"train-0.tfrecord", "train-1.tfrecord"})
//                    .Map(parse, {.num_parallel_calls = 4})
//                    .Shuffle(10000, /*seed=*/7)
//                    .Batch(128)
//                    .Prefetch(2);
//   Result<Iterator> it = ds.MakeIterator();
//   for (;;) {
//     Result<Tuple> batch = it->Next();
//     if (IsOutOfRange(batch.status())) break;  // the end
//     ...
//   }
//   Result<std::string> position = it->Save();  // a few dozen bytes
//
// Order. Every transformation is deterministic by default: the elements
// and their order do not depend on num_parallel_calls or on the threads'
// timing. MapOptions::deterministic = false lets a finished element pass
// one still being computed.
//
// Checkpoints. Iterator::Save() returns the iterator's position as bytes,
// and Restore() puts an iterator of the same pipeline there: the elements
// after it are those an uninterrupted iterator gives, whatever the
// parallelism. The state holds positions, counters and seeds, never
// elements: a shuffle buffer is refilled on restore by reading its input
// again from the start of its pass (the input must give the same elements
// again: files unchanged, functions deterministic), and an element being
// computed by a parallel map or held by a prefetch buffer is computed again.
//
// Errors name the stage and the element: "map #2 (element 17): <the
// function's error>", a damaged record its file and offset. A bad argument
// (Batch(0), Shard(2, 5), ...) makes a dataset whose status() is
// INVALID_ARGUMENT naming the stage; MakeIterator() returns it.
//
// Thread safety: a Dataset may be shared and used from any thread. An
// Iterator is used by one thread at a time; destroying it stops its
// threads (a running map function is waited for).

#ifndef INFLOW_DATA_DATASET_H_
#define INFLOW_DATA_DATASET_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"
#include "inflow/io/record_index.h"
#include "inflow/io/record_reader.h"

namespace inflow::data {

// Cardinality() of an endless dataset, and of one whose count is not known
// without running it (after Filter, say).
inline constexpr int64_t kInfinite = -1;
inline constexpr int64_t kUnknown = -2;
// num_parallel_calls: chosen while it runs, within the pipeline's thread
// budget (Options); Prefetch: a buffer that grows while its consumer
// waits, within the memory budget.
inline constexpr int kAutotune = -1;

class Dataset;
namespace internal {
class DatasetBase;
class IteratorBase;
class Pipeline;
std::shared_ptr<const DatasetBase> BaseOf(const Dataset& d);
}  // namespace internal

using MapFn = std::function<Result<Tuple>(Tuple)>;
using PredicateFn = std::function<Result<bool>(const Tuple&)>;

struct MapOptions {
  // Elements computed at once, each on a thread of the map's own; 0 or 1:
  // in the caller's thread, one at a time. kAutotune: a share of the
  // pipeline's thread budget, retuned from the stages' measured work.
  int num_parallel_calls = 0;
  // false: an element finished early is handed out before one started
  // earlier (the order then depends on timing).
  bool deterministic = true;
};

struct InterleaveOptions {
  // Input elements whose datasets are read at once, in turn; 0: the
  // hardware threads (tf.data's AUTOTUNE default).
  int64_t cycle_length = 0;
  // Elements taken from one before moving to the next.
  int64_t block_length = 1;
  // > 1: that many threads read the open datasets ahead (kAutotune: up to
  // cycle_length, the hardware threads); the same elements in the same
  // order (and the same checkpoints) as reading them in turn.
  int num_parallel_calls = 0;
  // false: when the dataset whose turn it is has nothing ready, an element
  // another one has is handed out first.
  bool deterministic = true;
};

struct PaddedBatchOptions {
  // Per component: the padded shape, -1 for "the batch's largest" in a
  // dimension; empty: every dimension the batch's largest.
  std::vector<std::vector<int64_t>> padded_shapes = {};
  // Per component, a scalar of its dtype; empty: zeros and "".
  Tuple padding_values = {};
  bool drop_remainder = false;
};

struct TFRecordOptions {
  CompressionType compression = CompressionType::kNone;
  size_t buffer_size = 256 << 10;
  Env* env = nullptr;  // nullptr: Env::Default()
  // TFRecord only: > 1 reads that many files at once and hands out their
  // records in turn, one each (tf.data's order: the interleave of the
  // files with cycle_length num_parallel_reads, block_length 1; a file
  // that ends gives its place to the next one); kAutotune: the hardware
  // threads. 1: the files one after another. The reads take turns on the
  // consumer's thread: a parallel interleave of records costs more in
  // hand-offs than it gains (docs/PERFORMANCE.md, "Datasets").
  int num_parallel_reads = 1;
  // TFRecord only. Set: each record is read by its number, through each
  // file's record index (io/record_index.h; this mode says whether
  // FILE.index is used, written or required), from plain files only: a
  // Shard reads only its own records, and a restore seeks at once.
  std::optional<RecordIndexMode> index = std::nullopt;
  // TFRecord only, read by index (kRead when `index` is not set): every
  // record of every file once per pass, in an order drawn from `seed`
  // (random when none) and, with reshuffle_each_iteration, the pass. The
  // order is computed per position: no buffer, and no memory per record.
  bool shuffle_records = false;
  std::optional<int64_t> seed = std::nullopt;
  bool reshuffle_each_iteration = true;
};

// Options of a whole pipeline (tf.data's Options): WithOptions anywhere in
// it; a later WithOptions sets what it sets over an earlier one's.
struct Options {
  // The threads its stages may keep busy at once: kAutotune maps share
  // what the other stages' threads leave (at least one each). Unset: the
  // machine's hardware threads.
  std::optional<int> thread_budget = std::nullopt;
  // The bytes kAutotune prefetch buffers may hold. Unset: an eighth of the
  // machine's memory.
  std::optional<int64_t> ram_budget = std::nullopt;
  // false: kAutotune is fixed (the hardware threads for a map, 2 for a
  // prefetch), and nothing is retuned while it runs.
  std::optional<bool> autotune = std::nullopt;
};

// Iterator::Stats(): what each stage did since the iterator started.
struct StageStats {
  std::string stage;  // "map (stage 3)"
  // Elements it handed out (while it runs, up to 63 behind: its counts
  // are published every few dozen calls, and at its end).
  int64_t elements = 0;
  // Its own work: a map's function time on its threads, or a stage's time
  // in Next beyond its inputs' (measured on a sample of the calls).
  double seconds = 0;
  // seconds over the wall time times its threads (1 when it has none):
  // 1 means saturated.
  double busy = 0;
  // Threads of its own that may compute (an autotuned map's share); 0: it
  // runs on its consumer's thread.
  int threads = 0;
  // Chunks it may hold computed ahead (a parallel map's or prefetch's
  // buffer; autotuned: its current size), and how full it was on average
  // when its consumer took from it (0 to 1).
  int64_t buffer_size = 0;
  double buffer_fill = 0;
};

struct IteratorStats {
  std::vector<StageStats> stages;  // the source first
  // The stage with the highest `busy`: the one to give more threads (or
  // make cheaper); empty before any element.
  std::string bottleneck;
  double wall_seconds = 0;
  int thread_budget = 0;
  // Threads the stages may compute on now (their `threads`, summed).
  int threads = 0;
};

class Iterator;
class Dataset;

using DatasetFn = std::function<Result<Dataset>(Tuple)>;
// A generator: the next element, nullopt at its end.
using Generator = std::function<Result<std::optional<Tuple>>()>;

// Copies are cheap and share the pipeline.
class Dataset {
 public:
  // The integers start, start + step, ... before stop (step != 0).
  static Dataset Range(int64_t start, int64_t stop, int64_t step = 1);
  static Dataset Range(int64_t stop) { return Range(0, stop); }
  // Element i: row i of each component (all of the same first dimension).
  static Dataset FromTensorSlices(Tuple components);
  // The records of `files`, in order (options.num_parallel_reads: in
  // turn; options.shuffle_records: shuffled over all files): elements
  // {string scalar}.
  static Dataset TFRecord(std::vector<std::string> files,
                          TFRecordOptions options = {});
  // Element i of each, as one Tuple (their components in order); as many
  // elements as the shortest has.
  static Dataset Zip(std::vector<Dataset> datasets);
  // The lines of text `files` (without "\n" or "\r\n"): string scalars.
  static Dataset TextLine(std::vector<std::string> files,
                          TFRecordOptions options = {});
  // Each file's bytes after header_bytes and before footer_bytes, in
  // records of record_bytes: string scalars.
  static Dataset FixedLengthRecord(std::vector<std::string> files,
                                   int64_t record_bytes,
                                   int64_t header_bytes = 0,
                                   int64_t footer_bytes = 0,
                                   TFRecordOptions options = {});
  // The names matching `patterns` (io/glob.h), sorted, each once; with
  // `shuffle`, in an order drawn from `seed` (random when none) each pass.
  static Dataset ListFiles(std::vector<std::string> patterns,
                           bool shuffle = false,
                           std::optional<int64_t> seed = {},
                           Env* env = nullptr);
  // make() is called at the start of each pass for a generator whose
  // elements the dataset gives. A restore makes a new generator and skips
  // the elements already handed out (they are made again).
  static Dataset FromGenerator(std::function<Result<Generator>()> make);

  // The elements of fn(element)'s dataset, for each element in turn.
  Dataset FlatMap(DatasetFn fn) const;
  // tf.data's interleave: cycle_length of the fn(element) datasets open at
  // once, block_length elements from each in turn; an exhausted one's
  // place goes to the next input element when the cycle comes back to it.
  Dataset Interleave(DatasetFn fn, InterleaveOptions options = {}) const;
  // Each element's components split along their first dimension (all of
  // the same size) into that many elements.
  Dataset Unbatch() const;
  // tf.data's ragged_batch: batch_size elements whose first dimension
  // varies, each component as two tensors: its rows concatenated
  // (values) and int64 row_splits [rows + 1] (row i is values[splits[i]:
  // splits[i+1]]); a scalar component as its values stacked and an empty
  // row_splits. Dimensions after the first must agree.
  Dataset RaggedBatch(int64_t batch_size, bool drop_remainder = false) const;
  // tf.data's sparse_batch: batch_size elements of one component, of rank
  // row_shape.size(), as a sparse tensor {indices int64 [n, rank + 1],
  // values [n], dense_shape int64 [rows, row_shape...]} (a -1 in row_shape:
  // the batch's largest); an element larger than row_shape is TF's
  // DATA_LOSS.
  Dataset SparseBatch(int64_t batch_size, std::vector<int64_t> row_shape) const;
  // Batch padding each component to the padded shape.
  Dataset PaddedBatch(int64_t batch_size,
                      PaddedBatchOptions options = {}) const;
  // fn(element). num_parallel_calls > 1 runs it on that many threads.
  Dataset Map(MapFn fn, MapOptions options = {}) const;
  // The elements for which fn is true.
  Dataset Filter(PredicateFn fn) const;
  // Each component of batch_size consecutive elements stacked on a new
  // first dimension; the last batch short unless drop_remainder.
  // num_parallel_calls > 1 (or kAutotune): the elements are gathered in
  // order and the batches stacked on that many threads (the same batches).
  Dataset Batch(int64_t batch_size, bool drop_remainder = false,
                int num_parallel_calls = 0) const;
  // A buffer of buffer_size elements, each output drawn from it at random
  // and replaced by the next input. reshuffle_each_iteration: each pass
  // (each Repeat epoch) in a new order; seed nullopt: a random seed, drawn
  // once for this Dataset.
  Dataset Shuffle(int64_t buffer_size, std::optional<int64_t> seed = {},
                  bool reshuffle_each_iteration = true) const;
  // The input count times (kInfinite: without end).
  Dataset Repeat(int64_t count = kInfinite) const;
  Dataset Take(int64_t count) const;  // count < 0: all
  Dataset Skip(int64_t count) const;  // count < 0: all
  // Elements index, index + num_shards, ... Of a TFRecord read by index
  // (TFRecordOptions::index), one stage that reads only those records.
  Dataset Shard(int64_t num_shards, int64_t index) const;
  // {int64 scalar position (from start), the element's components...}.
  Dataset Enumerate(int64_t start = 0) const;
  // This dataset's elements, then other's (of the same structure).
  Dataset Concatenate(const Dataset& other) const;
  // A thread that computes up to buffer_size elements ahead (kAutotune:
  // 2 at first, doubled while its consumer finds it empty, up to 64 and
  // the memory budget). After a Map with num_parallel_calls > 1 it is fused
  // into the map, whose buffer holds buffer_size more elements (no thread of
  // its own, no hand-off per element; the same elements in the same order, and
  // its state is the map's).
  Dataset Prefetch(int64_t buffer_size) const;

  // tf.data's cache: the first pass that reads the input to its end keeps
  // its elements, and later passes (a Repeat's epochs, new iterators of
  // this Dataset) read them instead of the input. `filename` empty: kept
  // in memory, by this Dataset. Else in that file (docs/formats.md,
  // "Dataset cache file"), written under a temporary name and renamed at
  // the pass's end: an iterator that finds the file reads it, and never
  // its input, also in another process. A pass that stops early keeps
  // nothing.
  Dataset Cache(std::string filename = {}, Env* env = nullptr) const;

  // This dataset with `options` for its whole pipeline (set fields over
  // those of an earlier WithOptions).
  Dataset WithOptions(const Options& options) const;
  // The pipeline's options: those set by WithOptions along it.
  Options options() const;

  // Elements in the dataset, kInfinite or kUnknown.
  int64_t Cardinality() const;
  // OK, or the error of a bad argument of some stage.
  Status status() const;
  // The stages from the source to this one, e.g. "tfrecord -> map ->
  // batch".
  std::string DebugString() const;

  // A new iterator at the first element; the status() of a bad dataset.
  [[nodiscard]] Result<Iterator> MakeIterator() const;

 private:
  friend std::shared_ptr<const internal::DatasetBase> internal::BaseOf(
      const Dataset& d);
  explicit Dataset(std::shared_ptr<const internal::DatasetBase> base)
      : base_(std::move(base)) {}
  std::shared_ptr<const internal::DatasetBase> base_;
};

class Iterator {
 public:
  Iterator(Iterator&&) noexcept;
  Iterator& operator=(Iterator&&) noexcept;
  ~Iterator();

  // The next element; OUT_OF_RANGE at the end, and on every call after it.
  // An error of a stage is returned once, and the iterator goes on after
  // the element that failed. options.stop cancels a wait (CANCELLED).
  [[nodiscard]] Result<Tuple> Next(const CallOptions& options = {});
  // The position: bytes for Restore().
  [[nodiscard]] Result<std::string> Save();
  // Each stage's elements, time, threads and buffer since this iterator
  // started, and the bottleneck. Safe to call from another thread while
  // Next runs.
  IteratorStats Stats() const;
  // Moves to a position Save() gave on an iterator of the same pipeline.
  // INVALID_ARGUMENT for the bytes of another pipeline or damaged bytes
  // (they carry a checksum); the iterator is then back at its start.
  [[nodiscard]] Status Restore(std::string_view state);

 private:
  friend class Dataset;
  Iterator(std::shared_ptr<const internal::DatasetBase> dataset,
           std::shared_ptr<internal::Pipeline> pipeline,
           std::unique_ptr<internal::IteratorBase> impl);
  std::shared_ptr<const internal::DatasetBase> dataset_;
  // Shared by the stages' iterators: destroyed after them.
  std::shared_ptr<internal::Pipeline> pipeline_;
  std::unique_ptr<internal::IteratorBase> impl_;
  uint32_t calls_ = 0;  // Next calls, for the autotuner's turns
};

}  // namespace inflow::data

#endif  // INFLOW_DATA_DATASET_H_
