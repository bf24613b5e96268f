// Copyright 2026 The inflow Authors.

#include "inflow/input/record_sequence.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "input/epoch_shuffle.h"
#include "input/seeds.h"

namespace inflow {

namespace {

// Consecutive records of one file: read with one read.
struct Run {
  size_t file;
  int64_t first;
  int64_t count;
};

}  // namespace

RecordSequence::RecordSequence(RecordSequenceOptions options,
                               std::optional<ExampleParser> parser)
    : options_(std::move(options)), parser_(std::move(parser)) {}

RecordSequence::~RecordSequence() = default;

Result<std::unique_ptr<RecordSequence>> RecordSequence::Create(
    RecordSequenceOptions options) {
  if (options.files.empty()) {
    return InvalidArgumentError("RecordSequence: no files");
  }
  if (options.batch_size < 1) {
    return InvalidArgumentError(
        "RecordSequence: batch_size must be >= 1, got " +
        std::to_string(options.batch_size));
  }
  if (options.num_slices < 1 || options.slice < 0 ||
      options.slice >= options.num_slices ||
      options.batch_size % options.num_slices != 0) {
    return InvalidArgumentError(
        "RecordSequence: slice " + std::to_string(options.slice) + " of " +
        std::to_string(options.num_slices) + " of batches of " +
        std::to_string(options.batch_size) +
        " (batch_size must be a multiple of num_slices)");
  }
  std::optional<ExampleParser> parser;
  if (!options.features.empty()) {
    INFLOW_ASSIGN_OR_RETURN(parser, ExampleParser::Create(options.features));
  }
  Env& env = options.env != nullptr ? *options.env : Env::Default();
  std::unique_ptr<RecordSequence> seq(
      new RecordSequence(std::move(options), std::move(parser)));
  const RecordSequenceOptions& o = seq->options_;
  for (const auto& [key, spec] : o.features) {
    seq->names_.push_back(key);
    seq->sparse_.push_back(std::holds_alternative<VarLenFeature>(spec));
  }
  if (o.features.empty()) {
    seq->names_ = {"value"};
    seq->sparse_ = {false};
  }
  for (const std::string& path : o.files) {
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<IndexedRecordFile> file,
                            IndexedRecordFile::Open(env, path, o.index_mode));
    seq->starts_.push_back(seq->num_records_);
    seq->num_records_ += file->size();
    seq->files_.push_back(std::move(file));
  }
  seq->starts_.push_back(seq->num_records_);
  const int64_t n = seq->num_records_;
  const int64_t b = o.batch_size;
  seq->num_batches_ = o.drop_remainder ? n / b : n / b + (n % b != 0);
  if (o.shuffle) {
    if (n > internal::EpochShuffle::kMaxRows) {
      return InvalidArgumentError(
          "RecordSequence: shuffling " + std::to_string(n) +
          " records; at most " +
          std::to_string(internal::EpochShuffle::kMaxRows) + " can be");
    }
    // The op-seed rule of the input producers (input/seeds.h): a seed
    // fixes every epoch's order, none draws a random generator.
    seq->shuffle_ = std::make_unique<internal::EpochShuffle>(
        internal::TfSeeds(std::nullopt, o.seed));
    MutexLock lock(&seq->mu_);
    seq->order_ = std::make_shared<const std::vector<int64_t>>(
        seq->shuffle_->NextPermutation(n));
  }
  return seq;
}

void RecordSequence::OnEpochEnd() {
  MutexLock lock(&mu_);
  ++epoch_;
  // Drawn under the lock, so that racing calls still give epoch k the k-th
  // permutation.
  if (shuffle_ != nullptr) {
    order_ = std::make_shared<const std::vector<int64_t>>(
        shuffle_->NextPermutation(num_records_));
  }
}

int64_t RecordSequence::epoch() const {
  MutexLock lock(&mu_);
  return epoch_;
}

std::shared_ptr<const std::vector<int64_t>> RecordSequence::Order() const {
  MutexLock lock(&mu_);
  return order_;
}

