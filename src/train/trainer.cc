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
      o.feed != FeedKind::kPreloaded) {
    return InvalidArgumentError("unknown FeedKind " +
                                std::to_string(static_cast<int>(o.feed)));
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

}  // namespace

std::string_view FeedKindName(FeedKind kind) {
  switch (kind) {
    case FeedKind::kQueue:
      return "queue";
    case FeedKind::kSync:
      return "sync";
    case FeedKind::kPreloaded:
      return "preloaded";
  }
  return "unknown";
}

Result<FeedKind> ParseFeedKind(std::string_view name) {
  for (FeedKind k : {FeedKind::kQueue, FeedKind::kSync, FeedKind::kPreloaded}) {
    if (name == FeedKindName(k)) return k;
  }
  return InvalidArgumentError("unknown feed \"" + std::string(name) +
                              "\" (want queue, sync or preloaded)");
}

Result<TrainSummary> Train(const TrainOptions& o, const TrainCallbacks& cb) {
  INFLOW_RETURN_IF_ERROR(ValidateOptions(o));
  Env& env = *o.env;
  auto message = [&](const std::string& m) {
    if (cb.on_message) cb.on_message(m);
  };

  // Data first: a missing or corrupt shard fails before anything is made.
  INFLOW_ASSIGN_OR_RETURN(internal::ImageSplit train,
                          internal::FindImageSplit(env, o.data_dir, "train"));
  INFLOW_ASSIGN_OR_RETURN(internal::ImageSplit test,
                          internal::FindImageSplit(env, o.data_dir, "test"));
  // A missing shard silently shrinks the data a long run trains on: an
  // error unless allowed.
  for (const internal::ImageSplit* split : {&train, &test}) {
    const std::string missing = internal::MissingShardsMessage(*split);
    if (missing.empty()) continue;
    if (!o.allow_missing_shards) {
      return NotFoundError(missing +
                           " (--allow-missing-shards uses the others)");
    }
    message("warning: " + missing + "; using the " +
            std::to_string(split->files.size()) + " present");
  }
  INFLOW_ASSIGN_OR_RETURN(Tuple test_data, internal::LoadImageSplit(env, test));
  Tuple train_data;
  int64_t num_train = 0;
  if (o.feed == FeedKind::kPreloaded) {
    INFLOW_ASSIGN_OR_RETURN(train_data, internal::LoadImageSplit(env, train));
    num_train = train_data[0].shape().dim(0);
  } else {
    INFLOW_ASSIGN_OR_RETURN(num_train, internal::ScanImageSplit(env, train));
  }
  const int64_t steps_per_epoch = num_train / o.batch_size;
  if (steps_per_epoch < 1) {
    return InvalidArgumentError("--batch-size " + std::to_string(o.batch_size) +
                                " exceeds the " + std::to_string(num_train) +
                                " training examples in " + o.data_dir);
  }
  if (!o.ckpt_dir.empty()) {
    INFLOW_RETURN_IF_ERROR(CheckWritableDir(env, o.ckpt_dir, "--ckpt-dir"));
  }
  std::unique_ptr<EventsWriter> events;
  if (!o.logdir.empty()) {
    INFLOW_RETURN_IF_ERROR(CheckWritableDir(env, o.logdir, "--logdir"));
    INFLOW_ASSIGN_OR_RETURN(events, EventsWriter::Create(env, o.logdir));
  }

  // The checkpoint to resume from decides the seed (dropout masks, input
  // shuffling) before the model is made.
  std::optional<std::string> latest;
  if (o.resume) {
    INFLOW_ASSIGN_OR_RETURN(latest,
                            LatestCheckpoint(o.ckpt_dir, {.env = &env}));
    if (!latest) message("no checkpoint in " + o.ckpt_dir + "; starting at 0");
  }
  int64_t seed = 0;
  if (latest) {
    Result<int64_t> s = CheckpointSeed(env, *latest);
    if (!s.ok()) return s.status().WithContext("resuming from " + *latest);
    seed = *s;
    if (o.seed && *o.seed != seed) {
      message("resuming with the checkpoint's seed " + std::to_string(seed) +
              "; --seed " + std::to_string(*o.seed) + " is not used");
    }
  } else {
    if (o.seed) {
      seed = *o.seed;
    } else {
      seed = static_cast<int64_t>(std::random_device()() & 0x7fffffff);
      message("seed " + std::to_string(seed) + " (random; --seed " +
              std::to_string(seed) + " repeats the run)");
    }
  }

  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<TrainState> state,
                          TrainState::Create({.env = &env,
                                              .optimizer = o.optimizer,
                                              .learning_rate = o.learning_rate,
                                              .seed = seed,
                                              .ckpt_dir = o.ckpt_dir,
                                              .max_to_keep = o.max_to_keep,
                                              .math_threads = o.math_threads}));
  if (latest) {
    INFLOW_RETURN_IF_ERROR(
        state->Restore(*latest).WithContext("resuming from " + *latest));
    message("resumed from " + *latest + " at step " +
            std::to_string(state->step()));
  }

  const int64_t save_every = o.save_every > 0 ? o.save_every : steps_per_epoch;
  const int64_t final_step =
      o.steps ? *o.steps : o.epochs.value_or(1) * steps_per_epoch;
  const int64_t start_step = state->step();
  if (final_step <= start_step) {
    message("step " + std::to_string(start_step) + " is at or past the " +
            "final step " + std::to_string(final_step) + ": nothing to train");
  }
  TrainSummary summary;
  summary.feed = o.feed;
  summary.start_step = start_step;

  // The input position. A deterministic feed (one reader thread, a seed
  // given or restored) is made as the uninterrupted run made it and the
  // batches before the checkpoint's step are skipped: the resumed run sees
  // the same batches, and gives the same losses, as a run that was never
  // stopped. Otherwise the feed starts at the checkpoint's epoch with that
  // epoch's seed and skips the batches of the epoch already trained on.
  const bool deterministic =
      o.reader_threads == 1 && (o.seed.has_value() || latest.has_value());
  const int64_t feed_epoch = deterministic ? 0 : start_step / steps_per_epoch;
  const int64_t skip_batches = start_step - feed_epoch * steps_per_epoch;
  const int64_t examples_needed =
      std::max<int64_t>(0, final_step - feed_epoch * steps_per_epoch) *
      o.batch_size;
  std::unique_ptr<internal::TrainFeed> feed;
  if (final_step > start_step) {
    internal::TrainFeedOptions f;
    f.feed = o.feed;
    f.split = train;
    f.num_examples = num_train;
    f.preloaded = std::move(train_data);
    f.batch_size = o.batch_size;
    f.reader_threads = o.reader_threads;
    f.num_epochs = (examples_needed + num_train - 1) / num_train;
    f.seed = seed + feed_epoch;
    f.deterministic = deterministic;
    f.stop = o.stop;
    INFLOW_ASSIGN_OR_RETURN(feed, internal::MakeTrainFeed(env, std::move(f)));
    if (skip_batches > 0) {
      const Clock::time_point before = Clock::now();
      for (int64_t i = 0; i < skip_batches; ++i) {
        Result<Tuple> skipped = feed->Next();
        if (IsCancelled(skipped.status()) && o.stop.stop_requested()) break;
        if (!skipped.ok()) {
          return skipped.status().WithContext(
              "skipping to the input position of step " +
              std::to_string(start_step));
        }
      }
      message("skipped " + std::to_string(skip_batches) +
              " batches to the input position of step " +
              std::to_string(start_step) + " in " +
              std::to_string(Seconds(before, Clock::now())) + " s");
    }
  }
  if (!o.ckpt_dir.empty()) {
    INFLOW_RETURN_IF_ERROR(state->WriteGraph(o.ckpt_dir + "/graph.pbtxt"));
  }

  // The loop.
  const Clock::time_point t0 = Clock::now();
  double wait_s = 0;
  int64_t evaluated_at = -1;
  double accuracy = 0;
  auto evaluate = [&]() -> Status {
    INFLOW_ASSIGN_OR_RETURN(accuracy, state->Accuracy(test_data));
    const int64_t step = state->step();
    evaluated_at = step;
    if (events) {
      INFLOW_RETURN_IF_ERROR(
          events->WriteScalar("accuracy", static_cast<float>(accuracy), step));
      INFLOW_RETURN_IF_ERROR(events->Flush());
    }
    if (step % steps_per_epoch == 0) {
      if (cb.on_epoch) cb.on_epoch(step / steps_per_epoch, step, accuracy);
    } else {
      // Inside an epoch (a stop, or --steps): not an epoch's line.
      char epochs[32];
      std::snprintf(epochs, sizeof(epochs), "%.2f",
                    static_cast<double>(step) / steps_per_epoch);
      char acc[32];
      std::snprintf(acc, sizeof(acc), "%.4f", accuracy);
      message(std::string("test accuracy ") + acc + " at step " +
              std::to_string(step) + " (epoch " + epochs + ")");
    }
    return OkStatus();
  };
  while (feed != nullptr && state->step() < final_step) {
    const Clock::time_point before = Clock::now();
    Result<Tuple> batch = feed->Next();
    wait_s += Seconds(before, Clock::now());
    if (!batch.ok()) {
      if (IsOutOfRange(batch.status())) break;
      if (IsCancelled(batch.status()) && o.stop.stop_requested()) {
        summary.interrupted = true;
        break;
      }
      return batch.status().WithContext("training step " +
                                        std::to_string(state->step() + 1));
    }
    INFLOW_ASSIGN_OR_RETURN(float loss, state->Step((*batch)[0], (*batch)[1]));
    const int64_t step = state->step();
    if (!std::isfinite(loss)) {
      // TF's NanTensorHook: stop, and save nothing after the weights that
      // gave this loss (the checkpoints so far hold finite values).
      Status closed = feed->Close();
      closed.IgnoreError();
      return InvalidArgumentError(
          std::string(std::isnan(loss) ? "NaN" : "infinite") +
          " loss during training at step " + std::to_string(step) +
          " (--optimizer " + std::string(OptimizerKindName(o.optimizer)) +
          ", learning rate " + Number(state->learning_rate()) +
          "): the model diverged; lower --lr" +
          (state->saved_step() >= 0
               ? "; the last checkpoint is of step " +
                     std::to_string(state->saved_step())
               : std::string("; no checkpoint was written")));
    }
    summary.losses.push_back(loss);
    state->set_epoch(step / steps_per_epoch);
    const double elapsed = Seconds(t0, Clock::now());
    StepInfo info{.step = step,
                  .final_step = final_step,
                  .epoch = step / steps_per_epoch,
                  .loss = loss,
                  .examples_per_s = static_cast<double>(step - start_step) *
                                    o.batch_size / std::max(elapsed, 1e-9),
                  .queue_fill = feed->QueueFill(),
                  .input_wait_fraction = wait_s / std::max(elapsed, 1e-9)};
    if (cb.on_step) cb.on_step(info);
    if (events && o.log_every > 0 && step % o.log_every == 0) {
      const std::pair<std::string, float> scalars[] = {
          {"loss", loss},
          {"queue_fill", static_cast<float>(info.queue_fill)},
          {"examples_per_s", static_cast<float>(info.examples_per_s)},
          {"input_wait_fraction",
           static_cast<float>(info.input_wait_fraction)}};
      INFLOW_RETURN_IF_ERROR(events->WriteScalars(scalars, step));
    }
    if (o.eval_each_epoch && step % steps_per_epoch == 0) {
      INFLOW_RETURN_IF_ERROR(evaluate());
    }
    if (step % save_every == 0 && !o.ckpt_dir.empty()) {
      INFLOW_ASSIGN_OR_RETURN(summary.checkpoint, state->Save());
      message("saved " + summary.checkpoint);
    }
  }
  const Clock::time_point t1 = Clock::now();
  if (feed != nullptr) {
    Status closed = feed->Close();
    if (!closed.ok() && !summary.interrupted) return closed;
  }
  if (o.stop.stop_requested()) summary.interrupted = true;

  const int64_t end_step = state->step();
  if (!o.ckpt_dir.empty() && state->saved_step() != end_step) {
    INFLOW_ASSIGN_OR_RETURN(summary.checkpoint, state->Save());
    message("saved " + summary.checkpoint);
  }
  if (evaluated_at != end_step) INFLOW_RETURN_IF_ERROR(evaluate());

  const double seconds = Seconds(t0, t1);
  summary.steps = end_step;
  summary.steps_run = end_step - start_step;
  summary.epochs = static_cast<double>(end_step) / steps_per_epoch;
  summary.test_accuracy = accuracy;
  summary.steps_per_s = seconds > 0 ? summary.steps_run / seconds : 0;
  summary.examples_per_s = summary.steps_per_s * o.batch_size;
  summary.input_wait_fraction = seconds > 0 ? wait_s / seconds : 0;
  if (events) {
    INFLOW_RETURN_IF_ERROR(events->Close());
  }
  if (!o.ckpt_dir.empty()) {
    // Published whole and durably: a crash leaves the last run's summary
    // or this one, never a part.
    const std::string path = o.ckpt_dir + "/summary.json";
    INFLOW_RETURN_IF_ERROR(internal::WriteFileAtomically(
        env, path, path + ".tmp", summary.ToJson() + "\n"));
  }
  return summary;
}

}  // namespace inflow
