// Copyright 2026 The inflow Authors.

#include "train/train_feed.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "inflow/core/metrics.h"
#include "inflow/data/dataset.h"
#include "inflow/example/decode_raw.h"
#include "inflow/input/batch_source.h"
#include "inflow/input/pipeline.h"
#include "inflow/input/record_sequence.h"
#include "inflow/input/sequence.h"

namespace inflow::internal {
namespace {

// How long one wait for a batch lasts before the stop token is checked.
constexpr std::chrono::milliseconds kStopPoll{50};
// Examples the shuffle_batch queue keeps after each dequeue (TF's MNIST
// examples' choice).
constexpr int64_t kMinAfterDequeue = 10000;
// Batches the queues hold beyond that, so that a reader thread kept off
// the CPU for a while (two cores shared with other work) does not stall
// the training thread.
constexpr int64_t kBufferedBatches = 16;

// next(call) with a timeout of kStopPoll, again while it times out, until
// it gives a batch or an error or `stop` is requested (CANCELLED).
template <typename Next>
Result<Tuple> NextUntilStopped(const std::stop_token& stop, Next next) {
  for (;;) {
    if (stop.stop_requested()) return CancelledError("training stopped");
    CallOptions call;
    call.timeout = kStopPoll;
    Result<Tuple> batch = next(call);
    if (!IsDeadlineExceeded(batch.status())) return batch;
  }
}

// A BatchSource (Pipeline or Preloaded) with stop polling.
class SourceFeed : public TrainFeed {
 public:
  SourceFeed(std::unique_ptr<MetricsRegistry> metrics,
             std::shared_ptr<BatchSource> source, std::string fill_tag,
             std::stop_token stop)
      : metrics_(std::move(metrics)),
        source_(std::move(source)),
        fill_tag_(std::move(fill_tag)),
        stop_(std::move(stop)) {}
  ~SourceFeed() override { Close().IgnoreError(); }

  // Deterministic mode: the queue's size and enqueued-count gauges, the
  // size at which it is full and the number of examples that will come.
  void WaitForFullQueue(std::string size_tag, std::string enqueued_tag,
                        int64_t capacity, int64_t total) {
    deterministic_ = true;
    size_tag_ = std::move(size_tag);
    enqueued_tag_ = std::move(enqueued_tag);
    capacity_ = capacity;
    total_ = total;
  }

  Result<Tuple> Next() override {
    if (deterministic_) INFLOW_RETURN_IF_ERROR(WaitUntilFullOrDone());
    return NextUntilStopped(
        stop_, [this](const CallOptions& call) { return source_->Next(call); });
  }

  double QueueFill() const override {
    if (fill_tag_.empty()) return 0;
    return metrics_->Read(fill_tag_).value_or(0);
  }

  Status Close() override { return source_->Close(); }

 private:
  // Each dequeue on a full queue (or after the last enqueue) draws from
  // the same contents in every run: the timing of the reader thread does
  // not reach the order.
  Status WaitUntilFullOrDone() {
    for (;;) {
      if (stop_.stop_requested()) return CancelledError("training stopped");
      std::optional<double> size = metrics_->Read(size_tag_);
      std::optional<double> enqueued = metrics_->Read(enqueued_tag_);
      if (!size || !enqueued) {
        return InternalError("the batching queue's gauges " + size_tag_ +
                             " and " + enqueued_tag_ + " are missing");
      }
      if (*size >= static_cast<double>(capacity_) ||
          *enqueued >= static_cast<double>(total_)) {
        return OkStatus();
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  std::unique_ptr<MetricsRegistry> metrics_;
  std::shared_ptr<BatchSource> source_;
  std::string fill_tag_;
  std::stop_token stop_;
  bool deterministic_ = false;
  std::string size_tag_, enqueued_tag_;
  int64_t capacity_ = 0, total_ = 0;
};

// The scope of a gauge tag ("pipeline/shuffle_batch" of
// "pipeline/shuffle_batch/fraction_over_...").
std::string TagScope(const std::string& tag) {
  return tag.substr(0, tag.rfind('/'));
}

Result<std::unique_ptr<TrainFeed>> MakeQueueFeed(Env& env,
                                                 TrainFeedOptions& o) {
  auto metrics = std::make_unique<MetricsRegistry>();
  PipelineOptions p;
  p.env = &env;
  p.files = o.split.files;
  p.compression_type = o.split.compression_name;
  p.num_epochs = o.num_epochs;
  p.shuffle_files = true;
  p.features = ImageFeatureSpecs();
  p.raw_to_float = {{"image_raw", kImageSize, kPixelScale}};
  p.num_readers = o.reader_threads;
  p.batching.batch_size = o.batch_size;
  p.batching.shuffle = true;
  p.batching.min_after_dequeue = std::min(kMinAfterDequeue, o.num_examples / 2);
  p.batching.capacity =
      p.batching.min_after_dequeue + kBufferedBatches * o.batch_size;
  p.batching.seed = o.seed;
  p.name = "input";
  p.metrics = metrics.get();
  const int64_t capacity = p.batching.capacity;
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<Pipeline> pipeline,
                          Pipeline::Create(std::move(p)));
  const std::string fill_tag = pipeline->fill_metric_tag();
  const std::string scope = TagScope(fill_tag);
  auto feed = std::make_unique<SourceFeed>(std::move(metrics), pipeline,
                                           fill_tag, o.stop);
  if (o.deterministic) {
    feed->WaitForFullQueue(scope + "/size", scope + "/enqueued", capacity,
                           o.num_epochs * o.num_examples);
  }
  return feed;
}

Result<std::unique_ptr<TrainFeed>> MakePreloadedFeed(TrainFeedOptions& o) {
  auto metrics = std::make_unique<MetricsRegistry>();
  PreloadedOptions p;
  p.num_epochs = o.num_epochs;
  p.shuffle = true;
  p.batching.batch_size = o.batch_size;
  p.batching.capacity = kBufferedBatches * o.batch_size;
  p.batching.seed = o.seed;
  p.name = "preloaded";
  p.metrics = metrics.get();
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<BatchSource> source,
                          Preloaded::Create(o.preloaded, std::move(p)));
  std::string fill_tag;
  for (const MetricSample& s : metrics->Snapshot()) {
    if (s.tag.find("batch/fraction_of_") != std::string::npos) fill_tag = s.tag;
  }
  return std::make_unique<SourceFeed>(std::move(metrics), std::move(source),
                                      fill_tag, o.stop);
}

// Reads in the training thread: each epoch the files in a new order
// (seeded), their records in order; a batch may span two epochs.
class SyncFeed : public TrainFeed {
 public:
  SyncFeed(Env& env, TrainFeedOptions o) : env_(env), o_(std::move(o)) {}

