// Copyright 2026 The inflow Authors.
//
// bench_pipeline's input: Fashion-MNIST's training images (Debian's
// dataset-fashion-mnist, idx files gzipped) written as TFRecord shards of
// tf.train.Examples, as TF1's tutorials store MNIST:
//   image_raw  bytes, the 28x28 uint8 pixels (784 bytes)
//   label      int64
//   height, width, depth  int64 (28, 28, 1)

#ifndef INFLOW_BENCH_PIPELINE_DATA_H_
#define INFLOW_BENCH_PIPELINE_DATA_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"

namespace inflow::bench {

// The value of `r`; a failure ends the benchmark with its status.
template <typename T>
T OrDie(Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench_pipeline: %s\n", r.status().ToString().c_str());
    std::abort();
  }
  return std::move(r).value();
}

inline void OrDie(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "bench_pipeline: %s\n", s.ToString().c_str());
    std::abort();
  }
}

inline constexpr char kDatasetDir[] = "/usr/share/datasets/fashion-mnist";
inline constexpr int kImageBytes = 28 * 28;

struct Images {
  std::vector<uint8_t> pixels;  // count * kImageBytes
  std::vector<uint8_t> labels;  // count
  size_t count() const { return labels.size(); }
};

// The first `limit` training images and labels of `dir` (all with 0).
// Aborts with a message when the files are missing or malformed.
Images LoadFashionMnist(const std::string& dir, size_t limit);

// A temporary folder holding `num_shards` TFRecord shards of the images
// (image i in shard i % num_shards), removed by the destructor.
class Shards {
 public:
  Shards(const Images& images, int num_shards);
  ~Shards();
  Shards(const Shards&) = delete;
  Shards& operator=(const Shards&) = delete;

  const std::vector<std::string>& paths() const { return paths_; }
  // Examples per shard.
  const std::vector<size_t>& counts() const { return counts_; }
  size_t total() const;
  // The shards' bytes together (records with their framing).
  uint64_t bytes() const;

 private:
  std::string dir_;
  std::vector<std::string> paths_;
  std::vector<size_t> counts_;
};

}  // namespace inflow::bench

#endif  // INFLOW_BENCH_PIPELINE_DATA_H_
