// Copyright 2026 The inflow Authors.
//
// Shuffle: tf.data's buffer algorithm (fill buffer_size elements; each
// output is drawn uniformly from the buffer and its place taken by the next
// input). The state is one number, the outputs handed out in this pass:
// the draws come from a generator seeded by (seed, pass), so Restore makes
// the input again from its start and replays that many outputs, reading
// the input again instead of storing the buffer.

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
  Result<std::unique_ptr<IteratorBase>> MakeIteratorImpl(
      const IteratorContext& c) const override {
    return std::unique_ptr<IteratorBase>(std::make_unique<It>(*this, c));
  }

 private:
  class It final : public IteratorBase {
   public:
    It(const ShuffleDataset& d, IteratorContext c)
        : d_(d), context_(c), strings_mode_(d.input().ScalarStrings()) {}

    Result<std::optional<Tuple>> Next(const CallOptions& o) override {
      if (strings_mode_) {
        std::string s;
        INFLOW_ASSIGN_OR_RETURN(bool got, NextString(o, &s));
        if (!got) return std::optional<Tuple>();
        return std::optional<Tuple>(Tuple{Tensor::Scalar(std::move(s))});
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
      for (int64_t k = 0; k < consumed; ++k) {
        bool got;
        if (strings_mode_) {
          INFLOW_ASSIGN_OR_RETURN(got, NextString({}, &scratch));
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
    Tuple pending_tuple_;               // the next element, otherwise
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
