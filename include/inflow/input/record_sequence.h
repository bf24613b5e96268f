// Copyright 2026 The inflow Authors.
//
// RecordSequence: batches of TFRecord files by batch number, a Sequence
// (input/sequence.h) an OrderedEnqueuer runs (docs/ARCHITECTURE.md, "input,
// batches by number"). The records of `files`, in order, are numbered 0 .. n-1
// across the files (global positions); batch i holds the records at positions
// [i*b, (i+1)*b) of the epoch's order, read by offset through each file's
// RecordIndex (io/record_index.h) and parsed with ExampleParser::ParseBatch.
//
//   auto seq = RecordSequence::Create({
//       .files = {"train-0.tfrecord", "train-1.tfrecord"},
//       .batch_size = 128,
//       .features = {{"image", FixedLenFeature({784}, DType::kFloat32)},
//                    {"label", FixedLenFeature({}, DType::kInt64)}},
//       .shuffle = true, .seed = 7}).value();
//   for (int epoch = 0; epoch < 10; ++epoch) {
//     for (int64_t i = 0; i < seq->size(); ++i) {
//       Result<Tuple> batch = seq->Get(i, {});  // from any thread
//     }
//     seq->OnEpochEnd();  // the next epoch's order
//   }
//
// Order. Without `shuffle`, the epoch's order is the files' order. With
// it, each epoch is a permutation of all n positions (across files), drawn
// from one generator seeded by `seed` (random when none), so a seed fixes
// every epoch's order; Create draws epoch 0's, each OnEpochEnd() the next.
//
// The last batch. With n % b != 0 the last batch is short (n % b records;
// size() is ceil(n / b)), as a Keras Sequence's; with `drop_remainder` it
// is dropped (size() is floor(n / b)), and with shuffling the records
// dropped differ from epoch to epoch.
//
// A batch is a Tuple with one component per feature, in the order of
// `features` (names()): FixedLenFeature [m] + shape, FixedLenSequenceFeature
// [m, longest] + shape, VarLenFeature a SparseTensor as three tensors in
// its place (sparse(): indices int64 [k, 2], values [k], dense_shape int64
// [2]), as ParseBatch gives them, m the batch's records. Without
// `features`, the records themselves: string [m] named "value".
//
// Reads go by offset (pread, io/indexed_record_file.h) with no shared
// cursor: runs of consecutive records of one file are read with one read
// each, into a buffer of the call's own. Errors name the record, not the
// batch (an enqueuer adds "batch i: "): DATA_LOSS for a damaged record
// (file and offset), INVALID_ARGUMENT for a record that does not parse
// ("record FILE at offset 1041: ..."), OUT_OF_RANGE for i outside
// [0, size()), CANCELLED when options.stop is requested (checked before
// each read). options.timeout is not used: a read waits for nothing but
// the disk.
//
// Thread-safe: Get() may run on any number of threads at once. An
// OnEpochEnd() concurrent with Get() calls makes each of them use either
// epoch's order; callers that need one epoch's batches exactly (an
// enqueuer) call it when no Get() is in flight.

#ifndef INFLOW_INPUT_RECORD_SEQUENCE_H_
#define INFLOW_INPUT_RECORD_SEQUENCE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/sequence.h"
#include "inflow/io/env.h"
#include "inflow/io/indexed_record_file.h"
#include "inflow/io/record_index.h"

namespace inflow {

namespace internal {
class EpochShuffle;
}  // namespace internal

struct RecordSequenceOptions {
  // Plain TFRecord files, read in this order; names, not patterns (a
  // pattern such as train-* would also match the FILE.index files).
  std::vector<std::string> files;
  int64_t batch_size = 32;  // >= 1
  // Parsed with ExampleParser; empty: the records themselves.
  FeatureSpecs features = {};
  // A new order of all records each epoch.
  bool shuffle = false;
  std::optional<int64_t> seed = std::nullopt;
  // Drop the last batch when it would be short.
  bool drop_remainder = false;
  // Batch i is part `slice` of `num_slices` equal parts of the batch_size
  // records (a short last batch: parts as equal as can be): one
  // data-parallel rank's rows of a global batch, the others' parts read
  // by the other ranks. batch_size must be a multiple of num_slices.
  int num_slices = 1;
  int slice = 0;
  // How each file's index is found (io/record_index.h): by default a fresh
  // FILE.index is used and a missing or stale one is built in memory.
  RecordIndexMode index_mode = RecordIndexMode::kRead;
  // nullptr: Env::Default().
  Env* env = nullptr;
};

class RecordSequence final : public Sequence {
 public:
  // Opens every file and loads (or builds) its index, one file after the
  // other. INVALID_ARGUMENT for no files, batch_size < 1, bad features, or
  // more than 2^31 - 2 records with `shuffle`; the errors of
  // IndexedRecordFile::Open, with the file named.
  static Result<std::unique_ptr<RecordSequence>> Create(
      RecordSequenceOptions options);
  ~RecordSequence();
  RecordSequence(const RecordSequence&) = delete;
  RecordSequence& operator=(const RecordSequence&) = delete;

  // Batches per epoch (both overloads: Sequence's size() is not const).
  int64_t size() const { return num_batches_; }
  int64_t size() override { return num_batches_; }
  // Batch i of the current epoch.
  [[nodiscard]] Result<Tuple> Get(int64_t i,
                                  const CallOptions& options) override;
  // Ends the epoch: with `shuffle`, the next epoch's order.
  void OnEpochEnd() override INFLOW_EXCLUDES(mu_);

  // Records in all files.
  int64_t num_records() const { return num_records_; }
  // The global positions of batch i's records in the current epoch's
  // order (empty for i outside [0, size())).
  std::vector<int64_t> BatchPositions(int64_t i) const INFLOW_EXCLUDES(mu_);
  // Epochs ended so far (OnEpochEnd calls).
  int64_t epoch() const INFLOW_EXCLUDES(mu_);

  // One per component: its name (the feature's key, or "value") and
  // whether it is a SparseTensor (three tensors in the Tuple).
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<bool>& sparse() const { return sparse_; }
  const std::vector<std::string>& files() const { return options_.files; }

 private:
  RecordSequence(RecordSequenceOptions options,
                 std::optional<ExampleParser> parser);
  // The epoch's order: nullptr when it is the files' order.
  std::shared_ptr<const std::vector<int64_t>> Order() const
      INFLOW_EXCLUDES(mu_);
  Result<Tuple> Parse(const std::vector<int64_t>& positions,
                      const std::vector<std::string_view>& records) const;

  const RecordSequenceOptions options_;
  const std::optional<ExampleParser> parser_;
  std::vector<std::string> names_;
  std::vector<bool> sparse_;
  std::vector<std::unique_ptr<IndexedRecordFile>> files_;
  // starts_[f]: the global position of file f's first record; one more
  // entry, num_records_, at the end.
  std::vector<int64_t> starts_;
  int64_t num_records_ = 0;
  int64_t num_batches_ = 0;

  std::unique_ptr<internal::EpochShuffle> shuffle_;
  mutable Mutex mu_;
  std::shared_ptr<const std::vector<int64_t>> order_ INFLOW_GUARDED_BY(mu_);
  int64_t epoch_ INFLOW_GUARDED_BY(mu_) = 0;
};

}  // namespace inflow

#endif  // INFLOW_INPUT_RECORD_SEQUENCE_H_
