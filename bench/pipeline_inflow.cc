// Copyright 2026 The inflow Authors.

#include "pipeline_inflow.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "inflow/example/decode_raw.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/readers.h"
#include "inflow/queue/fifo_queue.h"
#include "inflow/queue/random_shuffle_queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

#include "pipeline_data.h"

namespace inflow::bench {
namespace {

template <typename T>
T OrDie(Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench_pipeline: %s\n", r.status().ToString().c_str());
    std::abort();
  }
  return std::move(r).value();
}

void OrDie(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "bench_pipeline: %s\n", s.ToString().c_str());
    std::abort();
  }
}

// string_input_producer(paths, num_epochs, shuffle=False): the queue and
// its runner.
std::shared_ptr<QueueRunner> FilenameRunner(
    const std::shared_ptr<QueueInterface>& queue,
    const std::vector<std::string>& paths, int num_epochs) {
  Tensor names(DType::kString,
               TensorShape({static_cast<int64_t>(paths.size())}));
  auto flat = OrDie(names.mutable_flat<std::string>());
  for (size_t i = 0; i < paths.size(); ++i) flat[i] = paths[i];
  auto epochs = std::make_shared<std::atomic<int>>(0);
  auto epoch = [names, epochs,
                num_epochs](const CallOptions&) -> Result<Tuple> {
    if (epochs->fetch_add(1) >= num_epochs) {
      return OutOfRangeError("Reached limit of " + std::to_string(num_epochs));
    }
    return Tuple{names};
  };
  return OrDie(
      QueueRunner::Create(queue, {MakeEnqueueOp(queue, epoch, /*many=*/true)}));
}

// One reader thread's step: ReadUpTo -> ParseBatch -> image to float.
class ReadStep {
 public:
  ReadStep(std::shared_ptr<QueueInterface> filenames,
           std::shared_ptr<const ExampleParser> parser)
      : filenames_(std::move(filenames)),
        parser_(std::move(parser)),
        reader_(OrDie(NewTFRecordReader(Env::Default()))) {}

  Result<Tuple> operator()(const CallOptions& options) {
    INFLOW_RETURN_IF_ERROR(
        reader_->ReadUpTo(*filenames_, kReadUpTo, &records_, options));
    INFLOW_ASSIGN_OR_RETURN(ParsedFeatures parsed,
                            parser_->ParseBatch(records_.values()));
    INFLOW_ASSIGN_OR_RETURN(Tensor images,
                            DecodeRawToFloat(parsed.dense[0], 1.0f / 255));
    return Tuple{std::move(images), std::move(parsed.dense[1])};
  }

 private:
  std::shared_ptr<QueueInterface> filenames_;
  std::shared_ptr<const ExampleParser> parser_;
  std::unique_ptr<ReaderBase> reader_;
  RecordBatch records_;  // reused: no allocation per record
};

}  // namespace

LoopResult RunInflowPipeline(const std::vector<std::string>& paths,
                             int num_epochs, int num_readers) {
  auto filenames = OrDie(FIFOQueue::Create({.capacity = 32,
                                            .dtypes = {DType::kString},
                                            .shapes = {PartialShape({})}}));
  auto parser = std::make_shared<const ExampleParser>(OrDie(
      ExampleParser::Create({{"image_raw", FixedLenFeature{{}, DType::kString}},
                             {"label", FixedLenFeature{{}, DType::kInt64}}})));
  std::shared_ptr<QueueInterface> shuffle = OrDie(RandomShuffleQueue::Create(
      {.capacity = kCapacity,
       .dtypes = {DType::kFloat32, DType::kInt64},
       .shapes = {PartialShape({kImageBytes}), PartialShape({})},
       .min_after_dequeue = kMinAfterDequeue,
       .seed = 87654321,
       .seed2 = 1}));
  std::vector<QueueOp> ops;
  for (int i = 0; i < num_readers; ++i) {
    auto step = std::make_shared<ReadStep>(filenames, parser);
    ops.push_back(MakeEnqueueOp(
        shuffle, [step](const CallOptions& o) { return (*step)(o); },
        /*many=*/true));
  }
  QueueRunnerOptions runner_options;
  // A reader that finds the filename queue closed ends its thread.
  runner_options.queue_closed_codes = {StatusCode::kOutOfRange,
                                       StatusCode::kCancelled};
  auto batch_runner =
      OrDie(QueueRunner::Create(shuffle, std::move(ops), runner_options));
  Coordinator coord;
  std::vector<std::shared_ptr<Thread>> threads =
      FilenameRunner(filenames, paths, num_epochs)
          ->CreateThreads(&coord, /*start=*/true);
  for (auto& t : batch_runner->CreateThreads(&coord, /*start=*/true)) {
    threads.push_back(std::move(t));
  }
  LoopResult result;
  const CallOptions options = coord.MakeCallOptions();
  while (true) {
    Result<Tuple> batch = shuffle->DequeueMany(kBatchSize, options);
    if (!batch.ok()) {
      if (!IsOutOfRange(batch.status())) OrDie(batch.status());
      break;
    }
    const Tensor& images = (*batch)[0];
    const Tensor& labels = (*batch)[1];
    result.checksum +=
        ConsumeBatch(images.data<float>(), labels.data<int64_t>(), kBatchSize);
    result.samples += kBatchSize;
  }
  coord.RequestStop();
  OrDie(coord.Join(threads));
  return result;
}

}  // namespace inflow::bench
