// Copyright 2026 The inflow Authors.
//
// The transformations without threads or buffers: Map (num_parallel_calls
// <= 1), Filter, Batch, Repeat, Take, Skip, Shard, Enumerate, Zip,
// Concatenate. Each one's state is its counters and then its input's.

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max() / 4;

using ItPtr = std::unique_ptr<IteratorBase>;
using Element = std::optional<Tuple>;

// The iterator of a stage whose state is one count (up to `limit`) and
// then its input's: Map, Filter, Take, Skip, Shard, Enumerate.
class CountingIterator : public IteratorBase {
 public:
  Status Save(StateWriter& w) override {
    w.Tag(stage_.kind());
    w.Int(count_);
    return in_->Save(w);
  }
  Status Restore(StateReader& r) override {
    INFLOW_RETURN_IF_ERROR(r.Tag(stage_.kind()));
    INFLOW_ASSIGN_OR_RETURN(count_, r.IntIn("count", 0, limit_));
    return in_->Restore(r);
  }

 protected:
  CountingIterator(const DatasetBase& stage, ItPtr in,
                   int64_t limit = kMaxCount)
      : stage_(stage), in_(std::move(in)), limit_(limit) {}

  const DatasetBase& stage_;
  ItPtr in_;
  const int64_t limit_;
  int64_t count_ = 0;
};

// An `It` of `stage` over a new iterator of its input.
template <typename It, typename Stage>
Result<ItPtr> OverInput(const Stage& stage, const DatasetBase& input,
                        const IteratorContext& c) {
  INFLOW_ASSIGN_OR_RETURN(ItPtr in, input.MakeIterator(c));
  return ItPtr(std::make_unique<It>(stage, std::move(in)));
}

class MapDataset final : public DatasetBase {
 public:
  MapDataset(DatasetPtr input, MapFn fn)
      : DatasetBase("map", {std::move(input)},
                    fn ? OkStatus() : InvalidArgumentError("no function")),
        fn_(std::move(fn)) {}
  int64_t Cardinality() const override { return input().Cardinality(); }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return OverInput<It>(*this, input(), c);
  }

 private:
  class It final : public CountingIterator {
   public:
    It(const MapDataset& d, ItPtr in)
        : CountingIterator(d, std::move(in)), d_(d) {}
    Result<Element> Next(const CallOptions& o) override {
      INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
      if (!e) return Element();
      const int64_t k = count_++;
      Result<Tuple> out = d_.fn_(std::move(*e));
      if (!out.ok()) return ElementError(out.status(), d_, k);
      return Element(std::move(out).value());
    }

   private:
    const MapDataset& d_;
  };
  const MapFn fn_;
};

class FilterDataset final : public DatasetBase {
 public:
  FilterDataset(DatasetPtr input, PredicateFn fn)
      : DatasetBase("filter", {std::move(input)},
                    fn ? OkStatus() : InvalidArgumentError("no predicate")),
        fn_(std::move(fn)) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    return c == 0 || c == kInfinite ? c : kUnknown;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return OverInput<It>(*this, input(), c);
  }

 private:
  class It final : public CountingIterator {
   public:
    It(const FilterDataset& d, ItPtr in)
        : CountingIterator(d, std::move(in)), d_(d) {}
    Result<Element> Next(const CallOptions& o) override {
      for (;;) {
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (!e) return Element();
        const int64_t k = count_++;
        Result<bool> keep = d_.fn_(*e);
        if (!keep.ok()) return ElementError(keep.status(), d_, k);
        if (*keep) return e;
      }
    }

   private:
    const FilterDataset& d_;
  };
  const PredicateFn fn_;
};

