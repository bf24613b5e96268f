// Copyright 2026 The inflow Authors.
//
// `inflow train`: trains the Mlp on image shards (Train(),
// inflow/train/trainer.h) with a progress bar on stderr, and prints the
// summary JSON as the last line of stdout.
//
// Signals: SIGINT and SIGTERM are blocked in every thread and taken by one
// watcher thread (sigwait), so no handler runs inside the library. The
// first one requests a stop from the run's Coordinator: the loop ends
// after its current step, writes a final checkpoint and returns. A second
// SIGINT exits at once (status 130).

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "inflow/threads/coordinator.h"
#include "inflow/train/trainer.h"

#include "command.h"
#include "flag_checks.h"
#include "progress.h"

namespace inflow::tools {
namespace {

// Owns the watcher thread; restores the signal mask when destroyed.
class SignalWatcher {
 public:
  explicit SignalWatcher(Coordinator* coord) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGUSR1);  // ends the watcher
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    thread_ = std::thread([this, coord] {
      bool stopping = false;
      for (;;) {
        int sig = 0;
        if (sigwait(&set_, &sig) != 0 || sig == SIGUSR1) return;
        if (stopping && sig == SIGINT) _exit(130);
        if (!stopping) {
          static const char kMsg[] =
              "\nstopping: finishing the step and saving a checkpoint "
              "(Ctrl-C again exits at once)\n";
          [[maybe_unused]] ssize_t n = write(2, kMsg, sizeof(kMsg) - 1);
          stopping = true;
          coord->RequestStop();
        }
      }
    });
  }
  ~SignalWatcher() {
    pthread_kill(thread_.native_handle(), SIGUSR1);
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t set_, old_;
  std::thread thread_;
};

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

Status Run(TrainOptions options) {
  Coordinator coord;
  SignalWatcher watcher(&coord);
  options.stop = coord.stop_token();
  // Made at the first step, when the final step is known.
  std::optional<Progress> progress;
  const bool terminal = isatty(2) != 0;
  auto line = [&](const std::string& text) {
    // Above the bar on a terminal (the bar is redrawn at the next step).
    std::fprintf(stderr, "%s%s\n", terminal ? "\r\033[K" : "", text.c_str());
  };
  TrainCallbacks callbacks;
  std::string extra;
  callbacks.on_step = [&](const StepInfo& s) {
    extra = "epoch " + std::to_string(s.epoch) + " loss " + Fixed(s.loss, 4) +
            " " + Fixed(s.examples_per_s, 0) + " examples/s queue " +
            Fixed(s.queue_fill, 2) + " wait " +
            Fixed(100 * s.input_wait_fraction, 1) + "%";
    if (!progress) {
      Progress::Options p;
      p.label = "train";
      p.unit = "steps";
      p.total = s.final_step;
      progress.emplace(p);
    }
    progress->Update(s.step, extra);
  };
  callbacks.on_epoch = [&](int64_t epoch, int64_t step, double accuracy) {
    line("epoch " + std::to_string(epoch) + ": test accuracy " +
         Fixed(accuracy, 4) + " (step " + std::to_string(step) + ")");
  };
  callbacks.on_message = line;
  Result<TrainSummary> summary = Train(options, callbacks);
  if (progress) progress->Finish(extra);
  if (!summary.ok()) return summary.status();
  if (!summary->checkpoint.empty()) {
    line("checkpoint: " + summary->checkpoint);
  }
  std::printf("%s\n", summary->ToJson().c_str());
  std::fflush(stdout);
  if (summary->interrupted) {
    return CancelledError(
        "interrupted at step " + std::to_string(summary->steps) +
        (summary->checkpoint.empty() ? std::string()
                                     : "; saved " + summary->checkpoint +
                                           "; --resume continues from it"));
  }
  return OkStatus();
}

std::function<Status()> Setup(CLI::App& app) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto o = std::make_shared<TrainOptions>();
  auto epochs = std::make_shared<int64_t>(0);
  auto steps = std::make_shared<int64_t>(0);
  auto lr = std::make_shared<float>(0);
  auto seed = std::make_shared<int64_t>(0);
  auto optimizer = std::make_shared<std::string>("rmsprop");
  auto feed = std::make_shared<std::string>("queue");
  app.add_option("--data", o->data_dir,
                 "folder of train-*/test-*.tfrecord (inflow convert)")
      ->required();
  // 0 epochs or steps is a usage error, not "train nothing": it is most
  // often an unset variable in a script, and `inflow eval` evaluates a
  // checkpoint without training.
  auto* e = app.add_option("--epochs", *epochs, "epochs to train (default 1)")
                ->transform(IntegerIn(1, kMax));
  auto* s = app.add_option("--steps", *steps, "global step to train to")
                ->transform(IntegerIn(1, kMax));
  e->excludes(s);
  app.add_option("--batch-size", o->batch_size, "examples per step")
      ->transform(IntegerIn(1, kMax))
      ->capture_default_str();
  auto* readers = app.add_option("--reader-threads", o->reader_threads,
                                 "reader threads (--feed queue)")
                      ->transform(IntegerIn(1, std::numeric_limits<int>::max()))
                      ->capture_default_str();
  app.add_option("--math-threads", o->math_threads,
                 "threads of the model's math, the training thread's "
                 "included (1..64; any number trains the same weights)")
      ->transform(IntegerIn(1, 64))
      ->capture_default_str();
  app.add_option("--optimizer", *optimizer, "rmsprop, adam or sgd")
      ->check(KindName(ParseOptimizerKind, "{rmsprop,adam,sgd}"))
      ->capture_default_str();
  auto* l =
      app.add_option("--lr", *lr, "learning rate > 0 (default 0.001; sgd 0.01)")
          ->check(PositiveFinite());
  auto* sd = app.add_option("--seed", *seed,
                            "seed (weights, dropout, shuffling), 0 or more; "
                            "without it a random one, printed and saved")
                 ->transform(IntegerIn(0, kMax));
  auto* ckpt =
      app.add_option("--ckpt-dir", o->ckpt_dir,
                     "checkpoint folder (model.ckpt-STEP, summary.json)");
  app.add_option("--save-every", o->save_every,
                 "checkpoint every K steps (default 0: every epoch) and at "
                 "the end")
      ->transform(IntegerIn(0, kMax));
  app.add_option("--logdir", o->logdir, "TensorBoard event files folder");
  app.add_flag("--resume", o->resume,
               "continue from the latest checkpoint in --ckpt-dir")
      ->needs(ckpt);
  app.add_flag("--allow-missing-shards", o->allow_missing_shards,
               "train (and test) on the shards present when some of a "
               "split's PREFIX-i-of-N shards are missing (a warning, not "
               "an error)");
  app.add_option("--feed", *feed,
                 "queue, sync, preloaded, sequence (batch i by record "
                 "offsets through an OrderedEnqueuer) or dataset (a "
                 "data::Dataset whose position the checkpoints hold)")
      ->check(
          KindName(ParseFeedKind, "{queue,sync,preloaded,sequence,dataset}"))
      ->capture_default_str();
  // A flag the chosen feed would ignore is a usage error too.
  app.callback([o, feed, readers] {
    if (readers->count() > 0 && *feed != "queue" && *feed != "sequence" &&
        *feed != "dataset") {
      throw CLI::ValidationError("--reader-threads",
                                 std::to_string(o->reader_threads) +
                                     " is for --feed queue, sequence or "
                                     "dataset; "
                                     "--feed " +
                                     *feed + " reads in the training thread");
    }
  });
  return [=]() -> Status {
    TrainOptions options = *o;
    if (e->count() > 0) options.epochs = *epochs;
    if (s->count() > 0) options.steps = *steps;
    if (l->count() > 0) options.learning_rate = *lr;
    if (sd->count() > 0) options.seed = *seed;
    INFLOW_ASSIGN_OR_RETURN(options.optimizer, ParseOptimizerKind(*optimizer));
    INFLOW_ASSIGN_OR_RETURN(options.feed, ParseFeedKind(*feed));
    return Run(std::move(options));
  };
}

INFLOW_REGISTER_COMMAND("train",
                        "Train the 784-625-625-10 MLP on image shards, with "
                        "checkpoints, resume and TensorBoard events",
                        Setup);

}  // namespace
}  // namespace inflow::tools
