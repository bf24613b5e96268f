// Copyright 2026 The inflow Authors.
//
// Train(): validation and setup before the first step, then the loop
// (docs/ARCHITECTURE.md, "The training loop").

#include "inflow/train/trainer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <utility>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/distributed/communicator.h"
#include "inflow/distributed/data_parallel.h"
#include "inflow/distributed/sliced_step.h"
#include "inflow/graph/meta_graph.h"
#include "inflow/io/env.h"
#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"
#include "inflow/summary/events_writer.h"

#include "datafiles/image_data.h"
#include "io/atomic_publish.h"
#include "train/train_feed.h"
#include "train/train_state.h"

namespace inflow {
namespace {

using Clock = std::chrono::steady_clock;
using internal::TrainState;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

Status ValidateOptions(const TrainOptions& o) {
  if (o.data_dir.empty()) return InvalidArgumentError("--data is required");
  if (o.epochs && o.steps) {
    return InvalidArgumentError("give --epochs or --steps, not both");
  }
  if ((o.epochs && *o.epochs < 1) || (o.steps && *o.steps < 1)) {
    return InvalidArgumentError("--epochs and --steps must be >= 1");
  }
  if (o.batch_size < 1)
    return InvalidArgumentError("--batch-size must be >= 1");
  if (o.reader_threads < 1) {
    return InvalidArgumentError("--reader-threads must be >= 1");
  }
  if (o.math_threads < 1 || o.math_threads > 64) {
    return InvalidArgumentError("--math-threads " +
                                std::to_string(o.math_threads) +
                                " is outside 1..64");
  }
  if (o.save_every < 0)
    return InvalidArgumentError("--save-every must be >= 0");
  if (o.resume && o.ckpt_dir.empty()) {
    return InvalidArgumentError("--resume needs --ckpt-dir");
  }
  if (o.feed != FeedKind::kQueue && o.feed != FeedKind::kSync &&
      o.feed != FeedKind::kPreloaded && o.feed != FeedKind::kSequence &&
      o.feed != FeedKind::kDataset) {
    return InvalidArgumentError("unknown FeedKind " +
                                std::to_string(static_cast<int>(o.feed)));
  }
  if (o.communicator != nullptr) {
    if (o.feed != FeedKind::kSequence && o.feed != FeedKind::kDataset) {
      return InvalidArgumentError(
          "--distributed trains with --feed sequence or --feed dataset, not " +
          std::string(FeedKindName(o.feed)));
    }
    const int ranks = o.communicator->size();
    if (o.batch_size % ranks != 0) {
      return InvalidArgumentError(
          "--batch-size " + std::to_string(o.batch_size) +
          " (the global batch) is not a multiple of the " +
          std::to_string(ranks) + " ranks");
    }
  }
  if (o.check_replicas_every < 0) {
    return InvalidArgumentError("check_replicas_every must be >= 0");
  }
  if (o.optimizer != OptimizerKind::kRmsProp &&
      o.optimizer != OptimizerKind::kAdam &&
      o.optimizer != OptimizerKind::kSgd) {
    return InvalidArgumentError("unknown OptimizerKind " +
                                std::to_string(static_cast<int>(o.optimizer)));
  }
  return OkStatus();
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

// A folder we can write into: created, then a file written and deleted.
Status CheckWritableDir(Env& env, const std::string& dir,
                        const std::string& what) {
  const std::string context = what + " " + dir + " is not writable";
  INFLOW_RETURN_IF_ERROR(RecursivelyCreateDir(env, dir).WithContext(context));
  const std::string probe = dir + "/.inflow-write-check";
  INFLOW_RETURN_IF_ERROR(
      WriteStringToFile(env, probe, "").WithContext(context));
  return env.DeleteFile(probe).WithContext(context);
}

// The seed a checkpoint's input position holds.
Result<int64_t> CheckpointSeed(Env& env, const std::string& prefix) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          BundleReader::Open(prefix, &env));
  INFLOW_ASSIGN_OR_RETURN(Tensor seed, reader->Read("input/seed"));
  if (seed.dtype() != DType::kInt64 || seed.num_elements() != 1) {
    return InvalidArgumentError("input/seed in " + prefix +
                                " is not an int64 scalar");
  }
  return seed.data<int64_t>()[0];
}

// One call of Train(): the phases it goes through, in order, over the
// state they share. Each phase returns an error that stops the run.
class TrainRun {
 public:
  TrainRun(const TrainOptions& o, const TrainCallbacks& cb)
      : o_(o), cb_(cb), env_(*o.env) {
    if (o.communicator != nullptr) {
      dp_.emplace(o.communicator);
      rank_ = o.communicator->rank();
      ranks_ = o.communicator->size();
      writer_ = rank_ == 0;
    }
  }

