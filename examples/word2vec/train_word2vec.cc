// Copyright 2026 The inflow Authors.
//
// Trains word embeddings with the word2vec op library (word2vec_ops.cc),
// as word2vec.py does from Python:
//
//   train_word2vec LIBRARY CORPUS [--dim 64] [--epochs 5] [--window 3]
//       [--min-count 5] [--negatives 5] [--lr 0.2] [--batch 256]
//       [--subsample 1e-3] [--seed 1] [--query w1,w2,...]
//
// prints one JSON line: the vocabulary size, the words and pairs trained,
// words/s, and the nearest word (cosine of the input embeddings) of each
// --query word.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "inflow/core/json_string.h"
#include "inflow/ops/op.h"
#include "inflow/ops/op_library.h"

namespace {

using inflow::Result;
using inflow::Status;
using inflow::Tensor;
using inflow::TensorShape;
using inflow::Tuple;
using inflow::ops::Op;

int Fail(const Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

// The word of `vocab` nearest to row `word` of `w` [V, dim] (cosine), UNK
// (0) and the word itself left out.
int64_t Nearest(const std::vector<float>& w, int64_t vocab, int64_t dim,
                int64_t word) {
  auto norm = [&](int64_t i) {
    double s = 0;
    for (int64_t d = 0; d < dim; ++d) s += w[i * dim + d] * w[i * dim + d];
    return std::sqrt(s) + 1e-12;
  };
  int64_t best = -1;
  double best_cos = -2;
  const double nw = norm(word);
  for (int64_t i = 1; i < vocab; ++i) {
    if (i == word) continue;
    double dot = 0;
    for (int64_t d = 0; d < dim; ++d) dot += w[word * dim + d] * w[i * dim + d];
    const double cos = dot / (nw * norm(i));
    if (cos > best_cos) {
      best_cos = cos;
      best = i;
    }
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: train_word2vec LIBRARY CORPUS [--dim D] [--epochs E] "
                 "[--window W] [--min-count M] [--negatives K] [--lr X] "
                 "[--batch B] [--subsample T] [--seed S] [--query w,...]\n");
    return 2;
  }
  std::map<std::string, std::string> flags = {
      {"--dim", "64"},      {"--epochs", "5"},       {"--window", "3"},
      {"--min-count", "5"}, {"--negatives", "5"},    {"--lr", "0.2"},
      {"--batch", "256"},   {"--subsample", "1e-3"}, {"--seed", "1"},
      {"--query", ""}};
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!flags.contains(argv[i])) {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
    flags[argv[i]] = argv[i + 1];
  }
  const int64_t dim = std::atoll(flags["--dim"].c_str());
  const int64_t epochs = std::atoll(flags["--epochs"].c_str());
  const double lr0 = std::atof(flags["--lr"].c_str());
  const int64_t seed = std::atoll(flags["--seed"].c_str());

  auto library = inflow::ops::LoadOpLibrary(argv[1]);
  if (!library.ok()) return Fail(library.status());
  auto skipgram =
      Op::Create("SkipgramWord2vec",
                 {{"filename", std::string(argv[2])},
                  {"batch_size", std::atoll(flags["--batch"].c_str())},
                  {"window_size", std::atoll(flags["--window"].c_str())},
                  {"min_count", std::atoll(flags["--min-count"].c_str())},
                  {"subsample", std::atof(flags["--subsample"].c_str())},
                  {"epochs", epochs},
                  {"seed", seed}});
  if (!skipgram.ok()) return Fail(skipgram.status());

  const auto start = std::chrono::steady_clock::now();
  Result<Tuple> batch = (*skipgram)->Run({});
  if (!batch.ok()) return Fail(batch.status());
  const Tensor vocab_word = (*batch)[0];
  const int64_t vocab = vocab_word.num_elements();
  std::vector<int64_t> counts;
  for (int32_t n : (*batch)[1].flat<int32_t>()) counts.push_back(n);
  const int64_t words_per_epoch = (*batch)[2].flat<int64_t>()[0];
  auto train = Op::Create(
      "NegTrainWord2vec",
      {{"vocab_count", counts},
       {"num_negative_samples", std::atoll(flags["--negatives"].c_str())},
       {"seed", seed}});
  if (!train.ok()) return Fail(train.status());

  // w_in uniform in [-0.5 / dim, 0.5 / dim), w_out zero (word2vec's start).
  Tensor w_in(inflow::DType::kFloat32, TensorShape({vocab, dim}));
  Tensor w_out(inflow::DType::kFloat32, TensorShape({vocab, dim}));
  std::mt19937_64 rng(static_cast<uint64_t>(seed));
  std::uniform_real_distribution<float> init(-0.5f / dim, 0.5f / dim);
  // The span, not the Result holding it, outlives the loop's range.
  const std::span<float> w_in_values = *w_in.mutable_flat<float>();
  for (float& x : w_in_values) x = init(rng);

  int64_t pairs = 0;
  int64_t words = 0;
  for (; batch.ok(); batch = (*skipgram)->Run({})) {
    words = (*batch)[4].flat<int64_t>()[0];
    // The learning rate falls linearly to 1e-4 of its start.
    const double progress = static_cast<double>(words) /
                            static_cast<double>(words_per_epoch * epochs);
    const float lr = static_cast<float>(lr0 * std::max(1e-4, 1.0 - progress));
    pairs += (*batch)[5].num_elements();
    Result<Tuple> step = (*train)->Run(
        {w_in, w_out, (*batch)[5], (*batch)[6], Tensor::Scalar<float>(lr)});
    if (!step.ok()) return Fail(step.status());
  }
  if (!inflow::IsOutOfRange(batch.status())) return Fail(batch.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  std::vector<float> w(w_in.flat<float>().begin(), w_in.flat<float>().end());
  std::map<std::string, int64_t> ids;
  for (int64_t i = 0; i < vocab; ++i) {
    ids[vocab_word.flat<std::string>()[i]] = i;
  }
  std::string neighbors;
  std::stringstream queries(flags["--query"]);
  for (std::string q; std::getline(queries, q, ',');) {
    auto it = ids.find(q);
    if (it == ids.end()) {
      std::fprintf(stderr, "--query: %s is not in the vocabulary\n", q.c_str());
      return 1;
    }
    const int64_t nn = Nearest(w, vocab, dim, it->second);
    if (!neighbors.empty()) neighbors += ", ";
    inflow::AppendJsonString(q, &neighbors);
    neighbors += ": ";
    inflow::AppendJsonString(vocab_word.flat<std::string>()[nn], &neighbors);
  }
  std::printf(
      "{\"example\": \"word2vec\", \"language\": \"c++\", \"vocab\": %lld, "
      "\"words\": %lld, \"pairs\": %lld, \"words_per_sec\": %.1f, "
      "\"neighbors\": {%s}}\n",
      static_cast<long long>(vocab), static_cast<long long>(words),
      static_cast<long long>(pairs), static_cast<double>(words) / seconds,
      neighbors.c_str());
  return 0;
}
