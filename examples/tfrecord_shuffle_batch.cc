// Copyright 2026 The inflow Authors.
//
// TFRecord write and read, TF 1.x style: 600 Examples {"x": 2 floats,
// "label"} go into 3 files with RecordWriter; then a string_input_producer
// (2 epochs, shuffled) feeds a TFRecordReader, whose records are parsed
// and batched by shuffle_batch (2 threads), and the loop takes batches
// until OUT_OF_RANGE. It checks that every example came out twice.
//
//   build/release/bin/example_tfrecord_shuffle_batch [dir]

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "inflow/example/example.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/batching.h"
#include "inflow/input/producers.h"
#include "inflow/input/readers.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

using namespace inflow;  // a small program

constexpr int64_t kExamples = 600, kFiles = 3;

Result<std::vector<std::string>> WriteFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (int64_t f = 0; f < kFiles; ++f) {
    files.push_back(dir + "/data-" + std::to_string(f) + ".tfrecord");
    INFLOW_ASSIGN_OR_RETURN(auto writer,
                            RecordWriter::Create(Env::Default(), files.back()));
    for (int64_t i = f; i < kExamples; i += kFiles) {
      const float v = static_cast<float>(i);
      INFLOW_RETURN_IF_ERROR(
          writer->WriteRecord(Example()
                                  .Set("x", Feature::Floats({v, -v}))
                                  .Set("label", Feature::Int64s({i}))
                                  .Serialize()));
    }
    INFLOW_RETURN_IF_ERROR(writer->Close());
  }
  return files;
}

Status Run(const std::string& dir) {
  INFLOW_ASSIGN_OR_RETURN(std::vector<std::string> files, WriteFiles(dir));

  // string_input_producer -> TFRecordReader -> parse -> shuffle_batch.
  INFLOW_ASSIGN_OR_RETURN(
      Producer filenames,
      StringInputProducer(files,
                          {.num_epochs = 2, .shuffle = true, .seed = 7}));
  INFLOW_ASSIGN_OR_RETURN(
      ExampleParser parser,
      ExampleParser::Create(
          {{"x", FixedLenFeature(TensorShape({2}), DType::kFloat32)},
           {"label", FixedLenFeature(TensorShape({}), DType::kInt64)}}));
  // One reader per batching thread, each reading its own files.
  std::vector<std::shared_ptr<ReaderBase>> readers;
  for (int t = 0; t < 2; ++t) {
    INFLOW_ASSIGN_OR_RETURN(auto reader, NewTFRecordReader(Env::Default()));
    readers.push_back(std::move(reader));
  }
  auto next_reader = std::make_shared<std::atomic<int>>(0);
  BatchInput input{
      .dtypes = {DType::kFloat32, DType::kInt64},
      .shapes = {PartialShape({2}), PartialShape({})},
      .step = [&, next_reader](const CallOptions& call) -> Result<Tuple> {
        thread_local int mine = next_reader->fetch_add(1);
        INFLOW_ASSIGN_OR_RETURN(ReaderRecord r,
                                readers[mine]->Read(*filenames.queue, call));
        INFLOW_ASSIGN_OR_RETURN(ParsedFeatures p, parser.ParseSingle(r.value));
        return Tuple{p.dense[0], p.dense[1]};
      }};
  ShuffleBatchOptions options;
  options.batch_size = 32;
  options.num_threads = 2;
  options.capacity = 200;
  options.min_after_dequeue = 100;
  options.seed = 1;
  INFLOW_ASSIGN_OR_RETURN(auto batches, ShuffleBatch(input, options));

  Coordinator coord;
  auto threads = StartQueueRunners(&coord);
  std::vector<int> seen(kExamples, 0);
  int64_t n = 0;
  Status status;
  for (;;) {
    Result<Tuple> batch = batches->Next(coord.MakeCallOptions());
    if (!batch.ok()) {
      if (!IsOutOfRange(batch.status())) status = batch.status();
      break;
    }
    for (int64_t label : (*batch)[1].flat<int64_t>()) ++seen[label];
    n += (*batch)[1].num_elements();
  }
  coord.RequestStop();
  INFLOW_RETURN_IF_ERROR(coord.Join(threads, std::chrono::seconds(10)));
  INFLOW_RETURN_IF_ERROR(status);
  // 1200 examples in full batches of 32: 37 batches, 16 left in the queue.
  int64_t twice = 0;
  for (int c : seen) twice += c == 2;
  std::printf("%lld examples in batches of 32; %lld of %lld seen twice\n",
              static_cast<long long>(n), static_cast<long long>(twice),
              static_cast<long long>(kExamples));
  if (n != 2 * kExamples / 32 * 32) return InternalError("wrong count");
  return OkStatus();
}

int main(int argc, char** argv) {
  std::string dir;
  if (argc > 1) {
    dir = argv[1];
  } else {
    char tmpl[] = "/tmp/inflow_tfrecord_XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return 1;
    dir = tmpl;
  }
  Status s = Run(dir);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