  // Each phase may fail on some ranks only (a file missing on one
  // machine): the ranks agree after each (Phase), so that all go on or
  // all return the error, naming the rank. The collectives between phases
  // run on every rank.
  Result<TrainSummary> Run() {
    INFLOW_RETURN_IF_ERROR(Phase(LoadData(), "loading the data"));
    INFLOW_RETURN_IF_ERROR(Phase(OpenOutputs(), "opening the outputs"));
    INFLOW_RETURN_IF_ERROR(Phase(FindResume(), "finding the checkpoint"));
    INFLOW_RETURN_IF_ERROR(AgreeOnSeed());
    INFLOW_RETURN_IF_ERROR(Phase(MakeState(), "making the model"));
    INFLOW_RETURN_IF_ERROR(AgreeOnStart());
    INFLOW_RETURN_IF_ERROR(Phase(MakeFeed(), "making the input"));
    INFLOW_RETURN_IF_ERROR(
        Phase(!o_.ckpt_dir.empty() && writer_
                  ? state_->WriteGraph(o_.ckpt_dir + "/graph.pbtxt")
                  : OkStatus(),
              "writing graph.pbtxt"));
    INFLOW_RETURN_IF_ERROR(dp_ ? ParallelLoop() : Loop());
    return Finish();
  }

 private:
  // Messages come from rank 0 alone.
  void Message(const std::string& m) const {
    if (cb_.on_message && writer_) cb_.on_message(m);
  }

  Status Phase(const Status& local, std::string_view what) {
    if (!dp_) return local;
    return dp_->Agree(local, what);
  }

  // Rank 0's seed (drawn, given or resumed) on every rank.
  Status AgreeOnSeed() {
    if (!dp_) return OkStatus();
    return dp_->BroadcastInt64(&seed_, "the seed");
  }

  // Every rank starts at rank 0's step, with its parameters: a rank that
  // resumed from another checkpoint (a --ckpt-dir it does not share) is
  // an error naming it.
  Status AgreeOnStart() {
    if (!dp_) return OkStatus();
    int64_t first = start_step_;
    INFLOW_RETURN_IF_ERROR(dp_->BroadcastInt64(&first, "the first step"));
    Status local = OkStatus();
    if (first != start_step_) {
      local = FailedPreconditionError(
          "starts at step " + std::to_string(start_step_) + " but rank 0 at " +
          std::to_string(first) +
          ": every rank must see the same checkpoints in --ckpt-dir");
    }
    INFLOW_RETURN_IF_ERROR(dp_->Agree(local, "the first step"));
    return CheckReplicas();
  }

  Status CheckReplicas() {
    const std::vector<Tensor> params = state_->parameters();
    return dp_->CheckReplicas(state_->step(), params);
  }

