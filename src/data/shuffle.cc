// Copyright 2026 The inflow Authors.
//
// Shuffle: tf.data's buffer algorithm (fill buffer_size elements; each
// output is drawn uniformly from the buffer and its place taken by the next
// input). The state is one number, the outputs handed out in this pass:
// the draws come from a generator seeded by (seed, pass), so Restore makes
// the input again from its start and replays that many outputs, reading
// the input again instead of storing the buffer.

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

class ShuffleDataset final : public DatasetBase {
 public:
  ShuffleDataset(DatasetPtr input, int64_t buffer_size, int64_t seed,
                 bool reshuffle)
      : DatasetBase("shuffle", {std::move(input)},
                    buffer_size >= 1
                        ? OkStatus()
                        : InvalidArgumentError("buffer_size " +
                                               std::to_string(buffer_size) +
                                               " is not >= 1")),
        buffer_size_(buffer_size),
        seed_(seed),
        reshuffle_(reshuffle) {}

  int64_t Cardinality() const override { return input().Cardinality(); }
  bool ScalarStrings() const override { return input().ScalarStrings(); }
  bool Rows() const override { return input().Rows(); }
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext& c) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this, c));
  }

 private:
  class It final : public IteratorBase {
    // Rows mode: a slot's number, or -1.
    struct Slot {
      int64_t i = -1;
    };

   public:
    It(const ShuffleDataset& d, IteratorContext c)
        : d_(d),
          context_(c),
          strings_mode_(d.input().ScalarStrings()),
          rows_mode_(!strings_mode_ && d.input().Rows()) {}

    Result<std::optional<Tuple>> Next(const CallOptions& o) override {
      if (strings_mode_) {
        std::string s;
        INFLOW_ASSIGN_OR_RETURN(bool got, NextString(o, &s));
        if (!got) return std::optional<Tuple>();
        return std::optional<Tuple>(Tuple{Tensor::Scalar(std::move(s))});
      }
      if (rows_mode_) {
        RowRef row;
        INFLOW_ASSIGN_OR_RETURN(bool got, NextRow(o, &row));
        if (!got) return std::optional<Tuple>();
        if (columnar_) return std::optional<Tuple>(NewRows(row, -1));
        // The slot's tensors go with the element; the slot gets new ones.
        return std::optional<Tuple>(std::move(tuples_[out_slot_.i]));
      }
      Tuple out;
      INFLOW_ASSIGN_OR_RETURN(
          bool got,
          Step(buffer_, pending_tuple_, &out, [&](Tuple* slot) -> Result<bool> {
            INFLOW_ASSIGN_OR_RETURN(std::optional<Tuple> e, in_->Next(o));
            if (e) *slot = std::move(*e);
            return e.has_value();
          }));
      if (!got) return std::optional<Tuple>();
      return std::optional<Tuple>(std::move(out));
    }

    // Over records the buffer holds strings: the one handed out swaps
    // storage with *out, which a later record then fills.
    Result<bool> NextString(const CallOptions& o, std::string* out) override {
      if (!strings_mode_) return IteratorBase::NextString(o, out);
      return Step(strings_, pending_, out,
                  [&](std::string* slot) { return in_->NextString(o, slot); });
    }

    // Over rows (an Unbatch's) the buffer holds slot numbers: each row is
    // copied into a slot of tensors of the shuffle's own, and the one
    // handed out is the slot drawn, which the next input row then fills.
    Result<bool> NextRow(const CallOptions& o, RowRef* out) override {
      if (!rows_mode_) return IteratorBase::NextRow(o, out);
      INFLOW_ASSIGN_OR_RETURN(
          bool got, Step(slot_buffer_, pending_slot_, &out_slot_,
                         [&](Slot* slot) { return PullRow(o, slot); }));
      if (!got) return false;
      // The slot handed out is only written again (the next row fills
      // it): its row is owned.
      *out = columnar_ ? RowRef{&columns_, out_slot_.i, true}
                       : RowRef{&tuples_[out_slot_.i], -1, true};
      return true;
    }

    Status Save(StateWriter& w) override {
      w.Tag("shuffle");
      w.Int(consumed_);
      return OkStatus();
    }

    Status Restore(StateReader& r) override {
      INFLOW_RETURN_IF_ERROR(r.Tag("shuffle"));
      INFLOW_ASSIGN_OR_RETURN(int64_t consumed,
                              r.IntIn("outputs", 0, INT64_MAX / 4));
      INFLOW_RETURN_IF_ERROR(Start());
      // Replays the pass: the same inputs, the same draws.
      std::string scratch;
      RowRef row;
      for (int64_t k = 0; k < consumed; ++k) {
        bool got;
        if (strings_mode_) {
          INFLOW_ASSIGN_OR_RETURN(got, NextString({}, &scratch));
        } else if (rows_mode_) {
          INFLOW_ASSIGN_OR_RETURN(got, NextRow({}, &row));
        } else {
          INFLOW_ASSIGN_OR_RETURN(std::optional<Tuple> e, Next({}));
          got = e.has_value();
        }
        if (!got) {
          return InvalidArgumentError(
              d_.label() + ": the state says " + std::to_string(consumed) +
              " outputs were handed out, but the input gives only " +
              std::to_string(k) + " (the input changed since the save)");
        }
      }
      return OkStatus();
    }

   private:
    Status Start() {
      INFLOW_ASSIGN_OR_RETURN(in_, d_.input().MakeIterator(context_));
      const uint64_t pass =
          d_.reshuffle_ ? static_cast<uint64_t>(context_.iteration) : 0;
      rng_.seed(MixSeed(static_cast<uint64_t>(d_.seed_) ^ MixSeed(pass)));
      buffer_.clear();
      strings_.clear();
      slot_buffer_.clear();
      columns_.clear();
      tuples_.clear();
      columnar_ = true;
      capacity_ = used_ = 0;
      free_slots_.clear();
      pending_slot_ = out_slot_ = Slot();
      input_end_ = false;
      consumed_ = 0;
      return OkStatus();
    }

    // One output of the buffer algorithm over `buffer` (Tuples, or
    // strings), into *out; false at the end. pull(slot) fills a slot with
    // the input's next element (false at its end). The buffer is filled
    // to buffer_size first (what a failed pull leaves stays), and the
    // replacement is pulled (into `pending`) before the draw: an error or
    // a timeout of the input leaves the buffer and the generator as they
    // were.
    template <typename T, typename Pull>
    Result<bool> Step(std::vector<T>& buffer, T& pending, T* out, Pull pull) {
      if (in_ == nullptr) INFLOW_RETURN_IF_ERROR(Start());
      while (!input_end_ &&
             static_cast<int64_t>(buffer.size()) < d_.buffer_size_) {
        buffer.emplace_back();
        Result<bool> got = pull(&buffer.back());
        if (!got.ok() || !*got) buffer.pop_back();
        INFLOW_RETURN_IF_ERROR(got.status());
        if (!*got) input_end_ = true;
      }
      if (buffer.empty()) return false;
      bool next = false;
      if (!input_end_) {
        INFLOW_ASSIGN_OR_RETURN(next, pull(&pending));
        if (!next) input_end_ = true;
      }
      const size_t j = Draw(buffer.size());
      ++consumed_;
      using std::swap;
      swap(*out, buffer[j]);
      if (next) {
        swap(buffer[j], pending);
      } else {
        swap(buffer[j], buffer.back());
        buffer.pop_back();
      }
      return true;
    }

    // The input's next row into *slot (a new one when it has none); a
    // slot that gets no row goes back to the free ones.
    Result<bool> PullRow(const CallOptions& o, Slot* slot) {
      RowRef row;
      Result<bool> got = in_->NextRow(o, &row);
      if (!got.ok() || !*got) {
        if (slot->i >= 0) free_slots_.push_back(slot->i);
        slot->i = -1;
        return got;
      }
      if (slot->i < 0) {
        if (free_slots_.empty()) {
          slot->i = used_++;
        } else {
          slot->i = free_slots_.back();
          free_slots_.pop_back();
        }
      }
      Store(row, slot->i);
      return true;
    }

    // Copies `row` into slot k: a row of the columns while the rows keep
    // the first one's layout, else (from then on) a Tuple of its own.
    void Store(const RowRef& row, int64_t k) {
      if (columnar_) {
        if (columns_.empty()) columns_ = NewRows(row, capacity_ = 16);
        if (SameRowLayout(row, columns_, true)) {
          if (k >= capacity_) Grow(k + 1);
          CopyRow(row, columns_, k);
          return;
        }
        tuples_.resize(static_cast<size_t>(used_));
        for (int64_t i = 0; i < std::min(used_, capacity_); ++i) {
          tuples_[i] = NewRows(RowRef{&columns_, i}, -1);
        }
        columns_.clear();
        columnar_ = false;
      }
      if (k >= static_cast<int64_t>(tuples_.size())) tuples_.resize(k + 1);
      Tuple& to = tuples_[k];
      // A slot's tensors are reused while the rows keep their layout.
      if (SameRowLayout(row, to, false)) {
        CopyRow(row, to, -1);
      } else {
        to = NewRows(row, -1);
      }
    }

    // Room for at least n rows in the columns (doubling, up to the most
    // slots the buffer uses: buffer_size, the next row's and the output's).
    void Grow(int64_t n) {
      const int64_t most = d_.buffer_size_ + 2;
      const int64_t capacity = std::max(n, std::min(2 * capacity_, most));
      GrowRows(columns_, capacity_, capacity);
      capacity_ = capacity;
    }

    // Uniform in [0, n) (Lemire's multiply-shift).
    size_t Draw(size_t n) {
      const unsigned __int128 m = static_cast<unsigned __int128>(rng_()) * n;
      return static_cast<size_t>(m >> 64);
    }

    const ShuffleDataset& d_;
    const IteratorContext context_;
    std::unique_ptr<IteratorBase> in_;
    const bool strings_mode_;  // the input's elements are scalar strings
    std::vector<Tuple> buffer_;
    std::vector<std::string> strings_;  // the buffer, in strings mode
    std::string pending_;               // the next record, in strings mode
    Tuple pending_tuple_;               // the next element, in Tuples mode
    // Rows mode: the buffer's slots, the next row's and the last output's
    // (which the next row fills): rows of columns_, or Tuples of tuples_.
    const bool rows_mode_;  // the input's elements are rows (and no strings)
    std::vector<Slot> slot_buffer_;
    Slot pending_slot_, out_slot_;
    bool columnar_ = true;  // the slots are rows of columns_, else tuples_
    Tuple columns_;         // [capacity_, row ...] per component
    int64_t capacity_ = 0;
    std::vector<Tuple> tuples_;  // a slot's components each
    int64_t used_ = 0;           // slot numbers handed out
    std::vector<int64_t> free_slots_;
    std::mt19937_64 rng_;
    bool input_end_ = false;
    int64_t consumed_ = 0;
  };

  const int64_t buffer_size_;
  const int64_t seed_;
  const bool reshuffle_;
};

}  // namespace

DatasetPtr MakeShuffle(DatasetPtr input, int64_t buffer_size,
                       std::optional<int64_t> seed, bool reshuffle) {
  return std::make_shared<ShuffleDataset>(std::move(input), buffer_size,
                                          SeedOrRandom(seed), reshuffle);
}

}  // namespace inflow::data::internal
