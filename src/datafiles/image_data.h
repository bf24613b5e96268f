// Copyright 2026 The inflow Authors.
//
// The image shards `inflow convert` writes (DIR/train-*.tfrecord,
// DIR/test-*.tfrecord, DIR/dataset.json naming their compression), read
// the simple way: in the calling thread, a batch at a time, records in
// file order. `inflow train --feed sync` trains from it, and the test set
// and `--feed preloaded` are loaded with it.
//
// Not thread-safe: one thread reads.

#ifndef INFLOW_SRC_DATAFILES_IMAGE_DATA_H_
#define INFLOW_SRC_DATAFILES_IMAGE_DATA_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/example/example_parser.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"
#include "inflow/io/record_reader.h"

namespace inflow::internal {

// Bytes per image (28 x 28 x 1) and the scale that maps them to [0, 1].
inline constexpr int64_t kImageSize = 784;
inline constexpr float kPixelScale = 1.0f / 255.0f;

struct ImageSplit {
  std::vector<std::string> files;  // sorted
  CompressionType compression = CompressionType::kNone;
  std::string compression_name;  // "", "GZIP" or "ZLIB" (TFRecord's names)
  std::string pattern;           // DIR/<split>-*.tfrecord
  // The shard count N of the PREFIX-i-of-N names among `files` (0 when
  // none is so named), and the names of those of the N that are absent.
  int num_shards = 0;
  std::vector<std::string> missing;
};

// DIR/<split>-*.tfrecord, their compression found from the first one's
// bytes. NOT_FOUND naming the pattern when no shard matches;
// INVALID_ARGUMENT when the PREFIX-i-of-N names hold two counts N (shards
// of two conversions). Absent shards of the N are listed in `missing`,
// not an error: MissingShardsError() says what a caller reports.
[[nodiscard]] Result<ImageSplit> FindImageSplit(Env& env,
                                                const std::string& dir,
                                                const std::string& split);

// "k of the N shards matching PATTERN are missing: NAME, ..." (at most 10
// names listed); "" when none is.
std::string MissingShardsMessage(const ImageSplit& split);

// Reads every record of every file of `split` (both CRCs checked):
// DATA_LOSS naming the file and offset of the first bad one. Returns the
// number of records; with `per_file`, also each file's.
[[nodiscard]] Result<int64_t> ScanImageSplit(
    Env& env, const ImageSplit& split,
    std::vector<int64_t>* per_file = nullptr);

// The features of an image Example: image_raw (bytes), label (int64).
FeatureSpecs ImageFeatureSpecs();

class ImageBatchReader {
 public:
  ImageBatchReader(Env& env, ImageSplit split, std::vector<size_t> order);

  // Up to `n` images, float32 [k, 784] in [0, 1], and labels int64 [k]
  // (k = n except at the end of the last file); OUT_OF_RANGE when every
  // file is read. Errors name the file and record offset.
  [[nodiscard]] Result<Tuple> Next(int64_t n);

 private:
  Env& env_;
  ImageSplit split_;
  std::vector<size_t> order_;  // file indices, in reading order
  size_t next_file_ = 0;
  std::unique_ptr<RecordReader> reader_;
  ExampleParser parser_;
  std::vector<std::string> records_;
};

// Every image and label of `split`, in file order: {images, labels}.
[[nodiscard]] Result<Tuple> LoadImageSplit(Env& env, const ImageSplit& split);

}  // namespace inflow::internal

#endif  // INFLOW_SRC_DATAFILES_IMAGE_DATA_H_