// Each row of `column` into a tensor of [rows] + the padded shape (the
// largest row shape, or `spec`'s dimensions where not -1), the rest
// `padding` (a scalar; uninitialized: zeros, "").
Result<Tensor> PadStack(const std::vector<Tensor>& column,
                        const std::vector<int64_t>& spec,
                        const Tensor& padding) {
  const Tensor& first = column[0];
  const int rank = first.rank();
  std::vector<int64_t> dims(rank, 0);
  for (size_t i = 0; i < column.size(); ++i) {
    const Tensor& t = column[i];
    if (t.dtype() != first.dtype() || t.rank() != rank) {
      return InvalidArgumentError("row " + std::to_string(i) +
                                  " differs from row 0 in dtype or rank");
    }
    for (int d = 0; d < rank; ++d) dims[d] = std::max(dims[d], t.dim_size(d));
  }
  if (!spec.empty()) {
    if (static_cast<int>(spec.size()) != rank) {
      return InvalidArgumentError("padded shape of rank " +
                                  std::to_string(spec.size()) +
                                  " for rows of rank " + std::to_string(rank));
    }
    for (int d = 0; d < rank; ++d) {
      if (spec[d] < 0) continue;
      if (spec[d] < dims[d]) {
        return InvalidArgumentError("a row's dimension " + std::to_string(d) +
                                    " is " + std::to_string(dims[d]) +
                                    ", above its padded size " +
                                    std::to_string(spec[d]));
      }
      dims[d] = spec[d];
    }
  }
  if (padding.IsInitialized() &&
      (padding.dtype() != first.dtype() || padding.num_elements() != 1)) {
    return InvalidArgumentError(
        "the padding value is not a scalar of the "
        "component's dtype");
  }
  std::vector<int64_t> out_dims = {static_cast<int64_t>(column.size())};
  out_dims.insert(out_dims.end(), dims.begin(), dims.end());
  INFLOW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(out_dims));
  Tensor out(first.dtype(), shape);  // zeros, ""
  const int64_t row_elems =
      shape.num_elements() / std::max<int64_t>(1, out_dims[0]);
  const bool is_string = first.dtype() == DType::kString;
  // The dtype's size (not row 0's bytes over its elements: an empty row 0
  // would make it 0, and every row would be copied as nothing).
  const size_t elem =
      is_string ? sizeof(std::string) : DTypeSize(first.dtype());
  char* base = static_cast<char*>(out.mutable_raw_data().value());
  // Fill with the padding value.
  if (padding.IsInitialized()) {
    for (int64_t k = 0; k < shape.num_elements(); ++k) {
      if (is_string) {
        reinterpret_cast<std::string*>(base)[k] =
            padding.data<std::string>()[0];
      } else {
        std::memcpy(base + k * elem, padding.raw_data(), elem);
      }
    }
  }
  // Copy each row's runs of its last dimension into place.
  for (size_t i = 0; i < column.size(); ++i) {
    const Tensor& t = column[i];
    const int64_t n = t.num_elements();
    if (n == 0) continue;
    const int64_t last = rank == 0 ? 1 : t.dim_size(rank - 1);
    const char* src = static_cast<const char*>(t.raw_data());
    for (int64_t run = 0; run < n / last; ++run) {
      // The run's index in the row, as an offset into the padded row.
      int64_t rest = run, offset = 0, stride = rank == 0 ? 1 : dims[rank - 1];
      for (int d = rank - 2; d >= 0; --d) {
        offset += (rest % t.dim_size(d)) * stride;
        rest /= t.dim_size(d);
        stride *= dims[d];
      }
      const int64_t at = static_cast<int64_t>(i) * row_elems + offset;
      if (is_string) {
        const std::string* from =
            reinterpret_cast<const std::string*>(src) + run * last;
        std::string* to = reinterpret_cast<std::string*>(base) + at;
        for (int64_t j = 0; j < last; ++j) to[j] = from[j];
      } else {
        std::memcpy(base + at * elem, src + run * last * elem, last * elem);
      }
    }
  }
  return out;
}

// The rows of a batch, stacked per component into `out`; errors name
// `stage` and batch k.
Result<Tuple> StackRows(std::vector<Tuple> rows,
                        const std::optional<PaddedBatchOptions>& padding) {
  const size_t components = rows[0].size();
  Tuple out;
  std::vector<Tensor> column(rows.size());
  for (size_t c = 0; c < components; ++c) {
    for (size_t i = 0; i < rows.size(); ++i) column[i] = std::move(rows[i][c]);
    Result<Tensor> stacked = InternalError("not stacked");
    if (padding) {
      const auto& shapes = padding->padded_shapes;
      const auto& values = padding->padding_values;
      stacked = PadStack(column,
                         c < shapes.size() ? shapes[c] : std::vector<int64_t>{},
                         c < values.size() ? values[c] : Tensor());
    } else {
      // Moves the strings of rows no one else holds (records, mostly).
      stacked = Tensor::StackMove(std::move(column));
      column.assign(rows.size(), Tensor());
    }
    if (!stacked.ok()) {
      return stacked.status().WithContext("component " + std::to_string(c));
    }
    out.push_back(std::move(stacked).value());
  }
  return out;
}

