// Copyright 2026 The inflow Authors.
//
// Train: the training job `inflow train` runs, as a library call, so that
// tests and examples drive it without the CLI (docs/ARCHITECTURE.md,
// "The training loop"):
//
//   data_dir/train-*.tfrecord (image shards of `inflow convert`)
//     --feed queue:     string_input_producer(num_epochs, shuffle)
//                       -> reader threads parsing Examples, image_raw bytes
//                          -> float32 [0, 1] -> shuffle_batch  (Pipeline)
//     --feed sync:      each batch read and parsed in the training thread
//     --feed preloaded: every example decoded into memory first (Preloaded)
//     --feed sequence:  batch i of the epoch by record offsets (a
//                       RecordSequence over the shards, shuffled per
//                       epoch from the seed, images decoded) through an
//                       OrderedEnqueuer with reader_threads workers
//     --feed dataset:   a data::Dataset (TFRecord -> shuffle(10000) ->
//                       repeat -> batch -> map(parse + decode,
//                       reader_threads) -> prefetch); its iterator's
//                       position is checkpointed ("input/iterator")
//   -> Mlp (784-625-625-10) step -> Optimizer (rmsprop, adam, sgd)
//   -> Saver checkpoints (every save_every steps and at the end; weights,
//      slots, global_step, "input/epoch", "input/seed") with a .meta beside
//      each and graph.pbtxt once per run
//   -> test-set accuracy after each epoch, TensorBoard events in logdir.
//
//   TrainOptions options{.data_dir = "data", .epochs = 10, .ckpt_dir = "ck"};
//   Result<TrainSummary> summary = Train(options);
//
// Determinism: with one reader thread and a seed, the queue feed hands out
// the same batches in every run (each dequeue waits for a full batching
// queue, or for the end of input), and dropout masks depend only on
// (seed, global step): two runs give the same losses.
//
// Resume: the checkpoint holds the weights, the optimizer's slots,
// global_step and the input position ("input/epoch", "input/seed"). With
// one reader thread the resumed run rebuilds the uninterrupted run's feed
// and skips the batches before the checkpoint's step: it trains on the
// same batches and prints the same losses as a run that was never
// stopped. With more reader threads (whose interleaving no run repeats)
// it starts the input at the checkpoint's epoch with that epoch's seed and
// skips the batches of the epoch already trained on. The sequence feed
// reads batch i of an epoch by number, whatever the workers: a resumed run
// starts at the checkpoint's next batch without reading the ones before,
// with any reader_threads, and trains on the same batches (and gives the
// same losses) as an uninterrupted run. The dataset feed's checkpoints
// hold its iterator's position ("input/iterator", a few dozen bytes): a
// resumed run restores it and goes on with the next batch, whatever
// reader_threads.
//
// Errors (each naming the file or tensor): NOT_FOUND for a data folder
// without shards, or for missing shards of a split (PREFIX-i-of-N names
// with some i absent; allow_missing_shards makes that a message and
// trains on the others); INVALID_ARGUMENT for shards of two sets (-of-N
// and -of-M) in one split; DATA_LOSS for a corrupt shard (found by a scan
// of every shard before training); an unwritable checkpoint folder or
// logdir before training; INVALID_ARGUMENT for a checkpoint of another
// model shape, or of another optimizer (naming both); INVALID_ARGUMENT
// "NaN loss during training" naming the step when a loss is not finite
// (as TF's NanTensorHook): the run stops there, and no checkpoint holding
// a non-finite value is ever written (Save refuses it, naming the tensor).

#ifndef INFLOW_TRAIN_TRAINER_H_
#define INFLOW_TRAIN_TRAINER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"
#include "inflow/model/optimizer.h"

