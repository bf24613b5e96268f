// Copyright 2026 The inflow Authors.
//
// The five ways `inflow train` gets its batches (TrainOptions::feed):
// "queue" (the input component's Pipeline), "sync" (ImageBatchReader in
// the training thread), "preloaded" (the input component's Preloaded
// over tensors decoded beforehand) and "sequence" (an OrderedEnqueuer over
// a RecordSequence of the shards, batch i of an epoch read by number) and
// "dataset" (a data::Dataset: TFRecord -> shuffle(10000, seed) ->
// repeat -> batch -> map(parse + decode, reader_threads threads) ->
// prefetch(2), whose iterator position the checkpoints hold).
// Each hands out {images float32 [batch, 784], labels int64 [batch]} until
// num_epochs epochs are used, then OUT_OF_RANGE (the sequence feed: without
// end); CANCELLED once `stop` is requested.
//
// Not thread-safe: the training thread calls Next().

#ifndef INFLOW_SRC_TRAIN_TRAIN_FEED_H_
#define INFLOW_SRC_TRAIN_TRAIN_FEED_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/distributed/data_parallel.h"
#include "inflow/io/env.h"
#include "inflow/train/trainer.h"

#include "datafiles/image_data.h"

namespace inflow::internal {

struct TrainFeedOptions {
  FeedKind feed = FeedKind::kQueue;
  ImageSplit split;
  int64_t num_examples = 0;  // in `split`
  Tuple preloaded;           // "preloaded": {images, labels} of the split
  int64_t batch_size = 128;
  int reader_threads = 1;
  int64_t num_epochs = 1;
  int64_t seed = 0;
  // "queue": every Next() waits for a full batching queue or the end of
  // input, so that one reader thread gives the same batches every run.
  bool deterministic = false;
  // "sequence": the epoch (0-based; its order is the seed's permutation
  // for that epoch) and the batch of it to start at.
  int64_t first_epoch = 0;
  int64_t first_batch = 0;
  // A data-parallel rank's part of the input (docs/distributed.md).
  // "sequence": batch i is part `rank` of `num_ranks` of global batch i
  // (batch_size is the global batch). "dataset": the records of `shard`,
  // in batches of batch_size / num_ranks.
  int num_ranks = 1;
  int rank = 0;
  std::optional<distributed::ShardPlan> shard;
  // "dataset": batches to skip first (a resumed run's position when no
  // saved iterator position applies).
  int64_t skip_batches = 0;
  std::stop_token stop;
};

class TrainFeed {
 public:
  virtual ~TrainFeed() = default;
  [[nodiscard]] virtual Result<Tuple> Next() = 0;
  // The batching queue's fill (TF's fill metric; 0 without a queue).
  virtual double QueueFill() const = 0;
  // Stops and joins the feed's threads; the first error of any stage.
  virtual Status Close() = 0;
  // "dataset": the iterator's position (Iterator::Save) and a move there;
  // the other feeds have none (UNIMPLEMENTED).
  [[nodiscard]] virtual Result<std::string> SavePosition() {
    return UnimplementedError("this feed has no saved position");
  }
  [[nodiscard]] virtual Status RestorePosition(std::string_view) {
    return UnimplementedError("this feed has no saved position");
  }
};

[[nodiscard]] Result<std::unique_ptr<TrainFeed>> MakeTrainFeed(
    Env& env, TrainFeedOptions options);

}  // namespace inflow::internal

#endif  // INFLOW_SRC_TRAIN_TRAIN_FEED_H_