  // Data first: a missing or corrupt shard fails before anything is made.
  Status LoadData() {
    INFLOW_ASSIGN_OR_RETURN(
        train_, internal::FindImageSplit(env_, o_.data_dir, "train"));
    internal::ImageSplit test;
    if (writer_) {
      INFLOW_ASSIGN_OR_RETURN(
          test, internal::FindImageSplit(env_, o_.data_dir, "test"));
    }
    // A missing shard silently shrinks the data a long run trains on: an
    // error unless allowed.
    for (const internal::ImageSplit* split : {&train_, &test}) {
      const std::string missing = internal::MissingShardsMessage(*split);
      if (missing.empty()) continue;
      if (!o_.allow_missing_shards) {
        return NotFoundError(missing +
                             " (--allow-missing-shards uses the others)");
      }
      Message("warning: " + missing + "; using the " +
              std::to_string(split->files.size()) + " present");
    }
    if (writer_) {
      INFLOW_ASSIGN_OR_RETURN(test_data_, internal::LoadImageSplit(env_, test));
    }
    if (o_.feed == FeedKind::kPreloaded) {
      INFLOW_ASSIGN_OR_RETURN(train_data_,
                              internal::LoadImageSplit(env_, train_));
      num_train_ = train_data_[0].shape().dim(0);
    } else {
      INFLOW_ASSIGN_OR_RETURN(
          num_train_, internal::ScanImageSplit(env_, train_, &train_counts_));
    }
    steps_per_epoch_ = num_train_ / o_.batch_size;
    if (steps_per_epoch_ < 1) {
      return InvalidArgumentError(
          "--batch-size " + std::to_string(o_.batch_size) + " exceeds the " +
          std::to_string(num_train_) + " training examples in " + o_.data_dir);
    }
    return OkStatus();
  }

  Status OpenOutputs() {
    if (!writer_) return OkStatus();
    if (!o_.ckpt_dir.empty()) {
      INFLOW_RETURN_IF_ERROR(CheckWritableDir(env_, o_.ckpt_dir, "--ckpt-dir"));
    }
    if (!o_.logdir.empty()) {
      INFLOW_RETURN_IF_ERROR(CheckWritableDir(env_, o_.logdir, "--logdir"));
      INFLOW_ASSIGN_OR_RETURN(events_, EventsWriter::Create(env_, o_.logdir));
    }
    return OkStatus();
  }

  // The checkpoint to resume from decides the seed (dropout masks, input
  // shuffling) before the model is made.
  Status FindResume() {
    if (o_.resume) {
      INFLOW_ASSIGN_OR_RETURN(latest_,
                              LatestCheckpoint(o_.ckpt_dir, {.env = &env_}));
      if (!latest_) {
        Message("no checkpoint in " + o_.ckpt_dir + "; starting at 0");
      }
    }
    if (latest_) {
      Result<int64_t> s = CheckpointSeed(env_, *latest_);
      if (!s.ok()) return s.status().WithContext("resuming from " + *latest_);
      seed_ = *s;
      if (o_.seed && *o_.seed != seed_) {
        Message("resuming with the checkpoint's seed " + std::to_string(seed_) +
                "; --seed " + std::to_string(*o_.seed) + " is not used");
      }
    } else if (o_.seed) {
      seed_ = *o_.seed;
    } else {
      seed_ = static_cast<int64_t>(std::random_device()() & 0x7fffffff);
      Message("seed " + std::to_string(seed_) + " (random; --seed " +
              std::to_string(seed_) + " repeats the run)");
    }
    return OkStatus();
  }

  Status MakeState() {
    INFLOW_ASSIGN_OR_RETURN(
        state_,
        TrainState::Create(
            {.env = &env_,
             .optimizer = o_.optimizer,
             .learning_rate = o_.learning_rate,
             .seed = seed_,
             .ckpt_dir = writer_ ? o_.ckpt_dir : "",
             .max_to_keep = o_.max_to_keep,
             .math_threads = o_.math_threads,
             .input_iterator = o_.feed == FeedKind::kDataset,
             .spare_gradient_floats =
                 dp_ ? int64_t{distributed::DataParallel::kReservedFloats}
                     : 0}));
    if (latest_) {
      INFLOW_RETURN_IF_ERROR(
          state_->Restore(*latest_).WithContext("resuming from " + *latest_));
      Message("resumed from " + *latest_ + " at step " +
              std::to_string(state_->step()));
    }
    save_every_ = o_.save_every > 0 ? o_.save_every : steps_per_epoch_;
    final_step_ =
        o_.steps ? *o_.steps : o_.epochs.value_or(1) * steps_per_epoch_;
    start_step_ = state_->step();
    if (final_step_ <= start_step_) {
      Message("step " + std::to_string(start_step_) + " is at or past the " +
              "final step " + std::to_string(final_step_) +
              ": nothing to train");
    }
    summary_.feed = o_.feed;
    summary_.start_step = start_step_;
    return OkStatus();
  }

