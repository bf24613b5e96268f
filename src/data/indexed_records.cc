// Copyright 2026 The inflow Authors.
//
// TFRecord by record number (TFRecordOptions::index or shuffle_records):
// each file's RecordIndex (io/record_index.h) places every record, so the
// source reads records by position with positioned reads. The element at
// position p of a pass is record order(stride * p + offset) of all files'
// records counted in order, where order is the identity or, with
// shuffle_records, a pseudo-random permutation of them drawn from the seed
// and the pass; Shard composes into (stride, offset), so a shard reads
// only its own records. The state is p: a restore seeks at once.
//
// The permutation is computed per position (a Feistel network over the
// next power of four above the count, walked until it lands below it):
// no table, no memory per record, the same order for the same seed.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/io/indexed_record_file.h"
#include "inflow/io/record_index.h"

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

using ItPtr = std::unique_ptr<IteratorBase>;

// The opened files and where each one's records start in the count.
struct Files {
  std::vector<std::unique_ptr<IndexedRecordFile>> files;
  std::vector<int64_t> starts;  // files.size() + 1 entries
  int64_t records() const { return starts.back(); }
};

// A bijection of [0, n) drawn from `key`.
class Permutation {
 public:
  Permutation(uint64_t n, uint64_t key) : n_(n) {
    int bits = 2;
    while (bits < 64 && (uint64_t{1} << bits) < n) bits += 2;
    half_ = bits / 2;
    mask_ = (uint64_t{1} << half_) - 1;
    for (int r = 0; r < kRounds; ++r) keys_[r] = MixSeed(key + r);
  }
  uint64_t operator()(uint64_t x) const {
    do {
      x = Encrypt(x);
    } while (x >= n_);
    return x;
  }

 private:
  static constexpr int kRounds = 4;
  uint64_t Encrypt(uint64_t x) const {
    uint64_t left = x >> half_;
    uint64_t right = x & mask_;
    for (int r = 0; r < kRounds; ++r) {
      const uint64_t f = MixSeed(right ^ keys_[r]) & mask_;
      const uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    return (left << half_) | right;
  }
  uint64_t n_;
  int half_ = 1;
  uint64_t mask_ = 1;
  uint64_t keys_[kRounds] = {};
};

class IndexedTFRecordDataset final : public DatasetBase {
 public:
  IndexedTFRecordDataset(std::vector<std::string> files,
                         TFRecordOptions options, int64_t seed, int64_t stride,
                         int64_t offset)
      : DatasetBase("tfrecord", {}, Check(files, options)),
        files_(std::move(files)),
        options_(options),
        seed_(seed),
        stride_(stride),
        offset_(offset) {}

  // This source's records offset, offset + stride, ... of this one's
  // (Shard(num_shards, index) is (num_shards, index)).
  DatasetPtr Sharded(int64_t num_shards, int64_t index) const {
    return std::make_shared<IndexedTFRecordDataset>(files_, options_, seed_,
                                                    stride_ * num_shards,
                                                    offset_ + index * stride_);
  }

  int64_t Cardinality() const override {
    Result<std::shared_ptr<const Files>> f = Open();
    return f.ok() ? Count((*f)->records()) : kUnknown;
  }
  bool ScalarStrings() const override { return true; }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return ItPtr(std::make_unique<It>(*this, c));
  }

 private:
  static Status Check(const std::vector<std::string>& files,
                      const TFRecordOptions& o) {
    if (files.empty()) return InvalidArgumentError("no files");
    if (o.compression != CompressionType::kNone) {
      return InvalidArgumentError(
          "records are read by index from plain files only (an offset into "
          "a compressed stream needs everything before it inflated)");
    }
    if (o.num_parallel_reads != 1) {
      return InvalidArgumentError(
          "num_parallel_reads " + std::to_string(o.num_parallel_reads) +
          " with records read by index (their order is their positions')");
    }
    return OkStatus();
  }

  // Positions in a pass over `records`.
  int64_t Count(int64_t records) const {
    return records > offset_ ? (records - offset_ + stride_ - 1) / stride_ : 0;
  }

