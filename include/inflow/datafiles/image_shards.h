// Copyright 2026 The inflow Authors.
//
// Image datasets as sharded TFRecord files of tf.train.Example records
// (docs/formats.md "Image shards"), the input of `inflow train`. Each
// record holds one image and its label:
//
//   image_raw  bytes_list  the image's elements, row-major (H, W, C),
//                          little-endian: 784 bytes for a 28x28 uint8 image
//   label      int64_list  the label
//   height, width, depth   int64_list
//
// Shard i of n is PREFIX-%05d-of-%05d.tfrecord (TF's naming); shard i holds
// records [i * N / n, (i + 1) * N / n) in source order.
//
// Thread-safe (functions); the PendingFiles passed in is not.

#ifndef INFLOW_DATAFILES_IMAGE_SHARDS_H_
#define INFLOW_DATAFILES_IMAGE_SHARDS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/datafiles/pending_files.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"

namespace inflow {

inline constexpr int kMaxShards = 99999;

// "PREFIX-00003-of-00010.tfrecord". Precondition: 0 <= index < count <=
// kMaxShards.
std::string ShardFileName(std::string_view prefix, int index, int count);

// One serialized Example as described above.
std::string EncodeImageExample(std::string_view image_raw, int64_t label,
                               int64_t height, int64_t width, int64_t depth);

struct ImageShardOptions {
  int num_shards = 1;
  RecordWriterOptions writer;  // compression
  // Called after each record with the number written so far (of this
  // call), on the calling thread; may be empty.
  std::function<void(int64_t)> progress;
};

// Checks that `images` and `labels` can become image shards: images of
// shape [N, H, W] or [N, H, W, C] of a numeric dtype, labels of shape [N]
// of an integer dtype (bool excluded). INVALID_ARGUMENT naming the
// offending tensor, `images_name` or `labels_name`, otherwise.
[[nodiscard]] Status CheckImagesAndLabels(const Tensor& images,
                                          std::string_view images_name,
                                          const Tensor& labels,
                                          std::string_view labels_name);

// Writes the shards of images[i] with labels[i] under temporary names
// registered with `pending` (the caller commits or abandons), syncing
// each; returns the final paths. INVALID_ARGUMENT when CheckImagesAndLabels
// fails or num_shards is not in [1, kMaxShards]; I/O errors name the file.
[[nodiscard]] Result<std::vector<std::string>> WriteImageShards(
    Env& env, const Tensor& images, const Tensor& labels,
    const std::string& prefix, const ImageShardOptions& options,
    PendingFiles& pending);

}  // namespace inflow

#endif  // INFLOW_DATAFILES_IMAGE_SHARDS_H_