  // The options every feed takes from the run.
  internal::TrainFeedOptions FeedOptions() const {
    internal::TrainFeedOptions f;
    f.feed = o_.feed;
    f.split = train_;
    f.num_examples = num_train_;
    f.batch_size = o_.batch_size;
    f.reader_threads = o_.reader_threads;
    f.seed = seed_;
    f.stop = o_.stop;
    f.num_ranks = ranks_;
    f.rank = rank_;
    return f;
  }

  // The sequence feed reads batch i of an epoch by number: it starts at
  // the checkpoint's step, with nothing to skip, whatever reader_threads.
  Status MakeSequenceFeed() {
    internal::TrainFeedOptions f = FeedOptions();
    f.first_epoch = start_step_ / steps_per_epoch_;
    f.first_batch = start_step_ % steps_per_epoch_;
    INFLOW_ASSIGN_OR_RETURN(feed_, internal::MakeTrainFeed(env_, std::move(f)));
    if (start_step_ > 0) {
      Message("the input starts at batch " +
              std::to_string(start_step_ % steps_per_epoch_) + " of epoch " +
              std::to_string(start_step_ / steps_per_epoch_) + " (step " +
              std::to_string(start_step_) +
              "), read by number: nothing skipped");
    }
    return OkStatus();
  }

  // The dataset feed: the whole run's pipeline (epochs from step 0), put
  // at the checkpoint's saved position when resuming.
  Status MakeDatasetFeed() {
    internal::TrainFeedOptions f = FeedOptions();
    f.num_epochs = (final_step_ * o_.batch_size + num_train_ - 1) / num_train_;
    const std::string& position = state_->input_iterator();
    if (dp_ || (start_step_ > 0 && position.empty())) {
      return MakeSkippingDatasetFeed(std::move(f));
    }
    INFLOW_ASSIGN_OR_RETURN(feed_, internal::MakeTrainFeed(env_, std::move(f)));
    if (start_step_ == 0) return OkStatus();
    INFLOW_RETURN_IF_ERROR(feed_->RestorePosition(position).WithContext(
        "restoring the dataset's position (input/iterator) from " + *latest_));
    Message("the input goes on from the saved position of step " +
            std::to_string(start_step_) + " (" +
            std::to_string(position.size()) + " bytes)");
    return OkStatus();
  }

  // The dataset feed of a data-parallel run (or a resume from one): this
  // rank's part of the shards (PlanShards), made as a run from step 0
  // makes it, the batches before the start step skipped. Its position is
  // the global step alone, so a run with another number of ranks resumes
  // it.
  Status MakeSkippingDatasetFeed(internal::TrainFeedOptions f) {
    int64_t records = num_train_;
    if (dp_) {
      INFLOW_ASSIGN_OR_RETURN(
          distributed::ShardPlan plan,
          distributed::PlanShards(train_.files, train_counts_,
                                  train_.compression == CompressionType::kNone,
                                  ranks_, rank_));
      Message("rank 0 of " + std::to_string(ranks_) + " reads " +
              plan.Describe());
      records = plan.records;
      f.shard = std::move(plan);
    }
    const int64_t batch = o_.batch_size / ranks_;
    f.num_epochs = std::max<int64_t>(
        1, (final_step_ * batch + records - 1) / std::max<int64_t>(records, 1));
    f.skip_batches = start_step_;
    INFLOW_ASSIGN_OR_RETURN(feed_, internal::MakeTrainFeed(env_, std::move(f)));
    if (start_step_ > 0) {
      Message("the input goes on at step " + std::to_string(start_step_) +
              " (the batches before it skipped)");
    }
    return OkStatus();
  }

