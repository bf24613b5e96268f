// Copyright 2026 The inflow Authors.
//
// The three ways to load data (README.md, "Three ways to load data"): one
// training loop over a BatchSource, and one line choosing where the
// batches come from:
//   files      reading from files: a Pipeline over TFRecord shards
//   preloaded  all data in memory as tensors
//   feeding    the caller hands each batch in, from another thread
// The program first writes 1,000 Examples {"image": 4 floats, "label"} in 4
// shards to a temporary directory (and keeps the same rows in memory),
// then runs 2 epochs of batches of 32 and checks that every example came
// out twice. The lines between "README begin" and "README end" are
// README's snippet, word for word (a ctest checks it).
//
//   build/release/bin/example_load_data [files|preloaded|feeding]

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "inflow/example/example.h"
#include "inflow/input/batch_source.h"
#include "inflow/input/pipeline.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"

namespace {

constexpr int64_t kExamples = 1000;

// Writes the shards and returns the same data as {images, labels}.
inflow::Tuple WriteShards(const std::string& dir) {
  std::vector<float> images;
  std::vector<int64_t> labels;
  std::unique_ptr<inflow::RecordWriter> writer;
  for (int64_t i = 0; i < kExamples; ++i) {
    if (i % 250 == 0) {
      if (writer) writer->Close().IgnoreError();
      writer = inflow::RecordWriter::Create(
                   inflow::Env::Default(),
                   dir + "/train-" + std::to_string(i / 250) + ".tfrecord")
                   .value();
    }
    const std::vector<float> image(4, static_cast<float>(i) / kExamples);
    images.insert(images.end(), image.begin(), image.end());
    labels.push_back(i);
    const std::string record = inflow::Example()
                                   .Set("image", inflow::Feature::Floats(image))
                                   .Set("label", inflow::Feature::Int64s({i}))
                                   .Serialize();
    if (!writer->WriteRecord(record).ok()) std::abort();
  }
  if (!writer->Close().ok()) std::abort();
  return {
      inflow::Tensor::FromVector(images, inflow::TensorShape({kExamples, 4}))
          .value(),
      inflow::Tensor::FromVector(labels)};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string way = argc > 1 ? argv[1] : "files";
  char dir_template[] = "/tmp/inflow_load_data_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return 2;
  const std::string dir = dir_template;
  const inflow::Tuple in_memory = WriteShards(dir);
  const inflow::Tensor& images = in_memory[0];
  const inflow::Tensor& labels = in_memory[1];
  std::thread feeder;

  // README begin
  inflow::BatchingOptions batching{
      .batch_size = 32, .shuffle = true, .min_after_dequeue = 200, .seed = 1};
  std::shared_ptr<inflow::BatchSource> source;
  if (way == "files") {  // reading from files
    source = inflow::Pipeline::Create(
                 {.files = {dir + "/train-*.tfrecord"},
                  .num_epochs = 2,
                  .features = {{"image", inflow::FixedLenFeature(
                                             {4}, inflow::DType::kFloat32)},
                               {"label", inflow::FixedLenFeature(
                                             {}, inflow::DType::kInt64)}},
                  .num_readers = 2,
                  .batching = batching})
                 .value();
  } else if (way == "preloaded") {  // all data in memory as tensors
    source = inflow::Preloaded::Create({images, labels},
                                       {.names = {"image", "label"},
                                        .num_epochs = 2,
                                        .batching = batching})
                 .value();
  } else {  // feeding: the caller hands each batch in
    auto feeding =
        inflow::Feeding::Create(
            {.dtypes = {inflow::DType::kFloat32, inflow::DType::kInt64},
             .row_shapes = {inflow::PartialShape({4}),
                            inflow::PartialShape({})},
             .names = {"image", "label"}})
            .value();
    feeder = std::thread([feeding, &images, &labels] {
      for (int epoch = 0; epoch < 2; ++epoch) {
        for (int64_t b = 0; b < images.dim_size(0); b += 32) {
          const int64_t e = std::min(b + 32, images.dim_size(0));
          if (!feeding->Feed({images.Slice(b, e), labels.Slice(b, e)}).ok())
            return;  // closed
        }
      }
      feeding->Finish();
    });
    source = feeding;
  }
  // The training loop is the same for all three.
  std::vector<int> seen(labels.dim_size(0));
  for (;;) {
    inflow::Result<inflow::Tuple> batch = source->Next();
    if (!batch.ok()) break;  // OUT_OF_RANGE: the end; or the first error
    const inflow::Tensor& label = (*batch)[1];  // [n]; train on the batch
    for (int64_t l : label.flat<int64_t>()) ++seen[l];
  }
  inflow::Status s = source->Close();  // OK, or the first error of a stage
  // README end

  if (feeder.joinable()) feeder.join();
  for (int i = 0; i < 4; ++i) {
    const std::string shard = dir + "/train-" + std::to_string(i) + ".tfrecord";
    inflow::Env::Default().DeleteFile(shard).IgnoreError();
  }
  rmdir(dir.c_str());
  int64_t twice = 0;
  for (int n : seen) twice += n == 2;
  std::printf("%s: %lld of %lld examples seen twice: %s\n", way.c_str(),
              static_cast<long long>(twice), static_cast<long long>(kExamples),
              s.ToString().c_str());
  // Shuffled batches of 32: the remainder of 2000 / 32 is dropped.
  const int64_t dropped = (2 * kExamples) % 32;
  return s.ok() && twice >= kExamples - dropped ? 0 : 1;
}
