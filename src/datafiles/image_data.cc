// Copyright 2026 The inflow Authors.

#include "datafiles/image_data.h"

#include <string_view>
#include <utility>

#include "inflow/datafiles/image_shards.h"
#include "inflow/example/decode_raw.h"

#include "io/path.h"

namespace inflow::internal {
namespace {

RecordReaderOptions ReaderOptions(CompressionType compression) {
  RecordReaderOptions options;
  options.compression = compression;
  return options;
}

// The index and count of ".../NAME-00003-of-00010.tfrecord" (ShardFileName's
// form); false for any other name.
bool ParseShardName(std::string_view path, std::string_view* prefix, int* index,
                    int* count) {
  constexpr std::string_view kSuffix = ".tfrecord";
  constexpr size_t kTail = 1 + 5 + 4 + 5;  // "-00003-of-00010"
  if (path.size() < kSuffix.size() + kTail ||
      path.substr(path.size() - kSuffix.size()) != kSuffix) {
    return false;
  }
  const std::string_view tail =
      path.substr(path.size() - kSuffix.size() - kTail, kTail);
  if (tail[0] != '-' || tail.substr(6, 4) != "-of-") return false;
  auto number = [](std::string_view digits, int* out) {
    int v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
  };
  if (!number(tail.substr(1, 5), index) || !number(tail.substr(10, 5), count) ||
      *index >= *count) {
    return false;
  }
  *prefix = path.substr(0, path.size() - kSuffix.size() - kTail);
  return true;
}

}  // namespace

std::string MissingShardsMessage(const ImageSplit& split) {
  if (split.missing.empty()) return "";
  std::string names;
  constexpr size_t kListed = 10;
  for (size_t i = 0; i < split.missing.size() && i < kListed; ++i) {
    names += (i ? ", " : "") + internal::Basename(split.missing[i]);
  }
  if (split.missing.size() > kListed) names += ", ...";
  return std::to_string(split.missing.size()) + " of the " +
         std::to_string(split.num_shards) + " shards matching " +
         split.pattern + " are missing: " + names;
}

Result<ImageSplit> FindImageSplit(Env& env, const std::string& dir,
                                  const std::string& split) {
  const std::string pattern = dir + "/" + split + "-*.tfrecord";
  INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> files,
                          GetMatchingPaths(env, pattern));
  if (files.empty()) {
    return NotFoundError("no " + split + " shards match " + pattern +
                         " (write them with `inflow convert fashion-mnist "
                         "--out " +
                         dir + "`)");
  }
  ImageSplit out;
  out.pattern = pattern;
  // The PREFIX-i-of-N names: one N, and which of its shards are absent.
  std::string_view prefix;
  std::vector<bool> present;
  std::string first_named;
  for (const std::string& file : files) {
    std::string_view p;
    int index = 0, count = 0;
    if (!ParseShardName(file, &p, &index, &count)) continue;
    if (out.num_shards == 0) {
      out.num_shards = count;
      prefix = p;
      first_named = file;
      present.assign(count, false);
    } else if (count != out.num_shards || p != prefix) {
      return InvalidArgumentError(
          pattern + " matches shards of two sets, " +
          internal::Basename(first_named) + " and " + internal::Basename(file) +
          " (two conversions into one folder?): remove the stale ones");
    }
    present[index] = true;
  }
  for (int i = 0; i < out.num_shards; ++i) {
    if (!present[i]) {
      out.missing.push_back(ShardFileName(prefix, i, out.num_shards));
    }
  }
  // Every shard of a split is written with one compression.
  INFLOW_ASSIGN_OR_RETURN(out.compression,
                          DetectFileCompression(env, files.front()));
  out.compression_name = std::string(CompressionTypeName(out.compression));
  out.files = std::move(files);
  return out;
}

Result<int64_t> ScanImageSplit(Env& env, const ImageSplit& split,
                               std::vector<int64_t>* per_file) {
  int64_t n = 0;
  if (per_file != nullptr) per_file->clear();
  for (const std::string& file : split.files) {
    const int64_t before = n;
    INFLOW_ASSIGN_OR_RETURN(
        std::unique_ptr<RecordReader> reader,
        RecordReader::Open(env, file, ReaderOptions(split.compression)));
    for (;;) {
      Result<std::string_view> r = reader->Next();
      if (IsOutOfRange(r.status())) break;
      INFLOW_RETURN_IF_ERROR(r.status());
      ++n;
    }
    if (per_file != nullptr) per_file->push_back(n - before);
  }
  return n;
}

FeatureSpecs ImageFeatureSpecs() {
  return {{"image_raw", FixedLenFeature(TensorShape({}), DType::kString)},
          {"label", FixedLenFeature(TensorShape({}), DType::kInt64)}};
}

ImageBatchReader::ImageBatchReader(Env& env, ImageSplit split,
                                   std::vector<size_t> order)
    : env_(env),
      split_(std::move(split)),
      order_(std::move(order)),
      parser_(ExampleParser::Create(ImageFeatureSpecs()).value()) {}

Result<Tuple> ImageBatchReader::Next(int64_t n) {
  records_.clear();
  std::string first_file;
  uint64_t first_offset = 0;
  while (static_cast<int64_t>(records_.size()) < n) {
    if (reader_ == nullptr) {
      if (next_file_ == order_.size()) break;
      const std::string& file = split_.files[order_[next_file_++]];
      INFLOW_ASSIGN_OR_RETURN(
          reader_,
          RecordReader::Open(env_, file, ReaderOptions(split_.compression)));
    }
    if (records_.empty()) {
      first_file = reader_->filename();
      first_offset = reader_->offset();
    }
    Result<std::string_view> r = reader_->Next();
    if (IsOutOfRange(r.status())) {
      reader_.reset();
      continue;
    }
    INFLOW_RETURN_IF_ERROR(r.status());
    records_.emplace_back(*r);
  }
  if (records_.empty()) return OutOfRangeError("end of input");
  const std::string where =
      "parse: records from " + first_file + ":" + std::to_string(first_offset);
  Result<ParsedFeatures> parsed = parser_.ParseBatch(
      std::span<const std::string>(records_.data(), records_.size()));
  if (!parsed.ok()) return parsed.status().WithContext(where);
  Result<Tensor> images = DecodeRawToFloat(parsed->dense[0], kPixelScale);
  if (!images.ok()) return images.status().WithContext(where + ": image_raw");
  if (images->shape().dim(1) != kImageSize) {
    return InvalidArgumentError(where + ": image_raw holds " +
                                std::to_string(images->shape().dim(1)) +
                                " bytes, not " + std::to_string(kImageSize));
  }
  return Tuple{*std::move(images), std::move(parsed->dense[1])};
}

Result<Tuple> LoadImageSplit(Env& env, const ImageSplit& split) {
  std::vector<size_t> order(split.files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  ImageBatchReader reader(env, split, std::move(order));
  std::vector<Tensor> images, labels;
  for (;;) {
    Result<Tuple> batch = reader.Next(4096);
    if (IsOutOfRange(batch.status())) break;
    INFLOW_RETURN_IF_ERROR(batch.status());
    images.push_back(std::move((*batch)[0]));
    labels.push_back(std::move((*batch)[1]));
  }
  if (images.empty()) {
    return InvalidArgumentError("no records in " + split.files.front());
  }
  INFLOW_ASSIGN_OR_RETURN(Tensor all_images, Tensor::Concat(images));
  INFLOW_ASSIGN_OR_RETURN(Tensor all_labels, Tensor::Concat(labels));
  return Tuple{std::move(all_images), std::move(all_labels)};
}

}  // namespace inflow::internal
