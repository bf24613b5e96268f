// Copyright 2026 The inflow Authors.

#include "pipeline_inflow.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "inflow/core/metrics.h"
#include "inflow/example/decode_raw.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/batching.h"
#include "inflow/input/pipeline.h"
#include "inflow/input/producers.h"
#include "inflow/input/readers.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

#include "bench_util.h"
#include "pipeline_data.h"

namespace inflow::bench {
namespace {

// kReadUpTo, or INFLOW_BENCH_READ_UP_TO (for trying other sizes).
int64_t ReadUpToCount() {
  static const int64_t n = [] {
    const char* env = std::getenv("INFLOW_BENCH_READ_UP_TO");
    return env != nullptr ? std::atoll(env) : int64_t{kReadUpTo};
  }();
  return n;
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
        reader_->ReadUpTo(*filenames_, ReadUpToCount(), &records_, options));
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

// Takes batches from `next` until OUT_OF_RANGE, consuming each, and
// records the thread's CPU time in `next` and in ConsumeBatch.
template <typename Next>
LoopResult ConsumeAll(Next next) {
  LoopResult result;
  double t = ThreadCpuSeconds();
  while (true) {
    Result<Tuple> batch = next();
    const double got = ThreadCpuSeconds();
    result.next_cpu_s += got - t;
    if (!batch.ok()) {
      if (!IsOutOfRange(batch.status())) OrDie(batch.status());
      break;
    }
    result.checksum += ConsumeBatch((*batch)[0].data<float>(),
                                    (*batch)[1].data<int64_t>(), kBatchSize);
    result.samples += kBatchSize;
    t = ThreadCpuSeconds();
    result.consume_cpu_s += t - got;
  }
  return result;
}

}  // namespace

LoopResult RunInflowPipeline(const std::vector<std::string>& paths,
                             int num_epochs, int num_readers, int nice) {
  // Runners and metrics of this run only.
  QueueRunnerCollection collection;
  MetricsRegistry metrics;
  Producer filenames =
      OrDie(StringInputProducer(paths, {.num_epochs = num_epochs,
                                        .seed = 7,
                                        .metrics = &metrics,
                                        .collection = &collection}));
  auto parser = std::make_shared<const ExampleParser>(OrDie(
      ExampleParser::Create({{"image_raw", FixedLenFeature{{}, DType::kString}},
                             {"label", FixedLenFeature{{}, DType::kInt64}}})));
  std::vector<BatchInput> inputs;
  for (int i = 0; i < num_readers; ++i) {
    auto step = std::make_shared<ReadStep>(filenames.queue, parser);
    inputs.push_back(
        {.dtypes = {DType::kFloat32, DType::kInt64},
         .shapes = {PartialShape({-1, kImageBytes}), PartialShape({-1})},
         .step = [step](const CallOptions& o) { return (*step)(o); }});
  }
  ShuffleBatchOptions options;
  options.batch_size = kBatchSize;
  options.capacity = kCapacity;
  options.min_after_dequeue = kMinAfterDequeue;
  options.enqueue_many = true;
  options.seed = 1;
  options.metrics = &metrics;
  options.collection = &collection;
  options.nice = nice;
  std::shared_ptr<Batcher> batches =
      OrDie(ShuffleBatchJoin(std::move(inputs), options));
  Coordinator coord;
  std::vector<std::shared_ptr<Thread>> threads = collection.Start(&coord);
  const CallOptions call = coord.MakeCallOptions();
  const LoopResult result = ConsumeAll([&] { return batches->Next(call); });
  coord.RequestStop();
  OrDie(coord.Join(threads));
  return result;
}

LoopResult RunPipelineBuilder(const std::vector<std::string>& paths,
                              int num_epochs, int num_readers, int nice) {
  MetricsRegistry metrics;
  PipelineOptions options;
  options.files = paths;
  options.num_epochs = num_epochs;
  options.num_readers = num_readers;
  options.read_batch = ReadUpToCount();
  options.features = {{"image_raw", FixedLenFeature{{}, DType::kString}},
                      {"label", FixedLenFeature{{}, DType::kInt64}}};
  if (std::getenv("INFLOW_BENCH_PIPELINE_MAP") != nullptr) {
    // The image converted by a map function, after parsing (the form
    // before raw_to_float).
    options.map = MapFunction{
        .fn = [](Tuple rows) -> Result<Tuple> {
          INFLOW_ASSIGN_OR_RETURN(Tensor images,
                                  DecodeRawToFloat(rows[0], 1.0f / 255));
          return Tuple{std::move(images), std::move(rows[1])};
        },
        .dtypes = {DType::kFloat32, DType::kInt64},
        .row_shapes = {PartialShape({kImageBytes}), PartialShape({})}};
  } else {
    options.raw_to_float = {
        {.feature = "image_raw", .length = kImageBytes, .scale = 1.0f / 255}};
  }
  options.batching.batch_size = kBatchSize;
  options.batching.shuffle = true;
  options.batching.capacity = kCapacity;
  options.batching.min_after_dequeue = kMinAfterDequeue;
  options.batching.seed = 1;
  options.batching.nice = nice;
  options.metrics = &metrics;
  std::shared_ptr<Pipeline> pipeline =
      OrDie(Pipeline::Create(std::move(options)));
  const LoopResult result = ConsumeAll([&] { return pipeline->Next(); });
  OrDie(pipeline->Close());
  return result;
}

}  // namespace inflow::bench
