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
//
// --distributed: this process is one rank of an `mpirun -np N inflow
// train ...` (docs/distributed.md). Every rank names itself on stderr;
// rank 0 alone shows progress and prints the summary. mpirun's Ctrl-C
// (SIGTERM to every rank) stops every rank at one step, and rank 0 saves.

#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "inflow/distributed/mpi.h"
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

// What `inflow train` takes beside TrainOptions.
struct RunFlags {
  bool distributed = false;
  int64_t collective_timeout_s = 0;
  int ranks_per_host = 0;   // MpiOptions::ranks_per_host (tests)
  std::string log_records;  // a folder, or empty
};

// DIR/records-rank-R.txt: a line per step, "STEP CRC CRC ...", the
// zlib CRC-32 of each row's 784 pixel bytes (the float pixels * 255,
// rounded): which records this rank trained on, in order.
class RecordLog {
 public:
  static Result<std::unique_ptr<RecordLog>> Open(const std::string& dir,
                                                 int rank) {
    const std::string path =
        dir + "/records-rank-" + std::to_string(rank) + ".txt";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
      return PermissionDeniedError("--log-records: cannot write " + path);
    }
    return std::unique_ptr<RecordLog>(new RecordLog(f));
  }
  ~RecordLog() { std::fclose(file_); }

  void Write(int64_t step, const Tuple& batch) {
    const Tensor& images = batch[0];
    const int64_t rows = images.dim_size(0);
    const int64_t width = rows > 0 ? images.num_elements() / rows : 0;
    std::vector<unsigned char> pixels(static_cast<size_t>(width));
    std::fprintf(file_, "%lld", static_cast<long long>(step));
    for (int64_t i = 0; i < rows; ++i) {
      const float* row = images.data<float>() + i * width;
      for (int64_t k = 0; k < width; ++k) {
        pixels[k] = static_cast<unsigned char>(std::lround(row[k] * 255.0f));
      }
      std::fprintf(file_, " %lu",
                   crc32(0, pixels.data(), static_cast<uInt>(width)));
    }
    std::fprintf(file_, "\n");
  }

 private:
  explicit RecordLog(std::FILE* f) : file_(f) {}
  std::FILE* file_;
};

Status Run(TrainOptions options, const RunFlags& flags) {
  Coordinator coord;
  SignalWatcher watcher(&coord);
  options.stop = coord.stop_token();
  std::unique_ptr<distributed::Communicator> world;
  if (flags.distributed) {
    distributed::MpiOptions mpi;
    mpi.stop = coord.stop_token();
    mpi.collective_timeout = std::chrono::seconds(flags.collective_timeout_s);
    mpi.ranks_per_host = flags.ranks_per_host;
    INFLOW_ASSIGN_OR_RETURN(world, distributed::MpiWorld(mpi));
    options.communicator = world.get();
    std::fprintf(stderr, "%s of %d\n", world->Describe(world->rank()).c_str(),
                 world->size());
  }
  const bool lead = world == nullptr || world->rank() == 0;
  std::unique_ptr<RecordLog> log;
  if (!flags.log_records.empty()) {
    INFLOW_ASSIGN_OR_RETURN(
        log, RecordLog::Open(flags.log_records, world ? world->rank() : 0));
  }
  // Made at the first step, when the final step is known.
  std::optional<Progress> progress;
  const bool terminal = isatty(2) != 0;
  auto line = [&](const std::string& text) {
    // Above the bar on a terminal (the bar is redrawn at the next step).
    std::fprintf(stderr, "%s%s\n", terminal ? "\r\033[K" : "", text.c_str());
  };
  TrainCallbacks callbacks;
  std::string extra;
  if (log) {
    callbacks.on_batch = [&](int64_t step, const Tuple& b) {
      log->Write(step, b);
    };
  }
  callbacks.on_step = [&](const StepInfo& s) {
    if (!lead) return;
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
  if (!lead) return OkStatus();
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
  auto flags = std::make_shared<RunFlags>();
  app.add_flag("--distributed", flags->distributed,
               "one rank of `mpirun -np N inflow train ...`: --batch-size is "
               "the global batch, split among the ranks; --feed dataset "
               "(the default then) or sequence (docs/distributed.md)");
  app.add_option("--collective-timeout", flags->collective_timeout_s,
                 "--distributed: a rank waiting this many seconds in one "
                 "collective exits with an error (default 0: no limit; a "
                 "rank on this host that dies is found within 0.1 s anyway)")
      ->transform(IntegerIn(0, kMax));
  app.add_option("--check-replicas-every", o->check_replicas_every,
                 "--distributed: compare the ranks' parameters every K "
                 "steps (0: never)")
      ->transform(IntegerIn(0, kMax))
      ->capture_default_str();
  app.add_flag("!--no-shared-memory", o->sliced_step,
               "--distributed: sum with MPI_Allreduce and update everything "
               "on every rank, instead of one copy of the parameters per "
               "machine in shared memory, each rank summing and updating a "
               "slice");
  // Unlisted: for tests of the path between machines on one machine.
  app.add_option("--ranks-per-host", flags->ranks_per_host,
                 "--distributed: treat each N consecutive ranks of a machine "
                 "as a machine of their own")
      ->transform(IntegerIn(0, 1 << 20))
      ->group("");
  app.add_option("--log-records", flags->log_records,
                 "write DIR/records-rank-R.txt: per step, a CRC-32 of each "
                 "example's pixels (which records each rank trained on)");
  auto* feed_option =
      app.add_option("--feed", *feed,
                     "queue, sync, preloaded, sequence (batch i by record "
                     "offsets through an OrderedEnqueuer) or dataset (a "
                     "data::Dataset whose position the checkpoints hold)")
          ->check(KindName(ParseFeedKind,
                           "{queue,sync,preloaded,sequence,dataset}"))
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
    INFLOW_ASSIGN_OR_RETURN(
        options.feed,
        ParseFeedKind(flags->distributed && feed_option->count() == 0
                          ? std::string("dataset")
                          : *feed));
    return Run(std::move(options), *flags);
  };
}

INFLOW_REGISTER_COMMAND("train",
                        "Train the 784-625-625-10 MLP on image shards, with "
                        "checkpoints, resume and TensorBoard events",
                        Setup);

}  // namespace
}  // namespace inflow::tools