  // The files with their indexes, opened once for every iterator.
  Result<std::shared_ptr<const Files>> Open() const INFLOW_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (opened_ != nullptr) return opened_;
    auto f = std::make_shared<Files>();
    f->starts.push_back(0);
    Env& env = options_.env != nullptr ? *options_.env : Env::Default();
    for (const std::string& name : files_) {
      Result<std::unique_ptr<IndexedRecordFile>> file = IndexedRecordFile::Open(
          env, name, options_.index.value_or(RecordIndexMode::kRead));
      if (!file.ok()) return file.status().WithContext(label());
      f->starts.push_back(f->starts.back() + (*file)->size());
      f->files.push_back(std::move(file).value());
    }
    opened_ = std::move(f);
    return opened_;
  }

  class It final : public IteratorBase {
   public:
    It(const IndexedTFRecordDataset& d, const IteratorContext& c)
        : d_(d), pass_(c.iteration) {}

    Result<std::optional<Tuple>> Next(const CallOptions& o) override {
      std::string record;
      INFLOW_ASSIGN_OR_RETURN(bool got, NextString(o, &record));
      if (!got) return std::optional<Tuple>();
      return std::optional<Tuple>(Tuple{Tensor::Scalar(std::move(record))});
    }

    Result<bool> NextString(const CallOptions&, std::string* out) override {
      if (Status s = Ready(); !s.ok()) {
        failed_ = true;  // reported once; then the end
        return s;
      }
      if (p_ >= count_) return false;
      uint64_t r = static_cast<uint64_t>(d_.offset_ + p_ * d_.stride_);
      ++p_;  // a record that fails is passed over after its error
      if (order_) r = (*order_)(r);
      const Files& f = *files_;
      const size_t file = std::upper_bound(f.starts.begin(), f.starts.end(),
                                           static_cast<int64_t>(r)) -
                          f.starts.begin() - 1;
      Result<std::string> record =
          f.files[file]->Read(static_cast<int64_t>(r) - f.starts[file]);
      if (!record.ok()) return record.status().WithContext(d_.label());
      *out = std::move(record).value();
      return true;
    }

    Status Save(StateWriter& w) override {
      w.Tag("tfrecord_indexed");
      w.Int(p_);
      return OkStatus();
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("tfrecord_indexed"));
      INFLOW_RETURN_IF_ERROR(Ready());
      INFLOW_ASSIGN_OR_RETURN(p_, r.IntIn("position", 0, count_));
      return OkStatus();
    }

   private:
    // Opens the files on the first call.
    Status Ready() {
      if (files_ != nullptr || failed_) return OkStatus();
      INFLOW_ASSIGN_OR_RETURN(files_, d_.Open());
      count_ = d_.Count(files_->records());
      if (d_.options_.shuffle_records) {
        const uint64_t pass = d_.options_.reshuffle_each_iteration
                                  ? static_cast<uint64_t>(pass_)
                                  : 0;
        order_.emplace(
            files_->records(),
            MixSeed(static_cast<uint64_t>(d_.seed_) ^ MixSeed(pass)));
      }
      return OkStatus();
    }

    const IndexedTFRecordDataset& d_;
    const int64_t pass_;
    std::shared_ptr<const Files> files_;
    std::optional<Permutation> order_;
    int64_t count_ = 0;
    int64_t p_ = 0;
    bool failed_ = false;  // the files did not open
  };

  const std::vector<std::string> files_;
  const TFRecordOptions options_;
  const int64_t seed_;
  const int64_t stride_;
  const int64_t offset_;
  mutable Mutex mu_;
  mutable std::shared_ptr<const Files> opened_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace

DatasetPtr MakeIndexedTFRecord(std::vector<std::string> files,
                               TFRecordOptions options) {
  const int64_t seed = SeedOrRandom(options.seed);
  return std::make_shared<IndexedTFRecordDataset>(std::move(files), options,
                                                  seed, 1, 0);
}

DatasetPtr ShardIndexed(const DatasetPtr& input, int64_t num_shards,
                        int64_t index) {
  const auto* indexed =
      dynamic_cast<const IndexedTFRecordDataset*>(input.get());
  if (indexed == nullptr || !input->status().ok() || num_shards < 1 ||
      index < 0 || index >= num_shards) {
    return nullptr;
  }
  return indexed->Sharded(num_shards, index);
}

}  // namespace inflow::data::internal