  // The input position. A deterministic feed (one reader thread, a seed
  // given or restored) is made as the uninterrupted run made it and the
  // batches before the checkpoint's step are skipped: the resumed run sees
  // the same batches, and gives the same losses, as a run that was never
  // stopped. Otherwise the feed starts at the checkpoint's epoch with that
  // epoch's seed and skips the batches of the epoch already trained on.
  // The sequence and dataset feeds have exact positions of their own.
  Status MakeFeed() {
    if (final_step_ <= start_step_) return OkStatus();
    if (o_.feed == FeedKind::kSequence) return MakeSequenceFeed();
    if (o_.feed == FeedKind::kDataset) return MakeDatasetFeed();
    const bool deterministic =
        o_.reader_threads == 1 && (o_.seed.has_value() || latest_.has_value());
    const int64_t feed_epoch =
        deterministic ? 0 : start_step_ / steps_per_epoch_;
    const int64_t skip_batches = start_step_ - feed_epoch * steps_per_epoch_;
    const int64_t examples_needed =
        std::max<int64_t>(0, final_step_ - feed_epoch * steps_per_epoch_) *
        o_.batch_size;
    internal::TrainFeedOptions f = FeedOptions();
    f.preloaded = std::move(train_data_);
    f.num_epochs = (examples_needed + num_train_ - 1) / num_train_;
    f.seed = seed_ + feed_epoch;
    f.deterministic = deterministic;
    INFLOW_ASSIGN_OR_RETURN(feed_, internal::MakeTrainFeed(env_, std::move(f)));
    if (skip_batches == 0) return OkStatus();
    const Clock::time_point before = Clock::now();
    for (int64_t i = 0; i < skip_batches; ++i) {
      Result<Tuple> skipped = feed_->Next();
      if (IsCancelled(skipped.status()) && o_.stop.stop_requested()) break;
      if (!skipped.ok()) {
        return skipped.status().WithContext(
            "skipping to the input position of step " +
            std::to_string(start_step_));
      }
    }
    Message("skipped " + std::to_string(skip_batches) +
            " batches to the input position of step " +
            std::to_string(start_step_) + " in " +
            std::to_string(Seconds(before, Clock::now())) + " s");
    return OkStatus();
  }

  Status Evaluate() {
    INFLOW_ASSIGN_OR_RETURN(accuracy_, state_->Accuracy(test_data_));
    const int64_t step = state_->step();
    evaluated_at_ = step;
    if (events_) {
      INFLOW_RETURN_IF_ERROR(events_->WriteScalar(
          "accuracy", static_cast<float>(accuracy_), step));
      INFLOW_RETURN_IF_ERROR(events_->Flush());
    }
    if (step % steps_per_epoch_ == 0) {
      if (cb_.on_epoch) cb_.on_epoch(step / steps_per_epoch_, step, accuracy_);
      return OkStatus();
    }
    // Inside an epoch (a stop, or --steps): not an epoch's line.
    char epochs[32];
    std::snprintf(epochs, sizeof(epochs), "%.2f",
                  static_cast<double>(step) / steps_per_epoch_);
    char acc[32];
    std::snprintf(acc, sizeof(acc), "%.4f", accuracy_);
    Message(std::string("test accuracy ") + acc + " at step " +
            std::to_string(step) + " (epoch " + epochs + ")");
    return OkStatus();
  }

  // TF's NanTensorHook: stop, and save nothing after the weights that gave
  // this loss (the checkpoints so far hold finite values).
  Status Diverged(float loss) {
    Status closed = feed_->Close();
    closed.IgnoreError();
    return InvalidArgumentError(
        std::string(std::isnan(loss) ? "NaN" : "infinite") +
        " loss during training at step " + std::to_string(state_->step()) +
        " (--optimizer " + std::string(OptimizerKindName(o_.optimizer)) +
        ", learning rate " + Number(state_->learning_rate()) +
        "): the model diverged; lower --lr" +
        (state_->saved_step() >= 0
             ? "; the last checkpoint is of step " +
                   std::to_string(state_->saved_step())
             : std::string("; no checkpoint was written")));
  }