namespace inflow {

namespace distributed {
class Communicator;
}  // namespace distributed

// The feed (--feed), as the comment above describes them.
enum class FeedKind { kQueue, kSync, kPreloaded, kSequence, kDataset };

// "queue", "sync", "preloaded", "sequence", "dataset".
std::string_view FeedKindName(FeedKind kind);
// The kind of one of those names; INVALID_ARGUMENT naming the choices for
// any other.
[[nodiscard]] Result<FeedKind> ParseFeedKind(std::string_view name);

struct TrainOptions {
  // Every file the run reads or writes (shards, checkpoints, events,
  // graph.pbtxt, summary.json) goes through it: a MemEnv runs a whole
  // training in memory. Not owned; it must outlive the call.
  Env* env = &Env::Default();
  std::string data_dir;
  // One of them; neither: 1 epoch. An epoch is floor(N / batch_size)
  // steps of the training set's N examples.
  std::optional<int64_t> epochs;
  std::optional<int64_t> steps;
  int64_t batch_size = 128;
  int reader_threads = 1;
  // Threads the model's math and the optimizer's updates run on, the
  // training thread's included (1..64; MlpOptions.math_threads): the
  // losses and weights are the same bits with any number. 1 leaves the
  // other cores to the input threads.
  int math_threads = 1;
  OptimizerKind optimizer = OptimizerKind::kRmsProp;
  std::optional<float> learning_rate;
  // >= 0. nullopt: a random seed in [0, 2^31), saved in the checkpoints
  // and named in a message ("seed S (random)"). A resumed run takes the
  // checkpoint's seed (a message says so when this one differs).
  std::optional<int64_t> seed;
  // Empty: no checkpoints, no summary.json.
  std::string ckpt_dir;
  // Checkpoints every this many steps and at the end; 0: every epoch.
  int64_t save_every = 0;
  int max_to_keep = 5;
  // Empty: no event files.
  std::string logdir;
  bool resume = false;
  // Some of a split's PREFIX-i-of-N shards missing: a message, and the
  // run trains (and tests) on those present. false: NOT_FOUND.
  bool allow_missing_shards = false;
  FeedKind feed = FeedKind::kQueue;
  // Events and the step callback every this many steps.
  int64_t log_every = 50;
  // Stops the run: a final checkpoint is written and Train returns the
  // summary of what was done (interrupted = true).
  std::stop_token stop;
  // Skip the test-set evaluation after each epoch (only at the end).
  bool eval_each_epoch = true;
  // Data-parallel training (docs/distributed.md): this call is one rank of
  // the communicator's group, and every rank calls Train with the same
  // options. batch_size is then the global batch, a multiple of the
  // group's size; each rank computes its batch_size / size rows of it, and
  // one allreduce per step averages the gradients, so the ranks train the
  // model one process would with the same batches, up to the order of the
  // sums. The feed is "sequence" (each rank reads its rows of global batch
  // i by record number) or "dataset" (each rank reads a part of the
  // shards, PlanShards' whole files or every N-th record, shuffled with
  // the same seed everywhere); the others are INVALID_ARGUMENT. Rank 0
  // alone writes checkpoints, graph.pbtxt, events and summary.json, and
  // evaluates; --resume (every rank reads ckpt_dir) continues from the
  // global step with any number of ranks. An error on one rank (a corrupt
  // shard, a missing file) is every rank's, naming it and the step; a stop
  // on any rank stops every rank at the same step. Not owned; null: one
  // process.
  distributed::Communicator* communicator = nullptr;
  // With a communicator: compare the ranks' parameters (a checksum) every
  // this many steps and at the start; INTERNAL naming the step when they
  // differ. 0: never.
  int64_t check_replicas_every = 100;
  // With a communicator whose ranks can share each host's memory
  // (Communicator::ShareHostMemory): one copy of the parameters and the
  // optimizer's slots per host, each rank summing and updating a slice of
  // them (distributed::SlicedStep). false, or no shared memory: one
  // allreduce of the gradients and the whole update on every rank
  // (DataParallel::Sum). The same model either way, up to the order of
  // the sums.
  bool sliced_step = true;
};

struct StepInfo {
  int64_t step = 0;  // global step after the update
  int64_t final_step = 0;
  int64_t epoch = 0;  // epochs completed
  float loss = 0;
  double examples_per_s = 0;
  double queue_fill = 0;  // batching queue fill (0 for sync)
  double input_wait_fraction = 0;
};

struct TrainSummary {
  int64_t steps = 0;       // global step at the end
  int64_t steps_run = 0;   // steps this run did
  int64_t start_step = 0;  // global step it started from
  double epochs = 0;       // epochs the global step covers
  double test_accuracy = 0;
  double steps_per_s = 0;
  double examples_per_s = 0;
  double input_wait_fraction = 0;
  FeedKind feed = FeedKind::kQueue;
  bool interrupted = false;
  std::string checkpoint;     // the last checkpoint's prefix, or empty
  std::vector<float> losses;  // of the steps this run did

