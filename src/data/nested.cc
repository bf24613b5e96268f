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
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "data/dataset_base.h"

namespace inflow::data::internal {

DatasetPtr BaseOf(const Dataset& d);  // dataset.cc

namespace {

using ItPtr = std::unique_ptr<IteratorBase>;
using Element = std::optional<Tuple>;

class InterleaveDataset final : public DatasetBase {
 public:
  InterleaveDataset(DatasetPtr input, DatasetFn fn, std::string kind,
                    int64_t cycle, int64_t block)
      : DatasetBase(std::move(kind), {std::move(input)},
                    Check(fn, cycle, block)),
        fn_(std::move(fn)),
        cycle_(cycle > 0
                   ? cycle
                   : std::max<int64_t>(1, std::thread::hardware_concurrency())),
        block_(block) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    return c == 0 ? 0 : kUnknown;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    INFLOW_ASSIGN_OR_RETURN(ItPtr in, input().MakeIterator(c));
    return ItPtr(std::make_unique<It>(*this, c, std::move(in)));
  }

 private:
  static Status Check(const DatasetFn& fn, int64_t cycle, int64_t block) {
    if (!fn) return InvalidArgumentError("no function");
    if (cycle < 0) return InvalidArgumentError("cycle_length must be >= 0");
    if (block < 1) return InvalidArgumentError("block_length must be >= 1");
    return OkStatus();
  }

  class It final : public IteratorBase {
   public:
    It(const InterleaveDataset& d, IteratorContext c, ItPtr in)
        : d_(d),
          context_(c),
          in_(std::move(in)),
          slots_(static_cast<size_t>(d.cycle_)) {}

    // tf.data's InterleaveDatasetOp::Iterator::GetNextInternal.
    Result<Element> Next(const CallOptions& o) override {
      while (!end_of_input_ || open_ > 0) {
        Slot& s = slots_[cycle_index_];
        if (s.it != nullptr) {
          INFLOW_ASSIGN_OR_RETURN(Element e, s.it->Next(o));
          if (e) {
            if (++block_index_ == d_.block_) Advance();
            return e;
          }
          s = Slot();
          --open_;
          Advance();
        } else if (!end_of_input_) {
          StateWriter w;
          INFLOW_RETURN_IF_ERROR(in_->Save(w));
          std::string snapshot = w.Take();
          INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
          if (!e) {
            end_of_input_ = true;
            continue;
          }
          INFLOW_RETURN_IF_ERROR(Open(std::move(*e), count_, s));
          s.snapshot = std::move(snapshot);
          s.element = count_++;
          ++open_;
        } else {
          Advance();
        }
      }
      return Element();
    }

    Status Save(StateWriter& w) override {
      w.Tag(d_.kind());
      w.Int(cycle_index_);
      w.Int(block_index_);
      w.Int(end_of_input_ ? 1 : 0);
      w.Int(count_);
      for (Slot& s : slots_) {
        w.Int(s.it != nullptr ? 1 : 0);
        if (s.it == nullptr) continue;
        w.Int(s.element);
        w.Bytes(s.snapshot);
        INFLOW_RETURN_IF_ERROR(s.it->Save(w));
      }
      return in_->Save(w);
    }

    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag(d_.kind()));
      INFLOW_ASSIGN_OR_RETURN(cycle_index_,
                              r.IntIn("cycle index", 0, d_.cycle_ - 1));
      INFLOW_ASSIGN_OR_RETURN(block_index_,
                              r.IntIn("block index", 0, d_.block_ - 1));
      INFLOW_ASSIGN_OR_RETURN(int64_t end, r.IntIn("end of input", 0, 1));
      end_of_input_ = end == 1;
      INFLOW_ASSIGN_OR_RETURN(count_, r.IntIn("elements", 0, INT64_MAX / 4));
      open_ = 0;
      for (Slot& s : slots_) {
        s = Slot();
        INFLOW_ASSIGN_OR_RETURN(int64_t has, r.IntIn("open", 0, 1));
        if (has == 0) continue;
        INFLOW_ASSIGN_OR_RETURN(s.element, r.IntIn("element", 0, count_));
        INFLOW_ASSIGN_OR_RETURN(std::string_view snapshot, r.Bytes());
        s.snapshot = std::string(snapshot);
        // The element again, from a second iterator of the input.
        INFLOW_ASSIGN_OR_RETURN(ItPtr again, d_.input().MakeIterator(context_));
        INFLOW_ASSIGN_OR_RETURN(Tuple e, ElementAt(*again, snapshot, d_));
        INFLOW_RETURN_IF_ERROR(Open(std::move(e), s.element, s));
        INFLOW_RETURN_IF_ERROR(s.it->Restore(r));
        ++open_;
      }
      return in_->Restore(r);
    }

   private:
    struct Slot {
      DatasetPtr dataset;  // fn(element), alive while `it` reads it
      ItPtr it;
      std::string snapshot;  // the input's state before its element
      int64_t element = 0;   // that element's position
    };

    void Advance() {
      block_index_ = 0;
      cycle_index_ = (cycle_index_ + 1) % d_.cycle_;
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

    const InterleaveDataset& d_;
    const IteratorContext context_;
    ItPtr in_;
    std::vector<Slot> slots_;
    int64_t cycle_index_ = 0;
    int64_t block_index_ = 0;
    int64_t open_ = 0;
    int64_t count_ = 0;  // input elements pulled
    bool end_of_input_ = false;
  };

  const DatasetFn fn_;
  const int64_t cycle_;
  const int64_t block_;
};

class UnbatchDataset final : public DatasetBase {
 public:
  explicit UnbatchDataset(DatasetPtr input)
      : DatasetBase("unbatch", {std::move(input)}) {}
  int64_t Cardinality() const override {
    const int64_t c = input().Cardinality();
    return c == 0 || c == kInfinite ? c : kUnknown;
  }
  Result<ItPtr> MakeIteratorImpl(const IteratorContext& c) const override {
    INFLOW_ASSIGN_OR_RETURN(ItPtr in, input().MakeIterator(c));
    return ItPtr(std::make_unique<It>(*this, std::move(in)));
  }

 private:
  class It final : public IteratorBase {
   public:
    It(const UnbatchDataset& d, ItPtr in) : d_(d), in_(std::move(in)) {}
    Result<Element> Next(const CallOptions& o) override {
      while (row_ >= rows_) {
        StateWriter w;
        INFLOW_RETURN_IF_ERROR(in_->Save(w));
        INFLOW_ASSIGN_OR_RETURN(Element e, in_->Next(o));
        if (!e) return Element();
        const int64_t k = count_++;
        INFLOW_RETURN_IF_ERROR(Take(std::move(*e), k));
        snapshot_ = w.Take();
      }
      Tuple out;
      out.reserve(element_.size());
      for (const Tensor& t : element_) out.push_back(t.SubTensor(row_));
      ++row_;
      return Element(std::move(out));
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
                          int64_t block) {
  return std::make_shared<InterleaveDataset>(std::move(input), std::move(fn),
                                             "interleave", cycle, block);
}
DatasetPtr MakeFlatMap(DatasetPtr input, DatasetFn fn) {
  return std::make_shared<InterleaveDataset>(std::move(input), std::move(fn),
                                             "flat_map", 1, 1);
}
DatasetPtr MakeUnbatch(DatasetPtr input) {
  return std::make_shared<UnbatchDataset>(std::move(input));
}

}  // namespace inflow::data::internal
