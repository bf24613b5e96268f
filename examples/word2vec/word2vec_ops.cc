// Copyright 2026 The inflow Authors.
//
// The word2vec op library (docs/custom_ops.md's worked example): skip-gram
// training pairs from a text corpus, and the negative-sampling SGD step
// that updates the embedding matrices in place.
//
//   SkipgramWord2vec (stateful, no input): reads the corpus once, builds
//     the vocabulary (words seen min_count times or more, most frequent
//     first, "UNK" at 0 for the others), then each call emits up to
//     batch_size (center, context) pairs: centers kept with word2vec's
//     subsampling probability, contexts within a window drawn from
//     [1, window_size] per center. After `epochs` passes over the corpus:
//     OUT_OF_RANGE.
//   NegTrainWord2vec (stateful: its random draws): for each pair, one
//     logistic-regression step on the true context and num_negative_samples
//     words drawn from the unigram distribution to the 3/4 power, on
//     w_in[center] and the w_out rows involved.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "inflow/ops/op_library.h"

namespace {

using inflow::DType;
using inflow::OkStatus;
using inflow::PartialShape;
using inflow::Status;
using inflow::Tensor;
using inflow::TensorShape;
using inflow::ops::AttrType;
using inflow::ops::MakeKernelDef;
using inflow::ops::OpDef;
using inflow::ops::OpKernel;
using inflow::ops::OpKernelConstruction;
using inflow::ops::OpKernelContext;

class SkipgramKernel : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(std::string filename,
                            c.GetAttr<std::string>("filename"));
    INFLOW_ASSIGN_OR_RETURN(batch_size_, c.GetAttr<int64_t>("batch_size"));
    INFLOW_ASSIGN_OR_RETURN(window_size_, c.GetAttr<int64_t>("window_size"));
    INFLOW_ASSIGN_OR_RETURN(int64_t min_count, c.GetAttr<int64_t>("min_count"));
    INFLOW_ASSIGN_OR_RETURN(double subsample, c.GetAttr<double>("subsample"));
    INFLOW_ASSIGN_OR_RETURN(epochs_, c.GetAttr<int64_t>("epochs"));
    INFLOW_ASSIGN_OR_RETURN(int64_t seed, c.GetAttr<int64_t>("seed"));
    if (batch_size_ < 1 || window_size_ < 1 || epochs_ < 1) {
      return inflow::InvalidArgumentError(
          "batch_size, window_size and epochs must be >= 1");
    }
    rng_.seed(static_cast<uint64_t>(seed));
    std::ifstream in(filename);
    if (!in) {
      return inflow::NotFoundError("cannot read the corpus " + filename);
    }
    std::vector<std::string> words;
    std::map<std::string, int64_t> counts;
    for (std::string w; in >> w;) {
      ++counts[w];
      words.push_back(std::move(w));
    }
    if (words.empty()) {
      return inflow::InvalidArgumentError("the corpus " + filename +
                                          " has no words");
    }
    // The vocabulary: UNK, then the frequent words by count (then by
    // spelling, so that a corpus always gives the same ids).
    std::vector<std::pair<std::string, int64_t>> kept;
    int64_t unk = 0;
    for (const auto& [w, n] : counts) {
      if (n >= min_count) {
        kept.emplace_back(w, n);
      } else {
        unk += n;
      }
    }
    std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    kept.insert(kept.begin(), {"UNK", unk});
    std::map<std::string, int32_t> ids;
    for (size_t i = 0; i < kept.size(); ++i) {
      ids[kept[i].first] = static_cast<int32_t>(i);
    }
    corpus_.reserve(words.size());
    for (const std::string& w : words) {
      auto it = ids.find(w);
      corpus_.push_back(it == ids.end() ? 0 : it->second);
    }
    const int64_t v = static_cast<int64_t>(kept.size());
    vocab_word_ = Tensor(DType::kString, TensorShape({v}));
    vocab_freq_ = Tensor(DType::kInt32, TensorShape({v}));
    INFLOW_ASSIGN_OR_RETURN(auto names,
                            vocab_word_.mutable_flat<std::string>());
    INFLOW_ASSIGN_OR_RETURN(auto freqs, vocab_freq_.mutable_flat<int32_t>());
    // word2vec's subsampling: a word of frequency f is kept with
    // probability (sqrt(f / t) + 1) * t / f.
    const double total = static_cast<double>(corpus_.size());
    keep_.resize(kept.size());
    for (size_t i = 0; i < kept.size(); ++i) {
      names[i] = kept[i].first;
      freqs[i] = static_cast<int32_t>(kept[i].second);
      const double f = static_cast<double>(kept[i].second) / total;
      keep_[i] = subsample > 0 && f > 0
                     ? (std::sqrt(f / subsample) + 1) * subsample / f
                     : 1.0;
    }
    return OkStatus();
  }

  Status Compute(OpKernelContext& c) override {
    std::vector<int32_t> examples;
    std::vector<int32_t> labels;
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    while (static_cast<int64_t>(examples.size()) < batch_size_) {
      if (pending_.empty()) {
        if (epoch_ >= epochs_) break;
        NextCenter(coin);  // may queue no pair (a center subsampled away)
        continue;
      }
      examples.push_back(pending_.back().first);
      labels.push_back(pending_.back().second);
      pending_.pop_back();
    }
    if (examples.empty()) {
      return inflow::OutOfRangeError("skipgram: " + std::to_string(epochs_) +
                                     " epochs done");
    }
    INFLOW_RETURN_IF_ERROR(c.SetOutput(0, vocab_word_));
    INFLOW_RETURN_IF_ERROR(c.SetOutput(1, vocab_freq_));
    INFLOW_RETURN_IF_ERROR(c.SetOutput(
        2, Tensor::Scalar<int64_t>(static_cast<int64_t>(corpus_.size()))));
    INFLOW_RETURN_IF_ERROR(
        c.SetOutput(3, Tensor::Scalar<int32_t>(static_cast<int32_t>(epoch_))));
    INFLOW_RETURN_IF_ERROR(
        c.SetOutput(4, Tensor::Scalar<int64_t>(words_processed_)));
    INFLOW_RETURN_IF_ERROR(c.SetOutput(5, Tensor::FromVector(examples)));
    return c.SetOutput(6, Tensor::FromVector(labels));
  }

 private:
  // Moves to the next center word and queues its pairs.
  void NextCenter(std::uniform_real_distribution<double>& coin) {
    const int64_t n = static_cast<int64_t>(corpus_.size());
    const int64_t i = position_;
    ++words_processed_;
    if (++position_ == n) {
      position_ = 0;
      ++epoch_;
    }
    const int32_t center = corpus_[i];
    if (coin(rng_) >= keep_[center]) return;
    std::uniform_int_distribution<int64_t> reach(1, window_size_);
    const int64_t skip = reach(rng_);
    for (int64_t j = std::max<int64_t>(0, i - skip);
         j <= std::min<int64_t>(n - 1, i + skip); ++j) {
      if (j != i) pending_.emplace_back(center, corpus_[j]);
    }
  }

  int64_t batch_size_ = 0;
  int64_t window_size_ = 0;
  int64_t epochs_ = 0;
  std::vector<int32_t> corpus_;
  std::vector<double> keep_;  // by word id
  Tensor vocab_word_;
  Tensor vocab_freq_;
  std::mt19937_64 rng_;
  // The state across calls: where the corpus is read, and the pairs of
  // the last center not handed out yet.
  int64_t position_ = 0;
  int64_t epoch_ = 0;
  int64_t words_processed_ = 0;
  std::vector<std::pair<int32_t, int32_t>> pending_;
};