  // What follows a step: the callback, the logged scalars, the epoch's
  // evaluation and the periodic checkpoint.
  Status AfterStep(float loss) {
    const int64_t step = state_->step();
    summary_.losses.push_back(loss);
    state_->set_epoch(step / steps_per_epoch_);
    const double elapsed = Seconds(t0_, Clock::now());
    StepInfo info{.step = step,
                  .final_step = final_step_,
                  .epoch = step / steps_per_epoch_,
                  .loss = loss,
                  .examples_per_s = static_cast<double>(step - start_step_) *
                                    o_.batch_size / std::max(elapsed, 1e-9),
                  .queue_fill = feed_->QueueFill(),
                  .input_wait_fraction = wait_s_ / std::max(elapsed, 1e-9)};
    if (cb_.on_step) cb_.on_step(info);
    if (!writer_) return OkStatus();
    if (events_ && o_.log_every > 0 && step % o_.log_every == 0) {
      const std::pair<std::string, float> scalars[] = {
          {"loss", loss},
          {"queue_fill", static_cast<float>(info.queue_fill)},
          {"examples_per_s", static_cast<float>(info.examples_per_s)},
          {"input_wait_fraction",
           static_cast<float>(info.input_wait_fraction)}};
      INFLOW_RETURN_IF_ERROR(events_->WriteScalars(scalars, step));
    }
    if (o_.eval_each_epoch && step % steps_per_epoch_ == 0) {
      INFLOW_RETURN_IF_ERROR(Evaluate());
    }
    if (step % save_every_ == 0 && !o_.ckpt_dir.empty()) {
      INFLOW_RETURN_IF_ERROR(NoteInputPosition());
      INFLOW_ASSIGN_OR_RETURN(summary_.checkpoint, state_->Save());
      Message("saved " + summary_.checkpoint);
    }
    return OkStatus();
  }

  // The dataset feed's position into the state, for the next Save.
  Status NoteInputPosition() {
    // A data-parallel run's position is the global step.
    if (o_.feed != FeedKind::kDataset || feed_ == nullptr || dp_) {
      return OkStatus();
    }
    INFLOW_ASSIGN_OR_RETURN(std::string position, feed_->SavePosition());
    state_->set_input_iterator(std::move(position));
    return OkStatus();
  }

  // The feed's next batch, the wait for it counted (input_wait_fraction).
  Result<Tuple> NextBatch() {
    const Clock::time_point before = Clock::now();
    Result<Tuple> batch = feed_->Next();
    wait_s_ += Seconds(before, Clock::now());
    return batch;
  }

  Status Loop() {
    t0_ = Clock::now();
    while (feed_ != nullptr && state_->step() < final_step_) {
      Result<Tuple> batch = NextBatch();
      if (!batch.ok()) {
        if (IsOutOfRange(batch.status())) break;
        if (IsCancelled(batch.status()) && o_.stop.stop_requested()) {
          summary_.interrupted = true;
          break;
        }
        return batch.status().WithContext("training step " +
                                          std::to_string(state_->step() + 1));
      }
      if (cb_.on_batch) cb_.on_batch(state_->step() + 1, *batch);
      INFLOW_ASSIGN_OR_RETURN(float loss,
                              state_->Step((*batch)[0], (*batch)[1]));
      if (!std::isfinite(loss)) return Diverged(loss);
      INFLOW_RETURN_IF_ERROR(AfterStep(loss));
    }
    t1_ = Clock::now();
    return OkStatus();
  }

  // This rank's part of step `step` of the data-parallel loop: its batch
  // and the gradients of its rows (`window`), or why it has none (the end
  // of the input or a stop, in `flags`; an error, returned).
  Status ComputeShare(int64_t step, const BatchRows& window,
                      distributed::StepFlags* flags, float* loss) {
    Result<Tuple> batch = NextBatch();
    const std::string where = "training step " + std::to_string(step);
    if (!batch.ok()) {
      if (IsOutOfRange(batch.status())) {
        flags->end_of_input = true;
        return OkStatus();
      }
      if (IsCancelled(batch.status()) && flags->stop) return OkStatus();
      return batch.status().WithContext(where);
    }
    if (flags->stop) return OkStatus();
    if (cb_.on_batch) cb_.on_batch(step, *batch);
    Result<float> computed =
        state_->ComputeGradients((*batch)[0], (*batch)[1], window);
    if (!computed.ok()) return computed.status().WithContext(where);
    *loss = *computed;
    return OkStatus();
  }