// A gathered batch (BatchDataset with gather): {int64 rows, row 0's
// components, row 1's, ...}, for a parallel stage that stacks it.
Result<Tuple> StackGathered(Tuple gathered) {
  const int64_t n = gathered[0].flat<int64_t>()[0];
  const size_t components = (gathered.size() - 1) / static_cast<size_t>(n);
  std::vector<Tuple> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (size_t c = 0; c < components; ++c) {
      rows[i].push_back(std::move(gathered[1 + i * components + c]));
    }
  }
  return StackRows(std::move(rows), std::nullopt);
}

// A gathered batch: {int64 rows, row 0's components, row 1's, ...}.
Result<Tuple> GatherRows(std::vector<Tuple> rows) {
  Tuple out;
  out.push_back(Tensor::Scalar<int64_t>(rows.size()));
  for (Tuple& row : rows) {
    for (Tensor& t : row) out.push_back(std::move(t));
  }
  return out;
}

Status BatchSizeStatus(int64_t batch_size, Status extra) {
  if (batch_size < 1) {
    return InvalidArgumentError("batch_size " + std::to_string(batch_size) +
                                " is not >= 1");
  }
  return extra;
}

// Asks for the first kAskedBytes of a record that a batch of records took
// from a shuffle buffer, where it went cold: the map that parses the batch
// next (mostly on the same thread) then reads it from the cache
// (docs/PERFORMANCE.md, "Datasets": 13 of 14 alternated pairs of the
// batched form used less CPU per sample with it).
constexpr size_t kAskedBytes = 2048;
void AskForRecord(const std::string& record) {
  const size_t n = std::min(record.size(), kAskedBytes);
  for (size_t at = 0; at < n; at += 64) __builtin_prefetch(record.data() + at);
}