class NegTrainKernel : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(std::vector<int64_t> counts,
                            c.GetAttr<std::vector<int64_t>>("vocab_count"));
    INFLOW_ASSIGN_OR_RETURN(negatives_,
                            c.GetAttr<int64_t>("num_negative_samples"));
    INFLOW_ASSIGN_OR_RETURN(int64_t seed, c.GetAttr<int64_t>("seed"));
    if (counts.empty() || negatives_ < 0) {
      return inflow::InvalidArgumentError(
          "vocab_count must not be empty and num_negative_samples >= 0");
    }
    std::vector<double> weights;
    for (int64_t n : counts) {
      weights.push_back(
          std::pow(static_cast<double>(std::max<int64_t>(n, 0)), 0.75));
    }
    sampler_ =
        std::discrete_distribution<int32_t>(weights.begin(), weights.end());
    vocab_size_ = static_cast<int64_t>(counts.size());
    rng_.seed(static_cast<uint64_t>(seed));
    return OkStatus();
  }

  Status Compute(OpKernelContext& c) override {
    INFLOW_ASSIGN_OR_RETURN(Tensor w_in, c.MutableInput(0));
    INFLOW_ASSIGN_OR_RETURN(Tensor w_out, c.MutableInput(1));
    if (w_in.rank() != 2 || w_in.shape() != w_out.shape() ||
        w_in.dim_size(0) != vocab_size_) {
      return inflow::InvalidArgumentError(
          "w_in and w_out must both be [vocab size " +
          std::to_string(vocab_size_) + ", dim], got " +
          w_in.shape().DebugString() + " and " + w_out.shape().DebugString());
    }
    std::span<const int32_t> examples = c.input(2).flat<int32_t>();
    std::span<const int32_t> labels = c.input(3).flat<int32_t>();
    if (examples.size() != labels.size()) {
      return inflow::InvalidArgumentError(
          "examples and labels differ in length");
    }
    const float lr = c.input(4).flat<float>()[0];
    const int64_t dim = w_in.dim_size(1);
    INFLOW_ASSIGN_OR_RETURN(std::span<float> in, w_in.mutable_flat<float>());
    INFLOW_ASSIGN_OR_RETURN(std::span<float> out, w_out.mutable_flat<float>());
    std::vector<float> grad(static_cast<size_t>(dim));
    for (size_t p = 0; p < examples.size(); ++p) {
      const int32_t center = examples[p];
      const int32_t context = labels[p];
      if (center < 0 || center >= vocab_size_ || context < 0 ||
          context >= vocab_size_) {
        return inflow::InvalidArgumentError("pair " + std::to_string(p) +
                                            " has a word id outside [0, " +
                                            std::to_string(vocab_size_) + ")");
      }
      float* v = &in[static_cast<size_t>(center * dim)];
      std::fill(grad.begin(), grad.end(), 0.0f);
      for (int64_t k = 0; k <= negatives_; ++k) {
        const int32_t target = k == 0 ? context : sampler_(rng_);
        if (k > 0 && target == context) continue;
        float* u = &out[static_cast<size_t>(target * dim)];
        double z = 0;
        for (int64_t d = 0; d < dim; ++d) z += v[d] * u[d];
        const double sigmoid = 1.0 / (1.0 + std::exp(-z));
        const float g =
            static_cast<float>(((k == 0 ? 1.0 : 0.0) - sigmoid) * lr);
        for (int64_t d = 0; d < dim; ++d) {
          grad[d] += g * u[d];
          u[d] += g * v[d];
        }
      }
      for (int64_t d = 0; d < dim; ++d) v[d] += grad[d];
    }
    return OkStatus();
  }

 private:
  int64_t negatives_ = 0;
  int64_t vocab_size_ = 0;
  std::discrete_distribution<int32_t> sampler_;
  std::mt19937_64 rng_;
};

}  // namespace