  // The data-parallel loop: each rank's share of the global batch's
  // gradients (its rows), summed with the others' in one allreduce that
  // also agrees on the loss, a stop, the end of the input or an error
  // (DataParallel::Sum); then every rank applies the same update, or every
  // rank leaves the loop.
  Status ParallelLoop() {
    t0_ = Clock::now();
    const int64_t rows = o_.batch_size / ranks_;
    const BatchRows window{.first_row = rank_ * rows,
                           .global_batch = o_.batch_size};
    // An error of a step's own work on this rank (rank 0's checkpoint or
    // events, the update) goes into the next exchange, or the agreement
    // after the loop: no rank returns while the others wait for it.
    Status after = OkStatus();
    std::unique_ptr<distributed::SlicedStep> sliced;
    if (o_.sliced_step && ranks_ > 1 && feed_ != nullptr) {
      INFLOW_ASSIGN_OR_RETURN(sliced, MakeSlicedStep());
    }
    if (sliced) {
      const int n = sliced->host_ranks();
      Message(
          "each step sums and updates in shared memory: one copy of the "
          "parameters per machine, " +
          std::to_string(n) + (n == 1 ? " rank" : " ranks") + " a machine");
    } else if (ranks_ > 1) {
      Message("each step sums with MPI_Allreduce");
    }
    while (feed_ != nullptr && state_->step() < final_step_) {
      const int64_t step = state_->step() + 1;
      distributed::StepFlags flags;
      flags.stop = o_.stop.stop_requested();
      float loss = 0;
      const Status local =
          after.ok() ? ComputeShare(step, window, &flags, &loss) : after;
      // This rank's share of the global batch's mean loss.
      const float loss_share =
          loss * static_cast<float>(rows) / static_cast<float>(o_.batch_size);
      INFLOW_ASSIGN_OR_RETURN(
          distributed::StepOutcome out,
          sliced ? sliced->Sum(step, loss_share, flags, local)
                 : dp_->Sum(step, state_->mlp().flat_gradients(), loss_share,
                            flags, local));
      if (out.stop) summary_.interrupted = true;
      if (!out.apply()) break;
      if (!std::isfinite(out.loss)) return Diverged(out.loss);
      if (sliced) {
        after = state_->ApplyGradients(sliced->ranges());
        // Every slice updated before rank 0 saves or anyone reads them.
        INFLOW_RETURN_IF_ERROR(sliced->EndStep());
      } else {
        after = state_->ApplyGradients();
      }
      if (after.ok()) after = AfterStep(out.loss);
      if (!after.ok()) {
        after = after.WithContext("after step " + std::to_string(step));
      }
      if (o_.check_replicas_every > 0 &&
          state_->step() % o_.check_replicas_every == 0) {
        INFLOW_RETURN_IF_ERROR(
            dp_->Agree(after, "step " + std::to_string(state_->step())));
        INFLOW_RETURN_IF_ERROR(CheckReplicas());
      }
    }
    t1_ = Clock::now();
    return dp_->Agree(after, "step " + std::to_string(state_->step()));
  }

  // The parameters and slots moved into memory the host's ranks share,
  // and the gradients into this rank's buffer there; null when the ranks
  // share none (every rank finds the same), and the loop sums with
  // DataParallel::Sum.
  Result<std::unique_ptr<distributed::SlicedStep>> MakeSlicedStep() {
    Mlp& mlp = state_->mlp();
    Result<std::unique_ptr<distributed::SlicedStep>> sliced =
        distributed::SlicedStep::Create(&*dp_, mlp.flat_gradients(),
                                        mlp.gradients(), state_->replicated());
    if (IsFailedPrecondition(sliced.status())) {
      return std::unique_ptr<distributed::SlicedStep>();
    }
    INFLOW_RETURN_IF_ERROR(sliced.status());
    INFLOW_RETURN_IF_ERROR(mlp.MoveGradients((*sliced)->gradient_buffer(),
                                             (*sliced)->gradient_offset()));
    return sliced;
  }

