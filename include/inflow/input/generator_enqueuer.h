// Copyright 2026 The inflow Authors.
//
// GeneratorEnqueuer: Keras's GeneratorEnqueuer for a C++ generator, a
// callable that returns the next item on each call. Worker threads call it
// ahead of the consumer, at most max_queue_size items ahead; Get() hands
// the items out in the order the calls were made (docs/conformance.md,
// "Sequences and enqueuers").
//
//   int next = 0;
//   GeneratorEnqueuer enqueuer(
//       [&next](const CallOptions&) -> Result<std::optional<Tuple>> {
//         if (next == 100) return OutOfRangeError("done");  // the end
//         return Tuple{Tensor::Scalar<int64_t>(next++)};
//       });
//   Status s = enqueuer.Start(/*workers=*/1, /*max_queue_size=*/10);
//   for (;;) {
//     Result<Tuple> item = enqueuer.Get();
//     if (!item.ok()) break;  // OUT_OF_RANGE after the 100 items
//   }
//
// The generator is not required to be thread-safe: by default its calls
// are serialised by a mutex (Keras instead raises "generator already
// executing" when a plain generator is shared by several threads).

#ifndef INFLOW_INPUT_GENERATOR_ENQUEUER_H_
#define INFLOW_INPUT_GENERATOR_ENQUEUER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "inflow/core/call_options.h"
#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"

namespace inflow {

namespace internal {
class EnqueuerRunner;
class EnqueuerSlots;
}  // namespace internal

// One call of a generator: the next item; nullopt for an item to skip
// (Python's None, which Keras does not yield); OUT_OF_RANGE at the end (the
// generator is not called again); any other error ends the stream with
// that error. `options.stop` fires when the enqueuer stops: a call that
// blocks should honour it.
using Generator =
    std::function<Result<std::optional<Tuple>>(const CallOptions& options)>;

struct GeneratorEnqueuerOptions {
  // true: calls to the generator are serialised by a mutex, and each call's
  // place in the output is taken under it, so Get() returns the items in
  // the order the generator produced them, whichever worker made each call.
  // false: workers call the generator concurrently, so it must be
  // thread-safe; Get() returns the items in the order the calls started.
  bool serialize_calls = true;
  // Prefix of the threads' names ("<name>/worker:<k>").
  std::string name = "generator_enqueuer";
};

// Thread-safe: every method may be called from any thread.
//
// Keeps at most `max_queue_size` generator calls made or running and not
// yet taken by Get(). At the end of the generator, Get() hands out every
// item of the calls already made (drains), then returns OUT_OF_RANGE.
//
// The destructor stops the enqueuer and waits for its threads, without a
// time limit: a generator call that ignores the stop token delays it.
class GeneratorEnqueuer {
 public:
  // An empty `next` fails Start() with INVALID_ARGUMENT.
  explicit GeneratorEnqueuer(Generator next,
                             GeneratorEnqueuerOptions options = {});
  ~GeneratorEnqueuer();
  GeneratorEnqueuer(const GeneratorEnqueuer&) = delete;
  GeneratorEnqueuer& operator=(const GeneratorEnqueuer&) = delete;

  // Starts `workers` threads that call the generator. INVALID_ARGUMENT for
  // workers < 1 or max_queue_size < 1; FAILED_PRECONDITION when started
  // before (an enqueuer runs once).
  [[nodiscard]] Status Start(int workers = 1, int64_t max_queue_size = 10);

  // The next item, in the order of the calls (skipping nullopt ones). After
  // the generator's end, once every item is handed out: OUT_OF_RANGE, from
  // every later call. A generator error is returned as
  // "generator call <n>: <error>" (n counts calls from 0; its code kept; an
  // exception escaping the generator as UNKNOWN) after the items of the
  // calls before it, stops the enqueuer and is returned again by every
  // later call. After Stop(): CANCELLED. Before Start():
  // FAILED_PRECONDITION. `options.timeout` bounds the wait
  // (DEADLINE_EXCEEDED) and `options.stop` releases it (CANCELLED); neither
  // loses an item nor stops the enqueuer.
  [[nodiscard]] Result<Tuple> Get(const CallOptions& options = {});

  // Started and not stopped (by Stop(), an error or the end handed out).
  bool IsRunning() const;

  // Stops: drops the items not yet taken, releases every wait (a running
  // generator call through its stop token), and waits up to `timeout`
  // (nullopt: no limit) for the threads to return. OK when they did;
  // otherwise UNKNOWN naming those still running (the destructor waits for
  // them). Idempotent; OK when never started.
  Status Stop(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

 private:
  bool CallOnce(internal::EnqueuerSlots* slots, const CallOptions& options);
  bool SerialCallOnce(internal::EnqueuerSlots* slots,
                      const CallOptions& options) INFLOW_EXCLUDES(call_mu_);

  const Generator next_;
  const GeneratorEnqueuerOptions options_;
  // Held across each generator call when options_.serialize_calls.
  Mutex call_mu_;
  // Last: destroyed first, stopping and joining the threads while the
  // members above are alive.
  const std::unique_ptr<internal::EnqueuerRunner> runner_;
};

}  // namespace inflow

#endif  // INFLOW_INPUT_GENERATOR_ENQUEUER_H_