// Batch, PaddedBatch and the batches whose rows a function puts together
// (RowsFn: a parallel batch's gathering, RaggedBatch, SparseBatch).
class BatchDataset final : public DatasetBase {
 public:
  BatchDataset(DatasetPtr input, int64_t batch_size, bool drop_remainder,
               std::optional<PaddedBatchOptions> padding = std::nullopt,
               std::string kind = {}, RowsFn combine = nullptr,
               Status extra = OkStatus())
      : DatasetBase(!kind.empty() ? std::move(kind)
                    : padding     ? "padded_batch"
                                  : "batch",
                    {std::move(input)},
                    BatchSizeStatus(batch_size, std::move(extra))),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        padding_(std::move(padding)),
        combine_(std::move(combine)) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    if (c < 0) return c;
    return drop_remainder_ ? c / batch_size_
                           : (c + batch_size_ - 1) / batch_size_;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    INFLOW_ASSIGN_OR_RETURN(ItPtr in, input().MakeIterator(c));
    return ItPtr(std::make_unique<It>(*this, std::move(in)));
  }

 private:
  class It final : public IteratorBase {
   public:
    It(const BatchDataset& d, ItPtr in)
        : d_(d),
          in_(std::move(in)),
          strings_(!d.padding_ && !d.combine_ && d.input().ScalarStrings()),
          rows_path_(!strings_ && !d.padding_ && !d.combine_ &&
                     d.input().Rows()) {}
    Result<Element> Next(const CallOptions& o) override {
      if (strings_) return NextStrings(o);
      if (rows_path_) return NextRows(o);
      // A batch cut short by a timeout (or another error of the input) is
      // kept and completed by the next call; its input's state from before
      // its first element is what Save writes meanwhile.
      if (rows_.empty()) INFLOW_RETURN_IF_ERROR(SaveStart());
      while (static_cast<int64_t>(rows_.size()) < d_.batch_size_) {
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (!e) break;
        rows_.push_back(std::move(*e));
      }
      return Stacked();
    }
    Status Save(StateWriter& w) override {
      w.Tag(d_.kind());
      w.Int(count_);
      const bool partial = !rows_.empty() || filled_ > 0;
      w.Int(partial ? 1 : 0);
      if (partial) {
        w.Bytes(start_);
        return OkStatus();
      }
      return in_->Save(w);
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag(d_.kind()));
      INFLOW_ASSIGN_OR_RETURN(count_, r.IntIn("count", 0, kMaxCount));
      INFLOW_ASSIGN_OR_RETURN(int64_t partial, r.IntIn("partial", 0, 1));
      rows_.clear();
      filled_ = 0;
      if (partial == 0) return in_->Restore(r);
      INFLOW_ASSIGN_OR_RETURN(std::string_view start, r.Bytes());
      return RestoreFrom(*in_, start, d_);
    }

   private:
    // The batch of rows_ (complete, or the input's last rows), stacked.
    Result<Element> Stacked() {
      std::vector<Tuple> rows = std::move(rows_);
      rows_.clear();
      if (rows.empty()) return Element();
      if (d_.drop_remainder_ &&
          static_cast<int64_t>(rows.size()) < d_.batch_size_) {
        return Element();
      }
      const int64_t k = count_++;
      // Every way of putting the rows together needs them alike in this.
      for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].size() != rows[0].size()) {
          return ElementError(
              InvalidArgumentError(
                  "element " + std::to_string(i) + " of the batch has " +
                  std::to_string(rows[i].size()) + " components, element 0 " +
                  std::to_string(rows[0].size())),
              d_, k);
        }
      }
      Result<Tuple> out = d_.combine_ ? d_.combine_(std::move(rows))
                                      : StackRows(std::move(rows), d_.padding_);
      if (!out.ok()) return ElementError(out.status(), d_, k);
      return Element(std::move(out).value());
    }

    // Over rows (the input's Rows()): each row is copied straight into the
    // batch's tensors, made as the first row's rows. A row of another
    // layout turns the batch's rows into Tuples, which Next's way then
    // stacks (or fails on, with its error). The same batches, errors and
    // states as Next's way.
    Result<Element> NextRows(const CallOptions& o) {
      if (filled_ == 0 && rows_.empty()) INFLOW_RETURN_IF_ERROR(SaveStart());
      RowRef row;
      while (rows_.empty() && filled_ < d_.batch_size_) {
        INFLOW_ASSIGN_OR_RETURN(bool got, in_->NextRow(o, &row));
        if (!got) break;
        if (filled_ == 0 && !SameRowLayout(row, stack_, true)) {
          stack_ = NewRows(row, FirstRows());
        }
        if (!SameRowLayout(row, stack_, true)) {
          for (int64_t i = 0; i < filled_; ++i) {
            rows_.push_back(NewRows(RowRef{&stack_, i}, -1));
          }
          rows_.push_back(NewRows(row, -1));
          filled_ = 0;
          break;
        }
        if (filled_ == stack_[0].dim_size(0)) {
          GrowRows(stack_, filled_, std::min(2 * filled_, d_.batch_size_));
        }
        CopyRow(row, stack_, filled_++);
      }
      if (!rows_.empty()) {
        while (static_cast<int64_t>(rows_.size()) < d_.batch_size_) {
          INFLOW_ASSIGN_OR_RETURN(bool got, in_->NextRow(o, &row));
          if (!got) break;
          rows_.push_back(NewRows(row, -1));
        }
        return Stacked();
      }
      const int64_t n = filled_;
      filled_ = 0;
      if (n == 0 || (d_.drop_remainder_ && n < d_.batch_size_)) {
        return Element();
      }
      ++count_;
      Tuple out = std::move(stack_);
      stack_.clear();
      if (n < out[0].dim_size(0)) {
        for (Tensor& t : out) t = t.Slice(0, n);
      }
      return Element(std::move(out));
    }

    // Over records (the input's ScalarStrings()): each string goes
    // straight into the batch's tensor. The same batches, errors and
    // states as the rows' way.
    Result<Element> NextStrings(const CallOptions& o) {
      if (filled_ == 0) {
        INFLOW_RETURN_IF_ERROR(SaveStart());
        if (!batch_) batch_.emplace(DType::kString, TensorShape({FirstRows()}));
      }
      std::span<std::string> rows = batch_->mutable_flat<std::string>().value();
      while (filled_ < d_.batch_size_) {
        if (filled_ == static_cast<int64_t>(rows.size())) {
          Tuple grown = {std::move(*batch_)};
          GrowRows(grown, filled_, std::min(2 * filled_, d_.batch_size_));
          batch_ = std::move(grown[0]);
          rows = batch_->mutable_flat<std::string>().value();
        }
        INFLOW_ASSIGN_OR_RETURN(bool got, in_->NextString(o, &rows[filled_]));
        if (!got) break;
        AskForRecord(rows[filled_]);
        ++filled_;
      }
      const int64_t n = filled_;
      filled_ = 0;
      if (n == 0 || (d_.drop_remainder_ && n < d_.batch_size_)) {
        return Element();
      }
      ++count_;
      Tensor out = std::move(*batch_);
      batch_.reset();
      if (n < out.dim_size(0)) {
        Tensor last(DType::kString, TensorShape({n}));
        std::span<std::string> to = last.mutable_flat<std::string>().value();
        for (int64_t i = 0; i < n; ++i) to[i] = std::move(rows[i]);
        out = std::move(last);
      }
      return Element(Tuple{std::move(out)});
    }

    // start_ = the input's state now, before a batch's first row.
    Status SaveStart() {
      StateWriter w;
      INFLOW_RETURN_IF_ERROR(in_->Save(w));
      start_ = w.Take();
      return OkStatus();
    }

    // The rows a batch's tensors are made for at first, grown (doubling)
    // as they fill: a batch_size of 10^9 over a small input is its rows.
    int64_t FirstRows() const {
      return std::min<int64_t>(d_.batch_size_, 1024);
    }

    const BatchDataset& d_;
    ItPtr in_;
    const bool strings_;    // the records' way (NextStrings)
    const bool rows_path_;  // the rows' way (NextRows)
    Tuple stack_;           // the rows' way: the batch filling
    int64_t count_ = 0;
    std::vector<Tuple> rows_;      // of a batch not yet complete
    std::optional<Tensor> batch_;  // the records' way: the batch filling
    int64_t filled_ = 0;           // and its rows filled
    std::string start_;  // the input's state before the batch's first row
  };
  const int64_t batch_size_;
  const bool drop_remainder_;
  const std::optional<PaddedBatchOptions> padding_;
  const RowsFn combine_;  // null: stacked (or padded)
};