  Result<Tuple> Next() override {
    if (o_.stop.stop_requested()) return CancelledError("training stopped");
    std::vector<Tensor> images, labels;
    int64_t have = 0;
    while (have < o_.batch_size) {
      if (reader_ == nullptr) {
        if (epoch_ == o_.num_epochs) return OutOfRangeError("end of input");
        std::vector<size_t> order(o_.split.files.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::mt19937_64 rng(static_cast<uint64_t>(o_.seed) + epoch_);
        std::shuffle(order.begin(), order.end(), rng);
        reader_ = std::make_unique<ImageBatchReader>(env_, o_.split, order);
        ++epoch_;
      }
      Result<Tuple> part = reader_->Next(o_.batch_size - have);
      if (IsOutOfRange(part.status())) {
        reader_.reset();
        continue;
      }
      INFLOW_RETURN_IF_ERROR(part.status());
      have += (*part)[0].shape().dim(0);
      images.push_back(std::move((*part)[0]));
      labels.push_back(std::move((*part)[1]));
    }
    if (images.size() == 1) return Tuple{images[0], labels[0]};
    INFLOW_ASSIGN_OR_RETURN(Tensor x, Tensor::Concat(images));
    INFLOW_ASSIGN_OR_RETURN(Tensor y, Tensor::Concat(labels));
    return Tuple{std::move(x), std::move(y)};
  }
  double QueueFill() const override { return 0; }
  Status Close() override { return OkStatus(); }

 private:
  Env& env_;
  TrainFeedOptions o_;
  int64_t epoch_ = 0;
  std::unique_ptr<ImageBatchReader> reader_;
};

// The images of a RecordSequence decoded: {float32 [m, 784] in [0, 1],
// labels int64 [m]}.
class ImageSequence final : public Sequence {
 public:
  explicit ImageSequence(std::unique_ptr<RecordSequence> records)
      : records_(std::move(records)) {}

  int64_t size() override { return records_->size(); }
  Result<Tuple> Get(int64_t i, const CallOptions& options) override {
    INFLOW_ASSIGN_OR_RETURN(Tuple parsed, records_->Get(i, options));
    INFLOW_ASSIGN_OR_RETURN(Tensor images,
                            DecodeRawToFloat(parsed[0], kPixelScale));
    return Tuple{std::move(images), std::move(parsed[1])};
  }
  void OnEpochEnd() override { records_->OnEpochEnd(); }

 private:
  std::unique_ptr<RecordSequence> records_;
};

// Batch i of each epoch by record offsets, through an OrderedEnqueuer.
class SequenceFeed : public TrainFeed {
 public:
  SequenceFeed(std::unique_ptr<OrderedEnqueuer> enqueuer, std::stop_token stop)
      : enqueuer_(std::move(enqueuer)), stop_(std::move(stop)) {}
  ~SequenceFeed() override { Close().IgnoreError(); }

  Result<Tuple> Next() override {
    return NextUntilStopped(stop_, [this](const CallOptions& call) {
      return enqueuer_->Get(call);
    });
  }
  double QueueFill() const override { return 0; }
  Status Close() override { return enqueuer_->Stop(); }

