// Copyright 2026 The inflow Authors.
//
// The sources: Range, FromTensorSlices, TFRecord. Each one's state is its
// position: the next value, the next row, (file, byte offset).

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "inflow/io/record_reader.h"

#include "core/string_recycler.h"
#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

class RangeDataset final : public DatasetBase {
 public:
  RangeDataset(int64_t start, int64_t stop, int64_t step)
      : DatasetBase("range", {},
                    step == 0 ? InvalidArgumentError("step must not be 0")
                              : OkStatus()),
        start_(start),
        stop_(stop),
        step_(step) {}

  int64_t Cardinality() const override {
    if (step_ > 0)
      return std::max<int64_t>(0, (stop_ - start_ + step_ - 1) / step_);
    if (step_ < 0)
      return std::max<int64_t>(0, (start_ - stop_ - step_ - 1) / -step_);
    return 0;
  }

  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext&) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this));
  }

 private:
  class It final : public PositionIterator {
   public:
    explicit It(const RangeDataset& d)
        : PositionIterator(d, d.Cardinality()), d_(d) {}
    Result<std::optional<Tuple>> Next(const CallOptions&) override {
      if (i_ >= n_) return std::optional<Tuple>();
      return std::optional<Tuple>(
          Tuple{Tensor::Scalar<int64_t>(d_.start_ + i_++ * d_.step_)});
    }

   private:
    const RangeDataset& d_;
  };

  const int64_t start_, stop_, step_;
};

Status CheckSlices(const Tuple& components) {
  if (components.empty()) {
    return InvalidArgumentError("from_tensor_slices needs a component");
  }
  for (size_t c = 0; c < components.size(); ++c) {
    const Tensor& t = components[c];
    if (!t.IsInitialized() || t.rank() < 1) {
      return InvalidArgumentError("component " + std::to_string(c) +
                                  " has no first dimension to slice");
    }
    if (t.dim_size(0) != components[0].dim_size(0)) {
      return InvalidArgumentError("component " + std::to_string(c) + " has " +
                                  std::to_string(t.dim_size(0)) +
                                  " rows, component 0 " +
                                  std::to_string(components[0].dim_size(0)));
    }
  }
  return OkStatus();
}

class TensorSlicesDataset final : public DatasetBase {
 public:
  explicit TensorSlicesDataset(Tuple components)
      : DatasetBase("from_tensor_slices", {}, CheckSlices(components)),
        components_(std::move(components)) {}

  int64_t Cardinality() const override {
    return status().ok() ? components_[0].dim_size(0) : 0;
  }

  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext&) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this));
  }

 private:
  class It final : public PositionIterator {
   public:
    explicit It(const TensorSlicesDataset& d)
        : PositionIterator(d, d.Cardinality()), d_(d) {}
    Result<std::optional<Tuple>> Next(const CallOptions&) override {
      if (i_ >= n_) return std::optional<Tuple>();
      Tuple row;
      row.reserve(d_.components_.size());
      for (const Tensor& t : d_.components_) row.push_back(t.SubTensor(i_));
      ++i_;
      return std::optional<Tuple>(std::move(row));
    }

   private:
    const TensorSlicesDataset& d_;
  };

  const Tuple components_;
};

class TFRecordDataset final : public DatasetBase {
 public:
  TFRecordDataset(std::vector<std::string> files, TFRecordOptions options)
      : DatasetBase("tfrecord", {},
                    files.empty() ? InvalidArgumentError("no files")
                    : options.num_parallel_reads < 1
                        ? InvalidArgumentError(
                              "num_parallel_reads " +
                              std::to_string(options.num_parallel_reads) +
                              " is not >= 1 or kAutotune")
                        : OkStatus()),
        files_(std::move(files)),
        options_(options) {}

  int64_t Cardinality() const override { return kUnknown; }
  bool ScalarStrings() const override { return true; }

  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext&) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this));
  }

 private:
  class It final : public IteratorBase {
   public:
    explicit It(const TFRecordDataset& d) : d_(d) {}

    Result<std::optional<Tuple>> Next(const CallOptions&) override {
      INFLOW_ASSIGN_OR_RETURN(std::optional<std::string_view> record,
                              NextRecord());
      if (!record) return std::optional<Tuple>();
      return std::optional<Tuple>(
          Tuple{Tensor::Scalar(inflow::internal::RecycledString(*record))});
    }

    Result<bool> NextString(const CallOptions&, std::string* out) override {
      INFLOW_ASSIGN_OR_RETURN(std::optional<std::string_view> record,
                              NextRecord());
      if (!record) return false;
      inflow::internal::AssignRecycled(out, *record);
      return true;
    }

    Status Save(StateWriter& w) override {
      w.Tag("tfrecord");
      w.Int(static_cast<int64_t>(file_));
      w.Int(reader_ == nullptr ? 0 : static_cast<int64_t>(reader_->offset()));
      return OkStatus();
    }

    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("tfrecord"));
      INFLOW_ASSIGN_OR_RETURN(
          int64_t file,
          r.IntIn("file", 0, static_cast<int64_t>(d_.files_.size())));
      INFLOW_ASSIGN_OR_RETURN(int64_t offset, r.IntIn("offset", 0, INT64_MAX));
      reader_.reset();
      file_ = static_cast<size_t>(file);
      if (file_ < d_.files_.size() && offset > 0) {
        INFLOW_RETURN_IF_ERROR(Open(static_cast<uint64_t>(offset)));
      }
      return OkStatus();
    }

   private:
    // The next record's bytes (valid until the next call); nullopt after
    // the last file.
    Result<std::optional<std::string_view>> NextRecord() {
      while (file_ < d_.files_.size()) {
        if (reader_ == nullptr) INFLOW_RETURN_IF_ERROR(Open(0));
        Result<std::string_view> record = reader_->Next();
        if (record.ok()) {
          ++records_;
          return std::optional<std::string_view>(*record);
        }
        if (!IsOutOfRange(record.status())) {
          // Returned again by every later call: the reader stays put.
          return record.status().WithContext(d_.label());
        }
        reader_.reset();
        ++file_;
      }
      return std::optional<std::string_view>();
    }

    Status Open(uint64_t offset) {
      Env& env = d_.options_.env != nullptr ? *d_.options_.env : Env::Default();
      RecordReaderOptions o;
      o.compression = d_.options_.compression;
      o.buffer_size = d_.options_.buffer_size;
      Result<std::unique_ptr<RecordReader>> reader =
          RecordReader::Open(env, d_.files_[file_], o);
      if (!reader.ok()) return reader.status().WithContext(d_.label());
      if (offset > 0) {
        Status s = (*reader)->Seek(offset);
        if (!s.ok()) return s.WithContext(d_.label());
      }
      reader_ = std::move(reader).value();
      return OkStatus();
    }

    const TFRecordDataset& d_;
    size_t file_ = 0;
    std::unique_ptr<RecordReader> reader_;
    int64_t records_ = 0;
  };

  const std::vector<std::string> files_;
  const TFRecordOptions options_;
};

}  // namespace

DatasetPtr MakeRange(int64_t start, int64_t stop, int64_t step) {
  return std::make_shared<RangeDataset>(start, stop, step);
}

DatasetPtr MakeTensorSlices(Tuple components) {
  return std::make_shared<TensorSlicesDataset>(std::move(components));
}

DatasetPtr MakeTFRecord(std::vector<std::string> files,
                        TFRecordOptions options) {
  return std::make_shared<TFRecordDataset>(std::move(files), options);
}

}  // namespace inflow::data::internal