class RepeatDataset final : public DatasetBase {
 public:
  RepeatDataset(DatasetPtr input, int64_t count)
      : DatasetBase("repeat", {std::move(input)},
                    count >= kInfinite ? OkStatus()
                                       : InvalidArgumentError(
                                             "count " + std::to_string(count) +
                                             " is below -1")),
        count_(count) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    if (count_ == 0 || c == 0) return 0;
    if (count_ == kInfinite || c == kInfinite) return kInfinite;
    if (c == kUnknown) return kUnknown;
    return c * count_;
  }
  bool ScalarStrings() const override { return input().ScalarStrings(); }
  bool Rows() const override { return input().Rows(); }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return ItPtr(std::make_unique<It>(*this, c));
  }

 private:
  class It final : public IteratorBase {
   public:
    It(const RepeatDataset& d, IteratorContext c) : d_(d), context_(c) {}
    Result<Element> Next(const CallOptions& o) override {
      Element e;
      INFLOW_RETURN_IF_ERROR(Advance([&]() -> Result<bool> {
                               INFLOW_ASSIGN_OR_RETURN(e, in_->Next(o));
                               return e.has_value();
                             }).status());
      return e;
    }
    Result<bool> NextString(const CallOptions& o, std::string* out) override {
      return Advance([&] { return in_->NextString(o, out); });
    }
    Result<bool> NextRow(const CallOptions& o, RowRef* out) override {
      return Advance([&] { return in_->NextRow(o, out); });
    }
    Status Save(StateWriter& w) override {
      w.Tag("repeat");
      w.Int(epoch_);
      w.Int(produced_ ? 1 : 0);
      w.Int(in_ != nullptr ? 1 : 0);
      return in_ != nullptr ? in_->Save(w) : OkStatus();
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("repeat"));
      INFLOW_ASSIGN_OR_RETURN(epoch_, r.IntIn("epoch", 0, kMaxCount));
      INFLOW_ASSIGN_OR_RETURN(int64_t produced, r.IntIn("produced", 0, 1));
      INFLOW_ASSIGN_OR_RETURN(int64_t has_input, r.IntIn("input", 0, 1));
      produced_ = produced == 1;
      in_.reset();
      if (has_input == 0) return OkStatus();
      INFLOW_RETURN_IF_ERROR(MakeInput());
      return in_->Restore(r);
    }

   private:
    // Pulls the next element with pull() (true: it gave one), moving on
    // to the next pass at each end; false at the last end.
    template <typename Pull>
    Result<bool> Advance(Pull pull) {
      for (;;) {
        if (d_.count_ != kInfinite && epoch_ >= d_.count_) return false;
        if (in_ == nullptr) INFLOW_RETURN_IF_ERROR(MakeInput());
        INFLOW_ASSIGN_OR_RETURN(bool got, pull());
        if (got) {
          produced_ = true;
          return true;
        }
        // An input that gives nothing ends an endless repeat (as tf.data).
        if (!produced_) return false;
        in_.reset();
        ++epoch_;
        produced_ = false;
      }
    }

    Status MakeInput() {
      IteratorContext c = context_;
      // Wraps (unsigned): nested Repeats give each pass its own number.
      c.iteration = static_cast<int64_t>(
          static_cast<uint64_t>(context_.iteration) * 1000003u +
          static_cast<uint64_t>(epoch_));
      INFLOW_ASSIGN_OR_RETURN(in_, d_.input().MakeIterator(c));
      return OkStatus();
    }
    const RepeatDataset& d_;
    const IteratorContext context_;
    ItPtr in_;
    int64_t epoch_ = 0;
    bool produced_ = false;
  };
  const int64_t count_;
};