std::vector<int64_t> RecordSequence::BatchPositions(int64_t i) const {
  if (i < 0 || i >= num_batches_) return {};
  const int64_t first = i * options_.batch_size;
  const int64_t length =
      std::min(first + options_.batch_size, num_records_) - first;
  const int64_t begin = first + length * options_.slice / options_.num_slices;
  const int64_t end =
      first + length * (options_.slice + 1) / options_.num_slices;
  const std::shared_ptr<const std::vector<int64_t>> order = Order();
  std::vector<int64_t> positions;
  positions.reserve(static_cast<size_t>(end - begin));
  for (int64_t k = begin; k < end; ++k) {
    positions.push_back(order ? (*order)[static_cast<size_t>(k)] : k);
  }
  return positions;
}

Result<Tuple> RecordSequence::Get(int64_t i, const CallOptions& options) {
  if (options.stop.stop_requested()) {
    return CancelledError("RecordSequence::Get: stop requested");
  }
  if (i < 0 || i >= num_batches_) {
    return OutOfRangeError("batch " + std::to_string(i) + " of a sequence of " +
                           std::to_string(num_batches_) + " batches");
  }
  const std::vector<int64_t> positions = BatchPositions(i);
  std::vector<Run> runs;
  for (int64_t p : positions) {
    const size_t f = static_cast<size_t>(
        std::upper_bound(starts_.begin(), starts_.end(), p) - starts_.begin() -
        1);
    const int64_t j = p - starts_[f];
    if (!runs.empty() && runs.back().file == f &&
        runs.back().first + runs.back().count == j) {
      ++runs.back().count;
    } else {
      runs.push_back({f, j, 1});
    }
  }
  uint64_t total = 0;
  for (const Run& run : runs) {
    total += files_[run.file]->index().FramedBytes(run.first, run.count);
  }
  // The records' bytes, this call's own: the parse copies what it keeps.
  const std::unique_ptr<char[]> buffer =
      std::make_unique_for_overwrite<char[]>(total);
  std::vector<std::string_view> records;
  records.reserve(positions.size());
  uint64_t at = 0;
  for (const Run& run : runs) {
    if (options.stop.stop_requested()) {
      return CancelledError("RecordSequence::Get: stop requested");
    }
    const IndexedRecordFile& file = *files_[run.file];
    INFLOW_RETURN_IF_ERROR(
        file.ReadRange(run.first, run.count, buffer.get() + at, &records));
    at += file.index().FramedBytes(run.first, run.count);
  }
  return Parse(positions, records);
}

Result<Tuple> RecordSequence::Parse(
    const std::vector<int64_t>& positions,
    const std::vector<std::string_view>& records) const {
  if (!parser_) {
    Tensor values(DType::kString,
                  TensorShape({static_cast<int64_t>(records.size())}));
    std::span<std::string> out = *values.mutable_flat<std::string>();
    for (size_t k = 0; k < records.size(); ++k) out[k] = records[k];
    return Tuple{std::move(values)};
  }
  Result<ParsedFeatures> parsed =
      parser_->ParseBatch(std::span<const std::string_view>(records));
  if (!parsed.ok()) {
    // Name the record: the first that does not parse on its own.
    for (size_t k = 0; k < records.size(); ++k) {
      Result<ParsedFeatures> one = parser_->ParseSingle(records[k]);
      if (one.ok()) continue;
      const int64_t p = positions[k];
      const size_t f = static_cast<size_t>(
          std::upper_bound(starts_.begin(), starts_.end(), p) -
          starts_.begin() - 1);
      const IndexedRecordFile& file = *files_[f];
      return one.status().WithContext(
          "record " + file.filename() + " at offset " +
          std::to_string(file.index().offset(p - starts_[f])));
    }
    return parsed.status();
  }
  Tuple out;
  size_t dense = 0;
  size_t sparse = 0;
  for (bool is_sparse : sparse_) {
    if (is_sparse) {
      SparseTensor& s = parsed->sparse[sparse++];
      out.push_back(std::move(s.indices));
      out.push_back(std::move(s.values));
      out.push_back(std::move(s.dense_shape));
    } else {
      out.push_back(std::move(parsed->dense[dense++]));
    }
  }
  return out;
}

}  // namespace inflow