 private:
  std::unique_ptr<OrderedEnqueuer> enqueuer_;
  std::stop_token stop_;
};

Result<std::unique_ptr<TrainFeed>> MakeSequenceFeed(Env& env,
                                                    TrainFeedOptions& o) {
  if (o.split.compression != CompressionType::kNone) {
    return InvalidArgumentError(
        "--feed sequence reads records by offset and needs uncompressed "
        "shards; " +
        o.split.pattern + " are " + o.split.compression_name +
        "-compressed (use another feed, or convert without compression)");
  }
  RecordSequenceOptions r;
  r.files = o.split.files;
  r.batch_size = o.batch_size;
  r.features = ImageFeatureSpecs();
  r.shuffle = true;
  r.seed = o.seed;
  r.drop_remainder = true;  // whole batches, as the other feeds give
  r.num_slices = o.num_ranks;
  r.slice = o.rank;
  r.env = &env;
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordSequence> records,
                          RecordSequence::Create(std::move(r)));
  // The order of epoch first_epoch: each OnEpochEnd draws the next.
  for (int64_t e = 0; e < o.first_epoch; ++e) records->OnEpochEnd();
  OrderedEnqueuerOptions q;
  q.first_index = o.first_batch;
  q.name = "input/sequence";
  auto enqueuer = std::make_unique<OrderedEnqueuer>(
      std::make_shared<ImageSequence>(std::move(records)), std::move(q));
  INFLOW_RETURN_IF_ERROR(enqueuer->Start(o.reader_threads, kBufferedBatches));
  return std::unique_ptr<TrainFeed>(
      std::make_unique<SequenceFeed>(std::move(enqueuer), o.stop));
}

// A data::Dataset over the shards; its iterator's position is what a
// checkpoint saves (a few dozen bytes) and a resumed run restores.
class DatasetFeed : public TrainFeed {
 public:
  DatasetFeed(data::Iterator it, std::stop_token stop)
      : it_(std::move(it)), stop_(std::move(stop)) {}

  Result<Tuple> Next() override {
    return NextUntilStopped(
        stop_, [this](const CallOptions& call) { return it_.Next(call); });
  }
  double QueueFill() const override { return 0; }
  Status Close() override { return OkStatus(); }
  Result<std::string> SavePosition() override { return it_.Save(); }
  Status RestorePosition(std::string_view state) override {
    return it_.Restore(state);
  }

 private:
  data::Iterator it_;
  std::stop_token stop_;
};

Result<std::unique_ptr<TrainFeed>> MakeDatasetFeed(Env& env,
                                                   TrainFeedOptions& o) {
  INFLOW_ASSIGN_OR_RETURN(ExampleParser parser,
                          ExampleParser::Create(ImageFeatureSpecs()));
  data::TFRecordOptions r;
  r.compression = o.split.compression;
  r.env = &env;
  // A data-parallel rank's records: its files, or every N-th record (by
  // index when the files can be indexed).
  const distributed::ShardKind kind =
      o.shard ? o.shard->kind : distributed::ShardKind::kFiles;
  if (kind == distributed::ShardKind::kRecordsByIndex) {
    r.index = RecordIndexMode::kRead;
  }
  data::Dataset records =
      data::Dataset::TFRecord(o.shard ? o.shard->files : o.split.files, r);
  if (kind != distributed::ShardKind::kFiles) {
    records = records.Shard(o.shard->num_shards, o.shard->index);
  }
  const int64_t batch = o.batch_size / o.num_ranks;
  const data::Dataset ds =
      records.Shuffle(kMinAfterDequeue, o.seed)
          .Repeat(o.num_epochs)
          .Skip(o.skip_batches * batch)
          .Batch(batch, /*drop_remainder=*/true)
          .Map(
              [parser](Tuple b) -> Result<Tuple> {
                INFLOW_ASSIGN_OR_RETURN(
                    ParsedFeatures p,
                    parser.ParseBatch(b[0].flat<std::string>()));
                INFLOW_ASSIGN_OR_RETURN(
                    Tensor images,
                    DecodeRawToFloat(*p.FindDense("image_raw"), kPixelScale));
                return Tuple{std::move(images), *p.FindDense("label")};
              },
              {.num_parallel_calls = o.reader_threads})
          .Prefetch(2);
  INFLOW_ASSIGN_OR_RETURN(data::Iterator it, ds.MakeIterator());
  return std::unique_ptr<TrainFeed>(
      std::make_unique<DatasetFeed>(std::move(it), o.stop));
}

}  // namespace

Result<std::unique_ptr<TrainFeed>> MakeTrainFeed(Env& env,
                                                 TrainFeedOptions options) {
  switch (options.feed) {
    case FeedKind::kQueue:
      return MakeQueueFeed(env, options);
    case FeedKind::kPreloaded:
      return MakePreloadedFeed(options);
    case FeedKind::kSync:
      return std::unique_ptr<TrainFeed>(
          std::make_unique<SyncFeed>(env, std::move(options)));
    case FeedKind::kSequence:
      return MakeSequenceFeed(env, options);
    case FeedKind::kDataset:
      return MakeDatasetFeed(env, options);
  }
  return InvalidArgumentError("unknown FeedKind " +
                              std::to_string(static_cast<int>(options.feed)));
}

}  // namespace inflow::internal