INFLOW_OP_LIBRARY(library) {
  library.AddOp(
      OpDef("SkipgramWord2vec")
          .Output("vocab_word", DType::kString, PartialShape({-1}))
          .Output("vocab_freq", DType::kInt32, PartialShape({-1}))
          .Output("words_per_epoch", DType::kInt64, PartialShape({}))
          .Output("current_epoch", DType::kInt32, PartialShape({}))
          .Output("total_words_processed", DType::kInt64, PartialShape({}))
          .Output("examples", DType::kInt32, PartialShape({-1}))
          .Output("labels", DType::kInt32, PartialShape({-1}))
          .Attr("filename", AttrType::kString)
          .Attr("batch_size", 256)
          .Attr("window_size", 5)
          .Attr("min_count", 5)
          .Attr("subsample", 1e-3)
          .Attr("epochs", 1)
          .Attr("seed", 1)
          .SetStateful()
          .Doc("Skip-gram (center, context) pairs of a text corpus, up to "
               "batch_size a call, for `epochs` passes; then the end of the "
               "input. Also the vocabulary and the progress."));
  library.AddKernel(MakeKernelDef<SkipgramKernel>(
      "SkipgramWord2vec",
      {DType::kString, DType::kInt32, DType::kInt64, DType::kInt32,
       DType::kInt64, DType::kInt32, DType::kInt32}));

  library.AddOp(
      OpDef("NegTrainWord2vec")
          .MutableInput("w_in", DType::kFloat32, PartialShape({-1, -1}))
          .MutableInput("w_out", DType::kFloat32, PartialShape({-1, -1}))
          .Input("examples", DType::kInt32, PartialShape({-1}))
          .Input("labels", DType::kInt32, PartialShape({-1}))
          .Input("lr", DType::kFloat32, PartialShape({}))
          .Attr("vocab_count", AttrType::kIntList)
          .Attr("num_negative_samples", 5)
          .Attr("seed", 1)
          .SetStateful()
          .Doc("One negative-sampling SGD step per (example, label) pair on "
               "the embeddings w_in and w_out, in place."));
  library.AddKernel(MakeKernelDef<NegTrainKernel>("NegTrainWord2vec", {}));
}