  // After the loop: the feed closed, the last checkpoint and evaluation,
  // the figures, summary.json.
  Result<TrainSummary> Finish() {
    if (feed_ != nullptr) {
      INFLOW_RETURN_IF_ERROR(NoteInputPosition());
      Status closed = feed_->Close();
      if (!closed.ok() && !summary_.interrupted) return closed;
    }
    if (o_.stop.stop_requested()) summary_.interrupted = true;

    const int64_t end_step = state_->step();
    if (writer_ && !o_.ckpt_dir.empty() && state_->saved_step() != end_step) {
      INFLOW_ASSIGN_OR_RETURN(summary_.checkpoint, state_->Save());
      Message("saved " + summary_.checkpoint);
    }
    if (writer_ && evaluated_at_ != end_step) {
      INFLOW_RETURN_IF_ERROR(Evaluate());
    }

    const double seconds = Seconds(t0_, t1_);
    summary_.steps = end_step;
    summary_.steps_run = end_step - start_step_;
    summary_.epochs = static_cast<double>(end_step) / steps_per_epoch_;
    summary_.test_accuracy = accuracy_;
    summary_.steps_per_s = seconds > 0 ? summary_.steps_run / seconds : 0;
    summary_.examples_per_s = summary_.steps_per_s * o_.batch_size;
    summary_.input_wait_fraction = seconds > 0 ? wait_s_ / seconds : 0;
    if (events_) {
      INFLOW_RETURN_IF_ERROR(events_->Close());
    }
    if (writer_ && !o_.ckpt_dir.empty()) {
      // Published whole and durably: a crash leaves the last run's summary
      // or this one, never a part.
      const std::string path = o_.ckpt_dir + "/summary.json";
      INFLOW_RETURN_IF_ERROR(internal::WriteFileAtomically(
          env_, path, path + ".tmp", summary_.ToJson() + "\n"));
    }
    return std::move(summary_);
  }

  const TrainOptions& o_;
  const TrainCallbacks& cb_;
  Env& env_;

  // Data-parallel runs: the step protocol and this rank; rank 0 (and a
  // run of one process) is the writer of every output.
  std::optional<distributed::DataParallel> dp_;
  int rank_ = 0;
  int ranks_ = 1;
  bool writer_ = true;
  // LoadData
  internal::ImageSplit train_;
  std::vector<int64_t> train_counts_;  // records per file of train_
  Tuple test_data_;
  Tuple train_data_;  // kPreloaded only; moved into the feed
  int64_t num_train_ = 0;
  int64_t steps_per_epoch_ = 0;
  // OpenOutputs
  std::unique_ptr<EventsWriter> events_;
  // MakeState
  std::optional<std::string> latest_;
  int64_t seed_ = 0;
  std::unique_ptr<TrainState> state_;
  int64_t save_every_ = 0;
  int64_t final_step_ = 0;
  int64_t start_step_ = 0;
  // MakeFeed: none when there is nothing to train.
  std::unique_ptr<internal::TrainFeed> feed_;
  // Loop and Finish
  TrainSummary summary_;
  Clock::time_point t0_;
  Clock::time_point t1_;
  double wait_s_ = 0;
  int64_t evaluated_at_ = -1;
  double accuracy_ = 0;
};

}  // namespace

std::string_view FeedKindName(FeedKind kind) {
  switch (kind) {
    case FeedKind::kQueue:
      return "queue";
    case FeedKind::kSync:
      return "sync";
    case FeedKind::kPreloaded:
      return "preloaded";
    case FeedKind::kSequence:
      return "sequence";
    case FeedKind::kDataset:
      return "dataset";
  }
  return "unknown";
}

Result<FeedKind> ParseFeedKind(std::string_view name) {
  for (FeedKind k : {FeedKind::kQueue, FeedKind::kSync, FeedKind::kPreloaded,
                     FeedKind::kSequence, FeedKind::kDataset}) {
    if (name == FeedKindName(k)) return k;
  }
  return InvalidArgumentError(
      "unknown feed \"" + std::string(name) +
      "\" (want queue, sync, preloaded, sequence or dataset)");
}

Result<TrainSummary> Train(const TrainOptions& o, const TrainCallbacks& cb) {
  INFLOW_RETURN_IF_ERROR(ValidateOptions(o));
  return TrainRun(o, cb).Run();
}

}  // namespace inflow
