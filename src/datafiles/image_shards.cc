// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/image_shards.h"

#include <cstdio>
#include <memory>

#include "inflow/example/example.h"

namespace inflow {
namespace {

bool IsIntegerDType(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
      return true;
    default:
      return false;
  }
}

// Label i as int64 (uint64 labels above 2^63 wrap, as a C++ cast does;
// CheckImagesAndLabels leaves them to the caller).
int64_t LabelAt(const Tensor& labels, int64_t i) {
  switch (labels.dtype()) {
    case DType::kInt8:
      return labels.data<int8_t>()[i];
    case DType::kInt16:
      return labels.data<int16_t>()[i];
    case DType::kInt32:
      return labels.data<int32_t>()[i];
    case DType::kInt64:
      return labels.data<int64_t>()[i];
    case DType::kUInt8:
      return labels.data<uint8_t>()[i];
    case DType::kUInt16:
      return labels.data<uint16_t>()[i];
    case DType::kUInt32:
      return labels.data<uint32_t>()[i];
    case DType::kUInt64:
      return static_cast<int64_t>(labels.data<uint64_t>()[i]);
    default:
      return 0;
  }
}

std::string ShapeString(const TensorShape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.dims().size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape.dims()[i]);
  }
  return s + "]";
}

}  // namespace

std::string ShardFileName(std::string_view prefix, int index, int count) {
  char suffix[64];
  std::snprintf(suffix, sizeof(suffix), "-%05d-of-%05d.tfrecord", index, count);
  return std::string(prefix) + suffix;
}

std::string EncodeImageExample(std::string_view image_raw, int64_t label,
                               int64_t height, int64_t width, int64_t depth) {
  return Example()
      .Set("image_raw", Feature::Bytes({std::string(image_raw)}))
      .Set("label", Feature::Int64s({label}))
      .Set("height", Feature::Int64s({height}))
      .Set("width", Feature::Int64s({width}))
      .Set("depth", Feature::Int64s({depth}))
      .Serialize();
}

Status CheckImagesAndLabels(const Tensor& images, std::string_view images_name,
                            const Tensor& labels,
                            std::string_view labels_name) {
  const auto& dims = images.shape().dims();
  if (dims.size() != 3 && dims.size() != 4) {
    return InvalidArgumentError(
        std::string(images_name) + ": images must have shape [N, H, W] or " +
        "[N, H, W, C], not " + ShapeString(images.shape()));
  }
  if (images.dtype() == DType::kString || images.dtype() == DType::kBool) {
    return InvalidArgumentError(std::string(images_name) +
                                ": images must be numeric, not " +
                                std::string(DTypeName(images.dtype())));
  }
  if (labels.shape().dims().size() != 1) {
    return InvalidArgumentError(std::string(labels_name) +
                                ": labels must have shape [N], not " +
                                ShapeString(labels.shape()));
  }
  if (!IsIntegerDType(labels.dtype())) {
    return InvalidArgumentError(std::string(labels_name) +
                                ": labels must be integers, not " +
                                std::string(DTypeName(labels.dtype())));
  }
  if (labels.shape().dims()[0] != dims[0]) {
    return InvalidArgumentError(
        std::string(images_name) + " holds " + std::to_string(dims[0]) +
        " images but " + std::string(labels_name) + " holds " +
        std::to_string(labels.shape().dims()[0]) + " labels");
  }
  return OkStatus();
}

Result<std::vector<std::string>> WriteImageShards(
    Env& env, const Tensor& images, const Tensor& labels,
    const std::string& prefix, const ImageShardOptions& options,
    PendingFiles& pending) {
  INFLOW_RETURN_IF_ERROR(
      CheckImagesAndLabels(images, "images", labels, "labels"));
  if (options.num_shards < 1 || options.num_shards > kMaxShards) {
    return InvalidArgumentError("the number of shards must be in [1, " +
                                std::to_string(kMaxShards) + "], not " +
                                std::to_string(options.num_shards));
  }
  const auto& dims = images.shape().dims();
  const int64_t n = dims[0];
  const int64_t height = dims[1], width = dims[2];
  const int64_t depth = dims.size() == 4 ? dims[3] : 1;
  const size_t image_bytes =
      static_cast<size_t>(height * width * depth) * DTypeSize(images.dtype());
  const char* pixels = static_cast<const char*>(images.raw_data());
  std::vector<std::string> paths;
  int64_t written = 0;
  for (int s = 0; s < options.num_shards; ++s) {
    const std::string path = ShardFileName(prefix, s, options.num_shards);
    const std::string tmp = pending.Add(path);
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer,
                            RecordWriter::Create(env, tmp, options.writer));
    const int64_t begin = s * n / options.num_shards;
    const int64_t end = (s + 1) * n / options.num_shards;
    for (int64_t i = begin; i < end; ++i) {
      const std::string record = EncodeImageExample(
          std::string_view(pixels + i * image_bytes, image_bytes),
          LabelAt(labels, i), height, width, depth);
      Status st = writer->WriteRecord(record);
      if (!st.ok()) return st.WithContext(tmp);
      ++written;
      if (options.progress) options.progress(written);
    }
    Status st = writer->Sync();
    if (st.ok()) st = writer->Close();
    if (!st.ok()) return st.WithContext(tmp);
    paths.push_back(path);
  }
  return paths;
}

}  // namespace inflow