// Take (skip = false) and Skip.
class TakeSkipDataset final : public DatasetBase {
 public:
  TakeSkipDataset(DatasetPtr input, int64_t count, bool skip)
      : DatasetBase(skip ? "skip" : "take", {std::move(input)}),
        count_(count < 0 ? kMaxCount : count),
        skip_(skip) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    if (skip_) {
      if (count_ == kMaxCount) return c == kInfinite ? kInfinite : 0;
      return c < 0 ? c : std::max<int64_t>(0, c - count_);
    }
    if (count_ == kMaxCount) return c;
    if (c == kInfinite) return count_;
    return c == kUnknown ? kUnknown : std::min(c, count_);
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return OverInput<It>(*this, input(), c);
  }

 private:
  class It final : public CountingIterator {
   public:
    It(const TakeSkipDataset& d, ItPtr in)
        : CountingIterator(d, std::move(in), d.count_), d_(d) {}
    Result<Element> Next(const CallOptions& o) override {
      if (!d_.skip_) {
        if (count_ >= d_.count_) return Element();
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (e) ++count_;
        return e;
      }
      while (count_ < d_.count_) {
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (!e) return Element();
        ++count_;
      }
      return in_->Next(o);
    }

   private:
    const TakeSkipDataset& d_;
  };
  const int64_t count_;
  const bool skip_;
};

Status CheckShard(int64_t num_shards, int64_t index) {
  if (num_shards < 1) {
    return InvalidArgumentError("num_shards " + std::to_string(num_shards) +
                                " is not >= 1");
  }
  if (index < 0 || index >= num_shards) {
    return InvalidArgumentError("index " + std::to_string(index) +
                                " is outside [0, " +
                                std::to_string(num_shards) + ")");
  }
  return OkStatus();
}

class ShardDataset final : public DatasetBase {
 public:
  ShardDataset(DatasetPtr input, int64_t num_shards, int64_t index)
      : DatasetBase("shard", {std::move(input)}, CheckShard(num_shards, index)),
        n_(num_shards),
        index_(index) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    if (c < 0) return c;
    return c > index_ ? (c - index_ + n_ - 1) / n_ : 0;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return OverInput<It>(*this, input(), c);
  }

 private:
  class It final : public CountingIterator {
   public:
    It(const ShardDataset& d, ItPtr in)
        : CountingIterator(d, std::move(in)), d_(d) {}
    Result<Element> Next(const CallOptions& o) override {
      for (;;) {
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (!e) return Element();
        if (count_++ % d_.n_ == d_.index_) return e;
      }
    }

   private:
    const ShardDataset& d_;
  };
  const int64_t n_, index_;
};