  // {"steps", "epochs", "test_accuracy", "steps_per_s", "examples_per_s",
  //  "input_wait_fraction", "feed"} on one line.
  std::string ToJson() const;
};

struct TrainCallbacks {
  // Every step (cheap work only).
  std::function<void(const StepInfo&)> on_step;
  // Each batch this process (rank) trains on, before its step: the global
  // step it is for (1-based) and its images and labels.
  std::function<void(int64_t step, const Tuple& batch)> on_batch;
  // After the evaluation at the end of each epoch (`step` is the global
  // step, a multiple of the epoch's steps).
  std::function<void(int64_t epoch, int64_t step, double test_accuracy)>
      on_epoch;
  // Messages: "resumed from ...", "saved ...", a warning, and the final
  // evaluation when the run ends inside an epoch ("test accuracy A at
  // step S (epoch E.EE)").
  std::function<void(const std::string&)> on_message;
};

[[nodiscard]] Result<TrainSummary> Train(const TrainOptions& options,
                                         const TrainCallbacks& callbacks = {});

struct Evaluation {
  std::string checkpoint;  // the prefix evaluated
  double test_accuracy = 0;
  // With `predictions`: softmax probabilities float32 [N, 10] of the test
  // images in file order (files sorted, records in order).
  Tensor predictions;
  // With allow_missing_shards: which test shards were missing, or empty.
  std::string warning;
};

// The test-set accuracy of the checkpoint `ckpt` (a prefix, or a folder
// whose latest checkpoint is used) on data_dir/test-*.tfrecord, the
// model's math on `math_threads` threads (1..64, as
// TrainOptions.math_threads; the same results with any number). Errors
// name the checkpoint (a tensor of another shape: INVALID_ARGUMENT naming
// it). Missing test shards (PREFIX-i-of-N names lacking some i) are
// NOT_FOUND naming them, unless `allow_missing_shards` (then `warning`
// names them and the accuracy is of the shards present). Every file is
// read through `env`.
[[nodiscard]] Result<Evaluation> EvaluateCheckpoint(
    const std::string& ckpt, const std::string& data_dir,
    bool predictions = false, int math_threads = 1,
    bool allow_missing_shards = false, Env* env = &Env::Default());

// Writes the frozen GraphDef of the checkpoint `ckpt` (a prefix, or a
// folder whose latest checkpoint is used) to `path`: the model's weights
// as constants (graph/meta_graph.h's WriteFrozenGraph), which
// tf.compat.v1.import_graph_def loads. Returns the prefix exported.
// NOT_FOUND for a folder without a checkpoint; the restore's errors (a
// missing file, a tensor of another shape) name the prefix.
[[nodiscard]] Result<std::string> ExportFrozenGraph(const std::string& ckpt,
                                                    const std::string& path,
                                                    Env* env = &Env::Default());

}  // namespace inflow

#endif  // INFLOW_TRAIN_TRAINER_H_