class EnumerateDataset final : public DatasetBase {
 public:
  EnumerateDataset(DatasetPtr input, int64_t start)
      : DatasetBase("enumerate", {std::move(input)}), start_(start) {}
  int64_t Cardinality() const override { return input().Cardinality(); }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return OverInput<It>(*this, input(), c);
  }

 private:
  class It final : public CountingIterator {
   public:
    It(const EnumerateDataset& d, ItPtr in)
        : CountingIterator(d, std::move(in)), d_(d) {}
    Result<Element> Next(const CallOptions& o) override {
      INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
      if (!e) return Element();
      Tuple out;
      out.reserve(e->size() + 1);
      out.push_back(Tensor::Scalar<int64_t>(d_.start_ + count_++));
      for (Tensor& t : *e) out.push_back(std::move(t));
      return Element(std::move(out));
    }

   private:
    const EnumerateDataset& d_;
  };
  const int64_t start_;
};

class ZipDataset final : public DatasetBase {
 public:
  explicit ZipDataset(std::vector<DatasetPtr> inputs)
      : DatasetBase("zip", inputs,
                    inputs.empty() ? InvalidArgumentError("nothing to zip")
                                   : OkStatus()) {}
  int64_t Cardinality() const override {
    int64_t n = kInfinite;
    for (const DatasetPtr& in : inputs()) {
      const int64_t c = in->Cardinality();
      if (c == kUnknown) return kUnknown;
      if (c != kInfinite) n = n == kInfinite ? c : std::min(n, c);
    }
    return n;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    std::vector<ItPtr> ins;
    for (const DatasetPtr& in : inputs()) {
      INFLOW_ASSIGN_OR_RETURN(ItPtr it, in->MakeIterator(c));
      ins.push_back(std::move(it));
    }
    return ItPtr(std::make_unique<It>(*this, std::move(ins)));
  }

 private:
  class It final : public IteratorBase {
   public:
    It(const ZipDataset& d, std::vector<ItPtr> ins)
        : d_(d), ins_(std::move(ins)), starts_(ins_.size()) {}
    // An element whose inputs were cut short by a timeout (or another
    // error) keeps the parts it has; Save then writes, for those inputs,
    // their states from before their part.
    Result<Element> Next(const CallOptions& o) override {
      while (parts_.size() < ins_.size()) {
        const size_t j = parts_.size();
        StateWriter w;
        INFLOW_RETURN_IF_ERROR(ins_[j]->Save(w));
        starts_[j] = w.Take();
        INFLOW_ASSIGN_OR_RETURN(Element e, ins_[j]->Next(o));
        if (!e) {
          parts_.clear();
          return Element();
        }
        parts_.push_back(std::move(*e));
      }
      Tuple out;
      for (Tuple& part : parts_) {
        for (Tensor& t : part) out.push_back(std::move(t));
      }
      parts_.clear();
      return Element(std::move(out));
    }
    Status Save(StateWriter& w) override {
      w.Tag("zip");
      w.Int(static_cast<int64_t>(parts_.size()));
      for (size_t j = 0; j < ins_.size(); ++j) {
        if (j < parts_.size()) {
          w.Bytes(starts_[j]);
        } else {
          INFLOW_RETURN_IF_ERROR(ins_[j]->Save(w));
        }
      }
      return OkStatus();
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("zip"));
      INFLOW_ASSIGN_OR_RETURN(
          int64_t parts,
          r.IntIn("parts", 0, static_cast<int64_t>(ins_.size()) - 1));
      parts_.clear();
      for (size_t j = 0; j < ins_.size(); ++j) {
        if (static_cast<int64_t>(j) < parts) {
          INFLOW_ASSIGN_OR_RETURN(std::string_view start, r.Bytes());
          INFLOW_RETURN_IF_ERROR(RestoreFrom(*ins_[j], start, d_));
        } else {
          INFLOW_RETURN_IF_ERROR(ins_[j]->Restore(r));
        }
      }
      return OkStatus();
    }

   private:
    const ZipDataset& d_;
    std::vector<ItPtr> ins_;
    std::vector<Tuple> parts_;         // of an element not yet complete
    std::vector<std::string> starts_;  // each input's state before its part
  };
};

class ConcatenateDataset final : public DatasetBase {
 public:
  ConcatenateDataset(DatasetPtr first, DatasetPtr second)
      : DatasetBase("concatenate", {std::move(first), std::move(second)}) {}
  int64_t Cardinality() const override {
    const int64_t a = inputs()[0]->Cardinality();
    const int64_t b = inputs()[1]->Cardinality();
    if (a == kInfinite || b == kInfinite) return kInfinite;
    if (a == kUnknown || b == kUnknown) return kUnknown;
    return a + b;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    return ItPtr(std::make_unique<It>(*this, c));
  }

 private:
  class It final : public IteratorBase {
   public:
    It(const ConcatenateDataset& d, IteratorContext c) : d_(d), context_(c) {}
    Result<Element> Next(const CallOptions& o) override {
      while (phase_ < 2) {
        if (in_ == nullptr) INFLOW_RETURN_IF_ERROR(MakeInput());
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (e) return e;
        in_.reset();
        ++phase_;
      }
      return Element();
    }
    Status Save(StateWriter& w) override {
      w.Tag("concatenate");
      w.Int(phase_);
      w.Int(in_ != nullptr ? 1 : 0);
      return in_ != nullptr ? in_->Save(w) : OkStatus();
    }
    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("concatenate"));
      INFLOW_ASSIGN_OR_RETURN(phase_, r.IntIn("phase", 0, 2));
      INFLOW_ASSIGN_OR_RETURN(int64_t has_input, r.IntIn("input", 0, 1));
      in_.reset();
      if (has_input == 0 || phase_ == 2) return OkStatus();
      INFLOW_RETURN_IF_ERROR(MakeInput());
      return in_->Restore(r);
    }

   private:
    Status MakeInput() {
      INFLOW_ASSIGN_OR_RETURN(in_, d_.inputs()[phase_]->MakeIterator(context_));
      return OkStatus();
    }
    const ConcatenateDataset& d_;
    const IteratorContext context_;
    ItPtr in_;
    int64_t phase_ = 0;
  };
};

}  // namespace

DatasetPtr MakeMap(DatasetPtr input, MapFn fn) {
  return std::make_shared<MapDataset>(std::move(input), std::move(fn));
}
DatasetPtr MakeFilter(DatasetPtr input, PredicateFn fn) {
  return std::make_shared<FilterDataset>(std::move(input), std::move(fn));
}
DatasetPtr MakeBatch(DatasetPtr input, int64_t batch_size, bool drop_remainder,
                     int threads) {
  if (threads == 0 || threads == 1) {
    return std::make_shared<BatchDataset>(std::move(input), batch_size,
                                          drop_remainder);
  }
  // The rows gathered in order, stacked on `threads` threads.
  DatasetPtr gathered = MakeRowsBatch(std::move(input), "batch_gather",
                                      batch_size, drop_remainder, GatherRows);
  return MakeParallel(std::move(gathered), StackGathered, "batch", threads,
                      threads == kAutotune ? kAutotune : 2 * threads, true);
}
DatasetPtr MakeRowsBatch(DatasetPtr input, std::string kind, int64_t batch_size,
                         bool drop_remainder, RowsFn combine, Status status) {
  return std::make_shared<BatchDataset>(
      std::move(input), batch_size, drop_remainder, std::nullopt,
      std::move(kind), std::move(combine), std::move(status));
}
DatasetPtr MakePaddedBatch(DatasetPtr input, int64_t batch_size,
                           PaddedBatchOptions options) {
  const bool drop = options.drop_remainder;
  return std::make_shared<BatchDataset>(std::move(input), batch_size, drop,
                                        std::move(options));
}
DatasetPtr MakeRepeat(DatasetPtr input, int64_t count) {
  return std::make_shared<RepeatDataset>(std::move(input), count);
}
DatasetPtr MakeTake(DatasetPtr input, int64_t count) {
  return std::make_shared<TakeSkipDataset>(std::move(input), count, false);
}
DatasetPtr MakeSkip(DatasetPtr input, int64_t count) {
  return std::make_shared<TakeSkipDataset>(std::move(input), count, true);
}
DatasetPtr MakeShard(DatasetPtr input, int64_t num_shards, int64_t index) {
  return std::make_shared<ShardDataset>(std::move(input), num_shards, index);
}
DatasetPtr MakeEnumerate(DatasetPtr input, int64_t start) {
  return std::make_shared<EnumerateDataset>(std::move(input), start);
}
DatasetPtr MakeZip(std::vector<DatasetPtr> inputs) {
  return std::make_shared<ZipDataset>(std::move(inputs));
}
DatasetPtr MakeConcatenate(DatasetPtr first, DatasetPtr second) {
  return std::make_shared<ConcatenateDataset>(std::move(first),
                                              std::move(second));
}

}  // namespace inflow::data::internal
